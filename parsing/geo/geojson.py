"""A georeferenced unit map as an RFC 7946 GeoJSON FeatureCollection (WGS84, lon/lat):
its levels, units (with their holes), drawn spaces and openings, and locations
(docs/geojson.md).

Coordinates are rounded to 7 decimals (about 1 cm, RFC 7946 section 11.2). The
rounding is done first, onto an integer grid of 1e-7 degrees, and all geometry
decisions (duplicate points, orientation, zero area, bounding boxes) are made on
that grid with exact integer arithmetic, so they hold for the numbers written. So is
validity: a polygon invalid on the grid (drawn so, or made so by the rounding) is
repaired there, or left out, and named in the collection's `floorgate.repaired`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np
import orjson
import shapely
from shapely.geometry.base import BaseGeometry

from parsing.geo.document_walk import Parent, walk_levels
from parsing.geo.drawn import OPENINGS, XY, DrawnReader, category_of
from parsing.geo.georeference import Georeference, GeoreferenceError
from parsing.geo.indoor_levels import joined_levels, level_value
from parsing.geo.valid_shapes import made_valid, reason

GRID = 10_000_000  # grid steps per degree: 7 decimal places
Grid = tuple[int, int]  # (lon, lat) in 1e-7 degrees
_N = TypeVar("_N", int, float)


@dataclass
class _Level:
    """A Level element and the grid points of its units and hit areas (for its bbox)."""

    uid: Any
    name: Any
    tags: dict[str, Any]
    ordinal: int
    level: str  # the indoor= `level`: its height when the document gives one, else `ordinal`
    points: list[Grid] = field(default_factory=list)


@dataclass
class _Unit:
    """A Unit element with its projected outline and holes and the level it lies in."""

    uid: Any
    unit_id: Any
    level: _Level | None
    outline: list[Grid]
    holes: list[list[Grid]]
    category: str | None


@dataclass
class _Drawn:
    """A drawn space (outline and holes) or an opening (`outline` is its line)."""

    kind: str  # "space" or "opening"
    uid: Any
    level: _Level | None
    outline: list[Grid]
    holes: list[list[Grid]]
    category: str | None


def map_geojson(
    document: dict[str, Any],
    georeference: Georeference,
    locations: Sequence[dict[str, Any]],
    *,
    map_id: str,
    unit_names: Mapping[str, Any] | None = None,
    level_heights: Mapping[str, int] | None = None,
) -> dict[str, Any]:
    """Levels, then units, then drawn spaces, then openings, then locations, each in
    document (or given) order. `unit_names`: the API name of each unit id.

    Raises GeoreferenceError when the transform puts a point outside WGS84 range
    (control points that do not fit this map), ValueError for malformed points.
    """
    levels, units, drawn = _collect(document, georeference, level_heights or {})
    names = unit_names or {}
    ids = _FeatureIds()
    features = [feature for level in levels if (feature := _level_feature(level, ids))]
    features += [feature for unit in units if (feature := _unit_feature(unit, names, ids))]
    for kind in ("space", "opening"):
        features += [f for d in drawn if d.kind == kind and (f := _drawn_feature(d, ids))]
    repaired = _made_valid(features)
    floor_levels: dict[Any, list[str]] = {}
    for level in levels:
        floor_levels.setdefault(level.tags.get("floor"), []).append(level.level)
    features += [
        _location_feature(location, georeference, ids, floor_levels) for location in locations
    ]
    collection: dict[str, Any] = {"type": "FeatureCollection", "features": features}
    if bbox := _collection_bbox(features):
        collection["bbox"] = bbox
    collection["floorgate"] = {
        "map_id": map_id,
        "rms_residual_m": round(georeference.rms_residual_m, 3),
        "max_residual_m": round(georeference.max_residual_m, 3),
    }
    if repaired:
        collection["floorgate"]["repaired"] = repaired
    return collection


def repairs_summary(collection: dict[str, Any], shown: int = 5) -> str | None:
    """The import report's line for a collection's repaired polygons (`map_geojson`),
    each named by its feature id, with what GEOS found and where; None without any."""
    repaired = (collection.get("floorgate") or {}).get("repaired") or []
    if not repaired:
        return None
    parts = []
    for action in ("repaired", "left out"):
        found = [r for r in repaired if r["action"].startswith(action)]
        if not found:
            continue
        named = "; ".join(f"{r['id']}: {r['reason']}" for r in found[:shown])
        more = f"; and {len(found) - shown} more" if len(found) > shown else ""
        plural = "polygon" if len(found) == 1 else "polygons"
        done = found[0]["action"]
        parts.append(f"{len(found)} invalid {plural} {done} ({named}{more})")
    return "geometry: " + ", ".join(parts)


def geojson_bytes(collection: dict[str, Any]) -> bytes:
    """Sorted keys: the same collection always gives the same bytes (stored files compare)."""
    return orjson.dumps(collection, option=orjson.OPT_SORT_KEYS)


# --- walking the parsed document -------------------------------------------------------


def _collect(
    document: dict[str, Any], georeference: Georeference, heights: Mapping[str, int]
) -> tuple[list[_Level], list[_Unit], list[_Drawn]]:
    """One pass: levels (with the points of their units and hit areas, and their height
    by uid where `heights` gives one), units, and the drawn spaces and openings."""
    levels: dict[int, _Level] = {}
    units: list[_Unit] = []
    drawn: list[_Drawn] = []
    reader = DrawnReader()
    for element, parent, layer in walk_levels(document.get("elements") or []):
        kind = element.get("type")
        if kind == "Level":
            tags = element.get("tags")
            ordinal = len(levels)
            levels[id(element)] = _Level(
                element.get("uid"),
                element.get("name"),
                dict(tags or {}),
                ordinal,
                level_value(heights.get(str(element.get("uid"))), ordinal),
            )
            continue
        level = levels[id(parent)] if parent is not None else None
        if kind in ("Unit", "HitArea"):
            shape = element.get("shape")
            shape = shape if isinstance(shape, dict) else {}
            outline, holes = _shape_rings(element, shape, georeference)
            if level is not None:
                level.points += outline
            if kind == "Unit":
                category = category_of(shape)
                units.append(
                    _Unit(element.get("uid"), element.get("id"), level, outline, holes, category)
                )
        elif (found := _drawn(element, layer, level, reader, georeference)) is not None:
            drawn.append(found)
    return list(levels.values()), units, drawn


def _shape_rings(
    element: dict[str, Any], shape: dict[str, Any], georeference: Georeference
) -> tuple[list[Grid], list[list[Grid]]]:
    """A unit's or hit area's `points` and `holes`, transformed and rounded onto the grid."""
    what = f"{element.get('type')} {element.get('uid')!r}"
    points = shape.get("points")
    if not points:
        return [], []
    holes = shape.get("holes")
    if not isinstance(holes, list) or not all(isinstance(hole, str) for hole in holes):
        holes = []
    return _grid(_parse_points(points, what), georeference, what), [
        _grid(_parse_points(hole, what), georeference, what) for hole in holes
    ]


def _drawn(
    element: dict[str, Any],
    layer: Parent,
    level: _Level | None,
    reader: DrawnReader,
    georeference: Georeference,
) -> _Drawn | None:
    """A graphic element the GeoJSON gives back: a space (a shape whose class names an
    IMDF category) or an opening (a line in a layer named `openings`)."""
    kind = element.get("type")
    what = f"{kind} {element.get('uid')!r}"
    if layer is not None and layer.get("name") == OPENINGS:
        line = reader.line(element)
        if line is None:
            return None
        return _Drawn(
            "opening", element.get("uid"), level, _grid(line, georeference, what), [], None
        )
    category = category_of(element)
    area = reader.area(element) if category is not None else None
    if area is None:
        return None
    outline, holes = area
    return _Drawn(
        "space",
        element.get("uid"),
        level,
        _grid(outline, georeference, what),
        [_grid(hole, georeference, what) for hole in holes],
        category,
    )


def _grid(points: Sequence[XY], georeference: Georeference, what: str) -> list[Grid]:
    """Canvas points transformed and rounded onto the grid."""
    return [_to_grid(*georeference.apply(x, y), what) for x, y in points]


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


def _distinct(points: list[Grid]) -> list[Grid]:
    """Without repeated consecutive points."""
    kept: list[Grid] = []
    for point in points:
        if not kept or kept[-1] != point:
            kept.append(point)
    return kept


def _exterior_ring(
    points: list[Grid], counterclockwise: bool = True, flat: bool = False
) -> list[Grid] | None:
    """Closed, counterclockwise (clockwise for a hole), without repeated consecutive
    points; None if no area, or, with `flat`, as it is when its signed area is zero
    (a bow-tie of equal halves: `_made_valid` then repairs it or names it)."""
    ring = _distinct(points)
    while len(ring) > 1 and ring[-1] == ring[0]:
        ring.pop()
    if len(set(ring)) < 3:
        return None
    area = _twice_area(ring)
    if area == 0:
        return [*ring, ring[0]] if flat else None
    if (area < 0) == counterclockwise:
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


def _polygon(ring: list[Grid], holes: Sequence[list[Grid]] = ()) -> dict[str, Any]:
    """A Polygon: its exterior ring, then its holes (interior rings) if any."""
    rings = [ring, *holes]
    return {"type": "Polygon", "coordinates": [[_position(p) for p in r] for r in rings]}


def _made_valid(features: list[dict[str, Any]]) -> list[dict[str, str]]:
    """Each unit and space polygon checked as written (its degrees, all at once: GEOS
    over the array); an invalid one repaired on the grid (`made_valid`: a Polygon or a
    MultiPolygon of the parts it encloses) or, with no area left or still invalid once
    written, taken out of `features`. Returns what was done to which, with GEOS's
    reason and where (the import report's line: `repairs_summary`)."""
    polygons = [
        (n, f)
        for n, f in enumerate(features)
        if f["properties"]["feature_type"] in ("unit", "space") and f["geometry"] is not None
    ]
    shapes = _shapes([f["geometry"]["coordinates"] for _, f in polygons])
    invalid = [int(i) for i in np.flatnonzero(~shapely.is_valid(shapes))] if polygons else []
    repaired: list[dict[str, str]] = []
    dropped: set[int] = set()
    for i in invalid:
        n, feature = polygons[i]
        why = reason(shapes[i])
        on_grid = shapely.transform(shapes[i], lambda xy: np.round(xy * GRID))
        fixed = made_valid(on_grid, grid=1.0)
        geometry = _written(fixed) if fixed is not None else None
        if geometry is not None and not shapely.from_geojson(orjson.dumps(geometry)).is_valid:
            geometry = None
        if geometry is None:
            dropped.add(n)
        else:
            feature["geometry"] = geometry
        action = "left out: no area once made valid" if geometry is None else "repaired"
        repaired.append({"id": feature["id"], "action": action, "reason": why})
    if dropped:
        features[:] = [f for n, f in enumerate(features) if n not in dropped]
    return repaired


def _shapes(polygons: list[list[list[list[float]]]]) -> np.ndarray:
    """Shapely polygons of GeoJSON Polygon coordinates, built at once (ragged arrays)."""
    points: list[list[float]] = []
    rings = [0]
    parts = [0]
    for polygon in polygons:
        for ring in polygon:
            points += ring
            rings.append(len(points))
        parts.append(len(rings) - 1)
    flat = np.fromiter(itertools.chain.from_iterable(points), float, 2 * len(points))
    coordinates = flat.reshape(-1, 2)
    offsets = (np.array(rings, dtype=np.int64), np.array(parts, dtype=np.int64))
    shapes: np.ndarray = shapely.from_ragged_array(
        shapely.GeometryType.POLYGON, coordinates, offsets
    )
    return shapes


def _written(fixed: BaseGeometry) -> dict[str, Any] | None:
    """A repaired polygon (grid units) as a GeoJSON Polygon or MultiPolygon in degrees."""
    polygons = [_grid_rings(part) for part in getattr(fixed, "geoms", [fixed])]
    polygons = [(outline, holes) for outline, holes in polygons if outline]
    if not polygons:
        return None
    if len(polygons) == 1:
        return _polygon(*polygons[0])
    return {
        "type": "MultiPolygon",
        "coordinates": [[[_position(p) for p in r] for r in [o, *h]] for o, h in polygons],
    }


def _grid_rings(polygon: BaseGeometry) -> tuple[list[Grid], list[list[Grid]]]:
    """A repaired polygon's rings back on the grid, oriented and closed as `_exterior_ring`
    writes them (repair moves no point off the grid: it was snapped to it)."""

    def points(ring: Any) -> list[Grid]:
        return [(round(x), round(y)) for x, y in ring.coords]

    outline = _exterior_ring(points(polygon.exterior))
    return outline or [], _holes([points(hole) for hole in polygon.interiors])


def _holes(holes: list[list[Grid]]) -> list[list[Grid]]:
    """Interior rings, clockwise; those with no area after rounding dropped."""
    return [ring for hole in holes if (ring := _exterior_ring(hole, False)) is not None]


def _collection_bbox(features: list[dict[str, Any]]) -> list[float] | None:
    """[west, south, east, north] over every position written (RFC 7946 section 5)."""
    positions: list[list[float]] = []
    for feature in features:
        geometry = feature["geometry"]
        if geometry is None:
            continue
        if geometry["type"] == "Point":
            positions.append(geometry["coordinates"])
        elif geometry["type"] == "LineString":
            positions += geometry["coordinates"]
        elif geometry["type"] == "MultiPolygon":  # a repaired polygon in parts
            positions += [p for polygon in geometry["coordinates"] for p in polygon[0]]
        else:  # a Polygon: its holes are inside its exterior ring
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
        "level": level.level,
    }
    return _feature(ids(f"level:{level.uid}"), _polygon(ring), properties)


def _level_properties(level: _Level | None) -> dict[str, Any]:
    """Which level a unit, space or opening is on (all null outside every level)."""
    if level is None:
        return {
            "level_uid": None,
            "level_name": None,
            "level_ordinal": None,
            "floor_id": None,
            "level": None,
        }
    return {
        "level_uid": level.uid,
        "level_name": level.name,
        "level_ordinal": level.ordinal,
        "floor_id": level.tags.get("floor"),
        "level": level.level,
    }


def _unit_feature(unit: _Unit, names: Mapping[str, Any], ids: _FeatureIds) -> dict[str, Any] | None:
    """The unit's outline and holes; None for a shape of fewer than 3 distinct points
    (one with no area is kept for `_made_valid`, which names it)."""
    ring = _exterior_ring(unit.outline, flat=True)
    if ring is None:
        return None
    properties = {
        "feature_type": "unit",
        "unit_id": unit.unit_id,
        "uid": unit.uid,
        **_level_properties(unit.level),
        "name": names.get(unit.unit_id) if isinstance(unit.unit_id, str) else None,
        "category": unit.category,
    }
    base = unit.unit_id if isinstance(unit.unit_id, str) else unit.uid
    return _feature(ids(f"unit:{base}"), _polygon(ring, _holes(unit.holes)), properties)


def _drawn_feature(drawn: _Drawn, ids: _FeatureIds) -> dict[str, Any] | None:
    """A space's polygon or an opening's line; None without area (a space) or without
    two distinct positions (an opening)."""
    properties = {"feature_type": drawn.kind, "uid": drawn.uid, **_level_properties(drawn.level)}
    if drawn.kind == "opening":
        line = _distinct(drawn.outline)
        if len(line) < 2:
            return None
        geometry = {"type": "LineString", "coordinates": [_position(point) for point in line]}
        return _feature(ids(f"opening:{drawn.uid}"), geometry, properties)
    ring = _exterior_ring(drawn.outline, flat=True)
    if ring is None:
        return None
    properties["category"] = drawn.category
    geometry = _polygon(ring, _holes(drawn.holes))
    return _feature(ids(f"space:{drawn.uid}"), geometry, properties)


def _location_feature(
    location: dict[str, Any],
    georeference: Georeference,
    ids: _FeatureIds,
    floor_levels: Mapping[Any, list[str]],
) -> dict[str, Any]:
    """A point at the location's canvas position; its `level` that of the map's levels
    of its floors (`"0;1"` for a location on two), null when none is drawn here."""
    location_id = location.get("id")
    x, y = location.get("x"), location.get("y")
    geometry = None
    if x is not None and y is not None:
        point = _to_grid(*georeference.apply(x, y), f"location {location_id!r}")
        geometry = {"type": "Point", "coordinates": _position(point)}
    floor_ids = [floor.get("id") for floor in location.get("floors") or []]
    found = [
        level
        for floor_id in floor_ids
        if isinstance(floor_id, str)
        for level in floor_levels.get(floor_id, ())
    ]
    properties = {
        "feature_type": "location",
        "location_id": location_id,
        "name": location.get("name"),
        "floor_ids": floor_ids,
        "level": joined_levels(found),
        "tags": {tag.get("key"): tag.get("value") for tag in location.get("tags") or []},
    }
    return _feature(ids(f"location:{location_id}"), geometry, properties)
