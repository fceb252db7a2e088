"""The fields of vector tiles (docs/tiles.md): one tile, the tiles' TileJSON and a
MapLibre style, of one asset. Access first (the field's permission class), then the
input (z, x, y), then the asset (404 out of scope, like every read), then its
georeferenced maps (422 without one). The encoding modules are imported on first use:
an ordinary request loads no numpy or shapely (tests/e2e/test_cold_start.py)."""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import xxhash

from resolvers import reads
from resolvers.context import RequestContext
from resolvers.errors import FieldErrors
from resolvers.limits import MAX_TILE_BYTES, MAX_TILE_FEATURES, MAX_TILE_ZOOM, MIN_TILE_ZOOM
from resolvers.tiles.sources import asset_tiles
from storage.cpu import run_cpu

if TYPE_CHECKING:  # parsing.geo's tiles bring numpy, shapely and the encoder: loaded on use
    from parsing.geo.tiles import EncodedTile


def check_tile(z: int, x: int, y: int) -> None:
    """z within the zooms served, x and y within the grid of z; every problem at once."""
    errors = FieldErrors()
    if not MIN_TILE_ZOOM <= z <= MAX_TILE_ZOOM:
        errors.add("z", f"must be from {MIN_TILE_ZOOM} to {MAX_TILE_ZOOM}")
    else:
        last = (1 << z) - 1
        for name, value in (("x", x), ("y", y)):
            if not 0 <= value <= last:
                errors.add(name, f"must be from 0 to {last} at zoom {z}")
    errors.raise_if_any()


async def vector_tile(
    context: RequestContext, asset_id: str, z: int, x: int, y: int
) -> dict[str, Any]:
    """The tile's MVT bytes (base64), its strong tag (the data version and the tile's
    address) and its feature count; encoded on the CPU pool once per data version."""
    check_tile(z, x, y)
    await reads.get_asset(context, asset_id)
    source = await asset_tiles(context, asset_id)
    tag = xxhash.xxh3_128_hexdigest(f"{source.version}/{z}/{x}/{y}".encode())

    async def encode() -> EncodedTile:
        from parsing.geo.tiles import encode_tile

        return await run_cpu(encode_tile, source.index, z, x, y, MAX_TILE_FEATURES, MAX_TILE_BYTES)

    cache = context.services.tile_cache
    tile = await cache.get(f"{asset_id}/{z}/{x}/{y}", source.version, encode)
    return {
        "etag": tag,
        "data": base64.b64encode(tile.data).decode("ascii"),
        "features": tile.features,
    }


def addresses(context: RequestContext, asset_id: str) -> tuple[str, str]:
    """The tiles' address template and the TileJSON's address, under `public_url`."""
    base = (
        f"{context.services.settings.public_url.rstrip('/')}/v1/assets/{quote(asset_id, safe='')}"
    )
    return f"{base}/tiles/{{z}}/{{x}}/{{y}}.mvt", f"{base}/tiles.json"


async def tile_json(context: RequestContext, asset_id: str) -> dict[str, Any]:
    """TileJSON 3.0.0 of the asset's tiles."""
    asset = await reads.get_asset(context, asset_id)
    source = await asset_tiles(context, asset_id)
    tiles, _ = addresses(context, asset_id)
    name = str(asset.get("name") or asset_id)
    from parsing.geo.tile_style import tile_json as tile_json_of

    return tile_json_of(source.index, name, tiles, MIN_TILE_ZOOM, MAX_TILE_ZOOM, source.attribution)


async def map_style(context: RequestContext, asset_id: str) -> dict[str, Any]:
    """A MapLibre style of the asset's tiles, shown at its default level."""
    asset = await reads.get_asset(context, asset_id)
    source = await asset_tiles(context, asset_id)
    _, tile_json_url = addresses(context, asset_id)
    name = str(asset.get("name") or asset_id)
    from parsing.geo.tile_style import map_style as style_of

    return style_of(source.index, name, tile_json_url, MIN_TILE_ZOOM)
