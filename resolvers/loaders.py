"""DataLoaders for nested fields: one database command per relation per request level.

A query for 100 maps with their units costs one `find` for the maps and one for
all their units, however many maps there are.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Sequence
from typing import Any

from strawberry.dataloader import DataLoader

from resolvers.paging import Sort, find_all
from storage import collections as c
from storage.database import Store

Document = dict[str, Any]


def _grouped_loader(
    store: Store, collection: str, field: str, sort: Sort
) -> DataLoader[str, list[Document]]:
    """Documents whose `field` equals each key, in `sort` order."""

    async def load(keys: Sequence[str]) -> list[list[Document]]:
        documents = await find_all(store[collection], {field: {"$in": list(keys)}}, sort)
        groups: dict[Hashable, list[Document]] = defaultdict(list)
        for document in documents:
            groups[document[field]].append(document)
        return [groups.get(key, []) for key in keys]

    return DataLoader(load_fn=load)


def _by_id_loader(store: Store, collection: str) -> DataLoader[str, Document | None]:
    async def load(keys: Sequence[str]) -> list[Document | None]:
        documents = await find_all(store[collection], {"_id": {"$in": list(keys)}})
        by_id = {document["id"]: document for document in documents}
        return [by_id.get(key) for key in keys]

    return DataLoader(load_fn=load)


class Loaders:
    """The loaders of one request."""

    def __init__(self, store: Store) -> None:
        by_id = [("_id", 1)]
        self.floors_by_asset = _grouped_loader(
            store, c.FLOORS, "asset_id", [("sort", 1), ("_id", 1)]
        )
        self.units_by_asset = _grouped_loader(store, c.UNITS, "asset_id", by_id)
        self.units_by_floor = _grouped_loader(store, c.UNITS, "floor_id", by_id)
        self.maps_by_asset = _grouped_loader(store, c.UNIT_MAPS, "asset_id", by_id)
        self.backgrounds_by_map = _grouped_loader(store, c.BACKGROUNDS, "unit_map_id", by_id)
        self.level_tags_by_map = _grouped_loader(store, c.LEVEL_TAGS, "unit_map_id", [("key", 1)])
        self.asset_references_by_asset = _grouped_loader(
            store, c.ASSET_REFERENCES, "asset_id", by_id
        )
        self.unit_references_by_unit = _grouped_loader(
            store, c.UNIT_REFERENCES, "unit_id", [("key", 1)]
        )
        self.locations_by_map = _grouped_loader(store, c.LOCATIONS, "unit_map_id", by_id)
        self.unit_by_id = _by_id_loader(store, c.UNITS)
        self.asset_by_id = _by_id_loader(store, c.ASSETS)


async def units_of_map(loaders: Loaders, unit_map: Document) -> list[Document]:
    """The map's units (those of the map's asset), in id order."""
    units = await loaders.unit_by_id.load_many(unit_map.get("unit_ids", []))
    asset_id = unit_map.get("asset_id")
    found = [unit for unit in units if unit is not None and unit.get("asset_id") == asset_id]
    return sorted(found, key=lambda unit: unit["id"])


