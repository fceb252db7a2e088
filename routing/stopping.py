"""Ending routing work that nobody waits for any more: a request past its time budget
sets the `stop` event its work was given (`storage.cpu.run_cpu(..., stoppable=True)`),
and the loops of a route or a distance matrix check it at bounded intervals, as the SVG
parser checks its own (`parsing.errors`: the same `Stop` and `Stopped`); and keeping those
searches quiet on stderr."""

from __future__ import annotations

import warnings

from parsing.errors import Stop, Stopped

__all__ = ["UNREACHED", "Stop", "Stopped", "checked", "quiet_unreached"]


def checked(stop: Stop | None) -> None:
    """Raise `Stopped` once `stop` is set (another thread sets it)."""
    if stop is not None and stop.is_set():
        raise Stopped


# An unreachable target is an answer (null distance, no route), not something to warn
# about: igraph's Dijkstra warns of it (`Couldn't reach some vertices`) to stderr.
UNREACHED = "Couldn't reach some vertices"


def quiet_unreached() -> None:
    """Ignore igraph's unreachable warning; called before each shortest-path search.
    Once at import is not enough: `warnings.catch_warnings` (shapely's `is_valid` uses it
    on another thread) puts back the filters it saw, dropping one added meanwhile, and
    each time it ends the default "once per place" is forgotten (issue 63: 514 lines)."""
    if not any(rule[1] is not None and rule[1].pattern == UNREACHED for rule in warnings.filters):
        warnings.filterwarnings("ignore", message=UNREACHED, category=RuntimeWarning)


quiet_unreached()
