"""Many properties on one database (issue 67): paging that stays flat, and a write to one
property that leaves the others' kept answers and search indexes in place.

P properties of 1,000 units each (3 floors; synthetic, shaped like `tests/fixtures.py`)
on one embedded database; the app through httpx's ASGI transport, its read cache live.

- **Walk**: E6 `GET /v1/units?per-page=1000` without `asset`, every page in order, once
  with page N found after the last id of page N - 1 (`storage.cache.page_bounds`, as on
  MongoDB) and once by offset (as on the embedded server: `Store.seeks_id_ranges`), the
  read cache flushed before each walk so no page is a kept answer. The first and last
  pages' times, and the whole walk.
- **Another property's write**: E6 `?asset=` and a search of 20 properties, each asked
  until kept (warm), timed; then another client (another process's writes, by the change
  stream) renames a unit of property 0, and the same 20 are asked again: the p50 of
  those asks, the first one in, over the warm p50 (goal <= 1.2x), and the first ask's
  own time (a kept answer dropped by the write is read and made again: 20-50x).

Run with `make bench` or `python -m tests.benchmarks properties` (FLOORGATE_BENCH_PROPERTIES
sets P, default 10 and 100; past WALKED_PROPERTIES the walks are left out).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from pymongo import AsyncMongoClient

from resolvers.auth.keys import create_key
from rest.app import create_app
from storage import collections as c
from storage.database import Store, connect
from storage.embedded.server import EmbeddedServer
from storage.settings import Settings
from tests.benchmarks.harness.report import Phases, run_and_report

PUBLIC_URL = "https://bench.local"
DATABASE = "floorgate_bench_properties"
UNITS_PER_PROPERTY = 1000
FLOORS = 3
PER_PAGE = 1000
ASKED = 20  # properties asked before and after another property's write
# Past this many properties the walks are left out: on the embedded server each page
# scans every unit (500 properties: 500 pages of 3.4 s, twice).
WALKED_PROPERTIES = 100
REPEATS = 5  # timed asks of each, after it is kept


def sizes() -> tuple[int, ...]:
    given = os.environ.get("FLOORGATE_BENCH_PROPERTIES")
    return tuple(int(each) for each in given.split(",")) if given else (10, 100)


def property_id(n: int) -> str:
    return f"prop-{n:04d}"


async def seed(store: Store, properties: int) -> None:
    await store.client.drop_database(DATABASE)
    await store.ensure_indexes()
    stamp = {"created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"}
    for n in range(properties):
        asset = property_id(n)
        await store[c.ASSETS].insert_one(
            {"_id": asset, "market": "retail", "name": f"Mall {n}", **stamp}
        )
        floors = [
            {"_id": f"{asset}-f{level}", "asset_id": asset, "name": f"L{level}", "sort": level}
            | stamp
            for level in range(FLOORS)
        ]
        await store[c.FLOORS].insert_many(floors)
        units = [
            {
                "_id": f"{asset}-u{number:04d}",
                "asset_id": asset,
                "floor_id": floors[number % FLOORS]["_id"],
                "name": f"Shop {number} of mall {n}",
            }
            | stamp
            for number in range(UNITS_PER_PROPERTY)
        ]
        await store[c.UNITS].insert_many(units)


@dataclass
class Walk:
    pages: list[float] = field(default_factory=list)  # seconds of each page, in order

    @property
    def total(self) -> float:
        return sum(self.pages)


@dataclass
class Result:
    properties: int
    units: int
    kept_ends: Walk | None
    by_offset: Walk | None
    before: dict[str, list[float]]  # "units" / "search": p50 of each asked property
    after: dict[str, list[float]]


async def walk(client: httpx.AsyncClient, store: Store) -> Walk:
    store.cache.flush()
    done = Walk()
    page = 1
    while True:
        started = time.perf_counter()
        answer = await client.get(f"/v1/units?per-page={PER_PAGE}&page={page}")
        done.pages.append(time.perf_counter() - started)
        assert answer.status_code == 200, answer.text
        if answer.json()["paging"].get("next_url") is None:
            return done
        page += 1


async def asked(client: httpx.AsyncClient, properties: int, warm: bool) -> dict[str, list[float]]:
    """E6 and a search of each of ASKED properties: with `warm`, the p50 of REPEATS asks
    once each is kept; else the time of the first ask (after another property's write:
    a kept answer, or one made again); and (`units_p50`, `search_p50`) the p50 of all
    REPEATS + 1 asks."""
    found: dict[str, list[float]] = {"units": [], "search": [], "units_p50": [], "search_p50": []}
    for n in range(1, min(properties, ASKED + 1)):
        asset = property_id(n)
        paths = {
            "units": f"/v1/units?asset={asset}&per-page=100",
            "search": f"/v1/search?q=shop%20{n}&asset={asset}",
        }
        for name, path in paths.items():
            times = []
            for _ in range(REPEATS + 1):
                started = time.perf_counter()
                answer = await client.get(path)
                times.append(time.perf_counter() - started)
                assert answer.status_code == 200, answer.text
            found[name].append(statistics.median(times[1:]) if warm else times[0])
            found[f"{name}_p50"].append(statistics.median(times))
    return found


async def measure(store: Store, client: httpx.AsyncClient, uri: str, properties: int) -> Result:
    phases = Phases()
    await client.get("/v1/assets")  # the change stream up
    while not store.cache.live:
        await asyncio.sleep(0.01)
    kept_ends = by_offset = None
    if properties <= WALKED_PROPERTIES:
        paged_as = store.seeks_id_ranges  # False on the embedded server: by offset
        store.seeks_id_ranges = True  # as on MongoDB
        kept_ends = await walk(client, store)
        store.seeks_id_ranges = False
        by_offset = await walk(client, store)
        store.seeks_id_ranges = paged_as
        phases.done("walked")
    before = await asked(client, properties, warm=True)
    other: AsyncMongoClient[Any] = AsyncMongoClient(uri)
    try:
        moved = store.cache.version(c.UNITS)
        await other[DATABASE][c.UNITS].update_one(
            {"_id": f"{property_id(0)}-u0001"}, {"$set": {"name": "Renamed"}}
        )
        while store.cache.version(c.UNITS) == moved:
            await asyncio.sleep(0.005)
    finally:
        await other.close()
    after = await asked(client, properties, warm=False)
    phases.done("asked before and after a write")
    units = properties * UNITS_PER_PROPERTY
    return Result(properties, units, kept_ends, by_offset, before, after)


async def run(data_dir: Path) -> list[Result]:
    server = EmbeddedServer(data_dir / "server")
    server.start()
    results = []
    try:
        settings = Settings(
            data_dir=data_dir / "data", public_url=PUBLIC_URL, database_name=DATABASE
        )
        for properties in sizes():
            store = connect(server.uri, settings)
            try:
                phases = Phases()
                await seed(store, properties)  # drops the database: the key comes after
                phases.done(f"seeded {properties} properties")
                key = await create_key(store, "bench", [], None)
                transport = httpx.ASGITransport(app=create_app(settings, store))
                async with httpx.AsyncClient(
                    transport=transport,
                    base_url=PUBLIC_URL,
                    headers={"API-Key": key.secret, "Experimental-Flags": "search"},
                    timeout=120,
                ) as client:
                    results.append(await measure(store, client, server.uri, properties))
            finally:
                await store.close()
    finally:
        server.stop()
    return results


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def tables(results: list[Result]) -> list[list[str]]:
    walks = [
        "| properties | units | pages | walk | first page ms | last page ms | last / first | "
        "whole walk s |",
        "|---:|---:|---:|---|---:|---:|---:|---:|",
    ]
    writes = [
        "| properties | asked | E6 warm p50 ms | p50 after the write (its first ask in) | "
        "after / before | first after ms | search warm p50 ms | p50 after | after / before | "
        "first after ms |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for each in results:
        for name, done in (("after kept ends", each.kept_ends), ("by offset", each.by_offset)):
            if done is None:
                continue
            first, last = done.pages[0], done.pages[-1]
            walks.append(
                f"| {each.properties} | {each.units:,} | {len(done.pages)} | {name} | "
                f"{ms(first)} | {ms(last)} | {last / first:.2f} | {done.total:.2f} |"
            )
        row = [f"{each.properties}", f"{len(each.before['units'])}"]
        for name in ("units", "search"):
            before = statistics.median(each.before[name])
            after = statistics.median(each.after[f"{name}_p50"])
            first = statistics.median(each.after[name])
            row += [ms(before), ms(after), f"{after / before:.2f}", ms(first)]
        writes.append("| " + " | ".join(row) + " |")
    return [walks, writes]


def main() -> None:
    title = (
        f"Many properties: {', '.join(map(str, sizes()))} properties of "
        f"{UNITS_PER_PROPERTY:,} units; E6 walked at per-page {PER_PAGE}; {ASKED} properties "
        "asked before and after another process's write to one"
    )
    run_and_report(title, run, tables)


if __name__ == "__main__":
    main()
