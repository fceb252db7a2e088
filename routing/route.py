"""Directions: the route itself between two waypoints, not only its length.

The route is the one E18 measures: the same augmented graph (`ModeGraph.augmented`),
the same Dijkstra by time, and its distance summed the same way, so a route's
`distance` and `time` equal E18's for the same pair and profile (`routing.profile`). It
is then unfolded: each contracted chain back into the drawn nodes it passes, each
waypoint's join into the straight segment to its foot on the walk line, and the whole
cut into legs, one stretch per level, with the connector rides between them.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from enum import StrEnum

from routing.matrix import Augmented, Join, LoadedGraph, ModeGraph, Point
from routing.model import DOOR, ELEVATOR, ESCALATOR, LEVEL_DOORS, RAMP, STAIRS, WALK
from routing.profile import Profile
from routing.stopping import Stop, checked, quiet_unreached

RIDES = (STAIRS, ELEVATOR, RAMP, ESCALATOR, DOOR)  # DOOR: between levels of one height
CHECK_EVERY = 4096  # steps made between two looks at the `stop` event
# Rides of one kind and way this close are one: a step across a landing, which no text
# in feet (0.5 ft) or metres (1.64 ft) tells; a longer walk is told in both.
RIDE_GAP_FT = 2.0
XY = tuple[float, float]


class Unreachable(StrEnum):
    """Why there is no route."""

    START_OFF_GRAPH = "start-off-graph"  # no walk line of the mode on the start's level
    END_OFF_GRAPH = "end-off-graph"
    DISCONNECTED = "disconnected"  # both join, but no walk line leads from one to the other


@dataclass(frozen=True)
class Leg:
    """One stretch on one level: a polyline in canvas coordinates."""

    level: int  # position in level order, lowest 0
    points: list[XY]
    feet: float
    seconds: float


@dataclass(frozen=True)
class Ride:
    """A connector taken between two legs (consecutive edges of one connector are one
    ride: the stairs from the first floor to the third; so are connectors of one kind and
    way met where the last is left, `_goes_on`). Its id and `at` are the first one's."""

    kind: int  # STAIRS, ELEVATOR, RAMP, ESCALATOR or DOOR
    connector_id: str | None  # None in graphs stored before connectors were named
    at: XY  # where it is entered, canvas coordinates
    from_level: int
    to_level: int
    feet: float
    seconds: float
    # Floors climbed (negative: gone down) by the levels' heights (`WalkGraph.height`),
    # as `routing.build` counts a connector's steps; None: the positions apart.
    climb: int | None = None

    @property
    def rise(self) -> int:
        """Floors climbed, negative when going down: the heights apart."""
        return self.to_level - self.from_level if self.climb is None else self.climb

    @property
    def floors(self) -> int:
        """Floors climbed or gone down: the floor steps `routing.build` gives a connector
        (the levels' heights apart: two levels of one IMDF ordinal are one height); none
        through a door to a level of one height."""
        return 0 if self.kind in LEVEL_DOORS else abs(self.rise)


@dataclass(frozen=True)
class Route:
    feet: float  # summed as E18 sums it
    seconds: float
    legs: list[Leg]
    rides: list[Ride]  # rides[i] comes after legs[i]


@dataclass(frozen=True)
class _Step:
    """One straight piece of the route: an edge of the walk graph or a part of one
    (where a waypoint's foot cuts it), or the segment from a waypoint to its foot."""

    a: XY
    b: XY
    level_a: int
    level_b: int
    feet: float
    seconds: float
    kind: int  # an edge kind; a ride is one of RIDES
    node_a: int = -1  # graph nodes at the ends, -1 at a waypoint or a foot
    node_b: int = -1

    def reversed(self) -> _Step:
        return _Step(
            self.b,
            self.a,
            self.level_b,
            self.level_a,
            self.feet,
            self.seconds,
            self.kind,
            self.node_b,
            self.node_a,
        )


def find_route(
    loaded: LoadedGraph, profile: Profile, start: Point, end: Point, stop: Stop | None = None
) -> Route | Unreachable:
    """The quickest route from `start` to `end` in `profile`, or why there is none; ends
    with `Stopped` soon after `stop` is set."""
    graph = loaded.mode_graph(profile)
    points = list(dict.fromkeys([start, end]))
    found = graph.augmented(points, [(start, end)], stop)
    a, b = found.joins[start], found.joins[end]
    if a is None:
        return Unreachable.START_OFF_GRAPH
    if b is None:
        return Unreachable.END_OFF_GRAPH
    if start == end:
        return Route(0.0, 0.0, [Leg(start.level, [_point(start)], 0.0, 0.0)], [])
    begin, finish = found.vertex[start], found.vertex[end]
    quiet_unreached()
    path = found.graph.get_shortest_paths(
        begin, to=[finish], weights=found.time_list, output="epath"
    )[0]
    if not path:
        return Unreachable.DISCONNECTED
    checked(stop)
    steps = _steps(graph, found, path, begin, start, end, stop)
    route = _legs(loaded, start, steps, stop)
    total = (float(found.lengths[path].sum()), float(found.times[path].sum()))
    return Route(*total, *route)


def _steps(
    mode: ModeGraph,
    found: Augmented,
    path: list[int],
    begin: int,
    start: Point,
    end: Point,
    stop: Stop | None,
) -> list[_Step]:
    """The path's edges of the augmented graph, unfolded into straight steps."""
    chains = len(mode.chain_length)
    waypoint = {found.vertex[start]: start, found.vertex[end]: end}
    steps: list[_Step] = []
    at = begin
    for edge in path:
        checked(stop)
        if edge < chains:
            nodes, edges = mode.chain_path(edge, stop)
            forward = int(mode.vertex_of[nodes[0]]) == at
            last = float(len(edges))
            ends = (0.0, last) if forward else (last, 0.0)
            steps += _span(mode, nodes, edges, *ends, stop)
            at = int(mode.vertex_of[nodes[-1] if forward else nodes[0]])
            continue
        u, v = found.extra[edge - chains]
        here, there = (u, v) if u == at else (v, u)
        if here in waypoint and there in waypoint:  # along one chain, foot to foot
            steps += _between_waypoints(mode, found, waypoint[here], waypoint[there], stop)
        elif here in waypoint:
            steps += _to_end(mode, found, waypoint[here], there, stop)
        else:
            away = _to_end(mode, found, waypoint[there], here, stop)
            steps += [step.reversed() for step in reversed(away)]
        at = there
    return steps


def _to_end(
    mode: ModeGraph, found: Augmented, point: Point, vertex: int, stop: Stop | None
) -> list[_Step]:
    """From a waypoint to its foot, then along its chain to the end at `vertex`."""
    join = found.joins[point]
    assert join is not None
    nodes, edges = mode.chain_path(join.chain, stop)
    goal = 0.0 if int(mode.vertex_of[nodes[0]]) == vertex else float(len(edges))
    here = _position(mode, join, nodes, edges)
    return [_gap(mode, point, join, here, nodes), *_span(mode, nodes, edges, here, goal, stop)]


def _between_waypoints(
    mode: ModeGraph, found: Augmented, a: Point, b: Point, stop: Stop | None
) -> list[_Step]:
    join_a, join_b = found.joins[a], found.joins[b]
    assert join_a is not None and join_b is not None
    nodes, edges = mode.chain_path(join_a.chain, stop)
    here, there = (_position(mode, join, nodes, edges) for join in (join_a, join_b))
    return [
        _gap(mode, a, join_a, here, nodes),
        *_span(mode, nodes, edges, here, there, stop),
        _gap(mode, b, join_b, there, nodes).reversed(),
    ]


def _gap(mode: ModeGraph, point: Point, join: Join, position: float, nodes: list[int]) -> _Step:
    """The straight segment from a waypoint to its foot on the walk line."""
    return _Step(
        _point(point),
        _at(mode, nodes, position),
        point.level,
        point.level,
        join.gap,
        join.gap / mode.speed,
        WALK,
    )


def _span(
    mode: ModeGraph,
    nodes: list[int],
    edges: list[int],
    start: float,
    goal: float,
    stop: Stop | None = None,
) -> list[_Step]:
    """Along a chain from position `start` to `goal` (node index plus the fraction of
    the next edge), one step per edge or part of an edge."""
    walk = mode.loaded.graph
    steps: list[_Step] = []
    here = start
    while here != goal:
        if len(steps) % CHECK_EVERY == CHECK_EVERY - 1:
            checked(stop)
        if goal > here:
            index = math.floor(here)
            there = min(index + 1.0, goal)
        else:
            index = math.ceil(here) - 1
            there = max(float(index), goal)
        edge = edges[index]
        part = abs(there - here)
        a, b = _node_at(nodes, here), _node_at(nodes, there)
        steps.append(
            _Step(
                _at(mode, nodes, here),
                _at(mode, nodes, there),
                int(walk.node_level[nodes[index]]) if a < 0 else int(walk.node_level[a]),
                int(walk.node_level[nodes[index]]) if b < 0 else int(walk.node_level[b]),
                part * float(mode.loaded.length[edge]),
                part * float(mode.edge_time[edge]),
                int(walk.edge_kind[edge]),
                a,
                b,
            )
        )
        here = there
    return steps


def _node_at(nodes: list[int], position: float) -> int:
    return nodes[int(position)] if position == int(position) else -1


def _position(mode: ModeGraph, join: Join, nodes: list[int], edges: list[int]) -> float:
    """A join's place on its chain: the index of its edge in chain order plus how far
    along that edge."""
    index = edges.index(join.edge)
    from_u = nodes[index] == int(mode.loaded.graph.edge_u[join.edge])
    return index + (join.t if from_u else 1.0 - join.t)


def _at(mode: ModeGraph, nodes: list[int], position: float) -> XY:
    """The canvas point at a chain position: a node's own coordinates at a whole
    position (interpolating to a node, `a + 1.0 * (b - a)`, can miss it in the last bit,
    and a leg must end exactly where its connector stands)."""
    if position == int(position):
        return _xy(mode.loaded, nodes[int(position)])
    index = min(math.floor(position), len(nodes) - 2)
    t = position - index
    (ax, ay), (bx, by) = _xy(mode.loaded, nodes[index]), _xy(mode.loaded, nodes[index + 1])
    return (ax + t * (bx - ax), ay + t * (by - ay))


def _legs(
    loaded: LoadedGraph, start: Point, steps: list[_Step], stop: Stop | None
) -> tuple[list[Leg], list[Ride]]:
    """Steps cut into legs at rides; consecutive rides that go on from each other are
    one ride (`_goes_on`), the few feet walked between them counted in it."""
    walk = loaded.graph
    legs: list[Leg] = []
    rides: list[Ride] = []
    points: list[XY] = [_point(start)]
    level, feet, seconds = start.level, 0.0, 0.0
    for number, step in enumerate(steps):
        if number % CHECK_EVERY == CHECK_EVERY - 1:
            checked(stop)
        if step.kind not in RIDES:
            if points[-1] != step.b:
                points.append(step.b)
            feet += step.feet
            seconds += step.seconds
            continue
        name = walk.stop_ids.get(step.node_a)
        last = rides[-1] if rides else None
        climb = walk.height(step.level_b) - walk.height(step.level_a)
        if last is not None and _goes_on(last, step, climb, name, len(points), feet):
            rides[-1] = Ride(
                last.kind,
                last.connector_id,
                last.at,
                last.from_level,
                step.level_b,
                last.feet + feet + step.feet,
                last.seconds + seconds + step.seconds,
                walk.height(step.level_b) - walk.height(last.from_level),
            )
        else:
            legs.append(Leg(level, points, feet, seconds))
            rides.append(
                Ride(
                    step.kind,
                    name,
                    step.a,
                    step.level_a,
                    step.level_b,
                    step.feet,
                    step.seconds,
                    climb,
                )
            )
        points, level, feet, seconds = [step.b], step.level_b, 0.0, 0.0
    legs.append(Leg(level, points, feet, seconds))
    return legs, rides


def _goes_on(
    last: Ride, step: _Step, climb: int, name: str | None, points: int, feet: float
) -> bool:
    """Whether the connector `step` (climbing `climb` floors) goes on with the ride
    `last`, as one ride: the same connector with nothing walked between (the stairs from
    the first floor to the third), or one of the same kind going the same way (up or
    down, by height) entered under RIDE_GAP_FT from where the last one was left: stairs
    drawn as one connector per pair of floors (IMDF relationships often are) meet at one
    point, or a step apart. A door between levels of one height goes no way: only the
    same door goes on."""
    if last.kind != step.kind or last.to_level != step.level_a:
        return False
    if last.connector_id == name and points == 1:
        return True
    way = climb * last.rise
    return step.kind not in LEVEL_DOORS and way > 0 and feet < RIDE_GAP_FT


def _xy(loaded: LoadedGraph, node: int) -> XY:
    x, y = loaded.graph.node_xy[node].tolist()
    return (x, y)


def _point(point: Point) -> XY:
    return (point.x, point.y)


def polyline_feet(points: list[XY], feet_per_unit: float) -> float:
    """A polyline's length in feet."""
    return sum(math.dist(a, b) for a, b in itertools.pairwise(points)) * feet_per_unit
