"""DataLoaders for nested fields: one database command per relation per request level.

A query for 100 maps with their units costs one command for the maps and one for
all their units, however many maps there are.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Sequence
from typing import Any

from strawberry.dataloader import DataLoader

from resolvers.paging import BY_ID, Sort, as_resource
from storage import collections as c
from storage.cache import cached_reads
from storage.database import Store

Document = dict[str, Any]

# Values of one `$lookup` in `find_in`. The embedded server matches `$in` in time
# quadratic in its length (2,000 unit ids in one `$in`: 5.7 s), and one index lookup
# per value costs it more than a short list; 25 measured best (2,000 ids: about
# 0.26 s of server time at 10, 25 or 50, 0.4 s at 100). See docs/performance-history.md.
LOOKUP_CHUNK = 25
# Documents of one reply: a loader reads all it asked for, so the whole answer comes in
# one reply (up to the server's 16 MB) instead of a first batch of 101 and a getMore.
BATCH_SIZE = 100_000
# Values sent in one command: with ids of up to 255 characters, 20,000 of them stay
# well under the 16 MB a command may hold.
VALUES_PER_COMMAND = 20_000


async def find_in(
    store: Store, collection: str, field: str, values: Sequence[Hashable], sort: Sort
) -> list[Document]:
    """Documents whose `field` (a single value) is one of `values`, in one command;
    those of any one value in `sort` order.

    Up to LOOKUP_CHUNK values are one `find` with `$in`. Longer lists go to the
    server as chunks of LOOKUP_CHUNK, each joined through `field`'s index by `$lookup`
    in one aggregate (MongoDB 5.1+ for `$documents`), so the server's cost grows with
    the documents found, not with their square. Past VALUES_PER_COMMAND values there
    is one aggregate per that many.
    """
    unique = list(dict.fromkeys(values))
    if len(unique) <= LOOKUP_CHUNK:
        documents = await cached_reads.find_list(
            store, collection, {field: {"$in": unique}}, sort, batch_size=BATCH_SIZE
        )
        return [as_resource(document) for document in documents]
    found: list[Document] = []
    for start in range(0, len(unique), VALUES_PER_COMMAND):
        part = unique[start : start + VALUES_PER_COMMAND]
        chunks = [{"k": part[i : i + LOOKUP_CHUNK]} for i in range(0, len(part), LOOKUP_CHUNK)]
        pipeline: list[Document] = [
            {"$documents": chunks},
            {"$lookup": {"from": collection, "localField": "k", "foreignField": field, "as": "d"}},
            {"$unwind": "$d"},
            {"$replaceWith": "$d"},
            {"$sort": dict(sort)},
        ]
        documents = await cached_reads.aggregate_list(store, collection, pipeline, BATCH_SIZE)
        found.extend(as_resource(document) for document in documents)
    return found


def _grouped_loader(
    store: Store, collection: str, field: str, sort: Sort
) -> DataLoader[str, list[Document]]:
    """Documents whose `field` equals each key, in `sort` order."""

    async def load(keys: Sequence[str]) -> list[list[Document]]:
        documents = await find_in(store, collection, field, keys, sort)
        groups: dict[Hashable, list[Document]] = defaultdict(list)
        for document in documents:
            groups[document[field]].append(document)
        return [groups.get(key, []) for key in keys]

    return DataLoader(load_fn=load)


def _by_id_loader(store: Store, collection: str) -> DataLoader[str, Document | None]:
    async def load(keys: Sequence[str]) -> list[Document | None]:
        documents = await find_in(store, collection, "_id", keys, BY_ID)
        by_id = {document["id"]: document for document in documents}
        return [by_id.get(key) for key in keys]

    return DataLoader(load_fn=load)


class Loaders:
    """The loaders of one request."""

    def __init__(self, store: Store) -> None:
        self.floors_by_asset = _grouped_loader(
            store, c.FLOORS, "asset_id", [("sort", 1), ("_id", 1)]
        )
        self.units_by_asset = _grouped_loader(store, c.UNITS, "asset_id", BY_ID)
        self.units_by_floor = _grouped_loader(store, c.UNITS, "floor_id", BY_ID)
        self.maps_by_asset = _grouped_loader(store, c.UNIT_MAPS, "asset_id", BY_ID)
        self.backgrounds_by_map = _grouped_loader(store, c.BACKGROUNDS, "unit_map_id", BY_ID)
        self.level_tags_by_map = _grouped_loader(store, c.LEVEL_TAGS, "unit_map_id", [("key", 1)])
        self.asset_references_by_asset = _grouped_loader(
            store, c.ASSET_REFERENCES, "asset_id", BY_ID
        )
        self.unit_references_by_unit = _grouped_loader(
            store, c.UNIT_REFERENCES, "unit_id", [("key", 1)]
        )
        self.locations_by_map = _grouped_loader(store, c.LOCATIONS, "unit_map_id", BY_ID)
        self.unit_by_id = _by_id_loader(store, c.UNITS)
        self.asset_by_id = _by_id_loader(store, c.ASSETS)


async def units_of_map(loaders: Loaders, unit_map: Document) -> list[Document]:
    """The map's units (those of the map's asset), in id order. The units of every map
    of a level are one `unit_by_id` batch."""
    units = await loaders.unit_by_id.load_many(unit_map.get("unit_ids", []))
    asset_id = unit_map.get("asset_id")
    found = [unit for unit in units if unit is not None and unit.get("asset_id") == asset_id]
    return sorted(found, key=lambda unit: unit["id"])
