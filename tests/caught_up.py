"""The read cache serving with every earlier change seen: tests that count kept answers
(a repeat served from the cache) need it, since a late change event of an earlier test's
write, on the same worker and database, would drop an answer between two requests."""

from __future__ import annotations

import contextlib
import uuid
from typing import Any

import pytest
from pymongo.errors import PyMongoError

from storage.cache.read_cache import ReadCache
from storage.cache.scopes import EVERYTHING, Touched
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
    echoed: list[str] = []
    bump, already_moved = store.cache.bump, store.cache.already_moved

    def counting(collection: str, touched: Touched = EVERYTHING) -> None:
        moved.append(collection)
        bump(collection, touched)

    def echo(collection: str, at: Any, touched: Touched = EVERYTHING) -> bool:
        seen = already_moved(collection, at, touched)
        if seen:
            echoed.append(collection)
        return seen

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(store.cache, "bump", counting)
        patch.setattr(store.cache, "already_moved", echo)
        for attempt in range(10):
            probe = f"probes_{attempt}"
            try:
                await store[probe].insert_one({"_id": uuid.uuid4().hex})
            except PyMongoError:  # past the suite's 1.5 s budget on a loaded machine
                continue

            # moved by the write's acknowledgement; its change event seen (an echo, or a
            # second move when it came before the acknowledgement)
            def seen(p: str = probe) -> bool:
                return (moved.count(p) + echoed.count(p)) == 2 and store.cache.live

            with contextlib.suppress(AssertionError):
                await until(seen, "seen", 1.0)
                return store.cache
    raise AssertionError("the change stream did not catch up in 10 s")
