"""What the cache's background work shares."""

from __future__ import annotations

import asyncio
from typing import Any


def retrieved(done: asyncio.Future[Any]) -> None:
    """A done callback for work whose error is its waiters' or nobody's (a shared query,
    a poll, an abandoned getMore): asyncio then logs no "exception was never retrieved"."""
    if not done.cancelled():
        done.exception()
