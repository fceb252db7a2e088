"""Levels' heights in floors (`data-level-height`, docs/svg-parsing.md "Level heights";
docs/routing.md): a connector's floor steps, a ride's floors and the straight line
between levels count heights, so two levels of one height (an IMDF venue's two levels of
one ordinal) are one floor above the level under them, not two. A drawing without
heights counts positions in level order, exactly as before; graphs stored before
heights load and route as they did.

The maps are drawn with the helpers of test_fixture_maps (1 ft per canvas unit, so a
coordinate is feet); every distance and time is worked out by hand."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import orjson
import pytest

from parsing.svg import parse_unit_map
from resolvers.wayfinding.directions import _route
from resolvers.wayfinding.instructions import Words
from routing.costs import Costs
from routing.levels import level_records, stored_heights
from routing.maneuvers import route_with_maneuvers
from routing.matrix import LoadedGraph, Point, euclidean_matrix
from routing.model import (
    ARRAYS,
    ELEVATOR,
    FOOT,
    FORMAT,
    STAIRS,
    WHEELCHAIR,
    WalkGraph,
    graph_bytes,
    graph_from_bytes,
)
from routing.profile import Profile
from routing.route import Route, find_route
from tests.routing.test_fixture_maps import (
    BOTH_MODES,
    CHAIR_SPEED,
    FLOOR,
    FOOT_SPEED,
    approx,
    build,
    connector,
    edges_of,
    line,
    one,
    paths,
    svg,
    three_floors,
)

NAMES = ["Ground", "Concourse", "Terrace", "Upper"]
WORDS = Words(None, None, lambda position: NAMES[position])


def station(heights: tuple[int | None, ...] = (0, 1, 1, 2)) -> str:
    """Four levels in level order (data-level-index 0-3) of the given heights, each a
    corridor from (0, 0) to (100, 0); an elevator at its east end on every level; stairs
    `a` at (50, 0) from Ground to Terrace and stairs `b` there from Terrace to Upper, two
    connectors meeting at one point (one ride, as IMDF stairs drawn per pair of floors)."""

    def floor(position: int) -> str:
        height = heights[position]
        given = "" if height is None else f' data-level-height="{height}"'
        stairs = [
            connector("stairs", name, 50, 0)
            for name, on in (("a", (0, 2)), ("b", (2, 3)))
            if position in on
        ]
        return (
            f'<g id="{NAMES[position]}" data-level="{NAMES[position]}" '
            f'data-tag-floor="f{position}" data-level-index="{position}"{given}>'
            f"{paths(line(0, 0, 100, 0))}{''.join(stairs)}"
            f"{connector('elevator', 'e', 100, 0)}</g>"
        )

    return svg(*(floor(position) for position in range(4)), fpu=1)


def route(graph: LoadedGraph, mode: int, start: Point, end: Point) -> tuple[Route, list[str]]:
    """The route, and its steps as the service tells them."""
    found = route_with_maneuvers(graph, Profile(mode), start, end)
    assert isinstance(found, tuple), found
    answer = _route(graph, *found, WORDS)
    return found[0], answer["steps"]


def test_connector_steps_are_the_heights_apart():
    graph = build(station())
    assert graph.level_heights == (0, 1, 1, 2)
    assert [graph.height(position) for position in range(4)] == [0, 1, 1, 2]
    # Position 0 to 2 is one floor, 0 to 3 two; the Concourse and the Terrace are one
    # height, so the elevator between them climbs nothing (its wait only).
    assert edges_of(graph, ELEVATOR) == [
        (0, 1, 1, BOTH_MODES),
        (0, 2, 1, BOTH_MODES),
        (0, 3, 2, BOTH_MODES),
        (1, 2, 0, BOTH_MODES),
        (1, 3, 1, BOTH_MODES),
        (2, 3, 1, BOTH_MODES),
    ]
    assert edges_of(graph, STAIRS) == [(0, 2, 1, FOOT), (2, 3, 1, FOOT)]


def test_a_ride_counts_floors_by_height_and_costs_them():
    graph = LoadedGraph(build(station()), Costs(), FLOOR)
    # Wheelchair, Ground (0, 0) to Terrace (0, 0): 100 ft to the elevator, one floor up
    # (10 ft, 30 + 5 s), 100 ft back. By position it was 2 floors (20 ft, 40 s).
    start, terrace = Point(0, 0, 0), Point(0, 0, 2)
    chair, steps = route(graph, WHEELCHAIR, start, terrace)
    assert [(r.kind, r.from_level, r.to_level, r.floors) for r in chair.rides] == [
        (ELEVATOR, 0, 2, 1)
    ]
    assert (chair.rides[0].feet, chair.rides[0].seconds) == (10.0, 35.0)
    assert steps[1] == "Walk 100 ft, then take the elevator up to Terrace"
    expected = (210.0, 200 / CHAIR_SPEED + 35)
    assert (chair.feet, chair.seconds) == approx(expected)
    assert one(graph, WHEELCHAIR, start, terrace) == approx(expected)
    # On foot to Upper (0, 0): stairs a then b, one ride of 2 floors (by position 3):
    # 50 + 2 x 15 + 50 = 130 ft, 100 / 4.4 + 2 x 12 s; the elevator takes 200 / 4.4 + 40.
    upper = Point(0, 0, 3)
    foot, steps = route(graph, FOOT, start, upper)
    assert [(r.kind, r.connector_id, r.from_level, r.to_level, r.floors) for r in foot.rides] == [
        (STAIRS, "a", 0, 3, 2)
    ]
    assert steps[1] == "Walk 50 ft, then take the stairs up 2 floors to Upper"
    expected = (130.0, 100 / FOOT_SPEED + 24)
    assert (foot.feet, foot.seconds) == approx(expected)
    assert one(graph, FOOT, start, upper) == approx(expected)
    # And down again, told the other way.
    back, steps = route(graph, FOOT, upper, start)
    assert [(r.from_level, r.to_level, r.rise, r.floors) for r in back.rides] == [(3, 0, -2, 2)]
    assert steps[1] == "Walk 50 ft, then take the stairs down 2 floors to Ground"


@pytest.mark.parametrize(
    ("heights", "expected"),
    [
        ((0, 1, 1, 2), (0, 1, 1, 2)),
        ((-1, 0, 0, 4), (-1, 0, 0, 4)),  # a basement, and a gap of unmapped floors
        ((0, 1, None, 2), (0, 1, 2, 3)),  # one level without: positions
        ((0, 2, 1, 3), (0, 1, 2, 3)),  # going down in level order: positions
        ((0, 1, 1, 1001), (0, 1, 2, 3)),  # beyond 1000 floors is no height: positions
        ((None, None, None, None), (0, 1, 2, 3)),
    ],
)
def test_heights_apply_only_when_every_level_has_a_sensible_one(heights, expected):
    graph = build(station(heights))
    assert graph.level_heights == expected
    ground_to_upper = [e for e in edges_of(graph, ELEVATOR) if e[:2] == (0, 3)]
    assert ground_to_upper == [(0, 3, expected[3] - expected[0], BOTH_MODES)]
    parsed = parse_unit_map(station(heights))
    records = level_records(parsed.levels)
    assert [r.get("height") for r in records] == (
        list(heights) if expected == heights else [None] * 4
    )
    assert stored_heights(records) == (list(heights) if expected == heights else None)


def test_a_map_without_heights_routes_exactly_as_before():
    """test_fixture_maps' three floors (no heights): positions 0, 1, 2 are its heights, and
    its worked-out route is unchanged; drawn with consecutive heights it is the same."""
    plain = build(three_floors())
    assert plain.level_heights == (0, 1, 2)
    graph = LoadedGraph(plain, Costs(), FLOOR)
    a, b = Point(300, 0, 0), Point(100, 0, 2)
    assert one(graph, WHEELCHAIR, a, b) == approx((240.0, 220 / CHAIR_SPEED + 40))
    assert one(graph, FOOT, Point(50, 0, 0), Point(50, 0, 2)) == approx(
        (110.0, 80 / FOOT_SPEED + 24)
    )
    found = find_route(graph, Profile(WHEELCHAIR), a, b)
    assert isinstance(found, Route)
    assert [(r.from_level, r.to_level, r.climb, r.floors) for r in found.rides] == [(0, 2, 2, 2)]
    heights = three_floors().replace(
        'data-level-index="1"', 'data-level-index="1" data-level-height="7"'
    )
    heights = heights.replace('data-level-index="2"', 'data-level-index="2" data-level-height="8"')
    heights = heights.replace('data-level-index="3"', 'data-level-index="3" data-level-height="9"')
    drawn = build(heights)
    assert drawn.level_heights == (7, 8, 9)
    for name in ARRAYS:
        assert np.array_equal(getattr(drawn, name), getattr(plain, name)), name
    points = [a, b, Point(50, 0, 1)]
    for mode in (FOOT, WHEELCHAIR):
        assert LoadedGraph(drawn, Costs(), FLOOR).matrix(Profile(mode), points, points) == (
            graph.matrix(Profile(mode), points, points)
        )


def format_2_bytes(graph: WalkGraph) -> bytes:
    """The graph as format 2 stored it (graph_bytes before level heights)."""
    meta = {
        "format": 2,
        "feet_per_unit": graph.feet_per_unit,
        "level_uids": list(graph.level_uids),
        "level_floors": list(graph.level_floors),
        "stop_ids": {str(node): name for node, name in sorted(graph.stop_ids.items())},
    }
    buffer = io.BytesIO()
    arrays = {name: getattr(graph, name) for name in ARRAYS}
    np.savez(buffer, meta=np.frombuffer(orjson.dumps(meta), dtype=np.uint8), **arrays)
    return buffer.getvalue()


def stored_meta(data: bytes) -> dict[str, Any]:
    with np.load(io.BytesIO(data), allow_pickle=False) as stored:
        return dict(orjson.loads(stored["meta"].tobytes()))


def test_a_graph_stored_in_format_2_loads_and_routes_as_before():
    built = build(three_floors())
    old = graph_from_bytes(format_2_bytes(built))
    assert old.level_heights is None
    assert [old.height(position) for position in range(3)] == [0, 1, 2]
    points = [Point(300, 0, 0), Point(100, 0, 2), Point(50, 0, 1), Point(50, 0, 2)]
    for mode in (FOOT, WHEELCHAIR):
        assert LoadedGraph(old, Costs(), FLOOR).matrix(
            Profile(mode), points, points
        ) == LoadedGraph(built, Costs(), FLOOR).matrix(Profile(mode), points, points)
    found = find_route(LoadedGraph(old, Costs(), FLOOR), Profile(FOOT), points[0], points[1])
    assert isinstance(found, Route)
    assert [(r.climb, r.floors) for r in found.rides] == [(2, 2)]
    # Stored again, it is written in the current format, positions as its heights.
    assert FORMAT == 3
    assert stored_meta(graph_bytes(old))["level_heights"] == [0, 1, 2]


def test_heights_are_stored_and_checked():
    graph = build(station())
    data = graph_bytes(graph)
    meta = stored_meta(data)
    assert (meta["format"], meta["level_heights"]) == (3, [0, 1, 1, 2])
    assert graph_from_bytes(data).level_heights == (0, 1, 1, 2)
    for broken in ([0, 1, 1], [0, 1, 1, 2.5], [0, 1, 1, "2"]):
        with np.load(io.BytesIO(data), allow_pickle=False) as stored:
            arrays = {name: stored[name] for name in ARRAYS}
        buffer = io.BytesIO()
        bad = orjson.dumps({**meta, "level_heights": broken})
        np.savez(buffer, meta=np.frombuffer(bad, dtype=np.uint8), **arrays)
        with pytest.raises(ValueError, match="level_heights"):
            graph_from_bytes(buffer.getvalue())


def test_straight_lines_climb_heights():
    """Euclidean E18 between levels: the floor height per floor of height, 10 ft from
    Ground to either level of height 1 (by position the Terrace was 20 ft), and the 3-D
    line: 30 ft flat (40 units of 0.75 ft), two floors of 20 ft up, 50 ft."""
    points = [Point(0, 0, position) for position in range(4)]
    by_height = euclidean_matrix(points[:1], points, 1.0, FLOOR, FOOT_SPEED, [0, 1, 1, 2])
    assert by_height == [[(0.0, 0.0), *[(feet, feet / FOOT_SPEED) for feet in (10, 10, 20)]]]
    by_position = euclidean_matrix(points[:1], points, 1.0, FLOOR, FOOT_SPEED)
    assert by_position == [[(feet, feet / FOOT_SPEED) for feet in (0, 10, 20, 30)]]
    slope = euclidean_matrix(
        [Point(0, 0, 0)], [Point(40, 0, 3)], 0.75, 20.0, FOOT_SPEED, [0, 1, 1, 2]
    )
    assert slope == [[approx((50.0, 50.0 / FOOT_SPEED))]]
