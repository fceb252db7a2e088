"""What a GeoJSON route adds to a route (issue 49 goal: <= 1 ms).

1. The demo's building map `map-b1`, over REST in-process (httpx ASGITransport), warm
   caches: distinct pairs of locations (so no answer is kept), each asked with
   `"geometry": "geojson"` and without, in alternating order; the median and p95 of the
   difference per pair.
2. The transform alone (`route_geojson`) on those routes' answers: median, p95, largest.

Run with `make bench` or `python -m tests.benchmarks route_geojson`.
"""

from __future__ import annotations

import asyncio
import platform
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

from parsing.geo.map_frame import frame_of
from resolvers.wayfinding.route_geojson import route_geojson
from storage.files import get_file
from tests.benchmarks.harness.database import demo_app

PAIRS = 300
FLAGS = "directions, distances, locations-resource"
MAP = "map-b1"


def p95(values: list[float]) -> float:
    return sorted(values)[int(0.95 * (len(values) - 1))]


async def bench(folder: Path) -> None:
    async with demo_app(folder, "floorgate_bench_route_geojson", FLAGS) as demo:
        client, headers = demo.client, demo.headers
        found = (await client.get(f"/v1/maps/{MAP}/locations", headers=headers)).json()["data"]
        rng = random.Random(49)
        pairs: list[tuple[str, str]] = []
        seen: set[tuple[str, str]] = set()
        while len(pairs) < PAIRS + 5:
            a, b = (loc["id"] for loc in rng.sample(found, 2))
            if (a, b) not in seen:
                seen.add((a, b))
                pairs.append((a, b))

        async def ask(a: str, b: str, geometry: bool) -> tuple[float, dict[str, Any]]:
            data: dict[str, Any] = {"from": {"id": a}, "to": {"id": b}}
            if geometry:
                data["geometry"] = "geojson"
            start = time.perf_counter()
            answer = await client.post(
                f"/v1/maps/{MAP}/route", json={"data": data}, headers=headers
            )
            took = time.perf_counter() - start
            assert answer.status_code == 200, answer.text
            return took, answer.json()

        for a, b in pairs[:5]:  # warm the graph, waypoint, place and frame caches
            await ask(a, b, True)
        added, plain_ms, routes = [], [], []
        for index, (a, b) in enumerate(pairs[5:]):
            first = index % 2 == 0
            one, answer = await ask(a, b, first)
            other, answer2 = await ask(a, b, not first)
            with_geojson, without = (one, other) if first else (other, one)
            added.append((with_geojson - without) * 1000)
            plain_ms.append(without * 1000)
            routes.append(answer if first else answer2)
        print(
            f"{MAP} over REST, {PAIRS} distinct pairs: route {statistics.median(plain_ms):.2f} ms; "
            f"geojson adds median {statistics.median(added):.3f} ms, p95 {p95(added):.3f} ms "
            "(goal: <= 1 ms)",
            flush=True,
        )
        unit_map = await demo.store["unit_maps"].find_one({"_id": MAP})
        assert unit_map is not None
        stored = await get_file(demo.store, unit_map["parsed_file"])
        assert stored is not None
        points = tuple(
            (p["x"], p["y"], p["lon"], p["lat"]) for p in unit_map["georeference"]["control_points"]
        )
        levels = tuple(
            (lv["uid"], lv.get("floor_id"), lv.get("height")) for lv in unit_map["levels"]
        )
        frame = frame_of(orjson.loads(stored.data), points, levels)
        made = [route["route"] for route in routes if route["route"] is not None]
        alone = []
        for route in made:
            start = time.perf_counter()
            route_geojson(route, frame, MAP)
            alone.append((time.perf_counter() - start) * 1000)
        print(
            f"{'':<4}the transform alone, {len(made)} routes: median "
            f"{statistics.median(alone):.3f} ms, p95 {p95(alone):.3f} ms, largest "
            f"{max(alone):.3f} ms",
            flush=True,
        )


def main() -> None:
    print(
        f"{platform.platform()}, {platform.processor() or platform.machine()}, "
        f"CPython {platform.python_version()}"
    )
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(bench(Path(folder)))
