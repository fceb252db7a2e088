"""Distance matrices on a loaded walk graph, and straight-line ones.

A waypoint joins the nearest point of a walk edge of its level that the mode may use;
the straight segment to it counts (unit-map-svg.md). Per request the waypoints are
added as vertices to a copy of the mode's graph (a copy is cheap; the cached graph
is never changed, so requests may run in threads), then one Dijkstra runs per
distinct source, or per distinct target when there are fewer (the graph is
undirected). Routes minimise time; the distance reported is that route's length.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import igraph
import numpy as np
import shapely

from routing.costs import Costs, edge_lengths, edge_times
from routing.model import FOOT, WALK, WHEELCHAIR, WalkGraph


@dataclass(frozen=True)
class Point:
    """A waypoint on the map: canvas x, y and the level's position (lowest 0)."""

    x: float
    y: float
    level: int


Cell = tuple[float, float] | None  # (feet, seconds), None when unreachable


@dataclass(frozen=True)
class _Join:
    edge: int  # index in the mode's graph
    t: float  # along the edge from its first end
    gap: float  # feet from the point to the edge


class ModeGraph:
    """One mode's part of a walk graph: an igraph Graph, per-edge costs, and a spatial
    index of its walk edges per level."""

    def __init__(self, graph: WalkGraph, costs: Costs, floor_height: float, mode: int) -> None:
        self.mode = mode
        self.speed = costs.speed(mode)
        keep = np.flatnonzero(graph.edge_modes & mode)
        u, v = graph.edge_u[keep], graph.edge_v[keep]
        self.u, self.v = u, v
        length = edge_lengths(graph, costs, floor_height)
        self.length = length[keep]
        self.time = edge_times(graph, length, costs, mode)[keep]
        self.time_list: list[float] = self.time.tolist()
        self.graph = igraph.Graph(n=graph.node_count, edges=np.stack([u, v], axis=1))
        self.node_xy = graph.node_xy
        self.scale = graph.feet_per_unit
        walk = graph.edge_kind[keep] == WALK
        self.walk_by_level: dict[int, tuple[np.ndarray, shapely.STRtree]] = {}
        edge_level = graph.node_level[u]
        for level in np.unique(edge_level[walk]).tolist():
            edges = np.flatnonzero(walk & (edge_level == level))
            lines = shapely.linestrings(
                np.stack([self.node_xy[u[edges]], self.node_xy[v[edges]]], axis=1)
            )
            self.walk_by_level[level] = (edges, shapely.STRtree(lines))

    def join(self, point: Point) -> _Join | None:
        """Where a point joins this mode's graph, or None: no usable walk edge on its level."""
        found = self.walk_by_level.get(point.level)
        if found is None:
            return None
        edges, tree = found
        edge = int(edges[tree.query_nearest(shapely.Point(point.x, point.y))[0]])
        a, b = self.node_xy[self.u[edge]], self.node_xy[self.v[edge]]
        ab = b - a
        p = np.array([point.x, point.y])
        span = float(ab @ ab)
        t = 0.0 if span == 0 else min(1.0, max(0.0, float((p - a) @ ab) / span))
        gap = float(np.hypot(*(p - (a + t * ab)))) * self.scale
        return _Join(edge, t, gap)

    def matrix(self, sources: Sequence[Point], targets: Sequence[Point]) -> list[list[Cell]]:
        points = list(dict.fromkeys([*sources, *targets]))
        vertex = {point: self.graph.vcount() + index for index, point in enumerate(points)}
        joins = {point: self.join(point) for point in points}
        extra_u: list[int] = []
        extra_v: list[int] = []
        extra_length: list[float] = []

        def add(a: int, b: int, feet: float) -> None:
            extra_u.append(a)
            extra_v.append(b)
            extra_length.append(feet)

        for point, join in joins.items():
            if join is not None:
                along = float(self.length[join.edge])
                add(vertex[point], int(self.u[join.edge]), join.gap + join.t * along)
                add(vertex[point], int(self.v[join.edge]), join.gap + (1 - join.t) * along)
        for source in dict.fromkeys(sources):
            for target in dict.fromkeys(targets):
                a, b = joins[source], joins[target]
                if source != target and a is not None and b is not None and a.edge == b.edge:
                    along = abs(a.t - b.t) * float(self.length[a.edge])
                    add(vertex[source], vertex[target], a.gap + along + b.gap)
        graph = self.graph.copy()
        graph.add_vertices(len(points))
        graph.add_edges(list(zip(extra_u, extra_v, strict=True)))
        lengths = np.concatenate([self.length, np.array(extra_length)])
        times = np.concatenate([self.time, np.array(extra_length) / self.speed])
        time_list = self.time_list + (np.array(extra_length) / self.speed).tolist()
        unjoined = {vertex[point] for point, join in joins.items() if join is None}
        return _solve(graph, lengths, times, time_list, unjoined,
                      [vertex[p] for p in sources], [vertex[p] for p in targets])  # fmt: skip


def _solve(
    graph: igraph.Graph,
    lengths: np.ndarray,
    times: np.ndarray,
    time_list: list[float],
    unjoined: set[int],
    sources: list[int],
    targets: list[int],
) -> list[list[Cell]]:
    """One Dijkstra per distinct source (or target, when fewer); routes by time.
    A waypoint that could not join the graph is in no route, not even to itself."""
    flip = len(set(targets)) < len(set(sources))
    starts, ends = (targets, sources) if flip else (sources, targets)
    found: dict[tuple[int, int], Cell] = {}
    distinct_ends = list(dict.fromkeys(ends))
    for start in dict.fromkeys(starts):
        if start in unjoined:
            found.update({((start, end) if not flip else (end, start)): None for end in ends})
            continue
        paths = graph.get_shortest_paths(start, to=distinct_ends, weights=time_list,
                                         output="epath")  # fmt: skip
        for end, path in zip(distinct_ends, paths, strict=True):
            if end in unjoined:
                cell: Cell = None
            elif end == start:
                cell = (0.0, 0.0)
            elif not path:
                cell = None
            else:
                cell = (float(lengths[path].sum()), float(times[path].sum()))
            found[(start, end) if not flip else (end, start)] = cell
    return [[found[(s, t)] for t in targets] for s in sources]


class LoadedGraph:
    """A walk graph ready for queries, in both modes (built once per process)."""

    def __init__(self, graph: WalkGraph, costs: Costs, floor_height: float) -> None:
        self.graph = graph
        self.modes = {mode: ModeGraph(graph, costs, floor_height, mode)
                      for mode in (FOOT, WHEELCHAIR)}  # fmt: skip

    def matrix(
        self, mode: int, sources: Sequence[Point], targets: Sequence[Point]
    ) -> list[list[Cell]]:
        return self.modes[mode].matrix(sources, targets)


def euclidean_matrix(
    sources: Sequence[Point],
    targets: Sequence[Point],
    feet_per_unit: float,
    floor_height: float,
    speed: float,
) -> list[list[Cell]]:
    """Straight lines, ignoring walls; between levels the 3-D line with `floor_height`
    per floor step."""

    def cell(a: Point, b: Point) -> Cell:
        flat = math.hypot(a.x - b.x, a.y - b.y) * feet_per_unit
        feet = math.hypot(flat, floor_height * abs(a.level - b.level))
        return (feet, feet / speed)

    return [[cell(source, target) for target in targets] for source in sources]
