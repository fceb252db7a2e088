"""The events log of assignment changes and its fan-out (issue 32): `floorgate import`
records its changes; a subscriber that does not keep up is cut off while the others get
everything; a database restart loses no event and repeats none."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from storage import collections as c
from storage.attributes import events, hub
from storage.attributes.hub import EventHub, Overflowed
from storage.database import connect
from storage.embedded.server import EmbeddedServer
from storage.imports.importer import import_data
from storage.settings import Settings
from storage.transactions import atomically
from tests._dbserver import fresh_store
from tests.benchmarks.imports.import_demo import exclusive_dataset


def change(kind: str, unit: str, attribute: str = "a", asset: str = "a1") -> events.Event:
    assignment = {"group_id": "g", "attribute_id": attribute, "asset_id": asset, "unit_id": unit}
    return events.change(kind, assignment)


async def logged(store) -> list[tuple[int, str, str, str]]:
    found = await store[c.ATTRIBUTE_EVENTS].find({}).sort("_id", 1).to_list()
    return [(e["_id"], e["change"], e["attribute_id"], e["unit_id"]) for e in found]


async def test_an_import_records_its_changes(db_server, tmp_path):
    async with fresh_store(db_server) as store:
        await import_data(store, exclusive_dataset("vacant", 2, floor_count=1), tmp_path)
        assert await logged(store) == [
            (1, "assigned", "vacant", "unit-00000"),
            (2, "assigned", "vacant", "unit-00001"),
        ]
        # Again: nothing changes, nothing is recorded; then a replacement of both.
        await import_data(store, exclusive_dataset("vacant", 2, floor_count=1), tmp_path)
        await import_data(store, exclusive_dataset("leased", 2, floor_count=1), tmp_path)
        assert (await logged(store))[2:] == [  # per unit, in the file's order
            (3, "unassigned", "vacant", "unit-00000"),
            (4, "assigned", "leased", "unit-00000"),
            (5, "unassigned", "vacant", "unit-00001"),
            (6, "assigned", "leased", "unit-00001"),
        ]
        assert await events.latest(store) == 6


async def collect(stream, into: list, count: int) -> None:
    async for event in stream:
        into.append(event["_id"])
        if len(into) == count:
            return


async def test_a_slow_subscriber_is_cut_off_and_nobody_waits(db_server, monkeypatch):
    monkeypatch.setattr(hub, "MAX_QUEUED", 3)
    async with fresh_store(db_server) as store:
        events_hub = EventHub(store)
        slow = events_hub.changes("g", lambda event: True, None)
        first = asyncio.create_task(anext(slow))  # subscribed; then it reads nothing
        fast: list[int] = []
        reader = asyncio.create_task(
            collect(events_hub.changes("g", lambda e: True, None), fast, 10)
        )
        await asyncio.wait_for(events_hub.started.wait(), 5)
        await asyncio.sleep(0.2)
        for number in range(10):
            await atomically(
                store,
                lambda session, n=number: events.record(
                    store, [change("assigned", f"u{n}")], session
                ),
            )
        await asyncio.wait_for(reader, 5)
        assert fast == list(range(1, 11))
        assert (await asyncio.wait_for(first, 5))["_id"] == 1
        with pytest.raises(Overflowed):
            while True:
                await asyncio.wait_for(anext(slow), 5)
        assert len(events_hub.subscribers) == 0  # both gone: nothing kept for them
        await events_hub.close()


# serial: a server of its own stopped and started; beside other workers the writes after
# the restart waited on transaction retries for minutes once (6 s alone).
@pytest.mark.serial
async def test_a_database_restart_loses_no_event_and_repeats_none(tmp_path):
    server = EmbeddedServer(tmp_path / "db")
    server.start()
    store = connect(server.uri, Settings(database_name="events_restart", db_timeout_ms=1500))
    try:
        await store.ensure_indexes()
        events_hub = EventHub(store)
        seen: list[int] = []
        reader = asyncio.create_task(
            collect(events_hub.changes("g", lambda e: True, None), seen, 6)
        )
        await asyncio.wait_for(events_hub.started.wait(), 10)

        async def write(unit: str) -> None:
            async def work(session):
                await events.record(store, [change("assigned", unit)], session)

            await atomically(store, work)

        for unit in ("u1", "u2", "u3"):
            await write(unit)
        await asyncio.sleep(0.3)
        server.stop()  # while the stream is open
        server.start()
        for _attempt in range(100):  # the client finds the server again
            if await store.ping():
                break
            await asyncio.sleep(0.1)
        await write("u4")
        await write("u5")
        await write("u6")
        await asyncio.wait_for(reader, 20)
        assert seen == [1, 2, 3, 4, 5, 6]
        await events_hub.close()
    finally:
        with contextlib.suppress(Exception):
            await store.close()
        server.stop()
