"""Several stops on one route (issue 50, point 3): `via` waypoints between `from` and
`to`, visited as given or, with `optimize`, in the order of least total time
(`routing.trip`). What the answer adds: the stops as asked (`via`), the order they are
visited in (`visit_order`, indexes into `via`), how it was chosen (`optimized`), and one
route whose legs and maneuvers run through each stop: an `arrive` with its `via_index`,
then a `depart`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from resolvers.errors import FieldErrors
from resolvers.limits import MAX_OPTIMIZED_VIA, MAX_VIA
from resolvers.validation import via_count_problems
from resolvers.wayfinding.answers import Route, RouteLeg, RouteManeuver
from resolvers.wayfinding.distances import Waypoint, check_waypoint, rounded

if TYPE_CHECKING:
    from routing.trip import Trip


def check_via(errors: FieldErrors, via: list[Waypoint] | None, optimize: bool | None) -> None:
    """At most MAX_VIA stops (MAX_OPTIMIZED_VIA with `optimize`), each a waypoint as
    `from` is; `optimize` needs stops."""
    from routing.stops import MAX_STOPS

    assert MAX_OPTIMIZED_VIA <= MAX_VIA <= MAX_STOPS
    if via is None:
        if optimize:
            errors.add("optimize", "needs stops to order (via)")
        return
    too_many = via_count_problems(len(via), optimize)
    for message in too_many:
        errors.add("via", message)
    if too_many:
        return
    for index, waypoint in enumerate(via):
        check_waypoint(errors, f"via.{index}", waypoint)


def visit_order(trip: Trip) -> list[int]:
    """The stops' indexes in `via`, in the order visited (the trip's points are `from`,
    the stops, then `to`)."""
    return [index - 1 for index in trip.order[1:-1]]


def joined(parts: list[Route], visited: list[int]) -> Route:
    """One route of the parts made between each two points in visit order: legs in
    turn, maneuvers with their leg indexes moved on, each part's `arrive` but the last
    one's carrying the index in `via` of the stop it reaches. Distance and time are the
    parts' sums (each part's equal to E18's)."""
    legs: list[RouteLeg] = []
    maneuvers: list[RouteManeuver] = []
    for number, part in enumerate(parts):
        stop = visited[number] if number < len(visited) else None
        for maneuver in part["maneuvers"]:
            moved: RouteManeuver = {**maneuver, "leg_index": maneuver["leg_index"] + len(legs)}
            moved["via_index"] = stop if maneuver["type"] == "arrive" else None
            maneuvers.append(moved)
        legs.extend(part["legs"])
    return {
        "distance": rounded(sum(part["distance"] for part in parts)),
        "time": rounded(sum(part["time"] for part in parts)),
        "legs": legs,
        "maneuvers": maneuvers,
        "steps": [maneuver["instruction"] for maneuver in maneuvers],
    }
