"""Nested lists batch (issue 15 item 4): a list under a list costs one query per level.

The commands are counted by a listener on the real embedded database: the units of
1 map and of 20 maps (100 units each) are one command alike, and the answer is
exactly the stored units, as E15 gives them map by map.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from typing import Any

import httpx
import pytest
import pytest_asyncio
from pymongo import ReplaceOne, monitoring

from resolvers import loaders
from resolvers.auth.keys import create_key
from resolvers.auth.permissions import ALL_PERMISSIONS
from rest.app import create_app
from storage import collections as c
from storage.database import connect
from tests.fixtures import T0, T1

DATABASE = "floorgate_nested"
MAPS = 20
UNITS_PER_MAP = 100
STAMPS = {"created_at": T0, "updated_at": T1}


def unit_id(map_no: int, n: int) -> str:
    # Ids out of insertion order (n first), so the id order is the server's work.
    return f"u{n:03d}-{map_no:02d}"


def map_units(map_no: int) -> list[dict[str, str]]:
    """A map's units as the API answers them: by id, `id` and `name`."""
    return [
        {"id": unit_id(map_no, n), "name": f"{map_no}.{n}"}
        for n in sorted(range(UNITS_PER_MAP), key=lambda n: unit_id(map_no, n))
    ]


class Commands(monitoring.CommandListener):
    """What reached the database: (command, collection), the `$lookup`'s for an
    aggregate; `getMore`s, the key lookup (cached per process) and the poll of staged
    imports' switches (storage/cache/switch_gate.py, with the record of the process's
    request budget before it) left out."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        if event.database_name != DATABASE or event.command_name == "getMore":
            return
        target = event.command.get(event.command_name)
        if event.command_name == "aggregate":
            target = next(
                stage["$lookup"]["from"]
                for stage in event.command["pipeline"]
                if "$lookup" in stage
            )
        if target not in ("api_keys", "switches", "readers"):  # (the process's poll)
            self.seen.append((event.command_name, target))

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        pass

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        pass


@dataclass
class Nested:
    client: httpx.AsyncClient
    commands: Commands
    key: str
    get_mores: list[str]

    async def graphql(self, query: str) -> dict[str, Any]:
        """The answer's data; the commands of this request only."""
        self.commands.seen.clear()
        response = await self.client.post(
            "/graphql", json={"query": query}, headers={"API-Key": self.key}
        )
        assert response.status_code == 200
        body = response.json()
        assert "errors" not in body, body
        return body["data"]


class GetMores(monitoring.CommandListener):
    def __init__(self, seen: list[str]) -> None:
        self.seen = seen

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        if event.database_name == DATABASE and event.command_name == "getMore":
            self.seen.append(event.command_name)

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        pass

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        pass


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def nested(db_server, settings) -> AsyncIterator[Nested]:
    """An app on its own database: asset `a1` with 20 maps of 100 units; each map also
    lists a unit of asset `a2` and a missing id, which its units leave out; `a2` has one
    map of 3 units. Maps have backgrounds and level tags stored out of order."""
    commands = Commands()
    get_mores: list[str] = []
    local = replace(settings, database_name=DATABASE, read_cache_mb=0)  # counts commands
    store = connect(db_server.uri, local, event_listeners=[commands, GetMores(get_mores)])
    await store.client.drop_database(DATABASE)
    await store.ensure_indexes()
    await store[c.ASSETS].insert_many(
        [
            {"_id": "a1", "market": "m", "name": "One", **STAMPS},
            {"_id": "a2", "market": "m", "name": "Two", **STAMPS},
        ]
    )
    # Upserts, not one insert: on a loaded CI machine this 2,003-document insert into a
    # freshly dropped database once failed on a duplicate of its first id, as a driver's
    # retry of an insert that had landed would. Writing each unit by id makes a retried
    # seed harmless.
    units = [
        {
            "_id": unit_id(m, n),
            "asset_id": "a1",
            "floor_id": f"f{m}",
            "name": f"{m}.{n}",
            **STAMPS,
        }
        for m in range(MAPS)
        for n in range(UNITS_PER_MAP)
    ] + [
        {"_id": f"other-{n}", "asset_id": "a2", "floor_id": "g", "name": f"o{n}", **STAMPS}
        for n in range(3)
    ]
    await store[c.UNITS].bulk_write([ReplaceOne({"_id": u["_id"]}, u, upsert=True) for u in units])
    await store[c.UNIT_MAPS].insert_many(
        [
            {
                "_id": f"m{m:02d}",
                "asset_id": "a1",
                "background_id": None,
                "name": f"M{m}",
                "style": "a",
                "style_type": "floor_plate",
                "tags": [],
                "routing_tier": "basic",
                "unit_ids": ["other-0", "missing"] + [unit_id(m, n) for n in range(UNITS_PER_MAP)],
                **STAMPS,
            }
            for m in range(MAPS)
        ]
        + [
            {
                "_id": "n00",
                "asset_id": "a2",
                "background_id": None,
                "name": "N",
                "style": "a",
                "style_type": "stack",
                "tags": [],
                "routing_tier": "basic",
                "unit_ids": ["other-2", "other-0", "other-1"],
                **STAMPS,
            },
        ]
    )
    await store[c.BACKGROUNDS].insert_many(
        [
            {"_id": f"bg{m:02d}-{name}", "unit_map_id": f"m{m:02d}", "name": name, **STAMPS}
            for m in range(MAPS)
            for name in ("z", "a")
        ]
    )
    await store[c.LEVEL_TAGS].insert_many(
        [
            {"unit_map_id": f"m{m:02d}", "key": key, "name": key, "values": [], **STAMPS}
            for m in range(MAPS)
            for key in ("floor", "building")
        ]
    )
    key = (await create_key(store, "full", list(ALL_PERMISSIONS), None)).secret
    app = create_app(local, store)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as client:
        yield Nested(client, commands, key, get_mores)
    await store.client.drop_database(DATABASE)
    await store.close()


def maps_query(count: int) -> str:
    return (
        f'{{ unitMaps(assetId: "a1", perPage: {count}) {{ data {{ id units {{ id name }} }} }} }}'
    )


@pytest.mark.parametrize("count", [1, 20])
async def test_units_of_maps_are_one_query_however_many_maps(nested, count):
    nested.get_mores.clear()
    data = await nested.graphql(maps_query(count))
    assert data["unitMaps"]["data"] == [
        {"id": f"m{m:02d}", "units": map_units(m)} for m in range(count)
    ]
    # The maps page, then the units of every map of the page: one command per level,
    # the whole answer in its first reply.
    assert nested.commands.seen == [("find", c.UNIT_MAPS), ("aggregate", c.UNITS)]
    assert nested.get_mores == []


async def test_nested_units_equal_the_rest_answers_map_by_map(nested):
    data = await nested.graphql(maps_query(MAPS))
    for unit_map in data["unitMaps"]["data"]:
        response = await nested.client.get(
            f"/v1/maps/{unit_map['id']}/units",
            params={"per-page": "1000"},
            headers={"API-Key": nested.key},
        )
        assert response.status_code == 200
        rest = [{"id": unit["id"], "name": unit["name"]} for unit in response.json()["data"]]
        assert unit_map["units"] == rest


async def test_asset_maps_with_units_backgrounds_and_level_tags(nested):
    data = await nested.graphql(
        '{ asset(id: "a1") { unitMaps { id units { id } backgrounds { id } levelTags { key } } } }'
    )
    maps = data["asset"]["unitMaps"]
    assert [unit_map["id"] for unit_map in maps] == [f"m{m:02d}" for m in range(MAPS)]
    for m, unit_map in enumerate(maps):
        assert unit_map["units"] == [{"id": unit["id"]} for unit in map_units(m)]
        assert unit_map["backgrounds"] == [{"id": f"bg{m:02d}-a"}, {"id": f"bg{m:02d}-z"}]
        assert unit_map["levelTags"] == [{"key": "building"}, {"key": "floor"}]
    # The asset, its maps, then one command per relation of the 20 maps: a find for the
    # 20 map ids, an aggregate for the 2,002 unit ids (more than 25 values).
    assert sorted(nested.commands.seen) == [
        ("aggregate", c.UNITS),
        ("find", c.ASSETS),
        ("find", c.BACKGROUNDS),
        ("find", c.LEVEL_TAGS),
        ("find", c.UNIT_MAPS),
    ]


async def test_a_short_list_is_one_find(nested):
    data = await nested.graphql('{ unitMap(id: "n00") { units { id name } } }')
    assert data["unitMap"]["units"] == [
        {"id": "other-0", "name": "o0"},
        {"id": "other-1", "name": "o1"},
        {"id": "other-2", "name": "o2"},
    ]
    assert nested.commands.seen == [("find", c.UNIT_MAPS), ("find", c.UNITS)]


async def test_past_the_command_size_the_values_go_by_several_commands(nested, monkeypatch):
    """2,002 unit ids at 500 values a command: 5 aggregates, the same answer."""
    monkeypatch.setattr(loaders, "VALUES_PER_COMMAND", 500)
    data = await nested.graphql(maps_query(MAPS))
    assert data["unitMaps"]["data"] == [
        {"id": f"m{m:02d}", "units": map_units(m)} for m in range(MAPS)
    ]
    assert nested.commands.seen == [("find", c.UNIT_MAPS)] + [("aggregate", c.UNITS)] * 5


async def test_grouped_relations_in_chunks_keep_their_order(nested, monkeypatch):
    """Backgrounds and level tags of 20 maps at 5 values a `$lookup`: one aggregate per
    relation, each map's documents in the relation's order."""
    monkeypatch.setattr(loaders, "LOOKUP_CHUNK", 5)
    data = await nested.graphql(
        '{ unitMaps(assetId: "a1", perPage: 20) { data { id backgrounds { id name } '
        "levelTags { key } } } }"
    )
    assert data["unitMaps"]["data"] == [
        {
            "id": f"m{m:02d}",
            "backgrounds": [
                {"id": f"bg{m:02d}-a", "name": "a"},
                {"id": f"bg{m:02d}-z", "name": "z"},
            ],
            "levelTags": [{"key": "building"}, {"key": "floor"}],
        }
        for m in range(MAPS)
    ]
    assert sorted(nested.commands.seen) == [
        ("aggregate", c.BACKGROUNDS),
        ("aggregate", c.LEVEL_TAGS),
        ("find", c.UNIT_MAPS),
    ]
