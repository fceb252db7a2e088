"""Ending routing work that nobody waits for any more: a request past its time budget
sets the `stop` event its work was given (`storage.cpu.run_cpu(..., stoppable=True)`),
and the loops of a route or a distance matrix check it at bounded intervals, as the SVG
parser checks its own (`parsing.errors`: the same `Stop` and `Stopped`)."""

from __future__ import annotations

from parsing.errors import Stop, Stopped

__all__ = ["Stop", "Stopped", "checked"]


def checked(stop: Stop | None) -> None:
    """Raise `Stopped` once `stop` is set (another thread sets it)."""
    if stop is not None and stop.is_set():
        raise Stopped
