"""Each asset's search index, per process: built from its stored units and locations on
the first search, kept until one of those collections changes (the read cache's
versions, which this process's writes and the change stream move), bounded in bytes with
its key (`VersionedCache`), reported in `/readyz` as `search_indexes`.

A request that is served from a kept index notes the versions it was built for in its
read log, so an answer kept from it (REST GETs, /graphql queries) goes stale with it.
While the change stream is down the read cache serves nothing, and neither does this:
every search then builds its index afresh (and its answer is not kept).
"""

from __future__ import annotations

import asyncio
from typing import Any

from resolvers.search.index import SearchIndex
from resolvers.search.places import collect
from resolvers.wayfinding.versioned_cache import VersionedCache
from storage import collections as c
from storage.cache import cached_reads
from storage.cache.names import READ_LANGUAGE
from storage.cache.read_cache import READS
from storage.cpu import run_cpu
from storage.database import Store

INDEXED = (c.UNITS, c.LOCATIONS)  # what an index is built from: their versions key it
UNIT_FIELDS = {"name": 1, "names": 1, "floor_id": 1}
LOCATION_FIELDS = {"unit_map_id": 1, "name": 1, "names": 1, "floors": 1, "tags": 1}
Document = dict[str, Any]
# Places built on the event loop; more are built on the CPU pool (storage.cpu).
ON_LOOP_PLACES = 500


async def asset_index(
    store: Store, cache: VersionedCache[SearchIndex], asset_id: str
) -> SearchIndex:
    """The search index of `asset_id`, as its stored data is now."""
    reads = store.cache
    if not (reads.live and reads.enabled):
        return await build(store, asset_id)
    version = tuple(reads.version(name) for name in INDEXED)
    log = READS.get()
    if log is not None:
        for name, noted in zip(INDEXED, version, strict=True):
            log.note(name, noted)
    return await cache.get(asset_id, version, lambda: build(store, asset_id))


async def build(store: Store, asset_id: str) -> SearchIndex:
    """Read the asset's units and locations and index them (off the loop when large),
    with their names as stored: an index serves every language (issue 51)."""
    query = {"asset_id": asset_id}
    token = READ_LANGUAGE.set(None)
    try:
        units, locations = await asyncio.gather(  # two reads at once: 0.8 s became 0.56 s
            cached_reads.find_list(store, c.UNITS, query, [("_id", 1)], projection=UNIT_FIELDS),
            cached_reads.find_list(
                store, c.LOCATIONS, query, [("_id", 1)], projection=LOCATION_FIELDS
            ),
        )
    finally:
        READ_LANGUAGE.reset(token)
    if len(units) + len(locations) <= ON_LOOP_PLACES:
        return _index(asset_id, units, locations)
    return await run_cpu(_index, asset_id, units, locations)


def _index(asset_id: str, units: list[Document], locations: list[Document]) -> SearchIndex:
    return SearchIndex(collect(asset_id, units, locations))
