"""The walk network inside one piece of a unit's free space (issue 35, point 2), in metres.

A person's shortest walk between two points of a polygon is straight where they see
each other and otherwise bends only at reflex corners, turning around them. So the
network's nodes are the terminals (door points, the unit's point) and the free space's
reflex corners, and its edges are pairs that see each other inside the free space and,
at a corner, are tangent to it (both walls at the corner on one side of the edge; any
other edge through a corner is never part of a shortest walk).

- Few terminals (`EXACT_TERMINALS`): the union of the exact shortest paths between every
  pair of terminals on that visibility graph: routes through the unit are exact.
- More (a corridor with many doors, a hall): a Yao graph, each node joined to the nearest
  node it sees in each of `CONES` equal sectors around it (tangent at corners), made a
  `STRETCH` spanner: node by node, while a node it sees is further than STRETCH times
  their distance along the edges so far, the shortest such edge is added (at most
  `ADDED` per node). Routes are then within a few percent of the shortest.

Bounds (the work of a big open hall): candidate edges are every pair up to `ALL_PAIRS`
nodes, beyond that the pairs within `MAX_EDGE` (an STRtree query), each tested once
against the prepared free space; a node owns at most CONES + ADDED = 22 edges; the
spanner runs one Dijkstra per node and one per edge it adds (at most ADDED + 1 per node).

Pure geometry, no I/O; the output is lines floorgate's walk-graph builder nodes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import shapely
from shapely.geometry.polygon import orient

from routing.imdf.model import COVER, XY
from routing.stopping import quiet_unreached

EXACT_TERMINALS = 12  # more terminals: the Yao graph (the union would cross too much)
EXACT_NODES = 200  # more nodes (terminals and corners): the Yao graph too
CONES = 6  # sectors of the Yao graph around each node (60 degrees each)
ALL_PAIRS = 300  # up to this many nodes every pair is a candidate edge, beyond: ...
MAX_EDGE = 30.0  # ... only pairs up to this many metres apart
SAME = 1e-6  # metres: points this close are one node
TURN = 1e-12  # cross products below this are collinear
STRETCH = 1.05  # the Yao graph's walks are made this close to the shortest (greedy)
ADDED = 16  # at most this many edges added from one node (a node has at most CONES + ADDED
# edges of its own: the bound of a huge hall, where the stretch may then stay above)


def network(
    free: shapely.Polygon, terminals: Sequence[XY], groups: Sequence[str | None]
) -> tuple[list[XY], list[tuple[int, int]]]:
    """Nodes (the terminals first, then the corners used) and edges between them inside
    `free`. Terminals of one group (the points of one wide door) are never joined to each
    other: they lie on one straight mouth, a walk never goes along it."""
    corners, sides = _reflex(free)
    keep = [k for k, c in enumerate(corners) if all(_far(c, t) for t in terminals)]
    points = list(terminals) + [corners[k] for k in keep]
    count, first_corner = len(points), len(terminals)
    if count < 2:
        return points, []
    xy = np.asarray(points, dtype=float)
    around = np.zeros((count, 2, 2))  # a corner's two neighbours along its ring
    if keep:
        around[first_corner:] = np.asarray(sides, dtype=float)[keep]
    i, j = _candidates(xy, count > ALL_PAIRS)
    code = {g: n for n, g in enumerate(sorted({g for g in groups if g is not None}))}
    group = np.full(count, -1)
    group[:first_corner] = [-1 if g is None else code[g] for g in groups]
    same_group = (group[i] >= 0) & (group[i] == group[j])
    ok = ~same_group
    ok &= _tangent(xy, around, i, j, first_corner) & _tangent(xy, around, j, i, first_corner)
    i, j = i[ok], j[ok]
    loose = shapely.buffer(free, COVER, join_style="mitre")
    shapely.prepare(loose)
    seen = shapely.covers(loose, shapely.linestrings(np.stack([xy[i], xy[j]], axis=1)))
    i, j = i[seen], j[seen]
    lengths = np.hypot(*(xy[i] - xy[j]).T)
    if len(terminals) <= EXACT_TERMINALS and count <= EXACT_NODES:
        chosen = _shortest_union(count, group[:first_corner].tolist(), i, j, lengths)
    else:
        chosen = _spanner(count, i, j, lengths, _yao(xy, i, j, lengths))
    # only the corners an edge uses, renumbered after the terminals
    used = sorted({int(n) for e in chosen for n in (i[e], j[e]) if n >= first_corner})
    number = {old: first_corner + new for new, old in enumerate(used)}
    number.update({t: t for t in range(first_corner)})
    nodes = list(terminals) + [points[k] for k in used]
    edges = sorted({(number[int(i[e])], number[int(j[e])]) for e in chosen})
    return nodes, edges


def _candidates(xy: np.ndarray, many: bool) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (i < j) that may become edges: all, or for many nodes those within MAX_EDGE."""
    count = len(xy)
    if not many:
        i, j = np.triu_indices(count, k=1)
        return i, j
    tree = shapely.STRtree(shapely.points(xy))
    found = tree.query(shapely.points(xy), predicate="dwithin", distance=MAX_EDGE)
    a, b = found[0], found[1]
    keep = a < b
    return a[keep], b[keep]


def _tangent(
    xy: np.ndarray, around: np.ndarray, at: np.ndarray, to: np.ndarray, first_corner: int
) -> np.ndarray:
    """Edges at->to that a shortest walk may use at `at`: any at a terminal; at a corner,
    only those with both of the corner's walls on one side (tangent to the free space)."""
    ok = np.ones(len(at), dtype=bool)
    corner = at >= first_corner
    if not corner.any():
        return ok
    origin = xy[at[corner]]
    direction = xy[to[corner]] - origin
    first = around[at[corner], 0] - origin
    second = around[at[corner], 1] - origin
    c1 = direction[:, 0] * first[:, 1] - direction[:, 1] * first[:, 0]
    c2 = direction[:, 0] * second[:, 1] - direction[:, 1] * second[:, 0]
    ok[corner] = ~(((c1 > TURN) & (c2 < -TURN)) | ((c1 < -TURN) & (c2 > TURN)))
    return ok


def _shortest_union(
    count: int, groups: list[int], i: np.ndarray, j: np.ndarray, lengths: np.ndarray
) -> list[int]:
    """The edges of the shortest paths between every pair of terminals (Dijkstra), but
    two of one group (no one walks from a wide door's point to another of its points)."""
    import igraph

    graph = igraph.Graph(n=count, edges=list(zip(i.tolist(), j.tolist(), strict=True)))
    weights = lengths.tolist()
    used: set[int] = set()
    for source, group in enumerate(groups):
        targets = [t for t in range(source + 1, len(groups)) if group < 0 or groups[t] != group]
        if not targets:
            continue
        quiet_unreached()
        paths = graph.get_shortest_paths(source, to=targets, weights=weights, output="epath")
        for path in paths:
            used.update(path)
    return sorted(used)


def _yao(xy: np.ndarray, i: np.ndarray, j: np.ndarray, lengths: np.ndarray) -> list[int]:
    """Per node and sector, its nearest visible edge (both directions of each edge)."""
    if len(i) == 0:
        return []
    edge = np.arange(len(i))
    start = np.concatenate([i, j])
    delta = np.concatenate([xy[j] - xy[i], xy[i] - xy[j]])
    angle = np.mod(np.arctan2(delta[:, 1], delta[:, 0]), 2 * math.pi)
    cone = np.minimum((angle / (2 * math.pi / CONES)).astype(int), CONES - 1)
    key = start * CONES + cone
    both = np.concatenate([edge, edge])
    order = np.lexsort((both, np.concatenate([lengths, lengths]), key))
    _, first = np.unique(key[order], return_index=True)
    return sorted(set(both[order][first].tolist()))


def _spanner(
    count: int, i: np.ndarray, j: np.ndarray, lengths: np.ndarray, chosen: list[int]
) -> list[int]:
    """`chosen` plus the visible edges a walk needs: node by node, while some node it sees
    is more than STRETCH times their distance away along the edges so far (or not
    reachable), the shortest such edge is added (a greedy spanner: an edge is left out
    when the others already give a walk within STRETCH of it), at most ADDED per node."""
    import igraph

    kept = set(chosen)
    graph = igraph.Graph(n=count, edges=[(int(i[e]), int(j[e])) for e in chosen])
    graph.es["w"] = [float(lengths[e]) for e in chosen]
    order = np.argsort(i, kind="stable")
    starts = np.searchsorted(i[order], np.arange(count + 1))
    for source in range(count):
        mine = order[starts[source] : starts[source + 1]]
        if len(mine) == 0:
            continue
        targets, reach = j[mine].tolist(), lengths[mine] * STRETCH + 1e-9
        for _ in range(ADDED):
            far = np.asarray(graph.distances(source, targets, weights="w")[0]) > reach
            if not far.any():
                break
            candidates = mine[far]
            pick = int(candidates[np.argmin(lengths[candidates])])
            graph.add_edge(source, int(j[pick]), w=float(lengths[pick]))
            kept.add(pick)
    return sorted(kept)


def _reflex(polygon: shapely.Polygon) -> tuple[list[XY], list[tuple[XY, XY]]]:
    """Vertices where the free space turns around a corner (right turns of rings oriented
    with the inside on their left), each with its two neighbours along the ring."""
    oriented = orient(polygon, 1.0)
    found: list[XY] = []
    sides: list[tuple[XY, XY]] = []
    for ring in [oriented.exterior, *oriented.interiors]:
        xy = np.asarray(ring.coords)[:-1]
        if len(xy) < 3:
            continue
        before_xy, after_xy = np.roll(xy, 1, axis=0), np.roll(xy, -1, axis=0)
        before, after = xy - before_xy, after_xy - xy
        cross = before[:, 0] * after[:, 1] - before[:, 1] * after[:, 0]
        for k in np.nonzero(cross < -TURN)[0].tolist():
            found.append((float(xy[k, 0]), float(xy[k, 1])))
            sides.append(
                (
                    (float(before_xy[k, 0]), float(before_xy[k, 1])),
                    (float(after_xy[k, 0]), float(after_xy[k, 1])),
                )
            )
    return found, sides


def _far(a: XY, b: XY) -> bool:
    return math.hypot(a[0] - b[0], a[1] - b[1]) > SAME
