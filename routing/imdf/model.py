"""What IMDF walk-path generation takes and gives (`routing.imdf.paths`), in local
metres (x east, y north), and the point that stands for a unit."""

from __future__ import annotations

from dataclasses import dataclass, field

import shapely
from shapely.ops import polylabel

XY = tuple[float, float]
COVER = 1e-7  # metres: tolerance of "inside the polygon" for lines on its boundary


@dataclass(frozen=True)
class Space:
    """An IMDF unit on a level, local metres (x east, y north)."""

    id: str
    level: str
    shape: shapely.Polygon | shapely.MultiPolygon
    walkable: bool
    wheelchair: bool
    kind: str | None
    point: XY | None


@dataclass(frozen=True)
class Door:
    """An IMDF opening (a LineString on or near unit boundaries)."""

    id: str
    level: str
    line: shapely.LineString
    walkable: bool
    wheelchair: bool


@dataclass(frozen=True)
class Traversal:
    """Units joined across levels by one connector (IMDF relationships)."""

    id: str
    kind: str
    units: tuple[str, ...]


@dataclass(frozen=True)
class WalkLine:
    """One line of a level's `paths` layer."""

    level: str
    points: tuple[XY, ...]
    wheelchair: bool


@dataclass(frozen=True)
class Stop:
    """Where a connector stands on a level."""

    connector_id: str
    kind: str
    level: str
    point: XY
    # The unit it stands in (a lift's, a flight of stairs'): its place is the connector's
    # (tag `svc:connector-id`), found by a closure of it. None for a door between levels.
    unit: str | None = None


@dataclass
class WalkNetwork:
    """The generated lines and stops, and what the importer reports."""

    lines: list[WalkLine] = field(default_factory=list)
    stops: list[Stop] = field(default_factory=list)
    snaps: list[tuple[str, str, float]] = field(default_factory=list)
    unreachable: list[str] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)
    # Ways between levels of one height (routing.imdf.level_doors): (id, unit, unit).
    level_joins: list[tuple[str, str, str]] = field(default_factory=list)


def unit_point(space: Space) -> XY:
    """The point that stands for a unit: its display point when that lies in its shape,
    else the centroid of its largest part, or its pole of inaccessibility (5 cm tolerance)
    when the centroid falls outside (floorgate's rule for unit locations). The importer
    places the unit's location and connector stops here, where its lines reach."""
    if space.point is not None and space.shape.buffer(COVER).covers(shapely.Point(space.point)):
        return (float(space.point[0]), float(space.point[1]))
    largest = max(parts(space.shape), key=lambda part: part.area)
    found = largest.centroid
    if not largest.contains(found):
        found = polylabel(largest, 0.05)
    return (float(found.x), float(found.y))


def parts(shape: shapely.Geometry) -> list[shapely.Polygon]:
    """The polygons of a Polygon or MultiPolygon, non-empty, in their order."""
    if isinstance(shape, shapely.Polygon):
        return [shape] if not shape.is_empty else []
    return [
        g for g in getattr(shape, "geoms", []) if isinstance(g, shapely.Polygon) and not g.is_empty
    ]
