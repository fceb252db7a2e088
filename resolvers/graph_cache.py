"""Loaded walk graphs of this process, bounded, keyed by map id and graph version.

The version is the graph file's content-addressed name, read from the map document
on every request, so a changed map is never answered from a stale graph. A graph is
loaded once even when many requests ask for it at the same time.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict

from routing.matrix import LoadedGraph
from routing.model import graph_from_bytes
from storage.database import Store
from storage.files import get_file
from storage.settings import Settings

Key = tuple[str, str, float]  # map id, graph file, floor height


class GraphCache:
    def __init__(self, size: int) -> None:
        self.size = max(1, size)
        self._graphs: OrderedDict[Key, asyncio.Future[LoadedGraph]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._graphs)

    async def get(
        self, store: Store, settings: Settings, map_id: str, graph_file: str, floor_height: float
    ) -> LoadedGraph:
        key = (map_id, graph_file, floor_height)
        future = self._graphs.get(key)
        if future is not None:
            self._graphs.move_to_end(key)
            return await asyncio.shield(future)
        future = asyncio.get_running_loop().create_future()
        self._graphs[key] = future
        for old in [k for k in self._graphs if k[0] == map_id and k != key]:
            del self._graphs[old]  # an older version of this map
        while len(self._graphs) > self.size:
            self._graphs.popitem(last=False)
        try:
            loaded = await load_graph(store, settings, graph_file, floor_height)
        except BaseException as error:
            self._graphs.pop(key, None)
            future.set_exception(error)
            future.exception()  # retrieved: waiters get it, nobody logs it as lost
            raise
        future.set_result(loaded)
        return loaded


async def load_graph(
    store: Store, settings: Settings, graph_file: str, floor_height: float
) -> LoadedGraph:
    """Read the stored graph and make it ready for queries (igraph, spatial indexes)."""
    stored = await get_file(store, graph_file)
    if stored is None:
        raise LookupError(f"walk graph {graph_file} is not stored")
    graph = graph_from_bytes(stored.data)
    return await asyncio.to_thread(LoadedGraph, graph, settings.routing_costs, floor_height)
