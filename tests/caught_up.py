"""The read cache serving with every earlier change seen: tests that count kept answers
(a repeat served from the cache) need it, since a late change event of an earlier test's
write, on the same worker and database, would drop an answer between two requests."""

from __future__ import annotations

import contextlib
import uuid

import pytest
from pymongo.errors import PyMongoError

from storage.cache.read_cache import ReadCache
from storage.database import Store
from tests.storage.test_read_cache import until


async def caught_up(store: Store) -> ReadCache:
    """Start the change stream, write a probe and wait until the stream delivered it (the
    last in line, so every earlier change is seen); a stream that restarted meanwhile
    never delivers its probe, nor does a write cancelled past the suite's database
    budget on a loaded machine, so a new one is written."""
    store.watch_changes()
    await until(lambda: store.cache.live, "the change stream is up")
    moved: list[str] = []
    bump = store.cache.bump

    def counting(collection: str) -> None:
        moved.append(collection)
        bump(collection)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(store.cache, "bump", counting)
        for attempt in range(10):
            probe = f"probes_{attempt}"
            try:
                await store[probe].insert_one({"_id": uuid.uuid4().hex})
            except PyMongoError:  # past the suite's 1.5 s budget on a loaded machine
                continue
            # once by the write's acknowledgement, once by its change event
            with contextlib.suppress(AssertionError):
                await until(lambda p=probe: moved.count(p) == 2 and store.cache.live, "seen", 1.0)
                return store.cache
    raise AssertionError("the change stream did not catch up in 10 s")
