"""Per-process caches of what a map derives, keyed by map id and version.

The version comes from the map document, read on every request (the graph file's
content-addressed name, or the map's `locations_version`), so a changed map is never
answered from stale data. Each cache is bounded in bytes, keys included (an estimate of
what each loaded value holds, measured in docs/limits.md); a new version of a map drops
the old one; a value is loaded once even when many requests ask for it at the same time.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from typing import Any, Generic, TypeVar

from routing.matrix import LoadedGraph
from routing.model import graph_from_bytes
from storage import collections as c
from storage.cache import cached_reads
from storage.cpu import run_cpu
from storage.database import Store
from storage.files import get_file
from storage.settings import Settings

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

    def __len__(self) -> int:
        return len(self._values)

    def figures(self) -> dict[str, int]:
        """What `/readyz` shows: entries, bytes kept (keys included), budget."""
        return {
            "entries": len(self._sizes),
            "bytes_used": self.bytes,
            "budget_bytes": self.max_bytes,
        }

    def clear(self) -> None:
        self._values.clear()
        self._sizes.clear()
        self.bytes = 0

    def _drop(self, key: Key) -> None:
        self._values.pop(key, None)
        self.bytes -= self._sizes.pop(key, 0)

    async def get(self, map_id: str, version: Hashable, load: Callable[[], Awaitable[T]]) -> T:
        key = (map_id, version)
        future = self._values.get(key)
        if future is not None:
            self._values.move_to_end(key)
            return await asyncio.shield(future)
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


def waypoints_bytes(waypoints: dict[str, dict[str, Any]]) -> int:
    """What `load_waypoints` keeps, estimated from its entries and their text."""
    return sum(
        WAYPOINT_BYTES + len(id_) + len(str(doc.get("name") or ""))
        for id_, doc in waypoints.items()
    )


async def load_graph(
    store: Store, settings: Settings, graph_file: str, floor_height: float
) -> LoadedGraph:
    """Read the stored graph and make it ready for queries (igraph, contraction)."""
    stored = await get_file(store, graph_file)
    if stored is None:
        raise LookupError(f"walk graph {graph_file} is not stored")
    graph = graph_from_bytes(stored.data)
    return await run_cpu(LoadedGraph, graph, settings.routing_costs, floor_height)


LOCATION_FIELDS = {"name": 1, "x": 1, "y": 1, "floors": 1}


async def load_waypoints(store: Store, map_id: str) -> dict[str, dict[str, Any]]:
    """What a distance matrix needs of each location of a map, by location id."""
    query = {"unit_map_id": map_id}
    found = await cached_reads.find_list(
        store, c.LOCATIONS, query, [("_id", 1)], projection=LOCATION_FIELDS
    )
    return {doc.pop("_id"): doc for doc in found}
