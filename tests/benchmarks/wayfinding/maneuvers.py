"""What maneuvers add to a route (issue 33 goal: under 1 ms on the demo maps, under 5 ms
on a floor of 1,000 units).

A route's maneuvers are planned after `find_route`, in the same piece of work
(`routing.maneuvers.route_with_maneuvers`), then written as sentences by the resolver.
Measured per route, on routes already found:

1. plan: `plan_maneuvers` (bends, bearings, the arrival side, landmarks from the map's
   places, distances shared out), and plan + sentences (`instructions.instruction` for
   each maneuver), on every demo map with walk paths: 20 pairs of locations per map, on
   foot and by wheelchair, places as the service builds them from the map's locations;
2. the same on one level of 1,000 offices (`tests.venues.imdf_venues.office_tower`, 20 corridors
   of 2 x 25 rooms off a spine, walk paths made by the IMDF import: door stubs, paths
   kept off the walls) between random offices;
3. for reference, whole REST routes on map-b1 beside E18 1 x 1 for the same pairs, each
   asked once (not a kept answer).

Run with `make bench` or `python -m tests.benchmarks maneuvers`.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from parsing.demo.drawings import BUILDINGS, FLOORS
from parsing.imdf.venue import ImdfOptions
from parsing.svg import parse_unit_map
from resolvers.wayfinding.graph_cache import load_graph
from resolvers.wayfinding.instructions import Words, instruction
from resolvers.wayfinding.landmarks import places_of
from routing.build import build_walk_graph
from routing.costs import Costs
from routing.maneuvers import Maneuver, Places, plan_maneuvers
from routing.matrix import LoadedGraph, Point
from routing.model import FOOT, WHEELCHAIR
from routing.profile import Profile
from routing.route import Route, find_route
from storage.demo import install as demo
from storage.imdf.dataset import dataset_from_path
from tests.benchmarks.harness.database import demo_app
from tests.benchmarks.harness.report import machine
from tests.venues.imdf_venues import office_tower, zip_bytes

PAIRS = 20
ROUNDS = 15
FLAGS = "directions, distances, locations-resource"
DEMO_MAPS = [
    *(demo.building_map_id(b) for b in BUILDINGS),
    *(demo.map_id(b, f) for b in BUILDINGS for f in FLOORS),
]
Case = tuple[Route, float, Places, frozenset[str], Words]


def per_route(call: Callable[[], Any]) -> float:
    """The median of ROUNDS calls, in milliseconds."""
    samples = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def told(route: Route, maneuvers: list[Maneuver], words: Words) -> list[str]:
    return [instruction(m, route, words) for m in maneuvers]


def measure(label: str, cases: list[Case], goal_ms: float) -> None:
    plans = [per_route(lambda c=c: plan_maneuvers(*c[:4])) for c in cases]
    whole = [per_route(lambda c=c: told(c[0], plan_maneuvers(*c[:4]), c[4])) for c in cases]
    counts = [len(plan_maneuvers(*c[:4])) for c in cases]
    points = [sum(len(leg.points) for leg in c[0].legs) for c in cases]
    worst = max(whole)
    print(
        f"{label:<34} {len(cases):>4} routes | plan median {statistics.median(plans):.3f} ms"
        f" | plan + sentences median {statistics.median(whole):.3f} ms, p95 "
        f"{sorted(whole)[int(0.95 * (len(whole) - 1))]:.3f}, max {worst:.3f} ms "
        f"(goal < {goal_ms:g} ms: {'met' if worst < goal_ms else 'MISSED'})",
        flush=True,
    )
    print(
        f"{'':<34} maneuvers per route: median {statistics.median(counts):g}, max "
        f"{max(counts)}; polyline points: median {statistics.median(points):g}, max "
        f"{max(points)}",
        flush=True,
    )


def names(graph_floors: tuple[str | None, ...]) -> Callable[[int], str]:
    return lambda level: graph_floors[level] or f"level {level}"


async def demo_part(folder: Path) -> None:
    async with demo_app(folder, "floorgate_bench_maneuvers", FLAGS) as app:
        cases: list[Case] = []
        for map_id in DEMO_MAPS:
            unit_map = await app.store["unit_maps"].find_one({"_id": map_id})
            loaded = await load_graph(app.store, app.settings, unit_map["graph_file"], 10.0)
            found = app.store["locations"].find({"unit_map_id": map_id})
            locations = [loc async for loc in found]
            levels = [level.get("floor_id") for level in unit_map["levels"]]
            fpu = loaded.graph.feet_per_unit
            places = places_of(locations, levels, fpu)
            rng = random.Random(f"33:{map_id}")
            for _ in range(PAIRS):
                a, b = rng.sample(locations, 2)
                for mode in (FOOT, WHEELCHAIR):
                    start, end = (
                        Point(loc["x"], loc["y"], levels.index(loc["floors"][0]["id"]))
                        for loc in (a, b)
                    )
                    route = find_route(loaded, Profile(mode), start, end)
                    if isinstance(route, Route):
                        words = Words(a["name"], b["name"], names(loaded.graph.level_floors))
                        cases.append((route, fpu, places, frozenset({a["_id"], b["_id"]}), words))
        print(f"demo: {len(DEMO_MAPS)} maps with walk paths, {PAIRS} pairs each, both modes")
        measure("demo maps", cases, 1.0)
        await rest_reference(app)


async def rest_reference(app: Any, seed: int = 18) -> None:
    """Whole routes over REST on map-b1 beside E18 1 x 1 for the same pair, each asked
    once (a repeated request is a kept answer, docs/api.md), after a few others warmed
    the graph and place caches."""
    found = (await app.client.get("/v1/maps/map-b1/locations", headers=app.headers)).json()
    locations: list[dict[str, Any]] = found["data"]
    rng = random.Random(seed)
    drawn = (tuple(loc["id"] for loc in rng.sample(locations, 2)) for _ in range(400))
    pairs = list(dict.fromkeys(drawn))[: 5 + 10 * PAIRS]
    routes, matrices = [], []
    for index, (a, b) in enumerate(pairs):
        asks = (
            (routes, "route", {"from": {"id": a}, "to": {"id": b}}),
            (matrices, "distance-matrix", {"sources": [{"id": a}], "targets": [{"id": b}]}),
        )
        for samples, path, body in asks:
            start = time.perf_counter()
            answer = await app.client.post(
                f"/v1/maps/map-b1/{path}", json={"data": body}, headers=app.headers
            )
            if index >= 5:
                samples.append(time.perf_counter() - start)
            assert answer.status_code == 200, answer.text
    route_ms, matrix_ms = (statistics.median(s) * 1000 for s in (routes, matrices))
    print(
        f"{'demo REST, map-b1, foot':<34} {len(routes):>4} pairs  | each asked once: route "
        f"{route_ms:.2f} ms, E18 1 x 1 {matrix_ms:.2f} ms, {route_ms / matrix_ms:.2f}x",
        flush=True,
    )


def thousand_unit_floor(folder: Path) -> tuple[LoadedGraph, list[dict[str, Any]]]:
    """One level of 1,000 offices as the IMDF import draws it: its walk graph, loaded,
    and its locations (also the `stops` benchmark's floor)."""
    venue = office_tower(levels=1, rows=20, rooms_per_side=25)
    archive = folder / "floor.zip"
    archive.write_bytes(zip_bytes(venue.files()))
    dataset = dataset_from_path(archive, ImdfOptions())
    level_map = venue.features["level"][0]["id"]
    graph = build_walk_graph(parse_unit_map(dataset.svgs[level_map]))
    assert graph is not None
    locations = [
        {**loc, "_id": loc["id"]}
        for loc in dataset.data["locations"]
        if loc["unit_map_id"] == level_map
    ]
    return LoadedGraph(graph, Costs(), 10.0), locations


def thousand_units_part(folder: Path) -> None:
    loaded, locations = thousand_unit_floor(folder)
    graph = loaded.graph
    fpu = graph.feet_per_unit
    units = [loc for loc in locations if any(t[0] == "svc:id" for t in _tags(loc))]
    places = places_of(locations, [graph.level_floors[0]], fpu)
    print(
        f"1,000-unit floor: {len(units)} units, {graph.node_count} nodes, {graph.edge_count} "
        f"edges, {len(locations)} places",
        flush=True,
    )
    rng = random.Random(33)
    cases: list[Case] = []
    while len(cases) < 2 * PAIRS:
        a, b = rng.sample(units, 2)
        mode = FOOT if len(cases) % 2 == 0 else WHEELCHAIR
        route = find_route(
            loaded, Profile(mode), Point(a["x"], a["y"], 0), Point(b["x"], b["y"], 0)
        )
        if isinstance(route, Route):
            words = Words(a["name"], b["name"], names(graph.level_floors))
            cases.append((route, fpu, places, frozenset({a["_id"], b["_id"]}), words))
    measure("1,000-unit floor", cases, 5.0)


def _tags(location: dict[str, Any]) -> list[tuple[str, str]]:
    return [(t["key"], t["value"]) for t in location.get("tags", [])]


def main() -> None:
    print("\n".join(machine()), flush=True)
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(demo_part(Path(folder)))
        thousand_units_part(Path(folder))
