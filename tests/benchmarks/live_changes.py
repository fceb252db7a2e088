"""Issue 32's goals for live changes: event latency with 1,000 Server-Sent Events
subscribers on one worker, and the memory those subscribers take.

One embedded database holds the demo and a key with every permission. `floorgate serve`
(one worker, TLS, rate limits off, FLOORGATE_MAX_CONNECTIONS=1500 for the subscribers
and the writer) and the minimal server (`harness/minimal_server.py`: the key, flag,
permission and group checks, then one change stream on the events log fanned out to a
bounded queue per subscriber; no GraphQL, no resume) run on it. For each server in
turn:

1. warm-up: one subscriber and two writes (the process's change stream is open, every
   module loaded); RSS of the server (`/proc/<pid>/status` VmRSS, its child processes
   included) before any measured subscriber;
2. SUBSCRIBERS connections to `GET /v1/units/attribute-groups/features/units/changes`,
   from CLIENT_PROCESSES programs of their own (`harness/sse_clients.py`: raw asyncio
   on uvloop, so that the clients are not what is measured); each counts once its
   `retry:` line arrived; then IDLE_SECONDS without events and RSS again: the growth
   over SUBSCRIBERS is the memory per idle subscriber (goal: under 150 MB for 1,000);
3. WRITES writes through floorgate's REST API in both runs (the minimal server writes
   nothing; its change stream sees floorgate's events log), WRITE_PACE_SECONDS apart,
   alternately E21 (assign `features-fireplace` to one unit) and E22 (remove it): in a
   group that is not one-attribute-per-unit each is exactly one event. The time each
   write's answer arrived is noted (`time.monotonic()`, one clock for every process
   of the machine), and by every subscriber the time each event arrived; latency is
   arrival minus answer, over every (subscriber, event) pair. Goals: p95 under 1 s, no
   event missed. Also: the latency from the write's request (a write answered late by
   a busy worker makes the first figure look better than it is), the spread from the
   first to the last subscriber of an event (the fan-out), the server's CPU per event
   delivered while the writes ran (floorgate's less what the same writes cost it in the
   minimal's run, without subscribers), and its RSS growth while the events went out
   (what a subscription keeps per event).

The client programs, the database, the writer and the server share this machine's
cores (2 here): the client processes' CPU during the writes is printed, to show they
keep up.

Run with `python -m tests.benchmarks live_changes` (about 2 minutes).
"""

from __future__ import annotations

import json
import os
import re
import ssl
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from resolvers.auth.keys import create_key
from resolvers.auth.permissions import ALL_PERMISSIONS
from rest.ops.tls import LocalCertificates, ensure_local_certificates
from storage.database import connect
from storage.demo.install import ASSET_ID, install_demo
from storage.embedded.server import EmbeddedServer
from storage.settings import Settings
from tests.benchmarks.harness import servers as s
from tests.benchmarks.harness import sse_clients
from tests.benchmarks.harness.report import Phases, run_and_report
from tests.benchmarks.read_cache import percentile, rss_mib
from tests.benchmarks.versus_minimal import commit, load_average, minimal_stack

DATABASE = "floorgate_bench_live_changes"
PUBLIC_URL = "https://bench.local"
SUBSCRIBERS = 1000
CLIENT_PROCESSES = 2  # one per core: neither is busier than half the subscribers
WRITES = 50
WRITE_PACE_SECONDS = 0.2
IDLE_SECONDS = 5.0  # after the last subscriber, before RSS is read (below the heartbeat)
DRAIN_SECONDS = 5.0  # after the last write, for its events to arrive everywhere
WARMUP_TRIES = 3
GROUP = "features"  # several attributes per unit: one write, one event
ATTRIBUTE = "features-fireplace"
FLAGS = "unit-attributes-resource"
CHANGES_PATH = f"/v1/units/attribute-groups/{GROUP}/units/changes"
LATENCY_GOAL_SECONDS = 1.0
MEMORY_GOAL_MB = 150.0  # issue 32: "RSS for 1,000 idle subscribers < 150 MB"
ROOT = Path(__file__).resolve().parents[2]
Arrival = tuple[Any, ...]  # (event id, event, monotonic seconds[, its text])
FLOORGATE_ENV = {
    "FLOORGATE_RATE_LIMIT_PER_SECOND": "0",  # off: one key opens every subscription
    "FLOORGATE_MAX_CONNECTIONS": "1500",  # 1,000 subscribers, the writer, the checks
    # The per-key cap on open subscriptions (default 100): one key opens all 1,000 here.
    "FLOORGATE_MAX_SUBSCRIPTIONS_PER_KEY": "2000",
}


# -- data and servers -------------------------------------------------------------------


async def prepare(uri: str, folder: Path) -> str:
    """The demo, and a key with every permission (its secret)."""
    settings = Settings(data_dir=folder / "seed", database_name=DATABASE, mongodb_uri=uri)
    store = connect(uri, settings)
    try:
        await store.client.drop_database(DATABASE)
        await store.ensure_indexes()
        await install_demo(store, folder / "seed")
        return (await create_key(store, "live-changes", list(ALL_PERMISSIONS), None)).secret
    finally:
        await store.close()


def start_servers(uri: str, certs: LocalCertificates, folder: Path) -> tuple[s.Spawned, s.Spawned]:
    """floorgate (one worker) and the minimal server, on the same database."""
    logs = folder / "logs"
    logs.mkdir(exist_ok=True)
    env = {
        **os.environ,
        **FLOORGATE_ENV,
        "FLOORGATE_MONGODB_URI": uri,
        "FLOORGATE_DATABASE": DATABASE,
        "FLOORGATE_DATA_DIR": str(folder / "floorgate"),
    }
    port = s.free_port()
    args = s.floorgate_args(port, certs.cert, certs.key, PUBLIC_URL, 1)
    floorgate = s.spawn("floorgate", args, env, logs, port)
    port = s.free_port()
    args = s.minimal_args(port, certs.cert, certs.key, PUBLIC_URL, uri, DATABASE)
    minimal = s.spawn("minimal", args, dict(os.environ), logs, port)
    return floorgate, minimal


def rss_of(server: s.Spawned) -> float:
    """MiB resident in the server's process and every process below it."""
    total = 0.0
    for pid in s.descendants(server.pid):
        try:
            total += rss_mib(pid)[0]
        except (OSError, KeyError):
            continue  # ended meanwhile, or a zombie
    return total


# -- the writer -------------------------------------------------------------------------


class Writer:
    """E21 and E22 of one assignment through floorgate, in turn; each write's answer time."""

    def __init__(self, floorgate: s.Spawned, key: str, tls: ssl.SSLContext) -> None:
        headers = {"API-Key": key, "Experimental-Flags": FLAGS}
        self.client = httpx.Client(base_url=floorgate.base, verify=tls, headers=headers)
        units = self.client.get("/v1/units", params={"per-page": "1"})
        units.raise_for_status()
        unit_id = units.json()["data"][0]["id"]
        self.body = {
            "data": [
                {
                    "group_id": GROUP,
                    "attribute_id": ATTRIBUTE,
                    "asset_id": ASSET_ID,
                    "unit_id": unit_id,
                }
            ]
        }
        self.assigned = False
        self.unassign()  # a known start: the demo may have assigned it

    def assign(self) -> None:
        path = f"/v1/units/attribute-groups/{GROUP}/units"
        self.checked(self.client.put(path, json=self.body), 200)
        self.assigned = True

    def unassign(self) -> None:
        path = f"/v1/units/attribute-groups/{GROUP}/units/remove"
        self.checked(self.client.put(path, json=self.body), 204)
        self.assigned = False

    def flip(self) -> tuple[str, float, float]:
        """(the event it makes, monotonic time sent, monotonic time its answer arrived)."""
        sent = time.monotonic()
        if self.assigned:
            self.unassign()
            change = "unassigned"
        else:
            self.assign()
            change = "assigned"
        return change, sent, time.monotonic()

    @staticmethod
    def checked(response: httpx.Response, status: int) -> None:
        if response.status_code != status:
            raise RuntimeError(f"write: {response.status_code} {response.text[:300]}")

    def close(self) -> None:
        self.client.close()


# -- the subscribers --------------------------------------------------------------------


@dataclass
class Clients:
    """The subscriber programs of one run."""

    processes: list[subprocess.Popen[str]]
    subscribed: int = 0
    failed: int = 0
    errors: list[str] = field(default_factory=list)

    def cpu_seconds(self) -> float:
        return sum(s.cpu_seconds(process.pid) for process in self.processes)


def open_clients(
    server: s.Spawned,
    key: str,
    ca_file: Path,
    count: int,
    folder: Path,
    processes: int,
    text: bool = False,
) -> Clients:
    """`count` subscribers over `processes` programs (`text`: they keep each event's
    text); returns once every one has subscribed or failed."""
    url = server.base + CHANGES_PATH
    env = {**os.environ, sse_clients.KEY_VARIABLE: key, "PYTHONPATH": str(ROOT)}
    if text:
        env[sse_clients.TEXT_VARIABLE] = "1"
    shares = [count // processes + (n < count % processes) for n in range(processes)]
    started: list[subprocess.Popen[str]] = []
    logs: list[Path] = []
    for n, share in enumerate(shares):
        logs.append(folder / f"sse-clients-{server.name}-{n}.log")
        with logs[-1].open("w") as log:  # the child has its own copy of the descriptor
            started.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "tests.benchmarks.harness.sse_clients",
                        url,
                        str(ca_file),
                        str(share),
                    ],
                    env=env,
                    cwd=ROOT,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=log,
                    text=True,
                )
            )
    clients = Clients(started)
    for process, log_path in zip(started, logs, strict=True):
        assert process.stdout is not None
        line = process.stdout.readline().split(maxsplit=3)
        if not line or line[0] != "subscribed":
            for other in started:
                other.kill()
            raise RuntimeError(f"a subscriber program failed: {line}: {s.tail(log_path)}")
        clients.subscribed += int(line[1])
        clients.failed += int(line[2])
        if line[3] != "-":
            clients.errors.append(line[3].strip())
    return clients


def close_clients(clients: Clients) -> tuple[list[list[Arrival]], int, float]:
    """(arrivals of every subscriber, connections the server closed, client CPU s)."""
    arrivals: list[list[Arrival]] = []
    closed, cpu = 0, 0.0
    for process in clients.processes:
        assert process.stdin is not None
        process.stdin.write("stop\n")
        process.stdin.flush()
    for process in clients.processes:
        assert process.stdout is not None
        found: dict[str, Any] = json.loads(process.stdout.readline())
        arrivals += [[tuple(x) for x in one] for one in found["arrivals"]]
        closed += found["closed"]
        cpu += found["cpu"]
        process.wait(timeout=30)
    return arrivals, closed, cpu


# -- one run ----------------------------------------------------------------------------


@dataclass
class Run:
    """What one server did with SUBSCRIBERS subscribers and WRITES writes."""

    name: str
    texts: list[str]  # the warm-up's two events, as sent
    subscribed: int
    failed: int
    errors: list[str]
    subscribe_seconds: float
    rss_before: float  # MiB, after the warm-up
    rss_idle: float  # with the subscribers, idle
    rss_after: float  # after the writes, subscribers still open
    rss_left: float  # after the subscribers left
    latencies: list[float]  # seconds, every (subscriber, event) pair that arrived
    from_sent: list[float]  # the same pairs, from the write's request instead of its answer
    spreads: list[float]  # seconds from the first to the last subscriber, per event
    write_seconds: list[float]  # each write's request to answer
    missed: int
    duplicates: int
    wrong: int  # events whose kind is not the write's
    closed: int  # subscribers the server closed during the run
    server_cpu: float  # seconds while the writes ran and drained
    writes_cpu: float  # floorgate's meanwhile: its own run's, or the writes alone
    clients_cpu: float
    phase_seconds: float

    @property
    def growth(self) -> float:
        return self.rss_idle - self.rss_before

    @property
    def write_span(self) -> float:
        """Seconds from the first write's request to the last one's answer."""
        return self.phase_seconds - DRAIN_SECONDS

    @property
    def delivered(self) -> int:
        return len(self.latencies)


def warm_up(
    server: s.Spawned, writer: Writer, key: str, certs: LocalCertificates, folder: Path
) -> list[str]:
    """One subscriber until it sees both of two writes: the server's change stream is
    open and everything on the path has run once. Returns the two events' texts."""
    for _ in range(WARMUP_TRIES):
        clients = open_clients(server, key, certs.ca_cert, 1, folder, 1, text=True)
        if clients.subscribed != 1:
            close_clients(clients)
            raise RuntimeError(f"{server.name}: warm-up subscriber failed: {clients.errors}")
        time.sleep(0.5)
        for _ in range(2):
            writer.flip()
            time.sleep(0.2)
        time.sleep(1.0)
        arrivals, _, _ = close_clients(clients)
        if len(arrivals[0]) == 2:
            return [arrival[3] for arrival in arrivals[0]]
    raise RuntimeError(f"{server.name}: the warm-up subscriber saw no events")


def shape(text: str) -> str:
    """An event's text without what differs from event to event (its id and time)."""
    text = re.sub(r"^id: \d+$", "id: N", text, flags=re.MULTILINE)
    return re.sub(r'"at":"[^"]*"', '"at":"T"', text)


def measure(
    server: s.Spawned,
    writer: Writer,
    writes_to: s.Spawned,
    key: str,
    certs: LocalCertificates,
    folder: Path,
) -> Run:
    """The steps 1-3 of the module's docstring against `server`; the writes go to
    `writes_to` (floorgate)."""
    texts = warm_up(server, writer, key, certs, folder)
    time.sleep(1.0)
    rss_before = rss_of(server)
    started = time.perf_counter()
    clients = open_clients(server, key, certs.ca_cert, SUBSCRIBERS, folder, CLIENT_PROCESSES)
    subscribe_seconds = time.perf_counter() - started
    print(
        f"  {server.name}: {clients.subscribed} subscribed, {clients.failed} failed in "
        f"{subscribe_seconds:.1f} s {clients.errors[:1]}",
        flush=True,
    )
    time.sleep(IDLE_SECONDS)
    rss_idle = rss_of(server)
    server_before, clients_before = s.cpu_seconds(server.pid), clients.cpu_seconds()
    writes_before = s.cpu_seconds(writes_to.pid)
    phase_start = time.monotonic()
    writes: list[tuple[str, float, float]] = []
    for n in range(WRITES):
        time.sleep(max(0.0, phase_start + n * WRITE_PACE_SECONDS - time.monotonic()))
        writes.append(writer.flip())
    time.sleep(DRAIN_SECONDS)
    phase_seconds = time.monotonic() - phase_start
    server_cpu = s.cpu_seconds(server.pid) - server_before
    writes_cpu = s.cpu_seconds(writes_to.pid) - writes_before
    clients_cpu = clients.cpu_seconds() - clients_before
    rss_after = rss_of(server)
    arrivals, closed, _ = close_clients(clients)
    time.sleep(2.0)
    rss_left = rss_of(server)
    latencies, from_sent, spreads, missed, duplicates, wrong = match(writes, arrivals)
    return Run(
        server.name,
        texts,
        clients.subscribed,
        clients.failed,
        clients.errors,
        subscribe_seconds,
        rss_before,
        rss_idle,
        rss_after,
        rss_left,
        latencies,
        from_sent,
        spreads,
        [answered - sent for _, sent, answered in writes],
        missed,
        duplicates,
        wrong,
        closed,
        server_cpu,
        writes_cpu,
        clients_cpu,
        phase_seconds,
    )


def match(
    writes: list[tuple[str, float, float]], arrivals: list[list[Arrival]]
) -> tuple[list[float], list[float], list[float], int, int, int]:
    """(latencies from the answers, from the requests, spreads, missed, duplicates, wrong
    kind). The writes' events are the
    event ids any subscriber saw, in order: the n-th is the n-th write's (nothing else
    writes assignments meanwhile)."""
    ids = sorted({event_id for one in arrivals for event_id, _, _ in one})
    if len(ids) > len(writes):
        raise RuntimeError(f"{len(ids)} distinct events seen for {len(writes)} writes")
    write_of = {event_id: n for n, event_id in enumerate(ids)}
    latencies: list[float] = []
    from_sent: list[float] = []
    by_event: dict[int, list[float]] = {}
    duplicates = wrong = 0
    for one in arrivals:
        seen: set[int] = set()
        for event_id, change, at in one:
            if event_id in seen:
                duplicates += 1
                continue
            seen.add(event_id)
            n = write_of[event_id]
            wrong += change != writes[n][0]
            latencies.append(at - writes[n][2])
            from_sent.append(at - writes[n][1])
            by_event.setdefault(event_id, []).append(at)
    spreads = [max(times) - min(times) for times in by_event.values()]
    missed = len(writes) * len(arrivals) - len(latencies)
    return latencies, from_sent, spreads, missed, duplicates, wrong


# -- the run ----------------------------------------------------------------------------


@dataclass
class Result:
    runs: dict[str, Run]
    load_before: str
    load_after: str
    failures: list[str]


async def run(folder: Path) -> Result:
    """Seed, start both servers, measure floorgate then the minimal server; every
    process is stopped whatever happens."""
    load_before = load_average()
    done = Phases().done
    database = EmbeddedServer(folder / "db")
    database.start()
    started: list[s.Spawned] = []
    writer: Writer | None = None
    try:
        key = await prepare(database.uri, folder)
        # Everything below is blocking (subprocesses, httpx's sync client); the seeding
        # store is closed, so nothing else waits on this event loop.
        certs = ensure_local_certificates(folder / "tls")
        tls = ssl.create_default_context(cafile=str(certs.ca_cert))
        floorgate, minimal = start_servers(database.uri, certs, folder)
        started += [floorgate, minimal]
        s.wait_for_200(floorgate, "/healthz", {}, tls)
        s.wait_for_200(minimal, f"/v1/assets/{ASSET_ID}", {"API-Key": key}, tls)
        writer = Writer(floorgate, key, tls)
        done("seeded, servers up")
        runs: dict[str, Run] = {}
        for server in (floorgate, minimal):
            runs[server.name] = measure(server, writer, floorgate, key, certs, folder)
            done(f"{server.name}: {SUBSCRIBERS:,} subscribers, {WRITES} writes")
    finally:
        if writer is not None:
            writer.close()
        for server in started:
            s.stop(server)
        database.stop()
    failures = []
    ours, theirs = ([shape(text) for text in runs[name].texts] for name in ("floorgate", "minimal"))
    if sorted(ours) != sorted(theirs):
        failures.append(f"the servers' events differ: {ours} / {theirs}")
    for found in runs.values():
        if found.subscribed != SUBSCRIBERS:
            failures.append(f"{found.name}: {found.subscribed} of {SUBSCRIBERS} subscribed")
        if found.missed or found.duplicates or found.wrong or found.closed:
            failures.append(
                f"{found.name}: {found.missed} events missed, {found.duplicates} twice, "
                f"{found.wrong} of the wrong kind, {found.closed} streams closed"
            )
    return Result(runs, load_before, load_average(), failures)


# -- report -----------------------------------------------------------------------------


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.0f} ms"


def verdict(passed: bool | None) -> str:
    return "" if passed is None else ("met" if passed else "NOT MET")


def ratio(ours: float, theirs: float) -> str:
    return f"{ours / theirs:.2f}x" if theirs else ""


def delivery_growth(found: Run) -> str:
    """MiB the server grew by while the events went out, and that per delivered event:
    what a subscription keeps per event (nothing, if it keeps nothing)."""
    growth = found.rss_after - found.rss_idle
    return f"{growth:+.1f} MiB, {growth * 1024 / max(1, found.delivered):+.2f} KiB"


def fan_out_cpu(ours: Run, theirs: Run) -> float:
    """floorgate's CPU seconds for its subscribers: its run's, less what the same writes
    took it in the minimal server's run (where floorgate had no subscriber left)."""
    return ours.server_cpu - theirs.writes_cpu


def rows_of(ours: Run, theirs: Run) -> list[tuple[str, str, str, str, str, bool | None]]:
    """(measure, floorgate, minimal, ratio, goal, passed)."""

    def pct(found: Run, share: float) -> float:
        return percentile(found.latencies, share) if found.latencies else float("nan")

    rows: list[tuple[str, str, str, str, str, bool | None]] = [
        (
            f"subscribed (of {SUBSCRIBERS:,}), in",
            f"{ours.subscribed:,}, {ours.subscribe_seconds:.1f} s",
            f"{theirs.subscribed:,}, {theirs.subscribe_seconds:.1f} s",
            ratio(ours.subscribe_seconds, theirs.subscribe_seconds),
            f"{SUBSCRIBERS:,}",
            ours.subscribed == SUBSCRIBERS,
        ),
        (
            "server RSS before the subscribers (after the warm-up)",
            f"{ours.rss_before:.1f} MiB",
            f"{theirs.rss_before:.1f} MiB",
            ratio(ours.rss_before, theirs.rss_before),
            "",
            None,
        ),
        (
            f"server RSS with {SUBSCRIBERS:,} idle subscribers",
            f"{ours.rss_idle:.1f} MiB",
            f"{theirs.rss_idle:.1f} MiB",
            ratio(ours.rss_idle, theirs.rss_idle),
            "",
            None,
        ),
        (
            f"RSS growth for {SUBSCRIBERS:,} idle subscribers",
            f"{ours.growth:.1f} MiB",
            f"{theirs.growth:.1f} MiB",
            ratio(ours.growth, theirs.growth),
            f"< {MEMORY_GOAL_MB:.0f} MB ({MEMORY_GOAL_MB * 1e6 / 2**20:.0f} MiB)",
            ours.growth * 2**20 < MEMORY_GOAL_MB * 1e6,
        ),
        (
            "RSS per idle subscriber",
            f"{ours.growth * 1024 / SUBSCRIBERS:.0f} KiB",
            f"{theirs.growth * 1024 / SUBSCRIBERS:.0f} KiB",
            ratio(ours.growth, theirs.growth),
            "",
            None,
        ),
        (
            f"RSS growth while the {WRITES} events were delivered (subscribers open), "
            "per (subscriber, event)",
            delivery_growth(ours),
            delivery_growth(theirs),
            ratio(ours.rss_after - ours.rss_idle, theirs.rss_after - theirs.rss_idle),
            "",
            None,
        ),
        (
            "event latency after the write's answer, p50",
            ms(pct(ours, 0.5)),
            ms(pct(theirs, 0.5)),
            ratio(pct(ours, 0.5), pct(theirs, 0.5)),
            "",
            None,
        ),
        (
            "event latency, p95",
            ms(pct(ours, 0.95)),
            ms(pct(theirs, 0.95)),
            ratio(pct(ours, 0.95), pct(theirs, 0.95)),
            f"< {LATENCY_GOAL_SECONDS:g} s",
            pct(ours, 0.95) < LATENCY_GOAL_SECONDS,
        ),
        (
            "event latency, max",
            ms(pct(ours, 1.0)),
            ms(pct(theirs, 1.0)),
            ratio(pct(ours, 1.0), pct(theirs, 1.0)),
            "",
            None,
        ),
        (
            f"events missed (of {WRITES} x {SUBSCRIBERS:,})",
            f"{ours.missed:,}",
            f"{theirs.missed:,}",
            "",
            "0",
            ours.missed == 0 and ours.duplicates == 0 and ours.wrong == 0,
        ),
        (
            "fan-out: first to last subscriber of an event, median",
            ms(statistics.median(ours.spreads) if ours.spreads else float("nan")),
            ms(statistics.median(theirs.spreads) if theirs.spreads else float("nan")),
            ratio(statistics.median(ours.spreads or [0]), statistics.median(theirs.spreads or [0])),
            "",
            None,
        ),
        (
            "server CPU per event delivered (floorgate: less the same writes' CPU without "
            "subscribers, from the minimal's run)",
            f"{fan_out_cpu(ours, theirs) / max(1, ours.delivered) * 1e6:.0f} us",
            f"{theirs.server_cpu / max(1, theirs.delivered) * 1e6:.0f} us",
            ratio(
                fan_out_cpu(ours, theirs) / max(1, ours.delivered),
                theirs.server_cpu / max(1, theirs.delivered),
            ),
            "",
            None,
        ),
    ]
    return rows


def table(result: Result) -> list[str]:
    ours, theirs = result.runs["floorgate"], result.runs["minimal"]
    lines = [
        "| measure | floorgate | minimal | floorgate / minimal | goal | result |",
        "|---|---:|---:|---:|---|---|",
    ]
    for measure_, mine, other, times, goal, passed in rows_of(ours, theirs):
        lines.append(f"| {measure_} | {mine} | {other} | {times} | {goal} | {verdict(passed)} |")
    return lines


def details(result: Result) -> list[str]:
    lines = [
        "| figure | floorgate | minimal |",
        "|---|---:|---:|",
    ]
    runs = [result.runs["floorgate"], result.runs["minimal"]]

    def row(label: str, values: list[str]) -> None:
        lines.append(f"| {label} | " + " | ".join(values) + " |")

    for label, share in (("p90", 0.9), ("p99", 0.99)):
        row(f"event latency {label}", [ms(percentile(x.latencies, share)) for x in runs])
    row("event latency min", [ms(min(x.latencies)) for x in runs])
    for label, share in (("p50", 0.5), ("p95", 0.95), ("max", 1.0)):
        row(
            f"event latency after the write's request (not its answer), {label}",
            [ms(percentile(x.from_sent, share)) for x in runs],
        )
    row("fan-out spread max", [ms(max(x.spreads)) for x in runs])
    row(
        "write (E21/E22 through floorgate) request to answer, median / max",
        [f"{ms(statistics.median(x.write_seconds))} / {ms(max(x.write_seconds))}" for x in runs],
    )
    row(
        "writes per second (paced for " + f"{1 / WRITE_PACE_SECONDS:g})",
        [f"{(WRITES - 1) / x.write_span:.1f}" for x in runs],
    )
    row("(subscriber, event) pairs delivered", [f"{x.delivered:,}" for x in runs])
    row("events twice / of the wrong kind", [f"{x.duplicates} / {x.wrong}" for x in runs])
    row("streams the server closed", [str(x.closed) for x in runs])
    row(
        "server cores while the writes ran and drained",
        [f"{x.server_cpu / x.phase_seconds:.2f}" for x in runs],
    )
    row(
        "floorgate's cores meanwhile (in the minimal's run: the writes alone)",
        [f"{x.writes_cpu / x.phase_seconds:.2f}" for x in runs],
    )
    row(
        f"subscriber programs' cores meanwhile ({CLIENT_PROCESSES} processes)",
        [f"{x.clients_cpu / x.phase_seconds:.2f}" for x in runs],
    )
    row("server RSS after the writes, subscribers open", [f"{x.rss_after:.1f} MiB" for x in runs])
    row("server RSS 2 s after the subscribers left", [f"{x.rss_left:.1f} MiB" for x in runs])
    return lines


def context(result: Result) -> list[str]:
    return [
        f"- commit: {commit()}",
        f"- {SUBSCRIBERS:,} subscribers in {CLIENT_PROCESSES} programs (raw asyncio, "
        f"uvloop); {WRITES} writes {WRITE_PACE_SECONDS:g} s apart through floorgate; "
        f"minimal server: {minimal_stack()}",
        f"- clients, database, writer and servers share this machine's {os.cpu_count()} "
        f"cores; load average (1/5/15 min) before {result.load_before}, after "
        f"{result.load_after}",
    ]


def tables(result: Result) -> list[list[str]]:
    checks = [f"- FAILED: {failure}" for failure in result.failures] or [
        "- every check held: every subscriber got every event once, of its write's kind; "
        "both servers' events are the same bytes but for their id and time"
    ]
    return [context(result), table(result), details(result), ["correctness:", *checks]]


def main() -> None:
    """Run the live changes benchmark, print its tables; fail on a missed event."""
    result = run_and_report(
        f"live_changes: issue 32's goals, {SUBSCRIBERS:,} SSE subscribers on one worker, "
        f"{WRITES} writes",
        run,
        tables,
    )
    if result.failures:
        raise RuntimeError("live_changes: " + "; ".join(result.failures))


if __name__ == "__main__":
    main()
