"""Walk-graph routing on small hand-drawn maps (docs/unit-map-svg.md, Walk graph; docs/contract.md,
Distances). Every expected distance and time is worked out by hand in the test, so a
change of semantics shows up here, not only a change of numbers."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pytest

from parsing.parsed_map import LevelInfo
from parsing.svg import parse_unit_map
from routing.build import build_walk_graph
from routing.closest import (
    Targets,
    closest,
    first_times,
    keep_targets,
    kept_targets,
    prepared,
    targets_kept,
)
from routing.costs import Costs
from routing.levels import ordered_levels
from routing.matrix import HANDED_OVER, Join, LoadedGraph, ModeGraph, Point, euclidean_matrix
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
from routing.route import Route, find_route

FOOT_SPEED = 4.4  # ft/s
CHAIR_SPEED = 3.5  # ft/s
FLOOR = 10.0  # ft, the default floor height
BOTH_MODES = FOOT | WHEELCHAIR


# ---------------------------------------------------------------- drawing helpers


def svg(*levels: str, fpu: float = 0.5) -> str:
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="400" '
        f'data-feet-per-unit="{fpu}">{"".join(levels)}</svg>'
    )


def level(uid: str, index: int | None, *content: str) -> str:
    index_attribute = f' data-level-index="{index}"' if index is not None else ""
    return (
        f'<g id="{uid}" data-level="Level {uid}" data-tag-floor="f-{uid}"{index_attribute}>'
        f"{''.join(content)}</g>"
    )


def paths(*elements: str) -> str:
    return f'<g data-layer="paths">{"".join(elements)}</g>'


def line(x1: float, y1: float, x2: float, y2: float, access: str | None = None) -> str:
    extra = f' data-access="{access}"' if access else ""
    return f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}"{extra}/>'


def polyline(points: str, access: str | None = None) -> str:
    extra = f' data-access="{access}"' if access else ""
    return f'<polyline points="{points}"{extra}/>'


def connector(kind: str, connector_id: str, x: float, y: float) -> str:
    """A 4 x 4 rect centred on (x, y): the connector stands at its box's centre."""
    return (
        f'<rect x="{x - 2}" y="{y - 2}" width="4" height="4" '
        f'data-connector="{kind}" data-connector-id="{connector_id}"/>'
    )


def build(text: str) -> WalkGraph:
    graph = build_walk_graph(parse_unit_map(text))
    assert graph is not None
    return graph


def loaded(text: str, floor_height: float = FLOOR) -> LoadedGraph:
    return LoadedGraph(build(text), Costs(), floor_height)


def one(graph: LoadedGraph, mode: int, a: Point, b: Point) -> tuple[float, float] | None:
    return graph.matrix(Profile(mode), [a], [b])[0][0]


def approx(cell: tuple[float, float]) -> object:
    return pytest.approx(cell, rel=1e-9)


def walk(feet: float, speed: float = FOOT_SPEED) -> tuple[float, float]:
    """A route that only walks: `feet`, at `speed`."""
    return (feet, feet / speed)


def edges_of(graph: WalkGraph, kind: int) -> list[tuple[int, int, int, int]]:
    """(lower level, upper level, steps, modes) of each edge of a connector kind."""
    found = []
    for e in np.flatnonzero(graph.edge_kind == kind).tolist():
        levels = sorted(
            (int(graph.node_level[graph.edge_u[e]]), int(graph.node_level[graph.edge_v[e]]))
        )
        found.append((levels[0], levels[1], int(graph.edge_steps[e]), int(graph.edge_modes[e])))
    return sorted(found)


def walk_edges(graph: WalkGraph) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """Walk edges as sorted pairs of node positions, sorted."""
    found = []
    for e in np.flatnonzero(graph.edge_kind == WALK).tolist():
        a = tuple(graph.node_xy[graph.edge_u[e]].tolist())
        b = tuple(graph.node_xy[graph.edge_v[e]].tolist())
        found.append(tuple(sorted((a, b))))
    return sorted(found)


# ---------------------------------------------------------------- 1. a straight corridor

# x from 0 to 100 on y = 0, drawn with inner vertices (a chain through them), 0.5 ft/unit.
CORRIDOR = svg(level("L1", 1, paths(polyline("0,0 20,0 50,0 100,0"))), fpu=0.5)
A = Point(10, 0, 0)  # on the corridor
B = Point(60, 0, 0)  # on the corridor, another segment of the drawn polyline
C = Point(30, 8, 0)  # 8 units beside the corridor: joins (30, 0)
D = Point(106, 8, 0)  # beyond the end: joins the end (100, 0), 6-8-10 -> 10 units away
E = Point(-3, -4, 0)  # before the start: joins (0, 0), 3-4-5 -> 5 units away


def test_corridor_on_and_off_the_line():
    graph = loaded(CORRIDOR)
    cases = {
        (A, B): 50 * 0.5,  # 60 - 10 = 50 units along = 25 ft
        (A, C): (20 + 8) * 0.5,  # 20 along to (30, 0), then 8 across = 14 ft
        (A, D): (90 + 10) * 0.5,  # 90 along to the end, then 10 to D = 50 ft
        (B, C): (30 + 8) * 0.5,  # 19 ft
        (B, D): (40 + 10) * 0.5,  # 25 ft
        (C, D): (8 + 70 + 10) * 0.5,  # 44 ft
        (A, E): (10 + 5) * 0.5,  # 7.5 ft
        (C, E): (8 + 30 + 5) * 0.5,  # 21.5 ft
    }
    for (a, b), feet in cases.items():
        assert one(graph, FOOT, a, b) == approx(walk(feet, FOOT_SPEED)), (a, b)
        assert one(graph, FOOT, b, a) == approx(walk(feet, FOOT_SPEED)), (b, a)
        assert one(graph, WHEELCHAIR, a, b) == approx(walk(feet, CHAIR_SPEED)), (a, b)


def test_same_point_is_zero_even_off_the_line():
    graph = loaded(CORRIDOR)
    for mode in (FOOT, WHEELCHAIR):
        for point in (A, C, D):
            assert one(graph, mode, point, point) == (0.0, 0.0)


def test_results_are_in_request_order():
    graph = loaded(CORRIDOR)
    feet = {(A, B): 25.0, (A, C): 14.0, (A, D): 50.0, (B, C): 19.0, (B, D): 25.0, (C, D): 44.0}
    feet.update({(b, a): value for (a, b), value in feet.items()})
    feet.update({(p, p): 0.0 for p in (A, B, C, D)})
    sources, targets = [D, A, C, A], [C, A, B, D, D]
    result = graph.matrix(Profile(FOOT), sources, targets)
    assert len(result) == len(sources)
    for row, source in zip(result, sources, strict=True):
        assert len(row) == len(targets)
        for cell, target in zip(row, targets, strict=True):
            assert cell == approx(walk(feet[(source, target)])), (source, target)


def test_corridor_drawn_as_one_line_or_as_pieces_gives_the_same():
    pieces = svg(level("L1", 1, paths(line(50, 0, 100, 0), line(0, 0, 20, 0), line(20, 0, 50, 0))))
    drawn_once, in_pieces = loaded(CORRIDOR), loaded(pieces)
    points = [A, B, C, D, E]
    for mode in (FOOT, WHEELCHAIR):
        expected = drawn_once.matrix(Profile(mode), points, points)
        got = in_pieces.matrix(Profile(mode), points, points)
        for row_expected, row_got in zip(expected, got, strict=True):
            for cell_expected, cell_got in zip(row_expected, row_got, strict=True):
                assert cell_got == approx(cell_expected)


# ---------------------------------------------------------------- 2. an L-turn

# (0, 0) -> (100, 0) -> (100, 80), 0.5 ft/unit.
L_TURN = svg(level("L1", 1, paths(polyline("0,0 100,0 100,80"))), fpu=0.5)


@pytest.mark.parametrize(
    "text",
    [
        L_TURN,
        svg(level("L1", 1, paths(line(0, 0, 100, 0), line(100, 80, 100, 0))), fpu=0.5),
    ],
    ids=["polyline", "two-lines"],
)
def test_l_turn_follows_the_corridor(text):
    graph = loaded(text)
    a, b = Point(20, 0, 0), Point(100, 50, 0)
    # 80 units to the corner, 50 up: 130 units = 65 ft.
    assert one(graph, FOOT, a, b) == approx(walk(65.0))
    assert one(graph, WHEELCHAIR, a, b) == approx(walk(65.0, CHAIR_SPEED))
    # Straight line: hypot(80, 50) units = sqrt(8900) / 2 ft, shorter than the route.
    straight = math.sqrt(8900) * 0.5
    euclid = euclidean_matrix([a], [b], 0.5, FLOOR, FOOT_SPEED)[0][0]
    assert euclid == approx((straight, straight / FOOT_SPEED))
    assert euclid[0] < 65.0
    # (95, 20) is 5 units from the vertical leg (20 from the horizontal one): it joins
    # (100, 20). From a: 80 + 20 + 5 = 105 units = 52.5 ft.
    assert one(graph, FOOT, a, Point(95, 20, 0)) == approx(walk(52.5))


def test_euclidean_matrix_between_floors_is_the_3d_line():
    a, b = Point(0, 0, 0), Point(30, 40, 2)
    # flat: 50 units x 0.5 = 25 ft; vertical: 2 floor steps x 12 ft = 24 ft.
    feet = math.hypot(25, 24)
    result = euclidean_matrix([a, b], [b, a], 0.5, 12.0, CHAIR_SPEED)
    assert result[0][0] == approx((feet, feet / CHAIR_SPEED))
    assert result[0][1] == (0.0, 0.0)
    assert result[1][1] == approx((feet, feet / CHAIR_SPEED))


# ---------------------------------------------------------------- 3. floors

# Two levels with a corridor (0, 0) -> (200, 0) each, 1 ft/unit. Stairs stand at
# (20, 10) and an elevator at (180, -10) on both: each joins its corridor 10 units away
# (at (20, 0) and (180, 0)).
TWO_FLOORS = svg(
    level(
        "L1",
        1,
        paths(line(0, 0, 200, 0)),
        connector("stairs", "s", 20, 10),
        connector("elevator", "e", 180, -10),
    ),
    level(
        "L2",
        2,
        paths(line(0, 0, 200, 0)),
        connector("stairs", "s", 20, 10),
        connector("elevator", "e", 180, -10),
    ),
    fpu=1,
)


def test_two_floors_graph():
    graph = build(TWO_FLOORS)
    assert graph.level_uids == ("L1", "L2")
    assert graph.level_floors == ("f-L1", "f-L2")
    assert edges_of(graph, STAIRS) == [(0, 1, 1, FOOT)]
    assert edges_of(graph, ELEVATOR) == [(0, 1, 1, BOTH_MODES)]
    links = np.flatnonzero(graph.edge_kind == LINK)
    # Per level: the stairs link (foot only) and the elevator link (both modes), 10 ft.
    assert sorted(graph.edge_modes[links].tolist()) == [FOOT, FOOT, BOTH_MODES, BOTH_MODES]
    assert graph.edge_length[links].tolist() == pytest.approx([10.0] * 4, rel=1e-12)


def test_foot_takes_the_faster_stairs_wheelchair_the_elevator():
    graph = loaded(TWO_FLOORS)
    a, b = Point(60, 0, 0), Point(150, 0, 1)
    # Stairs: 40 along + 10 link, stairs 1.5 x 10 ft = 15 ft in 12 s, 10 link + 130 along.
    #   190 ft walked + 15 ft = 205 ft; 190 / 4.4 + 12 = 55.18 s.
    # Elevator: 120 + 10, 10 ft in 30 + 5 = 35 s, 10 + 30: 170 ft walked + 10 ft = 180 ft;
    #   170 / 4.4 + 35 = 73.64 s on foot (longer, though shorter): foot takes the stairs.
    stairs = (190 + 15.0, 190 / FOOT_SPEED + 12)
    elevator_wheelchair = (170 + 10.0, 170 / CHAIR_SPEED + 35)
    assert one(graph, FOOT, a, b) == approx(stairs)
    assert one(graph, FOOT, b, a) == approx(stairs)
    assert one(graph, WHEELCHAIR, a, b) == approx(elevator_wheelchair)
    assert one(graph, WHEELCHAIR, b, a) == approx(elevator_wheelchair)


def test_foot_takes_the_elevator_when_it_is_faster():
    graph = loaded(TWO_FLOORS)
    a, b = Point(170, 0, 0), Point(190, 0, 1)
    # Elevator: 10 + 10 + 10 ft elevator + 10 + 10 = 40 walked + 10 = 50 ft; 40/4.4 + 35 s.
    # Stairs: 150 + 10 + 15 + 10 + 170 = 340 walked + 15 ft; 340 / 4.4 + 12 = 89.3 s.
    assert one(graph, FOOT, a, b) == approx((50.0, 40 / FOOT_SPEED + 35))


def test_floor_height_scales_connectors():
    graph = loaded(TWO_FLOORS, floor_height=12.0)
    a, b = Point(60, 0, 0), Point(150, 0, 1)
    # Stairs: 1.5 x 12 = 18 ft, still 12 s; elevator: 12 ft, still 35 s.
    assert one(graph, FOOT, a, b) == approx((190 + 18.0, 190 / FOOT_SPEED + 12))
    assert one(graph, WHEELCHAIR, a, b) == approx((170 + 12.0, 170 / CHAIR_SPEED + 35))


def test_wheelchair_has_no_way_with_stairs_only():
    text = svg(
        level("L1", 1, paths(line(0, 0, 200, 0)), connector("stairs", "s", 20, 10)),
        level("L2", 2, paths(line(0, 0, 200, 0)), connector("stairs", "s", 20, 10)),
        fpu=1,
    )
    graph = loaded(text)
    a, b = Point(60, 0, 0), Point(150, 0, 1)
    assert one(graph, FOOT, a, b) == approx((190 + 15.0, 190 / FOOT_SPEED + 12))
    assert one(graph, WHEELCHAIR, a, b) is None
    # each floor on its own is fine in a wheelchair
    assert one(graph, WHEELCHAIR, a, Point(150, 0, 0)) == approx(walk(90.0, CHAIR_SPEED))


# Three levels written top first; data-level-index puts L1 lowest (position 0). L1's
# corridor is longer (to x = 300), so a point at x = 300 on position 0 is on a path
# only if position 0 really is L1. Stairs at (20, 10) and an elevator at (180, -10)
# on every level, as on TWO_FLOORS.
def three_floors(stairs_on: tuple[str, ...] = ("L1", "L2", "L3")) -> str:
    def floor(uid: str, index: int, end: int) -> str:
        stairs = connector("stairs", "s", 20, 10) if uid in stairs_on else ""
        return level(
            uid, index, paths(line(0, 0, end, 0)), stairs, connector("elevator", "e", 180, -10)
        )

    return svg(floor("L3", 3, 200), floor("L2", 2, 200), floor("L1", 1, 300), fpu=1)


def test_level_index_orders_levels_against_document_order():
    graph = build(three_floors())
    assert graph.level_uids == ("L1", "L2", "L3")
    assert graph.level_floors == ("f-L1", "f-L2", "f-L3")
    loaded_graph = LoadedGraph(graph, Costs(), FLOOR)
    # on L1's longer corridor: 50 units, no gap
    assert one(loaded_graph, FOOT, Point(300, 0, 0), Point(250, 0, 0)) == approx(walk(50.0))


def test_elevator_joins_every_pair_stairs_adjacent_levels_only():
    graph = build(three_floors())
    assert edges_of(graph, STAIRS) == [(0, 1, 1, FOOT), (1, 2, 1, FOOT)]
    assert edges_of(graph, ELEVATOR) == [
        (0, 1, 1, BOTH_MODES),
        (0, 2, 2, BOTH_MODES),
        (1, 2, 1, BOTH_MODES),
    ]


def test_three_floors_routes():
    graph = LoadedGraph(build(three_floors()), Costs(), FLOOR)
    # Wheelchair from (300, 0) on level 0 to (100, 0) on level 2: 120 + 10 walked, one
    # elevator ride of 2 steps (20 ft, 30 + 2 x 5 = 40 s, not two rides), 10 + 80.
    #   220 ft walked + 20 = 240 ft; 220 / 3.5 + 40 s.
    a, b = Point(300, 0, 0), Point(100, 0, 2)
    assert one(graph, WHEELCHAIR, a, b) == approx((240.0, 220 / CHAIR_SPEED + 40))
    # On foot the elevator is faster here too: 220 / 4.4 + 40 = 90 s, against the stairs
    # twice: 280 + 10 + 10 + 80 = 380 ft walked, 380 / 4.4 + 24 = 110.4 s.
    assert one(graph, FOOT, a, b) == approx((240.0, 220 / FOOT_SPEED + 40))
    # From (50, 0) to (50, 0) two floors up the stairs win: 30 + 10, 2 x 15 ft in 2 x 12 s,
    # 10 + 30: 80 walked + 30 = 110 ft, 80 / 4.4 + 24 = 42.2 s (elevator: 280 walked,
    # 280 / 4.4 + 40 = 103.6 s).
    c, d = Point(50, 0, 0), Point(50, 0, 2)
    assert one(graph, FOOT, c, d) == approx((110.0, 80 / FOOT_SPEED + 24))
    assert one(graph, WHEELCHAIR, c, d) == approx((300.0, 280 / CHAIR_SPEED + 40))


def test_stairs_skipping_a_level_join_the_stops_next_to_each_other():
    # Stairs only on L1 and L3 (positions 0 and 2): one flight of 2 floor steps.
    graph = build(three_floors(stairs_on=("L1", "L3")))
    assert edges_of(graph, STAIRS) == [(0, 2, 2, FOOT)]
    loaded_graph = LoadedGraph(graph, Costs(), FLOOR)
    c, d = Point(50, 0, 0), Point(50, 0, 2)
    # 80 ft walked + 1.5 x 10 x 2 = 30 ft; 80 / 4.4 + 2 x 12 s
    assert one(loaded_graph, FOOT, c, d) == approx((110.0, 80 / FOOT_SPEED + 24))


def test_ramp_and_escalator():
    # Escalator at (20, 10), ramp at (180, -10), corridors (0, 0) -> (200, 0), 1 ft/unit.
    text = svg(
        level(
            "L1",
            1,
            paths(line(0, 0, 200, 0)),
            connector("escalator", "x", 20, 10),
            connector("ramp", "r", 180, -10),
        ),
        level(
            "L2",
            2,
            paths(line(0, 0, 200, 0)),
            connector("escalator", "x", 20, 10),
            connector("ramp", "r", 180, -10),
        ),
        fpu=1,
    )
    graph = build(text)
    assert edges_of(graph, ESCALATOR) == [(0, 1, 1, FOOT)]
    assert edges_of(graph, RAMP) == [(0, 1, 1, BOTH_MODES)]
    loaded_graph = LoadedGraph(graph, Costs(), FLOOR)
    a, b = Point(40, 0, 0), Point(40, 0, 1)
    # Escalator: 20 + 10 + 1.5 x 10 + 10 + 20 = 75 ft, all at walking speed.
    assert one(loaded_graph, FOOT, a, b) == approx(walk(75.0))
    # Ramp (no escalator in a wheelchair): 140 + 10 + 15 + 10 + 140 = 315 ft.
    assert one(loaded_graph, WHEELCHAIR, a, b) == approx(walk(315.0, CHAIR_SPEED))


# ---------------------------------------------------------------- 4. wheelchair access


# 0.5 ft/unit: (0, 0) -> (40, 0), steps (40, 0) -> (60, 0), (60, 0) -> (100, 0), and an
# accessible detour (40, 0) -> (40, 30) -> (60, 30) -> (60, 0).
def steps_map(detour: bool = True) -> str:
    elements = [
        line(0, 0, 40, 0),
        line(40, 0, 60, 0, access="no-wheelchair"),
        line(60, 0, 100, 0),
    ]
    if detour:
        elements.append(polyline("40,0 40,30 60,30 60,0"))
    return svg(level("L1", 1, paths(*elements)), fpu=0.5)


def test_steps_are_foot_only_edges():
    graph = build(steps_map())
    walk_ids = np.flatnonzero(graph.edge_kind == WALK)
    foot_only = [e for e in walk_ids.tolist() if graph.edge_modes[e] == FOOT]
    assert len(foot_only) == 1
    ends = sorted(
        (
            graph.node_xy[graph.edge_u[foot_only[0]]].tolist(),
            graph.node_xy[graph.edge_v[foot_only[0]]].tolist(),
        )
    )
    assert ends == [[40.0, 0.0], [60.0, 0.0]]


def test_foot_uses_the_steps_wheelchair_the_detour():
    graph = loaded(steps_map())
    a, b = Point(10, 0, 0), Point(90, 0, 0)
    # foot: 80 units = 40 ft; wheelchair: 30 + (30 + 20 + 30) + 30 = 140 units = 70 ft
    assert one(graph, FOOT, a, b) == approx(walk(40.0))
    assert one(graph, WHEELCHAIR, a, b) == approx(walk(70.0, CHAIR_SPEED))
    # A waypoint on the steps: on foot it joins them; in a wheelchair it joins the
    # nearest accessible point, (40, 0), 5 units away: 5 + 80 + 30 = 115 units.
    s = Point(45, 0, 0)
    assert one(graph, FOOT, s, b) == approx(walk(22.5))
    assert one(graph, WHEELCHAIR, s, b) == approx(walk(57.5, CHAIR_SPEED))


def test_wheelchair_has_no_way_when_steps_are_the_only_way():
    graph = loaded(steps_map(detour=False))
    a, b = Point(10, 0, 0), Point(90, 0, 0)
    assert one(graph, FOOT, a, b) == approx(walk(40.0))
    assert one(graph, WHEELCHAIR, a, b) is None
    assert one(graph, WHEELCHAIR, b, a) is None
    assert one(graph, WHEELCHAIR, a, Point(30, 0, 0)) == approx(walk(10.0, CHAIR_SPEED))


def test_level_with_only_steps_has_no_wheelchair_waypoints():
    graph = loaded(svg(level("L1", 1, paths(line(0, 0, 10, 0, access="no-wheelchair")))))
    p, q = Point(1, 0, 0), Point(9, 0, 0)
    assert graph.matrix(Profile(WHEELCHAIR), [p, q], [p, q]) == [[None, None], [None, None]]
    assert graph.matrix(Profile(FOOT), [p], [p, q]) == [[(0.0, 0.0), approx(walk(4.0))]]


def test_connectors_link_to_the_nearest_edge_each_mode_may_use():
    # A corridor (0, 0) -> (100, 0) and a no-wheelchair flight (50, 0) -> (50, 40) up to
    # an elevator at (50, 45), on two levels (1 ft/unit). On foot the elevator joins the
    # flight's top, 5 ft away; in a wheelchair the corridor at (50, 0), 45 ft away.
    floor = [
        paths(line(0, 0, 100, 0), line(50, 0, 50, 40, access="no-wheelchair")),
        connector("elevator", "e", 50, 45),
    ]
    graph = build(svg(level("L1", 1, *floor), level("L2", 2, *floor), fpu=1))
    links = np.flatnonzero(graph.edge_kind == LINK).tolist()
    found = sorted(
        (
            int(graph.edge_modes[e]),
            float(graph.edge_length[e]),
            tuple(graph.node_xy[graph.edge_v[e]].tolist()),
        )
        for e in links
    )
    assert found == [(FOOT, 5.0, (50.0, 40.0))] * 2 + [(WHEELCHAIR, 45.0, (50.0, 0.0))] * 2
    loaded_graph = LoadedGraph(graph, Costs(), FLOOR)
    a, b = Point(0, 0, 0), Point(100, 0, 1)
    # foot: 50 + 40 + 5, elevator 10 ft, 5 + 40 + 50 = 190 walked + 10 ft; 190/4.4 + 35 s
    assert one(loaded_graph, FOOT, a, b) == approx((200.0, 190 / FOOT_SPEED + 35))
    # wheelchair: 50 + 45, 10 ft, 45 + 50 = 190 walked + 10 ft; 190/3.5 + 35 s
    assert one(loaded_graph, WHEELCHAIR, a, b) == approx((200.0, 190 / CHAIR_SPEED + 35))


def test_foot_joins_the_nearest_edge_even_when_it_leads_nowhere():
    """The spec's rule taken literally: a waypoint joins the nearest edge the mode may
    use. A stray no-wheelchair segment next to a waypoint captures it on foot, so foot
    cannot reach what a wheelchair (which ignores that segment) reaches."""
    stray = line(40, 20, 60, 20, access="no-wheelchair")
    text = svg(level("L1", 1, paths(line(0, 0, 100, 0), stray)), fpu=1)
    graph = loaded(text)
    a, b = Point(50, 18, 0), Point(0, 0, 0)
    assert one(graph, FOOT, a, b) is None
    # wheelchair: 18 to (50, 0), 50 along
    assert one(graph, WHEELCHAIR, a, b) == approx(walk(68.0, CHAIR_SPEED))


# ---------------------------------------------------------------- 5. disconnected parts


def test_disconnected_wing_and_level_without_paths():
    text = svg(
        level("L1", 1, paths(line(0, 0, 50, 0), line(100, 0, 150, 0))),
        level("L2", 2, '<rect x="0" y="0" width="50" height="50"/>'),
        fpu=1,
    )
    graph = loaded(text)
    p, q, r, s = Point(10, 0, 0), Point(40, 0, 0), Point(110, 0, 0), Point(140, 0, 0)
    z = Point(10, 0, 1)  # a level without walk paths
    points = [p, q, r, s, z]
    for mode, speed in ((FOOT, FOOT_SPEED), (WHEELCHAIR, CHAIR_SPEED)):
        result = graph.matrix(Profile(mode), points, points)
        expected = [
            [(0.0, 0.0), walk(30.0, speed), None, None, None],
            [walk(30.0, speed), (0.0, 0.0), None, None, None],
            [None, None, (0.0, 0.0), walk(30.0, speed), None],
            [None, None, walk(30.0, speed), (0.0, 0.0), None],
            [None, None, None, None, None],  # not even to itself
        ]
        assert result == [[c if c is None else approx(c) for c in row] for row in expected]
    # between the wings, 24 units from (100, 0) and 26 from (50, 0): it joins the east wing
    m = Point(76, 0, 0)
    assert graph.matrix(Profile(FOOT), [m], [p, s]) == [[None, approx(walk(24 + 40))]]


def test_waypoint_on_a_level_that_does_not_exist_gives_none():
    graph = loaded(CORRIDOR)
    far = Point(10, 0, 3)
    assert graph.matrix(Profile(FOOT), [far, A], [far, A]) == [[None, None], [None, (0.0, 0.0)]]


def test_map_without_walk_paths_has_no_graph():
    text = svg(level("L1", 1, '<line x1="0" y1="0" x2="10" y2="0"/>'))
    assert build_walk_graph(parse_unit_map(text)) is None


# ---------------------------------------------------------------- 6. building details


def test_vertices_closer_than_half_a_unit_merge():
    # (10.2, 0.2) is 0.28 units from (10, 0): the second line starts at (10, 0).
    graph = build(svg(level("L1", 1, paths(line(0, 0, 10, 0), line(10.2, 0.2, 10.2, 20))), fpu=1))
    assert graph.node_count == 3
    assert walk_edges(graph) == [((0.0, 0.0), (10.0, 0.0)), ((10.0, 0.0), (10.2, 20.0))]
    feet = 10 + math.hypot(0.2, 20)
    assert one(LoadedGraph(graph, Costs(), FLOOR), FOOT, Point(0, 0, 0), Point(10.2, 20, 0)) == (
        approx(walk(feet))
    )


def test_vertices_0_3_apart_merge_0_6_apart_do_not():
    merged = build(svg(level("L1", 1, paths(line(0, 0, 10, 0), line(10.3, 0, 10.3, 20))), fpu=1))
    apart = build(svg(level("L1", 1, paths(line(0, 0, 10, 0), line(10.6, 0, 10.6, 20))), fpu=1))
    assert (merged.node_count, merged.edge_count) == (3, 2)
    assert (apart.node_count, apart.edge_count) == (4, 2)
    a, b = Point(0, 0, 0), Point(10.3, 20, 0)
    # merged: 10 + hypot(0.3, 20)
    assert one(LoadedGraph(merged, Costs(), FLOOR), FOOT, a, b) == approx(
        walk(10 + math.hypot(0.3, 20))
    )
    assert one(LoadedGraph(apart, Costs(), FLOOR), FOOT, a, Point(10.6, 20, 0)) is None


def test_merging_does_not_chain():
    # (0.4, 0) merges into (0, 0); (0.8, 0) is 0.4 from (0.4, 0), which is no node any
    # more, and 0.8 from (0, 0): it stays apart, so the east line is not connected.
    text = svg(
        level("L1", 1, paths(line(-10, 0, 0, 0), line(0.4, 0, 0.4, 10), line(0.8, 0, 10.8, 0))),
        fpu=1,
    )
    graph = build(text)
    assert graph.node_count == 5
    assert walk_edges(graph) == [
        ((-10.0, 0.0), (0.0, 0.0)),
        ((0.0, 0.0), (0.4, 10.0)),
        ((0.8, 0.0), (10.8, 0.0)),
    ]
    loaded_graph = LoadedGraph(graph, Costs(), FLOOR)
    assert one(loaded_graph, FOOT, Point(-10, 0, 0), Point(0.4, 10, 0)) == approx(
        walk(10 + math.hypot(0.4, 10))
    )
    assert one(loaded_graph, FOOT, Point(-10, 0, 0), Point(10.8, 0, 0)) is None


def test_t_junction_within_half_a_unit_connects():
    # (5, 0.4) is 0.4 from the inside of (0, 0) -> (10, 0): that line splits there.
    graph = build(svg(level("L1", 1, paths(line(0, 0, 10, 0), line(5, 0.4, 5, 10))), fpu=1))
    assert walk_edges(graph) == [
        ((0.0, 0.0), (5.0, 0.4)),
        ((5.0, 0.4), (5.0, 10.0)),
        ((5.0, 0.4), (10.0, 0.0)),
    ]
    loaded_graph = LoadedGraph(graph, Costs(), FLOOR)
    assert one(loaded_graph, FOOT, Point(0, 0, 0), Point(5, 10, 0)) == approx(
        walk(math.hypot(5, 0.4) + 9.6)
    )


def test_t_junction_exactly_on_the_line_and_too_far():
    on = build(svg(level("L1", 1, paths(line(0, 0, 10, 0), line(5, 0, 5, 10))), fpu=0.5))
    assert on.edge_count == 3
    # (0, 0) -> (5, 0) -> (5, 10): 15 units = 7.5 ft
    assert one(LoadedGraph(on, Costs(), FLOOR), FOOT, Point(0, 0, 0), Point(5, 10, 0)) == (
        approx(walk(7.5))
    )
    far = build(svg(level("L1", 1, paths(line(0, 0, 10, 0), line(5, 0.6, 5, 10))), fpu=0.5))
    assert far.edge_count == 2
    assert one(LoadedGraph(far, Costs(), FLOOR), FOOT, Point(0, 0, 0), Point(5, 10, 0)) is None


def test_crossing_lines_connect_at_the_crossing():
    graph = build(svg(level("L1", 1, paths(line(0, 0, 10, 0), line(5, -5, 5, 5))), fpu=1))
    assert (graph.node_count, graph.edge_count) == (5, 4)
    assert [5.0, 0.0] in graph.node_xy.tolist()
    loaded_graph = LoadedGraph(graph, Costs(), FLOOR)
    assert one(loaded_graph, FOOT, Point(0, 0, 0), Point(5, 5, 0)) == approx(walk(10.0))
    assert one(loaded_graph, FOOT, Point(5, -5, 0), Point(10, 0, 0)) == approx(walk(10.0))


def test_diagonals_cross():
    graph = build(svg(level("L1", 1, paths(line(0, 0, 10, 10), line(0, 10, 10, 0))), fpu=1))
    assert (graph.node_count, graph.edge_count) == (5, 4)
    loaded_graph = LoadedGraph(graph, Costs(), FLOOR)
    # (0, 0) -> (5, 5) -> (10, 0): 2 x 5 sqrt(2)
    assert one(loaded_graph, FOOT, Point(0, 0, 0), Point(10, 0, 0)) == approx(
        walk(10 * math.sqrt(2))
    )


def test_collinear_overlaps_share_edges():
    overlap = build(svg(level("L1", 1, paths(line(0, 0, 10, 0), line(5, 0, 15, 0))), fpu=1))
    assert walk_edges(overlap) == [
        ((0.0, 0.0), (5.0, 0.0)),
        ((5.0, 0.0), (10.0, 0.0)),
        ((10.0, 0.0), (15.0, 0.0)),
    ]
    contained = build(svg(level("L1", 1, paths(line(0, 0, 10, 0), line(2, 0, 5, 0))), fpu=1))
    assert sorted(contained.edge_length.tolist()) == [2.0, 3.0, 5.0]
    duplicate = build(svg(level("L1", 1, paths(line(0, 0, 10, 0), line(10, 0, 0, 0))), fpu=1))
    assert (duplicate.node_count, duplicate.edge_count) == (2, 1)
    loaded_graph = LoadedGraph(overlap, Costs(), FLOOR)
    assert one(loaded_graph, FOOT, Point(0, 0, 0), Point(15, 0, 0)) == approx(walk(15.0))


def test_overlap_of_steps_and_corridor_is_accessible():
    """routing/build.py: the shared part of an overlap is usable by wheelchair if any of
    the overlapping elements is."""
    text = svg(
        level("L1", 1, paths(line(0, 0, 10, 0, access="no-wheelchair"), line(5, 0, 15, 0))), fpu=1
    )
    graph = build(text)
    modes = {}
    for e in range(graph.edge_count):
        xs = sorted((graph.node_xy[graph.edge_u[e]][0], graph.node_xy[graph.edge_v[e]][0]))
        modes[tuple(xs)] = int(graph.edge_modes[e])
    assert modes == {(0.0, 5.0): FOOT, (5.0, 10.0): BOTH_MODES, (10.0, 15.0): BOTH_MODES}


def test_graph_bytes_round_trip_and_determinism():
    text = three_floors()
    graph = build(text)
    data = graph_bytes(graph)
    assert graph_bytes(graph) == data
    assert graph_bytes(build(text)) == data  # a rebuild gives the same bytes
    back = graph_from_bytes(data)
    assert back.feet_per_unit == graph.feet_per_unit
    assert back.level_uids == graph.level_uids
    assert back.level_floors == graph.level_floors
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
        original, copy = getattr(graph, name), getattr(back, name)
        assert copy.dtype == original.dtype, name
        assert np.array_equal(copy, original), name
    assert graph_bytes(back) == data
    points = [Point(300, 0, 0), Point(100, 0, 2), Point(50, 3, 1)]
    for mode in (FOOT, WHEELCHAIR):
        assert LoadedGraph(back, Costs(), FLOOR).matrix(
            Profile(mode), points, points
        ) == LoadedGraph(graph, Costs(), FLOOR).matrix(Profile(mode), points, points)


# ---------------------------------------------------------------- level order


def _level(uid: str, index: int | None) -> LevelInfo:
    return LevelInfo(uid=uid, name=uid, tags={}, index=index, line=None)


@pytest.mark.parametrize(
    ("indexes", "expected"),
    [
        ((3, 1, 2), ["b", "c", "a"]),  # every level has a distinct index: by index
        ((-1, 5, 0), ["a", "c", "b"]),
        ((2, 1, 1), ["a", "b", "c"]),  # two share one: document order
        ((2, None, 1), ["a", "b", "c"]),  # one has none: document order
        ((None, None, None), ["a", "b", "c"]),
    ],
)
def test_ordered_levels(indexes, expected):
    levels = [_level(uid, index) for uid, index in zip("abc", indexes, strict=True)]
    assert [level.uid for level in ordered_levels(levels)] == expected


def test_shared_level_index_falls_back_to_document_order_in_the_graph():
    text = svg(
        level("Top", 1, paths(line(0, 0, 50, 0))),
        level("Bottom", 1, paths(line(0, 0, 80, 0))),
        fpu=1,
    )
    graph = build(text)
    assert graph.level_uids == ("Top", "Bottom")
    # position 1 is "Bottom", whose corridor reaches x = 80
    assert one(LoadedGraph(graph, Costs(), FLOOR), FOOT, Point(80, 0, 1), Point(0, 0, 1)) == (
        approx(walk(80.0))
    )


# ---------------------------------------------------------------- 7. the nearest of many
# `routing.closest`, the search behind a nearest route (issue 47): which targets it names
# and when it measures them, the candidate sets a loaded graph keeps, and the start's
# join it hands to the route that follows. The map: one level, 0.5 ft per unit, a
# corridor from (0, 0) to (200, 0) and a branch from its middle up to (100, 100): three
# chains meeting at (100, 0).

SOURCE = Point(10.0, 0.0, 0)
ALONG = Point(30.0, 0.0, 0)  # on the source's chain: 20 units, 10 ft, straight along it
BRANCH = Point(100.0, 50.0, 0)  # 90 + 50 units: 70 ft
FAR_END = Point(150.0, 0.0, 0)  # 140 units: 70 ft, a tie with BRANCH


@pytest.fixture
def corridor() -> LoadedGraph:
    return loaded(svg(level("L", 0, paths(line(0, 0, 200, 0), line(100, 0, 100, 100)))))


def candidates(*points: Point) -> Targets:
    return Targets(tuple(f"t{index}" for index in range(len(points))), points)


def test_a_sole_first_target_is_named_unmeasured(corridor):
    """The search's times: straight along the source's chain to ALONG (10 ft, not the 20
    by the chain's end), by the junction to the others."""
    targets = candidates(BRANCH, FAR_END, ALONG)
    found = closest(corridor, Profile(FOOT), SOURCE, targets)
    assert found is not None
    assert (found.first, found.cells) == ([2], [])
    mode = corridor.modes[FOOT]
    (start,) = mode.joins([SOURCE])
    assert start is not None
    ready = prepared(mode, targets)
    times = first_times(mode, SOURCE, start, targets, ready).tolist()
    assert ready.joined.tolist() == [0, 1, 2]
    expected = [walk(70.0)[1], walk(70.0)[1], walk(10.0)[1]]
    assert times == pytest.approx(expected, rel=1e-12)


def test_targets_that_may_tie_are_measured_as_the_matrix_measures_them(corridor):
    found = closest(corridor, Profile(FOOT), SOURCE, candidates(BRANCH, FAR_END))
    assert found is not None
    assert found.first == [0, 1]
    assert found.cells == [approx(walk(70.0)), approx(walk(70.0))]
    assert found.cells == corridor.matrix(Profile(FOOT), [SOURCE], [BRANCH, FAR_END])[0]


def test_the_source_itself_is_first_at_no_time(corridor):
    found = closest(corridor, Profile(FOOT), SOURCE, candidates(ALONG, SOURCE, BRANCH))
    assert found is not None
    assert (found.first, found.cells) == ([1], [])


def test_a_source_off_every_walk_line_and_targets_off_them(corridor):
    nowhere = Point(10.0, 0.0, 3)  # no such level: joins nothing
    assert closest(corridor, Profile(FOOT), nowhere, candidates(ALONG)) is None
    off = candidates(nowhere, Point(0.0, 0.0, 5))
    found = closest(corridor, Profile(FOOT), SOURCE, off)
    assert found is not None
    assert (found.first, found.cells) == ([], [])


def test_kept_sets_are_bounded_by_their_points_least_recently_used_out(corridor):
    bound = targets_kept(corridor)
    assert bound == corridor.modes[FOOT].joins_kept == 64  # 5 nodes: the least kept
    half, other, third = (
        candidates(*(Point(float(x), y, 0) for x in range(bound // 2))) for y in (0.0, 1.0, 2.0)
    )
    keep_targets(corridor, "half", half)
    keep_targets(corridor, "other", other)
    assert kept_targets(corridor, "half") is half  # now the most recently used
    keep_targets(corridor, "third", third)  # over the bound: "other" goes
    assert kept_targets(corridor, "other") is None
    assert (kept_targets(corridor, "half"), kept_targets(corridor, "third")) == (half, third)
    too_many = candidates(*(Point(float(x), 3.0, 0) for x in range(bound + 1)))
    keep_targets(corridor, "too many", too_many)  # larger than the bound: not kept
    assert kept_targets(corridor, "too many") is None
    assert kept_targets(corridor, "half") is half
    keep_targets(corridor, "half", third)  # kept anew under its key: its old set's points go
    keep_targets(corridor, "other", other)  # "third" goes, least recently used
    kept = [kept_targets(corridor, key) for key in ("half", "third", "other")]
    assert kept == [third, None, other]
    assert kept_targets(loaded(svg(level("L", 0, paths(line(0, 0, 9, 0))))), "half") is None


def joined_afresh(mode: ModeGraph, monkeypatch: pytest.MonkeyPatch) -> list[Point]:
    """The points `mode` joins afresh from now on (not kept, not handed over)."""
    joined: list[Point] = []
    fresh = mode._joins

    def joins(points: Sequence[Point], stop: object) -> list[Join | None]:
        joined.extend(points)
        return fresh(points, None)

    monkeypatch.setattr(mode, "_joins", joins)
    return joined


def test_the_start_is_joined_once_for_the_choice_and_its_route(corridor, monkeypatch):
    """The route after a choice takes the start's join the choice made (a nearest route
    joins its start once, as a plain route does); it is handed over once, not kept."""
    targets = candidates(BRANCH, FAR_END, ALONG)
    closest(corridor, Profile(FOOT), SOURCE, targets)  # the candidates' joins now kept
    joined = joined_afresh(corridor.modes[FOOT], monkeypatch)
    start = Point(20.0, 0.0, 0)
    found = closest(corridor, Profile(FOOT), start, targets)
    assert found is not None and found.first == [2]
    assert joined == [start]
    route = find_route(corridor, Profile(FOOT), start, ALONG)
    assert isinstance(route, Route) and route.feet == pytest.approx(5.0, rel=1e-12)
    assert joined == [start]  # the route took it, and the candidate's was kept
    find_route(corridor, Profile(FOOT), start, ALONG)
    assert joined == [start, start]  # given once: an ad-hoc point is not kept


def test_at_most_a_few_joins_wait_for_their_route(corridor, monkeypatch):
    starts = [Point(float(x), 0.0, 0) for x in range(40, 40 + HANDED_OVER + 2)]
    for start in starts:
        closest(corridor, Profile(FOOT), start, candidates(ALONG))
    mode = corridor.modes[FOOT]
    joined = joined_afresh(mode, monkeypatch)
    mode.joins(starts)
    assert joined == starts[:2]  # the two oldest went; the others waited
