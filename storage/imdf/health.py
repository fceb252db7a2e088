"""The venue health report kept with its asset (docs/imdf.md, "The health report"): the
part only the import knows is written by `import-imdf` and `import-osm` in the import's
own transaction or switch (`venue_health_documents`, `import_data`'s `extra`), so it is
replaced with the venue, all or nothing; `floorgate check --venue` and the API read it
back and add what is found when asked (`routing/imdf/health_live.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import orjson

from routing.imdf.health import HealthReport, health_document, health_from_document, with_live
from storage import collections as col
from storage.cache import cached_reads
from storage.database import Store
from storage.files import get_file
from storage.timestamps import now

if TYPE_CHECKING:  # shapely and the encoder: loaded when a report is asked for
    from parsing.geo.tiles import TileIndex
    from routing.imdf.health_live import LiveChecks

MAP_FIELDS = {"geojson_file": 1, "levels": 1, "tags": 1}


def venue_health_documents(asset_id: str, report: HealthReport) -> dict[str, list[Any]]:
    """What an import writes besides its records: the report of its venue, by asset."""
    document = {
        "_id": asset_id,
        "asset_id": asset_id,
        "report": health_document(report),
        "created_at": now(),
    }
    return {col.VENUE_HEALTH: [document]}


async def stored_health(store: Store, asset_id: str) -> HealthReport | None:
    """The report the asset's last import-imdf or import-osm stored, or None (imported
    before the report existed, or by another command)."""
    found = await cached_reads.find_one(store, col.VENUE_HEALTH, {"_id": asset_id})
    return None if found is None else health_from_document(found["report"])


async def georeferenced_files(store: Store, asset_id: str) -> list[bytes]:
    """The stored GeoJSON of the asset's georeferenced maps (the tiles take each floor
    from the map drawing the most levels: `parsing.geo.tile_features.owners`)."""
    maps = await cached_reads.find_list(
        store, col.UNIT_MAPS, {"asset_id": asset_id}, [("_id", 1)], projection=MAP_FIELDS
    )
    found = []
    for unit_map in maps:
        if not unit_map.get("geojson_file"):
            continue
        stored = await get_file(store, unit_map["geojson_file"])
        if stored is not None:
            found.append(stored.data)
    return found


def tile_index(files: list[bytes]) -> TileIndex:
    """The tile index of the maps' GeoJSON (as the tiles build it)."""
    from parsing.geo.tile_features import tile_features
    from parsing.geo.tiles import build_index

    return build_index(tile_features([orjson.loads(data) for data in files]))


async def venue_health(
    store: Store, asset_id: str, live: Callable[[TileIndex], LiveChecks]
) -> HealthReport | None:
    """The asset's full report: the stored part and the live one (`live` given the
    asset's tile index); None when there is no such asset."""
    if await cached_reads.find_one(store, col.ASSETS, {"_id": asset_id}, {"_id": 1}) is None:
        return None
    stored = await stored_health(store, asset_id)
    files = await georeferenced_files(store, asset_id)
    if not files:
        note = "no georeferenced map: tiles and places listed twice not checked"
        return with_live(stored, [], 0, [note])
    checks = live(tile_index(files))
    return with_live(stored, checks.findings, checks.tiles_checked, checks.notes)
