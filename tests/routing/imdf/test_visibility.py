"""The walk network inside units (routing/imdf/visibility.py) and wide doors
(routing/imdf/doors.py), on geometries built by hand in metres."""

from __future__ import annotations

import math
import time

import pytest
from shapely import LineString, Polygon, box

from routing.imdf.paths import Door, walk_network
from routing.imdf.visibility import network
from tests.routing.imdf.graphs import door, loaded, metres, room

REL = 1e-6


def test_a_wide_door_is_crossed_at_points_between_its_jambs() -> None:
    spaces = [room("west", box(0, 0, 6, 6), (1, 1)), room("east", box(6, 0, 12, 6), (11, 5.5))]
    net = walk_network(spaces, [door("wide", (6, 1.5), (6, 4.5))], [], ["L0"])
    assert net.problems == [] and net.unreachable == [] and net.snaps == []
    # 3 m less 0.3 m at each jamb: 4 points 0.8 m apart, shared by both rooms
    crossing = sorted({p for line in net.lines for p in line.points if p[0] == 6.0})
    assert crossing == [(6.0, 1.8), (6.0, 2.6), (6.0, 3.4), (6.0, 4.2)]
    graph = loaded(net)
    # straight to the point nearest the straight line (which crosses at y = 3.25)
    by_hand = math.dist((1, 1), (6, 3.4)) + math.dist((6, 3.4), (11, 5.5))
    assert metres(graph, (1, 1), (11, 5.5)) == pytest.approx(by_hand, rel=REL)
    # the middle with 0.3 m stubs, as an ordinary door, would be 6 cm longer
    middle = math.dist((1, 1), (5.7, 3)) + 0.6 + math.dist((6.3, 3), (11, 5.5))
    assert by_hand < middle - 0.06


def test_a_door_up_to_2_m_is_crossed_at_its_middle() -> None:
    spaces = [room("west", box(0, 0, 6, 6), (1, 1)), room("east", box(6, 0, 12, 6), (11, 5.5))]
    net = walk_network(spaces, [door("d", (6, 2), (6, 4))], [], ["L0"])
    graph = loaded(net)
    by_hand = math.dist((1, 1), (5.7, 3)) + 0.6 + math.dist((6.3, 3), (11, 5.5))
    assert metres(graph, (1, 1), (11, 5.5)) == pytest.approx(by_hand, rel=REL)


def test_a_pillar_is_passed_at_the_clearance_from_its_corners() -> None:
    pillar = [(9, 4), (11, 4), (11, 6), (9, 6)]
    hall = Polygon([(0, 0), (20, 0), (20, 10), (0, 10)], [pillar])
    spaces = [
        room("hall", hall, (10, 9)),
        room("w", box(-4, 3, 0, 7)),
        room("e", box(20, 3, 24, 7)),
    ]
    doors = [door("dw", (0, 4.5), (0, 5.5)), door("de", (20, 4.5), (20, 5.5))]
    net = walk_network(spaces, doors, [], ["L0"])
    assert net.problems == [] and net.unreachable == []
    graph = loaded(net)
    corners = [(8.7, 6.3), (11.3, 6.3)]  # the pillar grown by 0.3 m, mitred
    by_hand = 0.3 + math.dist((0.3, 5), corners[0]) + 2.6 + math.dist(corners[1], (19.7, 5))
    assert metres(graph, (0, 5), (20, 5)) == pytest.approx(by_hand + 0.3, rel=REL)


def test_only_edges_tangent_at_corners() -> None:
    # an L with 3 terminals: the exact union; west to north only round the corner
    ell = Polygon([(0.3, 0.3), (9.7, 0.3), (9.7, 9.7), (7.3, 9.7), (7.3, 2.7), (0.3, 2.7)])
    nodes, edges = network(ell, [(0.3, 1.5), (8.5, 9.7), (9.7, 1.5)], [None, None, None])
    assert nodes == [(0.3, 1.5), (8.5, 9.7), (9.7, 1.5), (7.3, 2.7)]
    assert edges == [(0, 2), (0, 3), (1, 2), (1, 3)]
    # 16 terminals along its walls: the bounded network; at the corner only edges with
    # both its walls, towards (7.3, 9.7) and (0.3, 2.7), on one side
    terminals = [(0.3 + k, 0.3) for k in range(10)] + [(9.7, 3.0 + k) for k in range(6)]
    nodes, edges = network(ell, terminals, [None] * len(terminals))
    corner = nodes.index((7.3, 2.7))
    at_corner = [b if a == corner else a for a, b in edges if corner in (a, b)]
    assert len(at_corner) >= 2
    for other in at_corner:
        dx, dy = nodes[other][0] - 7.3, nodes[other][1] - 2.7
        up = dx * (9.7 - 2.7) - dy * 0.0  # the wall towards (7.3, 9.7)
        west = dx * 0.0 - dy * (0.3 - 7.3)  # the wall towards (0.3, 2.7)
        assert up * west >= 0, nodes[other]


def test_points_of_one_wide_door_are_not_joined_to_each_other() -> None:
    square = box(0, 0, 4, 4)
    terminals = [(0.0, 1.0), (0.0, 2.0), (0.0, 3.0), (4.0, 2.0)]
    _, edges = network(square, terminals, ["d", "d", "d", None])
    assert edges == [(0, 3), (1, 3), (2, 3)]


def hall_with_pillars(doors_per_side: int) -> tuple[list, list]:
    """A 100 m square hall, a 10 x 10 grid of 1 m pillars, doors all round into rooms."""
    pillars = [
        [(x, y), (x + 1, y), (x + 1, y + 1), (x, y + 1)]
        for x in range(5, 100, 10)
        for y in range(5, 100, 10)
    ]
    spaces = [room("hall", Polygon([(0, 0), (100, 0), (100, 100), (0, 100)], pillars), (50, 50.5))]
    doors = []
    pitch = 100 / doors_per_side
    for k in range(doors_per_side):
        x = pitch * k + pitch / 2
        spaces.append(room(f"s{k:02d}", box(pitch * k, -5, pitch * (k + 1), 0)))
        spaces.append(room(f"n{k:02d}", box(pitch * k, 100, pitch * (k + 1), 105)))
        doors.append(door(f"ds{k:02d}", (x - 0.5, 0), (x + 0.5, 0)))
        doors.append(door(f"dn{k:02d}", (x - 0.5, 100), (x + 0.5, 100)))
    return spaces, doors


@pytest.mark.serial  # the network held to a time: measured on idle cores
def test_a_big_hall_stays_bounded_and_close() -> None:
    spaces, doors = hall_with_pillars(20)
    started = time.perf_counter()
    net = walk_network(spaces, doors, [], ["L0"])
    assert time.perf_counter() - started < 3.0
    assert net.problems == [] and net.unreachable == []
    hall_lines = [line for line in net.lines if all(0 < y < 100 for _, y in line.points)]
    # 41 terminals and 400 pillar corners: 6.5 edges per node (the fan it replaces: 4,313
    # lines, which crossed into 143,217 graph nodes; these 2,845 into 27,555)
    assert len(hall_lines) < 8 * 441
    graph = loaded(net)
    # door to door across the hall, between two columns of pillars (the straight edge is
    # longer than 30 m: the walk is a chain of shorter ones)
    straight = metres(graph, (2.5, 0), (2.5, 100))
    assert straight is not None and 100.0 <= straight < 1.01 * 100.0
    # corner door to corner door through the pillars: within 2% of the straight line
    diagonal = metres(graph, (2.5, 0), (97.5, 100))
    beeline = 0.6 + math.dist((2.5, 0.3), (97.5, 99.7))
    assert diagonal is not None and beeline <= diagonal < 1.02 * beeline


def test_lines_from_a_wide_revolving_doors_points_are_not_for_wheelchairs() -> None:
    spaces = [room("west", box(0, 0, 6, 6), (1, 1)), room("east", box(6, 0, 12, 6), (11, 5.5))]
    revolving = Door("wide", "L0", LineString([(6, 1.5), (6, 4.5)]), True, False)
    net = walk_network(spaces, [revolving], [], ["L0"])
    at_door = [line for line in net.lines if any(x == 6.0 for x, _ in line.points)]
    rest = [line for line in net.lines if line not in at_door]
    assert len(at_door) == 8 and len(rest) == 2  # 4 points, each joined into both rooms
    assert not any(line.wheelchair for line in at_door)
    assert all(line.wheelchair for line in rest)
