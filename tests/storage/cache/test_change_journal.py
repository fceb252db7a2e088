"""The read cache's journal of changed documents (issue 47): what it notes, its bounds,
what makes it incomplete, the wait for an echo, and the ids the real change stream gives
it (another client's writes, on the embedded database)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest_asyncio
from bson import ObjectId, Timestamp
from pymongo import AsyncMongoClient

from storage.cache.change_journal import ENTRY_BYTES, MAX_ID_BYTES, ChangeJournal
from storage.cache.change_watch import apply_change
from storage.cache.read_cache import ReadCache
from storage.database import Store
from storage.embedded.server import EmbeddedServer
from tests._dbserver import fresh_store
from tests.storage.test_read_cache import until


def at(n: int) -> Timestamp:
    return Timestamp(1_800_000_000, n)


def test_it_notes_the_ids_of_followed_collections_by_position():
    journal = ChangeJournal()
    journal.note("units", at(1), "before")  # not followed yet: not noted, its time is
    assert (journal.position, journal.through) == (0, at(1))
    journal.follow(["units", "locations"])
    journal.note("units", at(2), "u1")
    mark = journal.position
    journal.note("locations", at(3), "l1")
    journal.note("floors", at(4), "f1")  # not followed
    journal.note("units", at(5), "u1")
    journal.note("units", at(6), 7)
    assert journal.since(0, ["units", "locations"]) == {
        "units": {"u1", 7},
        "locations": {"l1"},
    }
    assert journal.since(mark, ["units"]) == {"units": {"u1", 7}}
    assert journal.since(journal.position, ["units"]) == {"units": set()}
    assert journal.since(journal.position + 1, ["units"]) is None  # not a position yet
    assert journal.since(0, ["floors"]) is None  # never followed
    journal.follow(["floors"])
    assert journal.since(0, ["floors"]) is None  # followed from now only
    assert journal.since(journal.position, ["floors"]) == {"floors": set()}
    assert (len(journal), journal.bytes) == (4, 4 * ENTRY_BYTES + 2 + 2 + 2 + 8)
    assert journal.through == at(6)


def test_past_its_bounds_the_oldest_go_and_it_is_complete_only_after_them():
    journal = ChangeJournal(max_events=3, max_bytes=10_000)
    journal.follow(["units"])
    for n in range(5):
        journal.note("units", at(n + 1), f"u{n}")
    assert (journal.start, journal.position, len(journal)) == (2, 5, 3)
    assert journal.since(1, ["units"]) is None
    assert journal.since(2, ["units"]) == {"units": {"u2", "u3", "u4"}}
    by_bytes = ChangeJournal(max_events=100, max_bytes=2 * ENTRY_BYTES + 250)
    by_bytes.follow(["units"])
    for n in range(3):
        by_bytes.note("units", at(n + 1), "x" * 100 + str(n))  # 101 bytes each
    assert (by_bytes.start, len(by_bytes), by_bytes.bytes) == (1, 2, 2 * (ENTRY_BYTES + 101))
    assert by_bytes.since(1, ["units"]) == {"units": {"x" * 100 + "1", "x" * 100 + "2"}}


def test_an_id_it_cannot_keep_makes_everything_before_incomplete():
    journal = ChangeJournal()
    journal.follow(["units"])
    journal.note("units", at(1), "u1")
    journal.note("units", at(2), "é" * (MAX_ID_BYTES // 2 + 1))  # 1,026 bytes of UTF-8
    assert (journal.start, journal.position, journal.resets, len(journal)) == (2, 2, 1, 0)
    assert journal.since(1, ["units"]) is None
    journal.note("units", at(3), ObjectId("0123456789abcdef01234567"))
    journal.note("units", at(4), {"compound": 1})  # not a plain value
    assert (journal.start, journal.resets) == (4, 2)
    journal.note("units", at(5), "u5")
    assert journal.since(4, ["units"]) == {"units": {"u5"}}


def test_a_reset_with_nothing_noted_since_makes_a_position_incomplete():
    """A value read at a position, the stream down (changes made meanwhile are in no
    journal) and up again before any event: that position must not read as complete."""
    journal = ChangeJournal()
    journal.follow(["units"])
    taken = journal.position
    journal.reset()
    assert (journal.start, journal.position, len(journal)) == (1, 1, 0)
    assert journal.since(taken, ["units"]) is None
    assert journal.since(journal.position, ["units"]) == {"units": set()}
    journal.note("units", at(1), "u1")
    assert journal.since(1, ["units"]) == {"units": {"u1"}}


def test_a_flush_of_the_read_cache_makes_it_incomplete():
    cache = ReadCache(1 << 20)
    assert cache.went_up(cache.interruptions)
    cache.journal.follow(["units"])
    up = cache.journal.position  # the flush of going up took one
    apply_change(cache, change("update", "units", at(1), "u1"))
    assert cache.journal.since(up, ["units"]) == {"units": {"u1"}}
    apply_change(cache, {"operationType": "drop", "ns": {"db": "d", "coll": "units"}})
    assert cache.journal.since(up, ["units"]) is None
    mark = cache.journal.position
    for kind in ("insert", "replace", "delete"):
        apply_change(cache, change(kind, "units", at(2), f"{kind}d"))
    assert cache.journal.since(mark, ["units"]) == {"units": {"insertd", "replaced", "deleted"}}
    cache.went_down("a test")
    assert cache.journal.since(mark, ["units"]) is None
    assert cache.stats().journal_events == 0


def test_the_echo_of_an_own_write_is_noted_too():
    """Its version moved at the acknowledgement; which document it changed, only the
    stream says."""
    cache = ReadCache(1 << 20)
    assert cache.went_up(cache.interruptions)
    cache.journal.follow(["units"])
    up = cache.journal.position
    cache.acknowledged("units", at(5))
    assert cache.acked_at(("units", "locations")) == at(5)
    version = cache.version("units")
    apply_change(cache, change("update", "units", at(5), "mine"))
    assert (cache.version("units"), cache.stream_echoes) == (version, 1)
    assert cache.journal.since(up, ["units"]) == {"units": {"mine"}}
    assert (cache.stats().journal_events, cache.stats().journal_bytes) == (1, ENTRY_BYTES + 4)


async def test_a_reader_waits_until_every_change_up_to_a_time_is_delivered():
    journal = ChangeJournal()
    journal.note("floors", at(3), "f")
    assert await journal.reached(at(3), 0.0)  # already there
    waiting = asyncio.ensure_future(journal.reached(at(5), 5.0))
    await asyncio.sleep(0.01)
    journal.note("floors", at(4), "f")
    await asyncio.sleep(0.01)
    assert not waiting.done()
    journal.note("units", at(6), "u")  # any collection's change: the stream is past it
    assert await asyncio.wait_for(waiting, 1.0) is True
    assert await journal.reached(at(9), 0.02) is False  # nothing comes
    waiting = asyncio.ensure_future(journal.reached(at(9), 5.0))
    await asyncio.sleep(0.01)
    journal.reset()  # the stream went down: that change may never be delivered
    assert await asyncio.wait_for(waiting, 1.0) is False
    assert journal._waiters == []


async def test_a_transactions_change_vouches_only_for_earlier_times():
    """Its changes share their time: the rest of the transaction may be on the way."""
    journal = ChangeJournal()
    journal.note("units", at(8), "t1", in_transaction=True)
    assert (journal.delivered(at(7)), journal.delivered(at(8))) == (True, False)
    waiting = asyncio.ensure_future(journal.reached(at(8), 5.0))
    await asyncio.sleep(0.01)
    journal.note("units", at(8), "t2", in_transaction=True)
    await asyncio.sleep(0.01)
    assert not waiting.done()
    journal.note("leases", at(9), "x")  # a later change, of any collection
    assert await asyncio.wait_for(waiting, 1.0) is True


async def test_an_empty_answer_vouches_for_what_was_committed_before_its_getmore():
    journal = ChangeJournal()
    waiting = asyncio.ensure_future(journal.reached(at(20), 5.0))
    await asyncio.sleep(0.01)
    journal.quiet(time.monotonic() - 1.0)  # a getMore sent before the reader waited
    await asyncio.sleep(0.01)
    assert not waiting.done()
    journal.quiet(time.monotonic())
    assert await asyncio.wait_for(waiting, 1.0) is True
    assert not journal.delivered(at(20))  # that reader only: a time says nothing of it


def change(kind: str, collection: str, time: Timestamp, document_id: object) -> dict[str, object]:
    return {
        "operationType": kind,
        "ns": {"db": "d", "coll": collection},
        "clusterTime": time,
        "documentKey": {"_id": document_id},
    }


# With the embedded database


@pytest_asyncio.fixture(loop_scope="session")
async def watched(db_server: EmbeddedServer) -> AsyncIterator[Store]:
    async with fresh_store(db_server) as store:
        store.watch_changes()
        await until(lambda: store.cache.live, "the change stream comes up")
        yield store


async def test_the_stream_names_each_document_another_client_changed(
    watched: Store, db_server: EmbeddedServer
):
    journal = watched.cache.journal
    journal.follow(["units"])
    mark = journal.position
    other: AsyncMongoClient[dict[str, object]] = AsyncMongoClient(db_server.uri)
    try:
        units = other[watched.db.name]["units"]
        await units.insert_many([{"_id": "a"}, {"_id": "b"}, {"_id": 3}])
        await units.update_one({"_id": "a"}, {"$set": {"name": "A"}})
        await units.replace_one({"_id": "b"}, {"name": "B"})
        await units.delete_one({"_id": 3})
        await other[watched.db.name]["floors"].insert_one({"_id": "f"})
        await until(lambda: journal.position - mark == 6, "six changes of units arrive")
    finally:
        await other.close()
    assert journal.since(mark, ["units"]) == {"units": {"a", "b", 3}}
    assert journal.through is not None
    assert await journal.reached(journal.through, 0.0)


async def test_a_transaction_of_another_client_is_delivered_whole(
    watched: Store, db_server: EmbeddedServer
):
    """Every change at or before its commit's `operationTime` is delivered once the
    journal says so (here a later write vouches for it)."""
    journal = watched.cache.journal
    journal.follow(["units"])
    mark = journal.position
    other: AsyncMongoClient[dict[str, object]] = AsyncMongoClient(db_server.uri)
    try:
        units = other[watched.db.name]["units"]
        async with other.start_session() as session:
            async with await session.start_transaction():
                for name in ("t1", "t2", "t3"):
                    await units.insert_one({"_id": name}, session=session)
            committed = session.operation_time
        assert isinstance(committed, Timestamp)
        waiting = asyncio.ensure_future(journal.reached(committed, 5.0))
        await other[watched.db.name]["floors"].insert_one({"_id": "later"})
        assert await waiting is True
    finally:
        await other.close()
    assert journal.since(mark, ["units"]) == {"units": {"t1", "t2", "t3"}}
