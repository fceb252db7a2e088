"""Nearest in one call beside a plain route (issue 47 goal: a route to the nearest of
several candidates costs at most 1.2x the plain route to the place it chooses).

The demo's building map `map-b1`, over REST through the app in-process (httpx
ASGITransport), warm caches: from a random point near a random location, the nearest
route (`to: {nearest: ...}`), then the plain route to the place it chose
(`to: {id: chosen}`), interleaved, so both see the same machine state. Each request is
asked once (a repeated one would be a kept answer, docs/api.md): new origins for every
kind of candidates and mode. Candidates: the 7 amenities (`tags`), every one of the
map's 56 locations (`ids`), and the trash rooms by search text (`q`).

Run with `python -m tests.benchmarks nearest`.
"""

from __future__ import annotations

import asyncio
import platform
import random
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from tests.benchmarks.harness.database import demo_app
from tests.benchmarks.wayfinding.matrices import median_ms

MAP = "map-b1"
ORIGINS = 150  # per kind of candidates and mode, each asked once
WARM = 10
FLAGS = "directions, locations-resource"


def origins(rng: random.Random, locations: list[dict[str, Any]], count: int) -> list[dict]:
    """Ad-hoc points near random locations: each request's body is new."""
    points = []
    for _ in range(count):
        location = rng.choice(locations)
        points.append(
            {
                "x": round(location["x"] + rng.uniform(-20, 20), 6),
                "y": round(location["y"] + rng.uniform(-20, 20), 6),
                "floor_id": location["floors"][0]["id"],
            }
        )
    return points


async def route(
    client: httpx.AsyncClient, headers: dict[str, str], body: dict[str, Any]
) -> tuple[float, dict[str, Any]]:
    start = time.perf_counter()
    answer = await client.post(f"/v1/maps/{MAP}/route", json={"data": body}, headers=headers)
    took = time.perf_counter() - start
    assert answer.status_code == 200, answer.text
    return took, answer.json()


async def interleaved(
    client: httpx.AsyncClient,
    headers: dict[str, str],
    starts: list[dict[str, Any]],
    to: dict[str, Any],
    mode: str,
) -> tuple[list[float], list[float]]:
    nearest: list[float] = []
    plain: list[float] = []
    for start in starts:
        took, answer = await route(client, headers, {"from": start, "to": to, "mode": mode})
        nearest.append(took)
        chosen = {"id": answer["to"]["id"]}
        took, same = await route(client, headers, {"from": start, "to": chosen, "mode": mode})
        plain.append(took)
        assert same == answer, "the nearest route is the plain route to the chosen place"
    return nearest, plain


async def bench(folder: Path) -> None:
    async with demo_app(folder, "floorgate_bench_nearest", FLAGS) as demo:
        client, headers = demo.client, demo.headers
        found = await client.get(f"/v1/maps/{MAP}/locations", headers=headers)
        locations: list[dict[str, Any]] = found.json()["data"]
        kinds: dict[str, dict[str, Any]] = {
            "tags svc:amenity==yes (7)": {"nearest": {"tags": "svc:amenity==yes"}},
            f"ids, every location ({len(locations)})": {
                "nearest": {"ids": [location["id"] for location in locations]}
            },
            "q trash (4)": {"nearest": {"q": "trash"}},
        }
        rng = random.Random(47)
        for label, to in kinds.items():
            for mode in ("foot", "wheelchair"):
                await interleaved(client, headers, origins(rng, locations, WARM), to, mode)
                nearest, plain = await interleaved(
                    client, headers, origins(rng, locations, ORIGINS), to, mode
                )
                ours, base = median_ms(nearest), median_ms(plain)
                print(
                    f"{label:<28} {mode:<10} nearest {ours:6.2f} ms | plain route "
                    f"{base:6.2f} ms | {ours / base:4.2f}x  (goal: <= 1.2x)",
                    flush=True,
                )


def main() -> None:
    print(
        f"{datetime.now(UTC):%Y-%m-%d}, {platform.platform()}, "
        f"{platform.processor() or platform.machine()}, CPython {platform.python_version()}; "
        f"{MAP}, {ORIGINS} origins per row, medians"
    )
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(bench(Path(folder)))
