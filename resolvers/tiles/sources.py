"""What an asset's tiles are cut from: its georeferenced maps' stored GeoJSON files, read
into one feature index per data version (no import step of their own), and the
per-process caches of indexes and encoded tiles (counted in /readyz)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson
import xxhash

from parsing.osm.model import ATTRIBUTION as OSM_ATTRIBUTION
from parsing.osm.model import LICENCE_TAG
from resolvers.context import RequestContext
from resolvers.errors import FieldErrors
from resolvers.paging import BY_ID, find_all
from storage import collections as c
from storage.cpu import run_cpu
from storage.files import get_file

if TYPE_CHECKING:  # numpy and shapely: loaded by the first tile, not by every request
    from parsing.geo.tiles import TileIndex

# A change of what a tile holds or how it is encoded changes every tag: part of the version.
TILE_FORMAT = "mvt-2.1/2"
NOT_GEOREFERENCED = "has no georeferenced map: tiles need a map with a georeference"


@dataclass(frozen=True)
class AssetTiles:
    version: str  # of the maps' GeoJSON files (content-addressed) and TILE_FORMAT
    index: TileIndex
    attribution: str | None  # the data's licence line, shown by the map (TileJSON)


async def asset_tiles(context: RequestContext, asset_id: str) -> AssetTiles:
    """The asset's feature index at its current data version (the asset exists and the
    caller may see it: checked before). 422 on `assetId` without a georeferenced map."""
    maps = await find_all(
        context.store,
        c.UNIT_MAPS,
        {"asset_id": asset_id},
        BY_ID,
        {"geojson_file": 1, "tags": 1, "levels": 1},
    )
    maps = [m for m in maps if m.get("geojson_file")]
    files = [(m["id"], m["geojson_file"]) for m in maps]
    if not files:
        errors = FieldErrors()
        errors.add("assetId", NOT_GEOREFERENCED)
        errors.raise_if_any()
    version = xxhash.xxh3_128_hexdigest(orjson.dumps([TILE_FORMAT, files]))

    sources = drawing_maps(maps)

    async def load() -> TileIndex:
        read = await asyncio.gather(*(get_file(context.store, m["geojson_file"]) for m in sources))
        return await run_cpu(_index, [stored.data for stored in read if stored is not None])

    index = await context.services.tile_indexes.get(asset_id, version, load)
    licensed = any(LICENCE_TAG in (m.get("tags") or []) for m in maps)
    return AssetTiles(version, index, OSM_ATTRIBUTION if licensed else None)


def drawing_maps(maps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The maps whose GeoJSON the tiles read: a map each of whose floors another map of
    more levels draws too is left unread, as the tiles would take none of its features
    (each floor comes from the map drawing the most levels: parsing.geo.tile_features
    `owners`). An IMDF venue's level maps repeat its stack map: half the parse saved."""
    drawn = [
        (m, {level.get("floor_id") for level in m.get("levels") or []}, len(m.get("levels") or []))
        for m in maps
    ]

    def covered(floors: set[Any], count: int, me: dict[str, Any]) -> bool:
        return (
            bool(floors)
            and None not in floors
            and all(
                any(floor in theirs and more > count for m, theirs, more in drawn if m is not me)
                for floor in floors
            )
        )

    return [m for m, floors, count in drawn if not covered(floors, count, m)]


def _index(collections: list[bytes]) -> TileIndex:
    """On the CPU pool: the files parsed, their features projected and indexed."""
    from parsing.geo.tile_features import tile_features
    from parsing.geo.tiles import build_index
    from parsing.imdf.label_rank import label_rank

    return build_index(tile_features([orjson.loads(d) for d in collections], label_rank))
