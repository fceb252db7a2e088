"""A georeferenced unit map as an RFC 7946 GeoJSON FeatureCollection (WGS84, lon/lat).

Coordinates are rounded to 7 decimals (about 1 cm, RFC 7946 section 11.2). The
rounding is done first, onto an integer grid of 1e-7 degrees, and all geometry
decisions (duplicate points, orientation, zero area, bounding boxes) are made on
that grid with exact integer arithmetic, so they hold for the numbers written.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import orjson

from parsing.geo.georeference import Georeference, GeoreferenceError

GRID = 10_000_000  # grid steps per degree: 7 decimal places
Grid = tuple[int, int]  # (lon, lat) in 1e-7 degrees
_END = object()
_N = TypeVar("_N", int, float)


@dataclass
class _Level:
    """A Level element and the grid points of its units and hit areas (for its bbox)."""

    uid: Any
    name: Any
    tags: dict[str, Any]
    ordinal: int
    points: list[Grid] = field(default_factory=list)


@dataclass
class _Unit:
    """A Unit element with its projected outline and the level it lies in."""

    uid: Any
    unit_id: Any
    level: _Level | None
    outline: list[Grid]


def map_geojson(
    document: dict[str, Any],
    georeference: Georeference,
    locations: Sequence[dict[str, Any]],
    *,
    map_id: str,
) -> dict[str, Any]:
    """Levels, then units, then locations, each in document (or given) order.

    Raises GeoreferenceError when the transform puts a point outside WGS84 range
    (control points that do not fit this map), ValueError for malformed points.
    """
    levels, units = _collect(document, georeference)
    ids = _FeatureIds()
    features = [feature for level in levels if (feature := _level_feature(level, ids))]
    features += [feature for unit in units if (feature := _unit_feature(unit, ids))]
    features += [_location_feature(location, georeference, ids) for location in locations]
    collection: dict[str, Any] = {"type": "FeatureCollection", "features": features}
    if bbox := _collection_bbox(features):
        collection["bbox"] = bbox
    collection["floorgate"] = {
        "map_id": map_id,
        "rms_residual_m": round(georeference.rms_residual_m, 3),
        "max_residual_m": round(georeference.max_residual_m, 3),
    }
    return collection


def geojson_bytes(collection: dict[str, Any]) -> bytes:
    """Sorted keys: the same collection always gives the same bytes (stored files compare)."""
    return orjson.dumps(collection, option=orjson.OPT_SORT_KEYS)


# --- walking the parsed document -------------------------------------------------------


def _walk(elements: list[Any]) -> Iterator[tuple[dict[str, Any], dict[str, Any] | None]]:
    """Every element in document order with its innermost enclosing Level (no recursion)."""
    stack: list[tuple[Iterator[Any], dict[str, Any] | None]] = [(iter(elements), None)]
    while stack:
        children, level = stack[-1]
        element = next(children, _END)
        if element is _END:
            stack.pop()
            continue
        if not isinstance(element, dict):
            continue
        yield element, level
        nested = element.get("elements")
        if isinstance(nested, list) and nested:
            inner = element if element.get("type") == "Level" else level
            stack.append((iter(nested), inner))


def _collect(
    document: dict[str, Any], georeference: Georeference
) -> tuple[list[_Level], list[_Unit]]:
    """One pass: levels (with the points of their units and hit areas) and units."""
    levels: dict[int, _Level] = {}
    units: list[_Unit] = []
    for element, parent in _walk(document.get("elements") or []):
        kind = element.get("type")
        if kind == "Level":
            tags = element.get("tags")
            levels[id(element)] = _Level(
                element.get("uid"), element.get("name"), dict(tags or {}), len(levels)
            )
        if kind not in ("Unit", "HitArea"):
            continue
        outline = _outline(element, georeference)
        level = levels[id(parent)] if parent is not None else None
        if level is not None:
            level.points += outline
        if kind == "Unit":
            units.append(_Unit(element.get("uid"), element.get("id"), level, outline))
    return list(levels.values()), units


def _outline(element: dict[str, Any], georeference: Georeference) -> list[Grid]:
    """The element's shape points, transformed and rounded onto the grid."""
    shape = element.get("shape")
    points = shape.get("points") if isinstance(shape, dict) else None
    if not points:
        return []
    what = f"{element.get('type')} {element.get('uid')!r}"
    return [_to_grid(*georeference.apply(x, y), what) for x, y in _parse_points(points, what)]


def _parse_points(points: str, what: str) -> list[tuple[float, float]]:
    """`x,y x,y ...` as the parser writes it."""
    pairs = []
    for pair in points.split():
        x, comma, y = pair.partition(",")
        try:
            if not comma:
                raise ValueError
            xy = float(x), float(y)
        except ValueError:
            raise ValueError(f"{what}: malformed point {pair!r} in shape points") from None
        if not all(map(math.isfinite, xy)):
            raise ValueError(f"{what}: non-finite point {pair!r} in shape points")
        pairs.append(xy)
    return pairs


def _to_grid(lon: float, lat: float, what: str) -> Grid:
    """Round onto the 1e-7 degree grid; refuse positions that are not on Earth."""
    if not (-180.0 <= lon <= 180.0 and -90.0 <= lat <= 90.0):
        raise GeoreferenceError(
            f"{what} maps to lon {lon:g}, lat {lat:g}, outside WGS84 range: "
            "the georeference does not fit this map"
        )
    return round(lon * GRID), round(lat * GRID)


# --- geometry on the grid --------------------------------------------------------------


def _twice_area(ring: list[Grid]) -> int:
    """Shoelace over an open ring; positive when counterclockwise (east right, north up)."""
    return sum(
        x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(ring, ring[1:] + ring[:1], strict=True)
    )


def _exterior_ring(points: list[Grid]) -> list[Grid] | None:
    """Closed, counterclockwise, without repeated consecutive points; None if no area."""
    ring: list[Grid] = []
    for point in points:
        if not ring or ring[-1] != point:
            ring.append(point)
    while len(ring) > 1 and ring[-1] == ring[0]:
        ring.pop()
    if len(set(ring)) < 3:
        return None
    area = _twice_area(ring)
    if area == 0:
        return None
    if area < 0:
        ring = ring[:1] + ring[:0:-1]  # reversed, still starting at the first point
    return [*ring, ring[0]]


def _bbox(points: Sequence[Sequence[_N]]) -> tuple[_N, _N, _N, _N] | None:
    """(west, south, east, north) of (lon, lat) pairs, on the grid or in degrees."""
    if not points:
        return None
    lons = [lon for lon, _ in points]
    lats = [lat for _, lat in points]
    return min(lons), min(lats), max(lons), max(lats)


def _degrees(value: int) -> float:
    """Grid steps to degrees; integer 0 gives 0.0, never -0.0."""
    return value / GRID


def _position(point: Grid) -> list[float]:
    """A GeoJSON position, [lon, lat]."""
    return [_degrees(point[0]), _degrees(point[1])]


def _polygon(ring: list[Grid]) -> dict[str, Any]:
    """A Polygon with one (exterior) ring: the drawings have no holes."""
    return {"type": "Polygon", "coordinates": [[_position(point) for point in ring]]}


def _collection_bbox(features: list[dict[str, Any]]) -> list[float] | None:
    """[west, south, east, north] over every position written (RFC 7946 section 5)."""
    positions: list[list[float]] = []
    for feature in features:
        geometry = feature["geometry"]
        if geometry is None:
            continue
        if geometry["type"] == "Point":
            positions.append(geometry["coordinates"])
        else:
            positions += geometry["coordinates"][0]
    bbox = _bbox(positions)
    return list(bbox) if bbox is not None else None


# --- features ------------------------------------------------------------------------


class _FeatureIds:
    """Unique feature ids: a repeated id gets `~2`, `~3`... (skipping ids already taken)."""

    def __init__(self) -> None:
        self._taken: set[str] = set()

    def __call__(self, base: str) -> str:
        candidate, n = base, 1
        while candidate in self._taken:
            n += 1
            candidate = f"{base}~{n}"
        self._taken.add(candidate)
        return candidate


def _feature(
    feature_id: str, geometry: dict[str, Any] | None, properties: dict[str, Any]
) -> dict[str, Any]:
    """Member order as in RFC 7946's examples; geojson_bytes sorts them anyway."""
    return {"type": "Feature", "id": feature_id, "geometry": geometry, "properties": properties}


def _level_feature(level: _Level, ids: _FeatureIds) -> dict[str, Any] | None:
    """The level's bounding box; None when it has no unit or hit-area area to bound."""
    bbox = _bbox(level.points)
    if bbox is None:
        return None
    west, south, east, north = bbox
    ring = _exterior_ring([(west, south), (east, south), (east, north), (west, north)])
    if ring is None:  # a line or a point
        return None
    properties = {
        "feature_type": "level",
        "uid": level.uid,
        "name": level.name,
        "tags": level.tags,
        "ordinal": level.ordinal,
    }
    return _feature(ids(f"level:{level.uid}"), _polygon(ring), properties)


def _unit_feature(unit: _Unit, ids: _FeatureIds) -> dict[str, Any] | None:
    """The unit's outline; None for a shape with no area (fewer than 3 distinct points)."""
    ring = _exterior_ring(unit.outline)
    if ring is None:
        return None
    properties = {
        "feature_type": "unit",
        "unit_id": unit.unit_id,
        "uid": unit.uid,
        "level_uid": unit.level.uid if unit.level is not None else None,
        "level_name": unit.level.name if unit.level is not None else None,
    }
    base = unit.unit_id if isinstance(unit.unit_id, str) else unit.uid
    return _feature(ids(f"unit:{base}"), _polygon(ring), properties)


def _location_feature(
    location: dict[str, Any], georeference: Georeference, ids: _FeatureIds
) -> dict[str, Any]:
    """A point at the location's canvas position."""
    location_id = location.get("id")
    x, y = location.get("x"), location.get("y")
    geometry = None
    if x is not None and y is not None:
        point = _to_grid(*georeference.apply(x, y), f"location {location_id!r}")
        geometry = {"type": "Point", "coordinates": _position(point)}
    properties = {
        "feature_type": "location",
        "location_id": location_id,
        "name": location.get("name"),
        "floor_ids": [floor.get("id") for floor in location.get("floors") or []],
        "tags": {tag.get("key"): tag.get("value") for tag in location.get("tags") or []},
    }
    return _feature(ids(f"location:{location_id}"), geometry, properties)
