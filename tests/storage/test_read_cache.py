"""The read cache (issue 16): versions, races, the byte budget, and the listeners and
change stream that keep it true, on the real embedded database."""

from __future__ import annotations

import asyncio
import time
import tracemalloc
from collections.abc import AsyncIterator
from functools import partial
from types import SimpleNamespace

import bson
import orjson
import pytest
import pytest_asyncio
from pymongo import AsyncMongoClient

from resolvers.auth.keys import create_key, disable_key
from storage.cache import cached_reads
from storage.cache.change_watch import (
    STREAM_WAIT_MS,
    WriteListener,
    apply_change,
    watch_changes,
)
from storage.cache.read_cache import ENTRY_OVERHEAD, ReadCache, ReadLog
from storage.database import Store, connect
from storage.embedded.server import EmbeddedServer
from storage.settings import Settings

CHANGE_WINDOW = 1.0  # generous here; tests/storage/test_read_cache_processes.py measures p99


def live_cache(budget: int = 1 << 20) -> ReadCache:
    cache = ReadCache(budget)
    assert cache.went_up(cache.interruptions)
    return cache


class Loads:
    """A load function that counts its calls and returns the next value."""

    def __init__(self, *values: object, delay: float = 0.0) -> None:
        self.values = list(values)
        self.calls = 0
        self.delay = delay

    async def __call__(self) -> object:
        self.calls += 1
        if self.delay:
            await asyncio.sleep(self.delay)
        return self.values[min(self.calls, len(self.values)) - 1]


# The cache alone


async def test_serves_nothing_until_the_stream_is_up():
    cache = ReadCache(1 << 20)
    load = Loads([{"a": 1}], [{"a": 2}])
    assert await cache.read(lambda: b"k", "units", load) == [{"a": 1}]
    assert await cache.read(lambda: b"k", "units", load) == [{"a": 2}]
    assert (load.calls, cache.bypassed, cache.hits) == (2, 2, 0)


async def test_a_hit_until_the_collection_changes():
    cache = live_cache()
    load = Loads([{"a": 1}], [{"a": 2}])
    assert await cache.read(lambda: b"k", "units", load) == [{"a": 1}]
    assert await cache.read(lambda: b"k", "units", load) == [{"a": 1}]
    cache.bump("floors")  # another collection: still valid
    assert await cache.read(lambda: b"k", "units", load) == [{"a": 1}]
    cache.bump("units")
    assert await cache.read(lambda: b"k", "units", load) == [{"a": 2}]
    assert (load.calls, cache.hits, cache.misses) == (2, 2, 2)


async def test_a_change_during_the_read_leaves_nothing_behind():
    """The version is taken before the query: a write that lands while the query runs
    means its result may be old, so it is returned once and never stored."""
    cache = live_cache()
    load = Loads("old", "new", delay=0.05)
    reading = asyncio.create_task(cache.read(lambda: b"k", "units", load))
    await asyncio.sleep(0.01)
    cache.bump("units")
    assert await reading == "old"
    assert cache.stats().entries == 0
    assert await cache.read(lambda: b"k", "units", load) == "new"


async def test_going_down_during_the_read_leaves_nothing_behind():
    cache = live_cache()
    load = Loads("old", "new", delay=0.05)
    reading = asyncio.create_task(cache.read(lambda: b"k", "units", load))
    await asyncio.sleep(0.01)
    cache.interrupted("test")
    assert cache.went_up(cache.interruptions)
    assert await reading == "old"
    assert cache.stats().entries == 0


async def test_a_stream_asked_for_before_a_failure_is_not_trusted():
    cache = ReadCache(1 << 20)
    before = cache.interruptions
    cache.interrupted("connection to the database failed")
    assert cache.went_up(before) is False
    assert cache.live is False
    assert cache.stats().stream == "down: connection to the database failed"


async def test_concurrent_readers_share_one_load_and_get_their_own_documents():
    cache = live_cache()
    load = Loads([{"a": 1}], delay=0.05)
    results = await asyncio.gather(*(cache.read(lambda: b"k", "units", load) for _ in range(10)))
    assert load.calls == 1
    assert results == [[{"a": 1}]] * 10
    results[0][0]["a"] = 99  # a caller changes its copy
    assert await cache.read(lambda: b"k", "units", load) == [{"a": 1}]
    assert len({id(result) for result in results}) == 10


async def test_a_sharer_cancelled_with_the_first_reader_stays_cancelled():
    """When the reader that loads and one that shares its load are cancelled together,
    the sharer ends cancelled too: it does not start a load of its own."""
    cache = live_cache()
    load = Loads([{"a": 1}], delay=1.0)
    first = asyncio.create_task(cache.read(lambda: b"k", "units", load))
    await asyncio.sleep(0)
    sharer = asyncio.create_task(cache.read(lambda: b"k", "units", load))
    await asyncio.sleep(0.01)
    first.cancel()
    sharer.cancel()
    results = await asyncio.gather(first, sharer, return_exceptions=True)
    assert [type(result) for result in results] == [asyncio.CancelledError] * 2
    assert load.calls == 1


async def test_a_failed_load_is_not_kept():
    cache = live_cache()
    calls = 0

    async def failing() -> object:
        nonlocal calls
        calls += 1
        raise LookupError("no")

    for _ in range(2):
        with pytest.raises(LookupError):
            await cache.read(lambda: b"k", "units", failing)
    assert calls == 2 and cache.stats().entries == 0


async def test_the_byte_budget_holds_and_the_oldest_go_first():
    value = [{"x": "y" * 1000}]
    size = len(bson.encode({"v": value})) + ENTRY_OVERHEAD
    cache = live_cache(budget=size * 10)
    for index in range(25):
        await cache.read(partial(int, index), "units", Loads(value))
        assert cache.bytes_used <= cache.budget
    assert cache.stats().entries == 10
    load = Loads(value)
    await cache.read(lambda: 24, "units", load)  # the newest is still there
    await cache.read(lambda: 0, "units", load)  # the oldest is gone
    assert load.calls == 1


def test_a_kept_answer_holds_about_what_it_counts():
    """orjson's bytes keep the buffer they were written in (4 KiB for a 300-byte page):
    kept as they came, 1,000 small answers held 4 MiB while the budget counted 0.6."""
    cache = live_cache()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for number in range(1000):
            log = ReadLog(key=number, versions={("units", None): cache.version("units")})
            cache.keep_answer(log, orjson.dumps({"data": [], "page": number}), "", 1)
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert cache.stats().entries == 1000
    assert held <= 1.5 * cache.bytes_used, (held, cache.bytes_used)


async def test_one_result_may_not_take_more_than_a_quarter_of_the_budget():
    cache = live_cache(budget=40_000)
    load = Loads(["x" * 20_000])
    await cache.read(lambda: b"big", "units", load)
    await cache.read(lambda: b"big", "units", load)
    assert load.calls == 2 and cache.bytes_used == 0


async def test_off_with_a_budget_of_zero():
    cache = ReadCache(0)
    assert cache.went_up(cache.interruptions)
    load = Loads(1)
    await cache.read(lambda: b"k", "units", load)
    await cache.read(lambda: b"k", "units", load)
    assert load.calls == 2 and cache.stats().stream == "off"


async def test_change_events_move_their_collection_or_everything():
    cache = live_cache()
    units = cache.version("units")
    assert apply_change(cache, {"operationType": "update", "ns": {"db": "d", "coll": "units"}})
    assert cache.version("units") != units
    floors = cache.version("floors")
    assert apply_change(cache, {"operationType": "dropDatabase", "ns": {"db": "d"}})
    assert cache.version("floors") != floors
    assert apply_change(cache, {"operationType": "invalidate"}) is False


def test_the_echo_of_an_acknowledged_write_moves_nothing_again():
    """A change no newer than this process's acknowledged write to its collection (or
    to everything) was seen by every read begun since that ack: no second miss."""
    cache = live_cache()
    acked = bson.Timestamp(1_800_000_000, 5)
    cache.acknowledged("units", acked)
    units, floors = cache.version("units"), cache.version("floors")

    def change(coll: str, at: bson.Timestamp | None) -> dict[str, object]:
        return {"operationType": "update", "ns": {"db": "d", "coll": coll}, "clusterTime": at}

    assert apply_change(cache, change("units", bson.Timestamp(1_800_000_000, 4)))
    assert apply_change(cache, change("units", acked))
    assert (cache.version("units"), cache.stream_echoes) == (units, 2)
    assert apply_change(cache, change("floors", acked))  # another collection: moved
    assert cache.version("floors") != floors
    assert apply_change(cache, change("units", None))  # no time: moved
    assert apply_change(cache, change("units", bson.Timestamp(1_800_000_000, 6)))  # newer
    assert cache.stream_echoes == 2
    cache.acknowledged("*", bson.Timestamp(1_800_000_001, 1))  # a commit: every collection
    floors = cache.version("floors")
    assert apply_change(cache, change("floors", bson.Timestamp(1_800_000_001, 1)))
    assert (cache.version("floors"), cache.stream_echoes) == (floors, 3)


class ClosingStream:
    """A stream whose close fails as pymongo's does on a client closed meanwhile."""

    alive = True

    async def __aenter__(self) -> ClosingStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        raise AttributeError("'NoneType' object has no attribute 'mark_dirty'")

    async def try_next(self) -> None:
        await asyncio.sleep(3600)


class ClosingDatabase:
    def __init__(self) -> None:
        self.opened = 0

    async def watch(self, *args: object, **kwargs: object) -> ClosingStream:
        self.opened += 1
        return ClosingStream()


async def test_a_stream_whose_close_fails_still_stops_when_cancelled():
    """Cancelled while it waited, the stream's close raised AttributeError in place of
    the cancellation: the task went on with a new stream, and held a test session's end
    for 286 s. Now it ends, once, with the cache down."""
    cache, db = ReadCache(1 << 20), ClosingDatabase()
    task = asyncio.ensure_future(watch_changes(db, cache))  # type: ignore[arg-type]
    await until(lambda: cache.live, "the stream comes up")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 2)
    assert (db.opened, cache.live, cache.stream) == (1, False, "down: stopped")


# With the embedded database


@pytest_asyncio.fixture(loop_scope="session")
async def fresh(db_server: EmbeddedServer, settings: Settings) -> AsyncIterator[Store]:
    """A store of its own on a database of its own, with its change stream up."""
    own = Settings(database_name="floorgate_read_cache", db_timeout_ms=1500)
    store = connect(db_server.uri, own)
    await store.client.drop_database(own.database_name)
    await store["units"].insert_one({"_id": "u1", "name": "one"})
    store.watch_changes()
    await until(lambda: store.cache.live, "the change stream comes up")
    yield store
    await store.client.drop_database(own.database_name)
    await store.close()


async def until(condition, what: str, timeout: float = 5.0) -> float:
    started = time.monotonic()
    while not condition():
        if time.monotonic() - started > timeout:
            raise AssertionError(f"not within {timeout} s: {what}")
        await asyncio.sleep(0.005)
    return time.monotonic() - started


async def test_own_writes_move_the_version_when_acknowledged(fresh: Store):
    query = {"_id": "u1"}
    assert (await cached_reads.find_one(fresh, "units", query))["name"] == "one"
    version = fresh.cache.version("units")
    await fresh["units"].update_one(query, {"$set": {"name": "two"}})
    assert fresh.cache.version("units") != version  # at once, not when the stream says so
    assert (await cached_reads.find_one(fresh, "units", query))["name"] == "two"


async def test_an_own_write_moves_its_version_once(fresh: Store, db_server: EmbeddedServer):
    """The stream's report of this process's write (its echo) arrives after the ack has
    moved the version: the result read in between stays a hit. Another client's write
    made after it is reported after it (the stream is in order), so once that one has
    moved its collection, the echo has been seen."""
    query = {"_id": "u1"}
    echoes = fresh.cache.stream_echoes
    await fresh["units"].update_one(query, {"$set": {"name": "echoed"}})
    moved = fresh.cache.version("units")
    assert (await cached_reads.find_one(fresh, "units", query))["name"] == "echoed"
    other = AsyncMongoClient(db_server.uri)
    before = fresh.cache.version("floors")
    try:
        await other[fresh.db.name]["floors"].insert_one({"_id": "marker"})
        await until(lambda: fresh.cache.version("floors") != before, "the marker arrives")
    finally:
        await other.close()
    assert fresh.cache.version("units") == moved
    assert fresh.cache.stream_echoes > echoes
    hits = fresh.cache.hits
    assert (await cached_reads.find_one(fresh, "units", query))["name"] == "echoed"
    assert fresh.cache.hits == hits + 1


async def test_a_commit_moves_what_its_writes_named(fresh: Store):
    """A transaction's commit moves the collections its writes named, and nothing else:
    a cached read of another collection stays a hit (an import of one location used to
    flush every cached read of every asset)."""
    await fresh["floors"].insert_one({"_id": "f1", "name": "Ground"})
    assert (await cached_reads.find_one(fresh, "floors", {"_id": "f1"}))["name"] == "Ground"
    floors, units = fresh.cache.version("floors"), fresh.cache.version("units")
    async with fresh.client.start_session() as session, await session.start_transaction():
        await fresh["units"].insert_one({"_id": "u2"}, session=session)
        inside = fresh.cache.version("units")  # the write's own acknowledgement
    assert inside != units and fresh.cache.version("units") != inside  # and the commit's
    assert fresh.cache.version("floors") == floors
    hits = fresh.cache.hits
    assert (await cached_reads.find_one(fresh, "floors", {"_id": "f1"}))["name"] == "Ground"
    assert fresh.cache.hits == hits + 1
    assert (await cached_reads.find_one(fresh, "units", {"_id": "u2"})) == {"_id": "u2"}


def command(request_id: int, name: str, **fields: object) -> SimpleNamespace:
    return SimpleNamespace(command_name=name, command={name: 1, **fields}, request_id=request_id)


def test_a_commit_whose_writes_were_not_seen_moves_everything():
    cache = ReadCache(1 << 20)
    cache.live = True
    listener = WriteListener(cache)
    session = {"lsid": {"id": b"s1"}, "txnNumber": 7, "autocommit": False}
    before = cache.version("floors")
    listener.started(command(1, "commitTransaction", **session))
    listener.succeeded(SimpleNamespace(request_id=1, reply={}))
    assert cache.version("floors") != before  # flushed: the epoch moved
    # seen: only what it wrote moves
    listener.started(command(2, "insert", **{**session, "insert": "units"}))
    listener.succeeded(SimpleNamespace(request_id=2, reply={}))
    floors, units = cache.version("floors"), cache.version("units")
    listener.started(command(3, "commitTransaction", **session))
    listener.succeeded(SimpleNamespace(request_id=3, reply={}))
    assert (cache.version("floors"), cache.version("units") != units) == (floors, True)
    # a retryable write outside a transaction carries a number, not `autocommit: false`
    listener.started(command(4, "update", update="units", lsid={"id": b"s2"}, txnNumber=1))
    assert listener._transactions == {}
    # an aborted transaction is forgotten without moving anything more
    listener.started(command(5, "insert", **{**session, "txnNumber": 8, "insert": "floors"}))
    listener.started(command(6, "abortTransaction", **{**session, "txnNumber": 8}))
    assert listener._transactions == {}


async def test_writes_of_another_client_arrive_by_the_change_stream(
    fresh: Store, db_server: EmbeddedServer
):
    query = {"_id": "u1"}
    assert (await cached_reads.find_one(fresh, "units", query))["name"] == "one"
    assert (await cached_reads.find_one(fresh, "units", query))["name"] == "one"
    hits = fresh.cache.hits
    assert hits >= 1
    other = AsyncMongoClient(db_server.uri)
    before = fresh.cache.version("units")
    try:
        await other[fresh.db.name]["units"].update_one(query, {"$set": {"name": "other"}})
        # This change's event, not any event: another collection's write (a reader's
        # renewal) may come first, and then the read below was still the old one.
        waited = await until(lambda: fresh.cache.version("units") != before, "the change arrives")
    finally:
        await other.close()
    assert waited < CHANGE_WINDOW
    assert (await cached_reads.find_one(fresh, "units", query))["name"] == "other"


async def test_a_failed_connection_stops_the_cache_until_a_new_stream(fresh: Store):
    restarts = fresh.cache.stream_restarts
    fresh.cache.interrupted("connection to the database failed")  # as the pool listener does
    assert fresh.cache.live is False
    load = Loads("x")
    await fresh.cache.read(lambda: b"k", "units", load)
    await fresh.cache.read(lambda: b"k", "units", load)
    assert load.calls == 2  # read through while down
    # The stream's waiting getMore ends first (the pool's failure was another connection's).
    await until(lambda: fresh.cache.live, "a new stream", STREAM_WAIT_MS / 1000 + 5)
    assert fresh.cache.stream_restarts == restarts + 1


async def test_a_disabled_key_stops_within_the_window(client, store: Store, db_server):
    """Disabled by another process (here another client): refused within a second.
    (A key looked up before the stream was up keeps the old 5 s: wait for it first.)"""
    store.watch_changes()
    await until(lambda: store.cache.live, "the change stream is up")
    created = await create_key(store, "short-lived", [], None)
    headers = {"API-Key": created.secret}
    assert (await client.get("/v1/assets", headers=headers)).status_code == 200
    other = connect(db_server.uri, Settings(database_name=store.db.name, read_cache_mb=0))
    try:
        await disable_key(other, created.key_id)
        started = time.monotonic()
        while (await client.get("/v1/assets", headers=headers)).status_code == 200:
            assert time.monotonic() - started < CHANGE_WINDOW, "the key still works"
            await asyncio.sleep(0.01)
    finally:
        await other.close()
    refused = await client.get("/v1/assets", headers=headers)
    assert refused.status_code == 403
    assert refused.json() == {"message": "Invalid authentication credentials"}


async def test_a_reader_that_goes_away_does_not_fail_those_sharing_its_load():
    cache = live_cache()
    load = Loads("value", delay=0.05)
    first = asyncio.create_task(cache.read(lambda: b"k", "units", load))
    await asyncio.sleep(0.01)
    second = asyncio.create_task(cache.read(lambda: b"k", "units", load))
    await asyncio.sleep(0.01)
    first.cancel()
    assert await second == "value"
    assert first.cancelled() and load.calls == 2


# Whole answers of REST GETs


async def test_a_get_answer_is_kept_per_caller_and_dropped_by_a_write(client, keys, store):
    cache = store.cache
    store.watch_changes()
    await until(lambda: cache.live, "the change stream is up")
    path = "/v1/units?per-page=50"
    first = await client.get(path, headers={"API-Key": keys.full})
    hits = cache.answer_hits
    again = await client.get(path, headers={"API-Key": keys.full})
    assert cache.answer_hits == hits + 1
    assert (again.status_code, again.content) == (200, first.content)
    assert again.headers["ETag"] == first.headers["ETag"]
    scoped = await client.get(path, headers={"API-Key": keys.scoped})  # another scope
    assert cache.answer_hits == hits + 1
    assert {unit["asset_id"] for unit in scoped.json()["data"]} == {"asset-2"}
    assert {unit["asset_id"] for unit in again.json()["data"]} == {"asset-1", "asset-2"}
    unit_id = first.json()["data"][0]["id"]
    await store["units"].update_one({"_id": unit_id}, {"$set": {"name": "renamed"}})
    try:
        changed = await client.get(path, headers={"API-Key": keys.full})
        assert changed.json()["data"][0]["name"] == "renamed"
        assert cache.answer_hits == hits + 1
    finally:
        await store["units"].update_one(
            {"_id": unit_id}, {"$set": {"name": first.json()["data"][0]["name"]}}
        )
    assert (await client.get(path, headers={"API-Key": keys.full})).content == first.content


async def test_another_process_writing_one_asset_leaves_the_others_answers_kept(
    client, keys, store, db_server
):
    """Issue 67: a write to asset-1 by another process (a client of its own: it arrives by
    the change stream, with the unit as it was) moves asset-1's kept answers only; an
    answer of asset-2 and the list across both are served, then dropped, as they read."""
    from tests.caught_up import caught_up  # which imports `until` from here

    cache = await caught_up(store)
    headers = {"API-Key": keys.full}
    paths = ("/v1/units?asset=asset-1", "/v1/units?asset=asset-2", "/v1/units")
    first = [await client.get(path, headers=headers) for path in paths]
    unit = first[0].json()["data"][0]
    other = AsyncMongoClient(db_server.uri)
    units = other[store.db.name]["units"]
    before = cache.version("units")
    try:
        await units.update_one({"_id": unit["id"]}, {"$set": {"name": "Renamed"}})
        await until(lambda: cache.version("units") != before, "the change arrives")
        hits = cache.answer_hits
        one, two, both = [await client.get(path, headers=headers) for path in paths]
        assert cache.answer_hits == hits + 1  # asset-2's answer only
        assert two.content == first[1].content
        assert one.json()["data"][0]["name"] == "Renamed"
        assert "Renamed" in both.text
    finally:
        await units.update_one({"_id": unit["id"]}, {"$set": {"name": unit["name"]}})
        await other.close()


async def test_a_kept_answer_still_checks_access_first(client, keys, store):
    path = "/v1/assets/references?per-page=2"
    flagged = {"API-Key": keys.full, "Experimental-Flags": "references"}
    first = await client.get(path, headers=flagged)
    assert first.status_code == 200
    assert (await client.get(path, headers=flagged)).content == first.content
    without_flag = await client.get(path, headers={"API-Key": keys.full})
    assert without_flag.status_code == 404  # the flag's resource does not exist without it
    assert "ETag" not in without_flag.headers
    no_key = await client.get(path, headers={"Experimental-Flags": "references"})
    assert no_key.status_code == 401


async def test_a_kept_answer_is_never_served_to_a_key_scoped_to_another_asset(client, keys, store):
    store.watch_changes()
    await until(lambda: store.cache.live, "the change stream is up")
    for path in ("/v1/assets/asset-1", "/v1/assets/asset-1/floors", "/v1/units/u-001"):
        full = await client.get(path, headers={"API-Key": keys.full})
        assert (await client.get(path, headers={"API-Key": keys.full})).content == full.content
        hits = store.cache.answer_hits
        tag = full.headers["ETag"]
        for extra in ({}, {"If-None-Match": tag}):
            scoped = await client.get(path, headers={"API-Key": keys.scoped, **extra})
            assert (scoped.status_code, scoped.json()) == (404, {"message": "Not found"})
            assert "ETag" not in scoped.headers
        assert store.cache.answer_hits == hits  # the full key's answer was not asked
    path = "/v1/maps?asset=asset-1"
    assert (await client.get(path, headers={"API-Key": keys.full})).json()["data"] != []
    listed = await client.get(path, headers={"API-Key": keys.scoped})
    assert listed.status_code == 200 and listed.json()["data"] == []
