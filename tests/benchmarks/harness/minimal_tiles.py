"""The yardstick of `tiles` (issue 49): the minimal server of `minimal_server.py` (its key
check, its uvicorn, its TLS) with one more route, `GET /v1/assets/{asset}/tiles/{z}/{x}/{y}.mvt`,
doing the work a vector tile cannot avoid and nothing more:

- the key as floorgate checks it (`Server.key`), the asset in the key's scope (else 404),
  z/x/y integers on the grid of z 14-22 (else 422);
- per request, one `find` of the asset's maps (`geojson_file`, by `_id`): their file
  names are the data version, as floorgate's (content-addressed names);
- per data version (a dict holding the asset's latest one), the index: every map's
  stored GeoJSON read from GridFS, parsed with orjson, each floor drawn from the map
  drawing the most levels (ties: the first map id), each feature projected to Web
  Mercator with numpy and put in a shapely STRtree, on a thread;
- per tile and data version (a dict of encoded bytes, emptied when the version moves),
  on a thread: the features meeting the tile's inside (STRtree, `touches` left out),
  moved to tile units, clipped to the tile and its 64-unit buffer
  (`shapely.clip_by_rect`), simplified by half a unit, all as whole arrays (shapely 2's
  vectorised functions), then `mapbox_vector_tile.encode`: the same layers, properties
  and options as floorgate, so the same features.

No GraphQL, runner, rate limit, ETag, Cache-Control, compression, feature or byte limits,
asset lookup (an asset without maps is 404) or cache bounds. Started as a program:

    python -m tests.benchmarks.harness.minimal_tiles --mongodb-uri URI --database NAME \
        --port PORT --cert CERT --key KEY --public-url https://localhost:PORT

It imports nothing from floorgate (only the minimal server beside it).
"""

from __future__ import annotations

import argparse
import asyncio
import math
from dataclasses import dataclass
from typing import Any

import mapbox_vector_tile
import numpy as np
import orjson
import shapely
import uvicorn
from gridfs import AsyncGridFSBucket
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from tests.benchmarks.harness.minimal_server import Server, error

EARTH_RADIUS = 6_378_137.0
MAX_LATITUDE = 85.0511287798
WORLD = 2 * math.pi * EARTH_RADIUS
EXTENT, BUFFER, SIMPLIFY = 4096, 64, 0.5
MIN_ZOOM, MAX_ZOOM = 14, 22
MVT = "application/vnd.mapbox-vector-tile"
FIELDS = {  # floorgate's layers, bottom to top, and the properties each carries
    "outline": ("id", "name", "floor_id", "level"),
    "spaces": ("id", "category", "floor_id", "level"),
    "units": ("id", "name", "category", "floor_id", "level"),
    "openings": ("id", "floor_id", "level"),
    "locations": ("id", "name", "category", "level"),
}
LAYER_OF = {"level": "outline", "space": "spaces", "unit": "units", "opening": "openings"}
ID_OF = {"level": "uid", "space": "uid", "unit": "unit_id", "opening": "uid"}
OPTIONS = {
    "extents": EXTENT,
    "y_coord_down": True,
    "on_invalid_geometry": mapbox_vector_tile.encoder.on_invalid_geometry_make_valid,
}


@dataclass(frozen=True)
class Index:
    """An asset's features at one data version: layers, geometries, properties, tree."""

    version: str
    layers: list[str]
    geometries: np.ndarray
    properties: list[dict[str, str]]
    tree: shapely.STRtree


def kind(feature: dict[str, Any]) -> str:
    return str((feature.get("properties") or {}).get("feature_type"))


def floor_of(feature: dict[str, Any]) -> Any:
    properties = feature.get("properties") or {}
    if kind(feature) == "level":
        return (properties.get("tags") or {}).get("floor")
    return properties.get("floor_id")


def owned_floors(collections: list[dict[str, Any]]) -> list[set[Any]]:
    """Each floor to the collection drawing the most levels (ties: the first)."""
    drawn = [{floor_of(f) for f in c["features"] if kind(f) != "location"} for c in collections]
    levels = [sum(kind(f) == "level" for f in c["features"]) for c in collections]
    owned: list[set[Any]] = [set() for _ in collections]
    for floor in set().union(*drawn) - {None}:
        best = max(
            (i for i, floors in enumerate(drawn) if floor in floors), key=lambda i: (levels[i], -i)
        )
        owned[best].add(floor)
    for i, floors in enumerate(drawn):
        if floors <= {None}:
            owned[i].add(None)
    return owned


def mercator(lon_lat: np.ndarray) -> np.ndarray:
    lon = np.radians(lon_lat[:, 0])
    lat = np.radians(np.clip(lon_lat[:, 1], -MAX_LATITUDE, MAX_LATITUDE))
    return np.column_stack(
        (EARTH_RADIUS * lon, EARTH_RADIUS * np.log(np.tan(math.pi / 4 + lat / 2)))
    )


def build(version: str, files: list[bytes]) -> Index:
    """The files parsed, their drawn features projected and indexed."""
    collections = [orjson.loads(data) for data in files]
    found: list[tuple[int, str, dict[str, Any], dict[str, str]]] = []
    order = {layer: n for n, layer in enumerate(FIELDS)}
    for collection, owned in zip(collections, owned_floors(collections), strict=True):
        for feature in collection["features"]:
            properties = feature.get("properties") or {}
            level, geometry, what = properties.get("level"), feature.get("geometry"), kind(feature)
            if geometry is None or not isinstance(level, str):
                continue
            if what == "location":
                if not owned.intersection(properties.get("floor_ids") or [None]):
                    continue
                layer = "locations"
                values = {
                    "id": properties.get("location_id"),
                    "name": properties.get("name"),
                    "category": (properties.get("tags") or {}).get("category"),
                    "level": level,
                }
            elif what in LAYER_OF and floor_of(feature) in owned:
                layer = LAYER_OF[what]
                values = {
                    "id": properties.get(ID_OF[what]),
                    "name": properties.get("name"),
                    "category": properties.get("category"),
                    "floor_id": floor_of(feature),
                    "level": level,
                }
            else:
                continue
            kept = {k: str(values[k]) for k in FIELDS[layer] if values.get(k) is not None}
            found.append((order[layer], layer, geometry, kept))
    found.sort(key=lambda row: row[0])
    geometries = shapely.transform(
        np.array([shapely.geometry.shape(row[2]) for row in found], dtype=object), mercator
    )
    layers = [row[1] for row in found]
    return Index(
        version, layers, geometries, [row[3] for row in found], shapely.STRtree(geometries)
    )


def encode(index: Index, z: int, x: int, y: int) -> bytes:
    """The tile: its features moved to tile units, clipped and simplified as arrays."""
    size = WORLD / (1 << z)
    west, north = -WORLD / 2 + x * size, WORLD / 2 - y * size
    box = shapely.box(west, north - size, west + size, north)
    hits = np.sort(index.tree.query(box, predicate="intersects"))
    hits = hits[~shapely.touches(box, index.geometries[hits])]
    scale = EXTENT / size
    origin = np.array([west, north])
    flip = np.array([scale, -scale])
    local = shapely.transform(index.geometries[hits], lambda xy: (xy - origin) * flip)
    clipped = shapely.clip_by_rect(local, -BUFFER, -BUFFER, EXTENT + BUFFER, EXTENT + BUFFER)
    simple = shapely.simplify(clipped, SIMPLIFY, preserve_topology=True)
    features: dict[str, list[dict[str, Any]]] = {layer: [] for layer in FIELDS}
    for i, shape in zip(hits.tolist(), simple, strict=True):
        if not shape.is_empty:
            features[index.layers[i]].append({"geometry": shape, "properties": index.properties[i]})
    layers = [{"name": name, "features": found} for name, found in features.items() if found]
    return bytes(mapbox_vector_tile.encode(layers, default_options=OPTIONS))


class TileServer(Server):
    """The minimal server, with the asset's index and tiles kept per data version."""

    def __init__(self, uri: str, database: str, public_url: str) -> None:
        super().__init__(uri, database, public_url)
        self.indexes: dict[str, Index] = {}
        self.tiles: dict[tuple[str, int, int, int], bytes] = {}

    async def tile(self, request: Request) -> Response:
        key = await self.key(request)
        if isinstance(key, Response):
            return key
        asset = request.path_params["asset"]
        assets = key.get("assets")
        if assets is not None and asset not in assets:
            return error(404, "Not found")
        try:
            z, x, y = (int(request.path_params[name]) for name in ("z", "x", "y"))
        except ValueError:
            return error(422, "Resource validation failed")
        if not MIN_ZOOM <= z <= MAX_ZOOM or not (0 <= x < 1 << z and 0 <= y < 1 << z):
            return error(422, "Resource validation failed")
        assert self.db is not None
        maps = self.db["unit_maps"].find({"asset_id": asset}, {"geojson_file": 1}).sort("_id", 1)
        files = [m["geojson_file"] for m in await maps.to_list() if m.get("geojson_file")]
        if not files:
            return error(404, "Not found")
        version = "\n".join(files)
        index = self.indexes.get(asset)
        if index is None or index.version != version:
            bucket = AsyncGridFSBucket(self.db)
            data = [await (await bucket.open_download_stream_by_name(f)).read() for f in files]
            index = await asyncio.to_thread(build, version, data)
            self.indexes[asset] = index
            self.tiles = {k: v for k, v in self.tiles.items() if k[0] != asset}
        tile = self.tiles.get((asset, z, x, y))
        if tile is None:
            tile = await asyncio.to_thread(encode, index, z, x, y)
            if self.indexes.get(asset) is index:
                self.tiles[(asset, z, x, y)] = tile
        return Response(tile, media_type=MVT)


def create_app(uri: str, database: str, public_url: str) -> Starlette:
    server = TileServer(uri, database, public_url)
    routes = [
        Route("/v1/assets/{asset}", server.get_asset, methods=["GET"]),
        Route("/v1/assets/{asset}/tiles/{z}/{x}/{y}.mvt", server.tile, methods=["GET"]),
    ]
    return Starlette(routes=routes, lifespan=server.lifespan)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--mongodb-uri", required=True)
    parser.add_argument("--database", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--public-url", required=True)
    args = parser.parse_args()
    app = create_app(args.mongodb_uri, args.database, args.public_url)
    uvicorn.run(app, host=args.host, port=args.port, ssl_certfile=args.cert, ssl_keyfile=args.key)


if __name__ == "__main__":
    main()
