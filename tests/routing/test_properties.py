"""Properties of walk-graph routing on generated maps (hypothesis).

Maps are small networks on an integer grid: horizontal, vertical and 45-degree lines,
polylines and paths, some `no-wheelchair`, on 1 to 3 levels written in a shuffled
document order (data-level-index gives the order), with connectors of every kind. On
such a grid two distinct vertices are at least 1 unit apart and a vertex is 0 or at
least 0.7 units from a line, so the 0.5-unit joins never move a drawn line: a map's
geometry is exactly what was drawn, and adding a line only adds to it.

Connectors stand on a vertex of an accessible "spine" line on each of their levels, at
the same x, y on every level (a building's shaft). Waypoints "on the network" lie on
an accessible line: the nearest edge of either mode is then at distance 0, where
every line through that point is joined to it.

`make test` draws `examples(EXAMPLES)` maps per test (a quarter, tests/examples.py: the
derandomized draw starts from the simplest maps), `make explore` all EXAMPLES; PINNED, a
map with every connector kind, every way of writing a line and a `no-wheelchair` line on
two levels written out of order, is always one of those the network tests take.
"""

from __future__ import annotations

import itertools
import math
import os
from dataclasses import dataclass, field

import networkx as nx
import numpy as np
import pytest
import shapely
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from parsing.svg import parse_unit_map
from routing.build import build_walk_graph
from routing.costs import Costs
from routing.matrix import LoadedGraph, Point, euclidean_matrix
from routing.model import (
    ELEVATOR,
    ESCALATOR,
    FOOT,
    LINK,
    RAMP,
    STAIRS,
    WALK,
    WHEELCHAIR,
    WalkGraph,
    graph_bytes,
    graph_from_bytes,
)
from routing.profile import Profile
from tests.examples import examples

# FLOORGATE_ROUTING_EXAMPLES=3000 for a longer hunt.
EXAMPLES = int(os.environ.get("FLOORGATE_ROUTING_EXAMPLES", "120"))
SETTINGS = settings(
    max_examples=examples(EXAMPLES),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
GRID = 6
FLOOR = 10.0
SPEED = {FOOT: 4.4, WHEELCHAIR: 3.5}
MODES = (FOOT, WHEELCHAIR)
DIRECTIONS = [(1, 0), (0, 1), (1, 1), (1, -1), (-1, 0), (0, -1), (-1, -1), (-1, 1)]
KINDS = ["stairs", "elevator", "ramp", "escalator"]
TOLERANCE = 1e-6


# ---------------------------------------------------------------- generated maps


@dataclass(frozen=True)
class Walk:
    """One drawn walk element: its vertices, whether a wheelchair may use it, and how
    it is written (line, polyline or path)."""

    points: tuple[tuple[int, int], ...]
    ok: bool
    tag: str

    def svg(self) -> str:
        access = "" if self.ok else ' data-access="no-wheelchair"'
        if self.tag == "line" and len(self.points) == 2:
            (x1, y1), (x2, y2) = self.points
            return f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}"{access}/>'
        if self.tag == "path":
            d = "M" + " L".join(f"{x} {y}" for x, y in self.points)
            return f'<path d="{d}"{access}/>'
        points = " ".join(f"{x},{y}" for x, y in self.points)
        return f'<polyline points="{points}"{access}/>'


@dataclass(frozen=True)
class Stop:
    kind: str
    connector_id: str
    x: int
    y: int


@dataclass
class Network:
    fpu: float
    walks: list[list[Walk]]  # by level position (lowest first)
    stops: list[list[Stop]]  # by level position
    document_order: list[int]  # level positions in the order they are written
    level_index: list[int]  # data-level-index of each level position (increasing)
    extra: dict[int, list[Walk]] = field(default_factory=dict)

    def svg(self) -> str:
        body = []
        for position in self.document_order:
            walks = self.walks[position] + self.extra.get(position, [])
            stops = "".join(
                f'<rect x="{s.x - 1}" y="{s.y - 1}" width="2" height="2" '
                f'data-connector="{s.kind}" data-connector-id="{s.connector_id}"/>'
                for s in self.stops[position]
            )
            body.append(
                f'<g id="L{position}" data-level="Level {position}" '
                f'data-level-index="{self.level_index[position]}">'
                f'<g data-layer="paths">{"".join(w.svg() for w in walks)}</g>{stops}</g>'
            )
        return (
            '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100" '
            f'data-feet-per-unit="{self.fpu}">{"".join(body)}</svg>'
        )

    def with_extra(self, position: int, walk: Walk) -> Network:
        return Network(
            self.fpu,
            self.walks,
            self.stops,
            self.document_order,
            self.level_index,
            {position: [walk]},
        )

    def segments(self, position: int, accessible_only: bool) -> list[tuple[tuple, tuple]]:
        return [
            (a, b)
            for walk in self.walks[position]
            if walk.ok or not accessible_only
            for a, b in itertools.pairwise(walk.points)
            if a != b
        ]


coordinate = st.integers(0, GRID)


@st.composite
def walks(draw: st.DrawFn, start: tuple[int, int] | None = None, ok: bool | None = None) -> Walk:
    x, y = start if start is not None else (draw(coordinate), draw(coordinate))
    points = [(x, y)]
    for _ in range(draw(st.integers(1, 1 if start is not None else 3))):
        dx, dy = draw(st.sampled_from(DIRECTIONS))
        k = draw(st.integers(1, 4))
        x, y = x + dx * k, y + dy * k
        points.append((x, y))
    accessible = ok if ok is not None else draw(st.sampled_from([True, True, True, False]))
    tag = draw(st.sampled_from(["line", "polyline", "path"]))
    return Walk(tuple(points), accessible, tag)


@st.composite
def rings(draw: st.DrawFn) -> Walk:
    """A closed rectangle or diamond (a chain with no end of its own)."""
    x, y = draw(coordinate), draw(coordinate)
    w, h = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    if draw(st.booleans()):
        corners = ((x, y), (x + w, y), (x + w, y + h), (x, y + h), (x, y))
    else:
        corners = ((x, y), (x + w, y + w), (x + w - h, y + w + h), (x - h, y + h), (x, y))
    ok = draw(st.sampled_from([True, True, True, False]))
    return Walk(corners, ok, draw(st.sampled_from(["polyline", "path"])))


@st.composite
def networks(draw: st.DrawFn) -> Network:
    levels = draw(st.integers(1, 3))
    walk_lists = [
        draw(st.lists(st.one_of(walks(), rings()), min_size=0, max_size=7)) for _ in range(levels)
    ]
    stop_lists: list[list[Stop]] = [[] for _ in range(levels)]
    for number in range(draw(st.integers(0 if levels == 1 else 1, 2))):
        kind = draw(st.sampled_from(KINDS))
        x, y = draw(coordinate), draw(coordinate)
        on = draw(st.lists(st.integers(0, levels - 1), min_size=min(2, levels), unique=True))
        for position in on:
            stop_lists[position].append(Stop(kind, f"c{number}", x, y))
            # the spine: an accessible line from the connector, drawn first
            walk_lists[position].insert(0, draw(walks(start=(x, y), ok=True)))
    for position in range(levels):
        if not walk_lists[position]:
            walk_lists[position].append(draw(walks(ok=True)))
    order = draw(st.permutations(list(range(levels))))
    base = draw(st.integers(-3, 3))
    return Network(
        fpu=draw(st.sampled_from([0.5, 1.0, 2.0])),
        walks=walk_lists,
        stops=stop_lists,
        document_order=list(order),
        level_index=[base + 2 * position for position in range(levels)],
    )


tenth = st.integers(-5, 10 * GRID + 5).map(lambda v: v / 10)


@st.composite
def loose_walks(draw: st.DrawFn) -> Walk:
    """Any direction, on a 0.1-unit grid: vertices merge, ends split lines within 0.5
    units, nearly parallel lines cross."""
    points = tuple(draw(st.lists(st.tuples(tenth, tenth), min_size=2, max_size=4)))
    closed = draw(st.booleans()) and len(points) > 2
    accessible = draw(st.sampled_from([True, True, True, False]))
    tag = draw(st.sampled_from(["line", "polyline", "path"]))
    return Walk((*points, points[0]) if closed else points, accessible, tag)


@st.composite
def loose_networks(draw: st.DrawFn) -> Network:
    """Any geometry (levels may have no walk paths at all); connectors anywhere, at the
    same place on each of their levels."""
    levels = draw(st.integers(1, 3))
    walk_lists = [draw(st.lists(loose_walks(), min_size=0, max_size=7)) for _ in range(levels)]
    if not any(walk_lists):
        walk_lists[0].append(draw(loose_walks()))
    stop_lists: list[list[Stop]] = [[] for _ in range(levels)]
    for number in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(KINDS))
        x, y = draw(tenth), draw(tenth)
        for position in draw(st.lists(st.integers(0, levels - 1), min_size=1, unique=True)):
            stop_lists[position].append(Stop(kind, f"c{number}", x, y))
    return Network(
        fpu=draw(st.sampled_from([0.5, 1.0, 2.0])),
        walks=walk_lists,
        stops=stop_lists,
        document_order=list(range(levels)),
        level_index=list(range(levels)),
    )


def any_networks() -> st.SearchStrategy[Network]:
    return st.one_of(networks(), loose_networks())


# Every connector kind on its spine on both levels, a line, a polyline and a path, a
# `no-wheelchair` line and a ring, levels written out of order: a map `networks()` draws.
STOPS = (("stairs", 0, 0), ("elevator", 4, 0), ("ramp", 4, 3), ("escalator", 1, 3))
PINNED = Network(
    fpu=0.5,
    walks=[
        [
            Walk(((0, 0), (4, 0)), True, "line"),
            Walk(((4, 0), (4, 3), (1, 3)), True, "polyline"),
            Walk(((2, 2), (3, 3), (2, 4), (1, 3), (2, 2)), True, "path"),
            Walk(((0, 0), (2, 2)), False, "line"),
        ],
        [Walk(((0, 0), (4, 0), (4, 4)), True, "polyline"), Walk(((4, 3), (1, 3)), True, "path")],
    ],
    stops=[[Stop(kind, f"c{n}", x, y) for n, (kind, x, y) in enumerate(STOPS)] for _ in range(2)],
    document_order=[1, 0],
    level_index=[-1, 1],
)


def free_points(levels: int) -> st.SearchStrategy[list[Point]]:
    near = st.floats(-2, GRID + 2, allow_nan=False, allow_infinity=False)
    point = st.builds(Point, near, near, st.integers(0, levels - 1))
    return st.lists(point, min_size=2, max_size=5)


@st.composite
def points_on_network(draw: st.DrawFn, network: Network) -> list[Point]:
    """Points on accessible segments, at a quarter of the way or a multiple of it; often
    where a connector stands (on its spine), so that many pairs are on different levels."""
    found = []
    stops = [(position, stop) for position, level in enumerate(network.stops) for stop in level]
    for _ in range(draw(st.integers(2, 5))):
        if stops and draw(st.booleans()):
            position, stop = draw(st.sampled_from(stops))
            found.append(Point(stop.x, stop.y, position))
            continue
        position = draw(st.integers(0, len(network.walks) - 1))
        segments = network.segments(position, accessible_only=True)
        if not segments:
            continue
        (ax, ay), (bx, by) = draw(st.sampled_from(segments))
        t = draw(st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]))
        found.append(Point(ax + t * (bx - ax), ay + t * (by - ay), position))
    return found


def build(network: Network) -> tuple[WalkGraph, LoadedGraph]:
    graph = build_walk_graph(parse_unit_map(network.svg()))
    assert graph is not None
    return graph, LoadedGraph(graph, Costs(), FLOOR)


# ---------------------------------------------------------------- a reference router


def _nearest_on_segment(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    ab = b - a
    span = float(np.dot(ab, ab))
    t = float(np.clip(np.dot(p - a, ab) / span, 0.0, 1.0)) if span > 0 else 0.0
    return t, float(np.hypot(*(p - (a + t * ab))))


def reference_matrix(
    graph: WalkGraph, mode: int, points: list[Point]
) -> tuple[list[list[tuple[float, float] | None]], set[int]]:
    """Every pair by a plain Dijkstra (networkx) on the whole graph, costs written out
    from the spec, each waypoint spliced into the segment it joins. Also returns the
    points whose nearest segment is not unique (ties): no answer is checked for them."""
    speed = SPEED[mode]
    g = nx.Graph()

    def add(u: object, v: object, length: float, time: float) -> None:
        if g.has_edge(u, v) and g[u][v]["time"] <= time:
            return
        g.add_edge(u, v, length=length, time=time)

    usable = [e for e in range(graph.edge_count) if graph.edge_modes[e] & mode]
    walk = [e for e in usable if graph.edge_kind[e] == WALK]
    splits: dict[int, list[tuple[float, object]]] = {}
    joined: dict[int, object] = {}
    ambiguous: set[int] = set()
    for i, point in enumerate(points):
        p = np.array([point.x, point.y])
        candidates = []
        for e in walk:
            if graph.node_level[graph.edge_u[e]] != point.level:
                continue
            a, b = graph.node_xy[graph.edge_u[e]], graph.node_xy[graph.edge_v[e]]
            t, gap = _nearest_on_segment(p, a, b)
            candidates.append((gap, e, t, a + t * (b - a)))
        if not candidates:
            continue
        candidates.sort(key=lambda c: c[0])
        gap, e, t, at = candidates[0]
        for other_gap, _, _, other_at in candidates[1:]:
            if other_gap <= gap + 1e-9 and np.hypot(*(other_at - at)) > 1e-9:
                ambiguous.add(i)
        node: object
        if t == 0.0:
            node = int(graph.edge_u[e])
        elif t == 1.0:
            node = int(graph.edge_v[e])
        else:
            node = ("split", e, t)
            splits.setdefault(e, []).append((t, node))
        joined[i] = ("point", i)
        add(("point", i), node, gap * graph.feet_per_unit, gap * graph.feet_per_unit / speed)
    for e in usable:
        u, v, kind, steps = (
            int(graph.edge_u[e]),
            int(graph.edge_v[e]),
            int(graph.edge_kind[e]),
            int(graph.edge_steps[e]),
        )
        if kind in (WALK, LINK):
            length = float(graph.edge_length[e])
            chain = [(0.0, u), *sorted(set(splits.get(e, []))), (1.0, v)]
            for (t0, n0), (t1, n1) in itertools.pairwise(chain):
                part = (t1 - t0) * length
                add(n0, n1, part, part / speed)
        elif kind == STAIRS:
            add(u, v, 1.5 * FLOOR * steps, 12.0 * steps)
        elif kind == ELEVATOR:
            add(u, v, FLOOR * steps, 30.0 + 5.0 * steps)
        else:
            assert kind in (RAMP, ESCALATOR)
            add(u, v, 1.5 * FLOOR * steps, 1.5 * FLOOR * steps / speed)
    result: list[list[tuple[float, float] | None]] = []
    for i in range(len(points)):
        row: list[tuple[float, float] | None] = []
        if i in joined:
            times, routes = nx.single_source_dijkstra(g, joined[i], weight="time")
        for j in range(len(points)):
            if i not in joined or j not in joined:
                row.append(None)
            elif points[i] == points[j]:
                row.append((0.0, 0.0))
            elif joined[j] not in times:
                row.append(None)
            else:
                route = routes[joined[j]]
                length = sum(g[a][b]["length"] for a, b in itertools.pairwise(route))
                row.append((length, times[joined[j]]))
        result.append(row)
    return result, ambiguous


# ---------------------------------------------------------------- the drawn arrangement


def _key(x: float, y: float) -> tuple[float, float]:
    return (round(x, 9) + 0.0, round(y, 9) + 0.0)


def arrangement_matrix(
    network: Network, mode: int, points: list[Point]
) -> list[list[tuple[float, float] | None]]:
    """Grid maps only, straight from the spec and independent of routing/build.py: the
    drawn lines cut at every crossing, touch and overlap (shapely), a piece usable in a
    wheelchair when any line drawing it is; connectors on their vertex; waypoints (on a
    line) spliced into their piece; Dijkstra by time (networkx)."""
    speed = SPEED[mode]
    g = nx.Graph()

    def add(u: object, v: object, length: float, time: float) -> None:
        if not g.has_edge(u, v) or g[u][v]["time"] > time:
            g.add_edge(u, v, length=length, time=time)

    for position, level_walks in enumerate(network.walks):
        drawn = level_walks + network.extra.get(position, [])
        segments = [
            (a, b, walk.ok) for walk in drawn for a, b in itertools.pairwise(walk.points) if a != b
        ]
        pieces: dict[tuple, bool] = {}
        for i, (a, b, ok) in enumerate(segments):
            this = shapely.LineString([a, b])
            cuts = {0.0, 1.0}
            for j, (c, d, _) in enumerate(segments):
                if j != i:
                    shared = this.intersection(shapely.LineString([c, d]))
                    for x, y in shapely.get_coordinates(shared).tolist():
                        cuts.add(this.project(shapely.Point(x, y), normalized=True))
            ax, ay = a
            bx, by = b
            ends = [_key(ax + t * (bx - ax), ay + t * (by - ay)) for t in sorted(cuts)]
            for u, v in itertools.pairwise(ends):
                if u != v:
                    key = tuple(sorted((u, v)))
                    pieces[key] = pieces.get(key, False) or ok
        on_level = [(i, p) for i, p in enumerate(points) if p.level == position]
        for (u, v), ok in pieces.items():
            if mode == WHEELCHAIR and not ok:
                continue
            length = math.dist(u, v) * network.fpu
            chain = [(0.0, (position, u)), (1.0, (position, v))]
            for i, p in on_level:
                t, gap = _nearest_on_segment(np.array([p.x, p.y]), np.array(u), np.array(v))
                if gap < 1e-9:
                    chain.append((t, ("point", i)))
            chain.sort(key=lambda item: item[0])
            for (t0, n0), (t1, n1) in itertools.pairwise(chain):
                add(n0, n1, (t1 - t0) * length, (t1 - t0) * length / speed)
    by_id: dict[str, list[tuple[int, str]]] = {}
    for position, stops in enumerate(network.stops):
        for stop in stops:
            if mode == WHEELCHAIR and stop.kind in ("stairs", "escalator"):
                continue
            add((position, stop.connector_id), (position, _key(stop.x, stop.y)), 0.0, 0.0)
            by_id.setdefault(stop.connector_id, []).append((position, stop.kind))
    for connector_id, stops in by_id.items():
        stops.sort()
        kind = stops[0][1]
        if kind == "elevator":
            pairs = [(a, b) for i, a in enumerate(stops) for b in stops[i + 1 :]]
        else:
            pairs = list(itertools.pairwise(stops))
        for (low, _), (high, _) in pairs:
            steps = high - low
            if kind == "stairs":
                length, time = 1.5 * FLOOR * steps, 12.0 * steps
            elif kind == "elevator":
                length, time = FLOOR * steps, 30.0 + 5.0 * steps
            else:
                length = 1.5 * FLOOR * steps
                time = length / speed
            add((low, connector_id), (high, connector_id), length, time)
    result: list[list[tuple[float, float] | None]] = []
    for i, p in enumerate(points):
        row: list[tuple[float, float] | None] = []
        times, routes = nx.single_source_dijkstra(g, ("point", i), weight="time")
        for j, q in enumerate(points):
            if p == q:
                row.append((0.0, 0.0))
            elif ("point", j) not in times:
                row.append(None)
            else:
                route = routes[("point", j)]
                length = sum(g[a][b]["length"] for a, b in itertools.pairwise(route))
                row.append((length, times[("point", j)]))
        result.append(row)
    return result


# ---------------------------------------------------------------- properties


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=TOLERANCE, abs_tol=TOLERANCE)


def assert_same_cells(got: list, expected: list, skip: set[int], where: tuple) -> None:
    """Cell by cell: both None, or the same time and distance (rows/columns in `skip`
    are left out: a waypoint equally near two segments may join either)."""
    for i, (row_got, row_expected) in enumerate(zip(got, expected, strict=True)):
        for j, (cell, reference) in enumerate(zip(row_got, row_expected, strict=True)):
            if i in skip or j in skip:
                continue
            if reference is None:
                assert cell is None, (i, j, where)
            else:
                assert cell is not None, (i, j, where)
                assert close(cell[1], reference[1]), (cell, reference, i, j, where)
                assert close(cell[0], reference[0]), (cell, reference, i, j, where)


@SETTINGS
@given(st.data())
def test_matches_a_plain_dijkstra_on_the_whole_graph(data):
    network = data.draw(any_networks())
    points = data.draw(free_points(len(network.walks)))
    graph, loaded = build(network)
    for mode in MODES:
        expected, ambiguous = reference_matrix(graph, mode, points)
        assert_same_cells(
            loaded.matrix(Profile(mode), points, points),
            expected,
            ambiguous,
            (mode, points, network.svg()),
        )


def _walk_edges_with_a_node_inside(graph: WalkGraph) -> list[tuple[int, int]]:
    """(edge, node) pairs where a node of the walk paths lies on the inside of a walk
    edge of its level: two copies of one drawn stretch, only one of them split."""
    walk = np.flatnonzero(graph.edge_kind == WALK)
    ends = np.unique(np.concatenate([graph.edge_u[walk], graph.edge_v[walk]]))
    found = []
    for e in walk.tolist():
        u, v = int(graph.edge_u[e]), int(graph.edge_v[e])
        a, b = graph.node_xy[u], graph.node_xy[v]
        for n in ends.tolist():
            if n in (u, v) or graph.node_level[n] != graph.node_level[u]:
                continue
            t, gap = _nearest_on_segment(graph.node_xy[n], a, b)
            if 0.0 < t < 1.0 and gap < 1e-9:
                found.append((e, n))
    return found


# A polyline doubling back (0,0.1) -> (3.1,1.4) -> (0,0.6) under a line (0,1.2) ->
# (3.6,1.3). Its last vertex (0,0.6) is 0.46 units from its first segment, which the
# T-junction therefore bends through it: that segment's piece (0,0.6)-(3.1,1.4) is the
# second segment again. The second segment crosses the line at X = (2.6054, 1.2724)
# (0.51 units from (3.1,1.4), so a new node), the piece, drawn before the split, did not:
# the graph kept it whole beside the split copy. Waypoint B = (1,0) is nearest to the
# point Q = (0.7924, 0.8045) of both copies (0.8308 units); on the copy through X the
# route from A = (0,1) (joining (0,1.2), 0.2 units) is 0.2 + 2.6065 (to X) + 1.8725
# (X to Q) + 0.8308 = 5.5098 units = 2.754877 ft, 0.626108 s on foot; on the whole copy
# it had to go round by (3.1,1.4): 0.2 + 2.6065 + 0.5108 + 2.3832 + 0.8308 units =
# 3.265632 ft. The rules make the shared stretch one edge, through X: the first answer.
DOUBLED_BACK = Network(
    fpu=0.5,
    walks=[
        [
            Walk(((0.0, 1.2), (3.6, 1.3)), True, "line"),
            Walk(((0.0, 0.1), (3.1, 1.4), (0.0, 0.6)), True, "line"),
        ]
    ],
    stops=[[]],
    document_order=[0],
    level_index=[0],
)


def test_a_stretch_drawn_twice_through_a_join_is_one_edge_through_its_crossing():
    graph, loaded = build(DOUBLED_BACK)
    assert _walk_edges_with_a_node_inside(graph) == []
    edges = {
        tuple(sorted((tuple(graph.node_xy[u].round(4)), tuple(graph.node_xy[v].round(4)))))
        for u, v in zip(graph.edge_u.tolist(), graph.edge_v.tolist(), strict=True)
    }
    x = (2.6054, 1.2724)
    line = {((0.0, 1.2), x), (x, (3.1, 1.4)), ((3.1, 1.4), (3.6, 1.3))}
    polyline = {((0.0, 0.1), (0.0, 0.6)), ((0.0, 0.6), x)}  # bent, and shared from X on
    assert edges == line | polyline
    points = [Point(0.0, 1.0, 0), Point(1.0, 0.0, 0)]
    joined, b = (0.0, 1.2), (1.0, 0.0)
    q, crossing = (0.79239024390, 0.80448780488), (2.60544747082, 1.27237354086)
    units = 0.2 + math.dist(joined, crossing) + math.dist(crossing, q) + math.dist(q, b)
    feet = units * DOUBLED_BACK.fpu
    for mode in MODES:
        got = loaded.matrix(Profile(mode), points, points)
        expected, ambiguous = reference_matrix(graph, mode, points)
        assert ambiguous == set()
        assert got[0][1] == pytest.approx(
            (2.754876719274141, 2.754876719274141 / SPEED[mode]), rel=1e-12
        )
        assert got[0][1] == pytest.approx((feet, feet / SPEED[mode]), rel=1e-9)
        assert_same_cells(got, expected, ambiguous, (mode, points))


def test_a_segment_bent_onto_a_crossed_one_shares_its_split():
    """Smaller still: (0,0.6) merges into (0.1,1); the end (0.5,0) bends the first line
    through it, onto the last segment, which crosses the second at (0.3125, 0.46875)."""
    network = Network(
        fpu=0.5,
        walks=[
            [
                Walk(((0.0, 0.0), (0.1, 1.0)), True, "line"),
                Walk(((0.0, 0.0), (0.6, 0.9), (0.0, 0.6), (0.5, 0.0)), True, "line"),
            ]
        ],
        stops=[[]],
        document_order=[0],
        level_index=[0],
    )
    graph, _ = build(network)
    assert _walk_edges_with_a_node_inside(graph) == []
    assert graph.edge_count == 6


@SETTINGS
@given(any_networks())
@example(PINNED)
def test_no_node_lies_inside_a_walk_edge(network):
    """What a join bends onto another drawn segment is that segment: one edge, split
    wherever it is split (docs/unit-map-svg.md: the shared part of an overlap is one edge)."""
    graph, _ = build(network)
    assert _walk_edges_with_a_node_inside(graph) == [], network.svg()


@SETTINGS
@given(st.data())
def test_grid_maps_route_on_the_drawn_arrangement(data):
    """End to end (parse, build, route) against the spec read literally: on a grid map
    the joins move nothing, so the walk graph is the drawn lines cut where they meet."""
    network = data.draw(networks())
    points = data.draw(points_on_network(network))
    _, loaded = build(network)
    for mode in MODES:
        expected = arrangement_matrix(network, mode, points)
        assert_same_cells(
            loaded.matrix(Profile(mode), points, points),
            expected,
            set(),
            (mode, points, network.svg()),
        )


@SETTINGS
@given(st.data())
def test_never_shorter_than_the_straight_line(data):
    network = data.draw(any_networks())
    points = data.draw(free_points(len(network.walks)))
    _, loaded = build(network)
    straight = euclidean_matrix(points, points, network.fpu, FLOOR, 1.0)
    for mode in MODES:
        for i, row in enumerate(loaded.matrix(Profile(mode), points, points)):
            for j, cell in enumerate(row):
                if cell is not None:
                    feet = straight[i][j][0]
                    assert cell[0] >= feet - TOLERANCE * (1 + feet), (mode, points[i], points[j])
                    # and no faster than walking that straight line... unless an
                    # elevator or stairs carry part of it: time >= 0 at least
                    assert cell[1] >= 0.0


@SETTINGS
@given(st.data())
def test_symmetric(data):
    network = data.draw(any_networks())
    points = data.draw(free_points(len(network.walks)))
    _, loaded = build(network)
    for mode in MODES:
        matrix = loaded.matrix(Profile(mode), points, points)
        for i in range(len(points)):
            for j in range(len(points)):
                there, back = matrix[i][j], matrix[j][i]
                if there is None or back is None:
                    assert there is None and back is None, (mode, points[i], points[j])
                else:
                    assert close(there[0], back[0]) and close(there[1], back[1]), (there, back)


@SETTINGS
@given(st.data())
def test_same_answers_whatever_the_request_shape(data):
    """One row at a time, one column at a time, or all at once (Dijkstra from sources or
    from targets): the same cells."""
    network = data.draw(any_networks())
    points = data.draw(free_points(len(network.walks)))
    _, loaded = build(network)
    for mode in MODES:
        full = loaded.matrix(Profile(mode), points, points)
        for i, source in enumerate(points):
            row = loaded.matrix(Profile(mode), [source], points)[0]
            column = [cell[0] for cell in loaded.matrix(Profile(mode), points, [source])]
            for j in range(len(points)):
                for cell, reference in ((row[j], full[i][j]), (column[j], full[j][i])):
                    if reference is None:
                        assert cell is None
                    else:
                        assert cell is not None
                        assert close(cell[0], reference[0]) and close(cell[1], reference[1])


@SETTINGS
@given(st.data())
def test_triangle_inequality_on_time(data):
    network = data.draw(any_networks())
    points = data.draw(free_points(len(network.walks)))
    _, loaded = build(network)
    for mode in MODES:
        matrix = loaded.matrix(Profile(mode), points, points)
        n = len(points)
        for a in range(n):
            for b in range(n):
                for c in range(n):
                    ab, bc, ac = matrix[a][b], matrix[b][c], matrix[a][c]
                    if ab is not None and bc is not None:
                        # reaching c through b: a route a -> c exists
                        assert ac is not None, (mode, points[a], points[b], points[c])
                        assert ac[1] <= ab[1] + bc[1] + TOLERANCE, (ac, ab, bc)


@SETTINGS
@given(st.data())
def test_a_waypoint_to_itself(data):
    network = data.draw(any_networks())
    points = data.draw(free_points(len(network.walks)))
    graph, loaded = build(network)
    for mode in MODES:
        levels_with_walks = {
            int(graph.node_level[graph.edge_u[e]])
            for e in range(graph.edge_count)
            if graph.edge_kind[e] == WALK and graph.edge_modes[e] & mode
        }
        for point in points:
            cell = loaded.matrix(Profile(mode), [point], [point])[0][0]
            assert cell == ((0.0, 0.0) if point.level in levels_with_walks else None)


@SETTINGS
@given(st.data())
def test_wheelchair_reach_implies_foot_reach_and_foot_is_faster(data):
    network = data.draw(networks())
    points = data.draw(points_on_network(network))
    _, loaded = build(network)
    foot = loaded.matrix(Profile(FOOT), points, points)
    wheelchair = loaded.matrix(Profile(WHEELCHAIR), points, points)
    for i in range(len(points)):
        for j in range(len(points)):
            if wheelchair[i][j] is not None:
                where = (points[i], points[j], network.svg())
                assert foot[i][j] is not None, where
                assert foot[i][j][1] <= wheelchair[i][j][1] + TOLERANCE, where


@SETTINGS
@given(st.data())
def test_adding_a_line_never_makes_a_route_slower(data):
    network = data.draw(networks())
    points = data.draw(points_on_network(network))
    position = data.draw(st.integers(0, len(network.walks) - 1))
    extra = data.draw(walks())
    _, before = build(network)
    _, after = build(network.with_extra(position, extra))
    for mode in MODES:
        old = before.matrix(Profile(mode), points, points)
        new = after.matrix(Profile(mode), points, points)
        for i in range(len(points)):
            for j in range(len(points)):
                if old[i][j] is not None:
                    where = (mode, points[i], points[j], extra, network.svg())
                    assert new[i][j] is not None, where
                    assert new[i][j][1] <= old[i][j][1] + TOLERANCE * (1 + old[i][j][1]), where


@settings(
    max_examples=examples(max(1, EXAMPLES // 2)),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(any_networks())
@example(PINNED)
def test_graph_bytes_round_trip(network):
    text = network.svg()
    graph = build_walk_graph(parse_unit_map(text))
    assert graph is not None
    data = graph_bytes(graph)
    assert graph_bytes(build_walk_graph(parse_unit_map(text))) == data
    back = graph_from_bytes(data)
    assert graph_bytes(back) == data
    for name in (
        "node_xy",
        "node_level",
        "edge_u",
        "edge_v",
        "edge_length",
        "edge_kind",
        "edge_steps",
        "edge_modes",
    ):
        assert np.array_equal(getattr(back, name), getattr(graph, name)), name
    assert back.level_uids == tuple(f"L{p}" for p in range(len(network.walks)))
    assert back.feet_per_unit == network.fpu
