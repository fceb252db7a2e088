"""Build a map's walk graph from its parsed drawing (docs/unit-map-svg.md, Walk graph).

Per level, from the vertices of the `paths` layers in document order:
1. each vertex merges into the first earlier node closer than 0.5 units (no chains);
2. a node within 0.5 units of the inside of another segment splits it there
   (T-junctions; this also splits collinear overlaps at each other's ends);
3. segments that cross split at the crossing (a new node, unless a node is within
   0.5 units of it, which step 2 already joined);
4. equal edges (the shared part of an overlap) become one, usable by wheelchair if
   any of them is;
5. a node lying on the inside of an edge (a piece of step 2 along a segment that step
   3 split) splits it, and step 4 runs again, so overlaps made by the joins are one
   edge too.
Then each connector joins its level like a waypoint (a link edge to the nearest point
of an edge the mode may use), and connectors sharing an id join their levels.

Candidate pairs come from GEOS spatial indexes (shapely's STRtree), so a map with
100k path edges is noded in C; Python loops only over actual joins.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import shapely

from parsing.parsed_map import Connector, LevelInfo, ParsedMap, WalkLine
from routing.levels import FLOOR_TAG, level_heights, ordered_levels
from routing.model import (
    ADJACENT_ONLY,
    BOTH,
    CONNECTOR_KINDS,
    CONNECTOR_MODES,
    FOOT,
    LEVEL_DOORS,
    LINK,
    WALK,
    WHEELCHAIR,
    WalkGraph,
)

JOIN = 0.5  # canvas units
ON_EDGE = 1e-9  # a node this near an edge (relative to the level's coordinates) is on it
NO_WHEELCHAIR = "no-wheelchair"


@dataclass
class _Edges:
    """Edges under construction; node positions grow as nodes are added."""

    xy: list[np.ndarray] = field(default_factory=list)  # blocks of node positions
    level: list[np.ndarray] = field(default_factory=list)
    count: int = 0
    u: list[np.ndarray] = field(default_factory=list)
    v: list[np.ndarray] = field(default_factory=list)
    kind: list[np.ndarray] = field(default_factory=list)
    steps: list[np.ndarray] = field(default_factory=list)
    modes: list[np.ndarray] = field(default_factory=list)
    length: list[np.ndarray] = field(default_factory=list)  # feet

    def add_nodes(self, xy: np.ndarray, level: int) -> int:
        """Append nodes; returns the id of the first."""
        first = self.count
        self.xy.append(np.asarray(xy, dtype=np.float64).reshape(-1, 2))
        self.level.append(np.full(len(self.xy[-1]), level, dtype=np.int32))
        self.count += len(self.xy[-1])
        return first

    def add_edges(
        self,
        u: Sequence[int] | np.ndarray,
        v: Sequence[int] | np.ndarray,
        kind: int,
        modes: Sequence[int] | np.ndarray | int,
        length: Sequence[float] | np.ndarray,
        steps: int = 0,
    ) -> None:
        u_array = np.asarray(u, dtype=np.int32)
        self.length.append(np.asarray(length, dtype=np.float64))
        self.u.append(u_array)
        self.v.append(np.asarray(v, dtype=np.int32))
        self.kind.append(np.full(len(u_array), kind, dtype=np.uint8))
        self.steps.append(np.full(len(u_array), steps, dtype=np.int32))
        self.modes.append(np.broadcast_to(np.asarray(modes, dtype=np.uint8), len(u_array)).copy())


def build_walk_graph(parsed: ParsedMap) -> WalkGraph | None:
    """The map's walk graph, or None when no level has walk paths."""
    if not parsed.walk_lines:
        return None
    levels = ordered_levels(parsed.levels)
    heights = level_heights(levels)
    position = {level.uid: index for index, level in enumerate(levels)}
    out = _Edges()
    lines_by_level: dict[int, list[WalkLine]] = defaultdict(list)
    for line in parsed.walk_lines:
        lines_by_level[position[line.level_uid or levels[0].uid]].append(line)
    connectors_by_level: dict[int, list[Connector]] = defaultdict(list)
    for connector in parsed.connectors:
        connectors_by_level[position[connector.level_uid or levels[0].uid]].append(connector)
    stops: dict[str, list[tuple[int, int, int]]] = defaultdict(list)  # id -> (level, node, kind)
    for level in range(len(levels)):
        _level(
            out,
            level,
            lines_by_level.get(level, []),
            connectors_by_level.get(level, []),
            parsed.feet_per_unit,
            stops,
        )
    _join_levels(out, stops, parsed.feet_per_unit, heights)
    stop_ids = {node: name for name, found in stops.items() for _, node, _ in found}
    return _finish(out, parsed.feet_per_unit, levels, heights, stop_ids)


# ------------------------------------------------------------------ one level


def _level(
    out: _Edges,
    level: int,
    lines: list[WalkLine],
    connectors: list[Connector],
    scale: float,
    stops: dict[str, list[tuple[int, int, int]]],
) -> None:
    nodes_xy, seg_u, seg_v, seg_ok = _merged_segments(lines)
    if len(seg_u):
        # the drawn segments, their tree and the nodes as shapely geometries, made once
        # for steps 2 and 3 (the nodes again for step 4, with the crossings' nodes added)
        drawn = shapely.linestrings(np.stack([nodes_xy[seg_u], nodes_xy[seg_v]], axis=1))
        tree, node_points = shapely.STRtree(drawn), shapely.points(nodes_xy)
        splits = _t_junctions(nodes_xy, seg_u, seg_v, tree, node_points)
        nodes_xy, crossing_splits = _crossings(nodes_xy, seg_u, seg_v, drawn, tree, node_points)
        splits.extend(crossing_splits)
        seg_u, seg_v, seg_ok = _split(seg_u, seg_v, seg_ok, splits)
        seg_u, seg_v, seg_ok = _unique_edges(seg_u, seg_v, seg_ok)
        node_points = np.concatenate([node_points, shapely.points(nodes_xy[len(node_points) :])])
        overlaps = _nodes_on_edges(nodes_xy, seg_u, seg_v, node_points)
        if overlaps:
            seg_u, seg_v, seg_ok = _split(seg_u, seg_v, seg_ok, overlaps)
            seg_u, seg_v, seg_ok = _unique_edges(seg_u, seg_v, seg_ok)
    connector_xy = np.array([c.centre for c in connectors], dtype=np.float64).reshape(-1, 2)
    links, nodes_xy, seg_u, seg_v, seg_ok = _links(
        nodes_xy, seg_u, seg_v, seg_ok, connectors, connector_xy
    )
    base = out.add_nodes(nodes_xy, level)
    lengths = np.hypot(*(nodes_xy[seg_u] - nodes_xy[seg_v]).T) * scale
    out.add_edges(seg_u + base, seg_v + base, WALK, np.where(seg_ok, BOTH, FOOT), lengths)
    first_connector = out.add_nodes(connector_xy, level)
    for index, connector in enumerate(connectors):
        kind = CONNECTOR_KINDS[connector.kind]
        stops[connector.connector_id].append((level, first_connector + index, kind))
    for connector_index, node, modes in links:
        u, v = first_connector + connector_index, base + node
        length = float(np.hypot(*(connector_xy[connector_index] - nodes_xy[node]))) * scale
        out.add_edges([u], [v], LINK, modes, [length])


def _merged_segments(
    lines: list[WalkLine],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Nodes (each vertex merged into the first earlier node within JOIN) and the
    segments between them, without zero-length ones."""
    if not lines:
        empty = np.zeros(0, dtype=np.int64)
        return np.zeros((0, 2)), empty, empty, np.zeros(0, dtype=bool)
    points = np.array([p for line in lines for p in line.points], dtype=np.float64)
    sizes = np.array([len(line.points) for line in lines])
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    ok = np.repeat([line.access != NO_WHEELCHAIR for line in lines], sizes - 1)
    first = np.concatenate([np.arange(s, s + n - 1) for s, n in zip(starts, sizes, strict=True)])
    canon = _first_earlier(points)
    keep_nodes = np.unique(canon)
    renumber = np.full(len(points), -1, dtype=np.int64)
    renumber[keep_nodes] = np.arange(len(keep_nodes))
    u, v = renumber[canon[first]], renumber[canon[first + 1]]
    real = u != v
    return points[keep_nodes], u[real], v[real], ok[real]


def _first_earlier(points: np.ndarray) -> np.ndarray:
    """For each point, the first earlier point closer than JOIN that is itself a node
    (not merged); itself when there is none."""
    later, earlier = _close_pairs(points)
    order = np.lexsort((earlier, later))
    canon = np.arange(len(points))
    for i, j in zip(later[order].tolist(), earlier[order].tolist(), strict=True):
        if canon[i] == i and canon[j] == j:
            canon[i] = j
    return canon


def _close_pairs(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every two points closer than JOIN, as (later, earlier) index arrays: found in a
    grid of cells a little wider than JOIN (two such points are in one cell or in
    neighbouring ones; each pair of neighbouring cells is looked at once, from the
    first), then measured. Several times quicker than an STRtree of shapely points,
    which still answers where the grid's cell numbers would not fit in 62 bits."""
    if len(points) < 2:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    scaled = points / (JOIN * (1 + 1e-6))
    span = np.ptp(scaled, axis=0)
    if not np.isfinite(scaled).all() or float((span[0] + 4) * (span[1] + 4)) > 2.0**62:
        geometries = shapely.points(points)
        later, earlier = shapely.STRtree(geometries).query(geometries, "dwithin", JOIN)
        candidate = earlier < later
        later, earlier = later[candidate], earlier[candidate]
        close = np.hypot(*(points[later] - points[earlier]).T) < JOIN
        return later[close], earlier[close]
    cells = np.floor(scaled).astype(np.int64)
    cells -= cells.min(axis=0) - 1  # from 1: a neighbour's number is never negative
    width = int(cells[:, 1].max()) + 2
    key = cells[:, 0] * width + cells[:, 1]
    order = np.argsort(key, kind="stable")
    ordered = key[order]
    ones, others = [], []
    for dx, dy in ((0, 0), (0, 1), (1, -1), (1, 0), (1, 1)):
        target = key + (dx * width + dy)
        low = np.searchsorted(ordered, target, "left")
        counts = np.searchsorted(ordered, target, "right") - low
        one = np.repeat(np.arange(len(points)), counts)
        other = order[np.repeat(low - np.cumsum(counts) + counts, counts) + np.arange(len(one))]
        if dx == dy == 0:  # each pair of one cell once
            keep = other < one
            one, other = one[keep], other[keep]
        ones.append(one)
        others.append(other)
    one, other = np.concatenate(ones), np.concatenate(others)
    later, earlier = np.maximum(one, other), np.minimum(one, other)
    close = np.hypot(*(points[later] - points[earlier]).T) < JOIN
    return later[close], earlier[close]


Splits = list[tuple[int, float, int]]  # (segment, t along it, node)


def _projections(
    nodes_xy: np.ndarray,
    seg_u: np.ndarray,
    seg_v: np.ndarray,
    points: np.ndarray,
    segments: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """t along each segment of the nearest point to each point, and the distance."""
    a, b = nodes_xy[seg_u[segments]], nodes_xy[seg_v[segments]]
    ab = b - a
    t = np.einsum("ij,ij->i", points - a, ab) / np.einsum("ij,ij->i", ab, ab)
    nearest = a + np.clip(t, 0, 1)[:, None] * ab
    return t, np.hypot(*(points - nearest).T)


def _t_junctions(
    nodes_xy: np.ndarray,
    seg_u: np.ndarray,
    seg_v: np.ndarray,
    tree: shapely.STRtree,
    node_points: np.ndarray,
) -> Splits:
    """Nodes within JOIN of the inside of another segment (`tree`: of the segments'
    lines; `node_points`: the nodes as shapely points)."""
    node, segment = tree.query(node_points, "dwithin", JOIN)
    other = (seg_u[segment] != node) & (seg_v[segment] != node)
    node, segment = node[other], segment[other]
    t, distance = _projections(nodes_xy, seg_u, seg_v, nodes_xy[node], segment)
    inside = (t > 0) & (t < 1) & (distance < JOIN)
    return list(
        zip(segment[inside].tolist(), t[inside].tolist(), node[inside].tolist(), strict=True)
    )


def _crossings(
    nodes_xy: np.ndarray,
    seg_u: np.ndarray,
    seg_v: np.ndarray,
    lines: np.ndarray,
    tree: shapely.STRtree,
    node_points: np.ndarray,
) -> tuple[np.ndarray, Splits]:
    """Proper crossings of two segments away from every node: a new node each
    (crossings closer than JOIN to each other share one). `lines`, `tree` and
    `node_points` as `_t_junctions` takes them."""
    first, second = tree.query(lines, "intersects")
    pair = first < second
    first, second = first[pair], second[pair]
    shared = (
        (seg_u[first] == seg_u[second])
        | (seg_u[first] == seg_v[second])
        | (seg_v[first] == seg_u[second])
        | (seg_v[first] == seg_v[second])
    )
    first, second = first[~shared], second[~shared]
    a, b = nodes_xy[seg_u[first]], nodes_xy[seg_v[first]]
    c, d = nodes_xy[seg_u[second]], nodes_xy[seg_v[second]]
    r, s = b - a, d - c
    denominator = r[:, 0] * s[:, 1] - r[:, 1] * s[:, 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = ((c - a)[:, 0] * s[:, 1] - (c - a)[:, 1] * s[:, 0]) / denominator
        w = ((c - a)[:, 0] * r[:, 1] - (c - a)[:, 1] * r[:, 0]) / denominator
    proper = (denominator != 0) & (t > 0) & (t < 1) & (w > 0) & (w < 1)
    first, second, t, w = first[proper], second[proper], t[proper], w[proper]
    if len(first) == 0:
        return nodes_xy, []
    points = a[proper] + t[:, None] * r[proper]
    near = shapely.STRtree(node_points).query(shapely.points(points), "dwithin", JOIN)
    away = np.ones(len(points), dtype=bool)
    close = np.hypot(*(points[near[0]] - nodes_xy[near[1]]).T) < JOIN
    away[near[0][close]] = False
    first, second, t, w, points = first[away], second[away], t[away], w[away], points[away]
    canon = _first_earlier(points)
    kept = np.unique(canon)
    new_id = np.full(len(points), -1, dtype=np.int64)
    new_id[kept] = len(nodes_xy) + np.arange(len(kept))
    node = new_id[canon]
    splits = list(zip(first.tolist(), t.tolist(), node.tolist(), strict=True))
    splits += zip(second.tolist(), w.tolist(), node.tolist(), strict=True)
    return np.concatenate([nodes_xy, points[kept]]), splits


def _nodes_on_edges(
    nodes_xy: np.ndarray, seg_u: np.ndarray, seg_v: np.ndarray, node_points: np.ndarray
) -> Splits:
    """Nodes lying on the inside of an edge (up to rounding): the edge splits there.

    Steps 2 and 3 are worked out on the drawn segments, but a T-junction replaces its
    segment by pieces through the joining node, and such a piece can lie on another
    segment that a crossing split (a polyline doubling back along itself, say). The
    two copies would then stay separate edges, only one of them through the crossing
    node; splitting the copy there lets step 4 make the shared part one edge, as the
    rules ask of collinear overlaps. Splitting an edge at nodes on it only makes
    collinear pieces of it, so one pass suffices.
    """
    if len(seg_u) < 2:
        return []
    tolerance = ON_EDGE * max(1.0, float(np.abs(nodes_xy).max()))
    lines = shapely.linestrings(np.stack([nodes_xy[seg_u], nodes_xy[seg_v]], axis=1))
    node, segment = shapely.STRtree(lines).query(node_points, "dwithin", tolerance)
    other = (seg_u[segment] != node) & (seg_v[segment] != node)
    node, segment = node[other], segment[other]
    if len(node) == 0:
        return []
    t, distance = _projections(nodes_xy, seg_u, seg_v, nodes_xy[node], segment)
    inside = (t > 0) & (t < 1) & (distance <= tolerance)
    return list(
        zip(segment[inside].tolist(), t[inside].tolist(), node[inside].tolist(), strict=True)
    )


def _split(
    seg_u: np.ndarray, seg_v: np.ndarray, seg_ok: np.ndarray, splits: Splits
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Replace each split segment by the chain through its split nodes, in order."""
    if not splits:
        return seg_u, seg_v, seg_ok
    by_segment: dict[int, list[tuple[float, int]]] = defaultdict(list)
    for segment, t, node in splits:
        by_segment[segment].append((t, node))
    untouched = np.ones(len(seg_u), dtype=bool)
    untouched[list(by_segment)] = False
    new_u: list[int] = []
    new_v: list[int] = []
    new_ok: list[bool] = []
    for segment, points in by_segment.items():
        chain = [int(seg_u[segment])] + [node for _, node in sorted(points)]
        chain.append(int(seg_v[segment]))
        ok = bool(seg_ok[segment])
        for a, b in itertools.pairwise(chain):
            if a != b:
                new_u.append(a)
                new_v.append(b)
                new_ok.append(ok)
    return (
        np.concatenate([seg_u[untouched], np.array(new_u, dtype=np.int64)]),
        np.concatenate([seg_v[untouched], np.array(new_v, dtype=np.int64)]),
        np.concatenate([seg_ok[untouched], np.array(new_ok, dtype=bool)]),
    )


def _unique_edges(
    seg_u: np.ndarray, seg_v: np.ndarray, seg_ok: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One edge per node pair, usable by wheelchair if any copy is; first-seen order."""
    low, high = np.minimum(seg_u, seg_v), np.maximum(seg_u, seg_v)
    # one int64 per pair, ordered as the pairs are (rows of np.unique(axis=0) sort as
    # a structured type: several times slower)
    keys = low.astype(np.int64) * (int(high.max(initial=0)) + 1) + high
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    ok = np.zeros(len(first), dtype=bool)
    np.logical_or.at(ok, inverse.ravel(), seg_ok)
    order = np.argsort(first)
    return low[first][order], high[first][order], ok[order]


# ------------------------------------------------------------------ connectors


def _links(
    nodes_xy: np.ndarray,
    seg_u: np.ndarray,
    seg_v: np.ndarray,
    seg_ok: np.ndarray,
    connectors: list[Connector],
    connector_xy: np.ndarray,
) -> tuple[list[tuple[int, int, int]], np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Where each connector joins its level per mode: the nearest point of an edge the
    mode may use (an end, or a new node splitting the edge). Returns the links
    (connector index, node, modes) and the level's nodes and edges after the splits."""
    if not connectors or len(seg_u) == 0:
        return [], nodes_xy, seg_u, seg_v, seg_ok
    lines = shapely.linestrings(np.stack([nodes_xy[seg_u], nodes_xy[seg_v]], axis=1))
    joins: dict[tuple[int, int], int] = {}  # (connector, node) -> modes
    splits: Splits = []
    new_points: list[np.ndarray] = []
    split_nodes: dict[tuple[int, float], int] = {}
    for mode in (FOOT, WHEELCHAIR):
        usable = np.flatnonzero(seg_ok) if mode == WHEELCHAIR else np.arange(len(seg_u))
        if len(usable) == 0:
            continue
        tree = shapely.STRtree(lines[usable])
        for index, connector in enumerate(connectors):
            if not CONNECTOR_MODES[CONNECTOR_KINDS[connector.kind]] & mode:
                continue
            segment = int(usable[tree.query_nearest(shapely.points(connector_xy[index]))[0]])
            t, _ = _projections(
                nodes_xy, seg_u, seg_v, connector_xy[index : index + 1], np.array([segment])
            )
            where = float(np.clip(t[0], 0, 1))
            if where == 0:
                node = int(seg_u[segment])
            elif where == 1:
                node = int(seg_v[segment])
            else:
                key = (segment, where)
                if key not in split_nodes:
                    a, b = nodes_xy[seg_u[segment]], nodes_xy[seg_v[segment]]
                    split_nodes[key] = len(nodes_xy) + len(new_points)
                    new_points.append(a + where * (b - a))
                    splits.append((segment, where, split_nodes[key]))
                node = split_nodes[key]
            joins[(index, node)] = joins.get((index, node), 0) | mode
    if new_points:
        nodes_xy = np.concatenate([nodes_xy, np.array(new_points)])
        seg_u, seg_v, seg_ok = _split(seg_u, seg_v, seg_ok, splits)
    links = [(index, node, modes) for (index, node), modes in joins.items()]
    return links, nodes_xy, seg_u, seg_v, seg_ok


def _join_levels(
    out: _Edges,
    stops: dict[str, list[tuple[int, int, int]]],
    scale: float,
    heights: Sequence[int],
) -> None:
    """Connectors with one id join their levels: stairs, ramps, escalators and doors each
    pair of stops next to each other in level order, elevators every pair. An edge's
    steps are the floors between its levels' heights (`routing.levels`: their positions
    unless the drawing gives heights). A door climbs no floor: zero steps, its length the
    drawn distance between its stops."""
    xy = np.concatenate(out.xy) if out.xy else np.zeros((0, 2))
    for connector_id in sorted(stops):
        by_level = sorted(stops[connector_id])
        kind = by_level[0][2]
        if kind in ADJACENT_ONLY:
            pairs = list(itertools.pairwise(by_level))
        else:
            pairs = [(a, b) for i, a in enumerate(by_level) for b in by_level[i + 1 :]]
        for (level_a, node_a, _), (level_b, node_b, _) in pairs:
            if level_a != level_b:
                door = kind in LEVEL_DOORS
                out.add_edges(
                    [node_a],
                    [node_b],
                    kind,
                    CONNECTOR_MODES[kind],
                    [float(np.hypot(*(xy[node_a] - xy[node_b]))) * scale if door else 0.0],
                    steps=0 if door else abs(heights[level_b] - heights[level_a]),
                )


def _finish(
    out: _Edges,
    scale: float,
    levels: Sequence[LevelInfo],
    heights: Sequence[int],
    stop_ids: dict[int, str],
) -> WalkGraph:
    def joined(blocks: list[np.ndarray], dtype: type, width: int | None = None) -> np.ndarray:
        if blocks:
            return np.concatenate(blocks).astype(dtype)
        return np.zeros((0, width) if width else 0, dtype=dtype)

    return WalkGraph(
        feet_per_unit=scale,
        level_uids=tuple(level.uid for level in levels),
        level_floors=tuple(level.tags.get(FLOOR_TAG) for level in levels),
        node_xy=joined(out.xy, np.float64, 2),
        node_level=joined(out.level, np.int32),
        edge_u=joined(out.u, np.int32),
        edge_v=joined(out.v, np.int32),
        edge_length=joined(out.length, np.float64),
        edge_kind=joined(out.kind, np.uint8),
        edge_steps=joined(out.steps, np.int32),
        edge_modes=joined(out.modes, np.uint8),
        stop_ids=stop_ids,
        level_heights=tuple(heights),
    )
