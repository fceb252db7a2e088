"""Measuring servers side by side (`versus_minimal`): server CPU per request over rounds
of sequential requests, and throughput under load, each server's turn rotated every
round so that the machine's other load falls on all of them alike."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import orjson

from rest.v1.routes import ROUTES
from tests.benchmarks.harness import servers as s

CPU_ROUNDS = 7
CPU_BATCH = {100: 6, 1000: 5, 10000: 3}  # sequential requests per batch (the database
# takes 70-300 ms per request: it reads the whole collection even with a limit)
WARMUP_REQUESTS = 3
CONNECTIONS = 32
THROUGHPUT_SECONDS = 6  # whole seconds: wrk takes no fractions
THROUGHPUT_WARMUP_SECONDS = 2
THROUGHPUT_ROUNDS = 3
UNITS_DOCUMENT = next(r for r in ROUTES if r.method == "GET" and r.path == "/v1/units").document

ClientOf = Callable[[s.Spawned], httpx.Client]


@dataclass(frozen=True)
class Kind:
    """One thing to request in the CPU rounds: a server and how to ask it."""

    label: str
    server: s.Spawned
    request: Callable[[httpx.Client, int], httpx.Response]


def rest_units(client: httpx.Client, n: int) -> httpx.Response:
    return client.get("/v1/units", params={"per-page": str(n)})


def graphql_units(client: httpx.Client, n: int) -> httpx.Response:
    return client.post("/graphql", json={"query": UNITS_DOCUMENT, "variables": {"perPage": n}})


def batch(kind: Kind, client: httpx.Client, n: int, count: int) -> tuple[float, float]:
    """(server CPU s, wall s) per request over `count` sequential requests."""
    before = s.cpu_seconds(kind.server.pid)
    start = time.perf_counter()
    for _ in range(count):
        response = kind.request(client, n)
        if response.status_code != 200:
            raise RuntimeError(f"{kind.label}: {response.status_code} {response.text[:200]}")
    wall = time.perf_counter() - start
    time.sleep(0.02)  # the server's work after the answer (its access log line)
    return (s.cpu_seconds(kind.server.pid) - before) / count, wall / count


def checked_items(kind: Kind, client: httpx.Client, n: int) -> None:
    body = orjson.loads(kind.request(client, n).content)
    page = body["data"]["result"] if kind.request is graphql_units else body
    if body.get("errors") or len(page["data"]) != n:
        raise RuntimeError(f"{kind.label}: expected {n} items, got {str(body)[:300]}")


@dataclass
class PerRequest:
    """Per-request figures of one kind and size, one value per round (ms)."""

    cpu: list[float] = field(default_factory=list)
    wall: list[float] = field(default_factory=list)

    @property
    def cpu_ms(self) -> float:
        return statistics.median(self.cpu)

    @property
    def wall_ms(self) -> float:
        return statistics.median(self.wall)


def cpu_rounds(
    kinds: list[Kind], sizes: tuple[int, ...], client_of: ClientOf
) -> dict[tuple[str, int], PerRequest]:
    """(kind, N) -> per-request CPU and wall time by round; kinds rotated every round."""
    results: dict[tuple[str, int], PerRequest] = {}
    for n in sizes:
        for kind in kinds:
            client = client_of(kind.server)
            checked_items(kind, client, n)
            batch(kind, client, n, WARMUP_REQUESTS)
            results[kind.label, n] = PerRequest()
        for round_no in range(CPU_ROUNDS):
            shift = round_no % len(kinds)
            for kind in kinds[shift:] + kinds[:shift]:
                cpu, wall = batch(kind, client_of(kind.server), n, CPU_BATCH[n])
                results[kind.label, n].cpu.append(cpu * 1000)
                results[kind.label, n].wall.append(wall * 1000)
        line = ", ".join(f"{kind.label} {results[kind.label, n].cpu_ms:.2f} ms" for kind in kinds)
        print(f"  CPU per request, N={n}: {line}", flush=True)
    return results


@dataclass(frozen=True)
class Throughput:
    rate: float  # answers per second
    server_cores: tuple[float, ...]  # CPU s per s of the run, per server process (pid order)
    database_cores: float
    client_cores: float
    tool: str
    errors: int


def throughput_rounds(
    order: list[s.Spawned], path: str, key: str, ca_cert: Path, folder: Path, database_pid: int
) -> dict[str, Throughput]:
    """`path` under CONNECTIONS connections; the best round of each server (other load on
    the machine can only slow a round down)."""
    runs: dict[str, list[Throughput]] = {server.name: [] for server in order}
    for round_no in range(THROUGHPUT_ROUNDS):
        shift = round_no % len(order)
        for server in order[shift:] + order[:shift]:
            url = server.base + path
            s.run_load(url, key, ca_cert, CONNECTIONS, THROUGHPUT_WARMUP_SECONDS, folder)
            pids = sorted(s.descendants(server.pid))
            server_before = [s.cpu_seconds(pid) for pid in pids]
            database_before = s.cpu_seconds(database_pid)
            load = s.run_load(url, key, ca_cert, CONNECTIONS, THROUGHPUT_SECONDS, folder)
            server_cpu = [
                s.cpu_seconds(pid) - was for pid, was in zip(pids, server_before, strict=True)
            ]
            database_cpu = s.cpu_seconds(database_pid) - database_before
            runs[server.name].append(
                Throughput(
                    load.rate,
                    tuple(cpu / load.seconds for cpu in server_cpu),
                    database_cpu / load.seconds,
                    load.client_cpu / load.seconds,
                    load.tool,
                    load.errors,
                )
            )
            print(
                f"  throughput {server.name}: {load.rate:,.0f} req/s ({load.tool}, "
                f"{load.errors} errors)",
                flush=True,
            )
    return {name: max(found, key=lambda t: t.rate) for name, found in runs.items()}
