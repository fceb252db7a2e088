"""Vector tiles of an asset's georeferenced maps, their TileJSON and a MapLibre style
(docs/tiles.md)."""

from __future__ import annotations

from rest.v1.routes.params import HARBOR
from rest.v1.routes.rows import TILE_TYPE, Example, Param, RestRoute, Shape, path

TILE_XYZ = tuple(Param(name, name, "Int!", "path") for name in ("z", "x", "y"))

TILES: tuple[RestRoute, ...] = (
    RestRoute(
        "GET",
        "/v1/assets/{asset}/tiles/{z}/{x}/{y}.mvt",
        "getVectorTile",
        "Get a vector tile of an asset (Mapbox Vector Tile 2.1)",
        "vectorTile",
        "VectorTileFields",
        Shape.TILE,
        (path("asset", "assetId"), *TILE_XYZ),
        media_type=TILE_TYPE,
        example=Example({**HARBOR, "z": "18", "x": "41985", "y": "91551"}),
    ),
    RestRoute(
        "GET",
        "/v1/assets/{asset}/tiles.json",
        "getTileJson",
        "Get the TileJSON 3.0.0 of an asset's vector tiles",
        "tileJson",
        None,
        Shape.SINGLE,
        (path("asset", "assetId"),),
        example=Example(HARBOR),
    ),
    RestRoute(
        "GET",
        "/v1/assets/{asset}/style.json",
        "getMapStyle",
        "Get a MapLibre style of an asset's vector tiles",
        "mapStyle",
        None,
        Shape.SINGLE,
        (path("asset", "assetId"),),
        example=Example(HARBOR),
    ),
)
