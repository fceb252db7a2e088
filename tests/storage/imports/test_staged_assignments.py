"""A staged import's assignments (storage/imports/staged_assignments.py): E21 and E22 take no
lease, so they may write an asset's assignments between its import's plan and its switch,
or between two of its batches. The switch still finishes, its result is exactly the
import's (the import wins, as if it had committed after them), the events log follows the
data, and a reader of one unit's assignments never finds neither its old attribute nor
its new one.

The demo, half of it (two floors a building), is imported (version 1), then version 2
(every unit's view replaced) is imported staged, in batches of 50 operations; the E21/E22
writes go through the real app."""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio

from resolvers.auth.keys import create_key
from resolvers.auth.permissions import ALL_PERMISSIONS
from rest.app import create_app
from storage import collections as col
from storage.database import Store
from storage.demo.install import ASSET_ID
from storage.embedded.server import EmbeddedServer
from storage.imports import switches
from storage.imports.importer import import_data, import_dataset
from tests.conftest import with_schema
from tests.storage.imports.staged import (
    NONE_LEFT,
    Versions,
    contents,
    demo_versions,
    fix_clock_and_batches,
    leftovers,
    staging_settings,
    staging_store,
    version_one,
)

SMALL = 10  # documents: the demo goes the staged way
FLAG = {"Experimental-Flags": "unit-attributes-resource"}
LOGGED = (col.ATTRIBUTE_EVENTS, col.COUNTERS)  # differ when E21/E22 wrote meanwhile


@pytest.fixture(autouse=True)
def fixed_clock_and_small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    fix_clock_and_batches(monkeypatch)


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def versions(
    db_server: EmbeddedServer, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Versions]:
    async with demo_versions(db_server, tmp_path_factory.mktemp("versions")) as found:
        yield found


@pytest_asyncio.fixture(loop_scope="session")
async def store(db_server: EmbeddedServer, versions: Versions) -> AsyncIterator[Store]:
    async with version_one(db_server, versions) as store:
        yield store


@contextlib.asynccontextmanager
async def api_client(store: Store) -> AsyncIterator[httpx.AsyncClient]:
    """The real app on the store (its schema built, a budget of 5 s for its requests), with
    a key that may write assignments."""
    key = (await create_key(store, "writer", list(ALL_PERMISSIONS), None)).secret
    app = with_schema(create_app(staging_settings(store.db.name, budget=5.0), store))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as client:
        client.headers.update({"API-Key": key, **FLAG})
        yield client


@pytest_asyncio.fixture(loop_scope="session")
async def api(store: Store) -> AsyncIterator[httpx.AsyncClient]:
    async with api_client(store) as client:
        yield client


async def e21(api: httpx.AsyncClient, group: str, unit: str, attribute: str) -> None:
    item = {"group_id": group, "attribute_id": attribute, "asset_id": ASSET_ID, "unit_id": unit}
    answer = await api.put(f"/v1/units/attribute-groups/{group}/units", json={"data": [item]})
    assert answer.status_code == 200, answer.text


async def e22(api: httpx.AsyncClient, group: str, unit: str, attribute: str) -> None:
    item = {"group_id": group, "attribute_id": attribute, "asset_id": ASSET_ID, "unit_id": unit}
    url = f"/v1/units/attribute-groups/{group}/units/remove"
    answer = await api.put(url, json={"data": [item]})
    assert answer.status_code == 204, answer.text


def before_the_announcement(monkeypatch: pytest.MonkeyPatch, write: Any) -> list[int]:
    """Run `write()` once the import is planned and staged, before its switch is announced."""
    announce = switches.announce
    done: list[int] = []

    async def meanwhile(store: Store, staged: switches.Staged) -> None:
        await write()
        done.append(1)
        await announce(store, staged)

    monkeypatch.setattr(switches, "announce", meanwhile)
    return done


async def replayed(store: Store) -> Counter[tuple[str, ...]]:
    """The assignments the events log describes, replayed from its first event."""
    held: Counter[tuple[str, ...]] = Counter()
    async for event in store[col.ATTRIBUTE_EVENTS].find({}).sort("_id", 1):
        key = (event["group_id"], event["attribute_id"], event["asset_id"], event["unit_id"])
        held[key] += 1 if event["change"] == "assigned" else -1
        assert held[key] in (0, 1), (event, held[key])  # never assigned twice, nor removed twice
    return +held


async def assignments(store: Store) -> Counter[tuple[str, ...]]:
    fields = ("group_id", "attribute_id", "asset_id", "unit_id")
    return Counter([tuple(doc[f] for f in fields) async for doc in store[col.ASSIGNMENTS].find({})])


def views(snapshot: dict[str, Any]) -> dict[str, str]:
    return {
        d["unit_id"]: d["attribute_id"]
        for d in snapshot[col.ASSIGNMENTS]
        if d["group_id"] == "view"
    }


def without_log(snapshot: dict[str, Any]) -> dict[str, Any]:
    return {name: docs for name, docs in snapshot.items() if name not in LOGGED}


async def test_e21_and_e22_between_plan_and_switch_the_import_wins_and_the_switch_ends(
    store: Store, versions: dict[int, Any], api: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """E21 gives a unit a third view (one neither version gives it: as planned, the batch
    would break the one-attribute-per-unit index and the switch would stay "applying"),
    E21 gives a view to a unit the import leaves alone, and E22 removes a feature the
    import keeps (planned as unchanged)."""
    old, new = views(versions[1][1]), views(versions[2][1])
    unit = next(u for u in sorted(old) if old[u] == "view-city")
    third = ({"view-city", "view-courtyard", "view-pool"} - {old[unit], new[unit]}).pop()
    untouched = next(d["_id"] for d in versions[1][1][col.UNITS] if d["_id"] not in old)
    feature = next(d for d in versions[1][1][col.ASSIGNMENTS] if d["group_id"] == "features")

    async def write() -> None:
        await e21(api, "view", unit, third)
        await e21(api, "view", untouched, "view-pool")
        await e22(api, "features", feature["unit_id"], feature["attribute_id"])
        assert {
            d["attribute_id"]
            async for d in store[col.ASSIGNMENTS].find({"unit_id": unit, "group_id": "view"})
        } == {third}

    wrote = before_the_announcement(monkeypatch, write)
    await import_dataset(store, versions[2][0], max_documents=SMALL)
    assert wrote == [1]
    assert await leftovers(store) == NONE_LEFT  # nothing stuck
    seen = await contents(store)
    expected = without_log(versions[2][1])
    pool = {"group_id": "view", "attribute_id": "view-pool", "asset_id": ASSET_ID}
    expected[col.ASSIGNMENTS] = sorted(
        [*expected[col.ASSIGNMENTS], {**pool, "unit_id": untouched, "exclusive": True}],
        key=lambda d: sorted(d.items()),
    )
    seen[col.ASSIGNMENTS] = sorted(seen[col.ASSIGNMENTS], key=lambda d: sorted(d.items()))
    assert without_log(seen) == expected  # the import's result, and E21's untouched unit
    assert await replayed(store) == await assignments(store)  # the log follows the data
    changes = [
        (e["change"], e["attribute_id"])
        async for e in store[col.ATTRIBUTE_EVENTS]
        .find({"unit_id": unit, "group_id": "view"})
        .sort("_id", 1)
    ]
    assert changes[-4:] == [
        ("unassigned", "view-city"),  # E21
        ("assigned", third),
        ("unassigned", third),  # the switch
        ("assigned", new[unit]),
    ]


async def test_e21_between_batches_never_breaks_the_switch(
    store: Store, versions: dict[int, Any], api: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After each batch, E21 gives every unit not yet switched a third view: the batch that
    switches a unit replaces it, a unit switched already keeps E21's (it came after)."""
    old, new = views(versions[1][1]), views(versions[2][1])
    apply_batch = switches.apply_batch
    thirds = {
        u: ({"view-city", "view-courtyard", "view-pool"} - {old[u], new[u]}).pop() for u in old
    }
    written: dict[str, str] = {}

    async def then_e21(store: Store, switch: dict[str, Any], batch: dict[str, Any]) -> None:
        await apply_batch(store, switch, batch)
        stored = {
            d["unit_id"]: d["attribute_id"]
            async for d in store[col.ASSIGNMENTS].find({"group_id": "view"})
        }
        pending = [u for u in sorted(old) if stored.get(u) == old[u] and u not in written]
        if pending and len(written) < 3:
            await e21(api, "view", pending[-1], thirds[pending[-1]])
            written[pending[-1]] = thirds[pending[-1]]

    monkeypatch.setattr(switches, "apply_batch", then_e21)
    await import_dataset(store, versions[2][0], max_documents=SMALL)
    assert await leftovers(store) == NONE_LEFT
    final = {
        d["unit_id"]: d["attribute_id"]
        async for d in store[col.ASSIGNMENTS].find({"group_id": "view"})
    }
    assert len(written) == 3
    assert final == new  # every E21 came before its unit's batch: the import won each
    assert await replayed(store) == await assignments(store)


async def test_a_reader_of_one_unit_never_finds_neither_attribute(
    store: Store, versions: dict[int, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between any two batches every unit holds exactly one view: its old one or its new
    one (each unit's replacement is one operation of one batch)."""
    old, new = views(versions[1][1]), views(versions[2][1])
    apply_batch = switches.apply_batch
    seen: list[Counter[str]] = []

    async def checked(store: Store, switch: dict[str, Any], batch: dict[str, Any]) -> None:
        await apply_batch(store, switch, batch)
        held: dict[str, list[str]] = {}
        async for doc in store[col.ASSIGNMENTS].find({"group_id": "view"}):
            held.setdefault(doc["unit_id"], []).append(doc["attribute_id"])
        assert set(held) == set(old)  # no unit without its view
        for unit, attributes in held.items():
            assert len(attributes) == 1 and attributes[0] in (old[unit], new[unit]), unit
        seen.append(Counter("new" if held[u] == [new[u]] else "old" for u in old))

    monkeypatch.setattr(switches, "apply_batch", checked)
    await import_dataset(store, versions[2][0], max_documents=SMALL)
    assert len(seen) > 5
    assert any(0 < counts["new"] < len(old) for counts in seen)  # seen half switched
    assert seen[-1]["new"] == len(old)
    assert await contents(store) == versions[2][1]


def rule_dataset(exclusive: bool, units: list[str]) -> dict[str, Any]:
    """One asset of eight units and a group of two attributes, `exclusive` or not,
    assigning `a` to `units`."""
    return {
        "assets": [{"id": "r1", "market": "multifamily", "name": "Rules"}],
        "floors": [{"id": "r1-f1", "asset_id": "r1", "name": "1", "sort": 1}],
        "units": [
            {"id": f"r1-u{n}", "asset_id": "r1", "floor_id": "r1-f1", "name": str(n)}
            for n in range(8)
        ],
        "attribute_groups": [
            {
                "id": "rule",
                "group_name": "Rule",
                "one_attribute_per_unit": exclusive,
                "attributes": [
                    {"attribute_id": name, "attribute_name": name, "attribute_key": name}
                    for name in ("a", "b")
                ],
            }
        ],
        "assignments": [
            {"group_id": "rule", "attribute_id": "a", "asset_id": "r1", "unit_id": unit}
            for unit in units
        ],
    }


async def test_a_group_made_exclusive_keeps_one_attribute_of_a_unit_e21_crowded(
    db_server: EmbeddedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The import makes a group exclusive; meanwhile E21 (the group not exclusive yet)
    gives a unit the import does not name a second attribute. As planned, setting the
    flag would break the index; the switch keeps the attribute assigned first instead (the
    events log tells), and logs the removal of the other."""
    first = rule_dataset(False, ["r1-u0"])
    second = rule_dataset(True, [f"r1-u{n}" for n in range(1, 8)])  # r1-u0: kept as stored
    async with staging_store(db_server) as store, staging_store(db_server) as one:
        for target in (store, one):
            await import_data(target, first, tmp_path)
        async with api_client(store) as api:
            item = {"group_id": "rule", "attribute_id": "b", "asset_id": "r1", "unit_id": "r1-u0"}

            async def write() -> None:
                url = "/v1/units/attribute-groups/rule/units"
                answer = await api.put(url, json={"data": [item]})
                assert answer.status_code == 200, answer.text

            before_the_announcement(monkeypatch, write)
            await import_data(store, second, tmp_path, max_documents=5)
        await import_data(one, second, tmp_path)
        assert await leftovers(store) == NONE_LEFT
        assert without_log(await contents(store)) == without_log(await contents(one))
        assert await replayed(store) == await assignments(store)
        last = await store[col.ATTRIBUTE_EVENTS].find_one({"unit_id": "r1-u0"}, sort=[("_id", -1)])
        assert (last["change"], last["attribute_id"]) == ("unassigned", "b")
