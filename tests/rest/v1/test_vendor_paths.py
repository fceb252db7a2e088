"""Vendor paths (issue 38, docs/api.md "Vendor paths"): the calls two public clients of
the vendor's API make, in their exact spelling, against the demo property; then the
rules around them on the small fixture (markets, other assets, scope, flags)."""

from __future__ import annotations

from typing import Any

import pytest

from resolvers.auth.keys import create_key
from resolvers.auth.permissions import ALL_PERMISSIONS
from rest.v1.routes import ROUTES
from storage.demo.install import (
    ASSET_ADDRESS,
    ASSET_ID,
    ASSET_NAME,
    REFERENCE_GROUP_NAME,
    demo_dataset,
)

DEMO = f"/v1/assets/{ASSET_ID}/multifamily"
# What the clients ask, as they spell it (the explorer's tabs and the inventory sync).
EXPLORER_ASSETS = "/v1/assets?per-page=500"
EXPLORER_ASSET = f"/v1/assets/{ASSET_ID}"
MAPS = f"{DEMO}/maps?page=1&per-page=500"
UNITS = f"{DEMO}/units?per-page=1000"
REFERENCES = f"{DEMO}/references?per-page=100"
GROUPS = f"{DEMO}/units/reference-groups?per-page=100"
GROUP_REFERENCES = f"{DEMO}/units/reference-groups/{ASSET_ID}/references?per-page=100"
# The flat route each vendor call is an alias of, with the same query.
FLAT = {
    MAPS: f"/v1/maps?asset={ASSET_ID}&page=1&per-page=500",
    UNITS: f"/v1/units?asset={ASSET_ID}&per-page=1000",
    REFERENCES: f"/v1/assets/references?asset={ASSET_ID}&per-page=100",
    GROUPS: f"/v1/units/reference-groups?asset={ASSET_ID}&per-page=100",
    GROUP_REFERENCES: f"/v1/units/reference-groups/{ASSET_ID}/references?asset={ASSET_ID}"
    "&per-page=100",
}
REFERENCE_CALLS = (REFERENCES, GROUPS, GROUP_REFERENCES)
PUBLIC = "https://localhost:8443"
NOT_FOUND = {"message": "Not found"}


@pytest.fixture(scope="module")
def demo_data() -> dict:
    """The demo's dataset, as `make run` (and the `demo` fixture) load it."""
    return demo_dataset(7).data


def client_headers(demo, key: str | None = None, url: str = "") -> dict[str, str]:
    """Headers the clients send: the key, and the flag on the reference calls."""
    headers = {"API-Key": key or demo.key, "Accept": "application/json"}
    if "reference" in url:
        headers["Experimental-Flags"] = "references"
    return headers


async def get(demo, url: str, key: str | None = None) -> tuple[int, Any]:
    response = await demo.client.get(url, headers=client_headers(demo, key, url))
    assert response.headers["content-type"] == "application/json"
    return response.status_code, response.json()


async def walk(demo, url: str, key: str | None = None) -> tuple[list[Any], list[dict]]:
    """Every item of a list, following `next_url` as the clients do, and each paging."""
    items: list[Any] = []
    pagings: list[dict] = []
    while url:
        status, body = await get(demo, url, key)
        assert status == 200, (url, body)
        items += body["data"]
        pagings.append(body["paging"])
        next_url = body["paging"]["next_url"]
        url = next_url.removeprefix(PUBLIC) if next_url else ""
    return items, pagings


async def test_the_explorer_reads_the_assets_with_their_address(demo):
    status, body = await get(demo, EXPLORER_ASSETS)
    assert status == 200
    assert body["paging"] == {
        "per_page": 500,
        "current_page": 1,
        "prev_url": None,
        "next_url": None,
        "total_count": 1,
    }
    [asset] = body["data"]
    read = ("id", "name", "address_line1", "address_city", "address_state", "tags")
    assert {name: asset[name] for name in read} == {
        "id": ASSET_ID,
        "name": ASSET_NAME,
        "address_line1": "1200 Harbor Way",
        "address_city": "Seattle",
        "address_state": "WA",
        "tags": ["waterfront", "pet-friendly"],
    }

    status, one = await get(demo, EXPLORER_ASSET)
    assert status == 200
    assert one == asset
    assert {name: one[name] for name in ASSET_ADDRESS} == ASSET_ADDRESS  # address_line2: None
    assert one["market"] == "multifamily"


@pytest.mark.parametrize("url", list(FLAT))
async def test_every_vendor_call_answers_as_its_flat_route(demo, url):
    """Status, envelope, the same items as the flat route, and links on the path asked."""
    status, body = await get(demo, url)
    assert status == 200, body
    assert set(body) == {"paging", "data"}
    assert body["data"], url  # the demo has something for every tab
    _, flat = await get(demo, FLAT[url])
    assert body["data"] == flat["data"]
    asked_path = url.split("?")[0]
    for name in ("prev_url", "next_url"):
        link = body["paging"][name]
        assert link is None or link.startswith(f"{PUBLIC}{asked_path}?"), link
    same = {k: v for k, v in body["paging"].items() if k not in ("prev_url", "next_url")}
    assert same == {k: v for k, v in flat["paging"].items() if k not in ("prev_url", "next_url")}


async def test_the_fields_each_client_reads(demo, demo_data):
    _, maps = await get(demo, MAPS)
    assert [m["id"] for m in maps["data"]] == sorted(m["id"] for m in demo_data["unit_maps"])
    assert all({"id", "name", "tags", "asset_id", "url"} <= set(m) for m in maps["data"])
    _, units = await get(demo, UNITS)
    assert [u["id"] for u in units["data"]] == sorted(u["id"] for u in demo_data["units"])
    assert units["paging"]["total_count"] == len(demo_data["units"])
    assert all(
        set(u) == {"id", "asset_id", "floor_id", "name", "created_at", "updated_at"}
        for u in units["data"]
    )
    _, groups = await get(demo, GROUPS)
    stamps = sorted(r["created_at"] for r in demo_data["unit_references"])
    assert groups["data"] == [
        {
            "id": ASSET_ID,
            "asset_id": ASSET_ID,
            "name": REFERENCE_GROUP_NAME,
            "created_at": stamps[0],
            "updated_at": max(r["updated_at"] for r in demo_data["unit_references"]),
        }
    ]
    _, references = await get(demo, REFERENCES)
    assert {r["asset_id"] for r in references["data"]} == {ASSET_ID}
    assert {"id", "key", "value"} <= set(references["data"][0])


async def test_the_sync_pages_the_group_references_to_the_end(demo, demo_data):
    """300 unit references at 100 a page: three pages, the last one with the count."""
    items, pagings = await walk(demo, GROUP_REFERENCES)
    expected = sorted(demo_data["unit_references"], key=lambda r: (r["unit_id"], r["key"]))
    assert [(r["unit_id"], r["key"], r["value"]) for r in items] == [
        (r["unit_id"], r["key"], r["value"]) for r in expected
    ]
    assert len(pagings) == 3
    assert ["total_count" in paging for paging in pagings] == [False, False, True]
    assert pagings[-1]["total_count"] == 300
    assert (
        pagings[1]["prev_url"] == f"{PUBLIC}{DEMO}/units/reference-groups/{ASSET_ID}/"
        "references?page=1&per-page=100"
    )
    # Small pages of units end where the flat route's do.
    vendor, _ = await walk(demo, f"{DEMO}/units?per-page=7")
    flat, _ = await walk(demo, f"/v1/units?asset={ASSET_ID}&per-page=7")
    assert vendor == flat and len(vendor) == len(demo_data["units"])


async def test_a_one_asset_key_sees_its_asset_and_nothing_else(demo):
    own = (await create_key(demo.store, "one asset", list(ALL_PERMISSIONS), [ASSET_ID])).secret
    other = (await create_key(demo.store, "other", list(ALL_PERMISSIONS), ["elsewhere"])).secret
    for url in FLAT:
        status, mine = await get(demo, url, own)
        _, everything = await get(demo, url)
        assert (status, mine) == (200, everything), url
        assert await get(demo, url, other) == (404, NOT_FOUND), url
    assert (await get(demo, EXPLORER_ASSETS, other))[1]["data"] == []
    assert await get(demo, EXPLORER_ASSET, other) == (404, NOT_FOUND)


async def test_either_spelling_keeps_working_with_etags(demo):
    first = await demo.client.get(UNITS, headers=client_headers(demo))
    again = await demo.client.get(
        UNITS, headers={**client_headers(demo), "If-None-Match": first.headers["etag"]}
    )
    assert (again.status_code, again.content) == (304, b"")
    flat = await demo.client.get(FLAT[UNITS], headers=client_headers(demo))
    assert flat.status_code == 200
    assert flat.json()["data"] == first.json()["data"]


@pytest.mark.parametrize(
    "path",
    [
        "/v1/accounts",
        "/v1/accounts/me",
        f"{DEMO}/pricing",
        f"{DEMO}/floor-plans",
        f"{DEMO}/floor-plans/fp-1",
        f"{DEMO}/galleries",
        f"{DEMO}/expenses",
        f"{DEMO}/descriptions",
        f"/v1/assets/{ASSET_ID}/multifamily",
    ],
)
async def test_vendor_product_data_is_a_json_not_found(demo, path):
    assert await get(demo, path) == (404, NOT_FOUND)


async def test_reference_paths_need_the_flag_and_the_permission(demo):
    headers = {"API-Key": demo.key}
    for url in REFERENCE_CALLS:
        response = await demo.client.get(url, headers=headers)
        assert response.status_code == 404
        assert response.json() == {
            "message": "Not found: this experimental resource "
            'requires the Experimental-Flags header to include "references"'
        }
    plain = (await create_key(demo.store, "plain", [], None)).secret
    status, body = await get(demo, GROUPS, plain)
    assert (status, body) == (
        403,
        {"message": "Access denied: missing permission service.unit-references.read"},
    )


# The rules, on the fixture: asset-1 and asset-2 are multifamily, asset-3 student.


@pytest.mark.parametrize(
    "path",
    [
        "/v1/assets/asset-1/student/units",  # another market than the asset's
        "/v1/assets/asset-3/multifamily/maps",
        "/v1/assets/nope/multifamily/units",  # no such asset
        "/v1/assets/asset-1/multifamily/units/Ab",  # a unit of asset-2
        "/v1/assets/asset-1/multifamily/maps/map-3",  # a map of asset-2
        "/v1/assets/asset-1/multifamily/maps/map-3/units",
        "/v1/assets/asset-1/multifamily/maps/map-3/levels/tags",
        "/v1/assets/asset-1/multifamily/floors/e-1",  # a floor of asset-2
        "/v1/assets/asset-1/Multifamily/units",  # markets are compared exactly
    ],
)
async def test_anything_but_the_assets_own_market_and_resources_is_not_found(
    client, full_headers, path
):
    response = await client.get(path, headers=full_headers)
    assert (response.status_code, response.json()) == (404, NOT_FOUND)


async def test_the_own_resources_under_the_market(client, full_headers):
    unit = await client.get("/v1/assets/asset-2/multifamily/units/Ab", headers=full_headers)
    assert unit.status_code == 200
    assert unit.json() == (await client.get("/v1/units/Ab", headers=full_headers)).json()
    student = await client.get("/v1/assets/asset-3/student/maps", headers=full_headers)
    assert student.status_code == 200
    flat = await client.get("/v1/maps?asset=asset-3", headers=full_headers)
    assert student.json()["data"] == flat.json()["data"]


async def test_a_market_over_255_characters_is_input(client, full_headers):
    response = await client.get(f"/v1/assets/asset-1/{'m' * 256}/units", headers=full_headers)
    assert response.status_code == 422
    assert response.json() == {
        "message": "Resource validation failed",
        "fields": {"market": ["must be at most 255 characters"]},
    }


async def test_e6_takes_the_asset_filter(client, full_headers, keys):
    response = await client.get("/v1/units?asset=asset-2", headers=full_headers)
    assert response.status_code == 200
    assert [u["id"] for u in response.json()["data"]] == [
        "Ab",
        "a/b c",
        "ab",
        *[u["id"] for u in response.json()["data"][3:]],
    ]
    assert {u["asset_id"] for u in response.json()["data"]} == {"asset-2"}
    outside = await client.get("/v1/units?asset=asset-1", headers={"API-Key": keys.scoped})
    assert outside.json() == {
        "paging": {
            "per_page": 100,
            "current_page": 1,
            "prev_url": None,
            "next_url": None,
            "total_count": 0,
        },
        "data": [],
    }


async def test_every_alias_runs_its_flat_routes_document():
    flat = {route.operation_id: route for route in ROUTES}
    aliases = [route for route in ROUTES if route.alias_of is not None]
    assert len(aliases) == 16
    for alias in aliases:
        twin = flat[alias.alias_of]
        assert alias.path.startswith("/v1/assets/{asset}/{market}/")
        assert (alias.document, alias.method, alias.shape) == (
            twin.document,
            twin.method,
            twin.shape,
        )


async def test_graphql_has_the_same_fields_and_groups(demo):
    query = """{ asset(id: "harbor-view") { displayName addressLine1 addressCity latitude
        longitude tags } unitReferenceGroups(assetId: "harbor-view", market: "multifamily")
        { paging { totalCount } data { id name } } }"""
    response = await demo.client.post(
        "/graphql", json={"query": query}, headers=demo.headers("references")
    )
    body = response.json()
    assert body["data"]["asset"] == {
        "displayName": "Harbor View",
        "addressLine1": "1200 Harbor Way",
        "addressCity": "Seattle",
        "latitude": 47.6062,
        "longitude": -122.3425,
        "tags": ["waterfront", "pet-friendly"],
    }
    assert body["data"]["unitReferenceGroups"] == {
        "paging": {"totalCount": 1},
        "data": [{"id": ASSET_ID, "name": REFERENCE_GROUP_NAME}],
    }
    assert "errors" not in body
    other = """{ units(assetId: "harbor-view", market: "student") { data { id } } }"""
    response = await demo.client.post("/graphql", json={"query": other}, headers=demo.headers())
    assert [e["message"] for e in response.json()["errors"]] == ["Not found"]


async def test_a_group_in_the_path_must_be_there(client, full_headers, store):
    flags = {**full_headers, "Experimental-Flags": "references"}
    found = await client.get(
        "/v1/assets/asset-2/multifamily/units/reference-groups/asset-2/references", headers=flags
    )
    assert (found.status_code, [r["unit_id"] for r in found.json()["data"]]) == (200, ["Ab"])
    for path in (
        "/v1/units/reference-groups/nope/references",
        "/v1/assets/asset-1/multifamily/units/reference-groups/asset-2/references",
    ):
        response = await client.get(path, headers=flags)
        assert (response.status_code, response.json()) == (404, NOT_FOUND), path
    secret = (await create_key(store, "asset-2 refs", list(ALL_PERMISSIONS), ["asset-2"])).secret
    scoped = {"API-Key": secret, "Experimental-Flags": "references"}
    response = await client.get("/v1/units/reference-groups/asset-1/references", headers=scoped)
    assert (response.status_code, response.json()) == (404, NOT_FOUND)


async def test_a_scoped_key_lists_only_its_assets_groups_and_references(client, store):
    """The flat group routes through the shared scope rule: a key of asset-2 sees asset-2's
    group alone, and asking for asset-1's is an empty list, as any filter out of scope."""
    secret = (await create_key(store, "asset-2 only", list(ALL_PERMISSIONS), ["asset-2"])).secret
    headers = {"API-Key": secret, "Experimental-Flags": "references"}
    groups = await client.get("/v1/units/reference-groups", headers=headers)
    assert [(g["id"], g["asset_id"]) for g in groups.json()["data"]] == [("asset-2", "asset-2")]
    other = await client.get("/v1/units/reference-groups?asset=asset-1", headers=headers)
    assert other.json() == {
        "paging": {
            "per_page": 100,
            "current_page": 1,
            "prev_url": None,
            "next_url": None,
            "total_count": 0,
        },
        "data": [],
    }
    query = '{ unitReferenceGroups(assetId: "asset-1", market: "multifamily") { data { id } } }'
    graphql = await client.post("/graphql", json={"query": query}, headers=headers)
    assert [error["message"] for error in graphql.json()["errors"]] == ["Not found"]
