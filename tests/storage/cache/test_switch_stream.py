"""Issue 45, point 12: an idle process neither polls `switches` (it polled every 0.75 s)
nor asks its change stream more than every STREAM_WAIT_MS (storage/cache/switch_gate.py,
change_watch.py).

A process whose reads stopped stops polling, and its stream sends one getMore per wait;
its next read polls once and the poller keeps what it knows fresh again, so reads never
find it stale while they come. A switch another client announces is known through the
stream at once (well within FRESH_SECONDS), and a read of its asset waits for it; with
the stream down, the poller sees such a switch itself."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from pymongo import AsyncMongoClient

import storage.cache.switch_gate as switch_gate
from storage import collections as col
from storage.cache import cached_reads
from storage.cache.change_watch import STREAM_WAIT_MS
from storage.database import Store, connect
from storage.embedded.server import EmbeddedServer
from storage.settings import Settings

SWITCH = {
    "_id": "a1",
    "token": "t1",
    "state": "applying",
    "batches": 2,
    "applied": 0,
    "assets": ["a1"],
    "maps": [],
    "collections": [col.UNITS],
}
HELD = 0.5  # how long the other client's switch applies


@pytest.fixture(scope="module")
def db_server(own_db_server: EmbeddedServer) -> EmbeddedServer:
    """The embedded server ends a waiting getMore at any write, to any database: on the
    shared one, other tests' writes woke this module's idle stream (4 getMores in 7 s)."""
    return own_db_server


@pytest_asyncio.fixture(loop_scope="session")
async def store(db_server: EmbeddedServer) -> AsyncIterator[Store]:
    """A store with its read cache (so its change stream), a unit of asset a1, its
    stream up and its first poll made."""
    settings = Settings(database_name=f"s_{uuid.uuid4().hex[:12]}", request_timeout_seconds=5)
    store = connect(db_server.uri, settings)
    await store["units"].insert_one({"_id": "u1", "asset_id": "a1", "name": "U1"})
    await cached_reads.find_one(store, col.UNITS, {"_id": "u1"})  # the stream, the poller
    deadline = time.monotonic() + 10
    while not store.cache.live:
        assert time.monotonic() < deadline, "the stream never came up"
        await asyncio.sleep(0.05)
    await store.switches._polled_since(time.monotonic())  # a poll with the stream up
    assert store.switches.vouched()
    yield store
    await store.client.drop_database(store.db.name)
    await store.close()


@pytest_asyncio.fixture(loop_scope="session")
async def other(db_server: EmbeddedServer) -> AsyncIterator[AsyncMongoClient]:
    """Another client (another process, an importer): seen only through the stream."""
    client: AsyncMongoClient = AsyncMongoClient(db_server.uri)
    yield client
    await client.close()


async def reading_for(store: Store, seconds: float) -> tuple[int, int]:
    """Polls made and samples of stale knowledge (a read would have asked the database)
    over `seconds` of a process whose reads check the gate every 50 ms."""
    polls, stale = store.switches.polls, 0
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        stale += not store.switches.clear()
        await asyncio.sleep(0.05)
    return store.switches.polls - polls, stale


async def seen_within(store: Store, seconds: float) -> float:
    """How long until the gate knows a switch (its reads no longer pass unchecked)."""
    start = time.monotonic()
    while store.switches.clear() or not store.switches.known:
        assert time.monotonic() - start < seconds, "the switch was not seen in time"
        await asyncio.sleep(0.005)
    return time.monotonic() - start


def get_mores(store: Store) -> int:
    timing = store.timings.by_command.get("getMore")
    return timing.count if timing is not None else 0


async def test_an_idle_process_stops_polling_until_its_next_read(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before issue 45 it polled every 0.75 s beside a getMore every 0.5 s: here nine
    polls and fourteen getMores in 7 s. Quiet after 1 s here (QUIET_SECONDS is 6 s)."""
    monkeypatch.setattr(switch_gate, "QUIET_SECONDS", 1.0)
    gate = store.switches
    await asyncio.sleep(1.0 + switch_gate.FRESH_SECONDS)  # a poll due may still come
    polls, asked = gate.polls, get_mores(store)
    await asyncio.sleep(7.0)
    assert gate.polls == polls
    assert get_mores(store) - asked <= 7.0 // (STREAM_WAIT_MS / 1000) + 1
    assert not gate.clear()  # what it knows is stale: the next read asks first
    found = await cached_reads.find_one(store, col.UNITS, {"_id": "u1"})
    assert found == {"_id": "u1", "asset_id": "a1", "name": "U1"}
    assert gate.polls == polls + 1  # the read's poll, shared with the poller it woke
    more, stale = await reading_for(store, 3.0)
    assert more >= 1 and stale == 0, (more, stale)  # the poller polls again, ahead


async def test_a_switch_another_client_announces_is_seen_through_the_stream(
    store: Store, other: AsyncMongoClient
) -> None:
    gate = store.switches
    polls, changed = gate.polls, gate.stream_changed_at
    await other[store.db.name][col.SWITCHES].insert_one(SWITCH)
    took = await seen_within(store, switch_gate.FRESH_SECONDS)
    assert gate.stream_changed_at > changed  # the stream told, and a poll followed
    assert gate.polls > polls and set(gate.known) == {"t1"}

    async def end_later() -> float:
        await asyncio.sleep(HELD)
        await other[store.db.name][col.SWITCHES].delete_one({"_id": "a1"})
        return time.monotonic()

    ending = asyncio.create_task(end_later())
    found = await cached_reads.find_one(store, col.UNITS, {"_id": "u1"})
    answered, ended = time.monotonic(), await ending
    assert found == {"_id": "u1", "asset_id": "a1", "name": "U1"}
    assert answered >= ended  # the read of the switching asset waited for its end
    assert answered - ended < switch_gate.FRESH_SECONDS, (took, answered - ended)
    polls, stale = await reading_for(store, 1.0)  # vouched for again after the end
    assert gate.vouched() and not gate.known and stale == 0


async def test_with_the_stream_down_the_poller_takes_over(
    store: Store, other: AsyncMongoClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    watcher = store._watcher
    assert watcher is not None
    monkeypatch.setattr(store, "watch_changes", lambda: None)  # no read starts it again
    watcher.cancel()
    await asyncio.wait({watcher})
    gate = store.switches
    assert not gate.vouched() and gate.stream_opened_at == float("inf")
    polls, stale = await reading_for(store, 6.5)  # every 2.25 s, ahead of going stale
    assert polls >= 2 and stale == 0, (polls, stale)
    changed = gate.stream_changed_at
    await other[store.db.name][col.SWITCHES].insert_one(SWITCH)
    try:
        await seen_within(store, switch_gate.FRESH_SECONDS + 0.5)  # by a poll
        assert gate.stream_changed_at == changed
    finally:
        await other[store.db.name][col.SWITCHES].delete_one({"_id": "a1"})
