"""The bend probe (routing/bends.py `_scan`, issue 45): it finds what looking at every
half foot of a leg finds, with work and memory that grow with the leg's vertices, not
with its length, and it ends soon after its `stop` event is set.

A waypoint a billion units off the drawing once made a leg that long, and the probe
allocated an array per half foot of it: 15 GB for one request.
"""

from __future__ import annotations

import math
import threading
import time
import tracemalloc

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from routing import bends
from routing.bends import FORCE_SCAN_DEG, MIN_CHORD_FT, WINDOW_FT, Line, _scan, find_bends
from routing.maneuvers import plan_maneuvers
from routing.route import Leg, Route, polyline_feet
from routing.stopping import Stopped
from tests.examples import examples

HALF_FOOT = 0.5


def every_half_foot(line: Line, end: int) -> tuple[list[float | None], list[tuple[float, float]]]:
    """What the probe answered before issue 45, written out as it was: every vertex and
    every half foot from the leg's start looked at, in one pass."""
    hi = line.at[end]
    at = np.asarray(line.at[: end + 1])
    if hi <= 0:
        return [None] * (end + 1), []
    xs = np.asarray([p[0] for p in line.points[: end + 1]])
    ys = np.asarray([p[1] for p in line.points[: end + 1]])
    places = np.union1d(np.arange(0.0, hi, HALF_FOOT), at)

    def point(where: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.interp(where, at, xs), np.interp(where, at, ys)

    x0, y0 = point(np.maximum(places - WINDOW_FT, 0.0))
    x1, y1 = point(places)
    x2, y2 = point(np.minimum(places + WINDOW_FT, hi))
    ok = (np.hypot(x1 - x0, y1 - y0) * line.fpu >= MIN_CHORD_FT) & (
        np.hypot(x2 - x1, y2 - y1) * line.fpu >= MIN_CHORD_FT
    )
    before = np.degrees(np.arctan2(x1 - x0, y0 - y1))
    after = np.degrees(np.arctan2(x2 - x1, y1 - y2))
    change = (after - before + 180.0) % 360.0 - 180.0
    at_vertex = np.searchsorted(places, at)
    vertex = [
        c if good else None
        for c, good in zip(change[at_vertex].tolist(), ok[at_vertex].tolist(), strict=True)
    ]
    strong = np.flatnonzero(ok & (np.abs(change) >= FORCE_SCAN_DEG))
    strong = strong[np.argsort(-np.abs(change[strong]), kind="stable")]
    return vertex, list(zip(places[strong].tolist(), change[strong].tolist(), strict=True))


@st.composite
def polylines(draw: st.DrawFn) -> tuple[list[tuple[float, float]], float, int]:
    """Walked legs as routes make them: long and short segments, repeated points (a
    waypoint on its foot), whole-foot corners, tiny wobbles; a scale; where they end."""
    count = draw(st.integers(2, 30))
    points = [(draw(st.floats(-50, 50)), draw(st.floats(-50, 50)))]
    for _ in range(count - 1):
        x, y = points[-1]
        step = draw(
            st.sampled_from(["same", "wobble", "corner", "free"]),
        )
        if step == "same":
            points.append((x, y))
        elif step == "wobble":
            points.append((x + draw(st.floats(-3, 3)), y + draw(st.floats(-3, 3))))
        elif step == "corner":
            points.append((round(x) + draw(st.integers(-40, 40)), round(y)))
        else:
            angle, length = draw(st.floats(0, 2 * math.pi)), draw(st.floats(0, 60))
            points.append((x + length * math.cos(angle), y + length * math.sin(angle)))
    fpu = draw(st.sampled_from([1.0, 0.25, 0.5, 3.7]))
    end = draw(st.integers(0, count - 1))
    return points, fpu, end


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(polylines(), st.sampled_from([3, 41, bends.PROBE_BATCH]))
def test_the_probe_finds_what_every_half_foot_finds(drawn, batch):
    """The same changes at the vertices and the same forced places, in the same order,
    whatever the size of a batch of probes (a batch may end inside a vertex's window)."""
    points, fpu, end = drawn
    line = Line(points, fpu)
    kept = bends.PROBE_BATCH
    bends.PROBE_BATCH = batch
    try:
        assert _scan(line, end) == every_half_foot(line, end)
    finally:
        bends.PROBE_BATCH = kept


def test_a_leg_of_many_vertices_is_probed_as_before():
    """A 3,000-vertex leg of corridors and doors: several batches, the same answer."""
    rng = np.random.default_rng(45)
    steps = rng.choice([0.0, 2.0, 7.0, 25.0, 80.0], size=3000)
    angles = rng.choice([0.0, 45.0, 90.0, 180.0, 270.0], size=3000) + rng.normal(0, 3, 3000)
    xy = np.cumsum(
        np.stack([steps * np.sin(np.radians(angles)), -steps * np.cos(np.radians(angles))], 1), 0
    )
    line = Line([(float(x), float(y)) for x, y in xy], 0.25)
    assert _scan(line, len(xy) - 1) == every_half_foot(line, len(xy) - 1)


def least_of_three(run) -> tuple[float, int]:
    """The least thread CPU time and the least peak of traced memory of three runs."""
    times, peaks = [], []
    for _ in range(3):
        tracemalloc.start()
        started = time.thread_time()
        run()
        times.append(time.thread_time() - started)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    return min(times), min(peaks)


@pytest.mark.parametrize("far", [1e7, 1e9])
def test_a_leg_ten_million_feet_long_costs_what_a_short_one_costs(far):
    """From a point `far` feet off to a corner and on: the leg's first segment is that
    long. Looked at every half foot it took 2e7 probes (523 MB at 1e7 ft, issue 45);
    now the two corners' windows: a few hundred probes, under a megabyte and 50 ms."""
    points = [(far, -far), (10.0, 10.0), (10.0, 50.0), (200.0, 50.0)]
    line = Line(points, 1.0)
    seconds, peak = least_of_three(lambda: _scan(line, 3))
    assert seconds < 0.05
    assert peak < 1_000_000
    vertex, forced = _scan(line, 3)
    assert [None if c is None else round(c) for c in vertex] == [None, -45, -90, None]
    # The left turn at the second corner, and the probes of its windows that see it.
    assert forced[0] == (line.at[2], -90.0)
    assert len(forced) == 16
    assert all(abs(place - line.at[2]) < WINDOW_FT for place, _ in forced)


def test_the_maneuvers_of_a_far_leg_are_those_of_its_corners():
    """A whole plan over a 1e9-foot leg: depart south-west toward the building, bear
    left, turn left, arrive; in bounded time and memory."""
    points = [(1e9, -1e9), (10.0, 10.0), (10.0, 50.0), (200.0, 50.0)]
    feet = polyline_feet(points, 1.0)
    route = Route(feet, feet / 4.0, [Leg(0, points, feet, feet / 4.0)], [])
    seconds, peak = least_of_three(lambda: plan_maneuvers(route, 1.0))
    assert seconds < 0.05 and peak < 1_000_000
    told = [
        (m.type, m.modifier, m.point_index, m.bearing_before, m.bearing_after)
        for m in plan_maneuvers(route, 1.0)
    ]
    assert told == [
        ("depart", None, 0, 0, 225),
        ("turn", "slight left", 1, 225, 180),
        ("turn", "left", 2, 180, 90),
        ("arrive", None, 3, 90, 0),
    ]


def test_a_set_stop_ends_the_probe_at_its_next_batch():
    """A 200,000-vertex zig-zag, its 10 ft windows changing at every vertex: with its
    `stop` set by another thread after 20 ms, the probe ends within a batch."""
    count = 200_000
    points = [(30.0 * k, 0.0 if k % 2 == 0 else 30.0) for k in range(count)]
    line = Line(points, 1.0)
    stop = threading.Event()
    timer = threading.Timer(0.02, stop.set)
    timer.start()
    started = time.thread_time()
    with pytest.raises(Stopped):
        find_bends(line, stop=stop)
    timer.join()
    assert time.thread_time() - started < 1.0
    stop.set()
    with pytest.raises(Stopped):  # set before it starts: no probe computed
        _scan(line, count - 1, stop)


def spiral(count: int, step: float = 2.0, turn: float = 40.0) -> Line:
    """A bend drawn as `count` vertices `step` ft apart, each turning `turn` degrees: its
    vertices are all one group (each within a window of the next)."""
    points, bearing = [(0.0, 0.0)], 90.0
    for _ in range(count - 1):
        bearing += turn
        x, y = points[-1]
        radians = math.radians(bearing)
        points.append((x + step * math.sin(radians), y - step * math.cos(radians)))
    return Line(points, 1.0)


def test_a_bend_of_many_close_vertices_compares_each_with_its_neighbours_only(monkeypatch):
    """Whether a vertex adds to a turn already taken is asked of the turns within a window
    of it, found by place: the same turns as asking every turn taken (the old way, here
    by making `within` answer all of them), and 5,000 vertices in well under a second of
    CPU, where asking every one took 4 s."""
    line = spiral(600)
    found = find_bends(line)
    monkeypatch.setattr(bends._Near, "within", lambda self, place: self.items)
    assert find_bends(line) == found
    monkeypatch.undo()
    assert len(found.turns) > 100
    long = spiral(5000)
    seconds = []
    for _ in range(3):
        started = time.thread_time()
        find_bends(long)
        seconds.append(time.thread_time() - started)
    assert min(seconds) < 1.0
