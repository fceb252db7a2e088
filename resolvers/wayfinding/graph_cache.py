"""Per-process caches of what a map derives, keyed by map id and version: their loaders
(the cache itself: `versioned_cache`).

The version comes from the map document, read on every request (the graph file's
content-addressed name, or the map's `locations_version`), so a changed map is never
answered from stale data. Each cache is bounded in bytes, keys included (an estimate of
what each loaded value holds, measured in docs/limits.md); a new version of a map drops
the old one; a value is loaded once even when many requests ask for it at the same time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from routing.matrix import LoadedGraph
from routing.model import graph_from_bytes
from storage import collections as c
from storage.cache import cached_reads
from storage.cpu import run_cpu
from storage.database import Store
from storage.files import get_file
from storage.settings import Settings

T = TypeVar("T")


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


async def on_graph(
    loaded: LoadedGraph, work: Callable[..., T], *args: Any, stoppable: bool = False
) -> T:
    """`work(*args)` on a loaded graph: at once on a small one, else off the event loop
    (CPU work, `storage.cpu`); a `stoppable` work takes `stop=`, set when its request is
    cancelled (past its time budget), and ends soon after instead of computing on."""
    if loaded.is_small:
        return work(*args)
    return await run_cpu(work, *args, stoppable=stoppable)
