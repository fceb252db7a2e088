"""Where the walk network crosses IMDF openings, in metres: the units a door joins and
its points on their boundaries (one at the middle, several along a wide door).

A person passes a door of ordinary width through its middle; a door wider than
`WIDE_DOOR` (a mall entrance, an open archway) is crossed anywhere a person's clearance
from its jambs allows, so it gets points every `DOOR_SPACING` or less from `margin`
after one end to `margin` before the other, and a mouth on each side (its ends on the
unit's boundary) that the unit's free space opens onto (routing.imdf.paths).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import shapely

from routing.imdf.model import XY, Door, Space

WIDE_DOOR = 2.0  # metres: wider doors are crossed at several points
DOOR_SPACING = 1.0  # metres: at most this far between the points of a wide door
SNAP_REPORTED = 0.01  # metres: door points moved further than this are reported
SAME = 1e-6  # metres: points this close are one node
TIE = 0.001  # metres: units this much nearer a door than another are as near
ALONG = 0.02  # metres: a unit this near a door's line lies along it where ...
ALONG_SHARE = 0.5  # ... this share of the line is that near
PROBE = 0.05  # metres: a unit on a door's line is sided by its area this deep either side
PROBE_ALONG = 0.25  # metres: ... along this much of the door either side of its middle
DOMINANT = 2.0  # ... the side holding more than this many times the other's area
SLIVER = 0.001  # metres: ... and on average deeper than this (a spike of a unit's ring is none)


@dataclass(frozen=True)
class End:
    """A walkable door's side in one of its units: its middle on the unit's boundary
    (`point`), where walks cross (`points`: the middle, or several along a wide door),
    and for a wide door its ends on the unit's boundary (`mouth`)."""

    door: Door
    point: XY
    points: tuple[XY, ...]
    mouth: tuple[XY, XY] | None


def match_doors(
    spaces: Sequence[Space], doors: Sequence[Door], tolerance: float
) -> Iterable[tuple[Door, list[tuple[Space, XY, float]]]]:
    """Each door with the units it joins: per side of the door line, the walkable unit
    whose boundary is nearest its midpoint (within `tolerance`; of two as near, the
    smaller), and the nearest point of that boundary. A unit beside the door (its
    nearest point along the door's own direction, as a partition wall next to a door
    is) is not joined, unless it lies along the door (`_lies_along`)."""
    by_level: dict[str, list[Space]] = defaultdict(list)
    for space in spaces:
        by_level[space.level].append(space)
    trees = {
        level: (shapely.STRtree([s.shape for s in members]), members)
        for level, members in by_level.items()
    }
    boundaries: dict[str, shapely.Geometry] = {}
    for door in doors:
        mid = door.line.interpolate(0.5, normalized=True)
        found: list[tuple[Space, XY, float]] = []
        if door.level in trees:
            tree, members = trees[door.level]
            hits = tree.query(mid, predicate="dwithin", distance=tolerance)
            candidates = []
            for index in sorted(int(i) for i in hits):
                space = members[index]
                if space.id not in boundaries:
                    boundaries[space.id] = space.shape.boundary
                nearest = shapely.shortest_line(boundaries[space.id], mid).coords[0]
                moved = _distance(nearest, (mid.x, mid.y))
                if moved <= tolerance:
                    candidates.append((moved, space.id, space, (nearest[0], nearest[1])))
            # nearest first; of units as near (within TIE), the smaller: a room drawn over
            # a larger one (a ticket office inside an OSM hall, on the hall's wall) is what
            # a door in its wall opens into (issue 65, point 4)
            candidates.sort(key=lambda c: (round(c[0] / TIE), c[2].shape.area, c[1]))
            found = _one_per_side(door, (mid.x, mid.y), candidates)
        yield door, found


def ends_of(door: Door, found: Sequence[tuple[Space, XY, float]], margin: float) -> list[End]:
    """The door's side in each unit it joins. A wide door's points are taken at the same
    places along the door on every side (moved as its middle was, then onto the unit's
    boundary), so that the i-th points of two sides face each other."""
    length = door.line.length
    if length <= WIDE_DOOR or len(found) == 0:
        return [End(door, point, (point,), None) for _, point, _ in found]
    usable = max(length - 2 * margin, 0.0)
    count = math.ceil(usable / DOOR_SPACING - 1e-9) + 1
    along = [margin + usable * k / (count - 1) for k in range(count)] if count > 1 else [length / 2]
    mid = door.line.interpolate(0.5, normalized=True)
    on_door = [door.line.interpolate(s) for s in along]
    first, last = door.line.coords[0], door.line.coords[-1]
    result = []
    for space, point, _ in found:
        shift = (point[0] - mid.x, point[1] - mid.y)
        boundary = space.shape.boundary
        moved = shapely.points([(p.x + shift[0], p.y + shift[1]) for p in on_door])
        snapped = [_xy(line.coords[0]) for line in shapely.shortest_line(boundary, moved)]
        ends = shapely.points(
            [(first[0] + shift[0], first[1] + shift[1]), (last[0] + shift[0], last[1] + shift[1])]
        )
        mouth = [_xy(line.coords[0]) for line in shapely.shortest_line(boundary, ends)]
        result.append(End(door, point, tuple(snapped), (mouth[0], mouth[1])))
    return result


def _one_per_side(
    door: Door, mid: XY, candidates: list[tuple[float, str, Space, XY]]
) -> list[tuple[Space, XY, float]]:
    """The nearest candidate on each side of the door line (two nearest when the door
    has no direction). A unit further than SNAP_REPORTED is on the side of its nearest
    point (the other side when the door's middle lies inside it), a nearer one on the
    side holding its area (`_side_by_area`)."""
    (x0, y0), (x1, y1) = door.line.coords[0], door.line.coords[-1]
    length = math.hypot(x1 - x0, y1 - y0)
    if length < SAME:
        return [(space, point, moved) for moved, _, space, point in candidates[:2]]
    normal = (-(y1 - y0) / length, (x1 - x0) / length)
    chosen: dict[int, tuple[Space, XY, float]] = {}
    unsided: list[tuple[Space, XY, float]] = []
    for moved, _, space, point in candidates:
        if moved > SNAP_REPORTED:
            along = ((point[0] - mid[0]) * normal[0] + (point[1] - mid[1]) * normal[1]) / moved
            if space.shape.contains(shapely.Point(mid)):
                along = -along  # the door drawn inside the unit: it lies away from its edge
            side = 0 if abs(along) < 0.5 else (1 if along > 0 else -1)
        else:
            side = _side_by_area(space, mid, normal, length)
        if side and side not in chosen:
            chosen[side] = (space, point, moved)
        elif not side and (moved <= SNAP_REPORTED or _lies_along(door, space)):
            unsided.append((space, point, moved))  # e.g. a door drawn across the wall
    found = [chosen[side] for side in (1, -1) if side in chosen]
    taken = {space.id for space, _, _ in found}
    unsided = [u for u in unsided if u[0].id not in taken]
    return found + unsided[: max(0, 2 - len(found))]


def _lies_along(door: Door, space: Space) -> bool:
    """Whether the unit lies along most of the door (within ALONG of ALONG_SHARE of its
    line): an opening drawn as a polyline down the edge between two units (OSM's,
    derived where a hall meets a strip beside it: issue 65, point 4) whose middle is
    nearest a point of the strip lying along the door, not across it. A unit beside an
    ordinary door (a partition wall's room) meets its line at one end only."""
    near = shapely.intersection(door.line, shapely.buffer(space.shape, ALONG))
    return bool(near.length >= ALONG_SHARE * door.line.length)


def _side_by_area(space: Space, mid: XY, normal: XY, length: float) -> int:
    """The side of the door line holding the unit's area by its middle: the side of the
    one of two points `PROBE` out that it holds, else its share of a strip that deep on
    each side, along the door's middle `PROBE_ALONG` either way.
    Area, not a point: a unit whose sliver along the door is thinner than the probe (a
    lobby opening onto stairs, drawn 1 cm off their side) is still on its side. 0 when
    neither side holds clearly more (a door drawn across the wall) or only a sliver."""
    depth, half = min(PROBE, length / 2), min(PROBE_ALONG, length / 2)
    probes = [(mid[0] + k * depth * normal[0], mid[1] + k * depth * normal[1]) for k in (1, -1)]
    inside = shapely.contains_xy(space.shape, *zip(*probes, strict=True)).tolist()
    if inside[0] != inside[1]:  # the usual door: the unit holds one probe (fast)
        return 1 if inside[0] else -1
    tangent = (normal[1], -normal[0])
    areas = []
    for sign in (1, -1):
        nx, ny = sign * depth * normal[0], sign * depth * normal[1]
        a = (mid[0] - half * tangent[0], mid[1] - half * tangent[1])
        b = (mid[0] + half * tangent[0], mid[1] + half * tangent[1])
        strip = shapely.Polygon([a, b, (b[0] + nx, b[1] + ny), (a[0] + nx, a[1] + ny)])
        areas.append(float(shapely.intersection(space.shape, strip).area))
    plus, minus = areas
    if max(plus, minus) <= max(DOMINANT * min(plus, minus), SLIVER * 2 * half):
        return 0
    return 1 if plus > minus else -1


def _xy(coords: Sequence[float]) -> XY:
    return (float(coords[0]), float(coords[1]))


def _distance(a: Sequence[float], b: Sequence[float]) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])
