"""Locations of a unit map (E17) through the real app: both REST paths, the `tags`
filter, slices, access in the contract's order of checks, the ETag and 304, the
GraphQL fields and the operator's putLocation/deleteLocation.

Tests that write restore what they changed (the database is shared by the session).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from storage import collections as c
from tests.fixtures import LOCATIONS, T0, T1, UNIT_MAPS

FLAG = "locations-resource"
PATHS = ("/v1/unitmaps/{}/locations", "/v1/maps/{}/locations")
CANONICAL, ALIAS = PATHS
MAP_1 = ["loc-101", "loc-gym", "loc-mail", "loc-pool"]
HINT = "use key, -key, key==value or key!=value"
FLAG_MESSAGE = (
    "Not found: this experimental resource requires the Experimental-Flags header to include "
    '"locations-resource"'
)
ETAG = re.compile(r'^"[0-9a-f]{32}"$')


def bad(term: str) -> str:
    return f"invalid term '{term}': {HINT}"


def invalid(**fields: list[str]) -> dict[str, Any]:
    return {"message": "Resource validation failed", "fields": fields}


def headers(key: str | None, flags: str | None = FLAG, **more: str) -> dict[str, str]:
    # Identity bodies: these tests hold the ETag of the answer itself; a compressed
    # answer's tag carries its coding (docs/api.md, "Compression").
    out = {"Accept-Encoding": "identity", **more}
    if key is not None:
        out["API-Key"] = key
    if flags is not None:
        out["Experimental-Flags"] = flags
    return out


def as_api(document: dict[str, Any]) -> dict[str, Any]:
    """A fixture location as E17 returns it."""
    return {
        "id": document["_id"],
        "asset_id": document["asset_id"],
        "unit_map_id": document["unit_map_id"],
        "name": document["name"],
        "x": document["x"],
        "y": document["y"],
        "floors": document["floors"],
        "tags": document["tags"],
        "created_at": document["created_at"],
        "updated_at": document["updated_at"],
    }


FIXTURE = {document["_id"]: document for document in LOCATIONS}


async def get(
    client,
    key: str | None,
    map_id: str = "map-1",
    path: str = CANONICAL,
    flags: str | None = FLAG,
    **params: Any,
):
    params = {name.replace("_", "-"): value for name, value in params.items()}
    return await client.get(path.format(map_id), params=params, headers=headers(key, flags))


def ids(response) -> list[str]:
    assert response.status_code == 200, response.text
    body = response.json()
    assert list(body) == ["data"]  # never a paging object
    return [location["id"] for location in body["data"]]


async def gql(
    client, key: str | None, query: str, variables: dict | None = None, flags: str | None = FLAG
) -> dict[str, Any]:
    response = await client.post(
        "/graphql",
        json={"query": query, "variables": variables or {}},
        headers=headers(key, flags),
    )
    assert response.status_code == 200, response.text
    return response.json()


# ---------------------------------------------------------------- reads


@pytest.mark.parametrize("path", PATHS)
async def test_both_paths_list_every_location_of_the_map_by_id(client, keys, path):
    response = await get(client, keys.full, path=path)
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.json() == {"data": [as_api(FIXTURE[id_]) for id_ in MAP_1]}


async def test_exact_fields_of_a_location(client, keys):
    body = (await get(client, keys.full, path=ALIAS)).json()
    gym = next(location for location in body["data"] if location["id"] == "loc-gym")
    assert gym == {
        "id": "loc-gym",
        "asset_id": "asset-1",
        "unit_map_id": "map-1",
        "name": "Loc-Gym",
        "x": 10.5,
        "y": 20.0,
        "floors": [{"id": "f-1"}],
        "tags": [
            {"key": "svc:amenity", "value": "Yes", "created_at": T0, "updated_at": T1},
            {"key": "leisure", "value": "fitness_centre", "created_at": T0, "updated_at": T1},
            {"key": "amenity", "value": "gym", "created_at": T0, "updated_at": T1},
        ],
        "created_at": T0,
        "updated_at": T1,
    }


async def test_both_paths_answer_the_same(client, keys):
    for params in ({}, {"tags": "leisure"}, {"page": 2, "per_page": 1}):
        canonical = await get(client, keys.full, path=CANONICAL, **params)
        alias = await get(client, keys.full, path=ALIAS, **params)
        assert canonical.status_code == alias.status_code == 200
        assert canonical.json() == alias.json()
        assert canonical.headers["etag"] == alias.headers["etag"]


async def test_a_map_without_locations(client, keys):
    for path in PATHS:
        response = await get(client, keys.full, "map-2", path=path)
        assert response.status_code == 200
        assert response.json() == {"data": []}


FILTERS = [
    ("", MAP_1),
    ("   ", MAP_1),
    ("svc:amenity", ["loc-gym", "loc-mail", "loc-pool"]),
    ("-svc:amenity", ["loc-101"]),
    ("svc:amenity==yes", ["loc-gym", "loc-pool"]),  # loc-gym stores `Yes`
    ("SVC:AMENITY==YES", ["loc-gym", "loc-pool"]),
    ("svc:amenity==Yes", ["loc-gym", "loc-pool"]),
    ("svc:amenity!=yes", ["loc-101", "loc-mail"]),
    ("svc:amenity!=NO", ["loc-101", "loc-gym", "loc-pool"]),
    ("svc:amenity==yes,-amenity", ["loc-pool"]),
    ("svc:amenity==yes,amenity", ["loc-gym"]),
    (" svc:amenity == yes , -amenity ", ["loc-pool"]),
    ("leisure,amenity!=gym", ["loc-pool"]),
    ("amenity,-leisure", ["loc-mail"]),
    ("amenity==MAILROOM", ["loc-mail"]),
    ("svc:type==unit,svc:id==U-001", ["loc-101"]),
    ("Room==apartment,INDOOR", ["loc-101"]),
    ("svc:id==u-00", []),
    ("amenity==gy", []),
    ("svc", []),
    ("nothing", []),
    ("-nothing", MAP_1),
    ("nothing!=x", MAP_1),
    ("svc:amenity==yes,svc:amenity!=yes", []),
]


@pytest.mark.parametrize(("tags", "expected"), FILTERS, ids=[t or "<empty>" for t, _ in FILTERS])
async def test_filter(client, keys, tags, expected):
    for path in PATHS:
        assert ids(await get(client, keys.full, path=path, tags=tags)) == expected


async def test_filter_on_another_map(client, keys):
    assert ids(await get(client, keys.full, "map-3", tags="svc:id==ab")) == ["loc-elm"]
    assert ids(await get(client, keys.full, "map-3", tags="svc:amenity")) == []


async def test_filter_written_raw_in_the_query_string(client, keys):
    """`=` and `!` need no percent-encoding in a query value."""
    response = await client.get(
        "/v1/maps/map-1/locations?tags=svc:amenity==yes,-amenity", headers=headers(keys.full)
    )
    assert ids(response) == ["loc-pool"]
    response = await client.get(
        "/v1/maps/map-1/locations?tags=svc%3Aamenity%21%3Dyes", headers=headers(keys.full)
    )
    assert ids(response) == ["loc-101", "loc-mail"]


BAD_FILTERS = [
    ("a=b", [bad("a=b")]),
    ("a,,b", [bad("")]),
    ("svc:amenity==yes,", [bad("")]),
    ("-", [bad("-")]),
    ("--a", [bad("--a")]),
    ("==x", [bad("==x")]),
    ("a==", [bad("a==")]),
    ("-a==b", [bad("-a==b")]),
    ("a===b", [bad("a===b")]),
    ("!a", [bad("!a")]),
    ("ok, !a ,fine==1, b== ,-c!=d", [bad("!a"), bad("b=="), bad("-c!=d")]),
    ("k" * 256, ["must be at most 255 characters"]),
    ("a=b," * 64, ["must be at most 255 characters"]),
]


@pytest.mark.parametrize(("tags", "messages"), BAD_FILTERS, ids=[t[:20] for t, _ in BAD_FILTERS])
async def test_bad_filter(client, keys, tags, messages):
    for path in PATHS:
        response = await get(client, keys.full, path=path, tags=tags)
        assert response.status_code == 422
        assert response.json() == invalid(tags=messages)
        assert "etag" not in response.headers


async def test_longest_filter(client, keys):
    tags = "svc:amenity==yes," + "-x," * 78 + "-xyz"
    assert len(tags) == 255
    assert ids(await get(client, keys.full, tags=tags)) == ["loc-gym", "loc-pool"]


async def test_blank_filter_over_the_limit_is_refused(client, keys):
    response = await get(client, keys.full, tags=" " * 256)
    assert response.status_code == 422
    assert response.json() == invalid(tags=["must be at most 255 characters"])


# ---------------------------------------------------------------- slices

SLICES = [
    ({"page": 1}, MAP_1),
    ({"page": 2}, []),
    ({"per_page": 2}, ["loc-101", "loc-gym"]),
    ({"page": 1, "per_page": 2}, ["loc-101", "loc-gym"]),
    ({"page": 2, "per_page": 2}, ["loc-mail", "loc-pool"]),
    ({"page": 2, "per_page": 3}, ["loc-pool"]),
    ({"page": 3, "per_page": 2}, []),
    ({"page": 99, "per_page": 1}, []),
    ({"per_page": 100000}, MAP_1),  # clamped to 10000
    ({"page": " 2 ", "per_page": "+1"}, ["loc-gym"]),
    ({"page": 2, "per_page": 1, "tags": "svc:amenity"}, ["loc-mail"]),
    ({"page": 2, "per_page": 1, "tags": "svc:amenity!=yes"}, ["loc-mail"]),
]


@pytest.mark.parametrize(("params", "expected"), SLICES, ids=[str(p) for p, _ in SLICES])
async def test_page_and_per_page_slice_the_list(client, keys, params, expected):
    for path in PATHS:
        assert ids(await get(client, keys.full, path=path, **params)) == expected


BAD_PAGES = [
    ({"page": 0}, {"page": ["must be an integer of at least 1"]}),
    ({"page": -1}, {"page": ["must be an integer of at least 1"]}),
    ({"page": "abc"}, {"page": ["must be an integer"]}),
    ({"page": "1.5"}, {"page": ["must be an integer"]}),
    ({"page": ""}, {"page": ["must be an integer"]}),
    ({"page": 2**31}, {"page": ["must be at most 2147483647"]}),
    ({"per_page": 0}, {"per-page": ["must be an integer of at least 1"]}),
    ({"per_page": "x"}, {"per-page": ["must be an integer"]}),
    (
        {"page": 0, "per_page": 0},
        {
            "page": ["must be an integer of at least 1"],
            "per-page": ["must be an integer of at least 1"],
        },
    ),
    # Every problem of the input at once: REST syntax and the filter.
    ({"page": "abc", "tags": "a=b"}, {"page": ["must be an integer"], "tags": [bad("a=b")]}),
    (
        {"page": 0, "tags": "a=b"},
        {"page": ["must be an integer of at least 1"], "tags": [bad("a=b")]},
    ),
]


@pytest.mark.parametrize(("params", "fields"), BAD_PAGES, ids=[str(p) for p, _ in BAD_PAGES])
async def test_bad_paging(client, keys, params, fields):
    for path in PATHS:
        response = await get(client, keys.full, path=path, **params)
        assert response.status_code == 422
        assert response.json() == {"message": "Resource validation failed", "fields": fields}


async def test_map_id_over_255_characters(client, keys):
    long_id = "m" * 256
    canonical = await get(client, keys.full, long_id, path=CANONICAL)
    assert canonical.status_code == 422
    assert canonical.json() == invalid(unitMapId=["must be at most 255 characters"])
    alias = await get(client, keys.full, long_id, path=ALIAS)
    assert alias.status_code == 422
    assert alias.json() == invalid(map=["must be at most 255 characters"])


# ---------------------------------------------------------------- access


@pytest.mark.parametrize(
    "flags",
    [FLAG, "LOCATIONS-RESOURCE", " other , Locations-Resource ,", "references,locations-resource"],
)
async def test_flag_forms(client, keys, flags):
    assert ids(await get(client, keys.full, flags=flags)) == MAP_1


@pytest.mark.parametrize(
    "flags", [None, "", "locations", "locations-resources", "references, unit-attributes-resource"]
)
async def test_flag_missing(client, keys, flags):
    for path in PATHS:
        response = await get(client, keys.full, path=path, flags=flags)
        assert response.status_code == 404
        assert response.json() == {"message": FLAG_MESSAGE}


async def test_no_permission_needed(client, keys):
    assert ids(await get(client, keys.plain)) == MAP_1


async def test_key_in_the_query(client, keys):
    response = await client.get(
        "/v1/maps/map-1/locations", params={"api-key": keys.plain}, headers=headers(None)
    )
    assert ids(response) == MAP_1


@pytest.mark.parametrize("path", PATHS)
async def test_without_key(client, path):
    for sent in ({}, {"API-Key": ""}):
        response = await client.get(
            path.format("map-1"), headers={**sent, "Experimental-Flags": FLAG}
        )
        assert response.status_code == 401
        assert response.json() == {"message": "No API key found in request"}


@pytest.mark.parametrize("path", PATHS)
async def test_invalid_and_disabled_keys(client, keys, path):
    for key in ("fg_unknown", keys.disabled):
        response = await get(client, key, path=path)
        assert response.status_code == 403
        assert response.json() == {"message": "Invalid authentication credentials"}


@pytest.mark.parametrize("path", PATHS)
async def test_scope(client, keys, path):
    hidden = await get(client, keys.scoped, "map-1", path=path)
    assert hidden.status_code == 404
    assert hidden.json() == {"message": "Not found"}
    own = await get(client, keys.scoped, "map-3", path=path)
    assert own.status_code == 200
    assert own.json() == {"data": [as_api(FIXTURE["loc-elm"])]}


@pytest.mark.parametrize("path", PATHS)
async def test_unknown_map(client, keys, path):
    for map_id in ("map-zzz", "MAP-1", "map-1 "):
        response = await get(client, keys.full, map_id, path=path)
        assert response.status_code == 404
        assert response.json() == {"message": "Not found"}


ORDER = [
    # (key, flags, map, params) -> status, body: key, then flag, then input, then existence.
    ("none", FLAG, "map-zzz", {"tags": "a=b"}, 401, {"message": "No API key found in request"}),
    (
        "fg_unknown",
        None,
        "map-zzz",
        {"tags": "a=b"},
        403,
        {"message": "Invalid authentication credentials"},
    ),
    (
        "disabled",
        FLAG,
        "map-1",
        {"tags": "a=b"},
        403,
        {"message": "Invalid authentication credentials"},
    ),
    ("full", None, "map-zzz", {"tags": "a=b"}, 404, {"message": FLAG_MESSAGE}),
    ("full", None, "map-1", {"page": "abc"}, 404, {"message": FLAG_MESSAGE}),
    ("full", FLAG, "map-zzz", {"tags": "a=b"}, 422, invalid(tags=[bad("a=b")])),
    ("full", FLAG, "map-zzz", {"page": "abc"}, 422, invalid(page=["must be an integer"])),
    (
        "full",
        FLAG,
        "map-zzz",
        {"per_page": 0},
        422,
        invalid(**{"per-page": ["must be an integer of at least 1"]}),
    ),
    ("scoped", FLAG, "map-1", {"tags": "a=b"}, 422, invalid(tags=[bad("a=b")])),
    ("scoped", FLAG, "map-1", {"tags": "a"}, 404, {"message": "Not found"}),
    ("full", FLAG, "map-zzz", {"tags": "a"}, 404, {"message": "Not found"}),
]


@pytest.mark.parametrize(
    ("key", "flags", "map_id", "params", "status", "body"),
    ORDER,
    ids=[f"{o[0]}-{o[4]}-{o[3]}" for o in ORDER],
)
async def test_order_of_checks(client, keys, key, flags, map_id, params, status, body):
    secret = {
        "none": None,
        "full": keys.full,
        "scoped": keys.scoped,
        "disabled": keys.disabled,
    }.get(key, key)
    for path in PATHS:
        response = await get(client, secret, map_id, path=path, flags=flags, **params)
        assert (response.status_code, response.json()) == (status, body)


# ---------------------------------------------------------------- ETag


async def etag_of(client, key: str, map_id: str = "map-1", **params: Any) -> str:
    response = await get(client, key, map_id, **params)
    assert response.status_code == 200
    assert ETAG.match(response.headers["etag"]), response.headers["etag"]
    assert response.headers["cache-control"] == "private, no-cache"
    return response.headers["etag"]


async def conditional(
    client,
    key: str,
    if_none_match: str,
    map_id: str = "map-1",
    path: str = CANONICAL,
    **params: Any,
):
    params = {name.replace("_", "-"): value for name, value in params.items()}
    return await client.get(
        path.format(map_id), params=params, headers=headers(key, **{"If-None-Match": if_none_match})
    )


async def test_etag_round_trip(client, keys):
    etag = await etag_of(client, keys.full)
    for path in PATHS:
        response = await conditional(client, keys.full, etag, path=path)
        assert response.status_code == 304
        assert response.content == b""
        assert response.headers["etag"] == etag
        assert response.headers["cache-control"] == "private, no-cache"


async def test_if_none_match_forms(client, keys):
    etag = await etag_of(client, keys.full)
    bare = etag.strip('"')
    for header in (
        etag,
        f"W/{etag}",
        f'"other", {etag}',
        f'W/"other",W/{etag}',
        "*",
        " * ",
        f"  {etag}  ",
    ):
        response = await conditional(client, keys.full, header)
        assert response.status_code == 304, header
        assert response.content == b""
    for header in ('"other"', bare, f'"{bare.upper()}"', f'"{bare[:-1]}"', "", f"W/{bare}"):
        response = await conditional(client, keys.full, header)
        assert response.status_code == 200, header
        assert response.headers["etag"] == etag
        assert ids(response) == MAP_1


async def test_etag_follows_the_answer(client, keys):
    everything = await etag_of(client, keys.full)
    amenities = await etag_of(client, keys.full, tags="svc:amenity==yes")
    other_filter = await etag_of(client, keys.full, tags="svc:amenity")
    first_slice = await etag_of(client, keys.full, per_page=2)
    second_slice = await etag_of(client, keys.full, page=2, per_page=2)
    elm = await etag_of(client, keys.full, "map-3")
    assert len({everything, amenities, other_filter, first_slice, second_slice, elm}) == 6
    # The same answer has the same validator, however the filter is written and whoever asks.
    assert await etag_of(client, keys.full, tags=" SVC:AMENITY == YES ") == amenities
    assert await etag_of(client, keys.full, tags="-nothing") == everything
    assert await etag_of(client, keys.full, page=1) == everything
    assert await etag_of(client, keys.plain) == everything
    assert await etag_of(client, keys.scoped, "map-3") == elm
    # A validator of one filter does not answer another.
    response = await conditional(client, keys.full, everything, tags="svc:amenity==yes")
    assert response.status_code == 200
    assert response.headers["etag"] == amenities
    assert ids(response) == ["loc-gym", "loc-pool"]
    response = await conditional(client, keys.full, amenities, tags="svc:amenity==YES")
    assert response.status_code == 304


async def test_no_304_before_access_and_input(client, keys):
    etag = await etag_of(client, keys.full)
    response = await client.get(
        "/v1/maps/map-1/locations", headers=headers(keys.full, None, **{"If-None-Match": "*"})
    )
    assert response.status_code == 404
    assert response.json() == {"message": FLAG_MESSAGE}
    response = await conditional(client, keys.full, etag, tags="a=b")
    assert response.status_code == 422
    response = await conditional(client, keys.scoped, etag)
    assert response.status_code == 404
    response = await conditional(client, keys.full, "*", "map-zzz")
    assert response.status_code == 404


@pytest_asyncio.fixture(loop_scope="session")
async def restore_map_1(store) -> AsyncIterator[None]:
    """Put map-1 and its locations back exactly as the fixture wrote them."""
    yield
    fixture_map = next(m for m in UNIT_MAPS if m["_id"] == "map-1")
    await store[c.UNIT_MAPS].replace_one({"_id": "map-1"}, dict(fixture_map))
    await store[c.LOCATIONS].delete_many({"unit_map_id": "map-1"})
    await store[c.LOCATIONS].insert_many(
        [dict(doc) for doc in LOCATIONS if doc["unit_map_id"] == "map-1"]
    )


PUT_LOCATION = """
mutation ($input: LocationInput!) {
  putLocation(input: $input) {
    id assetId unitMapId name x y floors { id }
    tags { key value createdAt updatedAt } createdAt updatedAt
  }
}"""
DELETE_LOCATION = "mutation ($id: ID!) { deleteLocation(id: $id) }"


def location_input(document: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """A fixture location as a LocationInput, with changes."""
    value = {
        "id": document["_id"],
        "assetId": document["asset_id"],
        "unitMapId": document["unit_map_id"],
        "name": document["name"],
        "x": document["x"],
        "y": document["y"],
        "floors": document["floors"],
        "tags": [
            {
                "key": t["key"],
                "value": t["value"],
                "createdAt": t["created_at"],
                "updatedAt": t["updated_at"],
            }
            for t in document["tags"]
        ],
        "createdAt": document["created_at"],
        "updatedAt": document["updated_at"],
    }
    return {**value, **changes}


async def test_etag_changes_with_a_put_location(client, keys, store, restore_map_1):
    everything = await etag_of(client, keys.full)
    pools = await etag_of(client, keys.full, tags="leisure==swimming_pool")
    changed = location_input(FIXTURE["loc-pool"], name="Pool (closed)", x=11.25)
    body = await gql(client, keys.full, PUT_LOCATION, {"input": changed})
    assert "errors" not in body, body
    assert body["data"]["putLocation"]["name"] == "Pool (closed)"

    response = await conditional(client, keys.full, everything)
    assert response.status_code == 200
    new_everything = response.headers["etag"]
    assert ETAG.match(new_everything) and new_everything != everything
    pool = response.json()["data"][3]
    assert (pool["id"], pool["name"], pool["x"]) == ("loc-pool", "Pool (closed)", 11.25)
    assert pool["tags"] == FIXTURE["loc-pool"]["tags"]
    assert [loc["id"] for loc in response.json()["data"]] == MAP_1

    response = await conditional(client, keys.full, pools, tags="leisure==swimming_pool")
    assert response.status_code == 200
    assert response.headers["etag"] != pools
    assert [loc["name"] for loc in response.json()["data"]] == ["Pool (closed)"]

    # The new validator holds until the next change.
    assert (await conditional(client, keys.full, new_everything)).status_code == 304


async def test_etag_changes_with_a_stored_location(client, keys, store, restore_map_1):
    everything = await etag_of(client, keys.full)
    mail = await etag_of(client, keys.full, tags="amenity==mailroom")
    await store[c.LOCATIONS].update_one({"_id": "loc-mail"}, {"$set": {"y": 21.5}})
    response = await conditional(client, keys.full, everything)
    assert response.status_code == 200
    assert response.headers["etag"] != everything
    assert response.json()["data"][2]["y"] == 21.5
    assert await etag_of(client, keys.full, tags="amenity==mailroom") != mail


async def test_etag_changes_with_the_map(client, keys, store, restore_map_1):
    everything = await etag_of(client, keys.full)
    await store[c.UNIT_MAPS].update_one({"_id": "map-1"}, {"$set": {"name": "Floor one"}})
    response = await conditional(client, keys.full, everything)
    assert response.status_code == 200
    changed = response.headers["etag"]
    assert changed != everything
    assert ids(response) == MAP_1
    await store[c.UNIT_MAPS].update_one({"_id": "map-1"}, {"$set": {"name": "Floor 1"}})
    assert (await conditional(client, keys.full, everything)).status_code == 304
    assert (await conditional(client, keys.full, changed)).status_code == 200


async def test_etag_is_back_after_the_restore(client, keys, store):
    """Runs in any order: the tests above leave map-1 as the fixture wrote it."""
    assert await store[c.UNIT_MAPS].find_one({"_id": "map-1"}) == next(
        m for m in UNIT_MAPS if m["_id"] == "map-1"
    )
    stored = await store[c.LOCATIONS].find({"unit_map_id": "map-1"}).sort("_id").to_list()
    assert stored == [FIXTURE[id_] for id_ in MAP_1]


# ---------------------------------------------------------------- GraphQL

LIST = """
query ($map: ID!, $tags: String, $page: Int, $perPage: Int) {
  locations(unitMapId: $map, tags: $tags, page: $page, perPage: $perPage) {
    etag data { id name tags { key value } }
  }
}"""


async def test_graphql_list_has_the_rest_etag(client, keys):
    for variables, expected in (
        ({"map": "map-1"}, MAP_1),
        ({"map": "map-1", "tags": "svc:amenity==YES,-amenity"}, ["loc-pool"]),
        ({"map": "map-1", "tags": "svc:amenity", "page": 2, "perPage": 2}, ["loc-pool"]),
        ({"map": "map-3", "tags": "svc:type==UNIT"}, ["loc-elm"]),
    ):
        body = await gql(client, keys.full, LIST, variables)
        assert "errors" not in body, body
        result = body["data"]["locations"]
        assert [loc["id"] for loc in result["data"]] == expected
        params = {
            "tags": variables.get("tags"),
            "page": variables.get("page"),
            "per_page": variables.get("perPage"),
        }
        rest_etag = await etag_of(
            client,
            keys.full,
            variables["map"],
            **{k: v for k, v in params.items() if v is not None},
        )
        assert f'"{result["etag"]}"' == rest_etag
    pool = (await gql(client, keys.full, LIST, {"map": "map-1", "tags": "leisure==swimming_pool"}))[
        "data"
    ]["locations"]["data"]
    assert pool == [
        {
            "id": "loc-pool",
            "name": "Loc-Pool",
            "tags": [
                {"key": "svc:amenity", "value": "yes"},
                {"key": "leisure", "value": "swimming_pool"},
            ],
        }
    ]


NESTED = """
query ($map: ID!, $tags: String) { unitMap(id: $map) { id locations(tags: $tags) { id } } }"""


async def test_graphql_nested_field(client, keys):
    for map_id, tags, expected in (
        ("map-1", None, MAP_1),
        ("map-1", "", MAP_1),
        ("map-1", "-svc:amenity", ["loc-101"]),
        ("map-1", "svc:amenity!=YES", ["loc-101", "loc-mail"]),
        ("map-2", "leisure", []),
        ("map-3", "svc:id==AB", ["loc-elm"]),
    ):
        body = await gql(client, keys.full, NESTED, {"map": map_id, "tags": tags})
        assert body == {
            "data": {"unitMap": {"id": map_id, "locations": [{"id": i} for i in expected]}}
        }


async def test_graphql_nested_field_of_every_map(client, keys):
    body = await gql(
        client,
        keys.full,
        '{ asset(id: "asset-1") { unitMaps { id locations(tags: "leisure") { id } } } }',
    )
    assert body == {
        "data": {
            "asset": {
                "unitMaps": [
                    {"id": "map-1", "locations": [{"id": "loc-gym"}, {"id": "loc-pool"}]},
                    {"id": "map-2", "locations": []},
                ]
            }
        }
    }


async def test_graphql_bad_filter(client, keys):
    tags_error = {"code": "BAD_USER_INPUT", "fields": {"tags": [bad("a=b"), bad("")]}}
    root = await gql(client, keys.full, LIST, {"map": "map-1", "tags": "a=b,,c"})
    assert root["data"] is None
    assert root["errors"][0]["message"] == "Resource validation failed"
    assert root["errors"][0]["extensions"] == tags_error
    nested = await gql(client, keys.full, NESTED, {"map": "map-1", "tags": "a=b,,c"})
    assert nested["data"] == {"unitMap": None}
    assert nested["errors"][0]["message"] == "Resource validation failed"
    assert nested["errors"][0]["extensions"] == tags_error
    long = await gql(client, keys.full, NESTED, {"map": "map-1", "tags": "k" * 256})
    assert long["errors"][0]["extensions"] == {
        "code": "BAD_USER_INPUT",
        "fields": {"tags": ["must be at most 255 characters"]},
    }
    paging = await gql(client, keys.full, LIST, {"map": "map-zzz", "page": 0, "tags": "!a"})
    assert paging["errors"][0]["extensions"] == {
        "code": "BAD_USER_INPUT",
        "fields": {"tags": [bad("!a")], "page": ["must be an integer of at least 1"]},
    }


async def test_graphql_access(client, keys):
    for query, variables in (
        (LIST, {"map": "map-1", "tags": "a=b"}),
        (NESTED, {"map": "map-1", "tags": "a=b"}),
    ):
        no_flag = await gql(client, keys.full, query, variables, flags=None)
        assert no_flag["errors"][0]["message"] == FLAG_MESSAGE
        assert no_flag["errors"][0]["extensions"] == {"code": "FLAG_REQUIRED"}
        no_key = await gql(client, None, query, variables)
        assert no_key["errors"][0]["extensions"] == {"code": "UNAUTHENTICATED"}
    hidden = await gql(client, keys.scoped, LIST, {"map": "map-1"})
    assert hidden["data"] is None
    assert hidden["errors"][0]["message"] == "Not found"
    assert hidden["errors"][0]["extensions"] == {"code": "NOT_FOUND"}
    own = await gql(client, keys.scoped, NESTED, {"map": "map-3"})
    assert own == {"data": {"unitMap": {"id": "map-3", "locations": [{"id": "loc-elm"}]}}}
    unknown = await gql(client, keys.full, LIST, {"map": "map-zzz"})
    assert unknown["errors"][0]["extensions"] == {"code": "NOT_FOUND"}


# ---------------------------------------------------------------- admin mutations

NEW = {
    "id": "loc-test-new",
    "assetId": "asset-1",
    "unitMapId": "map-2",
    "name": "Roof terrace",
    "x": 1.5,
    "y": -2.0,
    "floors": [{"id": "f-2"}, {"id": "f-1"}],
    "tags": [
        {"key": "Leisure", "value": "Terrace"},
        {"key": "svc:amenity", "value": "yes", "createdAt": T0, "updatedAt": T0},
    ],
    "createdAt": T0,
    "updatedAt": T1,
}


@pytest_asyncio.fixture(loop_scope="session")
async def restore_map_2(store) -> AsyncIterator[None]:
    yield
    await store[c.LOCATIONS].delete_many({"unit_map_id": "map-2"})
    await store[c.LOCATIONS].delete_many({"_id": {"$regex": "^loc-test-"}})
    fixture_map = next(m for m in UNIT_MAPS if m["_id"] == "map-2")
    await store[c.UNIT_MAPS].replace_one({"_id": "map-2"}, dict(fixture_map))


async def snapshot(store) -> tuple[list[dict], list[dict]]:
    locations = await store[c.LOCATIONS].find().sort("_id").to_list()
    maps = await store[c.UNIT_MAPS].find().sort("_id").to_list()
    return locations, maps


async def test_put_location_needs_service_admin(client, keys, store):
    before = await snapshot(store)
    for key in (keys.plain, keys.scoped):
        body = await gql(client, key, PUT_LOCATION, {"input": NEW})
        assert body["data"] is None
        assert body["errors"][0]["message"] == "Access denied: missing permission service.admin"
        assert body["errors"][0]["extensions"] == {"code": "FORBIDDEN"}
        body = await gql(client, key, DELETE_LOCATION, {"id": "loc-gym"})
        assert body["errors"][0]["extensions"] == {"code": "FORBIDDEN"}
    body = await gql(client, None, PUT_LOCATION, {"input": NEW})
    assert body["errors"][0]["extensions"] == {"code": "UNAUTHENTICATED"}
    body = await gql(client, keys.disabled, DELETE_LOCATION, {"id": "loc-gym"})
    assert body["errors"][0]["extensions"] == {"code": "INVALID_KEY"}
    assert await snapshot(store) == before


BAD_PUTS = [
    ({"unitMapId": "map-zzz"}, {"input.unitMapId": ['unknown unit map "map-zzz"']}),
    (
        {"unitMapId": "map-3"},
        {"input.unitMapId": ['unit map "map-3" belongs to asset "asset-2", not "asset-1"']},
    ),
    (
        {"floors": [{"id": "f-1"}, {"id": "e-1"}]},
        {"input.floors[1].id": ['floor "e-1" belongs to asset "asset-2", not "asset-1"']},
    ),
    ({"floors": [{"id": "f-9"}]}, {"input.floors[0].id": ['unknown floor "f-9"']}),
    ({"floors": []}, {"input.floors": ["must name at least one floor"]}),
    (
        {"tags": [{"key": "a", "value": "1"}, {"key": "", "value": "2"}]},
        {"input.tags[1].key": ["must not be empty"]},
    ),
]


@pytest.mark.parametrize(("changes", "fields"), BAD_PUTS, ids=[str(c) for c, _ in BAD_PUTS])
async def test_put_location_refuses_bad_input(client, keys, store, changes, fields):
    before = await snapshot(store)
    body = await gql(client, keys.full, PUT_LOCATION, {"input": {**NEW, **changes}})
    assert body["data"] is None
    assert body["errors"][0]["message"] == "Resource validation failed"
    assert body["errors"][0]["extensions"] == {"code": "BAD_USER_INPUT", "fields": fields}
    assert await snapshot(store) == before


async def test_put_and_delete_location(client, keys, store, restore_map_2):
    map_1_before = await etag_of(client, keys.full)
    empty = await etag_of(client, keys.full, "map-2")
    body = await gql(client, keys.full, PUT_LOCATION, {"input": NEW})
    assert body == {
        "data": {
            "putLocation": {
                "id": "loc-test-new",
                "assetId": "asset-1",
                "unitMapId": "map-2",
                "name": "Roof terrace",
                "x": 1.5,
                "y": -2.0,
                "floors": [{"id": "f-2"}, {"id": "f-1"}],
                "tags": [
                    {"key": "Leisure", "value": "Terrace", "createdAt": T0, "updatedAt": T1},
                    {"key": "svc:amenity", "value": "yes", "createdAt": T0, "updatedAt": T0},
                ],
                "createdAt": T0,
                "updatedAt": T1,
            }
        }
    }
    created = {
        "id": "loc-test-new",
        "asset_id": "asset-1",
        "unit_map_id": "map-2",
        "name": "Roof terrace",
        "x": 1.5,
        "y": -2.0,
        "floors": [{"id": "f-2"}, {"id": "f-1"}],
        "tags": [
            {"key": "Leisure", "value": "Terrace", "created_at": T0, "updated_at": T1},
            {"key": "svc:amenity", "value": "yes", "created_at": T0, "updated_at": T0},
        ],
        "created_at": T0,
        "updated_at": T1,
    }
    for path in PATHS:
        response = await conditional(client, keys.full, empty, "map-2", path=path)
        assert response.status_code == 200
        assert response.json() == {"data": [created]}
    assert ids(await get(client, keys.full, "map-2", tags="leisure==TERRACE")) == ["loc-test-new"]
    assert ids(await get(client, keys.full, "map-2", tags="-leisure")) == []
    assert ids(await get(client, keys.scoped, "map-3")) == ["loc-elm"]
    # Another map's list and validator are untouched.
    assert await etag_of(client, keys.full) == map_1_before

    # A put replaces the location by id.
    body = await gql(
        client, keys.full, PUT_LOCATION, {"input": {**NEW, "tags": [], "name": "Terrace"}}
    )
    assert body["data"]["putLocation"]["tags"] == []
    assert ids(await get(client, keys.full, "map-2", tags="leisure")) == []
    assert await store[c.LOCATIONS].count_documents({"_id": "loc-test-new"}) == 1

    assert await gql(client, keys.full, DELETE_LOCATION, {"id": "loc-test-new"}) == {
        "data": {"deleteLocation": True}
    }
    assert await gql(client, keys.full, DELETE_LOCATION, {"id": "loc-test-new"}) == {
        "data": {"deleteLocation": False}
    }
    response = await get(client, keys.full, "map-2")
    assert response.json() == {"data": []}
    assert ids(await get(client, keys.full)) == MAP_1


async def test_delete_location_input(client, keys, store):
    before = await snapshot(store)
    body = await gql(client, keys.full, DELETE_LOCATION, {"id": "x" * 256})
    assert body["errors"][0]["extensions"] == {
        "code": "BAD_USER_INPUT",
        "fields": {"id": ["must be at most 255 characters"]},
    }
    body = await gql(client, keys.full, DELETE_LOCATION, {"id": "loc-none"})
    assert body == {"data": {"deleteLocation": False}}
    assert await snapshot(store) == before


async def test_put_location_duplicate_tag_names_the_input(client, keys, store):
    before = await snapshot(store)
    tags = [{"key": "a", "value": "1"}, {"key": "a", "value": "2"}]
    body = await gql(client, keys.full, PUT_LOCATION, {"input": {**NEW, "tags": tags}})
    assert await snapshot(store) == before
    assert body["errors"][0]["extensions"] == {
        "code": "BAD_USER_INPUT",
        "fields": {"input.tags[1].key": ['duplicate "a" (also at input.tags[0])']},
    }


async def test_tag_keys_that_differ_only_in_case(client, keys, store, restore_map_2):
    """Either refused at the put, or both tags are seen by the case-insensitive filter."""
    tags = [{"key": "A", "value": "1"}, {"key": "a", "value": "2"}]
    body = await gql(
        client, keys.full, PUT_LOCATION, {"input": {**NEW, "id": "loc-test-case", "tags": tags}}
    )
    if "errors" in body:
        assert body["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
        assert list(body["errors"][0]["extensions"]["fields"]) == ["input.tags[1].key"]
        return
    for term in ("a==1", "a==2", "A==1", "A==2"):
        assert ids(await get(client, keys.full, "map-2", tags=term)) == ["loc-test-case"], term
