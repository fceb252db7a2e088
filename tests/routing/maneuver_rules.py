"""The rules of issue 33 for a route's maneuvers, checked on an answer as a client sees it
(REST's snake_case dict), written apart from routing/maneuvers.py: its own bearings,
windows and turn rule, so that a mistake there is not repeated here.

`check_route(route, feet_per_unit)` asserts: the vocabulary; walking order; location =
leg point; each bearing recomputed from the polyline (10 ft windows, cut at the leg's ends
and the neighbouring maneuvers) within 10 degrees; modifiers against the bearings; every
place where the walk's direction over 10 ft windows changes by 60 degrees or more has a
turn within 15 ft; one connector per connector taken; distances and times adding up to
the route's in hundredths.
"""

from __future__ import annotations

import bisect
import itertools
import math
from typing import Any

WINDOW = 10.0
NEAR_TURN = 15.0
TOLERANCE = 10.0
TYPES = {"depart", "turn", "connector", "arrive"}
TURN_NAMES = {"uturn", "sharp right", "right", "slight right", "slight left", "left", "sharp left"}
XY = tuple[float, float]


def bearing(a: XY, b: XY, fpu: float) -> float | None:
    if math.dist(a, b) * fpu < 0.01:
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


def check_route(route: dict[str, Any], fpu: float) -> None:
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
    middle = maneuvers[1:-1]
    assert all(m["type"] in ("turn", "connector") for m in middle)
    places = [(m["leg_index"], lines[m["leg_index"]].at[m["point_index"]]) for m in maneuvers]
    assert places == sorted(places), "maneuvers out of walking order"
    assert maneuvers[0]["leg_index"] == 0 and maneuvers[0]["point_index"] == 0
    _check_connectors(legs, maneuvers)
    _check_bearings(lines, maneuvers, places)
    _check_bends(lines, maneuvers, places)
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


def _check_bearings(
    lines: list[Polyline], maneuvers: list[dict[str, Any]], places: list[tuple[int, float]]
) -> None:
    """Each bearing within TOLERANCE of the chord of its window (0 where none)."""
    for k, m in enumerate(maneuvers):
        leg, s = places[k]
        lo = max([at for j, (other, at) in enumerate(places) if other == leg and j < k] or [0.0])
        hi = min(
            [at for j, (other, at) in enumerate(places) if other == leg and j > k]
            or [lines[leg].at[-1]]
        )
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
    maneuver): a change of 60 degrees or more has a turn within 15 ft on its leg."""
    turns = [places[k] for k, m in enumerate(maneuvers) if m["type"] == "turn"]
    end_leg, end_at = places[-1]
    for leg, line in enumerate(lines[: end_leg + 1]):
        hi = end_at if leg == end_leg else line.at[-1]
        samples = {*(a for a in line.at if a <= hi), *(float(s) for s in range(int(hi) + 1))}
        for s in sorted(samples):
            before, after = line.windows(s, 0.0, hi)
            if before is None or after is None or apart(before, after) < 60:
                continue
            assert any(t_leg == leg and abs(t_at - s) <= NEAR_TURN for t_leg, t_at in turns), (
                f"a bend of {apart(before, after):.0f} degrees at {s:.1f} ft of leg {leg} "
                "has no turn within 15 ft"
            )
