"""E6 `GET /v1/units?per-page=N` against its parts: the database fetch and GraphQL execution.

One embedded database server, one asset with 10,000 units, one process. For each
page size N three things are timed, interleaved in rotating order so that drift
(caches, CPU frequency, the key cache's 5 s expiry, GC) falls on all three alike:

- rest: the whole request through the ASGI app (httpx `ASGITransport`, no socket);
- db: the resolver's query alone, `find().sort(_id).limit(N + 1).hint("_id_").to_list()`, then
  `orjson.dumps` of the raw documents (the floor any implementation has to pay);
- graphql: `graphql.execute` of the route's persisted document with the executor both
  faces use (`CompiledExecutor`), awaited directly.

Run with `make bench` or `python -m tests.benchmarks units_list`.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from inspect import isawaitable
from pathlib import Path
from typing import Any

import graphql
import httpx
import orjson

from resolvers.auth.keys import create_key
from resolvers.context import RequestContext, Services
from resolvers.paging import BY_ID, ID_INDEX
from rest.app import create_app
from rest.v1.routes import ROUTES
from rest.v1.routes.rows import RestRoute
from schema.build import build_schema
from schema.execution.executor import CompiledExecutor
from storage import collections as c
from storage.database import Store, connect
from storage.embedded.server import EmbeddedServer
from storage.settings import Settings
from storage.timestamps import format_timestamp
from tests.benchmarks.harness.report import run_and_report

PUBLIC_URL = "https://bench.local"
DATABASE = "floorgate_bench"
ASSET_ID = "ast_5f2c9e1b7a04"
FLOOR_COUNT = 40
UNITS_PER_FLOOR = 250  # 40 x 250 = 10,000 units
UNIT_COUNT = FLOOR_COUNT * UNITS_PER_FLOOR
# (page size, measured repetitions); every size first runs WARMUP unmeasured rounds.
SIZES: tuple[tuple[int, int], ...] = ((100, 30), (1000, 20), (10000, 10))
WARMUP = 2
KINDS = ("rest", "db", "graphql")


# -- data -------------------------------------------------------------------------------


def build_documents(
    seed: int = 20261122,
) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
    """One asset, its floors and its units, shaped like `tests/fixtures.py`, reproducibly."""
    rng = random.Random(seed)
    base = datetime(2025, 3, 1, 8, 0, tzinfo=UTC)

    def stamps() -> dict[str, str]:
        created = base + timedelta(minutes=rng.randrange(0, 60 * 24 * 200))
        updated = created + timedelta(minutes=rng.randrange(0, 60 * 24 * 90))
        return {"created_at": format_timestamp(created), "updated_at": format_timestamp(updated)}

    asset = {"_id": ASSET_ID, "market": "multifamily", "name": "Harbor View Tower", **stamps()}
    floors: list[dict[str, Any]] = []
    units: list[dict[str, Any]] = []
    for level in range(1, FLOOR_COUNT + 1):
        floor_id = f"flr_{rng.getrandbits(48):012x}"
        floors.append(
            {
                "_id": floor_id,
                "asset_id": ASSET_ID,
                "name": str(level),
                "label": f"Floor {level}",
                "short_label": str(level),
                "sort": level,
                **stamps(),
            }
        )
        for number in range(1, UNITS_PER_FLOOR + 1):
            # Random ids: insertion order is not `_id` order, so the sort does real work.
            units.append(
                {
                    "_id": f"unt_{rng.getrandbits(64):016x}",
                    "asset_id": ASSET_ID,
                    "floor_id": floor_id,
                    "name": f"{level}{number:03d}",
                    **stamps(),
                }
            )
    return asset, floors, units


async def seed(store: Store) -> None:
    """A fresh database with the indexes the app declares and the benchmark data."""
    await store.client.drop_database(DATABASE)
    await store.ensure_indexes()
    asset, floors, units = build_documents()
    await store[c.ASSETS].insert_one(asset)
    await store[c.FLOORS].insert_many(floors)
    for start in range(0, len(units), 1000):
        await store[c.UNITS].insert_many(units[start : start + 1000])
    assert await store[c.UNITS].count_documents({}) == UNIT_COUNT


# -- measurements -----------------------------------------------------------------------


@dataclass(frozen=True)
class Sample:
    """One timed run: wall time, and CPU time of this process alone (seconds).

    The database server is a separate process, so `cpu` is floorgate's own work
    (plus pymongo and httpx), without the server's.
    """

    wall: float
    cpu: float


class Clock:
    """Started on creation; `stop()` gives the sample."""

    def __init__(self) -> None:
        self.cpu = time.process_time()
        self.wall = time.perf_counter()

    def stop(self) -> Sample:
        wall = time.perf_counter() - self.wall
        return Sample(wall, time.process_time() - self.cpu)


@dataclass
class Bench:
    """Everything the three measurements share: same store, same data, same key."""

    client: httpx.AsyncClient
    store: Store
    services: Services
    schema: graphql.GraphQLSchema
    route: RestRoute
    secret: str

    async def rest(self, n: int) -> Sample:
        """The whole E6 request. Includes httpx's client-side work (building the request,
        collecting the body), which a real client pays too; the JSON is parsed untimed."""
        clock = Clock()
        response = await self.client.get("/v1/units", params={"per-page": str(n)})
        body = response.content
        sample = clock.stop()
        assert response.status_code == 200, response.text
        assert len(orjson.loads(body)["data"]) == n
        return sample

    async def db(self, n: int) -> Sample:
        """The resolver's query (scope `{}` for an all-assets key; `skip(0)` omitted, a
        no-op) and `orjson.dumps` of the raw documents. It skips `_id` -> `id` and the
        paging object, which favours this side by a little."""
        clock = Clock()
        cursor = self.store[c.UNITS].find({}).sort(BY_ID).limit(n + 1).hint(ID_INDEX)
        documents = await cursor.to_list()
        payload = orjson.dumps(documents)
        sample = clock.stop()
        assert len(documents) == min(n + 1, UNIT_COUNT) and payload
        return sample

    async def graphql(self, n: int) -> Sample:
        """The persisted document executed as `RestApi.run` does, minus routing, the
        paging URLs and the JSON response (those are what rest adds on top)."""
        context = RequestContext(self.services, self.secret, frozenset())
        clock = Clock()
        outcome = graphql.execute(
            self.schema,
            self.route.parsed,
            context_value=context,
            variable_values={"perPage": n},
            executor_class=CompiledExecutor,
        )
        if isawaitable(outcome):
            outcome = await outcome
        sample = clock.stop()
        assert isinstance(outcome, graphql.ExecutionResult)
        assert not outcome.errors, outcome.errors
        assert outcome.data is not None and len(outcome.data["result"]["data"]) == n
        return sample


@dataclass
class Row:
    """Samples of one page size, by kind."""

    n: int
    samples: dict[str, list[Sample]] = field(default_factory=lambda: {k: [] for k in KINDS})

    def walls(self, kind: str) -> list[float]:
        return sorted(sample.wall for sample in self.samples[kind])

    def median_ms(self, kind: str) -> float:
        return statistics.median(self.walls(kind)) * 1000

    def p90_ms(self, kind: str) -> float:
        """Nearest-rank 90th percentile."""
        ordered = self.walls(kind)
        return ordered[max(0, math.ceil(0.9 * len(ordered)) - 1)] * 1000

    def min_ms(self, kind: str) -> float:
        return self.walls(kind)[0] * 1000

    def cpu_ms(self, kind: str) -> float:
        """Median CPU time of this process (the database server's work excluded)."""
        return statistics.median(sample.cpu for sample in self.samples[kind]) * 1000


async def measure(bench: Bench) -> list[Row]:
    """Warm up, then time every kind R times per size, rotating which kind goes first."""
    runners: dict[str, Callable[[int], Awaitable[Sample]]] = {
        "rest": bench.rest,
        "db": bench.db,
        "graphql": bench.graphql,
    }
    rows: list[Row] = []
    for n, repeats in SIZES:
        for _ in range(WARMUP):
            for kind in KINDS:
                await runners[kind](n)
        row = Row(n)
        for repeat in range(repeats):
            shift = repeat % len(KINDS)
            for kind in KINDS[shift:] + KINDS[:shift]:
                row.samples[kind].append(await runners[kind](n))
        rows.append(row)
        print(f"  N={n}: done ({repeats} runs each)", flush=True)
    return rows


# -- report -----------------------------------------------------------------------------


def table(rows: list[Row]) -> list[str]:
    lines = [
        "| N | REST median ms | REST p90 ms | DB+orjson median ms | GraphQL median ms "
        "| REST / DB |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        rest, db = row.median_ms("rest"), row.median_ms("db")
        lines.append(
            f"| {row.n} | {rest:.1f} | {row.p90_ms('rest'):.1f} | {db:.1f} "
            f"| {row.median_ms('graphql'):.1f} | {rest / db:.1f}x |"
        )
    return lines


def details(rows: list[Row]) -> list[str]:
    lines = [
        "| N | runs | kind | median ms | p90 ms | min ms | in-process CPU ms (median) |",
        "|---:|---:|---|---:|---:|---:|---:|",
    ]
    for row in rows:
        for kind in KINDS:
            lines.append(
                f"| {row.n} | {len(row.samples[kind])} | {kind} | {row.median_ms(kind):.1f} "
                f"| {row.p90_ms(kind):.1f} | {row.min_ms(kind):.1f} | {row.cpu_ms(kind):.1f} |"
            )
    return lines


# -- entry ------------------------------------------------------------------------------


async def run(data_dir: Path) -> list[Row]:
    """Start the server, seed, build the app, measure; the server is always stopped."""
    server = EmbeddedServer(data_dir / "server")
    server.start()
    try:
        settings = Settings(
            data_dir=data_dir / "data", public_url=PUBLIC_URL, database_name=DATABASE
        )
        store = connect(server.uri, settings)
        try:
            await seed(store)
            key = await create_key(store, "bench", [], None)
            app = create_app(settings, store)
            route = next(r for r in ROUTES if r.method == "GET" and r.path == "/v1/units")
            # The app builds its own schema and Services; these are equal, separate copies
            # (each with its own key cache), so neither side shares warm state with the other.
            bench_services = Services(store=store, settings=settings)
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(
                transport=transport, base_url=PUBLIC_URL, headers={"API-Key": key.secret}
            ) as client:
                bench = Bench(
                    client, store, bench_services, build_schema(settings)._schema, route, key.secret
                )
                return await measure(bench)
        finally:
            await store.close()
    finally:
        server.stop()


def main() -> None:
    """Run the E6 benchmark and print the machine and the tables (Markdown)."""
    title = (
        f"E6 GET /v1/units: {UNIT_COUNT} units in one asset; sizes and runs: "
        + ", ".join(f"N={n} x{r}" for n, r in SIZES)
        + f" (+{WARMUP} warm-up)"
    )
    run_and_report(title, run, lambda rows: [table(rows), details(rows)])


if __name__ == "__main__":
    main()
