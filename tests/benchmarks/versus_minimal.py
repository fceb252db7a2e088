"""floorgate beside a minimal Starlette + PyMongo async + orjson server (issue 15's goals).

One embedded database holds the demo and an asset of 10,000 units (`units_list`'s data).
Four servers run on it at once, each its own process over TLS with the same certificate:
`floorgate serve` with one worker, the same with its read cache off
(`FLOORGATE_READ_CACHE_MB=0`: every request does the minimal server's work),
`floorgate serve --workers 2`, and the minimal server (`_minimal_server.py`: the same
key check, queries and JSON bodies, nothing else; it keeps nothing) with one worker.
Then, every comparison interleaved in rotating order, floorgate with its cache on (as
deployed: repeated reads are kept answers) and off (the same work as the minimal server):

- server CPU per request of `GET /v1/units?per-page=N`, N = 100, 1000, 10000: the
  server process's CPU time (`/proc`, all threads) before and after a batch of
  sequential keep-alive requests, over the batch size; the median over rounds. The same
  for floorgate's `/graphql` with the route's own document (the same selection);
- throughput of `GET /v1/assets/{id}` with 32 keep-alive connections for a fixed time
  (wrk when installed, else a raw asyncio client in a process of its own);
- the latency of sequential keep-alive `GET /v1/assets/{id}` with 1 and 2 workers;
- E18 `POST /v1/unitmaps/map-b1/distance-matrix`, 1 source x 50 targets, against the
  matrix algorithm alone (`LoadedGraph.matrix`) on the same graph and points, as
  deployed (the same body again: its answer is kept) and with the read cache off;
- cold start: spawn to the first 200 of `GET /v1/assets/{id}`, the database running;
- issue 36's rows (read cache off: CPU per request at 1000 and 10000, E2 throughput)
  again on FRESH_PAIRS - 1 new pairs of processes; their goals hold on the median of
  the pairs' ratios (`harness/versus_report.py`).

The machine has 2 cores: the load generator, the database and the servers share them.

Run with `make bench` or `python -m tests.benchmarks versus_minimal` (5 to 6 minutes).
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import ssl
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from resolvers.auth.keys import create_key
from resolvers.auth.permissions import ALL_PERMISSIONS
from resolvers.wayfinding.graph_cache import load_graph
from rest.ops.tls import LocalCertificates, ensure_local_certificates
from routing.matrix import LoadedGraph, Point
from routing.model import FOOT
from routing.profile import Profile
from storage import collections as c
from storage.database import connect
from storage.demo.install import install_demo
from storage.embedded.server import EmbeddedServer
from storage.settings import Settings
from tests.benchmarks.harness import servers as s
from tests.benchmarks.harness.report import Phases, machine
from tests.benchmarks.harness.side_by_side import (
    CONNECTIONS,
    CPU_ROUNDS,
    THROUGHPUT_ROUNDS,
    THROUGHPUT_SECONDS,
    WARMUP_REQUESTS,
    Kind,
    PerRequest,
    Throughput,
    cpu_rounds,
    graphql_units,
    rest_units,
    throughput_rounds,
)
from tests.benchmarks.harness.versus_report import (
    BARE,
    E18_MAP,
    E18_TARGETS,
    PAIR_SIZES,
    SIZES,
    UNCACHED,
    PairRatios,
    cores,
    cpu_details,
    median,
    ratios_of,
    rows_of,
    table,
)
from tests.benchmarks.units_list import ASSET_ID, build_documents
from tests.benchmarks.validate_new import SHAPES, time_shape

DATABASE = "floorgate_versus_minimal"
PUBLIC_URL = "https://bench.local"  # both servers write the same links: bodies compare
LATENCY_REQUESTS = 300  # per server
E18_REQUESTS = 30
COLD_STARTS = 5
VALIDATION_RUNS = 10  # new documents per shape of `validate_new`
ASSET_PATH = f"/v1/assets/{ASSET_ID}"
# Issue 36's rows are each pair's ratio, the median over this many pairs of processes
# (floorgate with its read cache off, the minimal server), each pair started afresh: one
# process keeps what it drew at its start (where its heap and the kernel placed it) for
# its life, so that two pairs measured alike differed by 0.85x to 1.40x on this machine.
FRESH_PAIRS = 3
FLOORGATE_ENV = {
    # The rate limiter runs as deployed, with a limit no benchmark reaches.
    "FLOORGATE_RATE_LIMIT_PER_SECOND": "1000000",
    "FLOORGATE_RATE_LIMIT_BURST": "1000000",
}


def served_env(uri: str, folder: Path, **settings: str) -> dict[str, str]:
    """The environment the benchmarks' servers start with: this process's, floorgate's
    settings for a benchmark, the database, a data folder, and `settings` on top."""
    return {
        **os.environ,
        **FLOORGATE_ENV,
        "FLOORGATE_MONGODB_URI": uri,
        "FLOORGATE_DATABASE": DATABASE,
        "FLOORGATE_DATA_DIR": str(folder / "floorgate"),
        **settings,
    }


# -- data -------------------------------------------------------------------------------


@dataclass
class E18Case:
    """The request body and, for the algorithm alone, the graph and placed points."""

    body: dict[str, Any]
    loaded: LoadedGraph
    sources: list[Point]
    targets: list[Point]


async def prepare(uri: str, folder: Path) -> tuple[str, E18Case]:
    """Seed the demo and the 10,000-unit asset; make a key with every permission."""
    settings = Settings(data_dir=folder / "seed", database_name=DATABASE, mongodb_uri=uri)
    store = connect(uri, settings)
    try:
        await store.ensure_indexes()
        await install_demo(store, folder / "seed")
        asset, floors, units = build_documents()
        await store[c.ASSETS].insert_one(asset)
        await store[c.FLOORS].insert_many(floors)
        for start in range(0, len(units), 1000):
            await store[c.UNITS].insert_many(units[start : start + 1000])
        key = await create_key(store, "versus-minimal", list(ALL_PERMISSIONS), None)
        unit_map = await store[c.UNIT_MAPS].find_one({"_id": E18_MAP})
        assert unit_map is not None and unit_map.get("graph_file"), "demo map without a graph"
        cursor = store[c.LOCATIONS].find({"unit_map_id": E18_MAP}).sort("_id", 1)
        locations = await cursor.to_list()
        height = unit_map.get("floor_height_ft") or settings.routing_costs.floor_height_ft
        loaded = await load_graph(store, settings, unit_map["graph_file"], height)
    finally:
        await store.close()
    levels = [level.get("floor_id") for level in unit_map.get("levels") or []]

    def placed(location: dict[str, Any]) -> Point:
        """As the resolver places a waypoint given by id: its first floor's level."""
        return Point(
            float(location["x"]), float(location["y"]), levels.index(location["floors"][0]["id"])
        )

    sources, targets = locations[:1], locations[-E18_TARGETS:]
    body = {
        "data": {
            "sources": [{"id": loc["_id"]} for loc in sources],
            "targets": [{"id": loc["_id"]} for loc in targets],
        }
    }
    case = E18Case(body, loaded, [placed(x) for x in sources], [placed(x) for x in targets])
    return key.secret, case


@dataclass
class Seeded:
    """An embedded database seeded by `prepare`, and what its servers start with."""

    database: EmbeddedServer
    key: str
    case: E18Case
    certs: LocalCertificates
    env: dict[str, str]
    logs: Path


@contextmanager
def seeded(folder: Path, **settings: str) -> Iterator[Seeded]:
    """Start a database under `folder`, seed it, make the certificates, the servers'
    environment (`served_env` with `settings`) and their log folder; the database is
    stopped whatever happens."""
    database = EmbeddedServer(folder / "db")
    database.start()
    try:
        key, case = asyncio.run(prepare(database.uri, folder))
        certs = ensure_local_certificates(folder / "tls")
        env = served_env(database.uri, folder, **settings)
        logs = folder / "logs"
        logs.mkdir()
        yield Seeded(database, key, case, certs, env, logs)
    finally:
        database.stop()


# -- measuring --------------------------------------------------------------------------


@dataclass
class Servers:
    """The long-running servers and one keep-alive client for each."""

    one: s.Spawned  # floorgate, 1 worker
    bare: s.Spawned  # floorgate, 1 worker, read cache off
    two: s.Spawned  # floorgate, --workers 2
    minimal: s.Spawned
    clients: dict[str, httpx.Client] = field(default_factory=dict)

    def client(self, server: s.Spawned) -> httpx.Client:
        return self.clients[server.name]


def measure_cpu(servers: Servers) -> dict[tuple[str, int], PerRequest]:
    """(kind, N) -> per-request CPU and wall time by round; kinds rotated every round."""
    kinds = [
        Kind("floorgate REST", servers.one, rest_units),
        Kind("minimal", servers.minimal, rest_units),
        Kind("floorgate /graphql", servers.one, graphql_units),
        Kind(f"floorgate REST{UNCACHED}", servers.bare, rest_units),
        Kind(f"floorgate /graphql{UNCACHED}", servers.bare, graphql_units),
    ]
    return cpu_rounds(kinds, SIZES, servers.client)


def measure_throughput(
    servers: Servers, database_pid: int, key: str, certs: LocalCertificates, folder: Path
) -> dict[str, Throughput]:
    order = [servers.one, servers.minimal, servers.two, servers.bare]
    return throughput_rounds(order, ASSET_PATH, key, certs.ca_cert, folder, database_pid)


def fresh_pair(
    spawn_bare: Callable[[], s.Spawned],
    spawn_minimal: Callable[[], s.Spawned],
    headers: dict[str, str],
    tls: ssl.SSLContext,
    measure_load: Callable[[list[s.Spawned]], dict[str, Throughput]],
) -> PairRatios:
    """Issue 36's uncached rows again, on a new pair of processes (stopped after)."""
    pair = [spawn_bare(), spawn_minimal()]
    clients: dict[str, httpx.Client] = {}
    try:
        for server in pair:
            s.wait_for_200(server, ASSET_PATH, headers, tls)
            clients[server.name] = httpx.Client(
                base_url=server.base, verify=tls, headers=headers, timeout=60.0
            )
        kinds = [
            Kind(f"floorgate REST{UNCACHED}", pair[0], rest_units),
            Kind("minimal", pair[1], rest_units),
        ]
        cpu = cpu_rounds(kinds, PAIR_SIZES, lambda server: clients[server.name])
        return ratios_of(cpu, measure_load(pair))
    finally:
        for client in clients.values():
            client.close()
        for server in pair:
            s.stop(server)


def measure_latency(servers: Servers) -> dict[str, float]:
    """Median ms of one sequential keep-alive `GET /v1/assets/{id}`; the servers take turns
    request by request, so the machine's other load falls on all of them alike."""
    order = [servers.one, servers.two, servers.minimal]
    samples: dict[str, list[float]] = {server.name: [] for server in order}
    for server in order:
        for _ in range(WARMUP_REQUESTS):
            servers.client(server).get(ASSET_PATH)
    for turn in range(LATENCY_REQUESTS):
        shift = turn % len(order)
        for server in order[shift:] + order[:shift]:
            start = time.perf_counter()
            response = servers.client(server).get(ASSET_PATH)
            samples[server.name].append(time.perf_counter() - start)
            assert response.status_code == 200, response.text
    return {name: median(values) * 1000 for name, values in samples.items()}


def measure_e18(servers: Servers, case: E18Case) -> dict[str, float]:
    """REST median wall ms and server CPU ms per request, as deployed (`rest`, `cpu`: the
    answer kept after the first request) and with the read cache off (`bare`,
    `bare_cpu`: the algorithm runs every time); the algorithm alone, median ms."""
    headers = {"Experimental-Flags": "distances"}
    path = f"/v1/unitmaps/{E18_MAP}/distance-matrix"
    alone_times = [
        cell and round(cell[1], 2)
        for cell in case.loaded.matrix(Profile(FOOT), case.sources, case.targets)[0]
    ]
    for server in (servers.one, servers.bare):
        answer = servers.client(server).post(path, json=case.body, headers=headers)
        assert answer.status_code == 200, answer.text
        times = [t["time"] for t in answer.json()["data"]["sources"][0]["targets"]]
        assert times == alone_times and None not in times, "REST and the algorithm disagree"
        for _ in range(WARMUP_REQUESTS):
            servers.client(server).post(path, json=case.body, headers=headers)
    samples: dict[str, list[float]] = {
        "rest": [],
        "cpu": [],
        "bare": [],
        "bare_cpu": [],
        "alone": [],
    }
    for _ in range(E18_REQUESTS):
        for server, wall, cpu in ((servers.one, "rest", "cpu"), (servers.bare, "bare", "bare_cpu")):
            client = servers.client(server)
            before = s.cpu_seconds(server.pid)
            start = time.perf_counter()
            response = client.post(path, json=case.body, headers=headers)
            samples[wall].append(time.perf_counter() - start)
            time.sleep(0.005)
            samples[cpu].append(s.cpu_seconds(server.pid) - before)
            assert response.status_code == 200, response.text
        start = time.perf_counter()
        case.loaded.matrix(Profile(FOOT), case.sources, case.targets)
        samples["alone"].append(time.perf_counter() - start)
    return {name: median(values) * 1000 for name, values in samples.items()}


def first_200(spawn: Callable[[], s.Spawned], key: str, tls: ssl.SSLContext) -> Callable[[], float]:
    """A measure: start a server, seconds from its spawn to its first 200, stop it."""

    def measure() -> float:
        server = spawn()
        try:
            return s.wait_for_200(server, ASSET_PATH, {"API-Key": key}, tls)
        finally:
            s.stop(server)

    return measure


def cold_starts(
    measures: dict[str, Callable[[], float]], rounds: int = COLD_STARTS
) -> dict[str, list[float]]:
    """Each measure's seconds, `rounds` times, alternating, after the bytecode is written."""
    s.compile_bytecode()
    names = list(measures)
    samples: dict[str, list[float]] = {name: [] for name in names}
    for run in range(rounds):
        shift = run % len(names)
        for name in names[shift:] + names[:shift]:
            samples[name].append(measures[name]())
    return samples


async def validation_ms() -> list[float]:
    """The guard's validation of new documents of about TARGET_TOKENS tokens, as a
    /graphql request runs it (`validate_new`'s "guard" column), in ms: every shape."""
    times: list[float] = []
    for number, shape in enumerate(SHAPES):
        timings = await time_shape(shape, VALIDATION_RUNS, 1000 * (number + 1))
        times.extend(timings.columns["guard"])  # in ms
    return times


def same_bodies(servers: Servers) -> list[str]:
    """Whether both servers answer the same bytes (a fair yardstick does the same work)."""
    notes = []
    for path, params in (("/v1/units", {"per-page": "100"}), (ASSET_PATH, {})):
        ours = servers.client(servers.one).get(path, params=params).content
        theirs = servers.client(servers.minimal).get(path, params=params).content
        if ours == theirs:
            notes.append(f"{path}: identical bodies ({len(ours):,} bytes)")
        else:
            at = next(
                (i for i, (a, b) in enumerate(zip(ours, theirs, strict=False)) if a != b),
                min(len(ours), len(theirs)),
            )
            notes.append(
                f"{path}: bodies differ at byte {at} ({len(ours):,} / "
                f"{len(theirs):,} bytes): {ours[at : at + 60]!r} / {theirs[at : at + 60]!r}"
            )
    return notes


def commit() -> str:
    """HEAD's short hash; "+ changes" when tracked files differ from it (the run measured
    the working tree)."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        changed = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"
    return f"{head} + uncommitted changes" if changed else head


# -- entry ------------------------------------------------------------------------------


def minimal_stack() -> str:
    """What uvicorn's defaults ("auto") pick for the minimal server here."""
    loop = "uvloop" if importlib.util.find_spec("uvloop") else "asyncio"
    http = "httptools" if importlib.util.find_spec("httptools") else "h11"
    return f"uvicorn defaults: {loop}, {http}"


def load_average() -> str:
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


def run(folder: Path) -> None:
    """Start the database and the servers, measure, print; every process is stopped."""
    load_before = load_average()
    done = Phases().done

    started: list[s.Spawned] = []
    with seeded(folder) as seed:
        database, key, case, certs, env, logs = (
            seed.database,
            seed.key,
            seed.case,
            seed.certs,
            seed.env,
            seed.logs,
        )
        try:

            def floorgate(workers: int = 1, name: str = "floorgate", **extra: str) -> s.Spawned:
                port = s.free_port()
                args = s.floorgate_args(port, certs.cert, certs.key, PUBLIC_URL, workers)
                server = s.spawn(name, args, {**env, **extra}, logs, port)
                started.append(server)
                return server

            def minimal() -> s.Spawned:
                port = s.free_port()
                args = s.minimal_args(
                    port, certs.cert, certs.key, PUBLIC_URL, database.uri, DATABASE
                )
                server = s.spawn("minimal", args, env, logs, port)
                started.append(server)
                return server

            servers = Servers(
                floorgate(),
                floorgate(1, BARE, FLOORGATE_READ_CACHE_MB="0"),
                floorgate(2, "floorgate-2w"),
                minimal(),
            )
            tls = ssl.create_default_context(cafile=str(certs.ca_cert))
            # The same bytes from both: floorgate compresses what a client accepts (docs/api.md,
            # "Compression"), the minimal server never does, and httpx asks for gzip and br.
            headers = {"API-Key": key, "Accept-Encoding": "identity"}
            for server in (servers.one, servers.bare, servers.two, servers.minimal):
                s.wait_for_200(server, ASSET_PATH, headers, tls)
                servers.clients[server.name] = httpx.Client(
                    base_url=server.base, verify=tls, headers=headers, timeout=60.0
                )
            done("seeded, servers up")
            print(
                f"  load generator: {s.load_tool()}; minimal server: {minimal_stack()}", flush=True
            )
            for note in same_bodies(servers):
                print(f"  {note}", flush=True)
            cpu = measure_cpu(servers)
            done("CPU per request")
            throughput = measure_throughput(servers, database.pid or 0, key, certs, folder)
            done("throughput")
            pairs = [ratios_of(cpu, throughput)]

            def pair_load(pair: list[s.Spawned]) -> dict[str, Throughput]:
                return throughput_rounds(
                    pair, ASSET_PATH, key, certs.ca_cert, folder, database.pid or 0
                )

            while len(pairs) < FRESH_PAIRS:
                pairs.append(
                    fresh_pair(
                        lambda: floorgate(1, BARE, FLOORGATE_READ_CACHE_MB="0"),
                        minimal,
                        headers,
                        tls,
                        pair_load,
                    )
                )
                print(f"  pair {len(pairs)}: {pairs[-1]}", flush=True)
            done("fresh pairs")
            latency = measure_latency(servers)
            e18 = measure_e18(servers, case)
            print(
                f"  E18: REST {e18['rest']:.2f} ms, read cache off {e18['bare']:.2f} ms, "
                f"algorithm {e18['alone']:.2f} ms",
                flush=True,
            )
            for client in servers.clients.values():
                client.close()
            done("latency, E18")
            starts = cold_starts(
                {
                    "floorgate": first_200(floorgate, key, tls),
                    "minimal": first_200(minimal, key, tls),
                }
            )
            cold = {name: median(values) for name, values in starts.items()}
            done("cold starts")
            validation = asyncio.run(validation_ms())
            done("validation")
            rows = rows_of(cpu, throughput, latency, e18, cold, validation, pairs)
        finally:
            for server in started:
                s.stop(server)
    print()
    print(f"- commit: {commit()}")
    print("\n".join(f"- {line}" for line in machine()))
    print(
        f"- load generator: {s.load_tool()} (one process, {CONNECTIONS} connections); "
        f"minimal server: {minimal_stack()}"
    )
    print(
        f"- client, database and servers share this machine's {os.cpu_count()} cores; load "
        f"average (1/5/15 min) before {load_before}, after {load_average()}"
    )
    print()
    print("\n".join(table(rows)))
    print()
    print("\n".join(cpu_details(cpu)))
    print()
    print("\n".join(cores(throughput)))
    failed = [row.measure for row in rows if row.passed is False]
    print(f"\ngoals: {sum(row.passed is True for row in rows)} met, {len(failed)} not met")


def main() -> None:
    """Run the side-by-side benchmark and print the machine and the table (Markdown)."""
    print(
        f"versus_minimal: floorgate beside a minimal server on one database; CPU rounds "
        f"{CPU_ROUNDS}, throughput {THROUGHPUT_ROUNDS} x {THROUGHPUT_SECONDS:g} s per "
        f"server, {COLD_STARTS} cold starts each",
        flush=True,
    )
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="floorgate-versus-") as tmp:
        run(Path(tmp))
    print(f"\n(total {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
