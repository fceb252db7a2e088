"""Every core REST endpoint's happy path, with exact bodies from the fixture data."""

from __future__ import annotations

from urllib.parse import quote

from tests.fixtures import LONG_ID, T0, T1

STAMPS = {"created_at": T0, "updated_at": T1}
# The asset fields vendor clients read, none of which the fixture assets give.
NO_DETAILS = dict.fromkeys(
    (
        "display_name",
        "address_line1",
        "address_line2",
        "address_city",
        "address_state",
        "address_postal_code",
        "address_country",
        "latitude",
        "longitude",
        "tags",
    ),
)


def unit(uid: str, asset: str, floor: str, name: str) -> dict:
    return {"id": uid, "asset_id": asset, "floor_id": floor, "name": name, **STAMPS}


async def test_list_assets(client, full_headers):
    response = await client.get("/v1/assets", headers=full_headers)
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.json() == {
        "paging": {
            "per_page": 100,
            "current_page": 1,
            "prev_url": None,
            "next_url": None,
            "total_count": 3,
        },
        "data": [
            {
                "id": "asset-1",
                "market": "multifamily",
                "name": "Harbor View",
                **NO_DETAILS,
                **STAMPS,
            },
            {"id": "asset-2", "market": "multifamily", "name": "Elm Court", **NO_DETAILS, **STAMPS},
            {"id": "asset-3", "market": "student", "name": "Campus Row", **NO_DETAILS, **STAMPS},
        ],
    }


async def test_get_asset(client, full_headers):
    response = await client.get("/v1/assets/asset-2", headers=full_headers)
    assert response.status_code == 200
    assert response.json() == {
        "id": "asset-2",
        "market": "multifamily",
        "name": "Elm Court",
        **NO_DETAILS,
        **STAMPS,
    }


async def test_list_floors_sorted_by_sort_then_id(client, full_headers):
    response = await client.get("/v1/assets/asset-1/floors", headers=full_headers)
    assert response.status_code == 200
    assert response.json()["data"] == [
        {
            "id": "f-1",
            "asset_id": "asset-1",
            "name": "1",
            "label": "Floor 1",
            "short_label": "1",
            "sort": 1,
            **STAMPS,
        },
        {
            "id": "f-2",
            "asset_id": "asset-1",
            "name": "2",
            "label": "Floor 2",
            "short_label": "2",
            "sort": 2,
            **STAMPS,
        },
    ]


async def test_floors_of_unknown_asset_is_404(client, full_headers):
    response = await client.get("/v1/assets/nope/floors", headers=full_headers)
    assert response.status_code == 404
    assert response.json() == {"message": "Not found"}


async def test_get_floor(client, full_headers):
    response = await client.get("/v1/assets/asset-2/floors/e-1", headers=full_headers)
    assert response.status_code == 200
    assert response.json() == {
        "id": "e-1",
        "asset_id": "asset-2",
        "name": "1",
        "label": "Ground",
        "short_label": "G",
        "sort": 1,
        **STAMPS,
    }


async def test_floor_of_another_asset_is_404(client, full_headers):
    response = await client.get("/v1/assets/asset-2/floors/f-1", headers=full_headers)
    assert response.status_code == 404


async def test_list_units_in_id_order(client, full_headers):
    response = await client.get("/v1/units", headers=full_headers)
    assert response.status_code == 200
    ids = [item["id"] for item in response.json()["data"]]
    assert ids == sorted(ids)
    assert ids[:3] == ["Ab", "a/b c", "ab"]
    assert len(ids) == 14
    assert response.json()["data"][3] == unit("u-001", "asset-1", "f-1", "101")


async def test_get_unit(client, full_headers):
    response = await client.get("/v1/units/u-007", headers=full_headers)
    assert response.status_code == 200
    assert response.json() == unit("u-007", "asset-1", "f-2", "107")


async def test_list_maps_and_tag_filter(client, full_headers):
    response = await client.get("/v1/maps", headers=full_headers)
    assert response.status_code == 200
    body = response.json()
    assert [item["id"] for item in body["data"]] == ["map-1", "map-2", "map-3"]
    assert body["data"][0] == {
        "id": "map-1",
        "asset_id": "asset-1",
        "background_id": "bg-1",
        "name": "Floor 1",
        "style": "a",
        "style_type": "floor_plate",
        "tags": ["ils", "pathfinding"],
        "routing_tier": "basic",
        "geojson_url": None,
        "url": "https://api.floorgate.test/files/maps/map-1/0123456789abcdef0123.map.json",
        **STAMPS,
    }
    assert "url" not in body["data"][1]  # no drawing: no `url` member (the spec: a string)
    both = await client.get("/v1/maps?tags=ils, pathfinding", headers=full_headers)
    assert [item["id"] for item in both.json()["data"]] == ["map-1", "map-3"]
    three = await client.get("/v1/maps?tags=ils,mls,pathfinding", headers=full_headers)
    assert [item["id"] for item in three.json()["data"]] == ["map-3"]
    none = await client.get("/v1/maps?tags=ILS", headers=full_headers)
    assert none.json()["data"] == []


async def test_list_maps_asset_filter(client, full_headers):
    response = await client.get("/v1/maps?asset=asset-1&tags=mls", headers=full_headers)
    assert [item["id"] for item in response.json()["data"]] == ["map-2"]


async def test_get_map(client, full_headers):
    response = await client.get("/v1/maps/map-3", headers=full_headers)
    assert response.status_code == 200
    assert response.json()["tags"] == ["ils", "mls", "pathfinding"]


async def test_backgrounds(client, full_headers):
    response = await client.get("/v1/maps/map-1/backgrounds", headers=full_headers)
    assert response.status_code == 200
    assert response.json()["data"] == [
        {"id": "bg-1", "unit_map_id": "map-1", "name": "Base", **STAMPS},
        {"id": "bg-2", "unit_map_id": "map-1", "name": "Satellite", **STAMPS},
    ]
    one = await client.get("/v1/maps/map-1/backgrounds/bg-2", headers=full_headers)
    assert one.json() == {"id": "bg-2", "unit_map_id": "map-1", "name": "Satellite", **STAMPS}
    other_map = await client.get("/v1/maps/map-1/backgrounds/bg-9", headers=full_headers)
    assert other_map.status_code == 404


async def test_level_tags_unenveloped(client, full_headers):
    response = await client.get("/v1/maps/map-1/levels/tags", headers=full_headers)
    assert response.status_code == 200
    value = {"name": "Main", "value": "b-1", **STAMPS}
    assert response.json() == {
        "data": [
            {"name": "Building", "key": "building", **STAMPS, "values": [value]},
            {
                "name": "Floor",
                "key": "floor",
                **STAMPS,
                "values": [{"name": "Floor 1", "value": "f-1", **STAMPS}],
            },
        ]
    }
    sliced = await client.get("/v1/maps/map-1/levels/tags?page=2&per-page=1", headers=full_headers)
    assert sliced.json() == {
        "data": [
            {
                "name": "Floor",
                "key": "floor",
                **STAMPS,
                "values": [{"name": "Floor 1", "value": "f-1", **STAMPS}],
            }
        ]
    }
    empty = await client.get("/v1/maps/map-2/levels/tags", headers=full_headers)
    assert empty.json() == {"data": []}


async def test_map_units_reduced_form(client, full_headers):
    response = await client.get("/v1/maps/map-1/units?per-page=2", headers=full_headers)
    assert response.status_code == 200
    assert response.json() == {
        "paging": {
            "per_page": 2,
            "current_page": 1,
            "prev_url": None,
            "next_url": "https://api.floorgate.test/v1/maps/map-1/units?page=2&per-page=2",
        },
        "data": [
            {"id": "u-001", "name": "101", **STAMPS},
            {"id": "u-002", "name": "102", **STAMPS},
        ],
    }
    third = await client.get("/v1/maps/map-1/units?page=3&per-page=2", headers=full_headers)
    assert third.json()["data"] == [{"id": "u-005", "name": "105", **STAMPS}]
    assert third.json()["paging"]["next_url"] is None


async def test_map_unit(client, full_headers):
    response = await client.get("/v1/maps/map-1/units/u-004", headers=full_headers)
    assert response.json() == {"id": "u-004", "name": "104", **STAMPS}
    not_on_map = await client.get("/v1/maps/map-1/units/u-009", headers=full_headers)
    assert not_on_map.status_code == 404
    listed_but_missing = await client.get("/v1/maps/map-1/units/missing", headers=full_headers)
    assert listed_but_missing.status_code == 404


async def test_long_unicode_id_round_trips(client, full_headers):
    assert len(LONG_ID) == 255
    response = await client.get(f"/v1/units/{quote(LONG_ID, safe='')}", headers=full_headers)
    assert response.status_code == 200
    assert response.json()["id"] == LONG_ID
    assert response.json()["name"] == "Long"


async def test_id_of_256_characters_is_422(client, full_headers):
    response = await client.get(f"/v1/units/{'x' * 256}", headers=full_headers)
    assert response.status_code == 422
    assert response.json() == {
        "message": "Resource validation failed",
        "fields": {"unit": ["must be at most 255 characters"]},
    }


async def test_ids_are_case_sensitive(client, full_headers):
    upper = await client.get("/v1/units/Ab", headers=full_headers)
    lower = await client.get("/v1/units/ab", headers=full_headers)
    assert (upper.json()["name"], lower.json()["name"]) == ("Upper", "Lower")
    assert (await client.get("/v1/units/AB", headers=full_headers)).status_code == 404


async def test_encoded_slash_in_id(client, full_headers):
    response = await client.get("/v1/units/a%2Fb%20c", headers=full_headers)
    assert response.status_code == 200
    assert response.json()["name"] == "Slash"


async def test_static_segment_wins_over_id(client, full_headers):
    # /v1/units/references is E8, never E7 with id "references": without its flag it
    # names the flag rather than looking up a unit.
    response = await client.get("/v1/units/references", headers=full_headers)
    assert response.status_code == 404
    assert response.json() == {
        "message": "Not found: this experimental resource requires "
        'the Experimental-Flags header to include "references"'
    }


async def test_files_are_served_from_gridfs(client, store, full_headers):
    from storage.files import put_file

    await put_file(store, "maps/map-1/source.svg", b"<svg/>", "image/svg+xml")
    response = await client.get("/files/maps/map-1/source.svg")
    assert response.status_code == 200
    assert response.content == b"<svg/>"
    assert response.headers["content-type"] == "image/svg+xml"
    etag = response.headers["etag"]
    again = await client.get("/files/maps/map-1/source.svg", headers={"If-None-Match": etag})
    assert again.status_code == 304
    missing = await client.get("/files/maps/none/source.svg")
    assert missing.status_code == 404
    assert missing.json() == {"message": "Not found"}


async def test_health_and_readiness(client):
    assert (await client.get("/healthz")).json() == {"status": "ok"}
    ready = await client.get("/readyz")
    assert ready.status_code == 200
    body = ready.json()
    assert body["status"] == "ready"
    cache = body["read_cache"]
    assert cache["enabled"] is True and cache["budget_bytes"] == 128 * 1024 * 1024
    assert cache["stream"] == "up" and cache["live"] is True
    assert cache["bytes_used"] <= cache["budget_bytes"]
    graphql = body["graphql_caches"]
    assert set(graphql) == {"documents", "plans", "generated_code"}
    assert graphql["documents"]["budget_bytes"] == 16 * 1024 * 1024  # FLOORGATE_GRAPHQL_CACHE_MB
    for figures in [*graphql.values(), body["compressed_answers"]]:
        assert set(figures) == {
            "entries",
            "bytes_used",
            "budget_bytes",
            "hits",
            "misses",
            "evictions",
        }
        assert 0 <= figures["bytes_used"] <= figures["budget_bytes"]
    assert body["compressed_answers"]["budget_bytes"] == 32 * 1024 * 1024
