"""floorgate beside itself at an earlier revision, in one run on one database (issue 46's
"no speed lost": `versus_minimal`'s and the read cache's figures before and after,
within 5%).

Two runs of `versus_minimal` back to back could not say 5%: the machine moved by half
between them, and one process keeps for its life what it drew at its start (two pairs
measured alike differed by 0.85x-1.40x). So here both revisions serve the same database
at the same time, each request of one followed by the same request of the other, on
PAIRS fresh sets of processes: this tree's `floorgate serve` and the earlier tree's,
each with its read cache on (as deployed) and off (`FLOORGATE_READ_CACHE_MB=0`: every
request does the database's and the serialisation's work). Per set, the ratio after /
before of:

- server CPU per request of `GET /v1/units?per-page=N` and of `/graphql` with the
  route's document, N = 100 and 1000, cache on and off (`versus_minimal`'s rows);
- the median and the 99th percentile of sequential keep-alive `GET
  /v1/units?per-page=100` with the cache on, the two taking turns request by request
  (the read cache benchmark's first goal);
- throughput of `GET /v1/assets/{id}` and of `GET /v1/units?per-page=100` with the
  cache on, 32 connections, best of the rounds (both benchmarks' throughput rows).

The goal holds on the median of the sets' ratios: at most 1.05 (5% slower) for every
row. The read cache's memory bound is not a speed and is left to `read_cache`.

The earlier revision needs a checkout with its own `.venv`:
`git worktree add /tmp/before REV && make -C /tmp/before .venv/.installed-stamp`, then
`FLOORGATE_BEFORE=/tmp/before python -m tests.benchmarks versus_before` (about 2
minutes a set). Without FLOORGATE_BEFORE it says so and measures nothing (`make bench`
runs every benchmark).
"""

from __future__ import annotations

import os
import ssl
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from tests.benchmarks.harness import servers as s
from tests.benchmarks.harness.report import Phases, machine
from tests.benchmarks.harness.side_by_side import (
    CONNECTIONS,
    Kind,
    cpu_rounds,
    graphql_units,
    rest_units,
    throughput_rounds,
)
from tests.benchmarks.versus_minimal import ASSET_PATH, PUBLIC_URL, seeded

BEFORE_VARIABLE = "FLOORGATE_BEFORE"
PAIRS = 4  # fresh sets of processes; the goal holds on the median of their ratios
SIZES = (100, 1000)
LATENCY_REQUESTS = 400  # per server and set
UNITS_PATH = "/v1/units?per-page=100"
GOAL = 1.05
OFF = " (cache off)"


def rev(tree: Path) -> str:
    """The short hash a tree is at."""
    found = subprocess.run(
        ["git", "-C", str(tree), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    return found.stdout.strip() or "?"


def latencies(
    after: s.Spawned, before: s.Spawned, client_of: Callable[[s.Spawned], httpx.Client]
) -> dict[str, float]:
    """p50 and p99 (ms) of sequential `UNITS_PATH`, the two servers taking turns."""
    samples: dict[str, list[float]] = {after.name: [], before.name: []}
    for server in (after, before):
        for _ in range(20):
            client_of(server).get(UNITS_PATH)
    for turn in range(LATENCY_REQUESTS):
        for server in (after, before) if turn % 2 == 0 else (before, after):
            started = time.perf_counter()
            response = client_of(server).get(UNITS_PATH)
            samples[server.name].append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200, response.text[:200]
    figures = {}
    for name, values in samples.items():
        cuts = statistics.quantiles(values, n=100)
        figures[f"{name} latency {UNITS_PATH} p50"] = statistics.median(values)
        figures[f"{name} latency {UNITS_PATH} p99"] = cuts[98]
    return figures


def one_set(
    spawn: Callable[[str, str, dict[str, str]], s.Spawned],
    headers: dict[str, str],
    tls: ssl.SSLContext,
    load: Callable[[list[s.Spawned], str], dict[str, float]],
    number: int,
) -> dict[str, float]:
    """The ratios after / before of one fresh set of four processes (stopped after)."""
    off = {"FLOORGATE_READ_CACHE_MB": "0"}
    order = [("after", "after", {}), ("before", "before", {})]
    order += [("after", "after" + OFF, off), ("before", "before" + OFF, off)]
    if number % 2:
        order = [order[1], order[0], order[3], order[2]]  # who starts first alternates
    servers = {name: spawn(tree, name, extra) for tree, name, extra in order}
    clients: dict[str, httpx.Client] = {}
    try:
        for server in servers.values():
            s.wait_for_200(server, ASSET_PATH, headers, tls)
            clients[server.name] = httpx.Client(
                base_url=server.base, verify=tls, headers=headers, timeout=60.0
            )

        def client_of(server: s.Spawned) -> httpx.Client:
            return clients[server.name]

        kinds = [
            Kind(f"{tree} {face}{state}", servers[tree + state], request)
            for state in ("", OFF)
            for face, request in (("REST", rest_units), ("/graphql", graphql_units))
            for tree in ("after", "before")
        ]
        cpu = cpu_rounds(kinds, SIZES, client_of)
        figures = {f"{label}, N={n}": found.cpu_ms for (label, n), found in cpu.items()}
        figures |= latencies(servers["after"], servers["before"], client_of)
        figures |= load([servers["after"], servers["before"]], ASSET_PATH)
        figures |= load([servers["after"], servers["before"]], UNITS_PATH)
    finally:
        for client in clients.values():
            client.close()
        for server in servers.values():
            s.stop(server)
    ratios = {}
    for name, value in figures.items():
        if name.startswith("after"):
            ratios[name.removeprefix("after ")] = value / figures["before" + name[5:]]
    return ratios


def run(before_tree: Path, folder: Path) -> bool:
    """Seed, measure PAIRS sets, print the table; whether every goal is met."""
    done = Phases().done
    trees = {"after": Path.cwd(), "before": before_tree}
    executables = {"after": s.FLOORGATE, "before": str(before_tree / ".venv/bin/floorgate")}
    with seeded(folder) as seed:
        database, key, certs, env, logs = seed.database, seed.key, seed.certs, seed.env, seed.logs

        def spawn(tree: str, name: str, extra: dict[str, str]) -> s.Spawned:
            port = s.free_port()
            args = s.floorgate_args(port, certs.cert, certs.key, PUBLIC_URL, 1)
            return s.spawn(name, [executables[tree], *args[1:]], {**env, **extra}, logs, port)

        def load(pair: list[s.Spawned], path: str) -> dict[str, float]:
            found = throughput_rounds(pair, path, key, certs.ca_cert, folder, database.pid or 0)
            return {f"{name} throughput {path}": 1 / t.rate for name, t in found.items()}

        tls = ssl.create_default_context(cafile=str(certs.ca_cert))
        headers = {"API-Key": key, "Accept-Encoding": "identity"}
        done("seeded")
        sets = []
        for number in range(PAIRS):
            sets.append(one_set(spawn, headers, tls, load, number))
            done(f"set {number + 1} of {PAIRS}")
    print()
    print(f"- after: {rev(trees['after'])} ({trees['after']}); before: {rev(before_tree)}")
    print("\n".join(f"- {line}" for line in machine()))
    print(f"- {PAIRS} fresh sets of processes; throughput with {CONNECTIONS} connections")
    print("- throughput rows are seconds per answer (1 / rate): below 1 is faster")
    print()
    print("| Measure | After / before, each set | Median | Goal <= 1.05 |")
    print("|---|---|---:|---|")
    met = True
    for name in sets[0]:
        values = [each[name] for each in sets]
        middle = statistics.median(values)
        met &= middle <= GOAL
        shown = ", ".join(f"{value:.3f}" for value in values)
        print(f"| {name} | {shown} | {middle:.3f}x | {'met' if middle <= GOAL else 'NOT met'} |")
    return met


def main() -> None:
    """Compare this tree with FLOORGATE_BEFORE's, or say how to."""
    before = os.environ.get(BEFORE_VARIABLE)
    if not before:
        print(f"versus_before: not run; set {BEFORE_VARIABLE} to an earlier checkout with a .venv")
        return
    tree = Path(before).resolve()
    if not (tree / ".venv/bin/floorgate").exists():
        raise SystemExit(f"{tree}/.venv/bin/floorgate not found: run make there first")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="floorgate-before-") as tmp:
        met = run(tree, Path(tmp))
    print(f"\ngoals {'met' if met else 'NOT met'} (total {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
