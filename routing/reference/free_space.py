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


def _sine(direction: np.ndarray, origin: np.ndarray, towards: np.ndarray) -> np.ndarray:
    """The sine of the angle from `direction` to `towards - origin`, row by row (0 where
    either is of zero length)."""
    other = towards - origin
    cross = direction[:, 0] * other[:, 1] - direction[:, 1] * other[:, 0]
    norms = np.hypot(direction[:, 0], direction[:, 1]) * np.hypot(other[:, 0], other[:, 1])
    sine: np.ndarray = np.divide(cross, norms, out=np.zeros_like(cross), where=norms > 0)
    return sine


def _tangent(
    direction: np.ndarray, ends: np.ndarray, xy: np.ndarray, before: np.ndarray, after: np.ndarray
) -> np.ndarray:
    """Whether a segment of `direction` through the vertices `ends` leaves both of each
    vertex's neighbours on one side (or on the line): true of a walk's point (its
    neighbours are itself)."""
    one = _sine(direction, xy[ends], before[ends])
    two = _sine(direction, xy[ends], after[ends])
    return ~(((one > TANGENT) & (two < -TANGENT)) | ((one < -TANGENT) & (two > TANGENT)))


def shortest_walks(free: shapely.Polygon, points: Sequence[XY]) -> list[list[float]]:
    """The exact shortest walk inside `free` between every two of `points` (metres).

    A shortest walk bends only around reflex vertices, and where it bends at one both
    its segments are tangent there (the vertex's neighbours on one side of each): only
    such segments (and any from or to one of `points`) are tested for sight, the
    expensive part; the distances are those of the whole visibility graph."""
    corners = _reflex_corners(free)
    nodes = list(points) + [vertex for _, vertex, _ in corners]
    loose = shapely.buffer(free, 1e-7, join_style="mitre")
    shapely.prepare(loose)
    count = len(nodes)
    xy = np.asarray(nodes, dtype=float).reshape(count, 2)
    before, after = xy.copy(), xy.copy()
    if corners:
        before[len(points) :] = [a for a, _, _ in corners]
        after[len(points) :] = [c for _, _, c in corners]
    first, second = np.triu_indices(count, k=1)
    direction = xy[second] - xy[first]
    taut = _tangent(direction, first, xy, before, after)
    taut &= _tangent(direction, second, xy, before, after)
    first, second = first[taut], second[taut]
    seen = shapely.covers(loose, shapely.linestrings(np.stack([xy[first], xy[second]], axis=1)))
    around: list[list[tuple[int, float]]] = [[] for _ in range(count)]
    for a, b in zip(first[seen].tolist(), second[seen].tolist(), strict=True):
        length = math.dist(nodes[a], nodes[b])
        around[a].append((b, length))
        around[b].append((a, length))
    table = []
    for source in range(len(points)):
        best = [math.inf] * count
        best[source] = 0.0
        queue = [(0.0, source)]
        while queue:
            d, n = heapq.heappop(queue)
            if d > best[n]:
                continue
            for m, length in around[n]:
                if d + length < best[m]:
                    best[m] = d + length
                    heapq.heappush(queue, (d + length, m))
        table.append(best[: len(points)])
    return table
