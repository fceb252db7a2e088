"""putLocation places a location only on a floor that a level of its map is on (issue 45,
point 11): it accepted any floor of the asset, and `floorgate check` then reported the
location. The rule is the importer's (storage/datasets/validation.py), so `floorgate
import` keeps it too (tests/storage/test_dataset.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio

from storage import collections as c
from storage.imports.integrity import find_dangling
from tests.fixtures import UNIT_MAPS
from tests.resolvers.test_locations import NEW, PUT_LOCATION, gql, snapshot

# map-2 as if drawn with two levels, on floors f-1 and f-2 of asset-1 (f-3 is not drawn).
LEVELS = [{"uid": "L1", "floor_id": "f-1"}, {"uid": "L2", "floor_id": "f-2"}]


@pytest_asyncio.fixture(loop_scope="session")
async def drawn_map_2(store) -> AsyncIterator[None]:
    """map-2 with levels on f-1 and f-2, as the fixture wrote it afterwards."""
    await store[c.FLOORS].replace_one(
        {"_id": "f-3"},
        {"_id": "f-3", "asset_id": "asset-1", "name": "Floor 3", "sort": 3},
        upsert=True,
    )
    await store[c.UNIT_MAPS].update_one({"_id": "map-2"}, {"$set": {"levels": LEVELS}})
    yield
    await store[c.LOCATIONS].delete_many({"_id": {"$regex": "^loc-test-"}})
    fixture_map = next(m for m in UNIT_MAPS if m["_id"] == "map-2")
    await store[c.UNIT_MAPS].replace_one({"_id": "map-2"}, dict(fixture_map))
    await store[c.FLOORS].delete_one({"_id": "f-3"})


async def test_a_floor_no_level_of_the_map_is_on_is_refused_on_its_field(
    client, keys, store, drawn_map_2
):
    before = await snapshot(store)
    floors = [{"id": "f-1"}, {"id": "f-3"}]
    body = await gql(client, keys.full, PUT_LOCATION, {"input": {**NEW, "floors": floors}})
    assert body == {
        "data": None,
        "errors": [
            {
                "message": "Resource validation failed",
                "locations": [{"line": 3, "column": 3}],
                "path": ["putLocation"],
                "extensions": {
                    "code": "BAD_USER_INPUT",
                    "fields": {
                        "input.floors[1].id": [
                            'floor "f-3" is not a level of unit map "map-2" '
                            '(its levels are on "f-1", "f-2")'
                        ]
                    },
                },
            }
        ],
    }
    assert await snapshot(store) == before


async def test_a_floor_of_a_level_is_stored_and_passes_the_check(client, keys, store, drawn_map_2):
    body = await gql(client, keys.full, PUT_LOCATION, {"input": NEW})  # on f-2 and f-1
    assert body["data"]["putLocation"]["floors"] == [{"id": "f-2"}, {"id": "f-1"}]
    dangling = (await find_dangling(store)).dangling
    assert [d for d in dangling if d.collection == c.LOCATIONS] == []


async def test_an_unknown_floor_is_named_once_as_unknown(client, keys, store, drawn_map_2):
    before = await snapshot(store)
    body = await gql(client, keys.full, PUT_LOCATION, {"input": {**NEW, "floors": [{"id": "f-9"}]}})
    assert body["errors"][0]["extensions"] == {
        "code": "BAD_USER_INPUT",
        "fields": {"input.floors[0].id": ['unknown floor "f-9"']},
    }
    assert await snapshot(store) == before
