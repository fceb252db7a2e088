"""Walk paths generated from IMDF rooms and doors (routing/imdf/paths.py).

Geometries are built by hand in metres. Distances are measured the way the importer
will use the lines: written as a `paths` layer at 0.05 m per canvas unit, parsed by
`parse_unit_map`, built by `build_walk_graph` and answered by `LoadedGraph.matrix`.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence

import pytest
import shapely
from shapely import LineString, Polygon, box

from parsing.svg import parse_unit_map
from routing.build import build_walk_graph
from routing.costs import Costs
from routing.imdf.paths import (
    Door,
    Space,
    Stop,
    Traversal,
    WalkLine,
    WalkNetwork,
    unit_point,
    walk_network,
)
from routing.matrix import LoadedGraph, Point
from routing.model import FOOT, WHEELCHAIR
from routing.profile import Profile

SCALE = 20.0  # canvas units per metre (0.05 m per unit, as the importer draws)
FOOT_M = 0.3048
FLOOR_FT = 10.0
REL = 1e-6


def room(ident: str, shape: Polygon, level: str = "L0", **kw: object) -> Space:
    values: dict = {"walkable": True, "wheelchair": True, "kind": None, "point": None}
    values.update(kw)
    return Space(ident, level, shape, **values)


def door(
    ident: str,
    a: tuple[float, float],
    b: tuple[float, float],
    level: str = "L0",
    walkable: bool = True,
    wheelchair: bool = True,
) -> Door:
    return Door(ident, level, LineString([a, b]), walkable, wheelchair)


def svg(net: WalkNetwork, levels: Sequence[str]) -> str:
    body = []
    for index, level in enumerate(levels):
        lines = "".join(
            '<polyline points="{}"{}/>'.format(
                " ".join(f"{x * SCALE:.6f},{y * SCALE:.6f}" for x, y in line.points),
                "" if line.wheelchair else ' data-access="no-wheelchair"',
            )
            for line in net.lines
            if line.level == level
        )
        stops = "".join(
            f'<rect x="{s.point[0] * SCALE - 1}" y="{s.point[1] * SCALE - 1}" width="2" '
            f'height="2" data-connector="{s.kind}" data-connector-id="{s.connector_id}"/>'
            for s in net.stops
            if s.level == level
        )
        body.append(
            f'<g id="{level}" data-level="{level}" data-level-index="{index}">'
            f'<g data-layer="paths">{lines}</g>{stops}</g>'
        )
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100" '
        f'data-feet-per-unit="{1 / SCALE / FOOT_M!r}">{"".join(body)}</svg>'
    )


def loaded(net: WalkNetwork, levels: Sequence[str]) -> LoadedGraph:
    return LoadedGraph(build_walk_graph(parse_unit_map(svg(net, levels))), Costs(), FLOOR_FT)


def at(x: float, y: float, level: int = 0) -> Point:
    return Point(x * SCALE, y * SCALE, level)


def metres(graph: LoadedGraph, a: Point, b: Point, mode: int = FOOT) -> float | None:
    cell = graph.matrix(Profile(mode), [a], [b])[0][0]
    return None if cell is None else cell[0] * FOOT_M


def geometry(lines: Sequence[WalkLine]) -> shapely.Geometry:
    return shapely.union_all([LineString(line.points) for line in lines])


def owners(lines: Sequence[WalkLine], spaces: Sequence[Space]) -> list[str | None]:
    """The unit that covers each line (None for a door segment across a wall gap)."""
    found: list[str | None] = []
    loose = [(s, s.shape.buffer(1e-6)) for s in spaces]
    for line in lines:
        geom = LineString(line.points)
        ids = [s.id for s, shape in loose if s.level == line.level and shape.covers(geom)]
        assert len(ids) <= 1, (line, ids)
        found.append(ids[0] if ids else None)
    return found


def owner(line: WalkLine, spaces: Sequence[Space]) -> str | None:
    return owners([line], spaces)[0]


def assert_apart(net: WalkNetwork, spaces: Sequence[Space], doors: Sequence[Door]) -> None:
    """Lines of different units stay 5 cm apart except within 5 cm of door points."""
    by_unit: dict[str | None, list[WalkLine]] = {}
    for line, unit in zip(net.lines, owners(net.lines, spaces), strict=True):
        by_unit.setdefault(unit, []).append(line)
    openings = shapely.union_all([d.line for d in doors]).buffer(0.6)
    door_points = shapely.union_all(
        [
            shapely.Point(p).buffer(0.05)
            for line in net.lines
            for p in line.points
            if openings.contains(shapely.Point(p))
        ]
    )
    units = sorted(u for u in by_unit if u is not None)
    kept = [geometry(by_unit[u]).difference(door_points) for u in units]
    tree = shapely.STRtree(kept)
    for i, near in zip(*tree.query(kept, predicate="dwithin", distance=0.05), strict=True):
        assert i == near, (units[i], units[near], kept[i].distance(kept[near]))


# ---------------------------------------------------------------- a straight corridor


def straight() -> tuple[list[Space], list[Door]]:
    spaces = [
        room("corridor", box(0, 0, 20, 3)),
        room("r1", box(0, 3, 5, 8)),
        room("r2", box(15, -5, 20, 0)),
    ]
    doors = [door("d1", (2, 3), (3, 3)), door("d2", (17, 0), (18, 0))]
    return spaces, doors


def test_straight_corridor_door_to_door() -> None:
    spaces, doors = straight()
    net = walk_network(spaces, doors, [], ["L0"])
    assert net.unreachable == [] and net.snaps == [] and net.problems == []
    graph = loaded(net, ["L0"])
    # stub 0.3 into the corridor, straight across its inset, stub 0.3 out
    expected = 0.3 + math.hypot(17.5 - 2.5, 2.7 - 0.3) + 0.3
    assert metres(graph, at(2.5, 3), at(17.5, 0)) == pytest.approx(expected, rel=REL)
    # from r1's chosen point (its centroid) to its door: 2.5 m straight down
    assert unit_point(spaces[1]) == (2.5, 5.5)
    assert metres(graph, at(2.5, 5.5), at(2.5, 3)) == pytest.approx(2.5, rel=REL)
    # room to room through the corridor
    assert metres(graph, at(2.5, 5.5), at(17.5, -2.5)) == pytest.approx(expected + 5.0, rel=REL)
    assert all(line.wheelchair for line in net.lines)
    assert_apart(net, spaces, doors)


def test_deterministic_whatever_the_input_order() -> None:
    spaces, doors = straight()
    first = walk_network(spaces, doors, [], ["L0"])
    again = walk_network(list(reversed(spaces)), list(reversed(doors)), [], ["L0"])
    assert first == again


# ---------------------------------------------------------------- an L-shaped corridor


def l_shaped() -> tuple[list[Space], list[Door]]:
    spaces = [
        room("corridor", Polygon([(0, 0), (10, 0), (10, 10), (7, 10), (7, 3), (0, 3)])),
        room("west", box(-4, 0, 0, 3)),
        room("north", box(7, 10, 10, 14)),
    ]
    doors = [door("dw", (0, 1), (0, 2)), door("dn", (8, 10), (9, 10))]
    return spaces, doors


def test_l_corridor_goes_around_the_inner_corner_at_margin() -> None:
    spaces, doors = l_shaped()
    net = walk_network(spaces, doors, [], ["L0"])
    assert net.problems == [] and net.unreachable == []
    for line in net.lines:  # every line inside its unit, none across the inner wall
        assert owner(line, spaces) is not None, line
    graph = loaded(net, ["L0"])
    corner = (7.3, 2.7)  # the inner corner (7, 3) inset by 0.3 from both walls
    expected = 0.3 + math.dist((0.3, 1.5), corner) + math.dist(corner, (8.5, 9.7)) + 0.3
    assert metres(graph, at(0, 1.5), at(8.5, 10)) == pytest.approx(expected, rel=REL)
    # the straight line through the wall would be shorter: the route is not it
    assert expected > math.dist((0, 1.5), (8.5, 10)) + 0.5
    assert_apart(net, spaces, doors)


def test_margin_is_a_parameter() -> None:
    spaces, doors = l_shaped()
    graph = loaded(walk_network(spaces, doors, [], ["L0"], margin=0.5), ["L0"])
    corner = (7.5, 2.5)
    expected = 0.5 + math.dist((0.5, 1.5), corner) + math.dist(corner, (8.5, 9.5)) + 0.5
    assert metres(graph, at(0, 1.5), at(8.5, 10)) == pytest.approx(expected, rel=REL)


def test_narrow_unit_uses_a_smaller_margin() -> None:
    # a 0.4 m wide passage: 0.3 m leaves nothing, 0.15 m leaves a 0.1 m wide inset
    spaces = [
        room("a", box(-3, 0, 0, 3)),
        room("passage", box(0, 1, 6, 1.4)),
        room("b", box(6, 0, 9, 3)),
    ]
    doors = [door("da", (0, 1.05), (0, 1.35)), door("db", (6, 1.05), (6, 1.35))]
    net = walk_network(spaces, doors, [], ["L0"])
    assert net.problems == [] and net.unreachable == []
    graph = loaded(net, ["L0"])
    assert metres(graph, at(0, 1.2), at(6, 1.2)) == pytest.approx(6.0, rel=REL)
    assert_apart(net, spaces, doors)


# ---------------------------------------------------------------- a locked door


def test_locked_door_leaves_an_island() -> None:
    spaces = [
        room("corridor", box(0, 0, 20, 3)),
        room("office", box(5, 3, 10, 8)),
        room("open", box(10, 3, 15, 8)),
    ]
    doors = [door("locked", (7, 3), (8, 3), walkable=False), door("d", (12, 3), (13, 3))]
    net = walk_network(spaces, doors, [], ["L0"])
    assert net.unreachable == ["office"]
    assert net.problems == []
    office = [line for line in net.lines if owner(line, spaces) == "office"]
    corridor = [line for line in net.lines if owner(line, spaces) == "corridor"]
    assert office and corridor
    assert geometry(office).distance(geometry(corridor)) > 0.05
    # nothing reaches the locked door's point from either side
    assert geometry(net.lines).distance(shapely.Point(7.5, 3)) > 0.25
    graph = loaded(net, ["L0"])
    assert unit_point(spaces[1]) == (7.5, 5.5)
    assert metres(graph, at(7.5, 5.5), at(12.5, 3)) is None
    assert metres(graph, at(12.5, 5.5), at(12.5, 3)) == pytest.approx(2.5, rel=REL)
    assert_apart(net, spaces, doors)


# ---------------------------------------------------------------- snapping


def test_door_in_a_wall_gap_is_snapped_and_reported() -> None:
    spaces = [room("corridor", box(0, 0, 20, 3)), room("room", box(0, 3.6, 5, 8.6))]
    doors = [door("gap", (2, 3.3), (3, 3.3)), door("far", (12, 5), (13, 5))]
    net = walk_network(spaces, doors, [], ["L0"])
    assert [(d, u, round(m, 9)) for d, u, m in net.snaps] == [
        ("gap", "corridor", 0.3),
        ("gap", "room", 0.3),
    ]
    assert net.problems == [
        ("door-without-unit", "opening far is more than 0.5 m from any walkable unit")
    ]
    assert net.unreachable == []
    door_segments = [line for line in net.lines if owner(line, spaces) is None]
    assert [line.points for line in door_segments] == [((2.5, 3.6), (2.5, 3.0))]
    graph = loaded(net, ["L0"])
    # the room's centre (2.5, 6.1) to the corridor's door point: 2.5 + 0.6 across the wall
    assert metres(graph, at(2.5, 6.1), at(2.5, 3)) == pytest.approx(3.1, rel=REL)
    assert_apart(net, spaces, doors)


def test_snap_tolerance_is_a_parameter() -> None:
    spaces = [room("corridor", box(0, 0, 20, 3)), room("room", box(0, 3.6, 5, 8.6))]
    doors = [door("gap", (2, 3.3), (3, 3.3))]
    net = walk_network(spaces, doors, [], ["L0"], snap_tolerance=0.2)
    assert net.snaps == [] and net.unreachable == ["corridor", "room"]
    assert [kind for kind, _ in net.problems] == ["door-without-unit"]


def test_door_beside_a_partition_joins_only_its_own_rooms() -> None:
    # the door's midpoint is 0.45 m from the next room's wall, along the door
    spaces = [
        room("corridor", box(0, 0, 20, 3)),
        room("a", box(0, 3, 4, 8)),
        room("b", box(4, 3, 8, 8)),
    ]
    doors = [door("da", (3.1, 3), (4.0, 3)), door("db", (6, 3), (7, 3))]
    net = walk_network(spaces, doors, [], ["L0"])
    assert net.snaps == [] and net.unreachable == [] and net.problems == []
    graph = loaded(net, ["L0"])
    centre_b = unit_point(spaces[2])
    # from a's door into b: through the corridor, not straight through the partition
    direct = 0.3 + math.dist((3.55, 3.3), (4.3, 3.3))
    assert metres(graph, at(3.55, 3), at(*centre_b)) > direct + 1.0
    assert_apart(net, spaces, doors)


# ---------------------------------------------------------------- between levels


def two_levels() -> tuple[list[Space], list[Door], list[Traversal]]:
    spaces: list[Space] = []
    doors: list[Door] = []
    for n in (0, 1):
        level = f"L{n}"
        spaces += [
            room(f"c{n}", box(0, 0, 10, 3), level),
            room(f"s{n}", box(0, 3, 3, 6), level, wheelchair=False, kind="stairs"),
            room(f"e{n}", box(5, 3, 7, 5), level, kind="elevator"),
        ]
        doors += [door(f"ds{n}", (1, 3), (2, 3), level), door(f"de{n}", (5.5, 3), (6.5, 3), level)]
    return spaces, doors, [Traversal("lift", "elevator", ("e0", "e1"))]


def test_two_levels_stairs_inferred_elevator_from_its_relationship() -> None:
    spaces, doors, traversals = two_levels()
    net = walk_network(spaces, doors, traversals, ["L0", "L1"])
    assert net.stops == [
        Stop("lift", "elevator", "L0", (6.0, 4.0), "e0"),
        Stop("lift", "elevator", "L1", (6.0, 4.0), "e1"),
        Stop("s0", "stairs", "L0", (1.5, 4.5), "s0"),  # inferred: its first unit's id
        Stop("s0", "stairs", "L1", (1.5, 4.5), "s1"),
    ]
    assert net.problems == [
        (
            "connector-inferred",
            "stairs s0: units s0, s1 overlap on adjacent levels and no relationship joins them",
        ),
    ]
    for line in net.lines:
        unit = owner(line, spaces)
        assert line.wheelchair == (unit is not None and not unit.startswith("s")), line
    graph = loaded(net, ["L0", "L1"])
    # on foot the stairs are quicker: 1.5 m to the stairs' point, 15 ft, 1.5 m back
    foot = metres(graph, at(1.5, 3, 0), at(1.5, 3, 1))
    assert foot == pytest.approx(3.0 + 15 * FOOT_M, rel=REL)
    # a wheelchair takes the elevator: 0.3 + 4.5 + 0.3 + 1.0 to its point, 10 ft, back
    wheel = metres(graph, at(1.5, 3, 0), at(1.5, 3, 1), WHEELCHAIR)
    assert wheel == pytest.approx(2 * 6.1 + 10 * FOOT_M, rel=REL)


def test_connector_on_one_level_has_no_stop() -> None:
    spaces, doors, _ = two_levels()
    spaces = [s for s in spaces if s.id not in ("s1", "e1")]
    doors = [d for d in doors if d.id not in ("ds1", "de1")]
    net = walk_network(spaces, doors, [Traversal("lift", "elevator", ("e0", "e9"))], ["L0", "L1"])
    assert net.stops == []
    assert [kind for kind, _ in net.problems] == ["traversal-unknown-unit", "connector-one-level"]


# ---------------------------------------------------------------- non-walkable units


def test_non_walkable_unit_gets_no_lines() -> None:
    spaces = [room("corridor", box(0, 0, 20, 3)), room("staff", box(5, 3, 10, 8), walkable=False)]
    net = walk_network(spaces, [door("d", (7, 3), (8, 3))], [], ["L0"])
    assert all(owner(line, spaces) == "corridor" for line in net.lines)
    assert net.unreachable == []


# ---------------------------------------------------------------- a 500-door corridor


def long_corridor(doors_count: int, width: float) -> tuple[list[Space], list[Door]]:
    per_side = doors_count // 2
    length = per_side * 2.0
    spaces = [room("corridor", box(0, 0, length, width))]
    doors: list[Door] = []
    for i in range(per_side):
        spaces.append(room(f"a{i:03d}", box(2 * i, width, 2 * i + 2, width + 4)))
        spaces.append(room(f"b{i:03d}", box(2 * i, -4, 2 * i + 2, 0)))
        doors.append(door(f"da{i:03d}", (2 * i + 0.5, width), (2 * i + 1.5, width)))
        doors.append(door(f"db{i:03d}", (2 * i + 0.5, 0), (2 * i + 1.5, 0)))
    return spaces, doors


@pytest.mark.serial  # the noding held to 2 s of wall time: measured on idle cores
@pytest.mark.parametrize("width", [3.0, 12.0])
def test_500_door_corridor_is_sparse_and_close_to_shortest(width: float) -> None:
    spaces, doors = long_corridor(500, width)
    started = time.perf_counter()
    net = walk_network(spaces, doors, [], ["L0"])
    elapsed = time.perf_counter() - started
    assert elapsed < 2.0
    # per door: its room's two lines, its stub, and the corridor's edges (at most 6 per
    # node from the Yao graph and what the spanner adds: about 8 in a 12 m wide one)
    assert len(net.lines) < 12 * len(doors)
    graph = loaded(net, ["L0"])
    points = [(2 * i + 1.0, width) for i in range(250)] + [(2 * i + 1.0, 0.0) for i in range(250)]
    chosen = random.Random(19).sample(points, 40)
    cells = graph.matrix(Profile(FOOT), [at(*p) for p in chosen], [at(*p) for p in chosen])
    worst = 0.0
    for a, p in enumerate(chosen):
        for b, q in enumerate(chosen):
            if a == b:
                continue
            inner_p = (p[0], p[1] - 0.3 if p[1] else 0.3)
            inner_q = (q[0], q[1] - 0.3 if q[1] else 0.3)
            true = 0.6 + math.dist(inner_p, inner_q)
            got = cells[a][b][0] * FOOT_M
            assert got >= true * (1 - REL)  # inside the corridor: never shorter
            if math.dist(p, q) > 10:
                worst = max(worst, got / true - 1)
    assert worst < 0.05


def test_many_doors_stay_connected_and_inside() -> None:
    spaces, doors = long_corridor(60, 3.0)
    net = walk_network(spaces, doors, [], ["L0"])
    assert net.unreachable == [] and net.problems == []
    for line in net.lines:
        assert owner(line, spaces) is not None
    graph = loaded(net, ["L0"])
    row = graph.matrix(Profile(FOOT), [at(1, 0)], [at(2 * i + 1, 3) for i in range(30)])[0]
    assert all(cell is not None for cell in row)
    assert_apart(net, spaces, doors)


# ---------------------------------------------------------------- lines of units apart


def test_lines_of_different_units_stay_apart() -> None:
    spaces = [
        room("corridor", Polygon([(0, 0), (12, 0), (12, 8), (9, 8), (9, 3), (0, 3)])),
        room("r1", box(0, 3, 3, 7)),
        room("r2", box(3, 3, 5.5, 7)),
        room("closet", box(5.5, 3, 6.0, 7)),  # 0.5 m wide
        room("r3", box(6.0, 3, 9, 7)),
        room("r4", box(0, -4, 6, 0)),
        room("r5", box(12, 0, 16, 8)),
    ]
    doors = [
        door("d1", (2.0, 3), (2.9, 3)),  # next to the r1/r2 partition
        door("d2", (3.1, 3), (4.0, 3)),
        door("d3", (5.55, 3), (5.95, 3)),
        door("d4", (6.1, 3), (7.0, 3)),
        door("d5", (1, 0), (2, 0)),
        door("d6", (4, 0), (5, 0)),
        door("d7", (12, 1), (12, 2)),
        door("d8", (9, 4), (9, 5)),  # r3 to the corridor's north leg
        door("d9", (12, 6), (12, 7.5)),  # a second door of r5
    ]
    net = walk_network(spaces, doors, [], ["L0"])
    assert net.unreachable == [] and net.problems == []
    assert_apart(net, spaces, doors)


def test_exterior_door_joins_its_one_unit() -> None:
    spaces = [room("lobby", box(0, 0, 6, 6))]
    net = walk_network(spaces, [door("entry", (2, 0), (3, 0))], [], ["L0"])
    assert net.unreachable == [] and net.problems == []
    graph = loaded(net, ["L0"])
    assert metres(graph, at(2.5, 0), at(3, 3)) == pytest.approx(
        0.3 + math.dist((2.5, 0.3), (3, 3)), rel=REL
    )


def test_display_point_is_used_and_reached() -> None:
    spaces = [room("corridor", box(0, 0, 20, 3)), room("r", box(0, 3, 5, 8), point=(1.0, 7.0))]
    net = walk_network(spaces, [door("d", (2, 3), (3, 3))], [], ["L0"])
    graph = loaded(net, ["L0"])
    expected = 0.3 + math.dist((2.5, 3.3), (1.0, 7.0))
    assert metres(graph, at(2.5, 3), at(1.0, 7.0)) == pytest.approx(expected, rel=REL)
    outside = [room("r", box(0, 3, 5, 8), point=(9.0, 9.0))]
    assert [k for k, _ in walk_network(outside, [], [], ["L0"]).problems] == [
        "display-point-outside"
    ]


def test_unreachable_unit_island_is_a_line_at_its_point() -> None:
    net = walk_network([room("r", box(0, 0, 4, 4))], [], [], ["L0"])
    assert net.unreachable == ["r"]
    assert len(net.lines) == 1
    line = net.lines[0]
    assert line.points[0] == (2.0, 2.0)
    assert math.dist(*line.points) == pytest.approx(0.2)


def test_door_drawn_across_the_wall_still_joins_both_units() -> None:
    spaces = [room("corridor", box(0, 0, 20, 3)), room("r", box(0, 3, 5, 8))]
    net = walk_network(spaces, [door("d", (2.5, 2.6), (2.5, 3.4))], [], ["L0"])
    assert net.unreachable == [] and net.problems == [] and net.snaps == []
    graph = loaded(net, ["L0"])
    assert metres(graph, at(2.5, 3), at(2.5, 5.5)) == pytest.approx(2.5, rel=REL)
    assert metres(graph, at(2.5, 3), at(10, 1.5)) == pytest.approx(
        0.3 + math.dist((2.5, 2.7), (10, 1.5)), rel=REL
    )
