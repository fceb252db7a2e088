"""A route through 8 stops in the best order (issue 50 goal: at most 100 ms on a floor of
1,000 units), and what costing options add to a plain route there.

On one level of 1,000 offices (`tests.venues.imdf_venues.office_tower`, walk paths made
by the IMDF import), `routing.trip.plan_trip` with `optimize` between 10 random offices
(start, 8 stops, destination): the stops' time matrix, the exact order, then a route
with its maneuvers per part, as the service runs it (places as it builds them). Then a
plain two-point trip with and without options (a penalty on elevators, once the
profile is built).

Run with `make bench` or `python -m tests.benchmarks stops`.
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from resolvers.wayfinding.landmarks import places_of
from routing.matrix import LoadedGraph, Point
from routing.model import ELEVATOR, FOOT
from routing.profile import Profile
from routing.trip import Trip, plan_trip
from tests.benchmarks.harness.report import machine
from tests.benchmarks.wayfinding.maneuvers import thousand_unit_floor

TRIPS = 20
STOPS = 8
GOAL_MS = 100.0


def floor(folder: Path) -> tuple[LoadedGraph, list[Point], Any]:
    """The 1,000-unit floor's graph, its offices' points and its places."""
    loaded, locations = thousand_unit_floor(folder)
    graph = loaded.graph
    points = [Point(loc["x"], loc["y"], 0) for loc in locations]
    places = places_of(locations, [graph.level_floors[0]], graph.feet_per_unit)
    print(f"1,000-unit floor: {graph.node_count} nodes, {graph.edge_count} edges", flush=True)
    return loaded, points, places


def timed(call: Any) -> tuple[float, Any]:
    began = time.perf_counter()
    result = call()
    return (time.perf_counter() - began) * 1000, result


def main() -> None:
    print("\n".join(machine()), flush=True)
    with tempfile.TemporaryDirectory() as folder:
        loaded, points, places = floor(Path(folder))
    rng = random.Random(50)
    plain = Profile(FOOT)
    times = []
    for _ in range(TRIPS):
        chosen = rng.sample(points, STOPS + 2)
        took, trip = timed(lambda: plan_trip(loaded, plain, chosen, True, places))  # noqa: B023
        assert isinstance(trip, Trip) and trip.optimized == "exact", trip
        times.append(took)
    p95 = statistics.quantiles(times, n=20)[-1]
    print(
        f"{STOPS} stops, optimize: median {statistics.median(times):.1f} ms, p95 {p95:.1f} ms "
        f"(goal {GOAL_MS:g} ms): {'met' if p95 <= GOAL_MS else 'NOT met'}",
        flush=True,
    )
    shaped = Profile(FOOT, penalties=((ELEVATOR, 60.0),))
    pairs = [rng.sample(points, 2) for _ in range(TRIPS)]
    plan_trip(loaded, shaped, pairs[0], False, places)  # the profile built once
    for label, profile in (("plain", plain), ("options", shaped)):
        spent = [two_points(loaded, profile, pair, places) for pair in pairs]
        print(f"two points, {label}: median {statistics.median(spent):.2f} ms", flush=True)


def two_points(loaded: LoadedGraph, profile: Profile, pair: list[Point], places: Any) -> float:
    """Milliseconds of one two-point trip (a route and its maneuvers)."""
    return timed(lambda: plan_trip(loaded, profile, pair, False, places))[0]
