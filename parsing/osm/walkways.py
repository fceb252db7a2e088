"""Walkable space that the data draws outside rooms (docs/osm.md, "Walkways"): footway
lines on one level, buffered to WALKWAY_METRES and merged per level, and pedestrian
areas and platforms, become units of category `walkway`, cut by the indoor units drawn
on that level (a room keeps its shape, and meets a walkway by a derived door). A
feature not tagged `indoor=yes` counts only inside the place's extent: the convex hull
of its indoor units. Data (c) OpenStreetMap contributors, ODbL."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry
from shapely.ops import unary_union

from parsing.imdf.read import Report
from parsing.osm.levels import level_text
from parsing.osm.place import Place, Space, element_id

WALKWAY_METRES = 2.0  # the width of the walkway made of a footway line
MIN_WIDTH = 0.5  # metres: a strip narrower than this, left between units, is no walkway
MIN_AREA = 1.0  # square metres: a smaller piece is a crumb of the cut, left out
WALKWAY = "walkway"


@dataclass(frozen=True)
class Drawn:
    """A footway line or a walkway area of the file, on one of its levels, in metres."""

    source: str  # the OSM element, `way/123`
    level: float
    shape: BaseGeometry
    tags: dict[str, str]
    several: bool  # on several levels (its ids name the level)


def add_walkways(place: Place, lines: list[Drawn], areas: list[Drawn], report: Report) -> None:
    """The walkway units of the drawn areas, then of the lines, level by level; each cut
    by what is drawn before it on its level, inside the place's extent."""
    indoor = [s.shape for s in place.spaces if not s.connector_end]
    extent = unary_union(indoor).convex_hull
    by_level: dict[float, list[BaseGeometry]] = defaultdict(list)
    for space in place.spaces:
        by_level[space.level].append(space.shape)
    for area in areas:
        shape = _inside(area, extent).difference(unary_union(by_level[area.level]))
        pieces = _pieces(shape)
        if not pieces:
            report.add("walkway area outside the place or under its units, skipped", area.source)
            continue
        report.add("walkway area made a walkway unit", area.source)
        base = element_id(place.asset, area.source, area.level if area.several else None)
        for number, piece in enumerate(pieces, 1):
            unit_id = base if len(pieces) == 1 else f"{base}-{number}"
            place.spaces.append(
                Space(unit_id, area.level, piece, WALKWAY, area.tags, area.source, walkway=True)
            )
            by_level[area.level].append(piece)
    strips: dict[float, list[BaseGeometry]] = defaultdict(list)
    for line in lines:
        strip = _inside(line, extent).buffer(WALKWAY_METRES / 2)
        if strip.is_empty:
            report.add("footway line outside the place, skipped", line.source)
            continue
        report.add(f"footway line made walkable ({WALKWAY_METRES:g} m wide)", line.source)
        strips[line.level].append(strip)
    for level in sorted(strips):
        shape = unary_union(strips[level]).difference(unary_union(by_level[level]))
        for number, piece in enumerate(_pieces(shape), 1):
            unit_id = f"{place.asset}-footways-level-{level_text(level)}-{number}"
            place.spaces.append(Space(unit_id, level, piece, WALKWAY, {}, "footways", walkway=True))


def _inside(drawn: Drawn, extent: BaseGeometry) -> BaseGeometry:
    """The feature whole when tagged `indoor=yes`, else its part inside the extent."""
    if drawn.tags.get("indoor") == "yes":
        return drawn.shape
    return drawn.shape.intersection(extent)


def _pieces(shape: BaseGeometry) -> list[Polygon]:
    """The polygons of a cut walkway, without strips narrower than MIN_WIDTH or crumbs
    under MIN_AREA, in a stable order (west to east, then south to north)."""
    if shape.is_empty:
        return []
    opened = shape.buffer(-MIN_WIDTH / 2).buffer(MIN_WIDTH / 2).intersection(shape)
    polygons = [
        g
        for g in getattr(opened, "geoms", [opened])
        if isinstance(g, Polygon) and g.area >= MIN_AREA
    ]
    return sorted(polygons, key=lambda g: (round(g.bounds[0], 3), round(g.bounds[1], 3)))
