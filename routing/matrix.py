"""Distance matrices on a loaded walk graph, and straight-line ones.

Routes run on a contracted graph: per profile (`routing.profile`: a mode, and the
costing options and closures of a request), every chain of edges through nodes that
join exactly two walk edges becomes one edge (its length and time the sums), so
Dijkstra sees junctions, not every vertex of a flattened curve. Waypoints still join
the drawn segments: a waypoint joins the nearest point of a walk segment of its level
that the mode may use (the straight segment to it counts; docs/unit-map-svg.md), and from
there follows its chain to the chain's two ends.

The two plain profiles (foot, wheelchair) are built when a graph is loaded; any other
on its first use (inside the work already sent off the event loop), and at most
MAX_PROFILES_KEPT of them are kept per graph, least recently used first out.

Per request the waypoints are added as vertices to a copy of the profile's contracted
graph (the cached graph is never changed, so requests may run in threads), then one
Dijkstra runs per distinct source, or per distinct target when there are fewer (the
graph is undirected). Routes minimise time; the distance reported is that route's length.
The nearest of many targets needs no copy (`routing.closest`).
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from routing.costs import Costs, edge_lengths, profile_speed, profile_times
from routing.model import ESCALATOR, FOOT, LINK, RAMP, WALK, WHEELCHAIR, WalkGraph
from routing.profile import Profile, usable_edges
from routing.stopping import Stop, checked, quiet_unreached

if TYPE_CHECKING:  # igraph, numpy and shapely are imported by the first graph loaded, not
    # at start: `Point` and `euclidean_matrix` are on the request path (issue 15, cold start)
    import igraph
    import numpy as np

PROPORTIONAL = (WALK, LINK, RAMP, ESCALATOR)  # time = length / speed: may be contracted
SMALL_GRAPH_EDGES = 5000
TRACE_CHECK_NODES = 4096  # nodes of a chain walked between two looks at `stop`
# Joins of nearest routes' candidates kept per mode of a loaded graph (`ModeGraph.joins`):
# its node count, within these; each is about JOIN_BYTES (524 measured, slotted; counted
# in `LoadedGraph.memory_bytes`, as if all were kept). The candidate sets kept with a
# graph (`routing.closest.keep_targets`) hold as many points in all, KEPT_TARGET_BYTES
# each with both plain modes' preparations (tracemalloc: 460 for 1,000 points).
MIN_JOINS_KEPT = 64
MAX_JOINS_KEPT = 4096
JOIN_BYTES = 540
KEPT_TARGET_BYTES = 480
# Joins of nearest routes' starts waiting for the route of their request (`ModeGraph.joins`,
# `hand_over`), per mode; the oldest dropped past this (a request that ended first).
HANDED_OVER = 16
# Graphs of profiles other than the two plain ones (costing options, closures) kept per
# loaded graph, least recently used first out; each counted in `LoadedGraph.memory_bytes`
# as PROFILE_BYTES_PER_ELEMENT per node and edge and its joins, as if all were kept.
MAX_PROFILES_KEPT = 4
PROFILE_BYTES_PER_ELEMENT = 100


@dataclass(frozen=True, slots=True)
class Point:
    """A waypoint on the map: canvas x, y and the level's position (lowest 0). Slotted:
    a graph keeps thousands as keys of its candidates' joins."""

    x: float
    y: float
    level: int


Cell = tuple[float, float] | None  # (feet, seconds), None when unreachable


@dataclass(frozen=True, slots=True)
class Join:
    """Where a point joins a mode's contracted graph (slotted: kept by the thousand)."""

    chain: int  # contracted edge
    ends: tuple[int, int]  # the chain's end nodes, in the chain's own order
    along: tuple[float, float]  # feet along the chain to each end
    gap: float  # feet from the point to the segment
    edge: int  # the walk segment joined (global edge id)
    t: float  # where on it, from its first node (0) to its second (1)


_UNKNOWN = Join(-1, (-1, -1), (0.0, 0.0), 0.0, -1, 0.0)  # `ModeGraph.joins`: not kept yet


@dataclass(frozen=True)
class Augmented:
    """A mode's contracted graph plus waypoints as vertices: chains are edges
    0..chains-1, then `extra` (vertex pairs) in order."""

    graph: igraph.Graph
    lengths: np.ndarray  # feet per edge
    times: np.ndarray  # seconds per edge
    time_list: list[float]
    vertex: dict[Point, int]
    joins: dict[Point, Join | None]
    extra: list[tuple[int, int]]


def _pairs(a: np.ndarray, b: np.ndarray) -> list[tuple[int, int]]:
    """Edge lists for igraph: Python ints convert far faster than numpy scalars."""
    return list(zip(a.tolist(), b.tolist(), strict=True))


class _Segments:
    """Walk segments of one level (global edge ids) and their spatial index, shared by
    the modes that may use the same segments."""

    def __init__(
        self, edges: np.ndarray, node_xy: np.ndarray, u: np.ndarray, v: np.ndarray
    ) -> None:
        import numpy as np
        import shapely

        self.edges = edges
        lines = shapely.linestrings(np.stack([node_xy[u[edges]], node_xy[v[edges]]], axis=1))
        self.tree = shapely.STRtree(lines)

    def nearest(self, xy: np.ndarray) -> np.ndarray:
        """The nearest segment of each point (the first of equally near ones)."""
        import numpy as np
        import shapely

        found = self.tree.query_nearest(shapely.points(xy), all_matches=False)
        nearest = np.empty(len(xy), dtype=np.int64)
        nearest[found[0]] = self.edges[found[1]]
        return nearest


class ModeGraph:
    """One profile's part of a walk graph (its mode's edges, less those it excludes or
    closes), the contracted igraph Graph and its costs."""

    def __init__(self, loaded: LoadedGraph, profile: Profile) -> None:
        import igraph
        import numpy as np

        graph = loaded.graph
        self.loaded = loaded
        self.profile = profile
        self.mode = profile.mode
        self.speed = profile_speed(loaded.costs, profile)
        kept = usable_edges(graph, profile)
        self.kept = kept
        times = profile_times(graph, loaded.length, loaded.costs, profile)
        self.edge_time = times
        # A penalised kind's edges are not contracted: a chain's part is timed as its
        # length / speed (a waypoint's join), which would miss a penalty inside it.
        self.proportional = tuple(kind for kind in PROPORTIONAL if not profile.penalty(kind))
        self.own_segments: dict[int, _Segments] = {}  # `LoadedGraph.segments`
        self._contract(graph, kept, times)
        # Vertices are the chains' ends only (junctions), numbered compactly: Dijkstra's
        # work per run grows with the vertex count too.
        junctions = np.unique(np.concatenate([self.chain_a, self.chain_b]))
        self.vertex_of = np.full(graph.node_count, -1, dtype=np.int64)
        self.vertex_of[junctions] = np.arange(len(junctions))
        self.graph = igraph.Graph(
            n=len(junctions),
            edges=_pairs(self.vertex_of[self.chain_a], self.vertex_of[self.chain_b]),
        )
        self.time_list: list[float] = self.chain_time.tolist()
        # Joins of candidates, kept (`joins`): as many as the graph has nodes, within bounds.
        self.joins_kept = min(MAX_JOINS_KEPT, max(MIN_JOINS_KEPT, graph.node_count))
        self._joined: dict[Point, Join | None] = {}
        self._handed: dict[Point, Join | None] = {}  # `joins`' `hand_over`, oldest first
        self._handed_lock = threading.Lock()
        walk = kept[graph.edge_kind[kept] == WALK]
        self.walk_by_level = {
            int(level): walk[graph.node_level[graph.edge_u[walk]] == level]
            for level in np.unique(graph.node_level[graph.edge_u[walk]])
        }

    def _contract(self, graph: WalkGraph, kept: np.ndarray, times: np.ndarray) -> None:
        """Chains of proportional edges through degree-2 nodes become single edges.
        Chains that would start and end at one node (loops, rings) are cut at a node."""
        import igraph
        import numpy as np

        u, v = graph.edge_u[kept], graph.edge_v[kept]
        ends = np.concatenate([u, v])
        degree = np.bincount(ends, minlength=graph.node_count)
        fixed = ~np.isin(graph.edge_kind[kept], self.proportional)
        pinned = np.bincount(np.concatenate([u[fixed], v[fixed]]), minlength=graph.node_count)
        inner = (degree == 2) & (pinned == 0)
        local = np.concatenate([np.arange(len(kept)), np.arange(len(kept))])
        while True:
            at_inner = inner[ends]
            order = np.argsort(ends[at_inner], kind="stable")
            through = local[at_inner][order].reshape(-1, 2)  # the two edges of each inner node
            line = igraph.Graph(n=len(kept), edges=_pairs(through[:, 0], through[:, 1]))
            chain = np.array(line.connected_components().membership, dtype=np.int64)
            count = int(chain.max()) + 1 if len(chain) else 0
            outer = ~at_inner
            end_chain, end_node = chain[local[outer]], ends[outer]
            per_chain = np.bincount(end_chain, minlength=count)
            order_ends = np.argsort(end_chain, kind="stable")
            bad = per_chain != 2
            if per_chain.sum() == 2 * count and not bad.any():
                pairs = end_node[order_ends].reshape(-1, 2)
                bad = pairs[:, 0] == pairs[:, 1]
            if not bad.any():
                break
            # Cut each looping chain at its smallest inner node, then chain again.
            inner_nodes = ends[at_inner]
            bad_inner = bad[chain[local[at_inner]]]
            for cut_chain in np.unique(chain[local[at_inner]][bad_inner]).tolist():
                candidates = inner_nodes[chain[local[at_inner]] == cut_chain]
                inner[int(candidates.min())] = False
        self.inner = inner
        self.edge_chain = np.full(graph.edge_count, -1, dtype=np.int64)
        self.edge_chain[kept] = chain
        self.chain_a, self.chain_b = pairs[:, 0], pairs[:, 1]
        self.chain_edge = np.zeros(count, dtype=np.int64)  # one edge of each chain
        self.chain_edge[chain] = kept
        self.chain_length = np.bincount(chain, weights=self.loaded.length[kept], minlength=count)
        self.chain_time = np.bincount(chain, weights=times[kept], minlength=count)
        # For walking a chain: the two kept edges at each inner node.
        self.through_of = np.full(graph.node_count, -1, dtype=np.int64)
        nodes_sorted = ends[at_inner][order]
        self.through_of[nodes_sorted[0::2]] = np.arange(len(through))
        self.through = kept[through]

    def _walk(self, edge: int, node: int, stop: Stop | None) -> tuple[int, float]:
        """From `edge`'s end `node` along the chain to its end node: (node, feet)."""
        nodes, edges = self._trace(edge, node, stop)
        length = self.loaded.length
        return nodes[-1], sum(float(length[e]) for e in edges)

    def nearest_segments(self, points: Sequence[Point]) -> list[tuple[int, float, float] | None]:
        """For each point, the walk segment (global edge id) it joins, `t` along it from
        its first end, and the gap in feet; None without a usable segment on its level.
        One spatial query per level."""
        import numpy as np

        graph = self.loaded.graph
        found: list[tuple[int, float, float] | None] = [None] * len(points)
        by_level: dict[int, list[int]] = {}
        for index, point in enumerate(points):
            by_level.setdefault(point.level, []).append(index)
        for level, indexes in by_level.items():
            segments = self.loaded.segments(self, level)
            if segments is None:
                continue
            p = np.array([(points[i].x, points[i].y) for i in indexes])
            edges = segments.nearest(p)
            a, b = graph.node_xy[graph.edge_u[edges]], graph.node_xy[graph.edge_v[edges]]
            ab = b - a
            span = np.einsum("ij,ij->i", ab, ab)
            with np.errstate(divide="ignore", invalid="ignore"):
                t = np.where(span > 0, np.einsum("ij,ij->i", p - a, ab) / span, 0.0)
            t = np.clip(t, 0.0, 1.0)
            gaps = np.hypot(*(p - (a + t[:, None] * ab)).T) * graph.feet_per_unit
            for i, edge, along, gap in zip(
                indexes, edges.tolist(), t.tolist(), gaps.tolist(), strict=True
            ):
                found[i] = (edge, along, gap)
        return found

    def joins(
        self,
        points: Sequence[Point],
        stop: Stop | None = None,
        keep: Sequence[Point] = (),
        hand_over: Sequence[Point] = (),
    ) -> list[Join | None]:
        """Where each point joins this mode's contracted graph: its segment's chain. The
        joins of `keep` (a nearest route's candidates: a map's locations, asked again and
        again) are kept, at most `joins_kept` of them, all dropped when full; a point is
        hashed once when its join is kept (a candidate set's 500 points, each request).
        Those of `hand_over` (a nearest route's start, an ad-hoc point: not kept) wait
        for the next call that asks for them, the route that follows the choice in the
        same request, which takes them (at most HANDED_OVER wait, oldest out first)."""
        kept = self._joined  # another thread may start a new dict meanwhile
        found = [kept.get(point, _UNKNOWN) for point in points]
        missing = [point for point, join in zip(points, found, strict=True) if join is _UNKNOWN]
        if not missing:
            return found
        distinct = list(dict.fromkeys(missing))
        fresh = self._taken(distinct)
        computing = [point for point in distinct if point not in fresh] if fresh else distinct
        if computing:
            fresh.update(zip(computing, self._joins(computing, stop), strict=True))
        new = [point for point in dict.fromkeys(keep) if point in fresh]
        if len(kept) + len(new) > self.joins_kept:
            kept = self._joined = {}
        if len(new) <= self.joins_kept:
            kept.update((point, fresh[point]) for point in new)
        if hand_over:
            self._hand_over({point: fresh[point] for point in hand_over if point in fresh})
        return [
            fresh[point] if join is _UNKNOWN else join
            for point, join in zip(points, found, strict=True)
        ]

    def _taken(self, points: Iterable[Point]) -> dict[Point, Join | None]:
        """The joins handed over (`joins`) of `points`, taken: each is given once."""
        if not self._handed:
            return {}
        taken = {}
        with self._handed_lock:
            for point in points:
                join = self._handed.pop(point, _UNKNOWN)
                if join is not _UNKNOWN:
                    taken[point] = join
        return taken

    def _hand_over(self, joins: dict[Point, Join | None]) -> None:
        with self._handed_lock:
            self._handed.update(joins)
            while len(self._handed) > HANDED_OVER:
                del self._handed[next(iter(self._handed))]

    def _joins(self, points: Sequence[Point], stop: Stop | None) -> list[Join | None]:
        graph = self.loaded.graph
        result: list[Join | None] = []
        for nearest in self.nearest_segments(points):
            if nearest is None:
                result.append(None)
                continue
            edge, t, gap = nearest
            length = float(self.loaded.length[edge])
            end_a, feet_a = self._walk(edge, int(graph.edge_u[edge]), stop)
            end_b, feet_b = self._walk(edge, int(graph.edge_v[edge]), stop)
            chain = int(self.edge_chain[edge])
            along = (feet_a + t * length, feet_b + (1 - t) * length)
            if (end_a, end_b) != (int(self.chain_a[chain]), int(self.chain_b[chain])):
                end_a, end_b, along = end_b, end_a, (along[1], along[0])
            result.append(Join(chain, (end_a, end_b), along, gap, edge, t))
        return result

    def augmented(
        self,
        points: Sequence[Point],
        pairs: Sequence[tuple[Point, Point]],
        stop: Stop | None = None,
        keep: Sequence[Point] = (),
        joined: dict[Point, Join | None] | None = None,
    ) -> Augmented:
        """A copy of the contracted graph with `points` (distinct) as vertices, each
        joined to its chain's two ends (`joined`: the points' joins, when known), and a
        direct edge for each of `pairs` on the same chain. The cached graph is never
        changed, so requests may run in threads."""
        import numpy as np

        vertex = {point: self.graph.vcount() + index for index, point in enumerate(points)}
        joins = joined or dict(zip(points, self.joins(points, stop, keep), strict=True))
        extra: list[tuple[int, int]] = []
        extra_length: list[float] = []
        for point, join in joins.items():
            if join is not None:
                for end, along in zip(join.ends, join.along, strict=True):
                    extra.append((vertex[point], int(self.vertex_of[end])))
                    extra_length.append(join.gap + along)
        for source, target in pairs:
            a, b = joins[source], joins[target]
            if source != target and a is not None and b is not None and a.chain == b.chain:
                extra.append((vertex[source], vertex[target]))
                extra_length.append(a.gap + abs(a.along[0] - b.along[0]) + b.gap)
        graph = self.graph.copy()
        graph.add_vertices(len(points))
        graph.add_edges(extra)
        extra_feet = np.array(extra_length)
        lengths = np.concatenate([self.chain_length, extra_feet])
        times = np.concatenate([self.chain_time, extra_feet / self.speed])
        time_list = self.time_list + (extra_feet / self.speed).tolist()
        return Augmented(graph, lengths, times, time_list, vertex, joins, extra)

    def matrix(
        self, sources: Sequence[Point], targets: Sequence[Point], stop: Stop | None = None
    ) -> list[list[Cell]]:
        points = list(dict.fromkeys([*sources, *targets]))
        pairs = [(s, t) for s in dict.fromkeys(sources) for t in dict.fromkeys(targets)]
        found = self.augmented(points, pairs, stop)
        vertex = found.vertex
        unjoined = {vertex[point] for point, join in found.joins.items() if join is None}
        return solve(
            found.graph,
            found.lengths,
            found.times,
            found.time_list,
            unjoined,
            [vertex[p] for p in sources],
            [vertex[p] for p in targets],
            stop,
        )

    def chain_path(self, chain: int, stop: Stop | None = None) -> tuple[list[int], list[int]]:
        """A chain's nodes and edges in order from its first end to its second:
        `edges[i]` joins `nodes[i]` and `nodes[i + 1]`."""
        graph = self.loaded.graph
        edge = int(self.chain_edge[chain])
        u, v = int(graph.edge_u[edge]), int(graph.edge_v[edge])
        left, left_edges = self._trace(edge, u, stop)
        right, right_edges = self._trace(edge, v, stop)
        nodes = [*reversed(left), *right]
        edges = [*reversed(left_edges), edge, *right_edges]
        if nodes[0] != int(self.chain_a[chain]):
            nodes.reverse()
            edges.reverse()
        return nodes, edges

    def _trace(self, edge: int, node: int, stop: Stop | None) -> tuple[list[int], list[int]]:
        """From `edge`'s end `node` along the chain to its end: the nodes passed and
        the edges between them."""
        graph = self.loaded.graph
        nodes, edges = [node], []
        while self.inner[node]:
            if len(nodes) % TRACE_CHECK_NODES == 0:
                checked(stop)
            first, second = self.through[self.through_of[node]]
            edge = int(second if first == edge else first)
            a, b = int(graph.edge_u[edge]), int(graph.edge_v[edge])
            node = b if a == node else a
            nodes.append(node)
            edges.append(edge)
        return nodes, edges


def solve(
    graph: igraph.Graph,
    lengths: np.ndarray,
    times: np.ndarray,
    time_list: list[float],
    unjoined: set[int],
    sources: list[int],
    targets: list[int],
    stop: Stop | None = None,
) -> list[list[Cell]]:
    """One Dijkstra per distinct source (or target, when fewer); routes by time.
    A waypoint that could not join the graph is in no route, not even to itself.
    `stop` is looked at before each Dijkstra."""
    flip = len(set(targets)) < len(set(sources))
    starts, ends = (targets, sources) if flip else (sources, targets)
    found: dict[tuple[int, int], Cell] = {}
    distinct_ends = list(dict.fromkeys(ends))
    for start in dict.fromkeys(starts):
        checked(stop)
        if start in unjoined:
            found.update({((start, end) if not flip else (end, start)): None for end in ends})
            continue
        quiet_unreached()
        paths = graph.get_shortest_paths(start, to=distinct_ends, weights=time_list, output="epath")
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


LOADED_BYTES_PER_ELEMENT = 300  # see LoadedGraph.memory_bytes


class LoadedGraph:
    """A walk graph ready for queries in any profile (built once per process): the two
    plain ones at once, others on first use (`mode_graph`). Spatial indexes of a level's
    segments are made on its first query, once for the plain graphs when they may use
    the same segments; another profile's are its own unless they are the same as a
    plain graph's (dropped with it: the shared ones stay bounded)."""

    def __init__(self, graph: WalkGraph, costs: Costs, floor_height: float) -> None:
        self.graph = graph
        self.costs = costs
        self.length = edge_lengths(graph, costs, floor_height)
        self._segments: dict[bytes, _Segments] = {}
        self.modes = {mode: ModeGraph(self, Profile(mode)) for mode in (FOOT, WHEELCHAIR)}
        self._profiles: OrderedDict[Profile, ModeGraph] = OrderedDict()
        self._lock = threading.Lock()  # requests may run in threads (`storage.cpu`)
        self.level_boxes = _level_boxes(graph)

    def mode_graph(self, profile: Profile) -> ModeGraph:
        """The graph of `profile`: a plain one, or one kept (least recently used first
        out, at most MAX_PROFILES_KEPT), or one built now (CPU work: callers run it off
        the event loop on a large graph, as they run the query)."""
        plain = self.modes.get(profile.mode)
        if plain is not None and profile.is_plain:
            return plain
        with self._lock:
            found = self._profiles.get(profile)
            if found is not None:
                self._profiles.move_to_end(profile)
                return found
        built = ModeGraph(self, profile)
        with self._lock:
            found = self._profiles.setdefault(profile, built)  # another thread's, if first
            self._profiles.move_to_end(profile)
            while len(self._profiles) > MAX_PROFILES_KEPT:
                self._profiles.popitem(last=False)
        return found

    def segments(self, mode: ModeGraph, level: int) -> _Segments | None:
        edges = mode.walk_by_level.get(level)
        if edges is None or len(edges) == 0:
            return None
        key = edges.tobytes()
        found = self._segments.get(key)
        if found is not None:
            return found
        if not mode.profile.is_plain:
            own = mode.own_segments.get(level)
            if own is None:
                own = mode.own_segments[level] = _Segments(
                    edges, self.graph.node_xy, self.graph.edge_u, self.graph.edge_v
                )
            return own
        found = _Segments(edges, self.graph.node_xy, self.graph.edge_u, self.graph.edge_v)
        self._segments[key] = found
        return found

    @property
    def memory_bytes(self) -> int:
        """An upper estimate of what it holds once queried on every level: 143-229 bytes
        per node and edge measured (RSS, generated graphs of 54,000-163,000 of them),
        its kept joins and kept candidate sets; and MAX_PROFILES_KEPT other profiles'
        graphs, as if all were kept, each PROFILE_BYTES_PER_ELEMENT per node and edge and
        its joins."""
        elements = self.graph.node_count + self.graph.edge_count
        joins_kept = self.modes[FOOT].joins_kept
        joins = sum(mode.joins_kept for mode in self.modes.values()) * JOIN_BYTES
        targets = joins_kept * KEPT_TARGET_BYTES
        profiles = MAX_PROFILES_KEPT * (
            PROFILE_BYTES_PER_ELEMENT * elements + joins_kept * JOIN_BYTES
        )
        return LOADED_BYTES_PER_ELEMENT * elements + joins + targets + profiles

    @property
    def is_small(self) -> bool:
        """Small enough to answer on the event loop (a thread hand-off costs more)."""
        return self.graph.edge_count < SMALL_GRAPH_EDGES

    def matrix(
        self,
        profile: Profile,
        sources: Sequence[Point],
        targets: Sequence[Point],
        stop: Stop | None = None,
    ) -> list[list[Cell]]:
        """The cells of `sources` x `targets` in `profile`; ends with `Stopped` soon after
        `stop` is set (a request past its time budget)."""
        return self.mode_graph(profile).matrix(sources, targets, stop)


Box = tuple[float, float, float, float]  # min x, min y, max x, max y (canvas units)


def _level_boxes(graph: WalkGraph) -> dict[int, Box]:
    """The box around each level's nodes (its walk paths, their joins and connector
    stops), for the levels that have any: where a waypoint of that level can be."""
    import numpy as np

    boxes: dict[int, Box] = {}
    for level in np.unique(graph.node_level).tolist():
        xy = graph.node_xy[graph.node_level == level]
        (x0, y0), (x1, y1) = xy.min(axis=0).tolist(), xy.max(axis=0).tolist()
        boxes[int(level)] = (x0, y0, x1, y1)
    return boxes


def euclidean_matrix(
    sources: Sequence[Point],
    targets: Sequence[Point],
    feet_per_unit: float,
    floor_height: float,
    speed: float,
    heights: Sequence[int] | None = None,
) -> list[list[Cell]]:
    """Straight lines, ignoring walls; between levels the 3-D line with `floor_height`
    per floor step: the levels' `heights` apart (by position; None: the positions)."""

    def height(level: int) -> int:
        return level if heights is None else heights[level]

    def cell(a: Point, b: Point) -> Cell:
        flat = math.hypot(a.x - b.x, a.y - b.y) * feet_per_unit
        feet = math.hypot(flat, floor_height * abs(height(a.level) - height(b.level)))
        return (feet, feet / speed)

    return [[cell(source, target) for target in targets] for source in sources]
