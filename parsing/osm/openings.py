"""The doors of an OSM place (docs/osm.md, "Doors"): `door`/`entrance` nodes on the
edges of the units they touch, and doors derived where the data draws none: two open
spaces (corridors, areas, stairs) that meet are joined along their whole shared edge;
a room, a lift or a connector's foot meets an open space by a door of DOOR_METRES at the
middle of their longest shared edge, unless the mapper drew a door on that room; a foot
meets each piece of a unit it cut in pieces by a door of its own. Data (c) OpenStreetMap
contributors, ODbL."""

from __future__ import annotations

from dataclasses import dataclass

from shapely.geometry import LineString, MultiLineString, Point
from shapely.geometry.base import BaseGeometry
from shapely.ops import linemerge, substring
from shapely.strtree import STRtree

from parsing.imdf.read import Report
from parsing.osm.convert import Marker
from parsing.osm.levels import level_text
from parsing.osm.place import Place, Space, polygons
from parsing.osm.tags import OPEN_CATEGORIES, door_properties

DOOR_METRES = 1.0  # a door node's width, and a derived door's between a room and a hall
DOOR_REACH = 0.5  # how far a door node may lie from a unit's edge and still open it
GAP_METRES = 0.3  # two units' edges this close are one wall (the data's drawing slack)
MIN_SHARED_METRES = 0.8  # a shared edge shorter than this is a corner, not a way through
NOT_WALKED = frozenset({"column", "nonpublic"})


@dataclass(frozen=True)
class Opening:
    id: str
    level: float
    line: LineString
    properties: dict[str, object]
    derived: bool
    units: tuple[str, ...] = ()  # the units it opens (the drawn door's, within DOOR_REACH)


def openings(place: Place, doors: list[Marker], report: Report) -> list[Opening]:
    """The openings of the drawn doors, then the derived ones."""
    found: list[Opening] = []
    with_doors: set[str] = set()
    for door in doors:
        touched = [
            s
            for s in place.on_level(door.level)
            if s.category not in NOT_WALKED and s.shape.boundary.distance(door.point) <= DOOR_REACH
        ]
        if not touched:
            report.add(
                "door or entrance on no unit's edge, skipped",
                f"{door.source} on level {level_text(door.level)}",
            )
            continue
        nearest = min(touched, key=lambda s: s.shape.boundary.distance(door.point))
        line = _along(nearest, door.point)
        with_doors |= {s.id for s in touched}
        units = tuple(s.id for s in touched)
        properties = door_properties(door.tags)
        found.append(Opening(door.id, door.level, line, properties, False, units))
    for level in sorted(place.levels):
        found += _derived(place.on_level(level), with_doors, report)
    return found


def _along(space: Space, point: Point) -> LineString:
    """DOOR_METRES of the unit's edge centred on the point nearest `point`."""
    rings = list(getattr(space.shape.boundary, "geoms", [space.shape.boundary]))
    ring = min(rings, key=lambda r: r.distance(point))
    at = ring.project(point)
    start, end = max(at - DOOR_METRES / 2, 0.0), min(at + DOOR_METRES / 2, ring.length)
    piece = substring(ring, start, end)
    if isinstance(piece, LineString) and piece.length > 0:
        return piece
    return LineString([ring.interpolate(start), ring.interpolate(end)])


def _derived(spaces: list[Space], with_doors: set[str], report: Report) -> list[Opening]:
    walked = [s for s in spaces if s.category not in NOT_WALKED]
    tree = STRtree([s.shape.buffer(GAP_METRES) for s in walked])
    found = []
    for i, a in enumerate(walked):
        for j in sorted(int(k) for k in tree.query(a.shape)):
            if j <= i:
                continue
            b = walked[j]
            open_a, open_b = is_open(a), is_open(b)
            edge = (open_a and open_b) or a.connector_end or b.connector_end
            room = b if open_a else a  # the closed one, when only one is open
            if not edge and (not (open_a or open_b) or room.id in with_doors):
                continue  # two rooms (walls), or a room whose doors are drawn
            for number, stretch in enumerate(_stretches(a, b), 1):
                if not (open_a and open_b):
                    middle = stretch.length / 2
                    start, end = middle - DOOR_METRES / 2, middle + DOOR_METRES / 2
                    stretch = substring(stretch, start, end)
                elif stretch.is_ring:
                    stretch = substring(stretch, 0, stretch.length / 2)
                else:  # within GAP_METRES of `b` runs GAP_METRES past where they meet
                    stretch = substring(stretch, GAP_METRES, stretch.length - GAP_METRES)
                report.add("door derived where units meet", f"{a.source} and {b.source}")
                door_id = f"{a.id}~{b.id}" if number == 1 else f"{a.id}~{b.id}~{number}"
                pedestrian: dict[str, object] = {"category": "pedestrian"}
                found.append(Opening(door_id, a.level, stretch, pedestrian, True, (a.id, b.id)))
    return found


def _stretches(a: Space, b: Space) -> list[LineString]:
    """Where a door between `a` and `b` goes: their longest shared edge; with a
    connector's foot, the longest shared edge of each pair of their pieces, so that a
    unit the foot cut in pieces (or a piece only the foot reaches) keeps a way to each
    (docs/osm.md, "Decisions": people walk across the foot)."""
    if not (a.connector_end or b.connector_end):
        one = _shared(a.shape, b.shape)
        return [] if one is None else [one]
    found = []
    for piece_a in polygons(a.shape):
        for piece_b in polygons(b.shape):
            stretch = _shared(piece_a, piece_b)
            if stretch is not None:
                found.append(stretch)
    return found


def is_open(space: Space) -> bool:
    return space.category in OPEN_CATEGORIES and not space.connector_end


def _shared(a: BaseGeometry, b: BaseGeometry) -> LineString | None:
    """The longest stretch of `a`'s edge within GAP_METRES of `b`, if long enough."""
    near = a.boundary.intersection(b.buffer(GAP_METRES))
    parts = [g for g in getattr(near, "geoms", [near]) if isinstance(g, LineString)]
    if not parts:
        return None
    merged = linemerge(MultiLineString(parts)) if len(parts) > 1 else parts[0]
    lines = list(getattr(merged, "geoms", [merged]))
    longest = max(lines, key=lambda g: g.length)
    return longest if longest.length >= MIN_SHARED_METRES else None
