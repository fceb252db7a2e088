"""Where a walk along a polyline turns: bearings over 10 ft windows and the turn rule.

Pure geometry, no I/O; `routing.maneuvers` makes maneuvers of it (docs/routing.md,
"Maneuvers"). The walker's direction at a point is the chord of a window, the 10 ft of
route on one side of it: a chord, not a segment's own direction, so that a wobbly drawn
line points where a walker feels it going. A change of direction is measured between the
windows on either side of a point.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from routing.stopping import Stop, checked
from routing.vocabulary import MERGE_DEG, Modifier, modifier_of

if TYPE_CHECKING:  # numpy is imported by the first leg scanned (issue 15, cold start)
    import numpy as np

XY = tuple[float, float]

WINDOW_FT = 10.0  # a direction is measured over this much route
FORCE_DEG = 60  # a change this large is always a turn
MIN_CHORD_FT = 0.01  # a shorter chord has no direction (float noise at joins)
NEAR_TURN_FT = 15.0  # every place changing by FORCE_DEG or more has a turn this close
PROBE_FT = 0.5  # the step at which a leg's places are looked at for such changes
PROBE_BATCH = 1 << 16  # probes computed at once (about 10 arrays of 8 bytes each)
FORCE_SCAN_DEG = FORCE_DEG - 0.5  # what that look forces (slack for a check's rounding)


class Line:
    """One leg's polyline and the feet along it at each vertex."""

    def __init__(self, points: Sequence[XY], feet_per_unit: float) -> None:
        self.points = points
        self.fpu = feet_per_unit
        self.at = [0.0]
        for a, b in itertools.pairwise(points):
            self.at.append(self.at[-1] + math.dist(a, b) * feet_per_unit)
        self.length = self.at[-1]

    def point(self, feet: float) -> XY:
        """The point `feet` along the line (a vertex's own coordinates at a vertex)."""
        feet = min(max(feet, 0.0), self.length)
        index = bisect.bisect_right(self.at, feet) - 1
        if index >= len(self.points) - 1:
            return self.points[-1]
        (ax, ay), (bx, by) = self.points[index], self.points[index + 1]
        span = self.at[index + 1] - self.at[index]
        t = (feet - self.at[index]) / span if span > 0 else 0.0
        if t == 0.0:
            return self.points[index]
        return (ax + t * (bx - ax), ay + t * (by - ay))

    def windows(self, feet: float, lo: float, hi: float) -> tuple[float | None, float | None]:
        """The bearings of the windows before and after the point `feet` along, each at
        most WINDOW_FT long and kept within [lo, hi]."""
        here = self.point(feet)
        return (
            chord_bearing(self.point(max(feet - WINDOW_FT, lo)), here, self.fpu),
            chord_bearing(here, self.point(min(feet + WINDOW_FT, hi)), self.fpu),
        )


def chord_bearing(a: XY, b: XY, feet_per_unit: float) -> float | None:
    """Degrees clockwise from canvas up (-y) from `a` to `b`; None for a chord too short
    to have a direction."""
    if math.dist(a, b) * feet_per_unit < MIN_CHORD_FT:
        return None
    return math.degrees(math.atan2(b[0] - a[0], a[1] - b[1])) % 360.0


def whole(bearing: float | None) -> int:
    """A bearing as the API shows it: whole degrees 0-359, 0 for no direction."""
    return 0 if bearing is None else round(bearing) % 360


def signed(change: float) -> float:
    """A change of bearing brought into (-180, 180]; positive turns right."""
    change = (change + 180.0) % 360.0 - 180.0
    return 180.0 if change == -180.0 else change


def modifier(before: int, after: int) -> Modifier | None:
    """The turn rule on whole bearings (`routing.vocabulary.TURNS`: under 20 none, to 60
    slight, to 120 plain, to 170 sharp, beyond that a U-turn)."""
    return modifier_of(signed(after - before))


@dataclass(frozen=True)
class Bends:
    """One leg's bends: the vertices to turn at, and the places (feet along the leg, with
    their change, the largest first) whose direction changes by FORCE_DEG or more, each
    of which must have a turn within NEAR_TURN_FT."""

    turns: list[int]
    forced: list[tuple[float, float]]


def find_bends(line: Line, end: int | None = None, stop: Stop | None = None) -> Bends:
    """The bends of one leg before vertex `end` (its last by default), windows cut at the
    leg's start and at `end`, before the neighbouring maneuvers are known.

    Vertices changing direction by MERGE_DEG or more and closer than a window to each
    other form one bend. In a bend each vertex of FORCE_DEG or more is a turn, except one
    that adds to a turn already taken within a window (together they turn more than
    either alone: a corner drawn as two 45-degree bends, a U-turn drawn as two right
    angles); two that undo each other are a jog, two turns. A bend without such a vertex
    is one turn at its sharpest vertex when its net change (from the window before its
    first vertex to the window after its last) is MERGE_DEG or more: the changes of a
    zig-zag cancel out.

    The places changing by FORCE_DEG or more are found apart from the vertices (`_scan`):
    a bend drawn as several vertices can change the 10 ft direction most between them."""
    end = len(line.points) - 1 if end is None else end
    hi = line.at[end]
    changes, forced = _scan(line, end, stop)
    checked(stop)
    found = [
        (i, change)
        for i, change in enumerate(changes[1:end], start=1)
        if change is not None and abs(change) >= MERGE_DEG
    ]
    groups: list[list[tuple[int, float]]] = []
    for number, (i, change) in enumerate(found):
        if number % PROBE_BATCH == 0:
            checked(stop)
        if groups and line.at[i] - line.at[groups[-1][-1][0]] < WINDOW_FT:
            groups[-1].append((i, change))
        else:
            groups.append([(i, change)])
    turns: list[int] = []
    for group in groups:
        picked: list[tuple[int, float]] = []
        near = _Near()  # the picked ones by place: only those within a window can matter
        for i, change in sorted(group, key=lambda item: (-abs(item[1]), item[0])):
            checked(stop)
            if abs(change) >= FORCE_DEG and not any(
                abs(line.at[i] - line.at[j]) < WINDOW_FT
                and abs(_net(line, min(i, j), max(i, j), hi)) >= max(abs(change), abs(other))
                for j, other in near.within(line.at[i])
            ):
                picked.append((i, change))
                near.add(line.at[i], (i, change))
        if not picked and abs(_net(line, group[0][0], group[-1][0], hi)) >= MERGE_DEG:
            picked.append(max(group, key=lambda item: abs(item[1])))
        turns += [i for i, _ in picked]
    return Bends(sorted(turns), forced)


class _Near:
    """Picked vertices by their feet along the leg, so that the few within a window of a
    place are found without looking at every one (a bend drawn as 5,000 vertices 2 ft
    apart is one group: looking at all took 30 s)."""

    def __init__(self) -> None:
        self.places: list[float] = []
        self.items: list[tuple[int, float]] = []

    def add(self, place: float, item: tuple[int, float]) -> None:
        index = bisect.bisect_right(self.places, place)
        self.places.insert(index, place)
        self.items.insert(index, item)

    def within(self, place: float) -> list[tuple[int, float]]:
        """Those within a window of `place`, and perhaps a few just beyond (the caller
        decides): a slack for rounding, so that none within is left out."""
        slack = 1e-9 * max(1.0, abs(place))
        first = bisect.bisect_left(self.places, place - WINDOW_FT - slack)
        return self.items[first : bisect.bisect_right(self.places, place + WINDOW_FT + slack)]


def _scan(
    line: Line, end: int, stop: Stop | None = None
) -> tuple[list[float | None], list[tuple[float, float]]]:
    """`Line.change` (windows kept before vertex `end`) at every vertex up to `end`, and
    the places (feet along the line) that change direction by FORCE_SCAN_DEG or more,
    every vertex and every PROBE_FT (whole feet among them) looked at: numpy over all of
    them, the same windows and chords (None where a chord is too short).

    Only the probes within a window of an inner vertex can change direction (elsewhere
    both windows lie on one segment), so only those are looked at: the work grows with
    the vertices (at most 2 x WINDOW_FT / PROBE_FT + 1 probes each), not with the
    length of the leg, and runs in batches of PROBE_BATCH, so that neither does memory;
    `stop` is checked between batches. A straight 10-million-foot leg is its two ends."""
    import numpy as np

    hi = line.at[end]
    if hi <= 0:
        return [None] * (end + 1), []
    at = np.asarray(line.at[: end + 1])
    xs = np.asarray([p[0] for p in line.points[: end + 1]])
    ys = np.asarray([p[1] for p in line.points[: end + 1]])

    def changes(places: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The change of direction at each place, and whether both chords are long
        enough to have a direction."""
        behind = np.maximum(places - WINDOW_FT, 0.0)
        x0, y0 = np.interp(behind, at, xs), np.interp(behind, at, ys)
        x1, y1 = np.interp(places, at, xs), np.interp(places, at, ys)
        ahead = np.minimum(places + WINDOW_FT, hi)
        x2, y2 = np.interp(ahead, at, xs), np.interp(ahead, at, ys)
        ok = (np.hypot(x1 - x0, y1 - y0) * line.fpu >= MIN_CHORD_FT) & (
            np.hypot(x2 - x1, y2 - y1) * line.fpu >= MIN_CHORD_FT
        )
        before = np.degrees(np.arctan2(x1 - x0, y0 - y1))
        after = np.degrees(np.arctan2(x2 - x1, y1 - y2))
        return (after - before + 180.0) % 360.0 - 180.0, ok

    change, ok = changes(at)
    vertex = [c if good else None for c, good in zip(change.tolist(), ok.tolist(), strict=True)]
    strong = ok & (np.abs(change) >= FORCE_SCAN_DEG)
    found_at, found_change = [at[strong]], [change[strong]]
    for places in _probes(at[1:end], hi, stop):
        change, ok = changes(places)
        strong = ok & (np.abs(change) >= FORCE_SCAN_DEG)
        found_at.append(places[strong])
        found_change.append(change[strong])
    # A vertex on a probe is one place (its change computed from the same numbers twice).
    places, first = np.unique(np.concatenate(found_at), return_index=True)
    change = np.concatenate(found_change)[first]
    order = np.argsort(-np.abs(change), kind="stable")
    return vertex, list(zip(places[order].tolist(), change[order].tolist(), strict=True))


def _probes(inner: np.ndarray, hi: float, stop: Stop | None) -> Iterator[np.ndarray]:
    """The probes (multiples of PROBE_FT from 0 up to, not at, `hi`) within WINDOW_FT of
    the inner vertices at `inner` (feet, ascending), in ascending batches of at most
    PROBE_BATCH; `Stopped` once `stop` is set."""
    import numpy as np

    if len(inner) == 0:
        return
    last = math.ceil(hi / PROBE_FT) - 1  # np.arange(0, hi, PROBE_FT) ends there
    first = np.maximum(np.ceil((inner - WINDOW_FT) / PROBE_FT), 0).astype(np.int64)
    final = np.minimum(np.floor((inner + WINDOW_FT) / PROBE_FT), last).astype(np.int64)
    # Merge the overlapping ranges of neighbouring vertices: a run starts where a range
    # begins after every earlier one ended.
    reach = np.maximum.accumulate(final)
    starts = np.flatnonzero(np.concatenate([[True], first[1:] > reach[:-1] + 1]))
    ends = np.concatenate([starts[1:], [len(first)]]) - 1
    batch: list[np.ndarray] = []
    size = 0
    for low, high in zip(first[starts].tolist(), reach[ends].tolist(), strict=True):
        while low <= high:
            take = min(high - low + 1, PROBE_BATCH - size)
            batch.append(np.arange(low, low + take, dtype=np.int64))
            size += take
            low += take
            if size == PROBE_BATCH:
                checked(stop)
                yield np.concatenate(batch) * PROBE_FT
                batch, size = [], 0
    if batch:
        checked(stop)
        yield np.concatenate(batch) * PROBE_FT


def _net(line: Line, first: int, last: int, hi: float) -> float:
    """The change from the window before vertex `first` to the window after `last`."""
    before, _ = line.windows(line.at[first], 0.0, hi)
    _, after = line.windows(line.at[last], 0.0, hi)
    return 0.0 if before is None or after is None else signed(after - before)
