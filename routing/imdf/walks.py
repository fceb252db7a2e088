"""The venue's doors, walk network and drawing: IMDF openings and relationships to
the walk paths of `routing.imdf.paths`, drawn per level by `parsing.imdf.drawing`.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, cast

import shapely
from shapely.geometry import LineString, MultiLineString, Point

from parsing.imdf.categories import SOLID
from parsing.imdf.drawing import DrawnLevel
from parsing.imdf.venue import ImdfOptions, Venue
from routing.imdf.model import COVER, WalkLine, unit_point
from routing.imdf.paths import Door, Space, Traversal, WalkNetwork, walk_network

NOT_WALKABLE = SOLID | {"nonpublic"}

STUB = 0.1  # metres: the walk line of a doorless unit too thin for lines of its own

RESTRICTED = frozenset({"employeesonly", "restricted"})

CONNECTOR_KIND = {
    "stairs": "stairs",
    "steps": "stairs",
    "elevator": "elevator",
    "escalator": "escalator",
    "movingwalkway": "escalator",
    "ramp": "ramp",
}

NO_WHEELCHAIR = frozenset({"stairs", "steps", "escalator"})

CLOSED_OPENINGS = frozenset({"emergencyexit", "automobile", "service"})

NO_WHEELCHAIR_DOORS = frozenset({"revolving", "turnstile"})

RELATIONSHIP_KIND = {
    "stairs": "stairs",
    "elevator": "elevator",
    "escalator": "escalator",
    "movingwalkway": "escalator",
    "ramp": "ramp",
}


def venue_bounds(venue: Venue) -> tuple[float, float, float, float]:
    shapes = [unit.shape for unit in venue.units.values()]
    shapes += [level.outline for level in venue.levels.values() if level.outline is not None]
    bounds = shapely.total_bounds(shapes)
    return (float(bounds[0]), float(bounds[1]), float(bounds[2]), float(bounds[3]))


def spaces_of(venue: Venue) -> list[Space]:
    """Every unit as the walk network takes it: walked or not, usable by wheelchair or not,
    its connector kind."""
    spaces = []
    for unit_id, unit in venue.units.items():
        restriction = str(unit.feature.properties.get("restriction") or "").lower()
        walkable = unit.category not in NOT_WALKABLE and restriction not in RESTRICTED
        spaces.append(
            Space(
                unit_id,
                unit.level,
                unit.shape,
                walkable,
                unit.category not in NO_WHEELCHAIR,
                CONNECTOR_KIND.get(unit.category),
                unit.point,
            )
        )
    return spaces


def read_doors(venue: Venue) -> list[Door]:
    """Every opening that can be read, with whether people and wheelchairs may pass."""
    doors = []
    for feature in venue.archive.of("opening"):
        level = str(feature.properties.get("level_id"))
        if level not in venue.levels:
            venue.report.add("opening on an unknown level, skipped", f"{feature.id}: {level}")
            continue
        line = venue.shape(feature, (LineString, MultiLineString))
        if line is None:
            continue
        if isinstance(line, MultiLineString):
            venue.report.add("opening of several lines, the longest taken", feature.id)
            line = max(line.geoms, key=lambda g: g.length)
        properties = feature.properties
        access = properties.get("access_control") or []
        category = str(properties.get("category") or "").lower()
        restriction = str(properties.get("restriction") or "").lower()
        door = cast(  # JSON: the door object, {} when it is not one
            "dict[str, Any]",
            properties.get("door") if isinstance(properties.get("door"), dict) else {},
        )
        walkable = not access and category not in CLOSED_OPENINGS and restriction not in RESTRICTED
        wheelchair = str(door.get("type") or "").lower() not in NO_WHEELCHAIR_DOORS
        doors.append(Door(feature.id, level, line, walkable, wheelchair))
    return doors


def build_network(venue: Venue, doors: list[Door], options: ImdfOptions) -> WalkNetwork:
    spaces = spaces_of(venue)
    network = walk_network(
        spaces,
        doors,
        _traversals(venue),
        list(venue.levels),
        snap_tolerance=options.snap_tolerance,
        ordinals={level_id: level.ordinal for level_id, level in venue.levels.items()},
        places=place_points(venue),
    )
    network.lines.extend(stubs(spaces, network))
    for door_id, unit_id, moved in network.snaps:
        venue.report.add("opening snapped onto its unit", f"{door_id} to {unit_id}: {moved:.2f} m")
    for kind, message in network.problems:
        venue.report.add(kind, message)
    return network


def stubs(spaces: list[Space], network: WalkNetwork) -> list[WalkLine]:
    """A line STUB long at the point of each walked unit that no door reaches and that
    holds no line of its own (a sliver, a unit of no area: too thin for its free
    space). A doorless room's location joins its own lines, apart from the rest; without
    them it would join the nearest line beyond its wall and route where the report says
    nothing reaches (no-opening; issue 65: the report agrees with the routes)."""
    apart = set(network.unreachable)
    lines: dict[str, list[shapely.LineString]] = defaultdict(list)
    for line in network.lines:
        lines[line.level].append(shapely.LineString(line.points))
    trees = {level: shapely.STRtree(found) for level, found in lines.items()}
    found: list[WalkLine] = []
    for space in sorted(spaces, key=lambda s: s.id):
        if not space.walkable or space.id not in apart:
            continue
        inside = space.shape.buffer(COVER)
        tree = trees.get(space.level)
        if tree is not None and len(tree.query(inside, predicate="contains")):
            continue
        x, y = unit_point(space)
        found.append(WalkLine(space.level, ((x, y), (x + STUB, y)), space.wheelchair))
    return found


def place_points(venue: Venue) -> dict[str, list[tuple[float, float]]]:
    """Where amenities and anchors (occupants') stand, by the unit they are in: their
    locations (parsing.imdf.places) stand there, so the unit's walk lines reach there
    (routing.imdf.paths). Unreadable points are skipped here; the places report them."""
    found: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for feature in [*venue.archive.of("amenity"), *venue.anchors.values()]:
        if feature.geometry is None:
            continue
        try:
            point = venue.plane.to_plane(feature.geometry)
        except (ValueError, TypeError, AttributeError, shapely.errors.ShapelyError):
            continue
        if isinstance(point, Point):
            for unit in venue.units_of(feature):
                found[unit.feature.id].append((point.x, point.y))
    return dict(found)


def _traversals(venue: Venue) -> list[Traversal]:
    found = []
    for feature in venue.archive.of("relationship"):
        properties = feature.properties
        category = str(properties.get("category") or "").lower()
        ends = [
            properties.get("origin"),
            *(properties.get("intermediary") or []),
            properties.get("destination"),
        ]
        unit_ids = cast(  # ids of venue.units (its keys are str)
            "list[str]",
            [
                end.get("id")
                for end in ends
                if isinstance(end, dict)
                and end.get("feature_type", "unit") == "unit"
                and end.get("id") in venue.units
            ],
        )
        kind = RELATIONSHIP_KIND.get(category)
        if kind is None and category.startswith("traversal") and unit_ids:
            kind = CONNECTOR_KIND.get(venue.units[unit_ids[0]].category)
        levels = {venue.units[u].level for u in unit_ids}
        if kind is None or len(levels) < 2:
            if category in RELATIONSHIP_KIND or category.startswith("traversal"):
                venue.report.add("relationship joining no two levels' units, skipped", feature.id)
            continue
        found.append(Traversal(feature.id, kind, tuple(unit_ids)))
    return found


def draw_levels(venue: Venue, doors: list[Door], network: WalkNetwork) -> None:
    for level_id, level in venue.levels.items():
        level.drawn = DrawnLevel(
            level_id, level.name, level.index, level.outline, ordinal=level.ordinal
        )
    for unit_id, unit in venue.units.items():
        drawn = venue.levels[unit.level].drawn
        assert drawn is not None
        if unit.listed:
            drawn.units.append((unit_id, unit.category, unit.shape))
            drawn.labels.append((unit.name, unit.point))
        else:
            drawn.spaces.append((unit_id, unit.category, unit.shape))
    for door in doors:
        drawn = venue.levels[door.level].drawn
        assert drawn is not None
        drawn.openings.append(door.line)
    for line in network.lines:
        drawn = venue.levels[line.level].drawn
        assert drawn is not None
        drawn.paths.append((line.points, line.wheelchair))
    for stop in network.stops:
        drawn = venue.levels[stop.level].drawn
        assert drawn is not None
        drawn.stops.append((stop.connector_id, stop.kind, stop.point))
