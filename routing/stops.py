"""The order of least total time through several stops (issue 50, point 3): point 0 is
the start and point n-1 the destination, both fixed; the points between are the stops.

Up to EXACT_STOPS stops the order is exact: Held-Karp dynamic programming over the
subsets of stops, on the times made exact integers (every float is a dyadic rational),
so a tie is a true tie and is broken by the lexicographically first order. Beyond, a
heuristic with bounded work: cheapest insertion and the order as given, each improved by
2-opt (reverse a run of stops) and Or-opt (move a run of 1-3 stops, either way round)
until no move gains or MAX_MOVES moves are made, then ILS_KICKS perturbations of the
best (swap two runs, improve again) from a generator seeded by the instance's size.
The same times give the same order, every time.

An unreachable leg (None or inf) costs more than any order's finite time, so the order
has the fewest unreachable legs first, the least time second; its `total` is inf when
any leg is unreachable. Work ends with `Stopped` soon after `stop` is set.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from routing.stopping import Stop, checked

if TYPE_CHECKING:
    import numpy as np

MAX_STOPS = 25  # stops between the start and the destination, at most
EXACT_STOPS = 8  # up to this many stops the order is exact (Held-Karp)
MAX_MOVES = 100  # improving moves of one local search, at most (measured: 21)
ILS_KICKS = 30  # perturbations of the best order tried (heuristic only)
OR_RUNS = (1, 2, 3)  # lengths of the runs of stops Or-opt moves
# A float move gains only when it gains more than this times the problem's scale (the
# heuristic's float sums differ from exact ones by far less).
GAIN_EPSILON = 1e-12

Optimized = Literal["exact", "heuristic"]
Times = Sequence[Sequence[float | None]]


@dataclass(frozen=True)
class StopOrder:
    """The order (a permutation of range(n), 0 first and n-1 last), its total seconds
    (the correctly rounded sum of its legs; inf when a leg is unreachable) and how it
    was found."""

    order: list[int]
    total: float
    optimized: Optimized


def best_order(times: Times, stop: Stop | None = None) -> StopOrder:
    """The order of least total time through `times` (n x n seconds, None or inf when
    unreachable; the diagonal is not read): exact up to EXACT_STOPS stops, else the
    heuristic's."""
    checked(stop)
    costs = _exact_costs(times)
    if len(costs) - 2 > EXACT_STOPS:
        return _heuristic(times, costs, stop)
    order = _held_karp(costs, stop)
    return StopOrder(order, _total(times, order), "exact")


def exact_order(times: Times, stop: Stop | None = None) -> StopOrder:
    """Held-Karp at any size (2^stops x stops^2 steps: for measuring the heuristic)."""
    checked(stop)
    order = _held_karp(_exact_costs(times, limit=False), stop)
    return StopOrder(order, _total(times, order), "exact")


def heuristic_order(times: Times, stop: Stop | None = None) -> StopOrder:
    """The heuristic's order at any size (see the module's docstring)."""
    checked(stop)
    return _heuristic(times, _exact_costs(times), stop)


def _heuristic(times: Times, costs: list[list[int]], stop: Stop | None) -> StopOrder:
    import numpy as np

    n = len(costs)
    given = list(range(n))
    if n <= 3:
        return StopOrder(given, _total(times, given), "heuristic")
    flat = _float_costs(costs)
    epsilon = GAIN_EPSILON * float(np.abs(flat).sum())
    found = [given]
    for start in (given, _cheapest_insertion(flat, stop)):
        found.append(_improve(flat, start, epsilon, stop))
    best = min(found, key=lambda order: (_cost(costs, order), order))
    rng = random.Random(n)
    for _ in range(ILS_KICKS):
        kicked = _improve(flat, _kick(best, rng), epsilon, stop)
        if (_cost(costs, kicked), kicked) < (_cost(costs, best), best):
            best = kicked
    return StopOrder(best, _total(times, best), "heuristic")


def _exact_costs(times: Times, limit: bool = True) -> list[list[int]]:
    """The times as exact integers (all scaled by one power of two), an unreachable leg
    as U, more than any order's finite time: an order's cost is then (unreachable
    legs) x U + (its exact time x scale), compared exactly."""
    n = len(times)
    if n < 2 or (limit and n > MAX_STOPS + 2):
        raise ValueError(f"between 2 and {MAX_STOPS + 2} points (start, stops, destination)")
    ratios: list[list[tuple[int, int] | None]] = []
    for i, row in enumerate(times):
        if len(row) != n:
            raise ValueError("times must be a square matrix")
        ratios.append([None if i == j else _ratio(value) for j, value in enumerate(row)])
    scale = max((r[1] for row in ratios for r in row if r is not None), default=1)
    scaled = [[None if r is None else r[0] * (scale // r[1]) for r in row] for row in ratios]
    unreachable = 1 + sum(value for row in scaled for value in row if value is not None)
    return [
        [0 if i == j else unreachable if value is None else value for j, value in enumerate(row)]
        for i, row in enumerate(scaled)
    ]


def _ratio(value: float | None) -> tuple[int, int] | None:
    """A time as numerator and power-of-two denominator; None when unreachable."""
    if value is None or value == math.inf:
        return None
    value = float(value)
    if math.isnan(value) or value < 0:
        raise ValueError(f"a time must be a number of seconds >= 0, not {value}")
    return value.as_integer_ratio()


def _total(times: Times, order: list[int]) -> float:
    """The order's seconds, correctly rounded (inf when a leg is unreachable)."""
    legs = [times[a][b] for a, b in itertools.pairwise(order)]
    if any(leg is None for leg in legs):
        return math.inf
    return math.fsum(float(leg) for leg in legs if leg is not None)


def _cost(costs: list[list[int]], order: list[int]) -> int:
    return sum(costs[a][b] for a, b in itertools.pairwise(order))


def _held_karp(costs: list[list[int]], stop: Stop | None) -> list[int]:
    """The exact order: per set of stops visited and the last of them, the least cost
    from the start and the lexicographically first order of that cost."""
    n = len(costs)
    k = n - 2
    if k <= 0:
        return list(range(n))
    full = (1 << k) - 1
    best: list[list[int | None]] = [[None] * k for _ in range(full + 1)]
    path: list[list[tuple[int, ...]]] = [[()] * k for _ in range(full + 1)]
    for j in range(k):
        best[1 << j][j] = costs[0][j + 1]
        path[1 << j][j] = (j + 1,)
    for mask in range(1, full):
        checked(stop)
        row, paths = best[mask], path[mask]
        for j in range(k):
            value = row[j]
            if value is None:
                continue
            leaving = costs[j + 1]
            for last in range(k):
                bit = 1 << last
                if mask & bit:
                    continue
                candidate = value + leaving[last + 1]
                here = best[mask | bit]
                known = here[last]
                if known is None or candidate < known:
                    here[last] = candidate
                    path[mask | bit][last] = (*paths[j], last + 1)
                elif candidate == known:
                    longer = (*paths[j], last + 1)
                    if longer < path[mask | bit][last]:
                        path[mask | bit][last] = longer
    ends = [
        (value + costs[j + 1][n - 1], path[full][j])
        for j, value in enumerate(best[full])
        if value is not None
    ]
    return [0, *min(ends)[1], n - 1]


def _float_costs(costs: list[list[int]]) -> np.ndarray:
    """The exact costs as floats, scaled to at most 1 (a large scale overflows none)."""
    import numpy as np

    top = max(max(row) for row in costs) or 1
    return np.array([[value / top for value in row] for row in costs], dtype=np.float64)


def _cheapest_insertion(flat: np.ndarray, stop: Stop | None) -> list[int]:
    """From start -> destination, insert the stop whose best place adds least, until
    all are in (ties: the earliest place, then the lowest stop)."""
    import numpy as np

    n = len(flat)
    order = [0, n - 1]
    left = list(range(1, n - 1))
    while left:
        checked(stop)
        at, after = np.array(order[:-1]), np.array(order[1:])
        ways = np.array(left)
        added = flat[np.ix_(at, ways)] + flat[np.ix_(ways, after)].T - flat[at, after][:, None]
        place, which = divmod(int(np.argmin(added)), len(left))
        order.insert(place + 1, left.pop(which))
    return order


def _improve(flat: np.ndarray, order: list[int], epsilon: float, stop: Stop | None) -> list[int]:
    """Best-gain 2-opt and Or-opt moves until none gains more than `epsilon`, at most
    MAX_MOVES of them."""
    import numpy as np

    order = list(order)
    for _ in range(MAX_MOVES):
        checked(stop)
        p = np.array(order)
        ahead = flat[p[:-1], p[1:]]  # leg m: order[m] -> order[m + 1]
        back = flat[p[1:], p[:-1]]
        forward = np.concatenate([[0.0], np.cumsum(ahead)])  # cost up to position m
        backward = np.concatenate([[0.0], np.cumsum(back)])
        moves = [_two_opt(flat, p, ahead, forward, backward)]
        moves += [_or_opt(flat, p, ahead, forward, backward, run) for run in OR_RUNS]
        gain, move = min(moves, key=lambda found: found[0])
        if gain >= -epsilon or move is None:
            return order
        order = _apply(order, move)
    return order


Move = tuple[str, int, int, int]  # kind, first, last position of the run, where (Or-opt)


def _two_opt(
    flat: np.ndarray, p: np.ndarray, ahead: np.ndarray, forward: np.ndarray, backward: np.ndarray
) -> tuple[float, Move | None]:
    """The best reversal of positions i..j (1 <= i < j <= n-2)."""
    import numpy as np

    n = len(p)
    i, j = np.triu_indices(n - 2, k=1)
    i, j = i + 1, j + 1
    if len(i) == 0:
        return 0.0, None
    delta = (
        flat[p[i - 1], p[j]]
        + flat[p[i], p[j + 1]]
        - ahead[i - 1]
        - ahead[j]
        + (backward[j] - backward[i])
        - (forward[j] - forward[i])
    )
    best = int(np.argmin(delta))
    return float(delta[best]), ("reverse", int(i[best]), int(j[best]), 0)


def _or_opt(
    flat: np.ndarray,
    p: np.ndarray,
    ahead: np.ndarray,
    forward: np.ndarray,
    backward: np.ndarray,
    run: int,
) -> tuple[float, Move | None]:
    """The best move of a run of `run` stops (positions i..i+run-1) to between the
    positions q and q+1 of the others, kept or turned round."""
    import numpy as np

    n = len(p)
    first = np.arange(1, n - run)  # the run's first position; its last is first + run - 1
    if len(first) == 0:
        return 0.0, None
    last = first + run - 1
    removed = flat[p[first - 1], p[last + 1]] - ahead[first - 1] - ahead[last]
    q = np.arange(n - 1)
    a, b = p[q][None, :], p[q + 1][None, :]
    head, tail = p[first][:, None], p[last][:, None]
    kept = flat[a, head] + flat[tail, b] - ahead[q][None, :]
    turned = flat[a, tail] + flat[head, b] - ahead[q][None, :]
    turned = (
        turned + ((backward[last] - backward[first]) - (forward[last] - forward[first]))[:, None]
    )
    inside = (q[None, :] >= first[:, None] - 1) & (q[None, :] <= last[:, None])
    both = np.stack([kept, turned]) + removed[None, :, None]
    both[:, inside] = np.inf
    if run == 1:
        both[1] = np.inf  # one stop turned round is the same move
    best = int(np.argmin(both))
    way, at, where = np.unravel_index(best, both.shape)
    kind = "move" if way == 0 else "move-turned"
    gain = float(both[way, at, where])
    if not math.isfinite(gain):
        return 0.0, None
    return gain, (kind, int(first[at]), int(last[at]), int(where))


def _apply(order: list[int], move: Move) -> list[int]:
    kind, i, j, q = move
    if kind == "reverse":
        return order[:i] + order[i : j + 1][::-1] + order[j + 1 :]
    run = order[i : j + 1]
    if kind == "move-turned":
        run.reverse()
    rest = order[:i] + order[j + 1 :]
    # q (a position in `order`, outside the run) in `rest`: after the run it moved back.
    place = q if q < i else q - len(run)
    return rest[: place + 1] + run + rest[place + 1 :]


def _kick(order: list[int], rng: random.Random) -> list[int]:
    """Swap two adjacent runs of stops (a double bridge), the ends left in place."""
    stops = order[1:-1]
    if len(stops) < 4:
        return list(order)
    a, b, c = sorted(rng.sample(range(1, len(stops)), 3))
    return [order[0], *stops[:a], *stops[b:c], *stops[a:b], *stops[c:], order[-1]]
