"""Search during a write storm (issue 63, finding 5): one worker of `floorgate serve` over
TLS with the search benchmark's venue (`search.venue`, `STORM_LEVELS` levels of 400
places, 25 by default: 10,000), an honest keyed `GET /v1/assets/{id}` every 0.1 s on a
connection of its own; then two admin writers renaming random locations through
`putLocation` (each about 1.75 writes a second, 3.5 in all) and two searchers asking
distinct queries, each the next when its last is answered, 10 a second at most.

Phases of `SECONDS` each: idle (the GET alone), writes alone, searches alone, the storm
(writes and searches). Reported: the GET's p50 / p95 per phase, the searches' p50 / p95 / max, and
what `/readyz`'s `search_indexes` counted over the storm (full builds, updates, ...).

Run with `python -m tests.benchmarks search_storm` (about 2 minutes at 10,000 places).
`STORM_SECONDS` sets a phase's seconds.
"""

from __future__ import annotations

import asyncio
import os
import random
import ssl
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from resolvers.auth.keys import create_key
from resolvers.auth.permissions import ALL_PERMISSIONS
from rest.ops.tls import ensure_local_certificates
from storage.database import connect
from storage.embedded.server import EmbeddedServer
from storage.imports.importer import import_data
from storage.settings import Settings
from tests.benchmarks import search as bench
from tests.benchmarks.harness import servers as s
from tests.benchmarks.harness.report import Phases, machine

SECONDS = float(os.environ.get("STORM_SECONDS", "15"))
WRITE_EVERY = 1 / 1.75  # each writer
GET_EVERY = 0.1
SEARCH_EVERY = 0.1  # each searcher: the next search when the last is answered, 10 a second at most


def ms(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] * 1000 if ordered else 0.0


async def honest(client: httpx.AsyncClient, until: float, into: list[float]) -> None:
    while time.perf_counter() < until:
        started = time.perf_counter()
        answer = await client.get(f"/v1/assets/{bench.ASSET}")
        into.append(time.perf_counter() - started)
        assert answer.status_code == 200, answer.text
        await asyncio.sleep(max(0.0, GET_EVERY - (time.perf_counter() - started)))


async def writer(
    client: httpx.AsyncClient, data: dict[str, Any], seed: int, until: float, count: list[int]
) -> None:
    rng = random.Random(seed)
    while time.perf_counter() < until:
        started = time.perf_counter()
        location = dict(rng.choice(data["locations"]))
        location.update(
            {
                "name": f"Storm {seed} {count[0]} {rng.choice(bench.STARS)}",
                "assetId": location.pop("asset_id"),
                "unitMapId": location.pop("unit_map_id"),
            }
        )
        answer = await client.post(
            "/graphql", json={"query": bench.PUT_LOCATION, "variables": {"input": location}}
        )
        assert answer.status_code == 200 and "errors" not in answer.json(), answer.text
        count[0] += 1
        await asyncio.sleep(max(0.0, WRITE_EVERY - (time.perf_counter() - started)))


async def searcher(
    client: httpx.AsyncClient, asked: list[str], until: float, into: list[float]
) -> None:
    for q in asked:
        if time.perf_counter() >= until:
            return
        started = time.perf_counter()
        answer = await client.get("/v1/search", params={"q": q, "asset": bench.ASSET})
        into.append(time.perf_counter() - started)
        assert answer.status_code == 200, answer.text
        await asyncio.sleep(max(0.0, SEARCH_EVERY - (time.perf_counter() - started)))


async def figures(client: httpx.AsyncClient) -> dict[str, int]:
    answer = await client.get("/readyz")
    found: dict[str, int] = answer.json()["search_indexes"]
    return found


async def storm(server: s.Spawned, key: str, tls: ssl.SSLContext, data: dict[str, Any]) -> None:
    names = [unit["name"] for unit in data["units"]]
    asked = bench.queries(names, 4000, seed=63)
    clients = [bench.client_for(server, key, tls) for _ in range(5)]
    get, writers, searchers = clients[0], clients[1:3], clients[3:5]
    try:
        await searchers[0].get("/v1/search", params={"q": "lift", "asset": bench.ASSET})
        phases: dict[str, list[float]] = {}
        for phase in ("idle", "writes", "searches", "storm"):
            until = time.perf_counter() + SECONDS
            gets: list[float] = []
            found: list[float] = []
            count = [0]
            tasks = [honest(get, until, gets)]
            if phase in ("writes", "storm"):
                tasks += [writer(w, data, n, until, count) for n, w in enumerate(writers)]
            before = await figures(get)
            if phase in ("searches", "storm"):
                asked = asked[len(asked) // 2 :] if phase == "storm" else asked
                half = len(asked) // 2
                tasks += [
                    searcher(each, asked[n * half : (n + 1) * half], until, found)
                    for n, each in enumerate(searchers)
                ]
            await asyncio.gather(*tasks)
            after = await figures(get)
            built = {k: after[k] - before[k] for k in after if isinstance(after[k], int)}
            phases[phase] = gets
            print(
                f"| {phase} | GET p50 / p95 {ms(gets, 0.5):.1f} / {ms(gets, 0.95):.1f} ms "
                f"({len(gets)}) | writes {count[0]} | searches {len(found)}: p50 / p95 / max "
                f"{ms(found, 0.5):.1f} / {ms(found, 0.95):.1f} / {ms(found, 1.0):.1f} ms | "
                f"{built} |",
                flush=True,
            )
            await asyncio.sleep(1.0)
        idle = ms(phases["idle"], 0.95)
        for phase in ("writes", "searches", "storm"):
            print(f"- GET p95 {phase} / idle: {ms(phases[phase], 0.95) / idle:.1f}x")
        print(f"- GET median idle {statistics.median(phases['idle']) * 1000:.1f} ms")
    finally:
        for client in clients:
            await client.aclose()


async def seed(uri: str, folder: Path, data: dict[str, Any]) -> str:
    store = connect(uri, Settings(data_dir=folder / "seed", database_name=bench.DATABASE))
    try:
        await store.ensure_indexes()
        await import_data(store, data, folder)
        key = await create_key(store, "bench-storm", list(ALL_PERMISSIONS), None)
    finally:
        await store.close()
    return key.secret


def run(folder: Path) -> None:
    done = Phases().done
    database = EmbeddedServer(folder / "db")
    database.start()
    server: s.Spawned | None = None
    try:
        bench.LEVELS = int(os.environ.get("STORM_LEVELS", "25"))
        data = bench.venue()
        key = asyncio.run(seed(database.uri, folder, data))
        done(f"seeded {len(data['units']):,} units and {len(data['locations']):,} locations")
        certs = ensure_local_certificates(folder / "tls")
        tls = ssl.create_default_context(cafile=str(certs.ca_cert))
        env = {
            **os.environ,
            **bench.FLOORGATE_ENV,
            "FLOORGATE_MONGODB_URI": database.uri,
            "FLOORGATE_DATABASE": bench.DATABASE,
            "FLOORGATE_DATA_DIR": str(folder / "floorgate"),
        }
        logs = folder / "logs"
        logs.mkdir()
        port = s.free_port()
        args = s.floorgate_args(port, certs.cert, certs.key, bench.PUBLIC_URL, 1)
        server = s.spawn("floorgate", args, env, logs, port)
        s.wait_for_200(server, f"/v1/assets/{bench.ASSET}", {"API-Key": key}, tls)
        done("server up")
        print("\n".join(f"- {line}" for line in machine()))
        try:
            asyncio.run(storm(server, key, tls, data))
        except Exception:
            print(s.tail(server.log, 60))
            raise
        done("storm")
    finally:
        if server is not None:
            s.stop(server)
        database.stop()


def main() -> None:
    print(f"search_storm: {SECONDS:g} s per phase", flush=True)
    with tempfile.TemporaryDirectory(prefix="floorgate-storm-") as tmp:
        run(Path(tmp))
