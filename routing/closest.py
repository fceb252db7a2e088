"""The nearest of many targets (issue 47, a route's `to: {nearest: ...}`): which targets
may be reached first from a source, with one search on a loaded walk graph.

No augmented copy of the graph (`ModeGraph.augmented`) is made for it: one Dijkstra on
the cached contracted graph from the two ends of the source's chain, plus the joins'
times (`first_times`), gives every target the time E18 would (up to the order of a
float sum); only targets that may tie with the first once rounded to hundredths are
measured as E18 measures them. The source's join is handed to the route that follows
(`ModeGraph.joins`).

Candidate sets asked again and again (a map's filter or list of locations) are kept
with their loaded graph (`keep_targets`, least recently used first out, as many points
in all as a mode keeps joins), and each mode prepares a kept set once (`prepared`): its
joins, their chains' ends as Dijkstra's targets and the seconds from them. Both are
weakly held: they go with their graph, and with their set. A kept point holds about 460
bytes with both plain modes' preparations (tracemalloc, 1,000 points: its id and point
190, each mode's arrays 135), besides its kept joins.
"""

from __future__ import annotations

import math
import threading
import weakref
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from routing.matrix import Cell, Join, LoadedGraph, ModeGraph, Point, solve
from routing.model import FOOT
from routing.profile import Profile
from routing.stopping import Stop, checked

if TYPE_CHECKING:  # numpy is imported by the first graph loaded (routing.matrix)
    import numpy as np

# Seconds past the least time within which `closest` measures a target's path: two
# times that round to the same hundredth differ by less than 0.01 (and floating sums of
# one path in another order by far less).
CLOSEST_SLACK = 0.02


@dataclass(frozen=True, eq=False)
class Targets:
    """A nearest route's candidates: the caller's names for them (a map's location ids)
    and their points, in one order. Compared by identity: a kept one is found at once."""

    names: tuple[str, ...]
    points: tuple[Point, ...]


@dataclass(frozen=True)
class Closest:
    """The targets that may be reached first (`closest`): their positions in the
    targets, and, when there are several (ties to break), their cells as `matrix`
    measures them; none measured for a sole one: it is first whatever they say."""

    first: list[int]
    cells: list[Cell]


@dataclass(frozen=True)
class Prepared:
    """What a mode's search needs of the targets that join it (`first_times`), by their
    position among those: the target's position in the targets, its chain's two ends as
    Dijkstra's targets (`columns`, and `ends`: each end's index in them), the seconds
    from each end to the target, and its chain, feet along it and gap (a source on the
    same chain may go straight along it). Arrays: about 140 bytes a target."""

    joined: np.ndarray  # positions in the targets
    columns: list[int]  # distinct vertices
    ends: np.ndarray  # joined x 2, indexes into `columns`
    arrive: np.ndarray  # joined x 2, seconds
    chain: np.ndarray
    along: np.ndarray  # feet from the chain's first end
    gap: np.ndarray  # feet


@dataclass
class _Kept:
    """A loaded graph's kept candidate sets, least recently used first."""

    sets: OrderedDict[Hashable, Targets] = field(default_factory=OrderedDict)
    points: int = 0


_KEPT: weakref.WeakKeyDictionary[LoadedGraph, _Kept] = weakref.WeakKeyDictionary()
_PREPARED: weakref.WeakKeyDictionary[Targets, weakref.WeakKeyDictionary[ModeGraph, Prepared]] = (
    weakref.WeakKeyDictionary()
)
_LOCK = threading.Lock()  # requests may run in threads (`storage.cpu`)


def targets_kept(loaded: LoadedGraph) -> int:
    """How many points a loaded graph's kept candidate sets hold at most, in all."""
    return loaded.modes[FOOT].joins_kept


def kept_targets(loaded: LoadedGraph, key: Hashable) -> Targets | None:
    """The candidate set kept with `loaded` under `key` (`keep_targets`), if it still is."""
    with _LOCK:
        kept = _KEPT.get(loaded)
        found = None if kept is None else kept.sets.get(key)
        if kept is not None and found is not None:
            kept.sets.move_to_end(key)
        return found


def keep_targets(loaded: LoadedGraph, key: Hashable, targets: Targets) -> None:
    """Keep a candidate set with `loaded` under `key` (what names it: the caller's filter
    and the version of what it filtered), least recently used first out, at most
    `targets_kept` points in all; a larger set is not kept."""
    size, bound = len(targets.points), targets_kept(loaded)
    if size > bound:
        return
    with _LOCK:
        kept = _KEPT.setdefault(loaded, _Kept())
        old = kept.sets.pop(key, None)
        kept.points -= 0 if old is None else len(old.points)
        while kept.sets and kept.points + size > bound:
            _, dropped = kept.sets.popitem(last=False)
            kept.points -= len(dropped.points)
        kept.sets[key] = targets
        kept.points += size


def closest(
    loaded: LoadedGraph,
    profile: Profile,
    source: Point,
    targets: Targets,
    stop: Stop | None = None,
) -> Closest | None:
    """The targets that may be reached first from `source` in `profile` (their positions
    in `targets`); None when `source` joins no walk line. One search gives every target's
    time (`first_times`); only when several are within CLOSEST_SLACK of the least are
    they measured as `matrix` measures them, on a graph of the source and those few, so a
    nearest route pays for one search, not for N paths."""
    mode = loaded.mode_graph(profile)
    ready = prepared(mode, targets, stop)
    (start,) = mode.joins([source], stop, hand_over=[source])  # for the route after
    if start is None:
        return None
    if not ready.columns:
        return Closest([], [])
    least = first_times(mode, source, start, targets, ready, stop)
    best = float(least.min())
    if not math.isfinite(best):
        return Closest([], [])
    first: list[int] = ready.joined[least <= best + CLOSEST_SLACK].tolist()
    if len(first) == 1:
        return Closest(first, [])
    picked = [targets.points[index] for index in first]
    known = dict(zip(picked, mode.joins(picked, stop), strict=True))
    known[source] = start
    points = list(dict.fromkeys([source, *picked]))
    pairs = [(source, target) for target in picked]
    found = mode.augmented(points, pairs, stop, joined={point: known[point] for point in points})
    vertex = found.vertex
    (cells,) = solve(
        found.graph,
        found.lengths,
        found.times,
        found.time_list,
        set(),  # every point here joins: the source, and targets that were reached
        [vertex[source]],
        [vertex[point] for point in picked],
        stop,
    )
    return Closest(first, cells)


def prepared(mode: ModeGraph, targets: Targets, stop: Stop | None = None) -> Prepared:
    """`targets` as `mode`'s searches need them: made on first use, then kept with them
    (their joins kept as `ModeGraph.joins` keeps candidates')."""
    with _LOCK:
        by_mode = _PREPARED.get(targets)
        found = None if by_mode is None else by_mode.get(mode)
    if found is None:
        found = _prepare(mode, targets, stop)
        with _LOCK:
            _PREPARED.setdefault(targets, weakref.WeakKeyDictionary())[mode] = found
    return found


def _prepare(mode: ModeGraph, targets: Targets, stop: Stop | None) -> Prepared:
    import numpy as np

    joins = mode.joins(targets.points, stop, keep=targets.points)
    joined = [(index, join) for index, join in enumerate(joins) if join is not None]
    ends = np.array([join.ends for _, join in joined], dtype=np.int64).reshape(-1, 2)
    columns, inverse = np.unique(mode.vertex_of[ends].ravel(), return_inverse=True)
    along = np.array([join.along for _, join in joined], dtype=float).reshape(-1, 2)
    gap = np.array([join.gap for _, join in joined], dtype=float)
    return Prepared(
        joined=np.array([index for index, _ in joined], dtype=np.int64),
        columns=columns.tolist(),
        ends=inverse.reshape(-1, 2),
        arrive=(along + gap[:, None]) / mode.speed,
        chain=np.array([join.chain for _, join in joined], dtype=np.int64),
        along=along[:, 0].copy(),
        gap=gap,
    )


def first_times(
    mode: ModeGraph,
    source: Point,
    start: Join,
    targets: Targets,
    ready: Prepared,
    stop: Stop | None = None,
) -> np.ndarray:
    """The least time from `source` (joined at `start`) to each target that joins
    (`ready.joined`): the times of the graph augmented with both (`augmented`), without
    building it. A path there leaves the source by one of its two join edges (or the
    direct edge along a shared chain) and reaches the target by one of its own; passing
    another waypoint's vertex is never quicker than the chain it stands on. So: the join
    times, plus the contracted graph's times between the chains' ends (one Dijkstra per
    end of the source's chain)."""
    import numpy as np

    checked(stop)
    sources = [int(mode.vertex_of[end]) for end in start.ends]
    between = np.array(mode.graph.distances(sources, ready.columns, weights=mode.time_list))
    between += np.array([[(along + start.gap) / mode.speed] for along in start.along])
    # [source's chain end, target, target's chain end]: leave, cross, arrive.
    total = between[:, ready.ends]
    total += ready.arrive
    least: np.ndarray = total.min(axis=(0, 2))
    for position in np.flatnonzero(ready.chain == start.chain).tolist():
        if targets.points[int(ready.joined[position])] == source:
            least[position] = 0.0  # the source's own point: one vertex
        else:
            along, gap = float(ready.along[position]), float(ready.gap[position])
            direct = (start.gap + abs(start.along[0] - along) + gap) / mode.speed
            least[position] = min(float(least[position]), direct)
    return least
