"""Giving memory back to the system after many connections closed.

A closed connection's objects (uvicorn's protocol, its TLS and compression buffers) sit
in reference cycles that the serving process's rare full collections reach late
(`rest.app.settle_heap`), and glibc keeps what they freed: RSS grew 60 MB with 500
WebSockets and stayed there after they closed; a flood of refused 1 MB heads left 20-35 MB.
With a full collection and `malloc_trim` after a mass close, it came back to within the
heap the next connections reuse. The collection walks only what requests left (start-up's
objects are frozen): 50-150 ms for 500 sockets' garbage, so it runs at most every
GIVE_BACK_SECONDS, GIVE_BACK_DELAY after the count is reached (so that the rest of a mass
close is given back too). A mass close that outlasts GIVE_BACK_DELAY (a loaded machine
closing 400 sockets, each deleting its slots) left its last connections' garbage held
until the next mass close, which may never come (49 MB kept after the third round of
tests/e2e/live_changes/test_sockets.py): so connections closed after a mass close's
give-back get one give-back of their own, at the same pace.
"""

from __future__ import annotations

import asyncio
import ctypes
import functools
import gc
from collections.abc import Callable

GIVE_BACK_DELAY = 1.0
GIVE_BACK_SECONDS = 5.0


class GiveBack:
    """Counts closed connections of one kind; after `after` of them, gives the heap back
    (`give_back`) GIVE_BACK_DELAY later, at most every GIVE_BACK_SECONDS."""

    def __init__(self, after: int) -> None:
        self.after = after
        self.closed = 0  # closed since memory was last given back
        self.given_back = float("-inf")  # when (the loop's clock)
        self.trailing = False  # the last give-back was a mass close's: its rest get one
        self._pending: asyncio.TimerHandle | None = None

    def count(self) -> None:
        """One more connection closed (called on the event loop)."""
        self.closed += 1
        if self._pending is None and (self.closed >= self.after or self.trailing):
            loop = asyncio.get_running_loop()
            at = max(loop.time() + GIVE_BACK_DELAY, self.given_back + GIVE_BACK_SECONDS)
            self._pending = loop.call_at(at, self._give_back)

    def _give_back(self) -> None:
        self.trailing = self.closed >= self.after  # a rest's own give-back is not followed
        self.closed, self.given_back, self._pending = 0, asyncio.get_running_loop().time(), None
        give_back()


def give_back() -> None:
    """A full collection, then glibc's `malloc_trim`."""
    gc.collect()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's `malloc_trim`, or None elsewhere (musl, macOS)."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    return trim
