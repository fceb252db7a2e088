"""A route through several stops (issue 50, point 3): the order they are visited in, then
one route with its maneuvers between each two points in that order.

The start and the destination are fixed; the stops between them are visited as given,
or, optimised, in the order of least total time (`routing.stops.best_order`, over the
times E18 would give in the same profile). Each part is `route_with_maneuvers` from one
point to the next, so a trip's distance and time are the sums of its parts', each equal
to E18's. One piece of work: off the event loop on a large graph, stopped with its
request.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from routing.maneuvers import Maneuver, Places, route_with_maneuvers
from routing.matrix import LoadedGraph, Point
from routing.profile import Profile
from routing.route import Route, Unreachable
from routing.stopping import Stop, checked
from routing.stops import best_order


@dataclass(frozen=True)
class Trip:
    """The points' order (indexes into the points given, first 0, last n-1), how it was
    chosen (None: as given), and one route with its maneuvers per two points in it."""

    order: list[int]
    optimized: str | None
    parts: list[tuple[Route, list[Maneuver]]]


@dataclass(frozen=True)
class Broken:
    """No route between the points at `order[part]` and `order[part + 1]`, and why."""

    order: list[int]
    part: int
    why: Unreachable


def plan_trip(
    loaded: LoadedGraph,
    profile: Profile,
    points: list[Point],
    optimize: bool,
    places: Places | None = None,
    skip: frozenset[str] = frozenset(),
    stop: Stop | None = None,
) -> Trip | Broken:
    """The trip through `points` (start, stops, destination) in `profile`."""
    order = list(range(len(points)))
    optimized = None
    if optimize and len(points) > 3:  # one stop or none: one order only
        cells = loaded.matrix(profile, points, points, stop)
        times = [[None if cell is None else cell[1] for cell in row] for row in cells]
        chosen = best_order(times, stop)
        order, optimized = chosen.order, chosen.optimized
    elif optimize:
        optimized = "exact"
    parts: list[tuple[Route, list[Maneuver]]] = []
    for part, (a, b) in enumerate(itertools.pairwise(order)):
        checked(stop)
        found = route_with_maneuvers(loaded, profile, points[a], points[b], places, skip, stop)
        if isinstance(found, Unreachable):
            return Broken(order, part, found)
        parts.append(found)
    return Trip(order, optimized, parts)
