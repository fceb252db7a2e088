"""The reference for walk lengths on IMDF venues (issue 35, point 2; issue 65, point 4):
the exact shortest walk through free space and doors. An oracle: it shares no code with
what it judges (routing/imdf, routing/build.py, routing/matrix.py) and imports nothing
of floorgate's, so a fault of the walk graph cannot hide in it.

Free space, in metres: every walkable unit shrunk by the clearance (0.3 m, mitred
corners: a person keeps 0.3 m from each wall), joined through its doors. A door up to
2 m wide is passed through its middle, straight across the clearance on both sides (a
1 cm wide passage); a wider door anywhere from the clearance after one jamb to the
clearance before the other (a passage that wide). The shortest walk between two points
of a polygon is straight where they see each other, else it bends at reflex vertices:
Dijkstra on the visibility graph of the two points and every reflex vertex.

Fast, and as exact as the whole visibility graph (issue 65, point 4: Gare de l'Est's
hall, 2,243 reflex corners, 8.5 s of CPU before, 1.4 s): a segment is asked for sight
only where it is tangent at both ends (no shortest walk takes another), the sight test
is `shapely.covers` of the free space widened by LOOSE, decided first, answer for answer,
by two exact predicates that cost a tenth as much (`_seen`), and each point's Dijkstra
stops once every point is reached. Against the code before, on every venue the tests
import: the same segments seen, the same distances to the last bit.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence

import numpy as np
import shapely
from shapely.geometry.polygon import orient

XY = tuple[float, float]
CLEARANCE = 0.3
WIDE = 2.0
NARROW_PASSAGE = 0.01  # metres: the width of an ordinary door's passage
REACH = 0.1  # metres: a passage reaches this far into the shrunk units (one polygon, past
# the steps of a wall drawn ragged: 1 cm left slits, issue 65)
SAME = 1e-6  # metres: a unit this near the units a door joins is one of them
TANGENT = 1e-9  # a sine: a neighbour this near a segment's line is on it
LOOSE = 1e-7  # metres: a segment this near the free space is in it (a walk grazes corners)
CHUNK = 1 << 16  # pairs of vertices tested for tangency at once
MARGIN = 1e-9  # metres: past LOOSE, no rounding of a segment's coordinates reaches back


def free_space(
    units: Sequence[shapely.Polygon], doors: Sequence[tuple[XY, XY]], clearance: float = CLEARANCE
) -> shapely.Polygon:
    """The walkable units shrunk by `clearance`, joined by their doors' passages."""
    union = free_spaces(units, [(a, b, 0.0) for a, b in doors], clearance)
    assert isinstance(union, shapely.Polygon), "the venue is one free space"
    return union


def free_spaces(
    units: Sequence[shapely.Polygon],
    doors: Sequence[tuple[XY, XY, float]],
    clearance: float = CLEARANCE,
    joins: Sequence[shapely.Geometry | None] = (),
) -> shapely.Polygon | shapely.MultiPolygon:
    """The walkable units shrunk by `clearance`, joined by their doors' passages; each
    door (a, b, off) with its units up to `off` metres from its line (a door in the
    middle of a wall of thickness 2 x off): its passage runs straight across the wall and
    the clearance on both sides. `joins`, by door: the units it joins, when known; its
    passage stays within `off` of them and out of every other unit (a long opening drawn
    across other units, as between two corridor areas of an OSM mall, or along a strip
    beside a café, opens no way into those). Pieces nothing joins stay apart (a
    MultiPolygon)."""
    pieces = [shapely.buffer(u, -clearance, join_style="mitre") for u in units]
    within = list(joins) + [None] * (len(doors) - len(joins))
    tree = shapely.STRtree(list(units))
    for ((x0, y0), (x1, y1), off), joined in zip(doors, within, strict=True):
        width = math.hypot(x1 - x0, y1 - y0)
        tx, ty = (x1 - x0) / width, (y1 - y0) / width
        if width > WIDE:
            a = (x0 + clearance * tx, y0 + clearance * ty)
            b = (x1 - clearance * tx, y1 - clearance * ty)
        else:
            mx, my = (x0 + x1) / 2, (y0 + y1) / 2
            half = NARROW_PASSAGE / 2
            a, b = (mx - half * tx, my - half * ty), (mx + half * tx, my + half * ty)
        depth = off + clearance + REACH
        nx, ny = -ty * depth, tx * depth
        passage = shapely.Polygon(
            [
                (a[0] - nx, a[1] - ny),
                (b[0] - nx, b[1] - ny),
                (b[0] + nx, b[1] + ny),
                (a[0] + nx, a[1] + ny),
            ]
        )
        if joined is not None:  # near its units, and in no other
            near = shapely.buffer(joined, off + REACH, join_style="mitre")
            passage = shapely.intersection(passage, near)
            loose = shapely.buffer(joined, SAME, join_style="mitre")
            others = [
                units[k]
                for k in tree.query(passage, predicate="intersects").tolist()
                if not loose.covers(units[k])
            ]
            if others:
                passage = shapely.difference(passage, shapely.union_all(others))
        pieces.append(passage)
    union = shapely.union_all(pieces)
    assert isinstance(union, shapely.Polygon | shapely.MultiPolygon)
    return union


def reflex_vertices(polygon: shapely.Polygon) -> list[XY]:
    """Vertices where the boundary turns away from the inside (exterior counter-clockwise,
    holes clockwise: a right turn)."""
    return [vertex for _, vertex, _ in _reflex_corners(polygon)]


def _reflex_corners(polygon: shapely.Polygon) -> list[tuple[XY, XY, XY]]:
    """Each reflex vertex with the vertices before and after it on its ring."""
    found: list[tuple[XY, XY, XY]] = []
    shaped = orient(polygon, 1.0)
    for ring in [shaped.exterior, *shaped.interiors]:
        points = list(ring.coords)[:-1]
        n = len(points)
        for k in range(n):
            (ax, ay), (bx, by), (cx, cy) = points[k - 1], points[k], points[(k + 1) % n]
            if (bx - ax) * (cy - by) - (by - ay) * (cx - bx) < -1e-12:
                found.append(((ax, ay), (bx, by), (cx, cy)))
    return found


def _sides(xy: np.ndarray, neighbour: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each vertex's way to a neighbour, and its length (0 for a walk's point)."""
    way = neighbour - xy
    return way, np.hypot(way[:, 0], way[:, 1])


def _sine(
    direction: np.ndarray, length: np.ndarray, way: np.ndarray, reach: np.ndarray
) -> np.ndarray:
    """The sine of the angle from each `direction` (of `length`) to its `way` (of `reach`),
    row by row (0 where either is of zero length)."""
    cross = direction[:, 0] * way[:, 1] - direction[:, 1] * way[:, 0]
    norms = length * reach
    sine: np.ndarray = np.divide(cross, norms, out=np.zeros_like(cross), where=norms > 0)
    return sine


def _tangent(
    direction: np.ndarray,
    length: np.ndarray,
    ends: np.ndarray,
    before: tuple[np.ndarray, np.ndarray],
    after: tuple[np.ndarray, np.ndarray],
) -> np.ndarray:
    """Whether a segment of `direction` (and `length`) through the vertices `ends` leaves
    both of each vertex's neighbours on one side (or on the line): true of a walk's point
    (its neighbours are itself)."""
    one = _sine(direction, length, before[0][ends], before[1][ends])
    two = _sine(direction, length, after[0][ends], after[1][ends])
    return ~(((one > TANGENT) & (two < -TANGENT)) | ((one < -TANGENT) & (two > TANGENT)))


def _taut(xy: np.ndarray, before: np.ndarray, after: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pairs of vertices (first < second) whose segment is tangent at both ends, the
    only ones a shortest walk takes between two bends: CHUNK pairs at a time (arrays
    that stay in the processor's cache), the second end asked only of the pairs tangent
    at the first."""
    sides = _sides(xy, before), _sides(xy, after)
    pairs = np.triu_indices(len(xy), k=1)
    firsts, seconds = [], []
    for start in range(0, len(pairs[0]), CHUNK):
        first, second = pairs[0][start : start + CHUNK], pairs[1][start : start + CHUNK]
        direction = xy[second] - xy[first]
        length = np.hypot(direction[:, 0], direction[:, 1])
        keep = _tangent(direction, length, first, *sides)
        first, second, direction, length = first[keep], second[keep], direction[keep], length[keep]
        keep = _tangent(direction, length, second, *sides)
        firsts.append(first[keep])
        seconds.append(second[keep])
    if not firsts:
        return pairs
    return np.concatenate(firsts), np.concatenate(seconds)


def _seen(
    free: shapely.Polygon, xy: np.ndarray, first: np.ndarray, second: np.ndarray
) -> np.ndarray:
    """Whether each segment from xy[first] to xy[second] lies in `free` widened by LOOSE:
    `shapely.covers` of the widened free space, answer for answer, but asked only of the
    segments the two cheap tests below leave in doubt (shapely's predicates are exact on
    the coordinates they are given, so each shortcut is a proof, not an estimate):
    - a segment that meets the outline of the free space widened by LOOSE + MARGIN has a
      point outside the widened free space (that outline is checked to stay out of it):
      not seen. Nearly every segment between far corners of a hall drawn ragged is such;
    - a segment from a point inside the widened free space that meets none of its
      outline stays inside it: seen."""
    loose = shapely.buffer(free, LOOSE, join_style="mitre")
    lines = shapely.linestrings(np.stack([xy[first], xy[second]], axis=1))
    seen = np.zeros(len(lines), dtype=bool)
    beyond = shapely.boundary(shapely.buffer(loose, MARGIN, join_style="mitre"))
    ask = np.arange(len(lines))
    if shapely.disjoint(beyond, loose):
        shapely.prepare(beyond)
        ask = ask[~shapely.intersects(beyond, lines)]
    outline = shapely.boundary(loose)
    shapely.prepare(outline)
    inside = shapely.contains_xy(loose, xy[:, 0], xy[:, 1])
    clear = inside[first[ask]] & ~shapely.intersects(outline, lines[ask])
    seen[ask[clear]] = True
    doubt = ask[~clear]
    if len(doubt):
        shapely.prepare(loose)
        seen[doubt] = shapely.covers(loose, lines[doubt])
    return seen


def shortest_walks(free: shapely.Polygon, points: Sequence[XY]) -> list[list[float]]:
    """The exact shortest walk inside `free` between every two of `points` (metres).

    A shortest walk bends only around reflex vertices, and where it bends at one both
    its segments are tangent there (the vertex's neighbours on one side of each): only
    such segments (and any from or to one of `points`) are tested for sight (`_seen`,
    the expensive part); the distances are those of the whole visibility graph."""
    corners = _reflex_corners(free)
    nodes = list(points) + [vertex for _, vertex, _ in corners]
    count = len(nodes)
    xy = np.asarray(nodes, dtype=float).reshape(count, 2)
    before, after = xy.copy(), xy.copy()
    if corners:
        before[len(points) :] = [a for a, _, _ in corners]
        after[len(points) :] = [c for _, _, c in corners]
    first, second = _taut(xy, before, after)
    seen = _seen(free, xy, first, second)
    around: list[list[tuple[int, float]]] = [[] for _ in range(count)]
    for a, b in zip(first[seen].tolist(), second[seen].tolist(), strict=True):
        length = math.dist(nodes[a], nodes[b])
        around[a].append((b, length))
        around[b].append((a, length))
    return [_walk_from(around, source, len(points)) for source in range(len(points))]


def _walk_from(around: list[list[tuple[int, float]]], source: int, points: int) -> list[float]:
    """Dijkstra on the visibility graph from `source` until the first `points` vertices
    (the walk's points) are reached: their distances."""
    best = [math.inf] * len(around)
    best[source] = 0.0
    queue = [(0.0, source)]
    pop, push = heapq.heappop, heapq.heappush
    unreached = points
    while queue and unreached:
        d, n = pop(queue)
        if d > best[n]:
            continue
        unreached -= n < points
        for m, length in around[n]:
            reach = d + length
            if reach < best[m]:
                best[m] = reach
                push(queue, (reach, m))
    return best[:points]
