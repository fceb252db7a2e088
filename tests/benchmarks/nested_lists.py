"""Nested lists (issue 15 item 4): maps with their units in one GraphQL query, against
the REST calls for the same data added up, in the same run.

One embedded database server, one asset with 20 maps of 100 units each (random ids).
For M = 1, 5 and 20 maps two things are timed, interleaved in alternating order:

- graphql: `POST /graphql` of `unitMaps(assetId, perPage: M) { data { ...map fields
  units { ...unit fields } } }`, the fields E9 and E15 answer;
- rest: `GET /v1/maps?asset=...&per-page=M` (E9), then
  `GET /v1/maps/{map}/units?per-page=100` (E15) for each map, one after another, the
  whole sequence timed.

Both through the ASGI app in-process (httpx `ASGITransport`, no socket). The database
commands of one request of each are counted (getMores included) outside the timing.

Run with `make bench` or `python -m tests.benchmarks nested_lists`.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson
from pymongo import monitoring

from resolvers.auth.keys import create_key
from rest.app import create_app
from rest.v1.documents import FRAGMENTS
from storage import collections as c
from storage.database import Store, connect
from storage.embedded.server import EmbeddedServer
from storage.settings import Settings
from tests.benchmarks.harness.report import run_and_report

PUBLIC_URL = "https://bench.local"
DATABASE = "floorgate_bench_nested"
ASSET_ID = "ast_nested"
MAPS = 20
UNITS_PER_MAP = 100
SIZES: tuple[tuple[int, int], ...] = ((1, 20), (5, 15), (20, 10))  # (maps, timed runs)
WARMUP = 2
KINDS = ("graphql", "rest")
STAMP = "2026-01-15T09:00:00+00:00"
QUERY = (
    "query($asset: ID!, $n: Int) { unitMaps(assetId: $asset, perPage: $n) { data { "
    "...UnitMapFields units { ...ReducedUnitFields } } } } "
    + FRAGMENTS["UnitMapFields"]
    + " "
    + FRAGMENTS["ReducedUnitFields"]
)


class Commands(monitoring.CommandListener):
    """Names of the commands sent to the benchmark's database while `on`."""

    def __init__(self) -> None:
        self.on = False
        self.names: Counter[str] = Counter()

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        if self.on and event.database_name == DATABASE:
            self.names[event.command_name] += 1

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        pass

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        pass


async def seed(store: Store, seed: int = 20261124) -> list[str]:
    """The asset, its maps and their units; the map ids in id order."""
    rng = random.Random(seed)
    await store.client.drop_database(DATABASE)
    await store.ensure_indexes()
    stamps = {"created_at": STAMP, "updated_at": STAMP}
    await store[c.ASSETS].insert_one({"_id": ASSET_ID, "market": "m", "name": "N", **stamps})
    maps: list[dict[str, Any]] = []
    units: list[dict[str, Any]] = []
    for m in range(MAPS):
        floor_id = f"flr_{m:02d}"
        ids = [f"unt_{rng.getrandbits(64):016x}" for _ in range(UNITS_PER_MAP)]
        units += [
            {
                "_id": unit_id,
                "asset_id": ASSET_ID,
                "floor_id": floor_id,
                "name": f"{m + 1}{n:03d}",
                **stamps,
            }
            for n, unit_id in enumerate(ids)
        ]
        maps.append(
            {
                "_id": f"map_{rng.getrandbits(48):012x}",
                "asset_id": ASSET_ID,
                "background_id": None,
                "name": f"Floor {m + 1}",
                "style": "s",
                "style_type": "floor_plate",
                "tags": [],
                "routing_tier": "basic",
                "unit_ids": ids,
                **stamps,
            }
        )
    await store[c.UNITS].insert_many(units)
    await store[c.UNIT_MAPS].insert_many(maps)
    return sorted(unit_map["_id"] for unit_map in maps)


@dataclass
class Bench:
    client: httpx.AsyncClient
    commands: Commands

    async def graphql(self, maps: int) -> tuple[float, list[dict[str, Any]]]:
        started = time.perf_counter()
        response = await self.client.post(
            "/graphql", json={"query": QUERY, "variables": {"asset": ASSET_ID, "n": maps}}
        )
        body = response.content
        elapsed = time.perf_counter() - started
        assert response.status_code == 200, response.text
        result = orjson.loads(body)
        assert "errors" not in result, result
        return elapsed, [
            {"id": m["id"], "units": [u["id"] for u in m["units"]]}
            for m in result["data"]["unitMaps"]["data"]
        ]

    async def rest(self, maps: int) -> tuple[float, list[dict[str, Any]]]:
        started = time.perf_counter()
        listed = await self.client.get("/v1/maps", params={"asset": ASSET_ID, "per-page": maps})
        pages = [
            await self.client.get(f"/v1/maps/{m['id']}/units", params={"per-page": "100"})
            for m in orjson.loads(listed.content)["data"]
        ]
        elapsed = time.perf_counter() - started
        assert listed.status_code == 200 and all(page.status_code == 200 for page in pages)
        return elapsed, [
            {"id": m["id"], "units": [u["id"] for u in orjson.loads(page.content)["data"]]}
            for m, page in zip(orjson.loads(listed.content)["data"], pages, strict=True)
        ]

    async def counted(self, kind: str, maps: int) -> Counter[str]:
        """The commands of one request (sequence) of `kind`, untimed."""
        self.commands.names.clear()
        self.commands.on = True
        try:
            await getattr(self, kind)(maps)
        finally:
            self.commands.on = False
        return Counter(self.commands.names)


@dataclass
class Row:
    maps: int
    walls: dict[str, list[float]] = field(default_factory=lambda: {k: [] for k in KINDS})
    commands: dict[str, Counter[str]] = field(default_factory=dict)

    def median_ms(self, kind: str) -> float:
        return statistics.median(self.walls[kind]) * 1000

    def p90_ms(self, kind: str) -> float:
        ordered = sorted(self.walls[kind])
        return ordered[max(0, math.ceil(0.9 * len(ordered)) - 1)] * 1000


async def measure(bench: Bench, map_ids: list[str]) -> list[Row]:
    rows: list[Row] = []
    for maps, repeats in SIZES:
        row = Row(maps)
        _, nested = await bench.graphql(maps)
        _, separate = await bench.rest(maps)
        assert nested == separate, "GraphQL and REST disagree"
        assert [m["id"] for m in nested] == map_ids[:maps]
        assert all(len(m["units"]) == UNITS_PER_MAP for m in nested)
        for kind in KINDS:
            row.commands[kind] = await bench.counted(kind, maps)
        for _ in range(WARMUP):
            for kind in KINDS:
                await getattr(bench, kind)(maps)
        for repeat in range(repeats):
            for kind in KINDS if repeat % 2 == 0 else KINDS[::-1]:
                elapsed, _ = await getattr(bench, kind)(maps)
                row.walls[kind].append(elapsed)
        rows.append(row)
        print(f"  maps={maps}: done ({repeats} runs each)", flush=True)
    return rows


def commands_text(counter: Counter[str]) -> str:
    return ", ".join(f"{count} {name}" for name, count in sorted(counter.items()))


def table(rows: list[Row]) -> list[str]:
    lines = [
        "| maps | units | GraphQL median ms (p90) | REST calls added up, median ms (p90) "
        "| GraphQL / REST | GraphQL commands | REST commands |",
        "|---:|---:|---:|---:|---:|---|---|",
    ]
    for row in rows:
        graphql, rest = row.median_ms("graphql"), row.median_ms("rest")
        lines.append(
            f"| {row.maps} | {row.maps * UNITS_PER_MAP} | {graphql:.1f} "
            f"({row.p90_ms('graphql'):.1f}) | {rest:.1f} ({row.p90_ms('rest'):.1f}) "
            f"| {graphql / rest:.2f} | {commands_text(row.commands['graphql'])} "
            f"| {commands_text(row.commands['rest'])} |"
        )
    return lines


async def run(data_dir: Path) -> list[Row]:
    server = EmbeddedServer(data_dir / "server")
    server.start()
    try:
        settings = Settings(
            data_dir=data_dir / "data",
            public_url=PUBLIC_URL,
            database_name=DATABASE,
            rate_limit_per_second=0,
        )
        commands = Commands()
        store = connect(server.uri, settings, event_listeners=[commands])
        try:
            map_ids = await seed(store)
            key = await create_key(store, "bench", [], None)
            app = create_app(settings, store)
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(
                transport=transport, base_url=PUBLIC_URL, headers={"API-Key": key.secret}
            ) as client:
                return await measure(Bench(client, commands), map_ids)
        finally:
            await store.client.drop_database(DATABASE)
            await store.close()
    finally:
        server.stop()


def main() -> None:
    """Run the nested-lists benchmark and print the machine and the table (Markdown)."""
    title = (
        f"Nested lists: {MAPS} maps x {UNITS_PER_MAP} units in one asset; GraphQL "
        "unitMaps { data { units } } against E9 + E15 per map; "
        + ", ".join(f"M={m} x{r}" for m, r in SIZES)
        + f" (+{WARMUP} warm-up)"
    )
    run_and_report(title, run, lambda rows: [table(rows)])


if __name__ == "__main__":
    main()
