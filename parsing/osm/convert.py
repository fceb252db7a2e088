"""OSM features sorted into what an indoor place is made of (docs/osm.md, "Mapping"):
units on each of their levels, connectors between levels with their feet carved out of
the units they stand in, doors and points of interest. Every feature left out is
counted in the report by its reason. Data (c) OpenStreetMap contributors, ODbL."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import shapely
import shapely.errors
from shapely.geometry import LineString, MultiLineString, MultiPolygon, Point, Polygon, box
from shapely.geometry.base import BaseGeometry
from shapely.ops import nearest_points, unary_union
from shapely.strtree import STRtree

from parsing.imdf.projection import LocalPlane, plane_for
from parsing.imdf.read import Report, shown
from parsing.osm.levels import level_text, levels_of
from parsing.osm.limits import (
    MAX_OSM_LEVEL_UNITS,
    MAX_OSM_LEVELS,
    MAX_OSM_UNIT_POSITIONS,
    MAX_OSM_UNITS,
)
from parsing.osm.model import OsmData, OsmError, OsmFeature
from parsing.osm.place import Connector, Place, Space, element_id, polygons
from parsing.osm.tags import (
    LEFT_OUT_INDOOR,
    OPEN_CATEGORIES,
    connector_kind,
    is_door,
    is_point_of_interest,
    is_space,
    is_walkway_area,
    is_walkway_line,
    unit_category,
)
from parsing.osm.walkways import MIN_AREA, MIN_WIDTH, Drawn, add_walkways

DEFAULT_LEVEL = 0.0  # a feature without `level` (docs/osm.md, "Decisions")
END_METRES = 2.0  # the side of a connector's foot made from a node or a line's end
END_REACH = 1.0  # how far a connector's end may lie outside the unit it opens into
LINK_REACH = 5.0  # how far from an open space a connector's end or a lone room is joined to it
NODE_METRES = 0.01  # two positions this close are one OSM node (a way's and a connector's)
NOT_CONTAINERS = frozenset({"column"})
ALONE = (
    f"connector end more than {LINK_REACH:g} m from where people walk on its level, stands "
    "alone: draw the corridor, area or footway it lands on, or correct its level"
)
TOUCH_METRES = 1e-3  # a strip this near a unit touches it (the cut's rounding)
SLIVER_REACH = 1e-6  # metres: a sliver of a cut this near the foot lies along it
HAIR_METRES = 0.01  # a sliver of a unit of the data narrower than this is drawing noise


@dataclass
class Marker:
    """A door or a point of interest: a node on one level, in metres."""

    id: str
    level: float
    point: Point
    tags: dict[str, str]
    source: str


@dataclass
class Sorted:
    place: Place
    plane: LocalPlane
    doors: list[Marker] = field(default_factory=list)
    points: list[Marker] = field(default_factory=list)


UNJOINED = (
    "no stairs, lift, escalator or ramp is tagged: the levels cannot be joined (tag "
    "highway=steps, highway=elevator, conveying=* or a footway on two levels)"
)


def sort_features(data: OsmData, asset: str) -> Sorted:
    """The place made of the file's features, or an OsmError when it has no indoor unit."""
    report = data.report
    spaces = [f for f in data.features if _is_area(f) and is_space(f.tags)]
    if not spaces:
        raise OsmError(
            "no indoor features: not one area tagged indoor=room, area or corridor "
            "(Simple Indoor Tagging), nothing to import"
        )
    _count_units(data.features)
    plane = plane_for([f.geometry for f in spaces if f.geometry is not None])
    found = Sorted(Place(asset), plane)
    space_ids = {id(feature) for feature in spaces}
    ends: list[tuple[OsmFeature, str, list[tuple[float, Point]]]] = []
    lines: list[Drawn] = []
    areas: list[Drawn] = []
    for feature in data.features:
        assert feature.geometry is not None  # the readers keep only features with one
        levels = _levels(feature, report)
        try:
            shape = plane.to_plane(feature.geometry)
        except (shapely.errors.GEOSException, ValueError, TypeError):
            raise OsmError(f"{feature.id}: its geometry is no shape (GeoJSON)") from None
        tags = feature.tags
        walkway = "level" in tags and bool(levels)  # a walkway must say its level
        if id(feature) in space_ids and levels:
            _add_spaces(found.place, feature, shape, levels, report)
        elif _is_area(feature) and walkway and is_walkway_area(tags):
            areas += _drawn(feature, shape, levels)
        elif _is_area(feature):
            _left_out(feature, report)
        elif isinstance(shape, LineString | MultiLineString) and (
            walkway and len(levels) == 1 and is_walkway_line(tags)
        ):
            lines += _drawn(feature, shape, levels)
        elif isinstance(shape, LineString | MultiLineString):
            line_ends = _line_ends(feature, shape, levels, report)
            if line_ends:
                ends.append((feature, str(connector_kind(tags)), line_ends))
        elif isinstance(shape, Point) and levels:
            kind = connector_kind(tags)
            if is_door(tags):
                found.doors += [_marker(asset, feature, shape, lv, levels) for lv in levels]
            elif kind == "elevator" and len(levels) > 1:
                ends.append((feature, kind, [(level, shape) for level in levels]))
            elif is_point_of_interest(tags):
                found.points += [_marker(asset, feature, shape, lv, levels) for lv in levels]
    _cut_open_spaces(found.place, report)
    add_walkways(found.place, lines, areas, report)
    for feature, kind, feet in _on_footway_nodes(found.place, ends, lines, report):
        _add_connector(found.place, feature, kind, feet, report)
    found.place.levels |= {space.level for space in found.place.spaces}
    if len(found.place.levels) > 1 and not ends and not found.place.connectors:
        named = ", ".join(level_text(level) for level in sorted(found.place.levels))
        report.add(UNJOINED, f"levels {named}")
    if not found.place.spaces:  # each area's `level` names no level (`roof`, `0;nan`)...
        first, level = spaces[0], spaces[0].tags.get("level")
        unread = level is not None and levels_of(first.tags) is None
        rule = f"level={shown(level or '')!r} names no level" if unread else "no surface"
        raise OsmError(
            f"{first.id}: {rule}, and no other indoor area makes a unit either: nothing to import"
        )
    return found


def _cut_open_spaces(place: Place, report: Report) -> None:
    """Each open space of the data (a hall, a corridor) less the rooms drawn over it: a
    shop drawn inside a hall or across a corridor's edge keeps its shape, and the hall
    meets it along its outline (a derived door, parsing/osm/openings.py) instead of
    lying under it. Overlaps thinner than HAIR_METRES are the drawing's noise, left; a
    space the rooms cover whole keeps its shape."""
    for level in sorted({space.level for space in place.spaces}):
        here = place.on_level(level)
        rooms = [s for s in here if s.category not in OPEN_CATEGORIES | NOT_CONTAINERS]
        if not rooms:
            continue
        tree = STRtree([s.shape for s in rooms])
        for space in here:
            if space.category not in OPEN_CATEGORIES:
                continue
            over = [rooms[int(k)].shape for k in tree.query(space.shape, "intersects")]
            under = space.shape.intersection(unary_union(over)) if over else None
            if under is None or under.area < HAIR_METRES * space.shape.length:
                continue
            rest = _areas(space.shape.difference(under))
            if rest is None or rest.area < MIN_AREA:
                continue
            space.shape = rest
            report.add("open space cut by the rooms drawn over it", space.source)


def _count_units(features: list[OsmFeature]) -> None:
    """Refused before any shape is built: more indoor areas (rooms, areas, corridors,
    walkway areas: each a unit on each of its levels) than MAX_OSM_UNITS in the file or
    MAX_OSM_LEVEL_UNITS on one level, more than MAX_OSM_LEVELS levels, or outlines of
    more than MAX_OSM_UNIT_POSITIONS positions in all: every later step (walk paths,
    drawings) costs by the position."""
    per_level: dict[float, int] = {}
    total = positions = 0
    for feature in features:
        if not _is_area(feature) or not (is_space(feature.tags) or is_walkway_area(feature.tags)):
            continue
        for level in levels_of(feature.tags) or (DEFAULT_LEVEL,):
            total += 1
            positions += _outline_positions(feature)
            if positions > MAX_OSM_UNIT_POSITIONS:
                raise OsmError(
                    f"{feature.id}: units outlined by more than {MAX_OSM_UNIT_POSITIONS} "
                    "positions in one file"
                )
            per_level[level] = per_level.get(level, 0) + 1
            if total > MAX_OSM_UNITS:
                raise OsmError(
                    f"{feature.id}: more than {MAX_OSM_UNITS} indoor areas (units) in one file"
                )
            if per_level[level] > MAX_OSM_LEVEL_UNITS:
                raise OsmError(
                    f"{feature.id}: more than {MAX_OSM_LEVEL_UNITS} indoor areas (units) on "
                    f"level {level_text(level)}"
                )
            if len(per_level) > MAX_OSM_LEVELS:
                raise OsmError(f"{feature.id}: more than {MAX_OSM_LEVELS} levels in one file")


def _outline_positions(feature: OsmFeature) -> int:
    geometry = feature.geometry or {}
    polygons = (
        [geometry["coordinates"]] if geometry["type"] == "Polygon" else geometry["coordinates"]
    )
    return sum(len(ring) for polygon in polygons for ring in polygon)


def _drawn(feature: OsmFeature, shape: BaseGeometry, levels: tuple[float, ...]) -> list[Drawn]:
    several = len(levels) > 1
    return [Drawn(feature.id, level, shape, feature.tags, several) for level in levels]


def _is_area(feature: OsmFeature) -> bool:
    return feature.geometry is not None and feature.geometry["type"] in ("Polygon", "MultiPolygon")


def _levels(feature: OsmFeature, report: Report) -> tuple[float, ...]:
    """Its levels; DEFAULT_LEVEL (reported) for an indoor feature without `level`; none
    (reported) for a `level` that names no level."""
    levels = levels_of(feature.tags)
    if levels is not None:
        return levels
    if "level" in feature.tags:
        report.add("level that cannot be read, skipped", f"{feature.id}: {feature.tags['level']}")
        return ()
    indoor = "indoor" in feature.tags or is_door(feature.tags)
    if indoor and feature.tags.get("indoor") not in LEFT_OUT_INDOOR:
        report.add(f"indoor feature without level, taken as level {DEFAULT_LEVEL:g}", feature.id)
        return (DEFAULT_LEVEL,)
    return ()


def _left_out(feature: OsmFeature, report: Report) -> None:
    indoor = feature.tags.get("indoor")
    if indoor in LEFT_OUT_INDOOR:
        report.add(f"indoor={indoor} left out (the units around it draw it)", feature.id)
    else:
        report.add("not an indoor feature, skipped", feature.id)


def _add_spaces(
    place: Place,
    feature: OsmFeature,
    shape: BaseGeometry,
    levels: tuple[float, ...],
    report: Report,
) -> None:
    if not shape.is_valid:
        report.add("invalid polygon, repaired", feature.id)
        shape = _areas(shapely.make_valid(shape))
    if shape is None or shape.is_empty:
        report.add("area without a surface, skipped", feature.id)
        return
    several = len(levels) > 1
    category = unit_category(feature.tags)
    ids = []
    for level in levels:
        unit_id = element_id(place.asset, feature.id, level if several else None)
        place.spaces.append(Space(unit_id, level, shape, category, feature.tags, feature.id))
        ids.append(unit_id)
    kind = connector_kind(feature.tags)
    if several and kind in ("stairs", "elevator", "escalator"):
        place.connectors.append(
            Connector(element_id(place.asset, feature.id), kind, ids, feature.id)
        )
    elif several:
        report.add("room on several levels: a unit on each, no connector", feature.id)


def _areas(shape: BaseGeometry) -> BaseGeometry | None:
    polygons = [g for g in getattr(shape, "geoms", [shape]) if isinstance(g, Polygon)]
    if not polygons:
        return None
    return polygons[0] if len(polygons) == 1 else MultiPolygon(polygons)


def _line_ends(
    feature: OsmFeature, shape: BaseGeometry, levels: tuple[float, ...], report: Report
) -> list[tuple[float, Point]]:
    """The two ends of a line that climbs between levels: the first point on the lowest
    level and the last on the highest (`incline=down` the other way round)."""
    tags = feature.tags
    if tags.get("indoor") == "wall":
        report.add("indoor=wall left out (the units around it draw it)", feature.id)
        return []
    kind = connector_kind(tags)
    if kind is None or not levels:
        report.add("not an indoor feature, skipped", feature.id)
        return []
    if len(levels) < 2:
        report.add("line on one level, not read (walk paths are made from the units)", feature.id)
        return []
    line = shape if isinstance(shape, LineString) else max(shape.geoms, key=lambda g: g.length)
    first, last = Point(line.coords[0]), Point(line.coords[-1])
    if tags.get("incline", "").startswith("down") or tags.get("incline", "").startswith("-"):
        first, last = last, first
    return [(levels[0], first), (levels[-1], last)]


def _marker(
    asset: str, feature: OsmFeature, point: Point, level: float, levels: tuple[float, ...]
) -> Marker:
    unit_id = element_id(asset, feature.id, level if len(levels) > 1 else None)
    return Marker(unit_id, level, point, feature.tags, feature.id)


def _nearest_words(place: Place, level: float, target: BaseGeometry) -> str:
    distance = nearest_open(place, level, target)
    if distance is None:
        return ": nothing walkable is drawn on that level"
    return f": the nearest walkable space is {distance:.0f} m away"


def _on_footway_nodes(
    place: Place,
    ends: list[tuple[OsmFeature, str, list[tuple[float, Point]]]],
    lines: list[Drawn],
    report: Report,
) -> list[tuple[OsmFeature, str, list[tuple[float, Point]]]]:
    """The connectors' ends, each moved to the level of the footway it is a node of when
    no footway of its own level passes there and it stands in no unit of its own level:
    in OSM, ways that share a node meet there, so steps tagged `0;2` whose top is a node
    of a footway tagged `level=1` lead onto it (docs/osm.md, "Joining what the mapper
    drew apart"). An end is not moved onto a level another end of the connector stands
    on, nor when the footways there name several other levels; each move is reported,
    for the mapper to check the two `level` tags."""
    nodes: dict[tuple[int, int], set[tuple[float, str]]] = defaultdict(set)
    for line in lines:
        for part in getattr(line.shape, "geoms", [line.shape]):
            for x, y in part.coords:
                nodes[_node_key(x, y)].add((line.level, line.source))
    found = []
    for feature, kind, feet in ends:
        feet = list(feet)
        for number, (level, point) in enumerate(feet):
            here = nodes.get(_node_key(point.x, point.y), set())
            if not here or level in {lv for lv, _ in here}:
                continue
            if _container(place, level, point) is not None:
                continue
            taken = {lv for other, (lv, _) in enumerate(feet) if other != number}
            onto = {lv for lv, _ in here} - taken
            if len(onto) != 1:
                continue
            [new] = onto
            source = min(src for lv, src in here if lv == new)
            report.add(
                "connector end on a node of a footway of another level, moved to the "
                "footway's level (check their level tags)",
                f"{feature.id} on level {level_text(level)}: a node of {source} "
                f"(level {level_text(new)})",
            )
            feet[number] = (new, point)
        found.append((feature, kind, sorted(feet, key=lambda foot: foot[0])))
    return found


def _node_key(x: float, y: float) -> tuple[int, int]:
    return round(x / NODE_METRES), round(y / NODE_METRES)


def _add_connector(
    place: Place,
    feature: OsmFeature,
    kind: str,
    feet: list[tuple[float, Point]],
    report: Report,
) -> None:
    """A connector's foot on each level: a square of END_METRES cut out of the unit it
    stands in (that unit keeps the rest), joined to it later by a door (parsing/osm/
    openings.py). A foot in no unit but within LINK_REACH of an open space is joined to
    it by a strip END_METRES wide; a foot beyond stands alone, drawn but left out of the
    connector (nobody can walk to it, so it joins no level), and is reported. Two
    connectors that meet at one point (steps 0;1 going on as steps 1;2) share the foot
    there; a foot is cut by the feet drawn before it, so that each meets the unit."""
    units = []
    for level, point in feet:
        where = f"{feature.id} on level {level_text(level)}"
        feet_here = [s for s in place.on_level(level) if s.connector_end]
        shared = next((s for s in feet_here if s.shape.covers(point)), None)
        if shared is not None:
            if shared.id in place.walkable_feet:
                units.append(shared.id)
            else:
                report.add(ALONE, f"{where}{_nearest_words(place, level, point)}")
            continue
        square = box(
            point.x - END_METRES / 2,
            point.y - END_METRES / 2,
            point.x + END_METRES / 2,
            point.y + END_METRES / 2,
        )
        square = _areas(square.difference(unary_union([s.shape for s in feet_here]))) or square
        container = _container(place, level, point)
        if container is None:
            linked = link(place, level, point)
            if linked is not None:
                container = linked[0]
                report.add(
                    f"connector end joined to an open space within {LINK_REACH:g} m",
                    f"{where} to {container.id}, {linked[1]:.1f} m",
                )
        if container is None:
            report.add(ALONE, f"{where}{_nearest_words(place, level, point)}")
        else:
            _cut(place, container, square, report, where)
        unit_id = element_id(place.asset, feature.id, level)
        tags = {k: v for k, v in feature.tags.items() if k == "name" or k.startswith("name:")}
        place.spaces.append(Space(unit_id, level, square, kind, tags, feature.id, True))
        if container is not None:
            units.append(unit_id)
            place.walkable_feet.add(unit_id)
    if len(units) < 2:
        report.add(
            "connector with fewer than two ends where people walk, joins no level", feature.id
        )
        return
    place.connectors.append(Connector(element_id(place.asset, feature.id), kind, units, feature.id))


def _cut(place: Place, container: Space, foot: BaseGeometry, report: Report, where: str) -> None:
    """`container` less a connector's foot, without the slivers that the cut leaves
    along the foot, which would join the pieces on each side of it where nobody walks:
    an edge a hair outside the foot's side (HAIR_METRES, the drawing's noise), or for a
    walkway made of the data's footways and areas (walkways.py) a strip narrower than
    MIN_WIDTH (a footway 2 m wide through a foot 2 m wide, a few centimetres askew).
    Such a walkway also drops crumbs under MIN_AREA, and one left with nothing is the
    foot's floor: it is left out; a unit of the data left with nothing keeps its shape.
    A unit the foot cuts in pieces stays one unit, each piece meeting the foot by its
    own door (parsing/osm/openings.py): people walk across the foot; reported."""
    rest = container.shape.difference(foot)
    half = (MIN_WIDTH if container.walkway else HAIR_METRES) / 2
    opened = rest.buffer(-half, join_style="mitre").buffer(half, join_style="mitre")
    thin = rest.difference(opened)
    slivers = [g for g in polygons(thin) if g.distance(foot) <= SLIVER_REACH]
    if slivers:
        rest = rest.difference(unary_union(slivers))
    pieces = [g for g in polygons(rest) if g.area >= MIN_AREA or not container.walkway]
    if not pieces:
        if container.walkway:
            place.spaces.remove(container)
            report.add("walkway under a connector's foot, left out", container.id)
        return
    before = len(polygons(container.shape))
    if len(pieces) > before:
        report.add(
            "unit cut in pieces by a connector's foot, each piece joined to it",
            f"{container.id} by {where}",
        )
    container.shape = pieces[0] if len(pieces) == 1 else MultiPolygon(pieces)


def link(place: Place, level: float, target: BaseGeometry) -> tuple[Space, float] | None:
    """The nearest open space (walkway, hall, corridor) of `level` within LINK_REACH of
    `target` (a connector's end, a room drawn on its own), with its distance, grown by a
    strip END_METRES wide from its edge to the target (where no other unit lies, the
    target's unit included); None when there is none."""
    near = [
        (space.shape.distance(target), space.id, space)
        for space in place.on_level(level)
        if space.category in OPEN_CATEGORIES and not space.connector_end
    ]
    near = [entry for entry in near if entry[0] <= LINK_REACH]
    if not near:
        return None
    distance, _, space = min(near, key=lambda entry: entry[:2])
    edge, end = nearest_points(space.shape, target)
    others = [s.shape for s in place.on_level(level) if s is not space and not s.connector_end]
    strip = LineString([edge, end]).buffer(END_METRES / 2).difference(unary_union(others))
    through = [
        piece
        for piece in polygons(strip)
        if piece.distance(space.shape) <= TOUCH_METRES and piece.distance(target) <= TOUCH_METRES
    ]
    if not through:  # other units stand between them
        return None
    grown = _areas(unary_union([space.shape, *through]))
    if grown is None:
        return None
    space.shape = grown
    return space, distance


def nearest_open(place: Place, level: float, target: BaseGeometry) -> float | None:
    """How far the nearest open space of `level` lies from `target`, for the report."""
    found = [
        space.shape.distance(target)
        for space in place.on_level(level)
        if space.category in OPEN_CATEGORIES and not space.connector_end
    ]
    return min(found) if found else None


def _container(place: Place, level: float, point: Point) -> Space | None:
    """The unit of `level` a connector's end stands in, else the nearest within END_REACH."""
    best: tuple[float, Space] | None = None
    for space in place.on_level(level):
        if space.connector_end or space.category in NOT_CONTAINERS:
            continue
        distance = space.shape.distance(point)
        if distance <= END_REACH and (best is None or distance < best[0]):
            best = (distance, space)
    return best[1] if best is not None else None


def as_geojson(shape: BaseGeometry, plane: LocalPlane) -> dict[str, Any]:
    """A shape of the plane as a GeoJSON geometry in WGS84 (lon, lat)."""
    import numpy as np

    def back(xy: Any) -> Any:
        return np.array([plane.lon_lat(float(x), float(y)) for x, y in xy])

    return dict(shapely.geometry.mapping(shapely.transform(shape, back)))
