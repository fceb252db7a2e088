"""Cold start alone: `floorgate serve` and the minimal server, spawn to the first 200
of `GET /v1/assets/{id}` over TLS, alternating, on one running database (the same
measure as `versus_minimal`'s last row, with more starts and without its 6 minutes).

A third row is the floor under both: a Python process that only imports the libraries
floorgate answers with (`LIBRARIES`: no code of ours, no database, no socket), spawn to
exit. What floorgate takes above it is ours: our modules, the schema's types, the app,
the database, the first request.

Goal of issue 15: floorgate answers its first 200 in under 0.4 s on this machine.

Run with `make bench` or `python -m tests.benchmarks cold_start` (about a minute).
"""

from __future__ import annotations

import ssl
import statistics
import tempfile
import time
from pathlib import Path

from tests.benchmarks.harness import servers as s
from tests.benchmarks.harness.report import machine
from tests.benchmarks.versus_minimal import (
    DATABASE,
    PUBLIC_URL,
    cold_starts,
    commit,
    first_200,
    seeded,
)

STARTS = 9
GOAL_SECONDS = 0.4
# What `floorgate serve` imports before its first answer and does not write itself.
LIBRARIES = (
    "asyncio",
    "ssl",
    "orjson",
    "pymongo",
    "starlette.applications",
    "starlette.routing",
    "uvicorn.config",
    "uvicorn.server",
    "uvloop",
    "httptools",
    "graphql",
    "strawberry",
)


def run(folder: Path) -> None:
    with seeded(folder) as seed:
        database, key, certs, env, logs = seed.database, seed.key, seed.certs, seed.env, seed.logs

        def floorgate() -> s.Spawned:
            port = s.free_port()
            args = s.floorgate_args(port, certs.cert, certs.key, PUBLIC_URL, 1)
            return s.spawn("floorgate", args, env, logs, port)

        def minimal() -> s.Spawned:
            port = s.free_port()
            args = s.minimal_args(port, certs.cert, certs.key, PUBLIC_URL, database.uri, DATABASE)
            return s.spawn("minimal", args, env, logs, port)

        tls = ssl.create_default_context(cafile=str(certs.ca_cert))
        measures = {
            "floorgate": first_200(floorgate, key, tls),
            "minimal": first_200(minimal, key, tls),
            "libraries alone": lambda: s.import_seconds(LIBRARIES),
        }
        cold_starts(measures, 1)  # one of each first, to warm the file cache
        samples = cold_starts(measures, STARTS)
    print(f"- commit: {commit()}")
    print("\n".join(f"- {line}" for line in machine()))
    print()
    print("| server | median | min | max | each start (s) |")
    print("|---|---:|---:|---:|---|")
    medians = {name: statistics.median(values) for name, values in samples.items()}
    for name, values in samples.items():
        each = ", ".join(f"{value:.2f}" for value in values)
        print(
            f"| {name} | {medians[name]:.3f} s | {min(values):.3f} s | {max(values):.3f} s "
            f"| {each} |"
        )
    met = medians["floorgate"] < GOAL_SECONDS
    print(
        f"\nfloorgate / minimal: {medians['floorgate'] / medians['minimal']:.2f}x; goal "
        f"floorgate < {GOAL_SECONDS} s: {'met' if met else 'not met'}"
    )
    ours = medians["floorgate"] - medians["libraries alone"]
    print(
        f"floorgate above its libraries' imports: {ours:.3f} s (libraries: {', '.join(LIBRARIES)})"
    )


def main() -> None:
    """Time cold starts of both servers and print them (Markdown)."""
    print(f"cold_start: {STARTS} starts of each server, alternating", flush=True)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="floorgate-cold-") as tmp:
        run(Path(tmp))
    print(f"\n(total {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
