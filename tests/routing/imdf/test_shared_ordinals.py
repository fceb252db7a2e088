"""Levels sharing an ordinal in the generated walk network (issue 48, point 1): connectors
pair levels of adjacent ordinals, never two levels of one ordinal by stairs; openings
and shared edges between levels of one ordinal become `door` connectors."""

from __future__ import annotations

import shapely

from routing.imdf.connectors import connectors
from routing.imdf.model import Door, Space
from routing.imdf.paths import walk_network

LEVELS = ["L0", "C1", "T1", "P2"]
ORDINALS = {"L0": 0.0, "C1": 1.0, "T1": 1.0, "P2": 2.0}


def space(
    ident: str,
    level: str,
    box: tuple[float, float, float, float],
    kind: str | None = None,
    wheelchair: bool = True,
) -> Space:
    return Space(ident, level, shapely.box(*box), True, wheelchair, kind, None)


def stops_by_connector(stops: list) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for stop in stops:
        found.setdefault(stop.connector_id, []).append(stop.level)
    return found


def test_each_level_of_an_ordinal_meets_the_levels_above_and_below_it():
    units = [
        space("a-l0", "L0", (0, 0, 4, 4), "stairs"),
        space("a-c1", "C1", (0, 0, 4, 4), "stairs"),
        space("a-p2", "P2", (0, 0, 4, 4), "stairs"),
        space("b-l0", "L0", (20, 0, 24, 4), "elevator"),
        space("b-t1", "T1", (20, 0, 24, 4), "elevator"),
        space("b-p2", "P2", (20, 0, 24, 4), "elevator"),
    ]
    stops, problems = connectors(units, units, [], LEVELS, ORDINALS)
    assert stops_by_connector(stops) == {"a-c1": ["L0", "C1", "P2"], "b-l0": ["L0", "T1", "P2"]}
    assert [kind for kind, _ in problems] == ["connector-inferred", "connector-inferred"]
    # By position alone (the old rule) T1 met P2 only, and C1 met L0 only.
    old, _ = connectors(units, units, [], LEVELS)
    assert stops_by_connector(old) == {"a-c1": ["L0", "C1"], "b-p2": ["T1", "P2"]}


def test_a_stack_over_both_levels_of_an_ordinal_is_split_into_pairs():
    """Stairs below that overlap stairs on both ordinal-1 levels: two connectors, one to
    each, so that the walk graph never joins the two ordinal-1 levels by stairs."""
    units = [
        space("s-l0", "L0", (0, 0, 4, 4), "stairs"),
        space("s-c1", "C1", (0, 0, 2.5, 4), "stairs"),
        space("s-t1", "T1", (1.5, 0, 4, 4), "stairs"),
    ]
    stops, _ = connectors(units, units, [], LEVELS, ORDINALS)
    assert stops_by_connector(stops) == {"s-l0~s-c1": ["L0", "C1"], "s-l0~s-t1": ["L0", "T1"]}


def test_ordinals_with_a_gap_are_still_adjacent():
    units = [space("x0", "L0", (0, 0, 4, 4), "stairs"), space("x2", "P2", (0, 0, 4, 4), "stairs")]
    stops, _ = connectors(units, units, [], ["L0", "P2"], {"L0": 0.0, "P2": 2.0})
    assert stops_by_connector(stops) == {"x0": ["L0", "P2"]}


def halls(gap: float = 0.0) -> list[Space]:
    """Two halls of ordinal 1 side by side along x = 10 (the second `gap` further east)."""
    return [space("hall-c", "C1", (0, 0, 10, 4)), space("hall-t", "T1", (10 + gap, 0, 20, 4))]


def test_an_opening_between_two_levels_of_one_ordinal_is_a_door_connector():
    door = Door("door-1", "C1", shapely.LineString([(10, 1.5), (10, 2.5)]), True, True)
    net = walk_network(halls(), [door], [], LEVELS, ordinals=ORDINALS)
    assert [(s.connector_id, s.kind, s.level, s.point) for s in net.stops] == [
        ("door-1", "door", "C1", (10.0, 2.0)),
        ("door-1", "door", "T1", (10.0, 2.0)),
    ]
    assert net.level_joins == [("door-1", "hall-c", "hall-t")]
    assert net.unreachable == [] and net.problems == []
    # Without ordinals (every level its own height) the door has one side: an entrance.
    alone = walk_network(halls(), [door], [], LEVELS)
    assert (alone.stops, alone.level_joins, alone.unreachable) == ([], [], ["hall-t"])


def test_a_door_a_wheelchair_cannot_pass_is_not_joined_and_is_reported():
    door = Door("turnstile", "C1", shapely.LineString([(10, 1.5), (10, 2.5)]), True, False)
    net = walk_network(halls(), [door], [], LEVELS, ordinals=ORDINALS)
    assert (net.stops, net.level_joins) == ([], [])
    assert net.problems == [
        (
            "level-door-not-step-free",
            "opening turnstile joins units hall-c and hall-t on levels C1 and T1 (one "
            "ordinal), but a wheelchair cannot pass it: not joined",
        )
    ]


def test_levels_without_an_opening_between_them_are_joined_at_their_shared_edge():
    net = walk_network(halls(gap=0.2), [], [], LEVELS, ordinals=ORDINALS)
    assert [(s.connector_id, s.kind, s.level) for s in net.stops] == [
        ("seam:hall-c:hall-t", "door", "C1"),
        ("seam:hall-c:hall-t", "door", "T1"),
    ]
    [(kind, message)] = net.problems
    assert kind == "levels-joined-at-edge"
    assert message.startswith("units hall-c and hall-t run within 0.5 m of each other for ")
    # An edge farther apart than the snap tolerance is no way through.
    apart = walk_network(halls(gap=0.6), [], [], LEVELS, ordinals=ORDINALS)
    assert (apart.stops, apart.level_joins) == ([], [])
