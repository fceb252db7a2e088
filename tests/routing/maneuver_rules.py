"""The rules of issue 33 for a route's maneuvers, checked on an answer as a client sees it
(REST's snake_case dict), written apart from routing/maneuvers.py: its own bearings,
windows and turn rule, so that a mistake there is not repeated here.

`check_route(route, feet_per_unit, levels)` asserts: the vocabulary; walking order;
location = leg point; each bearing recomputed from the polyline (10 ft windows, cut at the
leg's ends and the neighbouring maneuvers) within 10 degrees; modifiers against the
bearings; every place where the walk's direction over 10 ft windows changes by 60 degrees
or more has a turn within 15 ft; one connector per connector taken; distances and times
adding up to the route's in hundredths. And the rules of issue 48 at connectors and
landmarks: no turn within 15 ft before a connector (it is told with the connector, which
then stands for the turns of the places before it); no leg under 2 ft between two
rides of one kind going one way (one ride over several floors is one step); no step says
"Walk 0 ft"; no two turns in a row name the same landmark. And issue 66's: no turn within
5 ft of the start (it is told with the start, which then stands for the places there); no
two turns within 30 ft of each other on a leg: a turn that close after another is told
with it, as its `then` (checked as a turn for its bearings, and standing for its place as
a turn does), within 30 ft after it on its leg.
"""

from __future__ import annotations

import bisect
import itertools
import math
import re
from collections.abc import Sequence
from typing import Any

WINDOW = 10.0
NEAR_TURN = 15.0
NEAR_CONNECTOR = 15.0  # a turn this close before a connector is told with it
NEAR_START = 5.0  # a turn this close after the start is told with it: the first step walks
MERGE = 30.0  # a turn this close after another is told with it, as its `then`
RIDE_GAP = 2.0  # feet: rides of one kind and way closer than this are one
TOLERANCE = 10.0
MIN_CHORD = 0.01  # feet: a shorter chord has no direction (routing.bends.MIN_CHORD_FT)
HAIR = 1e-9  # relative: a chord this close to MIN_CHORD may fall either side in floats
TYPES = {"depart", "turn", "connector", "arrive"}
TURN_NAMES = {"uturn", "sharp right", "right", "slight right", "slight left", "left", "sharp left"}
XY = tuple[float, float]


def bearing(a: XY, b: XY, fpu: float) -> float | None:
    if math.dist(a, b) * fpu < MIN_CHORD:
        return None
    return math.degrees(math.atan2(b[0] - a[0], a[1] - b[1])) % 360


def apart(a: float, b: float) -> float:
    """Angle between two bearings, 0-180."""
    return abs((a - b + 180) % 360 - 180)


def turn_name(before: int, after: int) -> str | None:
    d = (after - before) % 360
    d = d - 360 if d > 180 else d  # (-180, 180]
    if abs(d) < 20:
        return None
    if abs(d) > 170:
        return "uturn"
    side = "right" if d > 0 else "left"
    return f"slight {side}" if abs(d) < 60 else side if abs(d) < 120 else f"sharp {side}"


class Polyline:
    def __init__(self, points: list[dict[str, float]], fpu: float) -> None:
        self.points = [(p["x"], p["y"]) for p in points]
        self.fpu = fpu
        self.at = [0.0]
        for a, b in itertools.pairwise(self.points):
            self.at.append(self.at[-1] + math.dist(a, b) * fpu)

    def point(self, s: float) -> XY:
        s = min(max(s, 0.0), self.at[-1])
        i = min(bisect.bisect_right(self.at, s) - 1, len(self.points) - 2)
        if i < 0:
            return self.points[0]
        span = self.at[i + 1] - self.at[i]
        t = 0.0 if span == 0 else (s - self.at[i]) / span
        (ax, ay), (bx, by) = self.points[i], self.points[i + 1]
        return (ax + t * (bx - ax), ay + t * (by - ay))

    def windows(self, s: float, lo: float, hi: float) -> tuple[float | None, float | None]:
        here = self.point(s)
        return (
            bearing(self.point(max(s - WINDOW, lo)), here, self.fpu),
            bearing(here, self.point(min(s + WINDOW, hi)), self.fpu),
        )

    def at_the_limit(self, s: float, lo: float, hi: float) -> bool:
        """Whether a window's chord is MIN_CHORD long to a hair: numpy's hypot and
        math.dist can differ by an ulp there, so whether it has a direction is a coin."""
        here = self.point(s)
        chords = (self.point(max(s - WINDOW, lo)), self.point(min(s + WINDOW, hi)))
        return any(
            abs(math.dist(here, end) * self.fpu - MIN_CHORD) <= MIN_CHORD * HAIR for end in chords
        )


def check_route(route: dict[str, Any], fpu: float, levels: Sequence[str] | None = None) -> None:
    """The rules on a route as REST answers it; `levels`: the map's level uids, lowest
    first (which way a ride goes), when known."""
    legs, maneuvers = route["legs"], route["maneuvers"]
    lines = [Polyline(leg["points"], fpu) for leg in legs]
    assert maneuvers[0]["type"] == "depart" and maneuvers[-1]["type"] == "arrive"
    assert route["steps"] == [m["instruction"] for m in maneuvers]
    for m in maneuvers:
        assert m["type"] in TYPES
        assert (m["modifier"] in TURN_NAMES) if m["type"] == "turn" else m["modifier"] is None
        assert m["side"] in ((None, "left", "right") if m["type"] == "arrive" else (None,))
        assert m["type"] in ("depart", "arrive") or m["type"] == "turn" or m["connector"]
        assert 0 <= m["bearing_before"] <= 359 and 0 <= m["bearing_after"] <= 359
        leg = legs[m["leg_index"]]
        assert leg["points"][m["point_index"]] == m["location"]
        assert m["landmark"] is None or m["type"] == "turn"
        assert m["type"] == "turn" or m["then"] == []
        for told in m["then"]:
            assert told["modifier"] in TURN_NAMES
            assert leg["points"][told["point_index"]] == told["location"]
    middle = maneuvers[1:-1]
    assert all(m["type"] in ("turn", "connector") for m in middle)
    places = [(m["leg_index"], lines[m["leg_index"]].at[m["point_index"]]) for m in maneuvers]
    assert places == sorted(places), "maneuvers out of walking order"
    assert maneuvers[0]["leg_index"] == 0 and maneuvers[0]["point_index"] == 0
    _check_connectors(legs, maneuvers)
    _check_rides(legs, levels)
    _check_bearings(lines, maneuvers, places)
    _check_bends(lines, maneuvers, places)
    _check_before_connectors(lines, legs, maneuvers, places)
    _check_after_the_start(maneuvers, places)
    _check_merged(lines, maneuvers, places)
    _check_landmarks(maneuvers)
    assert not any(re.match(r"Walk 0 (ft|m)\b", step) for step in route["steps"]), route["steps"]
    for name in ("distance", "time"):
        assert all(m[name] >= 0 for m in maneuvers)
        assert sum(round(m[name] * 100) for m in maneuvers) == round(route[name] * 100), name


def _check_connectors(legs: list[dict[str, Any]], maneuvers: list[dict[str, Any]]) -> None:
    taken = [(i, leg["connector"]) for i, leg in enumerate(legs) if leg["connector"]]
    told = [m for m in maneuvers if m["type"] == "connector"]
    assert len(told) == len(taken) == len(legs) - 1
    for (index, connector), m in zip(taken, told, strict=True):
        assert m["connector"] == connector
        assert (m["leg_index"], m["point_index"]) == (index, len(legs[index]["points"]) - 1)


def _check_rides(legs: list[dict[str, Any]], levels: Sequence[str] | None) -> None:
    """No leg under RIDE_GAP between two rides of one kind going one way: they are one
    ride, told as one step ("up 2 floors"). Without the level order, a way is told by
    not coming back to the level the first ride left."""
    for before, between in itertools.pairwise(legs):
        first, second = before["connector"], between["connector"]
        if first is None or second is None or first["kind"] != second["kind"]:
            continue
        if levels is None:
            same_way = second["to_level_uid"] != first["from_level_uid"]
        else:
            rank = {uid: k for k, uid in enumerate(levels)}
            up = rank[first["to_level_uid"]] > rank[first["from_level_uid"]]
            same_way = up == (rank[second["to_level_uid"]] > rank[second["from_level_uid"]])
        if same_way and first["kind"] != "door":
            assert between["distance"] >= RIDE_GAP, ("a ride told as two", first, second)


def _check_before_connectors(
    lines: list[Polyline],
    legs: list[dict[str, Any]],
    maneuvers: list[dict[str, Any]],
    places: list[tuple[int, float]],
) -> None:
    """No turn within NEAR_CONNECTOR before the connector that ends its leg."""
    for k, m in enumerate(maneuvers):
        leg, at = places[k]
        if m["type"] == "turn" and legs[leg]["connector"] is not None:
            left = lines[leg].at[-1] - at
            assert left > NEAR_CONNECTOR - 1e-9, f"a turn {left:.2f} ft before a connector"


def _check_after_the_start(
    maneuvers: list[dict[str, Any]], places: list[tuple[int, float]]
) -> None:
    """No turn within NEAR_START of the start: the first step walks."""
    for k, m in enumerate(maneuvers):
        leg, at = places[k]
        if m["type"] == "turn" and leg == 0:
            assert at > NEAR_START - 1e-9, f"a turn {at:.2f} ft after the start"


def _thens(
    lines: list[Polyline], maneuvers: list[dict[str, Any]]
) -> list[tuple[int, float, dict[str, Any]]]:
    """(leg, feet along it, the turn) of every turn told with another."""
    return [
        (m["leg_index"], lines[m["leg_index"]].at[told["point_index"]], told)
        for m in maneuvers
        for told in m["then"]
    ]


def _check_merged(
    lines: list[Polyline], maneuvers: list[dict[str, Any]], places: list[tuple[int, float]]
) -> None:
    """No two turns within MERGE of each other on a leg; each turn told with another lies
    after it, within MERGE, in walking order."""
    turns = [places[k] for k, m in enumerate(maneuvers) if m["type"] == "turn"]
    for (leg_a, a), (leg_b, b) in itertools.pairwise(turns):
        if leg_a == leg_b:
            assert b - a >= MERGE - 1e-9, f"two turns {b - a:.2f} ft apart"
    for k, m in enumerate(maneuvers):
        leg, at = places[k]
        seen = [lines[leg].at[told["point_index"]] for told in m["then"]]
        assert seen == sorted(seen), "turns told with a turn out of walking order"
        assert all(at < s < at + MERGE for s in seen), (at, seen)


def _check_landmarks(maneuvers: list[dict[str, Any]]) -> None:
    """No two turns in a row name the same landmark."""
    for one, other in itertools.pairwise(maneuvers):
        if one["type"] == other["type"] == "turn" and one["landmark"] and other["landmark"]:
            assert one["landmark"]["location_id"] != other["landmark"]["location_id"], (
                "two turns in a row at the same landmark",
                one,
                other,
            )


def _check_bearings(
    lines: list[Polyline], maneuvers: list[dict[str, Any]], places: list[tuple[int, float]]
) -> None:
    """Each bearing within TOLERANCE of the chord of its window (0 where none), windows cut
    at the maneuvers and the turns told with them; those turns' bearings too."""
    cuts = sorted([*places, *((leg, at) for leg, at, _ in _thens(lines, maneuvers))])

    def window(leg: int, s: float) -> tuple[float | None, float | None]:
        lo = max([at for other, at in cuts if other == leg and at < s] or [0.0])
        hi = min([at for other, at in cuts if other == leg and at > s] or [lines[leg].at[-1]])
        return lines[leg].windows(s, lo, hi)

    for leg, s, told in _thens(lines, maneuvers):
        before, after = window(leg, s)
        expected = (0.0 if before is None else before, 0.0 if after is None else after)
        for got, want in zip(
            (told["bearing_before"], told["bearing_after"]), expected, strict=True
        ):
            assert apart(got, want) <= TOLERANCE, (told, before, after)
        assert told["modifier"] == turn_name(told["bearing_before"], told["bearing_after"])
    for k, m in enumerate(maneuvers):
        leg, s = places[k]
        lo = max([at for j, (other, at) in enumerate(places) if other == leg and j < k] or [0.0])
        hi = min(
            [at for j, (other, at) in enumerate(places) if other == leg and j > k]
            or [lines[leg].at[-1]]
        )
        told = [at for other, at, _ in _thens(lines, maneuvers) if other == leg]
        lo = max([lo, *(at for at in told if at < s)])  # cut at the turns told with others
        hi = min([hi, *(at for at in told if at > s)])
        before, after = lines[leg].windows(s, lo, hi)
        if m["type"] == "connector":
            nxt = places[k + 1]
            end = nxt[1] if nxt[0] == leg + 1 else lines[leg + 1].at[-1]
            after = lines[leg + 1].windows(0.0, 0.0, end)[1]
        expected = (
            0.0 if m["type"] == "depart" or before is None else before,
            0.0 if m["type"] == "arrive" or after is None else after,
        )
        for got, want in zip((m["bearing_before"], m["bearing_after"]), expected, strict=True):
            assert apart(got, want) <= TOLERANCE, (k, m, expected)
        if m["type"] == "turn":
            assert m["modifier"] == turn_name(m["bearing_before"], m["bearing_after"])


def _check_bends(
    lines: list[Polyline], maneuvers: list[dict[str, Any]], places: list[tuple[int, float]]
) -> None:
    """Sampled every foot and at every vertex of the walk that is told (up to the arrive
    maneuver): a change of 60 degrees or more has a turn within 15 ft on its leg, unless
    the leg's connector may stand for it: within 15 ft after it, or within 15 ft and a
    window, where the vertices that make the change may all lie within 15 ft of the
    connector (where no turn stands) or turn too little once cut there; likewise the
    start, within 5 ft and a window of it."""
    turns = [places[k] for k, m in enumerate(maneuvers) if m["type"] == "turn"]
    turns += [(leg, at) for leg, at, _ in _thens(lines, maneuvers)]  # told, as turns are
    end_leg, end_at = places[-1]
    for leg, line in enumerate(lines[: end_leg + 1]):
        hi = end_at if leg == end_leg else line.at[-1]
        told_with = math.inf if leg == end_leg else line.at[-1] - NEAR_CONNECTOR
        samples = {*(a for a in line.at if a <= hi), *(float(s) for s in range(int(hi) + 1))}
        for s in sorted(samples):
            before, after = line.windows(s, 0.0, hi)
            if before is None or after is None or apart(before, after) < 60:
                continue
            if line.at_the_limit(s, 0.0, hi):
                continue  # a chord of 0.01 ft: the planner may see no direction there
            if s >= told_with - WINDOW:
                continue  # perhaps no vertex more than 15 ft before the connector turns
            if leg == 0 and s <= NEAR_START + WINDOW:
                continue  # perhaps no vertex more than 5 ft after the start turns
            assert any(t_leg == leg and abs(t_at - s) <= NEAR_TURN for t_leg, t_at in turns), (
                f"a bend of {apart(before, after):.0f} degrees at {s:.1f} ft of leg {leg} "
                "has no turn within 15 ft"
            )
