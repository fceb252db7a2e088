"""Steps at connectors and the landmarks they name (issue 48, point 5 and point 3).

Routes found on small drawn maps (the helpers of test_fixture_maps, 1 ft per canvas
unit, so a coordinate is feet) and told as the service tells them (`instructions`):
one ride over several floors is one step with its floor count, no leg of 0 ft between
connectors that meet, a turn within 15 ft before a connector is told with it, two turns
in a row never name one landmark, and a generated name only where no other is in reach.
The rules themselves are checked by tests/routing/maneuver_rules.py on every route here.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import pytest

from resolvers.wayfinding.directions import _route
from resolvers.wayfinding.distances import rounded
from resolvers.wayfinding.instructions import Words, instruction
from routing.maneuvers import CONNECTOR_TURN_FT, Place, Places, plan_maneuvers
from routing.maneuvers import route_with_maneuvers as planned
from routing.matrix import LoadedGraph, Point
from routing.model import FOOT, STAIRS, WHEELCHAIR
from routing.profile import Profile
from routing.route import RIDE_GAP_FT, Leg, Ride, Route, Unreachable
from routing.vocabulary import Modifier
from tests.routing.maneuver_rules import check_route
from tests.routing.test_fixture_maps import connector, level, loaded, paths, polyline, svg

NAMES = ["Ground", "Level 1", "Level 2", "Level 3"]
WORDS = Words(None, None, lambda position: NAMES[position])


def tower(stairs: list[str], *, gap: float = 0.0) -> str:
    """Four floors, each a corridor east from (0, 0) to (100, 0), north to (100, -40)
    and east to (160, -40). Stairs at (100, 0): one connector per pair of floors, their
    stops at one point of the walk line (as an IMDF relationship per pair of floors gives
    them), a later pair's stop on its lower floor `gap` ft further east; an elevator at
    (160, -40) on every floor. `stairs`: the pairs drawn ("01", "12", "23")."""

    def floor(index: int) -> str:
        def x(pair: str) -> float:  # a later pair's stop on its lower floor: `gap` east
            return 100 + (gap if pair == f"{index}{index + 1}" != stairs[0] else 0)

        stops = [
            connector("stairs", f"s{pair}", x(pair), 0) for pair in stairs if str(index) in pair
        ]
        line = paths(polyline("0,0 100,0 100,-40 160,-40"))
        return level(f"L{index}", index, line, *stops, connector("elevator", "e", 160, -40))

    return svg(*(floor(index) for index in range(4)), fpu=1)


def told(graph: LoadedGraph, mode: int, start: Point, end: Point) -> dict[str, Any]:
    """The route as REST answers it (directions._route), its rules checked."""
    found = planned(graph, Profile(mode), start, end)
    assert not isinstance(found, Unreachable), found
    route, maneuvers = found
    answer = dict(_route(graph, route, maneuvers, WORDS))
    check_route(answer, graph.graph.feet_per_unit, graph.graph.level_uids)
    cell = graph.matrix(Profile(mode), [start], [end])[0][0]
    assert cell is not None
    assert (answer["distance"], answer["time"]) == (rounded(cell[0]), rounded(cell[1]))
    return answer


def rides(answer: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """(kind, id, from level, to level) of each connector taken."""
    return [
        (c["kind"], c["id"], c["from_level_uid"], c["to_level_uid"])
        for leg in answer["legs"]
        if (c := leg["connector"]) is not None
    ]


# ---------------------------------------------------------------- one ride, one step


@pytest.mark.parametrize(
    ("start", "end", "ride", "step"),
    [
        (0, 2, ("s01", "L0", "L2"), "take the stairs up 2 floors to Level 2"),
        (0, 3, ("s01", "L0", "L3"), "take the stairs up 3 floors to Level 3"),
        (3, 1, ("s23", "L3", "L1"), "take the stairs down 2 floors to Level 1"),
        (1, 0, ("s01", "L1", "L0"), "take the stairs down to Ground"),
    ],
)
def test_stairs_drawn_per_pair_of_floors_are_one_ride_and_one_step(start, end, ride, step):
    """From (0, 0) on one floor to (0, 0) on another: 100 ft east to the stairs, the
    stairs (15 ft a floor), 100 ft back. The flights meet at one point of each floor in
    between, where nothing is walked: one ride, one leg each side, no 0 ft leg."""
    answer = told(loaded(tower(["01", "12", "23"])), FOOT, Point(0, 0, start), Point(0, 0, end))
    floors = abs(end - start)
    assert rides(answer) == [("stairs", *ride)]
    assert [leg["distance"] for leg in answer["legs"]] == [100.0, 100.0]
    assert answer["legs"][0]["connector"]["distance"] == 15.0 * floors
    assert answer["steps"] == [
        "Start at your location",
        f"Walk 100 ft, then {step}",
        f"Walk 100 ft, then arrive at your destination on {NAMES[end]}",
    ]


@pytest.mark.parametrize(
    ("start", "end", "step"),
    [
        (0, 2, "take the elevator up 2 floors to Level 2"),
        (0, 3, "take the elevator up 3 floors to Level 3"),
        (3, 0, "take the elevator down 3 floors to Ground"),
        (2, 3, "take the elevator up to Level 3"),
    ],
)
def test_an_elevator_over_several_floors_is_one_step(start, end, step):
    """By wheelchair (no stairs): 100 ft east, left 40 ft, right 60 ft to the elevator, one
    ride (10 ft a floor), then the same way back: the turns told on both floors."""
    answer = told(
        loaded(tower(["01", "12", "23"])), WHEELCHAIR, Point(0, 0, start), Point(0, 0, end)
    )
    assert [kind for kind, *_ in rides(answer)] == ["elevator"]
    assert answer["legs"][0]["connector"]["distance"] == 10.0 * abs(end - start)
    assert answer["steps"] == [
        "Start at your location",
        "Walk 100 ft, then turn left",
        "Walk 40 ft, then turn right",
        f"Walk 60 ft, then {step}",
        "Walk 60 ft, then turn left",
        "Walk 40 ft, then turn right",
        f"Walk 100 ft, then arrive at your destination on {NAMES[end]}",
    ]


@pytest.mark.parametrize("gap", [1.5, 1.99])
def test_stairs_a_step_apart_are_one_ride(gap):
    """The upper flight's stops `gap` ft further east (a step across the landing, which
    a text in metres would not tell: under 1.64 ft is 0 m): still one ride; the step is
    counted in it, so the legs and the ride still add up to the route."""
    assert RIDE_GAP_FT == 2.0
    answer = told(loaded(tower(["01", "12"], gap=gap)), FOOT, Point(0, 0, 0), Point(0, 0, 2))
    assert rides(answer) == [("stairs", "s01", "L0", "L2")]
    assert answer["legs"][0]["connector"]["distance"] == round(30 + gap, 2)
    assert answer["steps"][1] == "Walk 100 ft, then take the stairs up 2 floors to Level 2"


def test_stairs_a_walk_apart_are_two_rides():
    """2 ft apart (RIDE_GAP_FT): a walk a text tells in feet and in metres."""
    graph = loaded(tower(["01", "12"], gap=2.0))
    answer = told(graph, FOOT, Point(0, 0, 0), Point(0, 0, 2))
    assert rides(answer) == [("stairs", "s01", "L0", "L1"), ("stairs", "s12", "L1", "L2")]
    assert answer["legs"][1]["distance"] == 2.0
    assert answer["steps"][1:3] == [
        "Walk 100 ft, then take the stairs up to Level 1",
        "Walk 2 ft, then take the stairs up to Level 2",
    ]
    found = planned(graph, Profile(FOOT), Point(0, 0, 0), Point(0, 0, 2))
    assert not isinstance(found, Unreachable)
    metres = Words(None, None, WORDS.level_name, "metric")
    second = instruction(found[1][2], found[0], metres)
    assert second == "Walk 1 m, then take the stairs up to Level 2"


# ---------------------------------------------------------------- turns before a connector


def stairs_route(points: list[tuple[float, float]]) -> Route:
    """`points` on the ground floor to the stairs at their end, up to Level 1, 40 ft east."""
    walked = sum(math.dist(a, b) for a, b in itertools.pairwise(points))
    end = points[-1]
    after = [end, (end[0] + 40, end[1])]
    ride = Ride(STAIRS, "s", end, 0, 1, 15.0, 12.0)
    return Route(
        walked + 55,
        walked / 4 + 22,
        [Leg(0, points, walked, walked / 4), Leg(1, after, 40.0, 10.0)],
        [ride],
    )


@pytest.mark.parametrize(
    ("before", "steps"),
    [
        (
            10.0,
            ["Walk 110 ft, then take the stairs up to Level 1"],
        ),
        (
            15.0,
            ["Walk 115 ft, then take the stairs up to Level 1"],
        ),
        (
            16.0,
            ["Walk 100 ft, then turn right", "Walk 16 ft, then take the stairs up to Level 1"],
        ),
    ],
)
def test_a_turn_within_15_ft_before_a_connector_is_told_with_it(before, steps):
    """East 100 ft, a right angle, `before` ft south to the stairs: within
    CONNECTOR_TURN_FT the turn is no step of its own."""
    assert CONNECTOR_TURN_FT == 15.0
    route = stairs_route([(0, 0), (100, 0), (100, before)])
    maneuvers = plan_maneuvers(route, 1.0)
    texts = [instruction(m, route, WORDS) for m in maneuvers]
    assert texts == [
        "Start at your location",
        *steps,
        "Walk 40 ft, then arrive at your destination on Level 1",
    ]
    lift = next(m for m in maneuvers if m.type == "connector")
    assert (lift.bearing_before, lift.bearing_after) == (180, 90)  # the last 10 ft: south


def test_the_issues_stairs_read_as_two_steps():
    """Issue 48's example, drawn: east 60 ft past "Stairs 103", a jog 8 ft north and 13 ft
    east to the stairs, which run per pair of floors to Level 2. It read "Walk 60 ft, then
    turn left at Stairs 103" / "Walk 8 ft, then turn right at Stairs 103" / "Walk 13 ft,
    then take the stairs up to Level 1" / "Take the stairs up to Level 2" (a 0 ft leg on
    Level 1). Now the jog's second turn, 13 ft before the stairs, is told with them, and
    the two flights are one ride."""

    def floor(index: int) -> str:
        stops = [
            connector("stairs", f"s{pair}", 73, -8) for pair in ("01", "12") if str(index) in pair
        ]
        return level(f"L{index}", index, paths(polyline("0,0 60,0 60,-8 121,-8")), *stops)

    graph = loaded(svg(*(floor(index) for index in range(3)), fpu=1))
    stairs_103 = Place("loc-103", "u-103", "Stairs 103", 0, 77, -14)
    places = Places([stairs_103, Place("loc-a", None, "Atrium", 2, 100, -14)], 30.0)
    found = planned(graph, Profile(FOOT), Point(0, 0, 0), Point(121, -8, 2), places)
    assert not isinstance(found, Unreachable)
    route, maneuvers = found
    assert [instruction(m, route, WORDS) for m in maneuvers] == [
        "Start at your location",
        "Walk 60 ft, then turn left at Stairs 103",
        "Walk 21 ft, then take the stairs up 2 floors to Level 2",
        "Walk 48 ft, then arrive at your destination on Level 2",
    ]
    check_route(dict(_route(graph, route, maneuvers, WORDS)), 1.0, graph.graph.level_uids)


# ---------------------------------------------------------------- landmarks


def jog_route(north: float = 30.0) -> Route:
    """East 60 ft, `north` ft north, east 60 ft: a left turn at (60, 0), a right at (60,
    -north); 30 ft apart by default, so that both are steps of their own."""
    points = [(0.0, 0.0), (60.0, 0.0), (60.0, -north), (120.0, -north)]
    feet = 120.0 + north
    return Route(feet, feet / 4, [Leg(0, points, feet, feet / 4)], [])


def landmarks(places: list[Place], route: Route | None = None) -> list[str | None]:
    """The landmark named at each turn."""
    found = plan_maneuvers(route or jog_route(), 1.0, Places(places, 30.0))
    return [m.landmark.name if m.landmark else None for m in found if m.type == "turn"]


def test_two_turns_in_a_row_never_name_one_landmark():
    """The gym is within reach of both turns of the jog (ahead of the first, beside the
    second): the first names it, the second the next place a person would name (the café
    ahead of it), else nothing."""
    gym = Place("loc-gym", None, "Fitness Center", 0, 62, -15)
    cafe = Place("loc-cafe", None, "Harbour Café", 0, 70, -45)
    assert landmarks([gym, cafe]) == ["Fitness Center", "Harbour Café"]
    assert landmarks([gym]) == ["Fitness Center", None]
    route = jog_route()
    texts = [instruction(m, route, WORDS) for m in plan_maneuvers(route, 1.0, Places([gym], 30.0))]
    assert texts == [
        "Start at your location",
        "Walk 60 ft, then turn left at Fitness Center",
        "Walk 30 ft, then turn right",
        "Walk 60 ft, then arrive at your destination on Ground",
    ]


def test_a_turn_within_30_ft_after_another_is_told_with_it():
    """An 8 ft jog is one step, "turn left, then turn right" (issue 66, point 8): its
    second turn is the first's `then`, with its own bearings and modifier."""
    gym = Place("loc-gym", None, "Fitness Center", 0, 66, -4)
    route = jog_route(8.0)
    found = plan_maneuvers(route, 1.0, Places([gym], 30.0))
    assert [instruction(m, route, WORDS) for m in found] == [
        "Start at your location",
        "Walk 60 ft, then turn left at Fitness Center, then turn right",
        "Walk 68 ft, then arrive at your destination on Ground",
    ]
    turn = found[1]
    assert (turn.modifier, turn.bearing_before, turn.bearing_after) == (Modifier.LEFT, 90, 0)
    assert [(t.modifier, t.bearing_before, t.bearing_after, t.point_index) for t in turn.then] == [
        (Modifier.RIGHT, 0, 90, 2)
    ]


def test_a_generated_name_only_where_no_other_is_in_reach():
    """At the jog's first turn: "Room 12" (generated) 5 ft ahead, the Pharmacy 20 ft
    behind; the Pharmacy is named. Without it, Room 12 is (a name is better than none);
    a place beyond 30 ft is never named."""
    room = Place("loc-room", "u-room", "Room 12", 0, 64, 3, generated=True)
    pharmacy = Place("loc-ph", None, "Pharmacy", 0, 45, 12)
    far = Place("loc-far", None, "Bookshop", 0, 60, 40)
    route = Route(100.0, 25.0, [Leg(0, [(0.0, 0.0), (60.0, 0.0), (60.0, -40.0)], 100.0, 25.0)], [])
    assert landmarks([room, pharmacy, far], route) == ["Pharmacy"]
    assert landmarks([room, far], route) == ["Room 12"]
    assert landmarks([far], route) == [None]
