"""Mapbox Vector Tiles (2.1) of an asset's features (docs/tiles.md): the tile grid in
Web Mercator, the index of features built once per data version, and one tile clipped,
simplified and encoded by `mapbox-vector-tile` (never protobuf of our own).

Geometry never fails a tile (issue 65): the index makes every feature valid once per data
version (a GeoJSON file stored before imports checked validity), and a feature that GEOS
still cannot clip is made valid and clipped again, else left out of that tile and
counted (`EncodedTile.left_out`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import mapbox_vector_tile
import numpy as np
import shapely
from shapely import STRtree
from shapely.errors import GEOSException
from shapely.geometry.base import BaseGeometry

from parsing.geo.tile_features import EARTH_RADIUS, LAYERS, TileFeature
from parsing.geo.valid_shapes import LINEAR, POLYGONAL, made_valid

EXTENT = 4096  # tile units across a tile (MVT 2.1's default)
BUFFER = 64  # tile units drawn past each edge, so strokes meet across tiles
SIMPLIFY = 0.5  # tile units: below what a renderer can show
WORLD = 2 * math.pi * EARTH_RADIUS


@dataclass(frozen=True)
class TileIndex:
    """An asset's features and their spatial index; its bounds in degrees and levels."""

    features: tuple[TileFeature, ...]
    tree: STRtree
    bounds: tuple[float, float, float, float] | None  # west, south, east, north
    levels: tuple[str, ...]  # every level drawn, in numeric order
    repaired: tuple[str, ...] = ()  # "layer:id" of the features made valid here
    left_out: tuple[str, ...] = ()  # "layer:id" of those with nothing valid left
    level_names: tuple[tuple[str, str], ...] = ()  # (level, its outlines' names), by level

    @property
    def size(self) -> int:
        """Bytes it holds, roughly: 48 per coordinate, 400 per feature and its properties."""
        coordinates = sum(shapely.get_num_coordinates(f.geometry) for f in self.features)
        return 48 * int(coordinates) + 400 * len(self.features)


@dataclass(frozen=True)
class EncodedTile:
    data: bytes
    features: int  # features written
    left_out: int  # features of the tile beyond the limits, or that could not be clipped

    @property
    def size(self) -> int:
        """Bytes it holds kept: its data and the object around them."""
        return len(self.data) + 100


def build_index(features: Sequence[TileFeature]) -> TileIndex:
    """The index of `tile_features`: built once per data version, read by every tile;
    an invalid feature made valid (`made_valid`) or, with nothing valid left, left out."""
    features, repaired, left_out = _valid(features)
    geometries = [feature.geometry for feature in features]
    tree = STRtree(geometries)
    bounds = None
    if geometries:
        west, south, east, north = shapely.total_bounds(geometries)
        corners = np.array([[west, south], [east, north]], dtype=float)
        lon = np.degrees(corners[:, 0] / EARTH_RADIUS)
        lat = np.degrees(2 * np.arctan(np.exp(corners[:, 1] / EARTH_RADIUS)) - math.pi / 2)
        bounds = (float(lon[0]), float(lat[0]), float(lon[1]), float(lat[1]))
    levels = {level for f in features for level in f.properties["level"].split(";")}
    ordered = tuple(sorted(levels, key=lambda text: (float(text), text)))
    names = _level_names(features)
    named = tuple((level, names[level]) for level in ordered if level in names)
    return TileIndex(tuple(features), tree, bounds, ordered, repaired, left_out, named)


def _level_names(features: Sequence[TileFeature]) -> dict[str, str]:
    """Each level's name, as its outlines name it: two buildings' levels sharing an
    ordinal under different names are both named ("Concourse / Mezzanine")."""
    found: dict[str, list[str]] = {}
    for feature in features:
        name = feature.properties.get("name")
        if feature.layer == "outline" and name and name.strip():
            names = found.setdefault(feature.properties["level"], [])
            if name.strip() not in names:
                names.append(name.strip())
    return {level: " / ".join(names) for level, names in found.items()}


def _valid(
    features: Sequence[TileFeature],
) -> tuple[list[TileFeature], tuple[str, ...], tuple[str, ...]]:
    """The features, each invalid one repaired or dropped; the names of both (checked
    all at once: GEOS over the array)."""
    shapes = np.empty(len(features), dtype=object)
    shapes[:] = [feature.geometry for feature in features]
    broken = ~shapely.is_valid(shapes) | shapely.is_empty(shapes) if len(shapes) else []
    invalid = [int(i) for i in np.flatnonzero(broken)]
    if not invalid:
        return list(features), (), ()
    kept: list[TileFeature | None] = list(features)
    repaired, left_out = [], []
    for i in invalid:
        feature = features[i]
        name = f"{feature.layer}:{feature.properties.get('id')}"
        fixed = made_valid(feature.geometry) if not feature.geometry.is_empty else None
        if fixed is None:
            kept[i] = None
            left_out.append(name)
        else:
            kept[i] = TileFeature(feature.layer, fixed, feature.properties)
            repaired.append(name)
    return [f for f in kept if f is not None], tuple(repaired), tuple(left_out)


def tile_bounds(z: int, x: int, y: int) -> tuple[float, float, float, float]:
    """The tile's (minx, miny, maxx, maxy) in Web Mercator metres (XYZ: y down from north)."""
    size = WORLD / (1 << z)
    west = -WORLD / 2 + x * size
    north = WORLD / 2 - y * size
    return west, north - size, west + size, north


def tile_features_at(index: TileIndex, z: int, x: int, y: int) -> list[TileFeature]:
    """The features whose geometry meets the tile's inside (touching its edge is not
    enough), in layer order."""
    box = shapely.box(*tile_bounds(z, x, y))
    shapely.prepare(box)
    found = sorted(int(i) for i in index.tree.query(box, predicate="intersects"))
    kept = []
    for i in found:
        feature = index.features[i]
        if shapely.touches(box, feature.geometry):
            continue
        kept.append(feature)
    return kept


def encode_tile(
    index: TileIndex, z: int, x: int, y: int, max_features: int, max_bytes: int
) -> EncodedTile:
    """The tile's MVT bytes: each feature clipped to the tile and its buffer, in tile
    units (y down), simplified by half a unit. Beyond `max_features`, or past `max_bytes`
    encoded, the last features in layer order are left out (halving until it fits)."""
    features = tile_features_at(index, z, x, y)
    drawn: list[tuple[str, BaseGeometry, dict[str, str]]] = []
    unclipped = 0
    for feature, shape in zip(features, _local(features, z, x, y), strict=True):
        if shape is None:  # GEOS could not clip it, even made valid
            unclipped += 1
            continue
        kept = _kept(feature.geometry.geom_type, shape)
        if kept is not None:
            drawn.append((feature.layer, kept, feature.properties))
    total = len(drawn)
    count = min(total, max_features)
    while True:
        data = _encode(drawn[:count])
        if len(data) <= max_bytes or count == 0:
            return EncodedTile(data, count, total - count + unclipped)
        count //= 2


def _local(features: Sequence[TileFeature], z: int, x: int, y: int) -> np.ndarray:
    """The features in tile units (y down), clipped to the tile and its buffer and
    simplified, all at once (GEOS over the array: per feature, Python's calls cost more
    than the work); a point is only moved."""
    minx, _, maxx, maxy = tile_bounds(z, x, y)
    scale = EXTENT / (maxx - minx)
    # metres to tile units, y down: x' = (x - minx) * scale, y' = (maxy - y) * scale,
    # written as shapely.affinity.affine_transform computes it (the same bytes)
    a, b, d, e, xoff, yoff = scale, 0.0, 0.0, -scale, -minx * scale, maxy * scale

    def affine(coords: np.ndarray) -> np.ndarray:
        px, py = coords.T
        return np.stack([a * px + b * py + xoff, d * px + e * py + yoff]).T

    shapes = np.empty(len(features), dtype=object)
    shapes[:] = [feature.geometry for feature in features]
    local: np.ndarray = shapely.transform(shapes, affine)
    cut_out = shapely.get_type_id(local) != shapely.GeometryType.POINT
    clip = shapely.box(-BUFFER, -BUFFER, EXTENT + BUFFER, EXTENT + BUFFER)
    try:
        local[cut_out] = _cut(local[cut_out], clip)
    except GEOSException:  # a shape GEOS refuses: each alone, made valid if need be
        one_by_one = np.empty(int(cut_out.sum()), dtype=object)
        one_by_one[:] = [_cut_one(shape, clip) for shape in local[cut_out]]
        local[cut_out] = one_by_one
    return local


def _cut(shapes: np.ndarray, clip: BaseGeometry) -> np.ndarray:
    """Clipped to `clip`, then simplified by half a tile unit."""
    cut = shapely.intersection(shapes, clip)
    simplified: np.ndarray = shapely.simplify(cut, SIMPLIFY, preserve_topology=True)
    return simplified


def _cut_one(shape: BaseGeometry, clip: BaseGeometry) -> BaseGeometry | None:
    """One shape clipped and simplified; made valid first when GEOS refuses it as it is
    (in tile units: its own rounding may have broken it); None when even that fails."""
    for attempt in (shape, made_valid(shape)):
        if attempt is None:
            break
        one = np.empty(1, dtype=object)
        one[0] = attempt
        try:
            cut: BaseGeometry = _cut(one, clip)[0]
        except GEOSException:
            continue
        return cut
    return None


def _kept(kind: str, shape: BaseGeometry) -> BaseGeometry | None:
    """The clipped shape of its own kind (a polygon cut along an edge stays polygonal);
    None when nothing of it is left."""
    if shape.is_empty:
        return None
    if kind in POLYGONAL and shape.geom_type in LINEAR:  # a polygon without area: a line
        return None
    if shape.geom_type == "GeometryCollection":
        wanted = POLYGONAL if kind in POLYGONAL else LINEAR
        parts = [part for part in shape.geoms if part.geom_type in wanted]
        if not parts:
            return None
        shape = shapely.union_all(parts)
    return shape


def _encode(drawn: Sequence[tuple[str, BaseGeometry, dict[str, str]]]) -> bytes:
    layers = [
        {
            "name": layer,
            "features": [
                {"geometry": shape, "properties": properties}
                for name, shape, properties in drawn
                if name == layer
            ],
        }
        for layer in LAYERS
    ]
    layers = [layer for layer in layers if layer["features"]]
    options = {
        "extents": EXTENT,
        "y_coord_down": True,
        "on_invalid_geometry": mapbox_vector_tile.encoder.on_invalid_geometry_make_valid,
    }
    return bytes(mapbox_vector_tile.encode(layers, default_options=options))
