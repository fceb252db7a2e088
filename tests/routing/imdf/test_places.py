"""Locations that are not their unit's point (amenities, occupants' anchors) stand on
their unit's walk lines (issue 48, point 7): joined to the nearest line instead, a walk
from one led away from its way, or through the wall into the unit beside."""

from __future__ import annotations

import math

import pytest
from shapely import box

from routing.imdf.paths import walk_network
from tests.routing.imdf.graphs import door, loaded, metres, room


def test_places_are_reached_straight_and_never_through_the_wall() -> None:
    """A room 6 x 4 on a corridor, its door at its west end. A kiosk in its north-east
    corner and a desk in its south-east one: between them a straight walk; from the
    desk, which stands 0.4 m from the corridor's wall, the corridor is reached through
    the door, not across the wall."""
    spaces = [room("corridor", box(0, -2, 10, 0)), room("shop", box(0, 0, 6, 4), (3.0, 2.0))]
    doors = [door("d", (0.5, 0), (1.4, 0))]
    kiosk, desk = (5.2, 3.2), (5.2, 0.4)
    net = walk_network(spaces, doors, [], ["L0"], places={"shop": [kiosk, desk]})
    ends = {p for line in net.lines for p in line.points}
    assert kiosk in ends and desk in ends
    graph = loaded(net)
    assert metres(graph, kiosk, desk) == pytest.approx(2.8, abs=0.01)
    via_door = math.dist(desk, (0.95, 0.3)) + 0.6 + math.dist((0.95, -0.3), (5.2, -1.0))
    assert metres(graph, desk, (5.2, -1.0)) == pytest.approx(via_door, abs=0.05)


def test_a_place_outside_its_unit_is_left_to_the_nearest_line() -> None:
    """A point drawn outside the unit it names is no terminal of that unit's lines."""
    spaces = [room("shop", box(0, 0, 6, 4), (3.0, 2.0))]
    net = walk_network(spaces, [], [], ["L0"], places={"shop": [(7.0, 2.0)]})
    assert (7.0, 2.0) not in {p for line in net.lines for p in line.points}
    assert net.problems == []
