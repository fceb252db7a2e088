"""Server CPU per request on each path an operation takes through the runner (issue 46):
REST planned and through GraphQL, /graphql, each with its answer kept and with the read
cache flushed before every request (the whole path: price, charge, execute, settle,
keep). The app runs in-process on the demo (httpx's ASGI transport), so the figure is
the interpreter's CPU per request, the client's share included and the same on both
sides of a comparison.

`python -m tests.benchmarks request_paths` prints the table and a `RESULT` line of JSON
(`python -m tests.benchmarks.revisions.request_paths --rounds N` sets the rounds, 3 by default).
To compare two revisions in one run, run this module from each one's tree in turn
(`--rounds 1` each time, alternating; docs/performance-history.md, "One runner"): each
is its own process, the machine's state shared by both.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import orjson

from resolvers.auth.permissions import ALL_FLAGS
from tests.benchmarks.harness.database import DemoApp, demo_app
from tests.benchmarks.harness.report import run_and_report

BATCH = 40  # requests per sample
SAMPLES = 15  # samples per path and round
WARMUP = 20
UNITS = "/v1/units?per-page=100"
MATRIX = "/v1/unitmaps/map-b1-f1/distance-matrix"
MATRIX_BODY = {
    "data": {
        "sources": [{"id": "loc-b1-101"}],
        "targets": [{"id": "loc-b1-f1-gym"}, {"id": "loc-b1-f1-mail"}],
        "costing": "pedestrian",
    }
}
UNITS_QUERY = {"query": "{ units(perPage: 100) { data { id name floorId assetId } } }"}


@dataclass(frozen=True)
class Probe:
    """One request, sent again and again."""

    name: str
    send: Callable[[httpx.AsyncClient, dict[str, str]], Awaitable[httpx.Response]]
    flush: bool  # the read cache flushed before each request: nothing kept


def get(url: str) -> Callable[[httpx.AsyncClient, dict[str, str]], Awaitable[httpx.Response]]:
    return lambda client, headers: client.get(url, headers=headers)


def post(
    url: str, body: dict[str, Any]
) -> Callable[[httpx.AsyncClient, dict[str, str]], Awaitable[httpx.Response]]:
    content = orjson.dumps(body)
    return lambda client, headers: client.post(
        url, content=content, headers={**headers, "Content-Type": "application/json"}
    )


PATHS = tuple(
    Probe(f"{name}, {'cache flushed' if flush else 'kept answer'}", send, flush)
    for name, send in (
        ("REST GET /v1/units?per-page=100 (planned)", get(UNITS)),
        ("REST POST E18 1x2 (through GraphQL)", post(MATRIX, MATRIX_BODY)),
        ("/graphql units(perPage: 100)", post("/graphql", UNITS_QUERY)),
    )
    for flush in (False, True)
)


async def sample(demo: DemoApp, path: Probe) -> float:
    """CPU milliseconds per request over one batch."""
    cache = demo.store.cache
    spent = 0.0
    for _ in range(BATCH):
        if path.flush:
            cache.flush()
        started = time.process_time()
        response = await path.send(demo.client, demo.headers)
        spent += time.process_time() - started
        assert response.status_code == 200, response.text[:200]
    return spent / BATCH * 1000


async def measure(folder: Path, rounds: int) -> dict[str, float]:
    """The median CPU per request of each path, paths interleaved in each round."""
    samples: dict[str, list[float]] = {path.name: [] for path in PATHS}
    async with demo_app(folder, "bench_paths", ",".join(ALL_FLAGS)) as demo:
        deadline = time.monotonic() + 10
        while not demo.store.cache.live:  # the change stream up: answers can be kept
            assert time.monotonic() < deadline, "the read cache never came up"
            await demo.client.get(UNITS, headers=demo.headers)
            await asyncio.sleep(0.05)
        for path in PATHS:
            for _ in range(WARMUP):
                await path.send(demo.client, demo.headers)
        for _ in range(rounds * SAMPLES):
            for path in PATHS:
                samples[path.name].append(await sample(demo, path))
    return {name: statistics.median(values) for name, values in samples.items()}


def table(result: dict[str, float]) -> list[list[str]]:
    lines = ["| path | CPU ms per request (median) |", "|---|---:|"]
    lines += [f"| {name} | {ms:.3f} |" for name, ms in result.items()]
    return [lines, [f"RESULT {orjson.dumps(result).decode()}"]]


def main() -> None:
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 3
    title = f"CPU per request on each path: {rounds} x {SAMPLES} batches of {BATCH}"
    run_and_report(title, lambda folder: measure(folder, rounds), table)


if __name__ == "__main__":
    main()
