"""Issue 16's read cache against its "Done when": speed beside the minimal server, and memory.

One embedded database (`secantusd-py`) holds two databases, loaded before anything runs:

- `units_list`'s asset of 10,000 units (the issue's "10,100 documents examined" case);
- 100,000 units in 50 assets of 2,000 (ten copies of `units_list`'s data with other
  seeds, each split into five assets of 8 floors), one key for all assets and one key
  per asset, inserted with `insert_many` directly.

On the 10,000 units, three servers run at once over TLS with the same certificate:
floorgate with the cache as configured by default, floorgate with
`FLOORGATE_READ_CACHE_MB=0`, and the minimal server (`_minimal_server.py`). Measured:

1. warm `GET /v1/units?per-page=100`: p50 and p99 of sequential keep-alive requests, the
   servers taking turns (the cached server gets 5 requests a turn, the others 1, so its
   p99 rests on enough samples); goal p50 <= 5 ms with the cache;
2. throughput of the same request, 1 worker, 32 connections (wrk via `_servers.run_load`),
   best of 3 rounds; goal >= 1,000 req/s with the cache;
3. cold first read: spawn to the first 200 of that request (the minimal server too);
   and, in other starts, that request alone on a connection opened right after
   `/healthz` answered; the servers alternating, the median of 5; goal: no slower with
   the cache than without (10% allowed).

Then, on the 100,000 units, floorgate with `FLOORGATE_READ_CACHE_MB=64` beside one
without a cache: after a warm-up its RSS (`/proc/<pid>/status` VmRSS) is noted, then one
client sends random requests (E6 pages of random size up to 1000 with random keys,
single units, floors and assets lists) until the cache is full and has let go of
results for want of room for a while (or a time limit); `/readyz` is read every few
seconds. Goals: `bytes_used` never above `budget_bytes`, and RSS growth over the run
within the budget plus ALLOWANCE_MB for the allocators' slack.

Correctness (the run fails, after printing, when it does not hold): the cached and
uncached floorgate answer the same bytes for the measured request and a few other pages,
the cache actually served hits, and random earlier requests of the memory run answer the
same from both servers at its end.

Run with `make bench` or `python -m tests.benchmarks read_cache` (about 12 minutes on a
2-core machine: throughput rounds, loading 100,000 units and filling the cache).
"""

from __future__ import annotations

import math
import os
import random
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from resolvers.auth.keys import create_key
from resolvers.auth.permissions import ALL_PERMISSIONS
from rest.ops.tls import LocalCertificates, ensure_local_certificates
from storage import collections as c
from storage.database import connect
from storage.embedded.server import EmbeddedServer
from storage.settings import Settings
from tests.benchmarks import units_list
from tests.benchmarks.harness import servers as s
from tests.benchmarks.harness.report import Phases, run_and_report
from tests.benchmarks.harness.versus_report import NOISE, median
from tests.benchmarks.versus_minimal import (
    FLOORGATE_ENV,
    PUBLIC_URL,
    commit,
    load_average,
    minimal_stack,
)

SMALL_DATABASE = units_list.DATABASE  # `units_list.seed` drops and fills this one
LARGE_DATABASE = "floorgate_bench_read_cache_large"
UNITS_PATH = "/v1/units?per-page=100"
CACHE_VARIABLE = "FLOORGATE_READ_CACHE_MB"
# Warm latency
WARMUP_REQUESTS = 5
LATENCY_TURNS = 200
CACHED_PER_TURN = 5
P50_GOAL_MS = 5.0
# Throughput
CONNECTIONS = 32
THROUGHPUT_SECONDS = 10  # whole seconds: wrk takes no fractions
THROUGHPUT_WARMUP_SECONDS = 2
THROUGHPUT_ROUNDS = 3
IDLE_CORES = 0.1  # below this the database and a server count as idle
RATE_GOAL = 1000.0
# Cold first read
COLD_STARTS = 5
# Memory
LARGE_COPIES = 10  # x units_list's 10,000 units
FLOORS_PER_LARGE_ASSET = 8  # x 250 units: 2,000 units an asset, 50 assets
BUDGET_MB = 64
ALLOWANCE_MB = 16  # pymalloc arenas and glibc heap pages that stay after a large answer
MAX_PER_PAGE = 1000
ALL_ASSETS_SHARE = 0.04  # of E6 requests: the all-assets key reads all 100,000 (2-4 s a miss)
MEMORY_MIN_SECONDS = 60
MEMORY_MAX_SECONDS = 600
SAMPLE_SECONDS = 5.0
DROPPED_TARGET = 300  # results the cache let go for want of room before the run may end
FULL_SECONDS = 90  # and it goes on this long after the first was let go: RSS while evicting
CHECKED_REQUESTS = 40  # earlier requests asked again of both servers at the end


def percentile(values: list[float], share: float) -> float:
    """Nearest rank."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def rss_mib(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) of a process in MiB: resident now, and the most it ever was."""
    found: dict[str, float] = {}
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM"):
                found[name] = int(value.split()[0]) / 1024  # kB
    return found["VmRSS"], found["VmHWM"]


# -- data -------------------------------------------------------------------------------


@dataclass
class Large:
    """The 100,000-unit database: its keys (index 0 for every asset), assets, unit ids."""

    secrets: list[str]
    asset_ids: list[str]
    unit_ids: list[str]
    units_per_asset: int
    floors_per_asset: int


def large_documents() -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """`units_list`'s documents, LARGE_COPIES times with other seeds, each copy split into
    assets of FLOORS_PER_LARGE_ASSET floors: the same shapes, 100,000 units."""
    assets: list[dict[str, Any]] = []
    floors: list[dict[str, Any]] = []
    units: list[dict[str, Any]] = []
    for copy in range(LARGE_COPIES):
        asset, copy_floors, copy_units = units_list.build_documents(seed=20261123 + copy)
        asset_of_floor: dict[str, str] = {}
        for number, floor in enumerate(copy_floors):
            part = number // FLOORS_PER_LARGE_ASSET
            asset_id = f"ast_{copy:02d}{part:02d}{asset['_id'][-8:]}"
            if number % FLOORS_PER_LARGE_ASSET == 0:
                assets.append({**asset, "_id": asset_id, "name": f"{asset['name']} {copy}.{part}"})
            floor["asset_id"] = asset_of_floor[floor["_id"]] = asset_id
            floors.append(floor)
        for unit in copy_units:
            unit["asset_id"] = asset_of_floor[unit["floor_id"]]
            units.append(unit)
    return assets, floors, units


async def prepare(uri: str, folder: Path) -> tuple[str, Large]:
    """Seed both databases; a key with every permission for the small one, and for the
    large one a key for every asset and one per asset. Returns the small key's secret."""
    settings = Settings(
        data_dir=folder / "seed", database_name=SMALL_DATABASE, mongodb_uri=uri, read_cache_mb=0
    )
    store = connect(uri, settings)
    try:
        await units_list.seed(store)
        small_key = await create_key(store, "read-cache", list(ALL_PERMISSIONS), None)
    finally:
        await store.close()
    large_settings = Settings(
        data_dir=folder / "seed", database_name=LARGE_DATABASE, mongodb_uri=uri, read_cache_mb=0
    )
    store = connect(uri, large_settings)
    try:
        await store.client.drop_database(LARGE_DATABASE)
        await store.ensure_indexes()
        assets, floors, units = large_documents()
        await store[c.ASSETS].insert_many(assets)
        await store[c.FLOORS].insert_many(floors)
        for start in range(0, len(units), 10_000):
            await store[c.UNITS].insert_many(units[start : start + 10_000], ordered=False)
        assert await store[c.UNITS].count_documents({}) == len(units)
        asset_ids = [asset["_id"] for asset in assets]
        secrets = [(await create_key(store, "all", list(ALL_PERMISSIONS), None)).secret]
        for asset_id in asset_ids:
            key = await create_key(store, asset_id, list(ALL_PERMISSIONS), [asset_id])
            secrets.append(key.secret)
    finally:
        await store.close()
    large = Large(
        secrets,
        asset_ids,
        [unit["_id"] for unit in units],
        len(units) // len(asset_ids),
        FLOORS_PER_LARGE_ASSET,
    )
    return small_key.secret, large


# -- servers ----------------------------------------------------------------------------


@dataclass
class Launcher:
    """Starts floorgate and the minimal server on one database; remembers them all so
    that every process is stopped at the end."""

    uri: str
    certs: LocalCertificates
    logs: Path
    data_dir: Path
    started: list[s.Spawned] = field(default_factory=list)

    def floorgate(self, name: str, database: str, cache_mb: int | None) -> s.Spawned:
        """`cache_mb` None: the setting's default (the variable is not set at all)."""
        env = {k: v for k, v in os.environ.items() if k != CACHE_VARIABLE}
        env.update(FLOORGATE_ENV)
        env.update(
            FLOORGATE_MONGODB_URI=self.uri,
            FLOORGATE_DATABASE=database,
            FLOORGATE_DATA_DIR=str(self.data_dir),
        )
        if cache_mb is not None:
            env[CACHE_VARIABLE] = str(cache_mb)
        port = s.free_port()
        args = s.floorgate_args(port, self.certs.cert, self.certs.key, PUBLIC_URL, 1)
        return self._keep(s.spawn(name, args, env, self.logs, port))

    def minimal(self, database: str) -> s.Spawned:
        port = s.free_port()
        args = s.minimal_args(port, self.certs.cert, self.certs.key, PUBLIC_URL, self.uri, database)
        return self._keep(s.spawn("minimal", args, dict(os.environ), self.logs, port))

    def _keep(self, server: s.Spawned) -> s.Spawned:
        self.started.append(server)
        return server

    def stop_all(self) -> None:
        for server in self.started:
            s.stop(server)


def client_for(server: s.Spawned, tls: ssl.SSLContext, key: str) -> httpx.Client:
    return httpx.Client(base_url=server.base, verify=tls, headers={"API-Key": key}, timeout=60.0)


def cache_stats(client: httpx.Client) -> dict[str, Any]:
    response = client.get("/readyz")
    if response.status_code != 200:
        raise RuntimeError(f"/readyz: {response.status_code} {response.text[:200]}")
    return response.json()["read_cache"]


def wait_until_live(client: httpx.Client, timeout: float = 30.0) -> dict[str, Any]:
    """The cache serves nothing until its change stream is up: measure only after."""
    deadline = time.monotonic() + timeout
    while True:
        stats = cache_stats(client)
        if stats["live"] or time.monotonic() > deadline:
            return stats
        time.sleep(0.05)


def get_ok(client: httpx.Client, path: str, key: str | None = None) -> httpx.Response:
    headers = {"API-Key": key} if key else None
    response = client.get(path, headers=headers)
    if response.status_code != 200:
        raise RuntimeError(f"{client.base_url}{path}: {response.status_code} {response.text[:200]}")
    return response


# -- 1, 2: warm latency and throughput on 10,000 units ------------------------------------


NAMES = ("on", "off", "minimal")


@dataclass
class Trio:
    """The three long-running servers of the 10,000-unit measurements, by NAMES."""

    servers: dict[str, s.Spawned]
    clients: dict[str, httpx.Client]


def measure_latency(trio: Trio) -> dict[str, list[float]]:
    """Milliseconds of each sequential keep-alive request, the servers taking turns."""
    for name in NAMES:
        for _ in range(WARMUP_REQUESTS):
            get_ok(trio.clients[name], UNITS_PATH)
    samples: dict[str, list[float]] = {name: [] for name in NAMES}
    for turn in range(LATENCY_TURNS):
        shift = turn % len(NAMES)
        for name in NAMES[shift:] + NAMES[:shift]:
            client = trio.clients[name]
            for _ in range(CACHED_PER_TURN if name == "on" else 1):
                start = time.perf_counter()
                response = client.get(UNITS_PATH)
                samples[name].append((time.perf_counter() - start) * 1000)
                if response.status_code != 200:
                    raise RuntimeError(f"{name}: {response.status_code} {response.text[:200]}")
    return samples


@dataclass(frozen=True)
class Throughput:
    rate: float
    server_cpu_ms: float  # server CPU per answer (NaN: no answer in the run)
    database_cores: float
    errors: int
    tool: str


def settle(pids: list[int], limit: float = 60.0) -> None:
    """Wait until these processes are idle. wrk closes its connections at the end of a
    run, but the server still finishes what they had asked (32 list queries of 100 ms
    or more each without the cache): that work must not fall on the next run."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        before = s.tree_cpu_seconds(pids)
        time.sleep(0.25)
        if s.tree_cpu_seconds(pids) - before < 0.25 * IDLE_CORES:
            return


def measure_throughput(
    trio: Trio, database_pid: int, key: str, certs: LocalCertificates, folder: Path
) -> dict[str, Throughput]:
    """Each server's best round (other load on the machine can only slow a round down)."""
    runs: dict[str, list[Throughput]] = {name: [] for name in NAMES}
    for round_no in range(THROUGHPUT_ROUNDS):
        shift = round_no % len(NAMES)
        for name in NAMES[shift:] + NAMES[:shift]:
            server = trio.servers[name]
            url = server.base + UNITS_PATH
            s.run_load(url, key, certs.ca_cert, CONNECTIONS, THROUGHPUT_WARMUP_SECONDS, folder)
            settle([database_pid, server.pid])
            server_before = s.cpu_seconds(server.pid)
            database_before = s.cpu_seconds(database_pid)
            load = s.run_load(url, key, certs.ca_cert, CONNECTIONS, THROUGHPUT_SECONDS, folder)
            server_cpu = s.cpu_seconds(server.pid) - server_before
            database_cpu = s.cpu_seconds(database_pid) - database_before
            settle([database_pid, server.pid])
            runs[name].append(
                Throughput(
                    load.rate,
                    server_cpu / load.requests * 1000 if load.requests else math.nan,
                    database_cpu / load.seconds,
                    load.errors,
                    load.tool,
                )
            )
            print(
                f"  throughput {name}: {load.rate:,.0f} req/s ({load.tool}, {load.errors} errors)",
                flush=True,
            )
    return {name: max(found, key=lambda t: t.rate) for name, found in runs.items()}


def compare_bodies(trio: Trio) -> tuple[list[str], list[str]]:
    """(notes, failures): the cached server's answers (served from its cache: each is
    asked twice) against the uncached server's, and beside the minimal server's."""
    notes, failures = [], []
    for path in (
        UNITS_PATH,
        "/v1/units?per-page=10&page=7",
        "/v1/units?per-page=1000&page=3",
        "/v1/units?per-page=100&page=100",
    ):
        get_ok(trio.clients["on"], path)
        cached = get_ok(trio.clients["on"], path).content
        uncached = get_ok(trio.clients["off"], path).content
        minimal = get_ok(trio.clients["minimal"], path).content
        if cached != uncached:
            failures.append(
                f"{path}: cache on and off answer different bodies "
                f"({len(cached):,} / {len(uncached):,} bytes)"
            )
        same = "identical to the minimal server's" if cached == minimal else "differs from minimal"
        notes.append(
            f"{path}: cache on = cache off ({len(cached):,} bytes) "
            f"{'yes' if cached == uncached else 'NO'}; {same}"
        )
    return notes, failures


# -- 3: cold first read -----------------------------------------------------------------


def first_list_after_healthz(server: s.Spawned, key: str, tls: ssl.SSLContext) -> float:
    """Seconds of the first list request on a connection opened once `/healthz` answered
    (the TLS handshake and connection set-up are not in it)."""
    s.wait_for_200(server, "/healthz", {}, tls)
    with client_for(server, tls, key) as client:
        get_ok(client, "/healthz")
        start = time.perf_counter()
        get_ok(client, UNITS_PATH)
        return time.perf_counter() - start


def measure_cold(
    launcher: Launcher, key: str, tls: ssl.SSLContext
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """(spawn to first 200 of the list, first list after /healthz), seconds, by server;
    the servers alternate, the order rotating."""
    spawners: dict[str, Callable[[], s.Spawned]] = {
        "on": lambda: launcher.floorgate("cold-on", SMALL_DATABASE, None),
        "off": lambda: launcher.floorgate("cold-off", SMALL_DATABASE, 0),
        "minimal": lambda: launcher.minimal(SMALL_DATABASE),
    }
    to_first: dict[str, list[float]] = {name: [] for name in NAMES}
    after_health: dict[str, list[float]] = {"on": [], "off": []}
    for run in range(COLD_STARTS):
        shift = run % len(NAMES)
        for name in NAMES[shift:] + NAMES[:shift]:
            server = spawners[name]()
            try:
                to_first[name].append(s.wait_for_200(server, UNITS_PATH, {"API-Key": key}, tls))
            finally:
                s.stop(server)
            if name in after_health:
                server = spawners[name]()
                try:
                    after_health[name].append(first_list_after_healthz(server, key, tls))
                finally:
                    s.stop(server)
        print(f"  cold start {run + 1}/{COLD_STARTS} done", flush=True)
    return to_first, after_health


# -- 4: memory on 100,000 units ---------------------------------------------------------


@dataclass(frozen=True)
class MemorySample:
    seconds: float
    requests: int
    entries: int
    bytes_used: int
    hits: int
    misses: int
    dropped: int  # misses since the start less entries gained: let go for want of room
    rss: float  # MiB


@dataclass
class Memory:
    budget_bytes: int
    rss_before: float
    rss_full: float  # at the first sample after the cache let go of a result
    rss_after: float
    hwm_after: float
    samples: list[MemorySample]
    requests: int
    seconds: float
    kinds: dict[str, int]
    flushes: int  # during the run: with none, `dropped` is evictions (and stale entries)
    invalidations: int
    bypassed: int
    checked: int
    check_hits: int
    failures: list[str]

    @property
    def growth(self) -> float:
        return self.rss_after - self.rss_before

    @property
    def peak_growth(self) -> float:
        return max(sample.rss for sample in self.samples) - self.rss_before

    @property
    def max_bytes_used(self) -> int:
        return max(sample.bytes_used for sample in self.samples)

    @property
    def dropped(self) -> int:
        return self.samples[-1].dropped


def random_request(rng: random.Random, large: Large) -> tuple[str, str, int]:
    """(kind, path, key index) of one request: E6 pages of random size and number with a
    random key (the page within what the key sees), single units, floors, assets."""
    roll = rng.random()
    if roll < 0.55:
        every = rng.random() < ALL_ASSETS_SHARE
        key = 0 if every else rng.randrange(1, len(large.secrets))
        total = len(large.unit_ids) if every else large.units_per_asset
        per_page = rng.randint(1, MAX_PER_PAGE)
        page = rng.randint(1, math.ceil(total / per_page))
        return (
            "E6 page, all assets" if every else "E6 page, one asset",
            f"/v1/units?page={page}&per-page={per_page}",
            key,
        )
    if roll < 0.85:
        return "single unit", f"/v1/units/{rng.choice(large.unit_ids)}", 0
    if roll < 0.95:
        per_page = rng.randint(1, large.floors_per_asset)
        page = rng.randint(1, math.ceil(large.floors_per_asset / per_page))
        asset = rng.choice(large.asset_ids)
        return "floors", f"/v1/assets/{asset}/floors?page={page}&per-page={per_page}", 0
    per_page = rng.randint(1, len(large.asset_ids))
    page = rng.randint(1, math.ceil(len(large.asset_ids) / per_page))
    return "assets", f"/v1/assets?page={page}&per-page={per_page}", 0


def measure_memory(launcher: Launcher, large: Large, tls: ssl.SSLContext) -> Memory:
    """Random requests against a 64 MiB cache until it has let go of DROPPED_TARGET
    results and FULL_SECONDS have passed since the first (at least MEMORY_MIN_SECONDS,
    at most MEMORY_MAX_SECONDS)."""
    cached = launcher.floorgate("memory-on", LARGE_DATABASE, BUDGET_MB)
    truth = launcher.floorgate("memory-off", LARGE_DATABASE, 0)
    for server in (cached, truth):
        s.wait_for_200(server, "/healthz", {}, tls)
    rng = random.Random(16)
    with (
        client_for(cached, tls, large.secrets[0]) as on,
        client_for(truth, tls, large.secrets[0]) as off,
    ):
        stats = wait_until_live(on)
        if not stats["live"]:
            raise RuntimeError(f"the cache is not live after 30 s: {stats}")
        for _ in range(3):  # warm-up: every kind of request once, every key's first use
            for key in large.secrets:
                get_ok(on, "/v1/units?per-page=1", key)
            for kind in ("E6 page, one asset", "single unit", "floors", "assets"):
                while True:
                    found, path, key_index = random_request(rng, large)
                    if found == kind:
                        get_ok(on, path, large.secrets[key_index])
                        break
        time.sleep(1.0)
        rss_before, _ = rss_mib(cached.pid)
        start_stats = cache_stats(on)

        def sample(requests: int) -> MemorySample:
            now = cache_stats(on)
            misses = now["misses"] - start_stats["misses"]
            gained = now["entries"] - start_stats["entries"]
            return MemorySample(
                time.perf_counter() - started,
                requests,
                now["entries"],
                now["bytes_used"],
                now["hits"],
                now["misses"],
                misses - gained,
                rss_mib(cached.pid)[0],
            )

        samples: list[MemorySample] = []
        history: list[tuple[str, int]] = []
        kinds: dict[str, int] = {}
        started = time.perf_counter()
        full_at: float | None = None
        rss_full = math.nan
        next_sample = started + SAMPLE_SECONDS
        samples.append(sample(0))
        while True:
            kind, path, key_index = random_request(rng, large)
            get_ok(on, path, large.secrets[key_index])
            history.append((path, key_index))
            kinds[kind] = kinds.get(kind, 0) + 1
            now = time.perf_counter()
            if now >= next_sample:
                samples.append(sample(len(history)))
                next_sample = now + SAMPLE_SECONDS
                elapsed = now - started
                last = samples[-1]
                if len(samples) % 6 == 0:
                    print(
                        f"  memory: {elapsed:.0f} s, {len(history)} requests, "
                        f"{last.bytes_used / 2**20:.1f} MiB in {last.entries} entries, "
                        f"{last.dropped} let go, RSS {last.rss:.1f} MiB",
                        flush=True,
                    )
                if full_at is None and last.dropped > 0:
                    full_at, rss_full = now, last.rss
                enough = (
                    elapsed >= MEMORY_MIN_SECONDS
                    and last.dropped >= DROPPED_TARGET
                    and full_at is not None
                    and now - full_at >= FULL_SECONDS
                )
                if enough or elapsed >= MEMORY_MAX_SECONDS:
                    break
        seconds = time.perf_counter() - started
        rss_after, hwm_after = rss_mib(cached.pid)
        end_stats = cache_stats(on)
        failures = [
            f"bytes_used {x.bytes_used:,} above budget_bytes {end_stats['budget_bytes']:,} "
            f"at {x.seconds:.0f} s"
            for x in samples
            if x.bytes_used > end_stats["budget_bytes"]
        ]
        # Ground truth: earlier requests again, the most recent ones (likely still held)
        # and a random spread, from both servers.
        picks = history[-CHECKED_REQUESTS // 2 :] + rng.sample(history, CHECKED_REQUESTS // 2)
        hits_before = cache_stats(on)["hits"]
        for path, key_index in picks:
            secret = large.secrets[key_index]
            ours, theirs = get_ok(on, path, secret).content, get_ok(off, path, secret).content
            if ours != theirs:
                failures.append(
                    f"{path}: the cached server's body differs from the uncached "
                    f"one's ({len(ours):,} / {len(theirs):,} bytes)"
                )
        check_hits = cache_stats(on)["hits"] - hits_before
    s.stop(cached)
    s.stop(truth)
    return Memory(
        end_stats["budget_bytes"],
        rss_before,
        rss_full,
        rss_after,
        hwm_after,
        samples,
        len(history),
        seconds,
        kinds,
        end_stats["flushes"] - start_stats["flushes"],
        end_stats["invalidations"] - start_stats["invalidations"],
        end_stats["bypassed"] - start_stats["bypassed"],
        len(picks),
        check_hits,
        failures,
    )


# -- the run ----------------------------------------------------------------------------


@dataclass
class Result:
    latency: dict[str, list[float]]
    throughput: dict[str, Throughput]
    to_first: dict[str, list[float]]
    after_health: dict[str, list[float]]
    memory: Memory
    on_stats: dict[str, Any]  # the cached server's /readyz after the warm measurements
    notes: list[str]
    failures: list[str]
    load_before: str
    load_after: str


async def run(folder: Path) -> Result:
    """Load both databases, measure 1-3 on the small one and 4 on the large one; every
    process is stopped whatever happens."""
    load_before = load_average()
    done = Phases().done

    database = EmbeddedServer(folder / "db")
    database.start()
    logs = folder / "logs"
    logs.mkdir()
    launcher: Launcher | None = None
    try:
        key, large = await prepare(database.uri, folder)
        done(f"seeded {units_list.UNIT_COUNT:,} and {len(large.unit_ids):,} units")
        # Everything below is blocking (subprocesses, httpx's sync client); the seeding
        # store is closed, so nothing else waits on this event loop.
        certs = ensure_local_certificates(folder / "tls")
        tls = ssl.create_default_context(cafile=str(certs.ca_cert))
        launcher = Launcher(database.uri, certs, logs, folder / "floorgate")
        servers = {
            "on": launcher.floorgate("floorgate-cache", SMALL_DATABASE, None),
            "off": launcher.floorgate("floorgate-no-cache", SMALL_DATABASE, 0),
            "minimal": launcher.minimal(SMALL_DATABASE),
        }
        for server in servers.values():
            s.wait_for_200(server, UNITS_PATH, {"API-Key": key}, tls)
        trio = Trio(
            servers, {name: client_for(server, tls, key) for name, server in servers.items()}
        )
        try:
            live = wait_until_live(trio.clients["on"])
            print(
                f"  cache on: live {live['live']}, budget {live['budget_bytes'] / 2**20:.0f} "
                f"MiB; cache off: enabled {cache_stats(trio.clients['off'])['enabled']}; "
                f"load generator: {s.load_tool()}",
                flush=True,
            )
            notes, failures = compare_bodies(trio)
            for note in notes:
                print(f"  {note}", flush=True)
            before = cache_stats(trio.clients["on"])
            latency = measure_latency(trio)
            after = cache_stats(trio.clients["on"])
            served = sum(after[name] - before[name] for name in ("hits", "answer_hits"))
            if served < LATENCY_TURNS * CACHED_PER_TURN:
                failures.append(
                    f"the cache served {served} of the "
                    f"{LATENCY_TURNS * CACHED_PER_TURN} warm requests"
                )
            done("warm latency")
            throughput = measure_throughput(trio, database.pid or 0, key, certs, folder)
            on_stats = cache_stats(trio.clients["on"])
            done("throughput")
        finally:
            for client in trio.clients.values():
                client.close()
        for server in servers.values():
            s.stop(server)
        to_first, after_health = measure_cold(launcher, key, tls)
        done("cold starts")
        memory = measure_memory(launcher, large, tls)
        failures += memory.failures
        done("memory")
    finally:
        if launcher is not None:
            launcher.stop_all()
        database.stop()
    return Result(
        latency,
        throughput,
        to_first,
        after_health,
        memory,
        on_stats,
        notes,
        failures,
        load_before,
        load_average(),
    )


# -- report -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    measure: str
    on: str
    off: str
    minimal: str
    versus_minimal: float | None  # cache on / minimal
    versus_off: float | None  # cache on / cache off
    goal: str
    passed: bool | None  # None: no goal for this row


def per(part: float, whole: float) -> float | None:
    """A ratio, None when the baseline is zero (no answer at all in a run)."""
    return part / whole if whole else None


def ratio(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}x"


def verdict(passed: bool | None) -> str:
    return "" if passed is None else ("met" if passed else "NOT MET")


def rows_of(result: Result) -> list[Row]:
    lat = {name: (median(v), percentile(v, 0.99)) for name, v in result.latency.items()}
    rows = [
        Row(
            "warm GET /v1/units?per-page=100, p50 (sequential keep-alive)",
            f"{lat['on'][0]:.2f} ms",
            f"{lat['off'][0]:.1f} ms",
            f"{lat['minimal'][0]:.1f} ms",
            per(lat["on"][0], lat["minimal"][0]),
            per(lat["on"][0], lat["off"][0]),
            f"<= {P50_GOAL_MS:g} ms",
            lat["on"][0] <= P50_GOAL_MS,
        ),
        Row(
            "warm GET /v1/units?per-page=100, p99",
            f"{lat['on'][1]:.2f} ms",
            f"{lat['off'][1]:.1f} ms",
            f"{lat['minimal'][1]:.1f} ms",
            per(lat["on"][1], lat["minimal"][1]),
            per(lat["on"][1], lat["off"][1]),
            "",
            None,
        ),
    ]
    rate = {name: t.rate for name, t in result.throughput.items()}
    cpu = {name: t.server_cpu_ms for name, t in result.throughput.items()}
    rows += [
        Row(
            f"throughput, 1 worker, {CONNECTIONS} connections",
            f"{rate['on']:,.0f} req/s",
            f"{rate['off']:,.1f} req/s",
            f"{rate['minimal']:,.1f} req/s",
            per(rate["on"], rate["minimal"]),
            per(rate["on"], rate["off"]),
            f">= {RATE_GOAL:,.0f} req/s",
            rate["on"] >= RATE_GOAL,
        ),
        Row(
            "server CPU per answer under that load",
            f"{cpu['on']:.2f} ms",
            f"{cpu['off']:.1f} ms",
            f"{cpu['minimal']:.1f} ms",
            per(cpu["on"], cpu["minimal"]),
            per(cpu["on"], cpu["off"]),
            "",
            None,
        ),
    ]
    first = {name: median(v) for name, v in result.to_first.items()}
    health = {name: median(v) * 1000 for name, v in result.after_health.items()}
    rows += [
        Row(
            "cold: spawn to first 200 of the list",
            f"{first['on']:.2f} s",
            f"{first['off']:.2f} s",
            f"{first['minimal']:.2f} s",
            per(first["on"], first["minimal"]),
            per(first["on"], first["off"]),
            f"cache on <= off x {1 + NOISE:.2f}",
            first["on"] <= first["off"] * (1 + NOISE),
        ),
        Row(
            "cold: first list request once /healthz answers",
            f"{health['on']:.0f} ms",
            f"{health['off']:.0f} ms",
            "",
            None,
            per(health["on"], health["off"]),
            f"cache on <= off x {1 + NOISE:.2f}",
            health["on"] <= health["off"] * (1 + NOISE),
        ),
    ]
    memory = result.memory
    budget = memory.budget_bytes / 2**20
    rows += [
        Row(
            f"memory, 100,000 units, {BUDGET_MB} MiB budget: RSS growth over the random run",
            f"{memory.growth:+.1f} MiB ({memory.rss_before:.0f} -> {memory.rss_after:.0f})",
            "",
            "",
            None,
            None,
            f"<= budget + {ALLOWANCE_MB} MiB",
            memory.growth <= budget + ALLOWANCE_MB,
        ),
        Row(
            "memory: RSS change while evicting (first result let go -> end)",
            f"{memory.rss_after - memory.rss_full:+.1f} MiB",
            "",
            "",
            None,
            None,
            "",
            None,
        ),
        Row(
            "memory: highest RSS seen, growth",
            f"{memory.peak_growth:+.1f} MiB",
            "",
            "",
            None,
            None,
            f"<= budget + {ALLOWANCE_MB} MiB",
            memory.peak_growth <= budget + ALLOWANCE_MB,
        ),
        Row(
            "memory: highest bytes_used seen (/readyz)",
            f"{memory.max_bytes_used / 2**20:.2f} MiB",
            "",
            "",
            None,
            None,
            f"<= budget_bytes ({budget:.0f} MiB)",
            memory.max_bytes_used <= memory.budget_bytes,
        ),
        Row(
            "memory: results let go for want of room during the run",
            f"{memory.dropped:,}",
            "",
            "",
            None,
            None,
            "> 0 (evicts)",
            memory.dropped > 0 and memory.flushes == 0,
        ),
    ]
    return rows


def table(rows: list[Row]) -> list[str]:
    lines = [
        "| measure | floorgate, cache on | floorgate, cache off | minimal | on / minimal "
        "| on / off | goal | result |",
        "|---|---:|---:|---:|---:|---:|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row.measure} | {row.on} | {row.off} | {row.minimal} "
            f"| {ratio(row.versus_minimal)} | {ratio(row.versus_off)} | {row.goal} "
            f"| {verdict(row.passed)} |"
        )
    return lines


def context(result: Result) -> list[str]:
    return [
        f"- commit: {commit()}",
        f"- load generator: {s.load_tool()} (one process, {CONNECTIONS} connections); minimal "
        f"server: {minimal_stack()}",
        f"- client, database and servers share this machine's {os.cpu_count()} cores; load "
        f"average (1/5/15 min) before {result.load_before}, after {result.load_after}",
    ]


def spread(result: Result) -> list[str]:
    """What is behind the medians of the first rows."""
    lines = ["| figure | cache on | cache off | minimal |", "|---|---:|---:|---:|"]
    lat = result.latency
    for label, share in (("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("max", 1.0)):
        lines.append(
            f"| warm latency {label} ms | "
            + " | ".join(f"{percentile(lat[n], share):.2f}" for n in NAMES)
            + " |"
        )
    lines.append("| warm latency samples | " + " | ".join(str(len(lat[n])) for n in NAMES) + " |")
    lines.append(
        "| throughput: database cores | "
        + " | ".join(f"{result.throughput[n].database_cores:.2f}" for n in NAMES)
        + " |"
    )
    lines.append(
        "| throughput: errors | "
        + " | ".join(str(result.throughput[n].errors) for n in NAMES)
        + " |"
    )
    lines.append(
        "| cold: spawn to first 200, each start (s) | "
        + " | ".join(", ".join(f"{x:.2f}" for x in result.to_first[n]) for n in NAMES)
        + " |"
    )
    health = result.after_health
    lines.append(
        "| cold: first list after /healthz, each (ms) | "
        + " | ".join(", ".join(f"{x * 1000:.0f}" for x in health[n]) for n in ("on", "off"))
        + " | |"
    )
    stats = result.on_stats
    lines.append(
        f"| cache on, /readyz after the warm runs | hits {stats['hits']:,}, misses "
        f"{stats['misses']:,}, bypassed {stats['bypassed']:,}, entries "
        f"{stats['entries']} | | |"
    )
    return lines


def memory_table(memory: Memory) -> list[str]:
    kinds = ", ".join(f"{kind} {count:,}" for kind, count in sorted(memory.kinds.items()))
    lines = [
        f"Memory run: {memory.requests:,} random requests in {memory.seconds:.0f} s ({kinds}); "
        f"RSS {memory.rss_before:.1f} MiB after warm-up, {memory.rss_after:.1f} MiB at the "
        f"end, VmHWM {memory.hwm_after:.1f} MiB; during the run {memory.flushes} flushes, "
        f"{memory.invalidations} invalidations, {memory.bypassed} reads bypassed the cache; "
        f"{memory.checked} earlier requests checked against the uncached server at the end "
        f"({memory.check_hits} of them cache hits).",
        "",
        "| s | requests | entries | bytes_used MiB | hits | misses | let go | RSS MiB |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    step = max(1, len(memory.samples) // 12)
    shown = memory.samples[::step]
    if shown[-1] is not memory.samples[-1]:
        shown.append(memory.samples[-1])
    for x in shown:
        lines.append(
            f"| {x.seconds:.0f} | {x.requests:,} | {x.entries:,} "
            f"| {x.bytes_used / 2**20:.2f} | {x.hits:,} | {x.misses:,} | {x.dropped:,} "
            f"| {x.rss:.1f} |"
        )
    return lines


def tables(result: Result) -> list[list[str]]:
    rows = rows_of(result)
    met = sum(row.passed is True for row in rows)
    missed = [row.measure for row in rows if row.passed is False]
    checks = [
        "correctness:",
        *(f"- {note}" for note in result.notes),
        *(f"- FAILED: {failure}" for failure in result.failures),
        f"- {'every check held' if not result.failures else 'checks failed'}",
    ]
    return [
        context(result),
        table(rows),
        spread(result),
        memory_table(result.memory),
        checks,
        [f"goals: {met} met, {len(missed)} not met"],
    ]


def main() -> None:
    """Run the read cache benchmark, print the tables (Markdown); fail on a wrong answer."""
    result = run_and_report(
        f"read_cache: issue 16's goals on the embedded database; warm latency "
        f"{LATENCY_TURNS} turns, throughput {THROUGHPUT_ROUNDS} x {THROUGHPUT_SECONDS} s, "
        f"{COLD_STARTS} cold starts each, memory with a {BUDGET_MB} MiB budget",
        run,
        tables,
    )
    if result.failures:
        raise RuntimeError("read_cache: " + "; ".join(result.failures))


if __name__ == "__main__":
    main()
