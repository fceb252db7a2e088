"""Walk paths generated from IMDF rooms and doors (issue 19, item 3; issue 35, point 2), in
metres.

IMDF has no drawn walking network, so the importer derives one from units (polygons)
and openings (door lines): door points snapped onto unit boundaries (several along a
wide door, routing.imdf.doors), and inside each walkable unit its free space, the unit
shrunk by `margin` (a person's clearance from walls) and opened onto each wide door's
mouth, in which the lines are the visibility network of the door points, the unit's
point and the free space's reflex corners (routing.imdf.visibility). A door point the
free space does not reach gets a short stub into it. The result is drawn as an ordinary
`paths` layer, which floorgate's walk-graph builder nodes like a hand drawing: vertices
within 0.5 canvas units merge, so lines of different units are kept apart everywhere
except at the door points they share. Pure geometry, no I/O.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import shapely

from routing.imdf import level_doors, visibility
from routing.imdf.connectors import connectors
from routing.imdf.doors import SNAP_REPORTED, End, ends_of, match_doors
from routing.imdf.model import (
    COVER,
    XY,
    Door,
    Space,
    Stop,
    Traversal,
    WalkLine,
    WalkNetwork,
    parts,
    unit_point,
)

# The model is part of this module's interface (the importer and tests take it from here).
__all__ = [
    "Door",
    "Space",
    "Stop",
    "Traversal",
    "WalkLine",
    "WalkNetwork",
    "unit_point",
    "walk_network",
]

MIN_MARGIN = 0.03  # metres: narrower insets would bring neighbours' lines within ~6 cm
ISLAND = 0.2  # metres: the isolated line of a unit no door reaches
STUB_REACH = 1.5  # a stub may be this many times the margin (door at a corner: sqrt 2)
SAME = 1e-6  # metres: points this close are one node
MIN_MOUTH = 0.05  # metres: a wide door's mouth narrower than this (after the margins) is
# not opened: its points are reached by stubs
MOUTH_OVERLAP = 0.1  # metres: a mouth reaches this far into the shrunk unit, one piece
# with it past the steps of a ragged wall's shrunk outline too (issue 65, point 4: 1 cm
# left slits along a wall drawn with CAD steps, and walks bent round them)


@dataclass(frozen=True)
class _Terminal:
    """A point the unit's lines must reach: a door point, or the unit's point (no door)."""

    point: XY
    door: Door | None
    wide: bool  # a point on a wide door's mouth


def walk_network(
    spaces: Sequence[Space],
    doors: Sequence[Door],
    traversals: Sequence[Traversal],
    level_order: Sequence[str],
    *,
    snap_tolerance: float = 0.5,
    margin: float = 0.3,
    ordinals: Mapping[str, float] | None = None,
    places: Mapping[str, Sequence[XY]] | None = None,
) -> WalkNetwork:
    """Lines inside walkable units joined at walkable doors, and connector stops; levels
    of one height (`ordinals`) joined where they meet (`routing.imdf.level_doors`).
    `places`: by unit id, other points where locations stand (amenities, occupants'
    anchors), reached by the unit's lines as its own point is (a location off the lines
    joins the nearest one, often leading away: issue 48, point 7).
    Deterministic: inputs are taken sorted by id."""
    net = WalkNetwork()
    spaces = sorted(spaces, key=lambda s: s.id)
    walkable = [s for s in spaces if s.walkable]
    ends: dict[str, list[End]] = defaultdict(list)
    door_lines: list[WalkLine] = []
    height = level_doors.heights(level_order, ordinals)
    matched = level_doors.match_across(
        walkable,
        match_doors(walkable, sorted(doors, key=lambda d: d.id), snap_tolerance),
        height,
        snap_tolerance,
    )
    joined = {
        frozenset(s.level for s, _, _ in found)
        for door, found in matched
        if door.walkable and len({s.level for s, _, _ in found}) == 2
    }
    seams, problems = level_doors.seams(walkable, joined, height, snap_tolerance)
    net.problems.extend(problems)
    matched += [
        (door, found)
        for door, found in level_doors.match_across(
            walkable, match_doors(walkable, seams, snap_tolerance), height, snap_tolerance
        )
        if len({space.level for space, _, _ in found}) == 2
    ]
    level_stops: list[Stop] = []
    for door, found in matched:
        if not found:
            net.problems.append(
                (
                    "door-without-unit",
                    f"opening {door.id} is more than {snap_tolerance:g} m from any walkable unit",
                )
            )
            continue
        if not door.walkable:
            continue  # a locked door is simply absent
        usable = door.wheelchair and all(space.wheelchair for space, _, _ in found)
        between = len({space.level for space, _, _ in found}) == 2  # levels of one height
        if between and not usable:
            net.problems.append(level_doors.not_step_free(door, found))
            continue
        sides = ends_of(door, found, margin)
        for (space, _, moved), end in zip(found, sides, strict=True):
            ends[space.id].append(end)
            if moved > SNAP_REPORTED:
                net.snaps.append((door.id, space.id, moved))
        if between:
            level_stops += level_doors.crossing(door, found, sides)
            net.level_joins.append((door.id, found[0][0].id, found[1][0].id))
        elif len(sides) == 2:
            for a, b in zip(sides[0].points, sides[1].points, strict=True):
                if _distance(a, b) > SAME:
                    door_lines.append(WalkLine(found[0][0].level, (a, b), usable))
    for space in walkable:
        if not ends[space.id]:
            net.unreachable.append(space.id)
        spots = (places or {}).get(space.id, ())
        lines, problems = _unit_lines(space, ends[space.id], margin, spots)
        net.lines.extend(lines)
        net.problems.extend(problems)
    net.lines.extend(door_lines)
    net.lines = [
        WalkLine(
            line.level, tuple((round(x, 6), round(y, 6)) for x, y in line.points), line.wheelchair
        )
        for line in net.lines
    ]
    net.snaps.sort()
    stops, problems = connectors(walkable, spaces, traversals, level_order, ordinals)
    net.problems.extend(problems)
    rank = {level: i for i, level in enumerate(level_order)}
    net.stops = sorted(
        [*stops, *level_stops],
        key=lambda s: (s.connector_id, rank.get(s.level, len(rank)), s.level, s.point),
    )
    return net


# ---------------------------------------------------------------- inside a unit


def _unit_lines(
    space: Space, ends: list[End], margin: float, spots: Sequence[XY] = ()
) -> tuple[list[WalkLine], list[tuple[str, str]]]:
    """The lines inside one walkable unit: per part, its free space (the part shrunk by
    the margin, opened onto its wide doors' mouths) and in each piece of it the
    visibility network of its door points, the unit's point, the other points where
    its locations stand (`spots`, those inside it) and its corners."""
    lines: list[WalkLine] = []
    problems: list[tuple[str, str]] = []
    if space.point is not None and not space.shape.buffer(COVER).covers(shapely.Point(space.point)):
        problems.append(
            (
                "display-point-outside",
                f"unit {space.id}: display point outside its shape, chose one inside",
            )
        )
    centre = unit_point(space)
    pieces = parts(space.shape)
    owner = [_nearest_part(pieces, end.point) for end in ends]
    centre_part = _nearest_part(pieces, centre)
    inside = space.shape.buffer(COVER)
    placed = sorted(
        {p for p in spots if _distance(p, centre) > SAME and inside.covers(shapely.Point(p))}
    )
    placed_part = [_nearest_part(pieces, p) for p in placed]
    for index, part in enumerate(pieces):
        mine = [end for end, o in zip(ends, owner, strict=True) if o == index]
        terminals = [
            _Terminal(point, end.door, end.mouth is not None)
            for end in mine
            for point in end.points
        ]
        if index == centre_part:
            terminals.append(_Terminal(centre, None, False))
        terminals += [
            _Terminal(p, None, False)
            for p, o in zip(placed, placed_part, strict=True)
            if o == index
        ]
        if not terminals:
            continue
        inset, used = _inset(part, [t.point for t in terminals], margin)
        if inset is None:
            problems.append(
                (
                    "unit-too-narrow",
                    f"unit {space.id}: no room for walk lines {MIN_MARGIN:g} m from its walls",
                )
            )
            continue
        mouths = [_mouth(end.mouth, part, inset, used) for end in mine if end.mouth is not None]
        free = shapely.union_all([inset, *[m for m in mouths if m is not None]])
        components = parts(free)
        near = [_nearest_part(components, t.point) for t in terminals]
        for number, component in enumerate(components):
            own = [t for t, n in zip(terminals, near, strict=True) if n == number]
            if own:
                part_lines, part_problems = _component_lines(space, part, component, own)
                lines.extend(part_lines)
                problems.extend(part_problems)
    return lines, problems


def _component_lines(
    space: Space, part: shapely.Polygon, free: shapely.Polygon, terminals: list[_Terminal]
) -> tuple[list[WalkLine], list[tuple[str, str]]]:
    """Stubs from the terminals the free space does not hold onto it, then the lines
    between the nodes inside it."""
    lines: list[WalkLine] = []
    problems: list[tuple[str, str]] = []
    loose = shapely.buffer(part, COVER, join_style="mitre")
    shapely.prepare(loose)
    holds = shapely.buffer(free, COVER, join_style="mitre")
    shapely.prepare(holds)
    nodes: list[XY] = []
    passable: list[bool] = []  # a wheelchair may use lines from this node
    groups: list[str | None] = []
    spots = shapely.points([t.point for t in terminals])
    inside = shapely.covers(holds, spots)
    targets = shapely.shortest_line(free, spots)
    for terminal, held, target in zip(terminals, inside.tolist(), targets, strict=True):
        point, door = terminal.point, terminal.door
        chair = door is None or door.wheelchair
        if held:
            node = point
        else:
            node = (target.coords[0][0], target.coords[0][1])
            stub = shapely.LineString([point, node])
            if not loose.covers(stub):
                what = f"opening {door.id}" if door else "display point"
                problems.append(
                    ("door-unconnected", f"unit {space.id}: {what} cannot reach its walk lines")
                )
                continue
            lines.append(WalkLine(space.level, (point, node), space.wheelchair and chair))
            chair = True  # the stub holds the door's rule
        group = door.id if door is not None and terminal.wide and held else None
        for k, other in enumerate(nodes):
            if _distance(node, other) <= SAME:  # two doors at one spot: one node
                passable[k] = passable[k] and chair
                groups[k] = groups[k] if groups[k] == group else None
                break
        else:
            nodes.append(node)
            passable.append(chair)
            groups.append(group)
    if len(nodes) == 1:
        lines.append(
            WalkLine(space.level, (nodes[0], _island_end(free, nodes[0])), space.wheelchair)
        )
        return lines, problems
    points, edges = visibility.network(free, nodes, groups)
    count = len(nodes)
    for a, b in edges:
        chair = space.wheelchair and (a >= count or passable[a]) and (b >= count or passable[b])
        lines.append(WalkLine(space.level, (points[a], points[b]), chair))
    return lines, problems


def _inset(
    part: shapely.Polygon, points: Sequence[XY], margin: float
) -> tuple[shapely.Polygon | shapely.MultiPolygon | None, float]:
    """The part shrunk by `margin`, or by half of it, a quarter... (not below
    MIN_MARGIN) until it is one polygon that every point reaches within STUB_REACH
    margins: narrow rooms keep their doors joined. At the smallest margin whatever
    is left is used. Also the margin used."""
    ladder = [margin]
    while ladder[-1] / 2 >= MIN_MARGIN:
        ladder.append(ladder[-1] / 2)
    if ladder[-1] > MIN_MARGIN:
        ladder.append(MIN_MARGIN)
    spots = shapely.points(list(points))
    for step, m in enumerate(ladder):
        inset = shapely.buffer(part, -m, join_style="mitre") if m > 0 else part
        if inset.is_empty:
            continue
        last = step == len(ladder) - 1
        if isinstance(inset, shapely.MultiPolygon) and not last:
            continue
        if last or bool(np.all(shapely.distance(inset, spots) <= STUB_REACH * m + 1e-9)):
            return inset, m
    return None, 0.0


def _mouth(
    mouth: tuple[XY, XY], part: shapely.Polygon, inset: shapely.Geometry, margin: float
) -> shapely.Geometry | None:
    """Where a person passes a wide door inside its unit: the door's mouth less `margin`
    at each end (the jambs), from the wall to the shrunk unit, within the part."""
    (x0, y0), (x1, y1) = mouth
    length = math.hypot(x1 - x0, y1 - y0)
    if length - 2 * margin < MIN_MOUTH:
        return None
    tx, ty = (x1 - x0) / length, (y1 - y0) / length
    a = (x0 + margin * tx, y0 + margin * ty)
    b = (x1 - margin * tx, y1 - margin * ty)
    nx, ny = -ty, tx
    mid = shapely.Point((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
    towards = shapely.shortest_line(mid, inset).coords[-1]
    if (towards[0] - mid.x) * nx + (towards[1] - mid.y) * ny < 0:
        nx, ny = -nx, -ny
    depth = margin + MOUTH_OVERLAP
    quad = shapely.Polygon(
        [a, b, (b[0] + depth * nx, b[1] + depth * ny), (a[0] + depth * nx, a[1] + depth * ny)]
    )
    opened = shapely.intersection(quad, part)
    pieces = parts(opened)  # a Polygon, or the polygons of a collection
    return shapely.union_all(pieces) if pieces else None


def _island_end(inset: shapely.Polygon, node: XY) -> XY:
    """A point ISLAND metres from the node inside the inset (or as far as there is room),
    so that the lone node is a line a location can join."""
    loose = shapely.buffer(inset, COVER, join_style="mitre")
    for k in range(8):
        a = math.pi * k / 4
        end = (node[0] + ISLAND * math.cos(a), node[1] + ISLAND * math.sin(a))
        if loose.covers(shapely.LineString([node, end])):
            return end
    inside = inset.representative_point()
    if _distance((inside.x, inside.y), node) > SAME:
        return (inside.x, inside.y)
    return (node[0] + 1e-3, node[1])


# ---------------------------------------------------------------- geometry helpers


def _distance(a: Sequence[float], b: Sequence[float]) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])


def _nearest_part(parts: Sequence[shapely.Polygon], point: XY) -> int:
    spot = shapely.Point(point)
    distances = [part.distance(spot) for part in parts]
    return int(np.argmin(distances))
