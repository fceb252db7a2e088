"""Maneuvers of a route: where the walker starts, turns, takes a connector and arrives.

Pure geometry over a `Route`'s leg polylines (canvas units, `feet_per_unit`), no I/O.
The vocabulary is OSRM's (`type`, `modifier`, `bearing_before`, `bearing_after`), its
words `routing.vocabulary`'s; the rules are docs/routing.md, "Maneuvers", and the bends
come from `routing.bends`:

- Bearings are whole degrees measured over windows cut at the neighbouring maneuvers,
  and a turn's modifier comes from them, so a client can check one against the other; a
  turn they straighten (under 20 degrees) is dropped.
- Every vertex whose direction changes by 60 degrees or more keeps a turn within one
  window of it, whatever else was dropped.
- A turn within CONNECTOR_TURN_FT before a connector is told with it ("take the stairs
  up"), not as a step of its own a few feet earlier; one within START_TURN_FT of the
  start is told with the start: the first step walks (issue 66, point 8: "Start at
  LL21D" then "Turn slightly left" with nothing walked between).
- A turn within MERGE_FT after another is told with it, as its `then` ("turn left, then
  turn right"): no two turns are steps of their own within 30 ft (issue 66, point 8:
  three steps within 30 ft between two stair rides read as a zig-zag).
- A destination just off to one side of the last turn is arrived at there, with its side.
- A landmark is a public place; a generated name only where no other is within reach;
  two turns in a row never name the same one.
- Distances and times are hundredths that add up to the route's exactly (largest
  remainder), since a client sums what it is shown.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from routing.bends import (
    NEAR_TURN_FT,
    WINDOW_FT,
    XY,
    Line,
    chord_bearing,
    find_bends,
    modifier,
    signed,
    whole,
)
from routing.matrix import LoadedGraph, Point
from routing.profile import Profile
from routing.route import CHECK_EVERY, Route, Unreachable, find_route
from routing.stopping import Stop, checked
from routing.vocabulary import ManeuverType, Modifier, Side

LANDMARK_FT = 30.0  # a named place this close to a maneuver may name it
ARRIVAL_FT = 30.0  # a destination this close beside the last turn is arrived at there
CONNECTOR_TURN_FT = 15.0  # a turn this close before a connector is told with it
START_TURN_FT = 5.0  # a turn this close after the start is told with it
MERGE_FT = 30.0  # a turn this close after another is told with it ("then turn right")
BESIDE_DEG = (45.0, 135.0)  # "on your left/right": off the walking direction by this much
ROUNDS = 6  # of dropping straightened turns and restoring forced ones (2 are typical)

# Short names of the types (the words are routing.vocabulary's), and their rank among the
# stops at one vertex.
DEPART, TURN = ManeuverType.DEPART, ManeuverType.TURN
CONNECTOR, ARRIVE = ManeuverType.CONNECTOR, ManeuverType.ARRIVE
RANK = {DEPART: 0, TURN: 1, CONNECTOR: 2, ARRIVE: 3}


@dataclass(frozen=True)
class Place:
    """A named location that can serve as a landmark."""

    location_id: str
    unit_id: str | None  # the unit it stands for (`svc:id`), None for e.g. an amenity
    name: str
    level: int
    x: float
    y: float
    generated: bool = False  # a made-up name ("Room 12"): named only if no other is near


# What one Place holds in Places, besides its text: about 426 bytes measured with
# tracemalloc (10,000 places), the cell lists included.
PLACE_BYTES = 450


class Places:
    """Named places by level, in square cells of `cell` canvas units, so that the few
    near a maneuver are found without looking at every place of a 1,000-unit floor."""

    def __init__(self, places: Iterable[Place], cell: float) -> None:
        self.cell = cell
        self.cells: dict[tuple[int, int, int], list[Place]] = {}
        self.memory_bytes = 0  # an estimate: PLACE_BYTES each, plus its text
        for place in places:
            self.cells.setdefault(self._key(place.level, place.x, place.y), []).append(place)
            self.memory_bytes += PLACE_BYTES + len(place.location_id) + len(place.name)
            self.memory_bytes += len(place.unit_id or "")

    def _key(self, level: int, x: float, y: float) -> tuple[int, int, int]:
        return (level, math.floor(x / self.cell), math.floor(y / self.cell))

    def near(self, level: int, at: XY, radius: float) -> list[Place]:
        """Places of `level` within `radius` canvas units of `at`."""
        _, cx, cy = self._key(level, *at)
        reach = max(1, math.ceil(radius / self.cell))
        return [
            place
            for i in range(cx - reach, cx + reach + 1)
            for j in range(cy - reach, cy + reach + 1)
            for place in self.cells.get((level, i, j), ())
            if math.dist((place.x, place.y), at) <= radius
        ]


@dataclass(frozen=True)
class Then:
    """A turn told with the turn before it (within MERGE_FT), with its own bearings and
    modifier, so that a client can check one against the other as for a turn."""

    modifier: Modifier
    bearing_before: int
    bearing_after: int
    point_index: int  # on the leg of the turn it is told with
    location: XY


@dataclass(frozen=True)
class Maneuver:
    type: ManeuverType
    modifier: Modifier | None  # turns only
    bearing_before: int  # 0-359 clockwise from canvas up; 0 where nothing was walked
    bearing_after: int
    leg_index: int
    point_index: int  # route.legs[leg_index].points[point_index] is the location
    location: XY
    distance: float  # feet from here to the next maneuver (arrive: to the destination)
    time: float  # seconds, likewise
    walked: float  # feet walked from the previous maneuver to here, rides left out
    landmark: Place | None = None
    side: Side | None = None  # arrive only: when the destination is beside
    ride: int | None = None  # connector only: its index in route.rides
    then: tuple[Then, ...] = ()  # turn only: the turns told with it, in walking order


@dataclass
class _Stop:
    """A maneuver being planned: its kind and place, and its bearings once measured."""

    type: ManeuverType
    leg: int
    index: int
    ride: int | None = None
    before: int = 0
    after: int = 0
    side: Side | None = None
    then: list[_Stop] = field(default_factory=list)  # the turns told with this one

    def key(self) -> tuple[int, int, int]:
        return (self.leg, self.index, RANK[self.type])


class _Plan:
    """The stops of one route while they are found."""

    def __init__(self, route: Route, lines: list[Line], stop: Stop | None = None) -> None:
        self.lines = lines
        self.halt = stop  # the request's `stop` event (its `_Stop`s are `stops`)
        self.bends = [find_bends(line, stop=stop) for line in lines]
        self.stops = [_Stop(DEPART, 0, 0)]
        # Feet along each leg from which a turn is told with the connector ending it.
        self.told_with = [
            line.length - CONNECTOR_TURN_FT if leg < len(route.rides) else math.inf
            for leg, line in enumerate(lines)
        ]
        # Feet along each leg up to which a turn is told with the start.
        self.since = [START_TURN_FT if leg == 0 else -math.inf for leg in range(len(lines))]
        for leg, line in enumerate(lines):
            turns = self.bends[leg].turns
            self.stops += [_Stop(TURN, leg, i) for i in turns if self._tells(leg, line.at[i])]
            if leg < len(route.rides):
                self.stops.append(_Stop(CONNECTOR, leg, len(line.points) - 1, ride=leg))
        self.stops.append(_Stop(ARRIVE, len(lines) - 1, len(lines[-1].points) - 1))

    def _tells(self, leg: int, feet: float) -> bool:
        """Whether a turn `feet` along `leg` is told on its own: not with the start nor
        with the connector ending the leg."""
        return self.since[leg] < feet < self.told_with[leg]

    def settle(self) -> None:
        """Drop straightened turns and restore a turn near every forced vertex left
        without one, until neither happens (or ROUNDS)."""
        for _ in range(ROUNDS):
            self._drop_straightened()
            missing = self._uncovered()
            if not missing:
                return
            self.stops = sorted([*self.stops, *missing], key=_Stop.key)
        self._drop_straightened()

    def _drop_straightened(self) -> None:
        """Measure; drop the turn that windows cut at its neighbours straighten most
        (whole bearings under 20 degrees apart; the first of equally weak ones), and
        measure again, until none is. Dropping a stop changes the windows of its two
        neighbours only, so only they are measured again, and the weakest is kept in a
        heap (a leg of 3,000 wobbles measured every stop after every drop: 2 s)."""
        self._measure()
        stops = self.stops
        count = len(stops)
        before = [k - 1 for k in range(count)]  # the neighbours left, by position
        after = [k + 1 if k + 1 < count else -1 for k in range(count)]
        gone = [False] * count
        heap = [(_weakness(stop), k) for k, stop in enumerate(stops) if _is_weak(stop)]
        heapq.heapify(heap)
        while heap:
            checked(self.halt)
            weakness, k = heapq.heappop(heap)
            if gone[k] or not _is_weak(stops[k]) or _weakness(stops[k]) != weakness:
                continue  # dropped, or measured again since
            gone[k] = True
            left, right = before[k], after[k]
            if left >= 0:
                after[left] = right
            if right >= 0:
                before[right] = left
            for j in (left, right):
                if j < 0:
                    continue
                self._bearings(
                    stops[before[j]] if before[j] >= 0 else None,
                    stops[j],
                    stops[after[j]] if after[j] >= 0 else None,
                )
                if _is_weak(stops[j]):
                    heapq.heappush(heap, (_weakness(stops[j]), j))
        self.stops = [stop for k, stop in enumerate(stops) if not gone[k]]

    def _uncovered(self) -> list[_Stop]:
        """Turns for the forced places with no turn within NEAR_TURN_FT, the strongest
        first (`_vertex_for` says where). A connector within CONNECTOR_TURN_FT after a
        place stands for its turn, and a turn is never put within that of a connector: a
        place whose vertices all lie there is told with the connector too."""
        added: list[_Stop] = []
        arrive = self.stops[-1]
        for leg, bends in enumerate(self.bends):
            line = self.lines[leg]
            end = arrive.index if leg == arrive.leg else len(line.points) - 1
            stops = sorted(line.at[s.index] for s in self.stops if s.leg == leg)
            turns = sorted(line.at[s.index] for s in self.stops if s.leg == leg and s.type == TURN)
            until, since = self.told_with[leg], self.since[leg]
            for place, _ in bends.forced:
                checked(self.halt)
                k = bisect.bisect_left(turns, place - NEAR_TURN_FT)
                if place >= until or place <= since:
                    continue
                if k < len(turns) and turns[k] <= place + NEAR_TURN_FT:
                    continue
                index = _vertex_for(line, place, end, stops, until, since)
                if index is not None:
                    added.append(_Stop(TURN, leg, index))
                    bisect.insort(turns, line.at[index])
                    bisect.insort(stops, line.at[index])
        return added

    def _measure(self) -> None:
        """Each stop's whole bearings, windows cut at its neighbours on its leg."""
        stops = self.stops
        for k, stop in enumerate(stops):
            if k % CHECK_EVERY == CHECK_EVERY - 1:
                checked(self.halt)
            nxt = stops[k + 1] if k + 1 < len(stops) else None
            self._bearings(stops[k - 1] if k else None, stop, nxt)

    def _bearings(self, previous: _Stop | None, stop: _Stop, nxt: _Stop | None) -> None:
        """A stop's whole bearings, windows cut at the stops before and after it on its
        leg. A connector's window after is on the next leg, from where the connector is
        left."""
        lines = self.lines
        line = lines[stop.leg]
        lo = line.at[previous.index] if previous is not None and previous.leg == stop.leg else 0.0
        hi = line.at[nxt.index] if nxt is not None and nxt.leg == stop.leg else line.length
        before, after = line.windows(line.at[stop.index], lo, hi)
        if stop.type == CONNECTOR:
            following = lines[stop.leg + 1]
            assert nxt is not None
            end = following.at[nxt.index] if nxt.leg == stop.leg + 1 else following.length
            after = following.windows(0.0, 0.0, end)[1]
        stop.before = 0 if stop.type == DEPART else whole(before)
        stop.after = 0 if stop.type == ARRIVE else whole(after)

    def arrive_beside(self) -> None:
        """A destination within ARRIVAL_FT of the last turn, straight on from it and off
        to one side of the walk before it, is arrived at there: "Arrive at Unit 307 on
        your right" where a door opens off a corridor, as OSRM tells the side of the road.

        The walk told then ends there, so the bends of its leg are found again with
        windows that stop at it (a bend just before it is no longer hidden by the turn's
        own), and the plan settles again."""
        last, turn = self.stops[-1], self.stops[-2]
        if turn.type != TURN or turn.leg != last.leg:
            return
        line = self.lines[last.leg]
        at, end = line.points[turn.index], line.points[last.index]
        toward = chord_bearing(at, end, line.fpu)
        if toward is None or math.dist(at, end) * line.fpu > ARRIVAL_FT:
            return
        off = signed(toward - turn.before)
        if not BESIDE_DEG[0] <= abs(off) <= BESIDE_DEG[1]:
            return
        self.bends[turn.leg] = find_bends(line, turn.index, self.halt)
        kept = [s for s in self.stops[:-2] if s.leg != turn.leg or s.type != TURN]
        again = [
            _Stop(TURN, turn.leg, i)
            for i in self.bends[turn.leg].turns
            if self._tells(turn.leg, line.at[i])
        ]
        arrive = _Stop(ARRIVE, turn.leg, turn.index, side=Side.RIGHT if off > 0 else Side.LEFT)
        self.stops = [*kept, *again, arrive]
        self.settle()

    def merge(self) -> None:
        """Each turn within MERGE_FT after a turn told on its own (on its leg) is told with
        it, as its `then`; bearings stay as measured with every turn a stop, so each told
        turn's windows are cut where the others are."""
        kept: list[_Stop] = []
        for stop in self.stops:
            head = kept[-1] if kept else None
            if (
                stop.type == TURN
                and head is not None
                and head.type == TURN
                and head.leg == stop.leg
                and self.lines[stop.leg].at[stop.index] - self.lines[head.leg].at[head.index]
                < MERGE_FT
            ):
                head.then.append(stop)
            else:
                kept.append(stop)
        self.stops = kept


def _is_weak(stop: _Stop) -> bool:
    """A turn that its measured bearings straighten: no modifier."""
    return stop.type == TURN and modifier(stop.before, stop.after) is None


def _weakness(stop: _Stop) -> float:
    """How far a weak turn still turns: the weakest is dropped first."""
    return abs(signed(stop.after - stop.before))


def _vertex_for(
    line: Line,
    place: float,
    end: int,
    stops: list[float],
    until: float = math.inf,
    since: float = -math.inf,
) -> int | None:
    """The inner vertex before `end` (and `until` feet along, after `since`) within a
    window of `place`
    that changes direction most, its windows cut at the stops around it (`stops`: feet
    along the leg, ascending), as they will be measured: a vertex that its neighbours
    straighten would be dropped again. Vertices and stops are found by bisection: a leg's
    length of them costs none."""
    best: tuple[float, float, int] | None = None
    slack = 1e-9 * max(1.0, abs(place))  # the test below decides; bisect only narrows
    first = max(bisect.bisect_left(line.at, place - WINDOW_FT - slack), 1)
    last = min(bisect.bisect_right(line.at, place + WINDOW_FT + slack), end)
    for i in range(first, last):
        here = line.at[i]
        if here >= until:
            break  # told with the connector from here on
        if here <= since:
            continue  # told with the start
        at = bisect.bisect_left(stops, here)
        if abs(here - place) > WINDOW_FT or (at < len(stops) and stops[at] == here):
            continue
        lo = stops[at - 1] if at else 0.0  # the last stop before, the first one after
        beyond = bisect.bisect_right(stops, here)
        hi = stops[beyond] if beyond < len(stops) else line.at[end]
        before, after = line.windows(here, lo, hi)
        if before is None or after is None:
            continue
        rank = (abs(signed(after - before)), -abs(here - place), -i)
        best = rank if best is None or rank > best else best
    return None if best is None else -best[2]


def plan_maneuvers(
    route: Route,
    feet_per_unit: float,
    places: Places | None = None,
    skip: frozenset[str] = frozenset(),
    stop: Stop | None = None,
) -> list[Maneuver]:
    """The route's maneuvers in walking order: depart, turns and connectors, arrive.
    `places` name the turns' landmarks, never those whose location id is in `skip`.
    Ends with `Stopped` soon after `stop` is set."""
    lines = [Line(leg.points, feet_per_unit) for leg in route.legs]
    plan = _Plan(route, lines, stop)
    plan.settle()
    plan.arrive_beside()
    plan.merge()
    return _finish(route, plan.stops, lines, places, skip, stop)


def route_with_maneuvers(
    loaded: LoadedGraph,
    profile: Profile,
    start: Point,
    end: Point,
    places: Places | None = None,
    skip: frozenset[str] = frozenset(),
    stop: Stop | None = None,
) -> tuple[Route, list[Maneuver]] | Unreachable:
    """`find_route` and its maneuvers, as one piece of work (off the event loop on a
    large graph, where `stop` ends it once its request is over its time budget)."""
    found = find_route(loaded, profile, start, end, stop)
    if isinstance(found, Unreachable):
        return found
    return found, plan_maneuvers(found, loaded.graph.feet_per_unit, places, skip, stop)


def _finish(
    route: Route,
    stops: list[_Stop],
    lines: list[Line],
    places: Places | None,
    skip: frozenset[str],
    halt: Stop | None,
) -> list[Maneuver]:
    """Distances, times and landmarks of the planned stops."""
    feet_at, seconds_at = _along(route, lines, stops)
    feet_at.append(sum(leg.feet for leg in route.legs) + sum(r.feet for r in route.rides))
    seconds_at.append(sum(leg.seconds for leg in route.legs) + sum(r.seconds for r in route.rides))
    feet = [max(b - a, 0.0) for a, b in itertools.pairwise(feet_at)]
    seconds = [max(b - a, 0.0) for a, b in itertools.pairwise(seconds_at)]
    distances, times = apportion(feet, route.feet), apportion(seconds, route.seconds)
    maneuvers: list[Maneuver] = []
    for k, stop in enumerate(stops):
        if k % CHECK_EVERY == 0:
            checked(halt)
        walked = 0.0
        if k:
            ride = stops[k - 1].ride
            walked = max(feet[k - 1] - (route.rides[ride].feet if ride is not None else 0), 0)
        leg = route.legs[stop.leg]
        at = leg.points[stop.index]
        landmark = None
        if stop.type == TURN and places is not None:
            # the turn just before names another place, if any: "at Stairs 103" twice in a
            # row tells nothing the second time
            named = maneuvers[-1].landmark if maneuvers else None
            avoid = skip if named is None else skip | {named.location_id}
            landmark = _landmark(stop, leg.level, at, places, avoid, lines[stop.leg].fpu)
        maneuvers.append(
            Maneuver(
                type=stop.type,
                modifier=modifier(stop.before, stop.after) if stop.type == TURN else None,
                bearing_before=stop.before,
                bearing_after=stop.after,
                leg_index=stop.leg,
                point_index=stop.index,
                location=at,
                distance=distances[k],
                time=times[k],
                walked=walked,
                landmark=landmark,
                side=stop.side,
                ride=stop.ride,
                then=tuple(_then(told, leg.points[told.index]) for told in stop.then),
            )
        )
    return maneuvers


def _then(stop: _Stop, at: XY) -> Then:
    turned = modifier(stop.before, stop.after)
    assert turned is not None  # a straightened turn was dropped before any was told with another
    return Then(turned, stop.before, stop.after, stop.index, at)


def _along(route: Route, lines: list[Line], stops: list[_Stop]) -> tuple[list[float], list[float]]:
    """Feet and seconds from the route's start to each stop. Within a leg both grow
    with the polyline (one walking speed per leg), so the leg's own figures are shared
    out by length; a ride counts after the leg it ends."""
    feet_before, seconds_before = [0.0], [0.0]
    for leg, ride in zip(route.legs, route.rides, strict=False):
        feet_before.append(feet_before[-1] + leg.feet + ride.feet)
        seconds_before.append(seconds_before[-1] + leg.seconds + ride.seconds)
    feet_at, seconds_at = [], []
    for stop in stops:
        leg, line = route.legs[stop.leg], lines[stop.leg]
        share = line.at[stop.index] / line.length if line.length > 0 else 0.0
        feet_at.append(feet_before[stop.leg] + leg.feet * share)
        seconds_at.append(seconds_before[stop.leg] + leg.seconds * share)
    return feet_at, seconds_at


def _landmark(
    stop: _Stop, level: int, at: XY, places: Places, skip: frozenset[str], fpu: float
) -> Place | None:
    """The place a person would name at a turn: the nearest one ahead of the walker as
    the turn is reached (the unit at the turn), else the nearest one beside the route
    (the one it passes); a generated name ("Room 12") only where no other is within
    reach. The route's own start and destination are never landmarks (`skip`); places
    a visitor cannot see (non-public areas) are not among `places` at all."""
    found = [
        place
        for place in places.near(level, at, LANDMARK_FT / fpu)
        if place.location_id not in skip and place.name
    ]

    def rank(place: Place) -> tuple[bool, int, float, str]:
        toward = chord_bearing(at, (place.x, place.y), fpu)
        ahead = toward is not None and abs(signed(toward - stop.before)) < 90
        near = math.dist(at, (place.x, place.y))
        return (place.generated, 0 if ahead else 1, near, place.location_id)

    return min(found, key=rank, default=None)


def apportion(values: Sequence[float], total: float) -> list[float]:
    """`values` in hundredths that add up to `total` rounded to hundredths, exactly:
    scaled to that total, floored, and the hundredths left given to the largest
    remainders (the first of equal ones)."""
    target = round(round(total, 2) * 100)
    raw = sum(values)
    if raw <= 0 or target <= 0:
        return [0.0] * len(values)
    scaled = [value * target / raw for value in values]
    floors = [math.floor(value) for value in scaled]
    left = target - sum(floors)
    order = sorted(range(len(values)), key=lambda i: (floors[i] - scaled[i], i))
    for i in order[:left]:
        floors[i] += 1
    return [hundredths / 100 for hundredths in floors]
