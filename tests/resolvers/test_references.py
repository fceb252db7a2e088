"""References (E5, E8): exact bodies, order, paging, filters, scope and the order of
checks over REST and GraphQL; the operator's reference mutations; the demo's two
providers. Writes restore the shared fixture data (or use their own ids)."""

from __future__ import annotations

import re
from urllib.parse import quote

import httpx
import pytest
import pytest_asyncio

from resolvers.auth.keys import create_key
from resolvers.auth.permissions import ADMIN, ASSET_REFERENCES_READ, UNIT_REFERENCES_READ
from rest.app import create_app
from storage import collections as c
from storage.demo.install import demo_dataset, install_demo
from storage.timestamps import TIMESTAMP_PATTERN
from tests._dbserver import fresh_store
from tests.fixtures import T0, T1

BASE = "https://api.floorgate.test"
E5 = "/v1/assets/references"
E8 = "/v1/units/references"
FLAG = {"Experimental-Flags": "references"}
KEY_RULE = "must match ^[a-z]{1}[a-z0-9-]{1,254}$"
INVALID = "Resource validation failed"
BAD_KEYS = ["Acme-pms", "a", "1abc", "a" * 256, "acme_pms", "acme-pms\n"]


def flag_message() -> str:
    return (
        "Not found: this experimental resource requires the Experimental-Flags header "
        'to include "references"'
    )


def denied(permission: str) -> dict[str, str]:
    return {"message": f"Access denied: missing permission {permission}"}


def stamped(document: dict) -> dict:
    return {**document, "created_at": T0, "updated_at": T1}


AR_1 = stamped({"id": "ar-1", "asset_id": "asset-1", "key": "acme-pms", "value": "40071"})
AR_2 = stamped({"id": "ar-2", "asset_id": "asset-1", "key": "realpage", "value": "5501"})
AR_3 = stamped({"id": "ar-3", "asset_id": "asset-2", "key": "acme-pms", "value": "40072"})
ASSET_REFS = [AR_1, AR_2, AR_3]


def unit_ref(asset_id: str, unit_id: str, key: str, value: str) -> dict:
    return stamped(
        {"group_id": asset_id, "asset_id": asset_id, "unit_id": unit_id, "key": key, "value": value}
    )


# By unit id, then key: "Ab" sorts before "u-001" (binary order of ids).
UR_AB = unit_ref("asset-2", "Ab", "acme-pms", "A-1")
UR_1 = unit_ref("asset-1", "u-001", "realpage", "5501_90017")
UR_1_IDS = unit_ref("asset-1", "u-001", "realpage-unit-ids", "90017")
UR_2 = unit_ref("asset-1", "u-002", "realpage", "5501_90018")
UNIT_REFS = [UR_AB, UR_1, UR_1_IDS, UR_2]


def envelope(
    data: list,
    per_page: int = 100,
    page: int = 1,
    prev: str | None = None,
    next_: str | None = None,
) -> dict:
    paging = {"per_page": per_page, "current_page": page, "prev_url": prev, "next_url": next_}
    if next_ is None and (data or page == 1):  # the page that holds the list's end
        paging["total_count"] = (page - 1) * per_page + len(data)
    return {"paging": paging, "data": data}


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def reader(store) -> str:
    """Both read permissions, all assets."""
    permissions = [ASSET_REFERENCES_READ, UNIT_REFERENCES_READ]
    return (await create_key(store, "ref-reader", permissions, None)).secret


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def reader_2(store) -> str:
    """Both read permissions, only asset-2."""
    permissions = [ASSET_REFERENCES_READ, UNIT_REFERENCES_READ]
    return (await create_key(store, "ref-reader-2", permissions, ["asset-2"])).secret


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def unit_reader(store) -> str:
    """Only the unit-references permission."""
    return (await create_key(store, "unit-ref-reader", [UNIT_REFERENCES_READ], None)).secret


def headers(key: str, flags: str = "references") -> dict[str, str]:
    return {"API-Key": key, "Experimental-Flags": flags}


# ---------------------------------------------------------------- E5 and E8 bodies


async def test_e5_exact_body(client, reader):
    response = await client.get(E5, headers=headers(reader))
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    assert response.json() == envelope(ASSET_REFS)


async def test_e8_exact_body_by_unit_then_key(client, reader):
    response = await client.get(E8, headers=headers(reader))
    assert response.status_code == 200
    assert response.json() == envelope(UNIT_REFS)


@pytest.mark.parametrize(
    "flags",
    [
        "references",
        "REFERENCES",
        " distances ,  References ",
        "locations-resource,references,unknown",
    ],
)
async def test_flag_spelling(client, reader, flags):
    for path, data in ((E5, ASSET_REFS), (E8, UNIT_REFS)):
        response = await client.get(path, headers=headers(reader, flags))
        assert response.status_code == 200
        assert response.json()["data"] == data


@pytest.mark.parametrize(
    ("path", "data", "query"),
    [
        (E5, ASSET_REFS, ""),
        (E5, [AR_1, AR_3], "key=acme-pms&"),
        (E8, UNIT_REFS, ""),
        (E8, [UR_1, UR_2], "key=realpage&"),
    ],
)
async def test_walk_pages_of_one(client, reader, path, data, query):
    """per-page=1 from page 1, following next_url until it is null."""
    url = f"{path}?{query}per-page=1"
    seen = []
    for page in range(1, len(data) + 1):
        response = await client.get(url, headers=headers(reader))
        assert response.status_code == 200
        body = response.json()
        prev = None if page == 1 else f"{BASE}{path}?{query}page={page - 1}&per-page=1"
        next_ = None if page == len(data) else f"{BASE}{path}?{query}page={page + 1}&per-page=1"
        assert body == envelope([data[page - 1]], 1, page, prev, next_)
        seen += body["data"]
        url = body["paging"]["next_url"]
        if url is None:
            break
        assert url.startswith(f"{BASE}{path}?")
    assert seen == data


async def test_page_past_the_end_and_clamping(client, reader):
    past = await client.get(f"{E8}?page=3&per-page=2", headers=headers(reader))
    assert past.status_code == 200
    assert past.json() == envelope([], 2, 3, f"{BASE}{E8}?page=2&per-page=2", None)
    second = await client.get(f"{E8}?page=2&per-page=2", headers=headers(reader))
    assert second.json() == envelope([UR_1_IDS, UR_2], 2, 2, f"{BASE}{E8}?page=1&per-page=2", None)
    clamped = await client.get(f"{E5}?per-page=50000", headers=headers(reader))
    assert clamped.status_code == 200
    assert clamped.json() == envelope(ASSET_REFS, 10000)


@pytest.mark.parametrize(
    ("query", "data"),
    [
        ("asset=asset-1", [AR_1, AR_2]),
        ("asset=asset-2", [AR_3]),
        ("asset=asset-3", []),
        ("asset=nope", []),
        ("key=acme-pms", [AR_1, AR_3]),
        ("key=realpage", [AR_2]),
        ("key=realpage-unit-ids", []),
        ("key=acme", []),
        ("asset=asset-1&key=acme-pms", [AR_1]),
        ("key=realpage&asset=asset-2", []),
        (f"key={'a' * 255}", []),
        ("asset=ASSET-1", []),
    ],
)
async def test_e5_filters(client, reader, query, data):
    response = await client.get(f"{E5}?{query}", headers=headers(reader))
    assert response.status_code == 200
    assert response.json() == envelope(data)


@pytest.mark.parametrize(
    ("query", "data"),
    [
        ("asset=asset-1", [UR_1, UR_1_IDS, UR_2]),
        ("asset=asset-2", [UR_AB]),
        ("asset=asset-3", []),
        ("key=realpage", [UR_1, UR_2]),
        ("key=realpage-unit-ids", [UR_1_IDS]),
        ("key=acme-pms", [UR_AB]),
        ("asset=asset-1&key=acme-pms", []),
        ("asset=asset-1&key=realpage-unit-ids", [UR_1_IDS]),
        ("asset=asset-2&key=acme-pms", [UR_AB]),
    ],
)
async def test_e8_filters(client, reader, query, data):
    response = await client.get(f"{E8}?{query}", headers=headers(reader))
    assert response.status_code == 200
    assert response.json() == envelope(data)


async def test_filters_are_kept_in_page_urls(client, reader):
    response = await client.get(
        f"{E8}?asset=asset-1&key=realpage&per-page=1&page=2", headers=headers(reader)
    )
    assert response.json() == envelope(
        [UR_2], 1, 2, f"{BASE}{E8}?asset=asset-1&key=realpage&page=1&per-page=1", None
    )


@pytest.mark.parametrize("path", [E5, E8])
@pytest.mark.parametrize(
    "bad", BAD_KEYS, ids=["upper", "one-char", "digit-first", "256", "underscore", "newline"]
)
async def test_bad_key_filter_is_422(client, reader, path, bad):
    response = await client.get(path, params={"key": bad}, headers=headers(reader))
    assert response.status_code == 422
    assert response.json() == {"message": INVALID, "fields": {"key": [KEY_RULE]}}


@pytest.mark.parametrize("path", [E5, E8])
async def test_empty_filters_are_422(client, reader, path):
    key = await client.get(f"{path}?key=", headers=headers(reader))
    assert key.status_code == 422
    assert key.json() == {"message": INVALID, "fields": {"key": [KEY_RULE]}}
    asset = await client.get(f"{path}?asset=&key=", headers=headers(reader))
    assert asset.status_code == 422
    assert asset.json() == {
        "message": INVALID,
        "fields": {"asset": ["must not be empty"], "key": [KEY_RULE]},
    }


@pytest.mark.parametrize("path", [E5, E8])
async def test_longest_filters_are_accepted(client, reader, path):
    response = await client.get(
        path, params={"asset": "a" * 255, "key": "k" * 255}, headers=headers(reader)
    )
    assert response.status_code == 200
    assert response.json() == envelope([])


@pytest.mark.parametrize("path", [E5, E8])
async def test_bad_asset_filter_is_422(client, reader, path):
    response = await client.get(path, params={"asset": "a" * 256}, headers=headers(reader))
    assert response.status_code == 422
    assert response.json() == {
        "message": INVALID,
        "fields": {"asset": ["must be at most 255 characters"]},
    }
    both = await client.get(
        path, params={"asset": "a" * 256, "key": "A", "page": "0"}, headers=headers(reader)
    )
    assert both.status_code == 422
    assert both.json() == {
        "message": INVALID,
        "fields": {
            "page": ["must be an integer of at least 1"],
            "asset": ["must be at most 255 characters"],
            "key": [KEY_RULE],
        },
    }


@pytest.mark.parametrize("path", [E5, E8])
@pytest.mark.parametrize(
    ("query", "fields"),
    [
        ("page=0", {"page": ["must be an integer of at least 1"]}),
        ("page=abc", {"page": ["must be an integer"]}),
        ("per-page=0", {"per-page": ["must be an integer of at least 1"]}),
        ("per-page=1.5", {"per-page": ["must be an integer"]}),
        ("page=2147483648", {"page": ["must be at most 2147483647"]}),
        (
            "page=-1&per-page=x",
            {"page": ["must be an integer of at least 1"], "per-page": ["must be an integer"]},
        ),
    ],
)
async def test_bad_paging_is_422(client, reader, path, query, fields):
    response = await client.get(f"{path}?{query}", headers=headers(reader))
    assert response.status_code == 422
    assert response.json() == {"message": INVALID, "fields": fields}


# ---------------------------------------------------------------- scope


async def test_scope_lists_only_the_keys_assets(client, reader_2):
    e5 = await client.get(E5, headers=headers(reader_2))
    assert e5.json() == envelope([AR_3])
    e8 = await client.get(E8, headers=headers(reader_2))
    assert e8.json() == envelope([UR_AB])
    for path in (E5, E8):
        outside = await client.get(f"{path}?asset=asset-1", headers=headers(reader_2))
        assert outside.status_code == 200
        assert outside.json() == envelope([])
        missing = await client.get(f"{path}?asset=nope", headers=headers(reader_2))
        assert missing.json() == envelope([])
    realpage = await client.get(f"{E8}?key=realpage", headers=headers(reader_2))
    assert realpage.json() == envelope([])
    own = await client.get(f"{E5}?asset=asset-2&key=acme-pms", headers=headers(reader_2))
    assert own.json() == envelope([AR_3])


async def test_scope_with_api_key_query_parameter(client, reader_2):
    """The key in the query works like the header and never travels in page URLs."""
    e5 = await client.get(f"{E5}?api-key={quote(reader_2)}&per-page=1", headers=FLAG)
    assert e5.status_code == 200
    assert e5.json() == envelope([AR_3], 1)
    e8 = await client.get(f"{E8}?per-page=1&api-key={quote(reader_2)}&page=2", headers=FLAG)
    assert e8.json() == envelope([], 1, 2, f"{BASE}{E8}?page=1&per-page=1", None)


async def test_api_key_query_parameter_keeps_other_params_in_urls(client, reader):
    response = await client.get(
        f"{E5}?key=acme-pms&api-key={quote(reader)}&per-page=1&extra=x%20y", headers=FLAG
    )
    assert response.json() == envelope(
        [AR_1], 1, 1, None, f"{BASE}{E5}?key=acme-pms&extra=x+y&page=2&per-page=1"
    )


async def test_empty_header_key_counts_as_absent(client, reader):
    response = await client.get(f"{E8}?api-key={quote(reader)}", headers=headers(""))
    assert response.status_code == 200
    assert response.json() == envelope(UNIT_REFS)


async def test_header_key_wins_over_query_key(client, reader, keys):
    wins = await client.get(f"{E5}?api-key={quote(keys.plain)}", headers=headers(reader))
    assert wins.status_code == 200
    assert wins.json()["data"] == ASSET_REFS
    loses = await client.get(f"{E5}?api-key={quote(reader)}", headers=headers(keys.plain))
    assert loses.status_code == 403
    assert loses.json() == denied(ASSET_REFERENCES_READ)


# ---------------------------------------------------------------- access and its order

PERMISSION = {E5: ASSET_REFERENCES_READ, E8: UNIT_REFERENCES_READ}


@pytest.mark.parametrize("path", [E5, E8])
async def test_without_key_is_401(client, path):
    for extra in ("", "?key=BAD", "?api-key=", "?page=0"):
        for flags in ({}, FLAG):
            response = await client.get(f"{path}{extra}", headers=flags)
            assert response.status_code == 401
            assert response.json() == {"message": "No API key found in request"}
    empty_header = await client.get(path, headers=headers(""))
    assert empty_header.status_code == 401


@pytest.mark.parametrize("path", [E5, E8])
async def test_invalid_or_disabled_key_is_403(client, keys, path):
    for key in ("fg_unknown", keys.disabled):
        for flags in ("references", "nothing"):
            response = await client.get(f"{path}?key=BAD", headers=headers(key, flags))
            assert response.status_code == 403
            assert response.json() == {"message": "Invalid authentication credentials"}
    query = await client.get(f"{path}?api-key=fg_unknown", headers=FLAG)
    assert query.status_code == 403
    assert query.json() == {"message": "Invalid authentication credentials"}


@pytest.mark.parametrize("path", [E5, E8])
async def test_without_flag_is_404(client, keys, reader, path):
    for key in (keys.full, reader, keys.plain):
        for extra in (
            {},
            {"Experimental-Flags": ""},
            {"Experimental-Flags": "reference, references-x, locations-resource"},
        ):
            response = await client.get(path, headers={"API-Key": key, **extra})
            assert response.status_code == 404
            assert response.json() == {"message": flag_message()}


@pytest.mark.parametrize("path", [E5, E8])
async def test_flags_in_repeated_header_lines(client, reader, path):
    sent = [
        ("API-Key", reader),
        ("Experimental-Flags", "distances"),
        ("Experimental-Flags", "references"),
    ]
    response = await client.get(path, headers=sent)
    assert response.status_code == 200


@pytest.mark.parametrize("path", [E5, E8])
async def test_without_permission_is_403(client, keys, path):
    for key in (keys.plain, keys.scoped):
        response = await client.get(path, headers=headers(key))
        assert response.status_code == 403
        assert response.json() == denied(PERMISSION[path])


async def test_each_list_needs_its_own_permission(client, unit_reader):
    e5 = await client.get(E5, headers=headers(unit_reader))
    assert e5.status_code == 403
    assert e5.json() == denied(ASSET_REFERENCES_READ)
    e8 = await client.get(E8, headers=headers(unit_reader))
    assert e8.status_code == 200
    assert e8.json() == envelope(UNIT_REFS)


@pytest.mark.parametrize("path", [E5, E8])
async def test_order_of_checks(client, keys, reader_2, path):
    bad = f"{path}?key=BAD&asset={'a' * 256}&page=0"
    no_flag = await client.get(bad, headers={"API-Key": keys.plain})
    assert (no_flag.status_code, no_flag.json()) == (404, {"message": flag_message()})
    no_flag_full = await client.get(bad, headers={"API-Key": keys.full})
    assert (no_flag_full.status_code, no_flag_full.json()) == (404, {"message": flag_message()})
    no_permission = await client.get(bad, headers=headers(keys.plain))
    assert (no_permission.status_code, no_permission.json()) == (403, denied(PERMISSION[path]))
    # Input before existence: a bad filter beside an asset out of scope is still 422.
    out_of_scope = await client.get(f"{path}?asset=asset-1&key=BAD", headers=headers(reader_2))
    assert out_of_scope.status_code == 422
    assert out_of_scope.json() == {"message": INVALID, "fields": {"key": [KEY_RULE]}}


# ---------------------------------------------------------------- GraphQL

ASSET_REF_FIELDS = "id assetId key value createdAt updatedAt"
UNIT_REF_FIELDS = "groupId assetId unitId key value createdAt updatedAt"
PAGING = "paging { perPage currentPage prevPage nextPage }"


def camel(document: dict) -> dict:
    def name(snake: str) -> str:
        head, *rest = snake.split("_")
        return head + "".join(part.capitalize() for part in rest)

    return {name(key): value for key, value in document.items()}


async def gql(
    client,
    query: str,
    key: str | None,
    flags: str | None = "references",
    variables: dict | None = None,
) -> dict:
    sent = {}
    if key is not None:
        sent["API-Key"] = key
    if flags is not None:
        sent["Experimental-Flags"] = flags
    response = await client.post(
        "/graphql", json={"query": query, "variables": variables or {}}, headers=sent
    )
    assert response.status_code == 200
    return response.json()


async def test_graphql_asset_references(client, reader):
    body = await gql(
        client,
        f"{{ assetReferences(perPage: 1, page: 2) {{ {PAGING} data {{ {ASSET_REF_FIELDS} }} }} }}",
        reader,
    )
    assert body == {
        "data": {
            "assetReferences": {
                "paging": {"perPage": 1, "currentPage": 2, "prevPage": 1, "nextPage": 3},
                "data": [camel(AR_2)],
            }
        }
    }
    filtered = await gql(
        client,
        '{ assetReferences(assetId: "asset-1", key: "acme-pms") '
        f"{{ {PAGING} data {{ {ASSET_REF_FIELDS} }} }} }}",
        reader,
    )
    assert filtered == {
        "data": {
            "assetReferences": {
                "paging": {"perPage": 100, "currentPage": 1, "prevPage": None, "nextPage": None},
                "data": [camel(AR_1)],
            }
        }
    }


async def test_graphql_unit_references(client, reader, reader_2):
    query = f"{{ unitReferences {{ {PAGING} data {{ {UNIT_REF_FIELDS} }} }} }}"
    body = await gql(client, query, reader)
    assert body == {
        "data": {
            "unitReferences": {
                "paging": {"perPage": 100, "currentPage": 1, "prevPage": None, "nextPage": None},
                "data": [camel(r) for r in UNIT_REFS],
            }
        }
    }
    scoped = await gql(client, query, reader_2)
    assert scoped["data"]["unitReferences"]["data"] == [camel(UR_AB)]
    by_key = await gql(
        client,
        '{ unitReferences(key: "realpage-unit-ids", perPage: 1) { data { unitId value } } }',
        reader,
    )
    assert by_key == {"data": {"unitReferences": {"data": [{"unitId": "u-001", "value": "90017"}]}}}


async def test_graphql_bad_input(client, reader):
    body = await gql(
        client,
        f'{{ unitReferences(key: "Bad", assetId: "{"a" * 256}", '
        "perPage: 0) { data { key } } }",
        reader,
    )
    assert body["data"] is None
    assert body["errors"][0]["message"] == INVALID
    assert body["errors"][0]["extensions"] == {
        "code": "BAD_USER_INPUT",
        "fields": {
            "perPage": ["must be an integer of at least 1"],
            "assetId": ["must be at most 255 characters"],
            "key": [KEY_RULE],
        },
    }


@pytest.mark.parametrize("field", ["assetReferences", "unitReferences"])
async def test_graphql_root_fields_access(client, keys, reader, field):
    query = f'{{ {field}(key: "BAD") {{ data {{ key }} }} }}'
    no_flag = await gql(client, query, reader, flags=None)
    assert no_flag["data"] is None
    assert [(e["message"], e["extensions"]) for e in no_flag["errors"]] == [
        (flag_message(), {"code": "FLAG_REQUIRED"})
    ]
    other_flag = await gql(client, query, keys.full, flags="locations-resource")
    assert other_flag["errors"][0]["extensions"] == {"code": "FLAG_REQUIRED"}
    permission = ASSET_REFERENCES_READ if field == "assetReferences" else UNIT_REFERENCES_READ
    forbidden = await gql(client, query, keys.plain)
    assert forbidden["data"] is None
    assert [(e["message"], e["extensions"]) for e in forbidden["errors"]] == [
        (denied(permission)["message"], {"code": "FORBIDDEN"})
    ]
    no_key = await gql(client, query, None)
    assert no_key["errors"][0]["extensions"] == {"code": "UNAUTHENTICATED"}


NESTED = "{ assets { data { id references { key value } units { id references { key value } } } } }"


def nested_units(asset_units: list[str], references: dict[str, list[dict]]) -> list[dict]:
    return [{"id": unit, "references": references.get(unit, [])} for unit in asset_units]


ASSET_1_UNITS = [f"u-{n:03d}" for n in range(1, 11)]


async def test_graphql_nested_references(client, keys):
    body = await gql(client, NESTED, keys.full)
    assert "errors" not in body
    assets = body["data"]["assets"]["data"]
    assert [a["id"] for a in assets] == ["asset-1", "asset-2", "asset-3"]
    assert assets[0] == {
        "id": "asset-1",
        "references": [{"key": "acme-pms", "value": "40071"}, {"key": "realpage", "value": "5501"}],
        "units": nested_units(
            ASSET_1_UNITS,
            {
                "u-001": [
                    {"key": "realpage", "value": "5501_90017"},
                    {"key": "realpage-unit-ids", "value": "90017"},
                ],
                "u-002": [{"key": "realpage", "value": "5501_90018"}],
            },
        ),
    }
    assert assets[1]["references"] == [{"key": "acme-pms", "value": "40072"}]
    assert assets[1]["units"][0] == {
        "id": "Ab",
        "references": [{"key": "acme-pms", "value": "A-1"}],
    }
    assert all(unit["references"] == [] for unit in assets[1]["units"][1:])
    assert assets[2] == {"id": "asset-3", "references": [], "units": []}


async def test_graphql_nested_references_in_scope(client, reader_2):
    body = await gql(client, NESTED, reader_2)
    assert "errors" not in body
    (asset,) = body["data"]["assets"]["data"]
    assert asset["id"] == "asset-2"
    assert asset["references"] == [{"key": "acme-pms", "value": "40072"}]
    assert asset["units"][0]["references"] == [{"key": "acme-pms", "value": "A-1"}]


async def test_graphql_nested_list_without_flag_or_permission(client, keys):
    """The first failing `references` nulls the whole (non-null) list up to `data`."""
    no_flag = await gql(client, NESTED, keys.full, flags=None)
    assert no_flag["data"] is None
    assert no_flag["errors"]
    for error in no_flag["errors"]:
        assert (error["message"], error["extensions"]) == (
            flag_message(),
            {"code": "FLAG_REQUIRED"},
        )
        assert error["path"][-1] == "references"
    units_only = "{ assets { data { id units { id references { key } } } } }"
    forbidden = await gql(client, units_only, keys.plain)
    assert forbidden["data"] is None
    assert forbidden["errors"]
    for error in forbidden["errors"]:
        assert error["message"] == denied(UNIT_REFERENCES_READ)["message"]
        assert error["extensions"] == {"code": "FORBIDDEN"}
        assert error["path"][:2] == ["assets", "data"]
        assert error["path"][-3:-1] == ["units", 0]
        assert error["path"][-1] == "references"


async def test_graphql_nested_without_flag_or_permission(client, keys, unit_reader):
    no_flag = await gql(
        client, '{ asset(id: "asset-1") { id references { key } } }', keys.full, flags=None
    )
    assert no_flag["data"] == {"asset": None}
    assert [(e["message"], e["path"], e["extensions"]) for e in no_flag["errors"]] == [
        (flag_message(), ["asset", "references"], {"code": "FLAG_REQUIRED"})
    ]
    forbidden = await gql(client, '{ asset(id: "asset-1") { id references { key } } }', keys.plain)
    assert forbidden["data"] == {"asset": None}
    assert [(e["message"], e["path"], e["extensions"]) for e in forbidden["errors"]] == [
        (denied(ASSET_REFERENCES_READ)["message"], ["asset", "references"], {"code": "FORBIDDEN"})
    ]
    unit = await gql(
        client, '{ unit(id: "u-001") { id references { key } } }', unit_reader, flags=None
    )
    assert unit["data"] == {"unit": None}
    assert [(e["path"], e["extensions"]) for e in unit["errors"]] == [
        (["unit", "references"], {"code": "FLAG_REQUIRED"})
    ]
    allowed = await gql(client, '{ unit(id: "u-001") { id references { key } } }', unit_reader)
    assert allowed == {
        "data": {
            "unit": {
                "id": "u-001",
                "references": [{"key": "realpage"}, {"key": "realpage-unit-ids"}],
            }
        }
    }
    # The asset's references need their own permission.
    asset = await gql(client, '{ asset(id: "asset-1") { id references { key } } }', unit_reader)
    assert asset["data"] == {"asset": None}
    assert [e["extensions"] for e in asset["errors"]] == [{"code": "FORBIDDEN"}]


# ---------------------------------------------------------------- admin mutations

PUT_ASSET_REF = (
    "mutation($input: AssetReferenceInput!) { putAssetReference(input: $input) "
    f"{{ {ASSET_REF_FIELDS} }} }}"
)
DELETE_ASSET_REF = "mutation($id: ID!) { deleteAssetReference(id: $id) }"
PUT_UNIT_REF = (
    "mutation($input: UnitReferenceInput!) { putUnitReference(input: $input) "
    f"{{ {UNIT_REF_FIELDS} }} }}"
)
DELETE_UNIT_REF = (
    "mutation($unitId: ID!, $key: String!) { deleteUnitReference(unitId: $unitId, key: $key) }"
)


async def test_put_asset_reference_creates_then_replaces(client, keys, store, reader):
    ref_id = "ar-t-put"
    try:
        created = await gql(
            client,
            PUT_ASSET_REF,
            keys.full,
            flags=None,
            variables={
                "input": {
                    "id": ref_id,
                    "assetId": "asset-1",
                    "key": "test-pms",
                    "value": "v1",
                    "createdAt": "2026-01-15T10:00:00+01:00",
                    "updatedAt": "2026-02-01T07:30:00-05:00",
                }
            },
        )
        assert created == {
            "data": {
                "putAssetReference": {
                    "id": ref_id,
                    "assetId": "asset-1",
                    "key": "test-pms",
                    "value": "v1",
                    "createdAt": T0,
                    "updatedAt": T1,
                }
            }
        }
        listed = await client.get(f"{E5}?asset=asset-1", headers=headers(reader))
        assert listed.json()["data"] == [
            AR_1,
            AR_2,
            stamped({"id": ref_id, "asset_id": "asset-1", "key": "test-pms", "value": "v1"}),
        ]
        replaced = await gql(
            client,
            PUT_ASSET_REF,
            keys.full,
            variables={
                "input": {"id": ref_id, "assetId": "asset-1", "key": "test-pms", "value": "v2"}
            },
        )
        assert "errors" not in replaced
        result = replaced["data"]["putAssetReference"]
        assert {k: v for k, v in result.items() if k != "updatedAt"} == {
            "id": ref_id,
            "assetId": "asset-1",
            "key": "test-pms",
            "value": "v2",
            "createdAt": T0,
        }
        assert TIMESTAMP_PATTERN.match(result["updatedAt"])
        assert result["updatedAt"] > T1
        assert await store[c.ASSET_REFERENCES].count_documents({"_id": ref_id}) == 1
        by_key = await client.get(f"{E5}?key=test-pms", headers=headers(reader))
        assert by_key.json()["data"] == [
            {
                "id": ref_id,
                "asset_id": "asset-1",
                "key": "test-pms",
                "value": "v2",
                "created_at": T0,
                "updated_at": result["updatedAt"],
            }
        ]

        deleted = await gql(client, DELETE_ASSET_REF, keys.full, variables={"id": ref_id})
        assert deleted == {"data": {"deleteAssetReference": True}}
        again = await gql(client, DELETE_ASSET_REF, keys.full, variables={"id": ref_id})
        assert again == {"data": {"deleteAssetReference": False}}
        after = await client.get(E5, headers=headers(reader))
        assert after.json() == envelope(ASSET_REFS)
    finally:
        await store[c.ASSET_REFERENCES].delete_one({"_id": ref_id})


async def test_put_asset_reference_without_admin_is_403(client, keys, store, reader):
    before = await store[c.ASSET_REFERENCES].count_documents({})
    for key in (keys.plain, reader):
        body = await gql(
            client,
            PUT_ASSET_REF,
            key,
            variables={
                "input": {
                    "id": "ar-t-denied",
                    "assetId": "asset-1",
                    "key": "test-pms",
                    "value": "1",
                }
            },
        )
        assert body["data"] is None
        assert [(e["message"], e["extensions"]) for e in body["errors"]] == [
            (denied(ADMIN)["message"], {"code": "FORBIDDEN"})
        ]
        delete = await gql(client, DELETE_ASSET_REF, key, variables={"id": "ar-1"})
        assert [e["extensions"] for e in delete["errors"]] == [{"code": "FORBIDDEN"}]
    assert await store[c.ASSET_REFERENCES].count_documents({}) == before
    assert await store[c.ASSET_REFERENCES].find_one({"_id": "ar-t-denied"}) is None
    listed = await client.get(E5, headers=headers(reader))
    assert listed.json() == envelope(ASSET_REFS)


@pytest.mark.parametrize(
    ("fields", "problems"),
    [
        ({"key": "Acme"}, {"input.key": ['"Acme" does not match ^[a-z]{1}[a-z0-9-]{1,254}$']}),
        ({"key": "a"}, {"input.key": ['"a" does not match ^[a-z]{1}[a-z0-9-]{1,254}$']}),
        ({"assetId": "nope"}, {"input.assetId": ['unknown asset "nope"']}),
        (
            {"assetId": "nope", "key": "9x"},
            {
                "input.key": ['"9x" does not match ^[a-z]{1}[a-z0-9-]{1,254}$'],
                "input.assetId": ['unknown asset "nope"'],
            },
        ),
        ({"value": ""}, {"input.value": ["must not be empty"]}),
        ({"id": "r" * 256}, {"input.id": ["must be at most 255 characters (has 256)"]}),
        ({"value": "v" * 256}, {"input.value": ["must be at most 255 characters (has 256)"]}),
        (
            {"createdAt": T1, "updatedAt": T0},
            {"input.updatedAt": [f"is earlier than created_at {T1}"]},
        ),
    ],
)
async def test_put_asset_reference_invalid_is_422(client, keys, store, fields, problems):
    before = await store[c.ASSET_REFERENCES].find({}).sort("_id").to_list()
    record = {"id": "ar-t-bad", "assetId": "asset-1", "key": "test-pms", "value": "1", **fields}
    body = await gql(client, PUT_ASSET_REF, keys.full, variables={"input": record})
    assert body["data"] is None
    (error,) = body["errors"]
    assert error["message"] == INVALID
    assert error["extensions"] == {"code": "BAD_USER_INPUT", "fields": problems}
    assert await store[c.ASSET_REFERENCES].find({}).sort("_id").to_list() == before


async def test_put_asset_reference_replaces_a_fixture_keeps_created_at(client, keys, store):
    """Replacing ar-3 keeps its created_at; the fixture document is put back afterwards."""
    original = await store[c.ASSET_REFERENCES].find_one({"_id": "ar-3"})
    try:
        body = await gql(
            client,
            PUT_ASSET_REF,
            keys.full,
            variables={
                "input": {"id": "ar-3", "assetId": "asset-2", "key": "acme-pms", "value": "40099"}
            },
        )
        result = body["data"]["putAssetReference"]
        assert result["createdAt"] == T0
        assert result["updatedAt"] > T1
        assert result["value"] == "40099"
    finally:
        await store[c.ASSET_REFERENCES].replace_one({"_id": "ar-3"}, original)
    assert await store[c.ASSET_REFERENCES].find_one({"_id": "ar-3"}) == original


async def test_delete_asset_reference_bad_id_is_422(client, keys):
    body = await gql(client, DELETE_ASSET_REF, keys.full, variables={"id": "r" * 256})
    assert body["data"] is None
    assert body["errors"][0]["extensions"] == {
        "code": "BAD_USER_INPUT",
        "fields": {"id": ["must be at most 255 characters"]},
    }


async def test_put_unit_reference_by_unit_and_key(client, keys, store, reader):
    query = {"unit_id": "u-003", "key": "test-pms"}
    try:
        created = await gql(
            client,
            PUT_UNIT_REF,
            keys.full,
            variables={
                "input": {
                    "assetId": "asset-1",
                    "unitId": "u-003",
                    "key": "test-pms",
                    "value": "X-1",
                    "createdAt": T0,
                    "updatedAt": T1,
                }
            },
        )
        expected = unit_ref("asset-1", "u-003", "test-pms", "X-1")
        assert created == {"data": {"putUnitReference": camel(expected)}}
        listed = await client.get(f"{E8}?asset=asset-1", headers=headers(reader))
        assert listed.json()["data"] == [UR_1, UR_1_IDS, UR_2, expected]

        replaced = await gql(
            client,
            PUT_UNIT_REF,
            keys.full,
            variables={
                "input": {
                    "assetId": "asset-1",
                    "unitId": "u-003",
                    "key": "test-pms",
                    "value": "X-2",
                    "groupId": "g-1",
                }
            },
        )
        assert "errors" not in replaced
        result = replaced["data"]["putUnitReference"]
        assert {k: v for k, v in result.items() if k != "updatedAt"} == {
            "groupId": "g-1",
            "assetId": "asset-1",
            "unitId": "u-003",
            "key": "test-pms",
            "value": "X-2",
            "createdAt": T0,
        }
        assert result["updatedAt"] > T1
        assert await store[c.UNIT_REFERENCES].count_documents(query) == 1
        by_key = await client.get(f"{E8}?key=test-pms", headers=headers(reader))
        assert [(r["unit_id"], r["value"]) for r in by_key.json()["data"]] == [("u-003", "X-2")]

        # Another key of the same unit is a second reference.
        other = await gql(
            client,
            PUT_UNIT_REF,
            keys.full,
            variables={
                "input": {
                    "assetId": "asset-1",
                    "unitId": "u-003",
                    "key": "test-pms-unit-ids",
                    "value": "X",
                }
            },
        )
        assert other["data"]["putUnitReference"]["key"] == "test-pms-unit-ids"
        both = await client.get(f"{E8}?asset=asset-1&per-page=10&page=1", headers=headers(reader))
        assert [(r["unit_id"], r["key"]) for r in both.json()["data"]][-2:] == [
            ("u-003", "test-pms"),
            ("u-003", "test-pms-unit-ids"),
        ]

        deleted = await gql(
            client, DELETE_UNIT_REF, keys.full, variables={"unitId": "u-003", "key": "test-pms"}
        )
        assert deleted == {"data": {"deleteUnitReference": True}}
        again = await gql(
            client, DELETE_UNIT_REF, keys.full, variables={"unitId": "u-003", "key": "test-pms"}
        )
        assert again == {"data": {"deleteUnitReference": False}}
        await gql(
            client,
            DELETE_UNIT_REF,
            keys.full,
            variables={"unitId": "u-003", "key": "test-pms-unit-ids"},
        )
        after = await client.get(E8, headers=headers(reader))
        assert after.json() == envelope(UNIT_REFS)
    finally:
        await store[c.UNIT_REFERENCES].delete_many({"unit_id": "u-003"})


@pytest.mark.parametrize(
    ("fields", "problems"),
    [
        (
            {"assetId": "asset-2"},
            {"input.unitId": ['unit "u-003" belongs to asset "asset-1", not "asset-2"']},
        ),
        ({"unitId": "nope"}, {"input.unitId": ['unknown unit "nope"']}),
        ({"assetId": "nope"}, {"input.assetId": ['unknown asset "nope"']}),
        ({"key": "Test"}, {"input.key": ['"Test" does not match ^[a-z]{1}[a-z0-9-]{1,254}$']}),
        ({"value": ""}, {"input.value": ["must not be empty"]}),
        (
            {"unitId": "u-003", "assetId": "asset-3"},
            {"input.unitId": ['unit "u-003" belongs to asset "asset-1", not "asset-3"']},
        ),
    ],
)
async def test_put_unit_reference_invalid_is_422(client, keys, store, fields, problems):
    before = await store[c.UNIT_REFERENCES].count_documents({})
    record = {"assetId": "asset-1", "unitId": "u-003", "key": "test-pms", "value": "1", **fields}
    body = await gql(client, PUT_UNIT_REF, keys.full, variables={"input": record})
    assert body["data"] is None
    (error,) = body["errors"]
    assert error["message"] == INVALID
    assert error["extensions"] == {"code": "BAD_USER_INPUT", "fields": problems}
    assert await store[c.UNIT_REFERENCES].count_documents({}) == before
    assert await store[c.UNIT_REFERENCES].find_one({"unit_id": "u-003"}) is None


async def test_unit_reference_mutations_need_admin(client, keys, store, reader):
    before = await store[c.UNIT_REFERENCES].count_documents({})
    put = await gql(
        client,
        PUT_UNIT_REF,
        keys.plain,
        variables={
            "input": {"assetId": "asset-1", "unitId": "u-003", "key": "test-pms", "value": "1"}
        },
    )
    assert put["data"] is None
    assert [(e["message"], e["extensions"]) for e in put["errors"]] == [
        (denied(ADMIN)["message"], {"code": "FORBIDDEN"})
    ]
    delete = await gql(
        client, DELETE_UNIT_REF, reader, variables={"unitId": "u-001", "key": "realpage"}
    )
    assert [e["extensions"] for e in delete["errors"]] == [{"code": "FORBIDDEN"}]
    assert await store[c.UNIT_REFERENCES].count_documents({}) == before


# ---------------------------------------------------------------- the demo


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def demo_client(db_server, settings, tmp_path_factory):
    """The demo imported into a database of its own, served by its own app."""
    async with fresh_store(db_server) as demo_store:
        await install_demo(demo_store, tmp_path_factory.mktemp("demo"))
        secret = (
            await create_key(
                demo_store, "demo-refs", [ASSET_REFERENCES_READ, UNIT_REFERENCES_READ], None
            )
        ).secret
        transport = httpx.ASGITransport(app=create_app(settings, demo_store))
        async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as http:
            http.headers.update(headers(secret))
            yield http


@pytest.fixture(scope="module")
def demo_data() -> dict:
    return demo_dataset(7).data


async def test_demo_unit_references_of_both_keys(demo_client, demo_data):
    composite = await demo_client.get(f"{E8}?key=realpage&per-page=10000")
    assert composite.status_code == 200
    body = composite.json()
    assert body["paging"] == {
        "per_page": 10000,
        "current_page": 1,
        "prev_url": None,
        "next_url": None,
        "total_count": 100,
    }
    spaces = body["data"]
    assert len(spaces) == 100
    assert all(re.fullmatch(r"^\d+_\d+$", r["value"]) for r in spaces)
    assert {r["key"] for r in spaces} == {"realpage"}
    unit_ids = [r["unit_id"] for r in spaces]
    assert unit_ids == sorted(u["id"] for u in demo_data["units"])
    served = [
        {k: v for k, v in r.items() if k != "group_name"}  # the group's, not E8's
        for r in demo_data["unit_references"]
    ]
    assert spaces == sorted(
        (r for r in served if r["key"] == "realpage"), key=lambda r: r["unit_id"]
    )

    plain = await demo_client.get(f"{E8}?key=realpage-unit-ids&per-page=10000")
    ids = plain.json()["data"]
    assert [r["unit_id"] for r in ids] == unit_ids
    assert all(re.fullmatch(r"\d+", r["value"]) for r in ids)
    # The base key's value is `<unit id>_<unit space id>`; `-unit-ids` holds the first part.
    assert [r["value"] for r in ids] == [r["value"].split("_")[0] for r in spaces]
    expected = sorted(
        (r for r in served if r["key"] == "realpage-unit-ids"), key=lambda r: r["unit_id"]
    )
    assert ids == expected


async def test_demo_asset_references_of_both_providers(demo_client, demo_data):
    response = await demo_client.get(f"{E5}?asset=harbor-view")
    assert response.status_code == 200
    assert response.json() == envelope(demo_data["asset_references"])
    assert [(r["id"], r["key"]) for r in response.json()["data"]] == [
        ("harbor-view-acme-pms", "acme-pms"),
        ("harbor-view-realpage", "realpage"),
    ]
    one_unit = await demo_client.get(f"{E8}?asset=harbor-view&per-page=3")
    first = one_unit.json()["data"]
    assert [(r["unit_id"], r["key"]) for r in first] == [
        (first[0]["unit_id"], "acme-pms"),
        (first[0]["unit_id"], "realpage"),
        (first[0]["unit_id"], "realpage-unit-ids"),
    ]
