"""Unit attributes (E19-E22): groups, assignments, assign and unassign through REST
and GraphQL, all-or-nothing validation, and `one_attribute_per_unit` under concurrency.

The `w-` groups of tests/fixtures.py belong to these tests; each test starts with
them empty (`clean`), so tests do not depend on each other's order.
"""

from __future__ import annotations

import asyncio

import pytest
import pytest_asyncio

from resolvers.auth.keys import create_key
from resolvers.auth.permissions import UNIT_ATTRIBUTES_READ, UNIT_ATTRIBUTES_WRITE
from storage import collections as c

FLAG = {"Experimental-Flags": "unit-attributes-resource"}
GROUPS = "/v1/units/attribute-groups"
INVALID = "Resource validation failed"


def item(group: str, key: str, unit: str, asset: str = "asset-1") -> dict[str, str]:
    return {"group_id": group, "attribute_id": f"{group}-{key}", "asset_id": asset, "unit_id": unit}


@pytest_asyncio.fixture(loop_scope="session")
async def clean(store):
    await store[c.ASSIGNMENTS].delete_many({"group_id": {"$regex": "^w-"}})
    yield
    await store[c.ASSIGNMENTS].delete_many({"group_id": {"$regex": "^w-"}})


@pytest.fixture
def headers(keys) -> dict[str, str]:
    return {"API-Key": keys.full, **FLAG}


async def stored(store, group: str) -> list[tuple[str, str, str, bool]]:
    documents = await store[c.ASSIGNMENTS].find({"group_id": group}).to_list()
    return sorted(
        (d["unit_id"], d["attribute_id"], d["asset_id"], d["exclusive"]) for d in documents
    )


async def assign(client, headers, group: str, items: list, path_suffix: str = ""):
    return await client.put(
        f"{GROUPS}/{group}/units{path_suffix}", headers=headers, json={"data": items}
    )


# E19


async def test_groups_with_nested_attributes(client, headers):
    response = await client.get(GROUPS, headers=headers)
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"data"}
    assert [group["group_id"] for group in body["data"]] == [
        "features",
        "view",
        "w-features",
        "w-many",
        "w-view",
    ]
    assert body["data"][1] == {
        "group_id": "view",
        "group_name": "View",
        "one_attribute_per_unit": True,
        "attributes": [
            {"attribute_id": "view-city", "attribute_name": "City", "attribute_key": "city"},
            {"attribute_id": "view-pool", "attribute_name": "Pool", "attribute_key": "pool"},
        ],
    }


async def test_groups_slice_without_paging_object(client, headers):
    response = await client.get(f"{GROUPS}?page=2&per-page=2", headers=headers)
    assert response.status_code == 200
    assert [g["group_id"] for g in response.json()["data"]] == ["w-features", "w-many"]
    bad = await client.get(f"{GROUPS}?per-page=0", headers=headers)
    assert bad.status_code == 422
    assert bad.json() == {
        "message": INVALID,
        "fields": {"per-page": ["must be an integer of at least 1"]},
    }


# E20


async def test_assignments_of_a_group_paged_by_unit(client, headers):
    response = await client.get(f"{GROUPS}/features/units?per-page=2", headers=headers)
    assert response.status_code == 200
    assert response.json() == {
        "paging": {
            "per_page": 2,
            "current_page": 1,
            "prev_url": None,
            "next_url": "https://api.floorgate.test/v1/units/attribute-groups/features/units"
            "?page=2&per-page=2",
        },
        "data": [
            item("features", "balcony", "Ab", "asset-2"),
            item("features", "balcony", "u-001"),
        ],
    }
    second = await client.get(f"{GROUPS}/features/units?page=2&per-page=2", headers=headers)
    assert second.json()["data"] == [
        item("features", "balcony", "u-002"),
        item("features", "fireplace", "u-002"),
    ]
    assert second.json()["paging"]["next_url"] is None


async def test_assignments_asset_filter_and_scope(client, headers, store):
    only_2 = await client.get(f"{GROUPS}/features/units?asset=asset-2", headers=headers)
    assert only_2.json()["data"] == [item("features", "balcony", "Ab", "asset-2")]
    scoped = (await create_key(store, "attr-scoped", [UNIT_ATTRIBUTES_READ], ["asset-2"])).secret
    scoped_headers = {"API-Key": scoped, **FLAG}
    seen = await client.get(f"{GROUPS}/features/units", headers=scoped_headers)
    assert seen.json()["data"] == [item("features", "balcony", "Ab", "asset-2")]
    outside = await client.get(f"{GROUPS}/features/units?asset=asset-1", headers=scoped_headers)
    assert outside.status_code == 200
    assert outside.json()["data"] == []


async def test_assignments_of_unknown_group_is_404_after_input(client, headers):
    missing = await client.get(f"{GROUPS}/nope/units", headers=headers)
    assert missing.status_code == 404
    assert missing.json() == {"message": "Not found"}
    bad_input = await client.get(f"{GROUPS}/nope/units?page=0&asset={'x' * 256}", headers=headers)
    assert bad_input.status_code == 422
    assert bad_input.json()["fields"] == {
        "page": ["must be an integer of at least 1"],
        "asset": ["must be at most 255 characters"],
    }
    long_group = await client.get(f"{GROUPS}/{'g' * 256}/units", headers=headers)
    assert long_group.status_code == 422
    assert long_group.json()["fields"] == {"group-id": ["must be at most 255 characters"]}


# E21


async def test_assign_echoes_and_stores(client, headers, store, clean):
    items = [
        item("w-features", "balcony", "u-003"),
        item("w-features", "patio", "u-003"),
        item("w-features", "balcony", "Ab", "asset-2"),
    ]
    response = await assign(client, headers, "w-features", items)
    assert response.status_code == 200
    assert response.json() == {"data": items}
    assert await stored(store, "w-features") == [
        ("Ab", "w-features-balcony", "asset-2", False),
        ("u-003", "w-features-balcony", "asset-1", False),
        ("u-003", "w-features-patio", "asset-1", False),
    ]


async def test_assign_is_idempotent(client, headers, store, clean):
    items = [item("w-features", "balcony", "u-004")]
    for _ in range(3):
        response = await assign(client, headers, "w-features", items)
        assert response.status_code == 200
    assert await stored(store, "w-features") == [("u-004", "w-features-balcony", "asset-1", False)]


async def test_one_attribute_per_unit_replaces(client, headers, store, clean):
    await assign(client, headers, "w-view", [item("w-view", "city", "u-005")])
    response = await assign(client, headers, "w-view", [item("w-view", "park", "u-005")])
    assert response.status_code == 200
    assert await stored(store, "w-view") == [("u-005", "w-view-park", "asset-1", True)]


async def test_one_attribute_per_unit_refuses_two_items_for_one_unit(client, headers, store, clean):
    await assign(client, headers, "w-view", [item("w-view", "city", "u-006")])
    response = await assign(
        client,
        headers,
        "w-view",
        [
            item("w-view", "pool", "u-006"),
            item("w-view", "park", "u-007"),
            item("w-view", "park", "u-006"),
        ],
    )
    assert response.status_code == 422
    assert response.json() == {
        "message": INVALID,
        "fields": {
            "data.2.unit_id": [
                "unit 'u-006' is already in data.0: the group allows one attribute per unit"
            ]
        },
    }
    assert await stored(store, "w-view") == [("u-006", "w-view-city", "asset-1", True)]


async def test_invalid_items_are_each_named_and_nothing_is_written(client, headers, store, clean):
    items = [
        item("w-features", "balcony", "u-008"),  # fine on its own
        item("w-view", "balcony", "u-008"),  # another group than the path's
        item("w-features", "nope", "u-008"),  # not an attribute of the group
        item("w-features", "balcony", "u-999"),  # no such unit
        item("w-features", "balcony", "Ab"),  # unit of another asset
    ]
    response = await assign(client, headers, "w-features", items)
    assert response.status_code == 422
    assert response.json() == {
        "message": INVALID,
        "fields": {"data.1.group_id": ["must be the group of the path ('w-features')"]},
    }
    del items[1]
    response = await assign(client, headers, "w-features", items)
    assert response.status_code == 422
    assert response.json() == {
        "message": INVALID,
        "fields": {
            "data.1.attribute_id": ["is not an attribute of group 'w-features'"],
            "data.2.unit_id": ["no unit 'u-999' in asset 'asset-1'"],
            "data.3.unit_id": ["no unit 'Ab' in asset 'asset-1'"],
        },
    }
    assert await stored(store, "w-features") == []


async def test_unit_outside_the_key_scope_reads_as_unknown(client, store, clean):
    secret = (await create_key(store, "attr-writer", [UNIT_ATTRIBUTES_WRITE], ["asset-2"])).secret
    headers = {"API-Key": secret, **FLAG}
    response = await assign(client, headers, "w-features", [item("w-features", "patio", "u-001")])
    assert response.status_code == 422
    assert response.json()["fields"] == {"data.0.unit_id": ["no unit 'u-001' in asset 'asset-1'"]}
    inside = await assign(
        client, headers, "w-features", [item("w-features", "patio", "Ab", "asset-2")]
    )
    assert inside.status_code == 200
    assert await stored(store, "w-features") == [("Ab", "w-features-patio", "asset-2", False)]


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({"data": []}, {"data": ["must be a non-empty array"]}),
        (
            {"data": [{"group_id": "w-view", "attribute_id": 5, "asset_id": None}]},
            {"data.0.unit_id": ["is required"], "data.0.asset_id": ["must not be null"]},
        ),
        (
            {
                "data": [
                    {
                        "group_id": "w-view",
                        "attribute_id": "a",
                        "asset_id": "b",
                        "unit_id": "c",
                        "colour": "red",
                    }
                ]
            },
            {"data.0.colour": ["is not a known field"]},
        ),
        ({"data": [7]}, {"data.0": ["must be an object"]}),
        (
            {
                "data": [
                    {"group_id": ["w-view"], "attribute_id": "a", "asset_id": "b", "unit_id": True}
                ]
            },
            {"data.0.group_id": ["must be a string"], "data.0.unit_id": ["must be a string"]},
        ),
        ({"items": []}, {"body": ['must be a JSON object with a "data" member']}),
        ([], {"body": ['must be a JSON object with a "data" member']}),
        ({"data": [], "extra": 1}, {"body": ["unknown member 'extra'"]}),
        (
            {"data": [item("w-view", "city", "u-001") | {"unit_id": "x" * 256}]},
            {"data.0.unit_id": ["must be at most 255 characters"]},
        ),
    ],
)
async def test_bad_bodies(client, headers, store, clean, body, fields):
    for suffix in ("", "/remove"):
        response = await client.put(f"{GROUPS}/w-view/units{suffix}", headers=headers, json=body)
        assert response.status_code == 422
        assert response.json() == {"message": INVALID, "fields": fields}
    assert await stored(store, "w-view") == []


async def test_body_media_type_json_and_size(client, headers, settings):
    wrong_type = await client.put(
        f"{GROUPS}/w-view/units", headers=headers, content=b'{"data": []}'
    )
    assert wrong_type.status_code == 415
    assert wrong_type.json() == {"message": "Content type must be application/json"}
    not_json = await client.put(
        f"{GROUPS}/w-view/units",
        headers={**headers, "Content-Type": "application/json"},
        content=b'{"data": [',
    )
    assert not_json.status_code == 422
    assert list(not_json.json()["fields"]) == ["body"]
    assert not_json.json()["fields"]["body"][0].startswith("is not valid JSON")
    too_big = await client.put(
        f"{GROUPS}/w-view/units",
        headers={**headers, "Content-Type": "application/json"},
        content=b" " * (settings.max_body_bytes + 1),
    )
    assert too_big.status_code == 413
    assert too_big.json() == {"message": "Request body too large"}


async def test_unknown_group_is_404_after_input_checks(client, headers):
    response = await assign(client, headers, "nope", [item("nope", "x", "u-001")])
    assert response.status_code == 404
    assert response.json() == {"message": "Not found"}
    empty = await assign(client, headers, "nope", [])
    assert empty.status_code == 422


async def test_bad_body_is_answered_only_after_access(client, keys):
    no_key = await client.put(f"{GROUPS}/w-view/units", json={"nonsense": 1})
    assert no_key.status_code == 401
    no_flag = await client.put(
        f"{GROUPS}/w-view/units", headers={"API-Key": keys.full}, content=b"not json"
    )
    assert no_flag.status_code == 404
    assert "unit-attributes-resource" in no_flag.json()["message"]
    no_permission = await client.put(
        f"{GROUPS}/w-view/units", headers={"API-Key": keys.plain, **FLAG}, json={"data": []}
    )
    assert no_permission.status_code == 403
    assert no_permission.json() == {
        "message": "Access denied: missing permission service.unit-attributes.write"
    }


# E22


async def test_unassign_is_204_and_tolerates_what_is_not_assigned(client, headers, store, clean):
    await assign(
        client,
        headers,
        "w-features",
        [item("w-features", "balcony", "u-009"), item("w-features", "patio", "u-009")],
    )
    response = await assign(
        client,
        headers,
        "w-features",
        [item("w-features", "balcony", "u-009"), item("w-features", "fireplace", "u-009")],
        "/remove",
    )
    assert response.status_code == 204
    assert response.content == b""
    assert await stored(store, "w-features") == [("u-009", "w-features-patio", "asset-1", False)]
    again = await assign(
        client, headers, "w-features", [item("w-features", "balcony", "u-009")], "/remove"
    )
    assert again.status_code == 204


async def test_unassign_validates_like_assign(client, headers, store, clean):
    await assign(client, headers, "w-features", [item("w-features", "balcony", "u-010")])
    response = await assign(
        client,
        headers,
        "w-features",
        [item("w-features", "balcony", "u-010"), item("w-features", "nope", "u-010")],
        "/remove",
    )
    assert response.status_code == 422
    assert response.json()["fields"] == {
        "data.1.attribute_id": ["is not an attribute of group 'w-features'"]
    }
    assert await stored(store, "w-features") == [("u-010", "w-features-balcony", "asset-1", False)]


# Concurrency: the database holds one_attribute_per_unit


async def test_fifty_concurrent_assigns_leave_exactly_one(client, headers, store, clean):
    requests = [
        assign(client, headers, "w-many", [item("w-many", f"v{n:02d}", "u-001")]) for n in range(50)
    ]
    responses = await asyncio.gather(*requests)
    assert sorted({response.status_code for response in responses}) == [200]
    documents = await store[c.ASSIGNMENTS].find({"group_id": "w-many"}).to_list()
    assert len(documents) == 1
    assert documents[0]["unit_id"] == "u-001"
    assert documents[0]["exclusive"] is True


async def test_the_index_refuses_a_second_exclusive_assignment(store, clean):
    """The rule lives in the database too: a direct second insert fails."""
    from pymongo.errors import DuplicateKeyError

    await store[c.ASSIGNMENTS].insert_one(
        {
            "group_id": "w-view",
            "attribute_id": "w-view-city",
            "asset_id": "asset-1",
            "unit_id": "u-002",
            "exclusive": True,
        }
    )
    with pytest.raises(DuplicateKeyError):
        await store[c.ASSIGNMENTS].insert_one(
            {
                "group_id": "w-view",
                "attribute_id": "w-view-pool",
                "asset_id": "asset-1",
                "unit_id": "u-002",
                "exclusive": True,
            }
        )


# GraphQL: REST runs these operations


async def graphql(client, headers, query: str, variables: dict | None = None) -> dict:
    response = await client.post(
        "/graphql", headers=headers, json={"query": query, "variables": variables or {}}
    )
    assert response.status_code == 200
    return response.json()


async def test_graphql_groups_and_assignments(client, headers):
    body = await graphql(
        client,
        headers,
        """{
        unitAttributeGroups(page: 1, perPage: 1) { groupId oneAttributePerUnit
          attributes { attributeId attributeKey } }
        unitAttributeAssignments(groupId: "view") {
          paging { nextPage } data { groupId attributeId assetId unitId } } }""",
    )
    assert body == {
        "data": {
            "unitAttributeGroups": [
                {
                    "groupId": "features",
                    "oneAttributePerUnit": False,
                    "attributes": [
                        {"attributeId": "features-balcony", "attributeKey": "balcony"},
                        {"attributeId": "features-fireplace", "attributeKey": "fireplace"},
                    ],
                }
            ],
            "unitAttributeAssignments": {
                "paging": {"nextPage": None},
                "data": [
                    {
                        "groupId": "view",
                        "attributeId": "view-city",
                        "assetId": "asset-1",
                        "unitId": "u-001",
                    }
                ],
            },
        }
    }


ASSIGN = """mutation ($g: ID!, $data: [UnitAttributeAssignmentInput!]!) {
  assignUnitAttributes(groupId: $g, data: $data) { groupId attributeId assetId unitId } }"""
UNASSIGN = """mutation ($g: ID!, $data: [UnitAttributeAssignmentInput!]!) {
  unassignUnitAttributes(groupId: $g, data: $data) { attributeId unitId } }"""


async def test_graphql_assign_and_unassign(client, headers, store, clean):
    data = [
        {"groupId": "w-view", "attributeId": "w-view-pool", "assetId": "asset-1", "unitId": "u-003"}
    ]
    assigned = await graphql(client, headers, ASSIGN, {"g": "w-view", "data": data})
    assert assigned == {"data": {"assignUnitAttributes": data}}
    removed = await graphql(client, headers, UNASSIGN, {"g": "w-view", "data": data})
    assert removed == {
        "data": {"unassignUnitAttributes": [{"attributeId": "w-view-pool", "unitId": "u-003"}]}
    }
    nothing = await graphql(client, headers, UNASSIGN, {"g": "w-view", "data": data})
    assert nothing == {"data": {"unassignUnitAttributes": []}}


async def test_graphql_errors_use_graphql_names(client, headers, keys):
    data = [{"groupId": "w-view", "attributeId": "nope", "assetId": "asset-1", "unitId": "u-003"}]
    body = await graphql(client, headers, ASSIGN, {"g": "w-view", "data": data})
    error = body["errors"][0]
    assert error["extensions"] == {
        "code": "BAD_USER_INPUT",
        "fields": {"data.0.attributeId": ["is not an attribute of group 'w-view'"]},
    }
    read_only = {"API-Key": keys.plain, **FLAG}
    denied = await graphql(client, read_only, ASSIGN, {"g": "w-view", "data": data})
    assert denied["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    no_flag = await graphql(client, {"API-Key": keys.full}, ASSIGN, {"g": "w-view", "data": data})
    assert no_flag["errors"][0]["extensions"]["code"] == "FLAG_REQUIRED"


async def test_graphql_writes_take_at_most_1000_items_too(client, keys):
    """The REST bodies' cap (MAX_WRITE_ITEMS) holds on the GraphQL face as well."""
    item = {
        "groupId": "w-view",
        "attributeId": "w-view-city",
        "assetId": "asset-1",
        "unitId": "u-001",
    }
    query = (
        "mutation($items: [UnitAttributeAssignmentInput!]!) { "
        'assignUnitAttributes(groupId: "w-view", data: $items) { unitId } }'
    )
    response = await client.post(
        "/graphql",
        json={"query": query, "variables": {"items": [item] * 1001}},
        headers={"API-Key": keys.full, "Experimental-Flags": "unit-attributes-resource"},
    )
    [error] = response.json()["errors"]
    assert error["extensions"] == {
        "code": "BAD_USER_INPUT",
        "fields": {"data": ["must have at most 1000 items per request, not 1001"]},
    }
