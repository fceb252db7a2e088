"""How one route is costed (issue 50, costing options and closures): the mode, a walking
speed, seconds added per use of a connector kind, kinds never used, edges closed.

A `Profile` is what a `routing.matrix.ModeGraph` is built for: E18, route and `nearest`
given one profile use one graph, so their distances and times agree. It is a value (equal
profiles are one key of the per-graph cache), normalised when made: penalties sorted by
kind, zeros dropped.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from routing.model import FOOT

if TYPE_CHECKING:  # numpy is imported when a graph is loaded (issue 15, cold start)
    import numpy as np

    from routing.model import WalkGraph


@dataclass(frozen=True)
class Profile:
    """How one route is costed: what a ModeGraph is built for."""

    mode: int = FOOT  # routing.model.FOOT or WHEELCHAIR
    speed: float | None = None  # ft/s; None: the mode's speed (routing.costs.Costs)
    penalties: tuple[tuple[int, float], ...] = ()  # (edge kind, seconds per use), sorted, no zeros
    excluded: frozenset[int] = frozenset()  # edge kinds never used (STAIRS, ...)
    closed: frozenset[int] = frozenset()  # edge indices never used (closures)

    def __post_init__(self) -> None:
        kept = sorted((int(kind), float(seconds)) for kind, seconds in self.penalties if seconds)
        object.__setattr__(self, "penalties", tuple(kept))
        object.__setattr__(self, "excluded", frozenset(self.excluded))
        object.__setattr__(self, "closed", frozenset(self.closed))

    @property
    def is_plain(self) -> bool:
        """Only a mode: the graphs built when a map's walk graph is loaded."""
        return self == Profile(self.mode)

    def penalty(self, kind: int) -> float:
        """Seconds added per use of a connector of `kind`."""
        return dict(self.penalties).get(kind, 0.0)

    def without(self, kinds: Iterable[int] = (), closed: bool = False) -> Profile:
        """The same profile with `kinds` no longer excluded (and no closed edges, when
        `closed`): what a route's `reason` compares with to name what stands in its way."""
        return Profile(
            self.mode,
            self.speed,
            self.penalties,
            self.excluded - frozenset(kinds),
            frozenset() if closed else self.closed,
        )


def usable_edges(graph: WalkGraph, profile: Profile) -> np.ndarray:
    """The edges a profile may use, ascending: those of its mode, less the excluded kinds
    and the closed edges."""
    import numpy as np

    usable = (graph.edge_modes & profile.mode) != 0
    if profile.excluded:
        usable &= ~np.isin(graph.edge_kind, sorted(profile.excluded))
    if profile.closed:
        closed = np.fromiter(profile.closed, dtype=np.int64, count=len(profile.closed))
        usable[closed[(closed >= 0) & (closed < graph.edge_count)]] = False
    return np.flatnonzero(usable)


def usable_kinds(graph: WalkGraph, profile: Profile, kinds: Iterable[int]) -> frozenset[int]:
    """Of `kinds`, those with an edge the profile's mode could use (were they not
    excluded): what excluding them takes away. Stairs by wheelchair, or escalators in a
    building without any, take nothing away."""
    import numpy as np

    of_mode = graph.edge_kind[(graph.edge_modes & profile.mode) != 0]
    return frozenset(kind for kind in kinds if np.any(of_mode == kind))
