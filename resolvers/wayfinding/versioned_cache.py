"""A per-process cache of values derived from a map, keyed by map id and version, bounded
in bytes, keys included (`VersionedCache`); what a map's waypoints hold in it. Apart
from the loaders (`graph_cache`): a process makes its caches at start, and nothing of
routing needs importing for that."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from typing import Any, Generic, TypeVar

T = TypeVar("T")
Key = tuple[str, Hashable]
KEY_BYTES = 200  # a key's tuple and version, besides the map id's characters
# What one cached waypoint holds (a dict of name, x, y and floors, and its id), besides
# the characters of its id and name: 660-690 bytes measured with tracemalloc.
WAYPOINT_BYTES = 700


class VersionedCache(Generic[T]):
    """Values by (map id, version), least recently used first out when their bytes
    (`size_of` each value, plus its key) pass `max_bytes`. A value larger than the whole
    budget is answered but not kept; values still loading count nothing yet."""

    def __init__(self, max_bytes: int, size_of: Callable[[T], int]) -> None:
        self.max_bytes = max_bytes
        self.size_of = size_of
        self.bytes = 0
        self._values: OrderedDict[Key, asyncio.Future[T]] = OrderedDict()
        self._sizes: dict[Key, int] = {}
        self.hits = self.misses = self.evictions = 0  # `/metrics` (rest/ops/caches.py)

    def __len__(self) -> int:
        return len(self._values)

    def figures(self) -> dict[str, int]:
        """What `/readyz` shows: entries, bytes kept (keys included), budget, and the
        values served as kept or being made, those loaded, and those let go for room."""
        return {
            "entries": len(self._sizes),
            "bytes_used": self.bytes,
            "budget_bytes": self.max_bytes,
            "hits": self.hits,
            "misses": self.misses,
            "evictions": self.evictions,
        }

    def clear(self) -> None:
        self._values.clear()
        self._sizes.clear()
        self.bytes = 0

    def _drop(self, key: Key) -> None:
        self._values.pop(key, None)
        self.bytes -= self._sizes.pop(key, 0)

    def kept(self, map_id: str) -> T | None:
        """The value kept for `map_id` under any version (loaded, not failed), or None:
        what a loader of a newer version may start from (`get` drops it first)."""
        for key in reversed(self._values):
            if key[0] == map_id and key in self._sizes:
                return self._values[key].result()
        return None

    async def get(self, map_id: str, version: Hashable, load: Callable[[], Awaitable[T]]) -> T:
        key = (map_id, version)
        future = self._values.get(key)
        if future is not None:
            self.hits += 1
            self._values.move_to_end(key)
            return await asyncio.shield(future)
        self.misses += 1
        future = asyncio.get_running_loop().create_future()
        for old in [k for k in self._values if k[0] == map_id]:
            self._drop(old)  # an older version of this map
        self._values[key] = future
        try:
            value = await load()
        except BaseException as error:
            if self._values.get(key) is future:
                self._drop(key)
            future.set_exception(error)
            future.exception()  # retrieved: waiters get it, nobody logs it as lost
            raise
        future.set_result(value)
        if self._values.get(key) is future:  # not dropped for a newer version meanwhile
            self._keep(key, self.size_of(value) + KEY_BYTES + len(map_id))
        return value

    def _keep(self, key: Key, size: int) -> None:
        if size > self.max_bytes:
            self._drop(key)
            return
        self._sizes[key] = size
        self.bytes += size
        for oldest in [k for k in self._values if k in self._sizes and k != key]:
            if self.bytes <= self.max_bytes:
                break
            self._drop(oldest)
            self.evictions += 1


def waypoints_bytes(waypoints: dict[str, dict[str, Any]]) -> int:
    """What `load_waypoints` keeps, estimated from its entries and their text."""
    return sum(
        WAYPOINT_BYTES + len(id_) + len(str(doc.get("name") or ""))
        for id_, doc in waypoints.items()
    )
