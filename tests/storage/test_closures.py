"""Stored closures (`storage.closures`): one per map, kind and target, replaced when
closed again; the closures in force by the clock; a kept answer that read them ends at
the first `until` (`ReadLog.expires`, `ReadCache.answer`); a map's closures go with it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest

from storage import collections as c
from storage.cache.read_cache import READS, ReadCache, ReadLog
from storage.closures import (
    active,
    active_closures,
    delete_closure,
    map_closures,
    put_closure,
)
from storage.timestamps import format_timestamp

NOW = datetime(2030, 6, 1, 12, 0, tzinfo=UTC)


def at(minutes: float) -> str:
    return format_timestamp(NOW + timedelta(minutes=minutes))


@pytest.fixture
async def store(store) -> AsyncIterator[object]:
    await store[c.CLOSURES].delete_many({})
    yield store
    await store[c.CLOSURES].delete_many({})


async def test_closing_again_replaces(store):
    first = await put_closure(store, "m", "a", "unit", "u1", at(10), "Wet floor", None, NOW)
    assert first == {
        "unit_map_id": "m",
        "kind": "unit",
        "target_id": "u1",
        "connector_kind": None,
        "until": at(10),
        "reason": "Wet floor",
    }
    await put_closure(store, "m", "a", "unit", "u1", None, None, None, NOW)
    await put_closure(store, "m", "a", "connector", "u1", None, None, "stairs", NOW)
    stored = await store[c.CLOSURES].find({}, {"_id": 0}).sort("kind", 1).to_list()
    assert [(d["kind"], d["until"], d["expires_at"]) for d in stored] == [
        ("connector", None, None),
        ("unit", None, None),
    ]
    assert stored[1]["created_at"] == "2030-06-01T12:00:00+00:00"
    assert await delete_closure(store, "m", "unit", "u1") is True
    assert await delete_closure(store, "m", "unit", "u1") is False


async def test_in_force_by_the_clock(store):
    await put_closure(store, "m", "a", "unit", "u2", at(10), None, None, NOW)
    await put_closure(store, "m", "a", "unit", "u1", None, None, None, NOW)
    await put_closure(store, "m", "a", "connector", "lift", at(5), None, "elevator", NOW)
    await put_closure(store, "other", "a", "unit", "u1", None, None, None, NOW)
    every = await map_closures(store, "m")
    assert [(d["kind"], d["target_id"]) for d in every] == [
        ("connector", "lift"),
        ("unit", "u1"),
        ("unit", "u2"),
    ]
    assert [d["target_id"] for d in active(every, NOW + timedelta(minutes=5))] == ["u1", "u2"]
    assert [d["target_id"] for d in active(every, NOW + timedelta(minutes=10))] == ["u1"]
    # the expiry's stored date is the until's: the database's TTL index removes it then
    lift = await store[c.CLOSURES].find_one({"target_id": "lift"})
    assert lift["expires_at"].replace(tzinfo=UTC) == NOW + timedelta(minutes=5)
    log = ReadLog(b"k")
    token = READS.set(log)
    try:
        found = await active_closures(store, "m", NOW + timedelta(minutes=1))
    finally:
        READS.reset(token)
    assert len(found) == 3
    assert log.until == (NOW + timedelta(minutes=5)).timestamp()
    assert len(await map_closures(store, "m")) == 3
    assert len(await map_closures(store, "other")) == 1


async def test_a_kept_answer_is_not_served_past_its_end():
    cache = ReadCache(1 << 20)
    cache.live = True
    log = ReadLog(b"answer", {(c.CLOSURES, None): cache.version(c.CLOSURES)})
    log.expires(time.time() + 0.3)
    log.expires(time.time() + 60)  # a later end changes nothing
    cache.keep_answer(log, b"{}", "", 1)
    assert cache.answer(b"answer") is not None
    await asyncio.sleep(0.35)
    assert cache.answer(b"answer") is None
    ended = ReadLog(b"late", {(c.CLOSURES, None): cache.version(c.CLOSURES)})
    ended.expires(time.time() - 1)
    cache.keep_answer(ended, b"{}", "", 1)  # ended before it was kept: not kept
    assert cache.stats().entries == 1
    forever = ReadLog(b"plain", {(c.CLOSURES, None): cache.version(c.CLOSURES)})
    cache.keep_answer(forever, b"{}", "", 1)
    assert cache.answer(b"plain") is not None
