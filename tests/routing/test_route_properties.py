"""Properties of directions (`routing.route`) on the generated maps of test_properties.

For any pair of points and either mode, the route is the route E18 measures and its
geometry adds up: its distance and time equal the distance matrix's cell, each leg's
polyline is as long as the leg's distance, legs and rides sum to the whole, legs meet
the rides between them, and the route starts and ends at the waypoints. Its maneuvers
keep the rules of tests/routing/maneuver_rules.py.
"""

from __future__ import annotations

import math
import warnings

from hypothesis import given
from hypothesis import strategies as st

from resolvers.wayfinding.directions import _route
from resolvers.wayfinding.instructions import Words
from routing.closest import CLOSEST_SLACK, Closest, Targets, closest, first_times, prepared
from routing.maneuvers import route_with_maneuvers
from routing.matrix import Point
from routing.model import ELEVATOR, FOOT, RAMP, STAIRS, WHEELCHAIR
from routing.profile import Profile
from routing.route import Route, Unreachable, find_route, polyline_feet
from routing.stopping import UNREACHED
from tests.routing.maneuver_rules import check_route as check_rules
from tests.routing.test_properties import (
    MODES,
    SETTINGS,
    Network,
    Stop,
    Walk,
    any_networks,
    build,
    free_points,
    networks,
    points_on_network,
)


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-6)


def check_route(route: Route, start: Point, end: Point, feet_per_unit: float, mode: int) -> None:
    assert len(route.rides) == len(route.legs) - 1
    assert route.legs[0].level == start.level and route.legs[-1].level == end.level
    assert route.legs[0].points[0] == (start.x, start.y)
    assert route.legs[-1].points[-1] == (end.x, end.y)
    for leg in route.legs:
        assert close(polyline_feet(leg.points, feet_per_unit), leg.feet), leg
    for before, ride, after in zip(route.legs, route.rides, route.legs[1:], strict=False):
        assert before.points[-1] == ride.at
        assert (before.level, after.level) == (ride.from_level, ride.to_level)
        assert ride.from_level != ride.to_level
        if mode == WHEELCHAIR:
            assert ride.kind in (ELEVATOR, RAMP), ride
    parts = [*route.legs, *route.rides]
    assert close(sum(part.feet for part in parts), route.feet)
    assert close(sum(part.seconds for part in parts), route.seconds)


@SETTINGS
@given(st.data())
def test_a_route_is_what_the_matrix_measures(data):
    network = data.draw(any_networks())
    points = data.draw(free_points(len(network.walks)))
    graph, loaded = build(network)
    for mode in MODES:
        cells = loaded.matrix(Profile(mode), points, points)
        for i, start in enumerate(points):
            for j, end in enumerate(points):
                found = find_route(loaded, Profile(mode), start, end)
                cell = cells[i][j]
                if cell is None:
                    assert isinstance(found, Unreachable), (found, network.svg())
                    continue
                assert isinstance(found, Route), (found, cell, start, end, network.svg())
                assert close(found.feet, cell[0]) and close(found.seconds, cell[1])
                check_route(found, start, end, graph.feet_per_unit, mode)


@SETTINGS
@given(st.data())
def test_routes_between_floors_name_their_connectors(data):
    network = data.draw(networks())
    points = data.draw(points_on_network(network))
    graph, loaded = build(network)
    for mode in MODES:
        for start in points:
            for end in points:
                found = find_route(loaded, Profile(mode), start, end)
                if isinstance(found, Unreachable):
                    continue
                check_route(found, start, end, graph.feet_per_unit, mode)
                for ride in found.rides:
                    assert ride.connector_id is not None
                    if ride.kind == STAIRS:
                        assert mode == FOOT


@SETTINGS
@given(st.data())
def test_maneuvers_keep_the_rules_on_generated_maps(data):
    """On the generated maps of every connector kind, often between levels, both modes:
    the route as REST answers it keeps the rules of tests/routing/maneuver_rules.py,
    those at connectors included (no leg under 2 ft between rides of one kind and way,
    no turn within 15 ft before a connector), and says each ride's floors in one step."""
    network = data.draw(networks())
    points = data.draw(points_on_network(network))
    graph, loaded = build(network)
    words = Words(None, None, lambda level: f"Floor {level}")
    for mode in MODES:
        for start in points:
            for end in points:
                found = route_with_maneuvers(loaded, Profile(mode), start, end)
                if isinstance(found, Unreachable):
                    continue
                route, maneuvers = found
                answer = _route(loaded, route, maneuvers, words)
                check_rules(answer, graph.feet_per_unit, graph.level_uids)
                assert all(ride.floors >= 1 for ride in route.rides)
                rides = [m for m in answer["maneuvers"] if m["type"] == "connector"]
                for m, ride in zip(rides, route.rides, strict=True):
                    floors = f"{ride.floors} floors " if ride.floors > 1 else ""
                    assert m["instruction"].endswith(f" {floors}to Floor {ride.to_level}")


def test_why_there_is_no_route():
    _, loaded = build(_two_levels_without_connector())
    on_0, on_1 = Point(1, 1, 0), Point(1, 1, 1)
    assert find_route(loaded, Profile(FOOT), on_0, on_1) is Unreachable.DISCONNECTED


def test_no_route_warns_of_nothing_even_after_the_filters_were_put_back():
    """igraph warns `Couldn't reach some vertices` for a target it cannot reach: an answer
    (no route), not news for the server's output (issue 63: 514 lines in one run). A
    `warnings.catch_warnings` ending on another thread (shapely's `is_valid`) puts back the
    filters it saw, without ours; the next search installs it again."""
    _, loaded = build(_two_levels_without_connector())
    on_0, on_1 = Point(1, 1, 0), Point(1, 1, 1)
    with warnings.catch_warnings(record=True) as shown:
        warnings.resetwarnings()  # no filter left, not pytest's either
        warnings.simplefilter("always")
        for _ in range(3):
            assert find_route(loaded, Profile(FOOT), on_0, on_1) is Unreachable.DISCONNECTED
    assert [str(w.message) for w in shown if UNREACHED in str(w.message)] == []
    assert find_route(loaded, Profile(FOOT), Point(1, 1, 2), on_1) is Unreachable.START_OFF_GRAPH
    assert find_route(loaded, Profile(FOOT), on_0, Point(1, 1, 2)) is Unreachable.END_OFF_GRAPH


def _two_levels_without_connector() -> Network:
    line = Walk(((0, 1), (4, 1)), True, "line")
    return Network(1.0, [[line], [line], []], [[], [], []], [0, 1, 2], [0, 1, 2])


def test_a_leg_ends_exactly_where_its_connector_stands():
    """Found by hypothesis: stairs at x 0.1 joined to a line ending at 0.4 and one at
    0.0. Interpolating to the chain's last node gave 0.09999999999999998 for the leg's
    end, where the ride starts at 0.1; whole chain positions are nodes' own points."""
    stairs = [Stop("stairs", "c0", 0.1, 0.0)]  # type: ignore[arg-type]  # a float x
    network = Network(
        0.5,
        [
            [],
            [Walk(((0.0, 0.0), (0.0, 0.5)), True, "line")],
            [Walk(((0.9, 0.0), (0.4, 0.0)), True, "line")],
        ],
        [stairs, stairs, stairs],
        [0, 1, 2],
        [0, 1, 2],
    )
    graph, loaded = build(network)
    one, two = Point(0.0, 0.0, 1), Point(0.0, 0.0, 2)
    for start, end in ((one, two), (two, one)):
        found = find_route(loaded, Profile(FOOT), start, end)
        assert isinstance(found, Route)
        assert [ride.at for ride in found.rides] == [(0.1, 0.0)]
        assert found.legs[0].points[-1] == (0.1, 0.0)
        check_route(found, start, end, graph.feet_per_unit, FOOT)


@SETTINGS
@given(st.data())
def test_the_closest_targets_are_the_matrix_rows_least(data):
    """`closest` (one search on the cached graph, paths only for ties) names exactly the
    targets whose time is within CLOSEST_SLACK of the least of the matrix's row, with the
    matrix's cells when it names several; its search's time of every target is the
    matrix's; the joins it keeps answer as fresh ones do, even once the kept ones
    overflow (issue 47, nearest)."""
    network = data.draw(any_networks())
    points = data.draw(free_points(len(network.walks)))
    source, targets = points[0], points[1:] or points
    _, loaded = build(network)
    for mode in MODES:
        (row,) = loaded.matrix(Profile(mode), [source], targets)
        candidates = Targets(tuple(str(i) for i in range(len(targets))), tuple(targets))
        found = closest(loaded, Profile(mode), source, candidates)
        if loaded.matrix(Profile(mode), [source], [source])[0][0] is None:
            assert found is None
            continue
        assert found is not None
        graph = loaded.modes[mode]
        (start,) = graph.joins([source])
        assert start is not None
        ready = prepared(graph, candidates)
        searched = [math.inf] * len(targets)
        if ready.columns:
            joined_times = first_times(graph, source, start, candidates, ready).tolist()
            for index, time in zip(ready.joined.tolist(), joined_times, strict=True):
                searched[index] = time
        for cell, time in zip(row, searched, strict=True):
            assert time == math.inf if cell is None else close(time, cell[1])
        times = [cell[1] for cell in row if cell is not None]
        if not times:
            assert found == Closest([], [])
            continue
        least = min(times)
        first = {index for index, cell in enumerate(row) if cell and close(cell[1], least)}
        assert first <= set(found.first) and len(found.first) == len(set(found.first))
        # Within the slack, or beyond it (up to float sums in another order).
        for index, cell in enumerate(row):
            if index in found.first:
                assert cell is not None and cell[1] <= least + CLOSEST_SLACK + 1e-9
            elif cell is not None:
                assert cell[1] > least + CLOSEST_SLACK - 1e-9
        if len(found.first) == 1:  # first whatever its cell: not measured
            assert found.cells == []
        else:
            for index, cell in zip(found.first, found.cells, strict=True):
                assert cell is not None and row[index] is not None
                assert close(cell[0], row[index][0]) and close(cell[1], row[index][1])
        graph.joins_kept = 2  # every later call overflows it
        assert graph.joins(targets, keep=targets) == graph._joins(targets, None)
        assert graph.joins(targets, keep=targets) == graph._joins(targets, None)
