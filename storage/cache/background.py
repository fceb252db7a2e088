"""What the cache's background work shares: one read for everyone asking the same at
once, and errors that are their waiters' or nobody's."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable
from functools import partial
from typing import Any, TypeVar

K = TypeVar("K", bound=Hashable)
T = TypeVar("T")


def retrieved(done: asyncio.Future[Any]) -> None:
    """A done callback for work whose error is its waiters' or nobody's (a shared query,
    a poll, an abandoned getMore): asyncio then logs no "exception was never retrieved"."""
    if not done.cancelled():
        done.exception()


def shared(
    pending: dict[K, asyncio.Future[T]], key: K, start: Callable[[], Awaitable[T]]
) -> Awaitable[T]:
    """What `start()` answers, run once for everyone asking for `key` while it runs (a
    herd of requests of one key reads it once). `pending` holds only the runs under way,
    so it is bounded by the askers; a waiter cancelled leaves the run to the others, and
    dropping `key` from `pending` (a change) makes the next asker start anew."""
    future = pending.get(key)
    if future is None:
        future = asyncio.ensure_future(start())
        pending[key] = future
        future.add_done_callback(partial(_settled, pending, key))
    return asyncio.shield(future)


def _settled(pending: dict[K, asyncio.Future[T]], key: K, done: asyncio.Future[T]) -> None:
    if pending.get(key) is done:
        del pending[key]
    retrieved(done)
