"""Costing options on the walk graph (`routing.profile`, issue 50, point 1).

Hand-drawn maps with every time worked out (a penalty per flight and per ride, once per
edge crossed even where the contraction would chain it; the walking speed; exclusion),
generated maps (hypothesis, tests/routing/test_properties.py) and real-looking venues
(Harbour Station, the Exchange, the demo's two buildings; Westport House, its data in
tests/data): with a kind excluded no route takes it, a penalty never makes a route quicker and
moves it off the kind where another way exists, the walking speed scales exactly what is
walked, and E18's cell is the route's distance and time in every profile.

Westport House indoor map data (c) WRLD / eeGeo, CC BY 4.0 (tests/data/README.md).
"""

from __future__ import annotations

import itertools
import math
import random
from functools import cache

import pytest
from hypothesis import given
from hypothesis import strategies as st

from routing.costs import Costs
from routing.matrix import MAX_PROFILES_KEPT, LoadedGraph, Point
from routing.model import DOOR, ELEVATOR, ESCALATOR, FOOT, RAMP, STAIRS, WHEELCHAIR
from routing.profile import Profile
from routing.route import Route, Unreachable, find_route
from tests.routing.test_fixture_maps import (
    CHAIR_SPEED,
    FOOT_SPEED,
    TWO_FLOORS,
    connector,
    level,
    line,
    loaded,
    paths,
    svg,
    three_floors,
)
from tests.routing.test_properties import SETTINGS, build, networks, points_on_network
from tests.venues.stack_maps import StackMap, demo_stack, imdf_stack

KINDS = (STAIRS, ESCALATOR, ELEVATOR, RAMP)
FLOOR = 10.0
BIG = 3600.0  # the largest penalty the API takes


def route(graph: LoadedGraph, profile: Profile, a: Point, b: Point) -> Route:
    found = find_route(graph, profile, a, b)
    assert isinstance(found, Route), found
    return found


def cell(graph: LoadedGraph, profile: Profile, a: Point, b: Point) -> tuple[float, float] | None:
    return graph.matrix(profile, [a], [b])[0][0]


def kinds(found: Route) -> list[int]:
    return [ride.kind for ride in found.rides]


# ---------------------------------------------------------------- the value


def test_a_profile_is_normalised_so_equal_options_are_one_key():
    made = Profile(
        FOOT, None, ((ELEVATOR, 0.0), (STAIRS, 5), (ESCALATOR, 2.5)), frozenset({STAIRS})
    )
    assert made.penalties == ((STAIRS, 5.0), (ESCALATOR, 2.5))
    same = Profile(FOOT, None, ((ESCALATOR, 2.5), (STAIRS, 5.0)), frozenset({STAIRS}))
    assert made == same and hash(made) == hash(same)
    assert made.penalty(STAIRS) == 5.0 and made.penalty(ELEVATOR) == 0.0
    assert Profile(WHEELCHAIR, penalties=((RAMP, 0.0),)).is_plain
    assert not made.is_plain
    assert made.without({STAIRS}) == Profile(FOOT, None, ((STAIRS, 5.0), (ESCALATOR, 2.5)))


# ---------------------------------------------------------------- hand-drawn maps

# TWO_FLOORS: from (60, 0) on L1 to (150, 0) on L2 the stairs take 190 ft walked + 15 ft
# of stairs, 190 / 4.4 + 12 = 55.18 s; the elevator 170 ft walked + 10 ft, 170 / 4.4 + 35 =
# 73.64 s (test_fixture_maps.test_foot_takes_the_faster_stairs_wheelchair_the_elevator).
A, B = Point(60, 0, 0), Point(150, 0, 1)
BY_STAIRS = (205.0, 190 / FOOT_SPEED + 12)
BY_ELEVATOR = (180.0, 170 / FOOT_SPEED + 35)


def test_a_step_penalty_is_added_per_flight_until_the_elevator_is_quicker():
    graph = loaded(TWO_FLOORS)
    small = Profile(FOOT, penalties=((STAIRS, 10.0),))  # 65.18 s: still the stairs
    assert cell(graph, small, A, B) == pytest.approx((BY_STAIRS[0], BY_STAIRS[1] + 10), rel=1e-12)
    assert kinds(route(graph, small, A, B)) == [STAIRS]
    large = Profile(FOOT, penalties=((STAIRS, 30.0),))  # 85.18 s: the elevator's 73.64 wins
    assert cell(graph, large, A, B) == pytest.approx(BY_ELEVATOR, rel=1e-12)
    assert kinds(route(graph, large, A, B)) == [ELEVATOR]


def test_excluded_kinds_are_never_used():
    graph = loaded(TWO_FLOORS)
    no_stairs = Profile(FOOT, excluded=frozenset({STAIRS}))
    assert cell(graph, no_stairs, A, B) == pytest.approx(BY_ELEVATOR, rel=1e-12)
    assert kinds(route(graph, no_stairs, A, B)) == [ELEVATOR]
    neither = Profile(FOOT, excluded=frozenset({STAIRS, ELEVATOR}))
    assert cell(graph, neither, A, B) is None
    assert find_route(graph, neither, A, B) is Unreachable.DISCONNECTED
    assert find_route(graph, neither.without({STAIRS, ELEVATOR}), A, B) == find_route(
        graph, Profile(FOOT), A, B
    )
    # a waypoint's own level is walked as before
    assert cell(graph, neither, A, Point(150, 0, 0)) == pytest.approx((90.0, 90 / FOOT_SPEED))
    # by wheelchair, excluding the elevator leaves nothing (the stairs are foot only)
    chair = Profile(WHEELCHAIR, excluded=frozenset({ELEVATOR}))
    assert find_route(graph, chair, A, B) is Unreachable.DISCONNECTED


def test_the_walking_speed_scales_what_is_walked_not_the_stairs_or_the_elevator():
    graph = loaded(TWO_FLOORS)
    slow = Profile(FOOT, 2.2)  # stairs: 190 / 2.2 + 12 = 98.4 s; elevator 112.3 s
    assert cell(graph, slow, A, B) == pytest.approx((205.0, 190 / 2.2 + 12), rel=1e-12)
    found = route(graph, slow, A, B)
    assert [leg.seconds for leg in found.legs] == pytest.approx(
        [leg.feet / 2.2 for leg in found.legs], rel=1e-12
    )
    assert [ride.seconds for ride in found.rides] == [12.0]


def test_an_elevator_ride_of_two_floors_is_one_use():
    graph = loaded(three_floors())
    a, b = Point(300, 0, 0), Point(100, 0, 2)  # one ride of 2 steps, 220 ft walked
    costed = Profile(WHEELCHAIR, penalties=((ELEVATOR, 5.0),))
    assert cell(graph, costed, a, b) == pytest.approx((240.0, 220 / CHAIR_SPEED + 45), rel=1e-12)
    # the stairs twice, two flights: 2 x (12 + 7) s, 80 ft walked and 30 ft of stairs
    c, d = Point(50, 0, 0), Point(50, 0, 2)
    flights = Profile(FOOT, penalties=((STAIRS, 7.0),))
    assert cell(graph, flights, c, d) == pytest.approx((110.0, 80 / FOOT_SPEED + 38), rel=1e-12)


def ramp_only(levels: int) -> str:
    """Corridors (0, 0) -> (180, 0) ending where a ramp at (180, -10) links to them: one
    chain from the first level's far end to the last's, through the ramp (plain)."""
    return svg(
        *(
            level(f"L{n}", n, paths(line(0, 0, 180, 0)), connector("ramp", "r", 180, -10))
            for n in range(1, levels + 1)
        ),
        fpu=1,
    )


@pytest.mark.parametrize("levels", [2, 3])
def test_a_ramp_penalty_counts_once_per_flight_even_inside_a_chain(levels):
    graph = loaded(ramp_only(levels))
    a, b = Point(40, 0, 0), Point(40, 0, levels - 1)
    # 140 + 10 walked, 15 ft of ramp per floor, 10 + 140 walked: all at walking speed
    feet = 300.0 + 15.0 * (levels - 1)
    assert cell(graph, Profile(WHEELCHAIR), a, b) == pytest.approx((feet, feet / CHAIR_SPEED))
    costed = Profile(WHEELCHAIR, penalties=((RAMP, 100.0),))
    expected = (feet, feet / CHAIR_SPEED + 100.0 * (levels - 1))
    assert cell(graph, costed, a, b) == pytest.approx(expected, rel=1e-12)
    found = route(graph, costed, a, b)
    assert (found.feet, found.seconds) == pytest.approx(expected, rel=1e-12)
    # the same pair on one level: no ramp crossed, no penalty
    assert cell(graph, costed, a, Point(100, 0, 0)) == pytest.approx((60.0, 60 / CHAIR_SPEED))


# ---------------------------------------------------------------- the cache of profiles


def test_profiles_are_built_once_and_the_least_recently_used_goes_first():
    graph = loaded(TWO_FLOORS)
    assert graph.mode_graph(Profile(FOOT)) is graph.modes[FOOT]
    assert graph.mode_graph(Profile(WHEELCHAIR, None, ((RAMP, 0.0),))) is graph.modes[WHEELCHAIR]
    made = [Profile(FOOT, 1.0 + n) for n in range(MAX_PROFILES_KEPT)]
    first = [graph.mode_graph(profile) for profile in made]
    assert [graph.mode_graph(profile) for profile in made] == first  # the same objects
    graph.mode_graph(made[0])  # used again: made[1] is now the least recently used
    graph.mode_graph(Profile(FOOT, 9.0))
    assert graph.mode_graph(made[0]) is first[0]
    assert graph.mode_graph(made[1]) is not first[1]  # dropped, built again
    assert graph.mode_graph(made[1]).speed == 2.0


# ---------------------------------------------------------------- generated maps


@st.composite
def profiles(draw: st.DrawFn, mode: int) -> Profile:
    penalties = draw(
        st.lists(st.tuples(st.sampled_from(KINDS), st.sampled_from([0.0, 5.0, 40.0, BIG])))
    )
    excluded = draw(st.frozensets(st.sampled_from(KINDS), max_size=2))
    speed = draw(st.sampled_from([None, 1.0, 6.5]))
    return Profile(mode, speed, tuple(dict(penalties).items()), excluded)


@SETTINGS
@given(st.data())
def test_on_generated_maps_routes_keep_every_option(data):
    """E18 equals the route; no excluded kind is taken; every leg is walked at the
    profile's speed; the same options without penalties or exclusions are never slower."""
    network = data.draw(networks())
    points = data.draw(points_on_network(network))
    _, loaded_graph = build(network)
    for mode in (FOOT, WHEELCHAIR):
        profile = data.draw(profiles(mode))
        speed = profile.speed or (FOOT_SPEED if mode == FOOT else CHAIR_SPEED)
        unhindered = Profile(mode, profile.speed)
        cells = loaded_graph.matrix(profile, points, points)
        plain = loaded_graph.matrix(unhindered, points, points)
        for (i, a), (j, b) in itertools.product(enumerate(points), repeat=2):
            found = find_route(loaded_graph, profile, a, b)
            if cells[i][j] is None:
                assert isinstance(found, Unreachable), network.svg()
                continue
            assert isinstance(found, Route), (found, network.svg())
            feet, seconds = found.feet, found.seconds
            assert (feet, seconds) == pytest.approx(cells[i][j], rel=1e-9), network.svg()
            assert not set(kinds(found)) & profile.excluded, network.svg()
            for leg in found.legs:
                assert math.isclose(leg.seconds, leg.feet / speed, rel_tol=1e-9), network.svg()
            before = plain[i][j]
            assert before is not None and seconds >= before[1] - 1e-9, network.svg()


# ---------------------------------------------------------------- real-looking venues


def _venue(stack: StackMap) -> tuple[LoadedGraph, list]:
    """The stack map's graph (built once per process, tests/venues/stack_maps.py) and a
    seeded sample of 24 of its locations."""
    graph = stack.graph
    loaded_graph = LoadedGraph(graph, Costs(), FLOOR)
    levels = {floor: position for position, floor in enumerate(graph.level_floors)}
    points = list(dict.fromkeys(Point(x, y, levels[floor]) for x, y, floor in stack.spots))
    return loaded_graph, random.Random(len(points)).sample(points, min(24, len(points)))


@cache
def venues() -> dict[str, tuple[LoadedGraph, list[Point]]]:
    return {
        "Harbour Station": _venue(imdf_stack("Harbour Station")),
        "the Exchange": _venue(imdf_stack("the Exchange")),
        "demo building 1": _venue(demo_stack(1)),
        "demo building 2": _venue(demo_stack(2)),
        "Westport House": _venue(imdf_stack("Westport House")),
    }


@pytest.mark.parametrize("name", ["Harbour Station", "the Exchange", "demo building 1"])
def test_on_venues_an_exclusion_is_kept_and_a_penalty_moves_the_route_off_the_kind(name):
    """Per connector kind the venue has: excluded, no route takes it and none is quicker
    than before; penalised by BIG, none is quicker, and some route that took it takes
    another kind (or none) instead; and the pairs it disconnects are joined without it."""
    graph, points = venues()[name]
    pairs = [(a, b) for a, b in itertools.permutations(points, 2) if a.level != b.level]
    plain = {pair: find_route(graph, Profile(FOOT), *pair) for pair in pairs}
    used = {kind for found in plain.values() if isinstance(found, Route) for kind in kinds(found)}
    assert used & {STAIRS, ELEVATOR}, name
    for kind in sorted(used - {DOOR}):
        moved = 0
        for profile in (
            Profile(FOOT, excluded=frozenset({kind})),
            Profile(FOOT, penalties=((kind, BIG),)),
        ):
            for pair, before in plain.items():
                found = find_route(graph, profile, *pair)
                if isinstance(found, Unreachable):
                    assert profile.excluded, (name, kind, pair)
                    assert isinstance(before, Route)  # only the exclusion stands in its way
                    continue
                assert isinstance(before, Route)
                assert found.seconds >= before.seconds - 1e-9, (name, kind, pair)
                if profile.excluded:
                    assert kind not in kinds(found), (name, kind, pair)
                elif kind in kinds(before) and kind not in kinds(found):
                    moved += 1
        assert moved > 0, (name, kind)


@pytest.mark.parametrize("name", ["Harbour Station", "the Exchange", "demo building 2"])
def test_on_venues_the_walking_speed_scales_time_exactly(name):
    """Legs (all walked) take feet / speed; a route without rides takes the same path at
    any speed, its time scaled by the ratio of the speeds."""
    graph, points = venues()[name]
    slow, fast = Profile(FOOT, 2.0), Profile(FOOT, 7.5)
    for a, b in itertools.permutations(points[:12], 2):
        walked, hurried = (find_route(graph, profile, a, b) for profile in (slow, fast))
        if not isinstance(walked, Route) or not isinstance(hurried, Route):
            assert walked == hurried  # the same reason: the speed joins nothing
            continue
        for speed, each in ((2.0, walked), (7.5, hurried)):
            for leg in each.legs:
                assert math.isclose(leg.seconds * speed, leg.feet, rel_tol=1e-6)
        if not walked.rides and not hurried.rides and walked.seconds > 0:
            assert math.isclose(hurried.feet, walked.feet, rel_tol=1e-9)
            assert math.isclose(hurried.seconds * 7.5 / (walked.seconds * 2.0), 1.0, rel_tol=1e-6)


def test_on_venues_e18_equals_the_route_with_options():
    """On every venue, for options of each kind, E18's cells are the routes' distance
    and time for every pair of a sample of its locations: 10 of them, 6 on Westport
    House (a route there searches a graph 23 times the Exchange's: 84% of the test's CPU
    with 10; its 6 stand on four levels, and 44 of their cells are pairs no route joins)."""
    options = [
        Profile(FOOT, 5.0, ((STAIRS, 20.0), (ELEVATOR, 45.0))),
        Profile(FOOT, None, ((ESCALATOR, BIG),), frozenset({STAIRS})),
        Profile(WHEELCHAIR, 1.2, ((ELEVATOR, 10.0),)),
        Profile(FOOT, 3.0, (), frozenset({ELEVATOR, ESCALATOR})),
    ]
    checked = 0
    for name, (graph, points) in venues().items():
        sample = points[: 6 if name == "Westport House" else 10]
        for profile in options:
            cells = graph.matrix(profile, sample, sample)
            for (i, a), (j, b) in itertools.product(enumerate(sample), repeat=2):
                found = find_route(graph, profile, a, b)
                if cells[i][j] is None:
                    assert isinstance(found, Unreachable), (name, profile, a, b)
                    continue
                assert isinstance(found, Route), (name, profile, a, b)
                assert (found.feet, found.seconds) == pytest.approx(cells[i][j], rel=1e-9)
                checked += 1
    assert checked > 1000
