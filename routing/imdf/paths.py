"""Walk paths generated from IMDF rooms and doors (issue 19, item 3), in metres.

IMDF has no drawn walking network, so the importer derives one from units (polygons)
and openings (door lines): door points snapped onto unit boundaries, a short stub from
each door point into its unit, and inside each walkable unit lines that stay at
`margin` from its walls (shortest paths inside the inset polygon). The result is drawn
as an ordinary `paths` layer, which floorgate's walk-graph builder nodes like a hand
drawing: vertices within 0.5 canvas units merge, so lines of different units are kept
apart everywhere except at the door points they share. Pure geometry, no I/O.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import shapely

from routing.imdf.connectors import connectors
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

# Up to this many nodes in a unit part: exact shortest paths (the union of up to 120
# of them; more would cross into thousands of graph nodes), beyond: the sparse fan.
EXACT_NODES = 16
MIN_MARGIN = 0.03  # metres: narrower insets would bring neighbours' lines within ~6 cm
SNAP_REPORTED = 0.01  # metres: door points moved further than this are reported
ISLAND = 0.2  # metres: the isolated line of a unit no door reaches
STUB_REACH = 1.5  # a stub may be this many times the margin (door at a corner: sqrt 2)
SAME = 1e-6  # metres: points this close are one node
# Rays of a large unit, in degrees from the wall at a door's stub end: a door-to-door
# route is then ring + one ray, or two crossing rays (floorgate splits crossings).
FAN = (25.0, 55.0, 90.0, 125.0, 155.0)
CENTRE_RAYS = 12  # rays from a large unit's display point, evenly spread
MAX_RAY = 40.0  # metres: rays stop at the first wall or here (bounds the crossings)


@dataclass(frozen=True)
class _End:
    """A walkable door's point on one of its units' boundaries."""

    door: Door
    point: XY


def walk_network(
    spaces: Sequence[Space],
    doors: Sequence[Door],
    traversals: Sequence[Traversal],
    level_order: Sequence[str],
    *,
    snap_tolerance: float = 0.5,
    margin: float = 0.3,
) -> WalkNetwork:
    """Lines inside walkable units joined at walkable doors, and connector stops.
    Deterministic: inputs are taken sorted by id."""
    net = WalkNetwork()
    spaces = sorted(spaces, key=lambda s: s.id)
    walkable = [s for s in spaces if s.walkable]
    ends: dict[str, list[_End]] = defaultdict(list)
    door_lines: list[WalkLine] = []
    for door, found in _match_doors(walkable, sorted(doors, key=lambda d: d.id), snap_tolerance):
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
        for space, point, moved in found:
            ends[space.id].append(_End(door, point))
            if moved > SNAP_REPORTED:
                net.snaps.append((door.id, space.id, moved))
        if len(found) == 2 and _distance(found[0][1], found[1][1]) > SAME:
            usable = door.wheelchair and all(space.wheelchair for space, _, _ in found)
            door_lines.append(WalkLine(door.level, (found[0][1], found[1][1]), usable))
    for space in walkable:
        if not ends[space.id]:
            net.unreachable.append(space.id)
        lines, problems = _unit_lines(space, ends[space.id], margin)
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
    net.stops, problems = connectors(walkable, spaces, traversals, level_order)
    net.problems.extend(problems)
    return net


# ---------------------------------------------------------------- doors


def _match_doors(
    spaces: Sequence[Space], doors: Sequence[Door], tolerance: float
) -> Iterable[tuple[Door, list[tuple[Space, XY, float]]]]:
    """Each door with the units it joins: per side of the door line, the walkable unit
    whose boundary is nearest its midpoint (within `tolerance`), and the nearest point
    of that boundary. A unit beside the door (its nearest point along the door's own
    direction, as a partition wall next to a door is) is not joined."""
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
            candidates.sort(key=lambda c: (c[0], c[1]))
            found = _one_per_side(door, (mid.x, mid.y), candidates)
        yield door, found


def _one_per_side(
    door: Door, mid: XY, candidates: list[tuple[float, str, Space, XY]]
) -> list[tuple[Space, XY, float]]:
    """The nearest candidate on each side of the door line (two nearest when the door
    has no direction)."""
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
            side = 0 if abs(along) < 0.5 else (1 if along > 0 else -1)
        else:
            probe = min(0.05, length / 2)
            side = 0
            for sign in (1, -1):
                inside = shapely.Point(
                    mid[0] + sign * probe * normal[0], mid[1] + sign * probe * normal[1]
                )
                if space.shape.contains(inside):
                    side = sign
                    break
        if side and side not in chosen:
            chosen[side] = (space, point, moved)
        elif not side and moved <= SNAP_REPORTED:
            unsided.append((space, point, moved))  # e.g. a door drawn across the wall
    found = [chosen[side] for side in (1, -1) if side in chosen]
    return found + unsided[: max(0, 2 - len(found))]


# ---------------------------------------------------------------- inside a unit


def _unit_lines(
    space: Space, ends: list[_End], margin: float
) -> tuple[list[WalkLine], list[tuple[str, str]]]:
    """The lines inside one walkable unit: stubs, the display point's link, and shortest
    paths (or a sparse fan for many nodes) inside the inset of each part."""
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
    for index, part in enumerate(pieces):
        mine = [end for end, o in zip(ends, owner, strict=True) if o == index]
        has_centre = index == centre_part
        if not mine and not has_centre:
            continue
        points = [end.point for end in mine] + ([centre] if has_centre else [])
        inset = _inset(part, points, margin)
        if inset is None:
            problems.append(
                (
                    "unit-too-narrow",
                    f"unit {space.id}: no room for walk lines {MIN_MARGIN:g} m from its walls",
                )
            )
            continue
        components = parts(inset)
        near = [_nearest_part(components, p) for p in points]
        for number, component in enumerate(components):
            own = [end for end, n in zip(mine, near, strict=False) if n == number]
            own_centre = centre if has_centre and near[-1] == number else None
            if not own and own_centre is None:
                continue
            part_lines, part_problems = _component_lines(space, part, component, own, own_centre)
            lines.extend(part_lines)
            problems.extend(part_problems)
    return lines, problems


def _component_lines(
    space: Space,
    part: shapely.Polygon,
    inset: shapely.Polygon,
    ends: list[_End],
    centre: XY | None,
) -> tuple[list[WalkLine], list[tuple[str, str]]]:
    """Stubs from door points and the display point onto the inset, then the lines
    between the nodes on it."""
    lines: list[WalkLine] = []
    problems: list[tuple[str, str]] = []
    loose = shapely.buffer(part, COVER, join_style="mitre")
    shapely.prepare(loose)
    nodes: list[XY] = []
    normals: list[XY | None] = []
    sources = [(end.point, end.door) for end in ends] + ([(centre, None)] if centre else [])
    targets = shapely.shortest_line(inset, shapely.points([p for p, _ in sources]))
    for (point, door), target in zip(sources, targets, strict=True):
        q = target.coords[0]
        q = (q[0], q[1])
        gap = _distance(point, q)
        if gap > SAME:
            stub = shapely.LineString([point, q])
            if not loose.covers(stub):
                what = f"opening {door.id}" if door else "display point"
                problems.append(
                    ("door-unconnected", f"unit {space.id}: {what} cannot reach its walk lines")
                )
                continue
            usable = space.wheelchair and (door is None or door.wheelchair)
            lines.append(WalkLine(space.level, (point, q), usable))
        normals.append(
            ((q[0] - point[0]) / gap, (q[1] - point[1]) / gap)
            if gap > SAME and door is not None
            else None
        )
        nodes.append(q)
    nodes, normals = _distinct(nodes, normals)
    if len(nodes) == 1:
        lines.append(
            WalkLine(space.level, (nodes[0], _island_end(inset, nodes[0])), space.wheelchair)
        )
    elif len(nodes) <= EXACT_NODES:
        lines.extend(
            WalkLine(space.level, seg, space.wheelchair) for seg in _shortest_paths(inset, nodes)
        )
    elif nodes:
        lines.extend(
            WalkLine(space.level, seg, space.wheelchair) for seg in _fan(inset, nodes, normals)
        )
    return lines, problems


def _inset(
    part: shapely.Polygon, points: Sequence[XY], margin: float
) -> shapely.Polygon | shapely.MultiPolygon | None:
    """The part shrunk by `margin`, or by half of it, a quarter... (not below
    MIN_MARGIN) until it is one polygon that every point reaches within STUB_REACH
    margins: narrow rooms keep their doors joined. At the smallest margin whatever
    is left is used."""
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
            return inset
    return None


def _shortest_paths(inset: shapely.Polygon, nodes: list[XY]) -> list[tuple[XY, XY]]:
    """Exact shortest paths between every pair of nodes inside `inset`: Dijkstra on the
    visibility graph of the nodes and the inset's reflex vertices; the union of the
    edges used, each once."""
    import igraph

    corners = _reflex_vertices(inset)
    everything = nodes + [c for c in corners if all(_distance(c, n) > SAME for n in nodes)]
    loose = shapely.buffer(inset, COVER, join_style="mitre")
    shapely.prepare(loose)
    count = len(everything)
    first, second = np.triu_indices(count, k=1)
    xy = np.array(everything)
    segments = shapely.linestrings(np.stack([xy[first], xy[second]], axis=1))
    visible = shapely.covers(loose, segments)
    pairs = list(zip(first[visible].tolist(), second[visible].tolist(), strict=True))
    lengths = np.hypot(*(xy[first[visible]] - xy[second[visible]]).T).tolist()
    graph = igraph.Graph(n=count, edges=pairs)
    used: set[int] = set()
    for source in range(len(nodes) - 1):
        paths = graph.get_shortest_paths(
            source, to=list(range(source + 1, len(nodes))), weights=lengths, output="epath"
        )
        for path in paths:
            used.update(path)
    return [(everything[pairs[e][0]], everything[pairs[e][1]]) for e in sorted(used)]


def _fan(inset: shapely.Polygon, nodes: list[XY], normals: list[XY | None]) -> list[tuple[XY, ...]]:
    """A sparse network for many nodes: the inset's rings, and rays from each node to
    the first wall (FAN angles from the wall at a door, CENTRE_RAYS around the display
    point and around each reflex corner, where routes bend). Rays land on the rings;
    crossing rays are joined by floorgate, so a route is ring + ray + ring or two rays,
    within a few percent of the shortest."""
    lines: list[tuple[XY, ...]] = [tuple(ring.coords) for ring in _rings(inset)]
    starts: list[XY] = []
    directions: list[XY] = []
    corners = [c for c in _reflex_vertices(inset) if all(_distance(c, n) > SAME for n in nodes)]
    for node, normal in zip([*nodes, *corners], [*normals, *[None] * len(corners)], strict=True):
        if normal is None:
            angles = [2 * math.pi * k / CENTRE_RAYS for k in range(CENTRE_RAYS)]
            dirs = [(math.cos(a), math.sin(a)) for a in angles]
        else:
            tangent = (normal[1], -normal[0])
            dirs = [
                (
                    math.cos(a) * tangent[0] + math.sin(a) * normal[0],
                    math.cos(a) * tangent[1] + math.sin(a) * normal[1],
                )
                for a in (math.radians(d) for d in FAN)
            ]
        starts.extend([node] * len(dirs))
        directions.extend(dirs)
    start = np.array(starts)
    stop = start + MAX_RAY * np.array(directions)
    rays = shapely.linestrings(np.stack([start, stop], axis=1))
    shapely.prepare(inset)
    pieces = shapely.intersection(rays, inset)
    for origin, piece in zip(starts, pieces, strict=True):
        first = _piece_from(piece, origin)
        if first is not None:
            lines.append(first)
    return lines


def _piece_from(piece: shapely.Geometry, origin: XY) -> tuple[XY, XY] | None:
    """The part of a clipped ray that starts at its origin (None when the ray leaves the
    polygon at once)."""
    for line in _lines_of(piece):
        coords = line.coords
        if len(coords) >= 2 and _distance(coords[0], origin) <= SAME * 10:
            end = (coords[-1][0], coords[-1][1])
            if _distance(end, origin) > SAME * 10:
                return (origin, end)
    return None


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


def _lines_of(shape: shapely.Geometry) -> list[shapely.LineString]:
    if isinstance(shape, shapely.LineString):
        return [shape]
    return [g for g in getattr(shape, "geoms", []) if isinstance(g, shapely.LineString)]


def _rings(polygon: shapely.Polygon) -> list[shapely.LinearRing]:
    return [polygon.exterior, *polygon.interiors]


def _nearest_part(parts: Sequence[shapely.Polygon], point: XY) -> int:
    spot = shapely.Point(point)
    distances = [part.distance(spot) for part in parts]
    return int(np.argmin(distances))


def _distinct(nodes: list[XY], normals: list[XY | None]) -> tuple[list[XY], list[XY | None]]:
    """Nodes closer than SAME are one (two doors at one spot)."""
    kept: list[XY] = []
    kept_normals: list[XY | None] = []
    for node, normal in zip(nodes, normals, strict=True):
        if all(_distance(node, other) > SAME for other in kept):
            kept.append(node)
            kept_normals.append(normal)
    return kept, kept_normals


def _reflex_vertices(polygon: shapely.Polygon) -> list[XY]:
    """Vertices where the free space turns around a corner (the only places a shortest
    path bends): right turns of rings oriented with the interior on their left."""
    oriented = shapely.geometry.polygon.orient(polygon, 1.0)
    found: list[XY] = []
    for ring in _rings(oriented):
        xy = np.asarray(ring.coords)[:-1]
        if len(xy) < 3:
            continue
        before = xy - np.roll(xy, 1, axis=0)
        after = np.roll(xy, -1, axis=0) - xy
        cross = before[:, 0] * after[:, 1] - before[:, 1] * after[:, 0]
        found.extend((float(x), float(y)) for x, y in xy[cross < -1e-12])
    return found
