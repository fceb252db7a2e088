"""Instructions per request, floorgate (read cache off) beside the minimal server, counted
by valgrind's callgrind: the work each server does for `GET /v1/units`, without the
spread of CPU time.

CPU time per request varies by about a third from one process to the next for the same
code (docs/performance-history.md, issue 36), so a ratio of two processes' CPU times
moves by 0.05 or more between runs. Instruction counts repeat exactly for the same
inputs, whatever else the machine does. callgrind also simulates the first-level caches:
their misses per request tell a server that does the same work in more cycles (a larger
footprint) from one that does more work.

Each server runs under callgrind alone, one after the other (about 50 times slower).
The counters are zeroed after warm-up requests and dumped after the measured ones, so a
count holds the requests and what the process did meanwhile: floorgate's per-second
work (switch polls, key and rate-limit checks) falls on each request about five times
as often as at full speed, so its counts are, if anything, high.

Run with `make bench` or `python -m tests.benchmarks instructions` (about 5 minutes).
"""

from __future__ import annotations

import shutil
import ssl
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests.benchmarks.harness import servers as s
from tests.benchmarks.harness.report import machine
from tests.benchmarks.versus_minimal import (
    ASSET_PATH,
    DATABASE,
    PUBLIC_URL,
    commit,
    seeded,
)

REQUESTS = {100: 10, 1000: 5}  # page size -> requests counted in a round
ROUNDS = 3  # of each size, alternating; a round with other work in it stands out
WARM_UP = 3  # requests of each size before counting
IDLE_SECONDS = 5.0  # counted with no request: the process's own work per second
# After warm-up, before counting: what start-up left running ends meanwhile (a process
# runs about 50 times slower under callgrind; floorgate prepares its GraphQL routes
# between requests after start, `RestApi.prepare_all`: 4 M more instructions per
# request for a while when counted at once).
SETTLE_SECONDS = 60.0
START_SECONDS = 600.0  # a server's start under callgrind (about 20 s here)
CALLGRIND = ["valgrind", "--tool=callgrind", "--cache-sim=yes", "--dump-instr=no"]
EVENTS = ("Ir", "I1mr", "D1mr", "D1mw")  # instructions; first-level cache misses


@dataclass(frozen=True)
class Counts:
    """Events per request (or per second), in millions (`EVENTS`)."""

    instructions: float
    instruction_misses: float
    data_misses: float


@dataclass(frozen=True)
class Result:
    """One server's rounds by page size (counts per request, wall seconds per request
    under callgrind), and its counts per second idle."""

    rounds: dict[int, list[tuple[Counts, float]]]
    idle: Counts

    def median(self, size: int) -> tuple[Counts, float]:
        ordered = sorted(self.rounds[size], key=lambda pair: pair[0].instructions)
        return ordered[len(ordered) // 2]


def totals(dump: Path, requests: float) -> Counts:
    """The events of a callgrind dump, per request (or per second)."""
    names: list[str] = []
    for line in dump.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("events:"):
            names = line.split()[1:]
        elif line.startswith(("summary:", "totals:")):
            found = dict(zip(names, (int(v) for v in line.split()[1:]), strict=False))
            per = {name: found.get(name, 0) / requests / 1e6 for name in EVENTS}
            return Counts(per["Ir"], per["I1mr"], per["D1mr"] + per["D1mw"])
    raise RuntimeError(f"no totals in {dump}")


def newest_dump(out: Path) -> Path:
    dumps = sorted(out.parent.glob(f"{out.name}.*"), key=lambda p: p.stat().st_mtime)
    if not dumps:
        raise RuntimeError(f"callgrind wrote no dump to {out}.*")
    return dumps[-1]


def measured(server: s.Spawned, out: Path, divisor: float, action: Callable[[], None]) -> Counts:
    """The events of `action` in the server, divided by `divisor`: counters zeroed before,
    dumped after."""
    pid = str(server.pid)
    subprocess.run(["callgrind_control", "-z", pid], check=True, capture_output=True)
    action()
    subprocess.run(["callgrind_control", "-d", pid], check=True, capture_output=True)
    time.sleep(1.0)  # the dump is written by the server's next turn
    return totals(newest_dump(out), divisor)


def built(client: httpx.Client) -> None:
    """Until floorgate's GraphQL schema is built: it builds it in a thread after start,
    which takes many seconds under callgrind (a request meanwhile is answered 503 when
    its time budget runs out first)."""
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if client.post("/graphql", json={"query": "{ __typename }"}).status_code == 200:
            return
        time.sleep(1.0)
    raise RuntimeError("floorgate's schema was not built in time")


def count(server: s.Spawned, out: Path, key: str, tls: ssl.SSLContext) -> Result:
    """Counts of one server running under callgrind as `out`: ROUNDS per page size, and
    a second of it idle."""
    headers = {"API-Key": key, "Accept-Encoding": "identity"}
    s.wait_for_200(server, ASSET_PATH, headers, tls, timeout=START_SECONDS)
    rounds: dict[int, list[tuple[Counts, float]]] = {size: [] for size in REQUESTS}
    with httpx.Client(base_url=server.base, verify=tls, headers=headers, timeout=120) as client:
        if server.name == "floorgate":
            built(client)
        for size in REQUESTS:
            for _ in range(WARM_UP):
                client.get("/v1/units", params={"per-page": str(size)})
        time.sleep(SETTLE_SECONDS)
        for _ in range(ROUNDS):
            for size, requests in REQUESTS.items():
                params = {"per-page": str(size)}

                def requested(params: dict[str, str] = params, requests: int = requests) -> None:
                    for _ in range(requests):
                        response = client.get("/v1/units", params=params)
                        if response.status_code != 200:
                            raise RuntimeError(f"{server.name}: {response.status_code}")

                started = time.monotonic()
                counts = measured(server, out, requests, requested)
                wall = (time.monotonic() - started - 1.0) / requests
                rounds[size].append((counts, wall))
    idle = measured(server, out, IDLE_SECONDS, lambda: time.sleep(IDLE_SECONDS))
    return Result(rounds, idle)


def run(folder: Path) -> dict[str, Result]:
    with seeded(folder, FLOORGATE_READ_CACHE_MB="0") as seed:
        database, key, certs, env, logs = seed.database, seed.key, seed.certs, seed.env, seed.logs
        tls = ssl.create_default_context(cafile=str(certs.ca_cert))
        results: dict[str, Result] = {}
        for name in ("minimal", "floorgate"):
            port = s.free_port()
            out = folder / f"callgrind-{name}"
            if name == "floorgate":
                args = s.floorgate_args(port, certs.cert, certs.key, PUBLIC_URL, 1)
                args = [sys.executable, *args]  # valgrind runs Python on the script
            else:
                args = s.minimal_args(
                    port, certs.cert, certs.key, PUBLIC_URL, database.uri, DATABASE
                )
            spawned = s.spawn(
                name, [*CALLGRIND, f"--callgrind-out-file={out}", *args], env, logs, port
            )
            try:
                results[name] = count(spawned, out, key, tls)
            finally:
                s.stop(spawned)
        return results


def table(results: dict[str, Result]) -> list[str]:
    """Per page size and server: the median round's counts per request, and what the
    process does idle in the same wall time (its per-second work), taken off."""
    lines = [
        "| per-page | server | instructions / request | of them idle work | less idle work "
        "| L1 instruction misses | L1 data misses | floorgate / minimal, less idle |",
        "|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for size in REQUESTS:
        own = {}
        for name, result in results.items():
            counts, wall = result.median(size)
            own[name] = (counts, result.idle.instructions * wall)
        ratio = (own["floorgate"][0].instructions - own["floorgate"][1]) / (
            own["minimal"][0].instructions - own["minimal"][1]
        )
        for name in ("minimal", "floorgate"):
            counts, idle = own[name]
            shown = f"{ratio:.2f}x" if name == "floorgate" else ""
            lines.append(
                f"| {size} | {name} | {counts.instructions:.2f} M | {idle:.2f} M "
                f"| {counts.instructions - idle:.2f} M | {counts.instruction_misses:.3f} M "
                f"| {counts.data_misses:.3f} M | {shown} |"
            )
    rounds = {
        name: {size: [f"{c.instructions:.2f}" for c, _ in result.rounds[size]] for size in REQUESTS}
        for name, result in results.items()
    }
    lines += ["", f"each round (M instructions / request): {rounds}"]
    lines += [
        f"idle, {name}: {result.idle.instructions:.2f} M instructions / s"
        for name, result in results.items()
    ]
    return lines


def main() -> None:
    """Count both servers' instructions per request and print them (Markdown)."""
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        print("instructions: skipped, valgrind is not installed")
        return
    print("instructions: callgrind, each server alone, read cache off", flush=True)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="floorgate-instructions-") as tmp:
        results = run(Path(tmp))
    print(f"- commit: {commit()}")
    print("\n".join(f"- {line}" for line in machine()))
    print()
    print("\n".join(table(results)))
    print(f"\n(total {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
