"""Directions beside E18, in the same run (issue 18 goal: a route on the demo map in at
most 2x an E18 1x1 call).

1. The demo's building map `map-b1`: for pairs of locations on different floors, the
   REST route `POST /v1/maps/map-b1/route` and the E18 1x1 call for the same pair,
   interleaved, through the app in-process (httpx ASGITransport), warm graph cache.
2. The same pairs on the loaded graph alone: `find_route` beside `matrix` 1x1.
3. The generated 8-level map of the routing benchmark (about 100k path edges):
   `find_route` beside `matrix` 1x1 on the loaded graph, for far-apart points.
4. Costing options (issue 50, goal: options add <= 5% to a plain route once the
   profile's graph is built): on both loaded graphs, `find_route` with options that
   leave the routes as they are beside the plain route, interleaved (and options that
   change them, for their cost); and the first-use build of each profile's graph.

Run with `make bench` or `python -m tests.benchmarks route`.
"""

from __future__ import annotations

import asyncio
import platform
import random
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from parsing.svg import parse_unit_map
from resolvers.wayfinding.graph_cache import load_graph
from routing.build import build_walk_graph
from routing.costs import Costs
from routing.matrix import LoadedGraph, Point
from routing.model import ELEVATOR, ESCALATOR, FOOT, RAMP, STAIRS, WHEELCHAIR
from routing.profile import Profile
from routing.route import Route, find_route
from tests.benchmarks.harness.database import demo_app
from tests.benchmarks.wayfinding.matrices import (
    as_points,
    generated_points,
    generated_svg,
    median_ms,
    sync_timed,
)

PAIRS = 20
ROUNDS = 15
HEADERS_FLAGS = "directions, distances, locations-resource"


def ratio_row(label: str, ours: list[float], baseline: list[float], goal: str) -> None:
    ours_ms, base_ms = median_ms(ours), median_ms(baseline)
    print(
        f"{label:<40} route {ours_ms:7.2f} ms | E18 1x1 {base_ms:7.2f} ms | "
        f"{ours_ms / base_ms:4.2f}x  {goal}",
        flush=True,
    )


async def interleaved(
    client: httpx.AsyncClient, headers: dict[str, str], pairs: list[tuple[str, str]], mode: str
) -> tuple[list[float], list[float]]:
    """Per round and pair, the route then the matrix: both see the same machine state."""
    routes: list[float] = []
    matrices: list[float] = []
    for _ in range(ROUNDS):
        for a, b in pairs:
            body = {"from": {"id": a}, "to": {"id": b}, "mode": mode}
            start = time.perf_counter()
            answer = await client.post(
                "/v1/maps/map-b1/route", json={"data": body}, headers=headers
            )
            routes.append(time.perf_counter() - start)
            assert answer.status_code == 200, answer.text
            matrix = {
                "sources": [{"id": a}],
                "targets": [{"id": b}],
                "costing_options": {"pedestrian": {"mode": mode}},
            }
            start = time.perf_counter()
            answer = await client.post(
                "/v1/maps/map-b1/distance-matrix", json={"data": matrix}, headers=headers
            )
            matrices.append(time.perf_counter() - start)
            assert answer.status_code == 200, answer.text
    return routes, matrices


async def bench(folder: Path) -> None:
    async with demo_app(folder, "floorgate_bench_route", HEADERS_FLAGS) as demo:
        client, headers = demo.client, demo.headers
        found = (await client.get("/v1/maps/map-b1/locations", headers=headers)).json()
        locations: list[dict[str, Any]] = found["data"]
        rng = random.Random(18)
        pairs = []
        while len(pairs) < PAIRS:
            a, b = rng.sample(locations, 2)
            if a["floors"][0]["id"] != b["floors"][0]["id"]:
                pairs.append((a["id"], b["id"]))
        unit_map = await demo.store["unit_maps"].find_one({"_id": "map-b1"})
        loaded = await load_graph(demo.store, demo.settings, unit_map["graph_file"], 10.0)
        print(
            f"demo map-b1: {loaded.graph.node_count} nodes, {loaded.graph.edge_count} "
            f"edges; {PAIRS} pairs on different floors x {ROUNDS} rounds"
        )
        for mode in ("foot", "wheelchair"):
            await interleaved(client, headers, pairs[:2], mode)  # warm the caches
            routes, matrices = await interleaved(client, headers, pairs, mode)
            ratio_row(f"demo REST, {mode}", routes, matrices, "(goal: <= 2x)")
        by_id = {
            loc["id"]: Point(loc["x"], loc["y"], int(loc["floors"][0]["id"][-1]) - 1)
            for loc in locations
        }
        demo_pairs = [(by_id[a], by_id[b]) for a, b in pairs]
        on_graph(loaded, demo_pairs, "demo loaded graph")
        with_options(loaded, demo_pairs, "demo loaded graph")


def on_graph(loaded: LoadedGraph, points: list[tuple[Point, Point]], label: str) -> None:
    for mode, name in ((FOOT, "foot"), (WHEELCHAIR, "wheelchair")):
        routes = sync_timed(
            lambda m=mode: [find_route(loaded, Profile(m), a, b) for a, b in points], rounds=5
        )
        matrices = sync_timed(
            lambda m=mode: [loaded.matrix(Profile(m), [a], [b]) for a, b in points], rounds=5
        )
        count = len(points)
        ratio_row(
            f"{label}, {name} (per pair)",
            [t / count for t in routes],
            [t / count for t in matrices],
            "",
        )
        found = [find_route(loaded, Profile(mode), a, b) for a, b in points]
        legs = [len(route.legs) for route in found if isinstance(route, Route)]
        if legs:
            print(f"{'':<40} {len(legs)} routes, up to {max(legs)} legs", flush=True)


def generated_part() -> None:
    graph = build_walk_graph(parse_unit_map(generated_svg()))
    assert graph is not None
    loaded = LoadedGraph(graph, Costs(), 10.0)
    print(f"generated: {graph.node_count} nodes, {graph.edge_count} edges", flush=True)
    sources = as_points(generated_points(10, seed=1))
    targets = as_points(generated_points(10, seed=2))
    on_graph(loaded, list(zip(sources, targets, strict=True)), "generated loaded graph")
    with_options(loaded, list(zip(sources, targets, strict=True)), "generated loaded graph")


# Every option set, on kinds neither graph has (no escalator, no ramp) and at the foot
# speed: the same routes as plain ones, so the difference is what options cost.
SAME_ROUTES = Profile(FOOT, 4.4, ((ESCALATOR, 60.0), (RAMP, 30.0)), frozenset({ESCALATOR}))
# Options that change every edge's time (speed), the graph's edges (an exclusion) and
# keep a kind out of the contraction (a penalty): other routes, shown for their cost.
OTHER_ROUTES = Profile(FOOT, 5.0, ((STAIRS, 60.0), (ELEVATOR, 30.0)), frozenset({RAMP}))


def with_options(loaded: LoadedGraph, points: list[tuple[Point, Point]], label: str) -> None:
    """The first use of each profile (its graph built), then its routes beside plain
    ones, interleaved round by round."""
    for name, profile in (("same routes", SAME_ROUTES), ("other routes", OTHER_ROUTES)):
        start = time.perf_counter()
        loaded.mode_graph(profile)
        built = (time.perf_counter() - start) * 1000
        print(f"{label}: first use of options ({name}) builds its graph in {built:.1f} ms")
        plain: list[float] = []
        costed: list[float] = []
        for _ in range(ROUNDS):
            for each, times in ((Profile(FOOT), plain), (profile, costed)):
                start = time.perf_counter()
                for a, b in points:
                    find_route(loaded, each, a, b)
                times.append((time.perf_counter() - start) / len(points))
        if profile is SAME_ROUTES:
            for a, b in points:
                assert find_route(loaded, profile, a, b) == find_route(loaded, Profile(FOOT), a, b)
        ours, base = median_ms(costed), median_ms(plain)
        goal = "(goal: <= 1.05x)" if profile is SAME_ROUTES else ""
        print(
            f"{label + ', ' + name + ' (per pair)':<40} route {ours:7.2f} ms | plain "
            f"{base:7.2f} ms | {ours / base:4.2f}x  {goal}",
            flush=True,
        )


def main() -> None:
    print(
        f"{platform.platform()}, {platform.processor() or platform.machine()}, "
        f"CPython {platform.python_version()}"
    )
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(bench(Path(folder)))
    generated_part()
