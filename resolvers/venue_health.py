"""`venueHealth` (issue 65, point 6; docs/imdf.md, "The health report"): an asset's venue
health report for operators. Access first (the field's permission class: service.admin),
then the id and the asset (404 out of scope, like every read); then the part the
import stored (`storage/imdf/health.py`) and the part found now from the asset's tile
index (`routing/imdf/health_live.py`: every tile z14-18 encoded, places listed twice), on
the CPU pool. The index is the tiles' own, one per data version (`asset_tiles`), and the
whole answer is kept by the answer cache until a write of what it read; the field is
priced high (`VENUE_HEALTH_COST`, resolvers/limits.py) for the first, uncached answer."""

from __future__ import annotations

from typing import Any

from resolvers import reads
from resolvers.context import RequestContext
from resolvers.limits import MAX_HEALTH_TILES, MAX_TILE_BYTES, MAX_TILE_FEATURES
from resolvers.paging import BY_ID, find_all
from resolvers.tiles.sources import asset_tiles
from storage import collections as c
from storage.cpu import run_cpu

NO_MAP = "no georeferenced map: tiles and places listed twice not checked"


async def venue_health(context: RequestContext, asset_id: str) -> dict[str, Any]:
    """The report as `floorgate check --venue --json` gives it, with the asset's id."""
    # shapely and the encoder: loaded by the first report, not by every request
    from routing.imdf.health import health_document, with_live
    from routing.imdf.health_live import live_checks
    from storage.imdf.health import stored_health

    await reads.get_asset(context, asset_id)
    stored = await stored_health(context.store, asset_id)
    maps = await find_all(
        context.store, c.UNIT_MAPS, {"asset_id": asset_id}, BY_ID, {"geojson_file": 1}
    )
    if not any(m.get("geojson_file") for m in maps):
        report = with_live(stored, [], 0, [NO_MAP])
    else:
        source = await asset_tiles(context, asset_id)
        checks = await run_cpu(
            live_checks, source.index, MAX_TILE_FEATURES, MAX_TILE_BYTES, MAX_HEALTH_TILES
        )
        report = with_live(stored, checks.findings, checks.tiles_checked, checks.notes)
    document = health_document(report)
    return {"asset_id": asset_id, "lines": [f["line"] for f in document["findings"]], **document}
