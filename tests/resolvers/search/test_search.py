"""Search (`GET /v1/search`, GraphQL `search`, issue 47) on the demo and on the fixture
assets, through the real app: access, every refusal, exact answers, one result per place,
the order (tier, walking time from `near`, name), scope, both faces alike, and an index
that follows writes at once (a kept answer included)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.resolvers.test_locations import DELETE_LOCATION, PUT_LOCATION

pytestmark = pytest.mark.asyncio(loop_scope="session")

FLAG = "search"
GYM = {
    "kind": "location",
    "id": "loc-b1-f1-gym",
    "name": "Fitness Center",
    "asset_id": "harbor-view",
    "floor_id": "b1-f1",
    "map_id": "map-b1",
    "location_id": "loc-b1-f1-gym@map-b1",
    "category": "fitness_centre",
}
UNWALKED = {"distance": None, "time": None, "closed": None}  # no `near`, no `map`
SEARCH = """
query ($q: String!, $asset: ID, $map: ID, $floor: ID, $near: ID, $mode: String,
       $page: Int, $perPage: Int) {
  search(q: $q, asset: $asset, unitMapId: $map, floorId: $floor, near: $near, mode: $mode,
         page: $page, perPage: $perPage) {
    paging { perPage currentPage prevPage nextPage totalCount }
    data { kind id name assetId floorId mapId locationId category score matched distance time }
  }
}"""


async def search(demo: Any, status: int = 200, **query: Any) -> dict[str, Any]:
    response = await demo.client.get("/v1/search", params=query, headers=demo.headers(FLAG))
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    return body


def ids(body: dict[str, Any]) -> list[str]:
    return [item["id"] for item in body["data"]]


async def test_a_name_finds_its_place_with_every_field(demo):
    body = await search(demo, q="fitness center")
    assert body == {
        "paging": {
            "per_page": 10,
            "current_page": 1,
            "total_count": 1,
            "prev_url": None,
            "next_url": None,
        },
        "data": [
            {**GYM, "score": 1.0, "matched": "name", **UNWALKED},
        ],
    }


@pytest.mark.parametrize(
    ("q", "matched", "score"),
    [
        ("FITNESS CENTER", "name", 1.0),  # case
        ("fîtness cénter", "name", 1.0),  # accents
        ("fitn", "name", 0.6571),  # a word's prefix: 0.8 x (0.75 + 0.25 x 4/14)
        ("cent fit", "name", 0.7143),  # prefixes in any order
        ("fitnes centr", "name", 0.5786),  # the whole name two typos off: 0.6 x ...
        ("fitness cetner", "name", 0.6),  # a swap is one typo
        ("fitnss", "name", 0.4714),  # a word's typo: 0.55 x (0.75 + 0.25 x 6/14)
        ("gym", "id", 0.6429),  # the id's last word (its category's word is a worse tier)
        ("leisure fitness", None, None),  # "leisure" is a tag's key, not a word of it
    ],
)
async def test_case_accents_prefixes_and_typos(demo, q, matched, score):
    body = await search(demo, q=q)
    if matched is None:
        assert body["data"] == []
        return
    assert body["data"] == [{**GYM, "score": score, "matched": matched, **UNWALKED}]


async def test_a_category_word_finds_the_places_of_that_kind(demo):
    body = await search(demo, q="workout")  # no such word anywhere
    assert body["data"] == []
    body = await search(demo, q="parcels")  # a common word of the mail category
    assert [(i["id"], i["matched"], i["score"]) for i in body["data"]] == [
        ("loc-b1-f1-mail", "category", 0.6611),  # a kind's word whole: 0.7, less the share
        ("loc-b2-f1-mail", "category", 0.6611),  # of the name it does not cover
    ]
    # The kind's word typed whole comes before a typo of the name "Mail Room" (issue 66,
    # point 7): the same places, matched by their kind.
    body = await search(demo, q="mailroom")
    assert [(i["id"], i["matched"], i["score"]) for i in body["data"]] == [
        ("loc-b1-f1-mail", "category", 0.6806),
        ("loc-b2-f1-mail", "category", 0.6806),
    ]
    body = await search(demo, q="mail rom")  # no kind's word: the name's typo
    assert [(i["id"], i["matched"], i["score"]) for i in body["data"]] == [
        ("loc-b1-f1-mail", "name", 0.5833),
        ("loc-b2-f1-mail", "name", 0.5833),
    ]


async def test_one_result_per_place(demo):
    """Unit b1-101 is stood for by `loc-b1-101` (floor map) and `map-b1:b1-101` (the
    building's map, made by processing) and is named "101" and "Unit 101": one result."""
    body = await search(demo, q="unit 101")
    assert [(i["kind"], i["id"], i["name"], i["location_id"]) for i in body["data"]] == [
        ("unit", "b1-101", "101", "map-b1:b1-101"),
        ("unit", "b2-101", "101", "map-b2:b2-101"),
    ]
    body = await search(demo, q="101", map="map-b1-f1")
    assert [(i["id"], i["map_id"], i["location_id"]) for i in body["data"]] == [
        ("b1-101", "map-b1-f1", "loc-b1-101")
    ]


async def test_another_number_is_no_typo(demo):
    body = await search(demo, q="unit 1104", floor="b1-f1")  # one edit from "Unit 104"
    assert ids(body) == []
    body = await search(demo, q="unit 104", floor="b1-f1")
    assert ids(body) == ["b1-104"]


async def test_near_ranks_each_tier_by_walking_time(demo):
    """From unit 201 of building 1: the nearer mail room first, each with E18's walk."""
    body = await search(demo, q="mail", map="map-b1", near="map-b1:b1-201")
    assert [(i["id"], i["location_id"]) for i in body["data"]] == [
        ("loc-b1-f1-mail", "loc-b1-f1-mail@map-b1")
    ]
    matrix = await demo.client.post(
        "/v1/unitmaps/map-b1/distance-matrix",
        json={
            "data": {
                "sources": [{"id": "map-b1:b1-201"}],
                "targets": [{"id": "loc-b1-f1-mail@map-b1"}],
            }
        },
        headers=demo.headers("distances"),
    )
    cell = matrix.json()["data"]["sources"][0]["targets"][0]
    assert (body["data"][0]["distance"], body["data"][0]["time"]) == (
        cell["distance"],
        cell["time"],
    )
    units = await search(demo, q="unit", map="map-b1", near="map-b1:b1-201", **{"per-page": 50})
    times = [item["time"] for item in units["data"]]
    assert units["data"][0]["id"] == "b1-201" and times[0] == 0.0
    assert all(time is not None for time in times)
    assert times == sorted(times)
    wheelchair = await search(
        demo, q="unit", map="map-b1", near="map-b1:b1-201", mode="wheelchair", **{"per-page": 50}
    )
    assert [i["time"] for i in wheelchair["data"]] == sorted(i["time"] for i in wheelchair["data"])
    assert [i["time"] for i in wheelchair["data"]] != times  # slower, and by lift


async def test_paging(demo):
    first = await search(demo, q="unit", **{"per-page": 3})
    second = await search(demo, q="unit", page=2, **{"per-page": 3})
    assert (
        first["paging"]["next_url"] == "https://localhost:8443/v1/search?q=unit&page=2&per-page=3"
    )
    assert len(first["data"]) == len(second["data"]) == 3
    assert not set(ids(first)) & set(ids(second))
    everything = await search(demo, q="unit", **{"per-page": 500})
    assert everything["paging"]["per_page"] == 50  # clamped
    assert ids(everything)[:6] == ids(first) + ids(second)


async def test_graphql_answers_the_same_items_in_the_same_order(demo):
    variables = {"q": "unit", "map": "map-b1", "near": "map-b1:b1-201", "perPage": 20}
    response = await demo.client.post(
        "/graphql", json={"query": SEARCH, "variables": variables}, headers=demo.headers(FLAG)
    )
    graphql = response.json()["data"]["search"]["data"]
    rest = await search(demo, q="unit", map="map-b1", near="map-b1:b1-201", **{"per-page": 20})
    assert [
        (i["kind"], i["id"], i["locationId"], i["score"], i["matched"], i["time"]) for i in graphql
    ] == [
        (i["kind"], i["id"], i["location_id"], i["score"], i["matched"], i["time"])
        for i in rest["data"]
    ]


@pytest.mark.parametrize(
    ("query", "status", "fields"),
    [
        ({"mode": "car"}, 422, {"q": ["is required"]}),  # nothing runs without it
        ({"q": ""}, 422, {"q": ["must be from 1 to 100 characters"]}),
        ({"q": "x" * 101}, 422, {"q": ["must be from 1 to 100 characters"]}),
        ({"q": "-- !"}, 422, {"q": ["must contain a letter or a digit"]}),
        (
            {"q": "gym", "mode": "car"},
            422,
            {"mode": ["must be one of foot, wheelchair, not 'car'"]},
        ),
        (
            {"q": "gym", "near": "loc-b1-101"},
            422,
            {"near": ["needs `unitMapId` (REST: `map`), the map the location is on"]},
        ),
        (
            {"q": "gym", "map": "map-b1", "near": "nowhere"},
            422,
            {"near": ["no location 'nowhere' on map 'map-b1'"]},
        ),
        ({"q": "gym", "page": "0"}, 422, {"page": ["must be an integer of at least 1"]}),
        ({"q": "gym", "map": "map-none"}, 404, None),
    ],
)
async def test_refusals(demo, query, status, fields):
    body = await search(demo, status, **query)
    if status == 404:
        assert body == {"message": "Not found"}
    else:
        assert body == {"message": "Resource validation failed", "fields": fields}


async def test_graphql_refusals_are_bad_user_input(demo):
    response = await demo.client.post(
        "/graphql",
        json={"query": SEARCH, "variables": {"q": "x" * 101}},
        headers=demo.headers(FLAG),
    )
    error = response.json()["errors"][0]
    assert error["extensions"] == {
        "code": "BAD_USER_INPUT",
        "fields": {"q": ["must be from 1 to 100 characters"]},
    }


async def test_the_flag_is_needed_and_any_key_will_do(client, keys):
    response = await client.get("/v1/search", params={"q": "101"}, headers={"API-Key": keys.plain})
    assert (response.status_code, response.json()) == (
        404,
        {
            "message": "Not found: this experimental resource requires the "
            'Experimental-Flags header to include "search"'
        },
    )
    response = await client.get(
        "/v1/search", params={"q": "101"}, headers={"Experimental-Flags": FLAG}
    )
    assert response.status_code == 401
    response = await client.get(
        "/v1/search",
        params={"q": "101"},
        headers={"API-Key": keys.plain, "Experimental-Flags": FLAG},
    )
    assert response.status_code == 200
    assert [(i["asset_id"], i["id"]) for i in response.json()["data"]] == [("asset-1", "u-001")]


async def test_a_key_sees_only_its_assets_places(client, keys):
    headers = {"API-Key": keys.scoped, "Experimental-Flags": FLAG}  # asset-2 only
    response = await client.get("/v1/search", params={"q": "101"}, headers=headers)
    assert response.json()["data"] == []
    response = await client.get("/v1/search", params={"q": "upper"}, headers=headers)
    assert [(i["asset_id"], i["id"], i["name"]) for i in response.json()["data"]] == [
        ("asset-2", "Ab", "Upper")
    ]
    response = await client.get(
        "/v1/search", params={"q": "101", "asset": "asset-1"}, headers=headers
    )
    assert (
        response.status_code,
        response.json()["data"],
        response.json()["paging"]["total_count"],
    ) == (200, [], 0)
    response = await client.get("/v1/search", params={"q": "elm", "map": "map-1"}, headers=headers)
    assert response.status_code == 404  # map-1 is asset-1's


async def test_a_write_is_found_at_once_even_after_a_kept_answer(demo):
    query = {"q": "rooftop lounge"}
    assert (await search(demo, **query))["data"] == []
    assert (await search(demo, **query))["data"] == []  # now a kept answer
    location = {
        "id": "loc-test-lounge",
        "assetId": "harbor-view",
        "unitMapId": "map-b1-f1",
        "name": "Rooftop Lounge",
        "x": 100.0,
        "y": 100.0,
        "floors": [{"id": "b1-f1"}],
        "tags": [{"key": "amenity", "value": "lounge"}],
    }
    put = await demo.client.post(
        "/graphql",
        json={"query": PUT_LOCATION, "variables": {"input": location}},
        headers=demo.headers(),
    )
    assert "errors" not in put.json(), put.text
    try:
        found = await search(demo, **query)
        assert [(i["id"], i["category"], i["matched"]) for i in found["data"]] == [
            ("loc-test-lounge", "lounge", "name")
        ]
    finally:
        await demo.client.post(
            "/graphql",
            json={"query": DELETE_LOCATION, "variables": {"id": "loc-test-lounge"}},
            headers=demo.headers(),
        )
    assert (await search(demo, **query))["data"] == []


async def test_readyz_reports_the_search_indexes(demo):
    await search(demo, q="pool")
    figures = (await demo.client.get("/readyz")).json()["search_indexes"]
    assert figures["entries"] >= 1
    assert 0 < figures["bytes_used"] <= figures["budget_bytes"] == 64 * 1024 * 1024


@pytest.mark.security
async def test_a_key_of_many_assets_names_the_one_it_searches(client, keys, monkeypatch):
    """Each asset searched is an index built and asked: a key that may see more than
    MAX_SEARCH_ASSETS must name one (or a map); the fixture's key sees three."""
    monkeypatch.setattr("resolvers.search.search.MAX_SEARCH_ASSETS", 2)
    headers = {"API-Key": keys.full, "Experimental-Flags": FLAG}
    response = await client.get("/v1/search", params={"q": "101"}, headers=headers)
    assert (response.status_code, response.json()) == (
        422,
        {
            "message": "Resource validation failed",
            "fields": {
                "asset": [
                    "is required when the key may see more than 2 assets "
                    "(or `unitMapId`, REST `map`)"
                ]
            },
        },
    )
    response = await client.get(
        "/v1/search", params={"q": "101", "asset": "asset-1"}, headers=headers
    )
    assert [(i["asset_id"], i["id"]) for i in response.json()["data"]] == [("asset-1", "u-001")]


@pytest.mark.security
async def test_a_key_of_another_asset_builds_no_index_of_this_one(client, keys, app):
    """Asked for a map or an asset it may not see, a search answers before any index is
    built: a scoped key cannot make the process index (or time) another asset's places."""
    app.services.search_indexes.clear()
    headers = {"API-Key": keys.scoped, "Experimental-Flags": FLAG}  # asset-2 only
    for query in ({"q": "101", "map": "map-1"}, {"q": "101", "asset": "asset-1"}):
        await client.get("/v1/search", params=query, headers=headers)
    assert len(app.services.search_indexes) == 0
    # A text no other test asks: its answer cannot be a kept one, so the index is built.
    response = await client.get("/v1/search", params={"q": "slash"}, headers=headers)
    assert [(i["asset_id"], i["id"]) for i in response.json()["data"]] == [("asset-2", "a/b c")]
    assert len(app.services.search_indexes) == 1  # asset-2's own
