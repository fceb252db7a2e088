"""Paging: defaults, clamping, edges, and the URLs of neighbouring pages."""

from __future__ import annotations

import pytest

BASE = "https://api.floorgate.test"


async def test_default_page_size_is_100(client, full_headers):
    paging = (await client.get("/v1/units", headers=full_headers)).json()["paging"]
    assert paging == {
        "per_page": 100,
        "current_page": 1,
        "prev_url": None,
        "next_url": None,
        "total_count": 14,
    }


async def test_per_page_over_maximum_is_clamped(client, full_headers):
    response = await client.get("/v1/units?per-page=50000", headers=full_headers)
    assert response.status_code == 200
    assert response.json()["paging"]["per_page"] == 10000
    assert len(response.json()["data"]) == 14


async def test_middle_page_links(client, full_headers):
    response = await client.get("/v1/units?per-page=5&page=2", headers=full_headers)
    body = response.json()
    assert [item["id"] for item in body["data"]] == ["u-003", "u-004", "u-005", "u-006", "u-007"]
    assert body["paging"] == {
        "per_page": 5,
        "current_page": 2,
        "prev_url": f"{BASE}/v1/units?page=1&per-page=5",
        "next_url": f"{BASE}/v1/units?page=3&per-page=5",
    }


async def test_last_page_exactly_full_has_no_next(client, full_headers):
    response = await client.get("/v1/units?per-page=7&page=2", headers=full_headers)
    assert len(response.json()["data"]) == 7
    assert response.json()["paging"]["next_url"] is None


async def test_page_past_the_end(client, full_headers):
    response = await client.get("/v1/units?per-page=10&page=9", headers=full_headers)
    assert response.status_code == 200
    assert response.json() == {
        "paging": {
            "per_page": 10,
            "current_page": 9,
            "prev_url": f"{BASE}/v1/units?page=8&per-page=10",
            "next_url": None,
        },
        "data": [],
    }


async def test_next_url_keeps_filters_and_drops_api_key(client, keys):
    response = await client.get(
        f"/v1/maps?tags=ils&asset=asset-1&per-page=1&api-key={keys.full}&extra=x%20y"
    )
    assert response.status_code == 200
    paging = response.json()["paging"]
    # map-1 is the only ils map of asset-1, so there is no next page.
    assert paging["next_url"] is None
    second = await client.get(f"/v1/maps?tags=ils&per-page=1&api-key={keys.full}&extra=x%20y")
    assert second.json()["paging"]["next_url"] == (
        f"{BASE}/v1/maps?tags=ils&extra=x+y&page=2&per-page=1"
    )


async def test_next_url_keeps_encoded_path(client, full_headers):
    response = await client.get("/v1/maps/map-1/backgrounds?per-page=1", headers=full_headers)
    assert response.json()["paging"]["next_url"] == (
        f"{BASE}/v1/maps/map-1/backgrounds?page=2&per-page=1"
    )


@pytest.mark.parametrize(
    ("query", "fields"),
    [
        ("page=abc", {"page": ["must be an integer"]}),
        ("page=1.5", {"page": ["must be an integer"]}),
        ("page=0", {"page": ["must be an integer of at least 1"]}),
        ("page=-3", {"page": ["must be an integer of at least 1"]}),
        ("per-page=0", {"per-page": ["must be an integer of at least 1"]}),
        ("per-page=", {"per-page": ["must be an integer"]}),
        ("per-page=99999999999", {"per-page": ["must be at most 2147483647"]}),
        ("page=x&per-page=y", {"page": ["must be an integer"], "per-page": ["must be an integer"]}),
    ],
)
async def test_bad_paging_is_422(client, full_headers, query, fields):
    response = await client.get(f"/v1/maps?{query}", headers=full_headers)
    assert response.status_code == 422
    assert response.json() == {"message": "Resource validation failed", "fields": fields}


async def test_bad_paging_on_unenveloped_list_is_422(client, full_headers):
    response = await client.get("/v1/maps/map-1/levels/tags?per-page=0", headers=full_headers)
    assert response.status_code == 422
    assert response.json()["fields"] == {"per-page": ["must be an integer of at least 1"]}


async def test_syntax_and_value_problems_are_reported_together(client, full_headers):
    response = await client.get(f"/v1/maps/{'m' * 256}/units?page=abc", headers=full_headers)
    assert response.status_code == 422
    assert response.json()["fields"] == {
        "page": ["must be an integer"],
        "map": ["must be at most 255 characters"],
    }


# Spellings seen in real clients (issue 17): `asset_id` for `asset`, `per_page` for
# `per-page`; links use the spec's names.


async def test_asset_id_is_the_asset_filter(client, full_headers):
    every = (await client.get("/v1/maps", headers=full_headers)).json()["data"]
    canonical = (await client.get("/v1/maps?asset=asset-2", headers=full_headers)).json()
    synonym = (await client.get("/v1/maps?asset_id=asset-2", headers=full_headers)).json()
    assert synonym == canonical
    assert {item["asset_id"] for item in synonym["data"]} == {"asset-2"}
    assert len(synonym["data"]) < len(every)  # it filters: not every map, as before


async def test_asset_id_keeps_to_the_key_s_scope(client, keys):
    """A key scoped to asset-2 asking for asset-1 by the synonym sees nothing, as with
    `asset` (the shared scope rule)."""
    headers = {"API-Key": keys.scoped}
    for name in ("asset", "asset_id"):
        listed = await client.get(f"/v1/maps?{name}=asset-1", headers=headers)
        assert (listed.status_code, listed.json()["data"]) == (200, [])
    own = await client.get("/v1/maps?asset_id=asset-2", headers=headers)
    assert {item["asset_id"] for item in own.json()["data"]} == {"asset-2"}


async def test_per_page_and_links_in_the_spec_names(client, full_headers):
    response = await client.get(
        "/v1/units?per_page=4&page=2&asset_id=asset-1&x=1", headers=full_headers
    )
    body = response.json()
    assert response.status_code == 200
    assert len(body["data"]) == 4
    assert {unit["asset_id"] for unit in body["data"]} == {"asset-1"}  # E6 takes `asset`
    assert body["paging"] == {
        "per_page": 4,
        "current_page": 2,
        "prev_url": f"{BASE}/v1/units?asset=asset-1&x=1&page=1&per-page=4",
        "next_url": f"{BASE}/v1/units?asset=asset-1&x=1&page=3&per-page=4",
    }


@pytest.mark.parametrize(
    "query, field, message",
    [
        ("asset=asset-1&asset_id=asset-2", "asset", "must be given once"),
        ("asset_id=asset-1&asset_id=asset-1", "asset", "must be given once"),
        ("per-page=5&per_page=5", "per-page", "must be given once"),
        ("per_page=five", "per-page", "must be an integer"),
    ],
)
async def test_a_name_and_its_synonym_together_are_refused(
    client, full_headers, query, field, message
):
    response = await client.get(f"/v1/maps?{query}", headers=full_headers)
    assert response.status_code == 422
    assert response.json() == {
        "message": "Resource validation failed",
        "fields": {field: [message]},
    }
