"""Issue 35's goals for the IMDF import (point 7), part of the `import_imdf` benchmark.

1. The sample venue (`tests.venues.imdf_venues.exchange()`, Harbourside Exchange, 4 levels)
   imported by `floorgate import-imdf` itself: goal < 5 s.
2. The 10-level, 5,000-unit `office_tower()` imported the same way: goal < 60 s with a
   peak RSS < 1 GB.
3. E18 on that tower: one 5 x 10 `distance-matrix` request (50 pairs, E18's most per
   request) on its stack map, through the app in-process: goal < 50 ms warm.

Each import runs the real command (`rest.cli.main.main(["import-imdf", FOLDER])`) in a
child Python process of its own, against an embedded server this process started, so
that the peak RSS measured (the child's VmHWM, read by the child as it ends) is the
import's alone: not this benchmark's, nor the database server's (reported beside it).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from resolvers.auth.keys import create_key
from resolvers.auth.permissions import ALL_PERMISSIONS
from rest.app import create_app
from routing.matrix import LoadedGraph
from storage import collections as c
from storage.embedded.server import EmbeddedServer
from storage.settings import Settings
from tests.benchmarks.harness.report import machine
from tests.venues.imdf_venues import Venue, exchange, office_tower

SAMPLE_SECONDS = 5.0
TOWER_SECONDS = 60.0
TOWER_RSS_BYTES = 1_000_000_000  # 1 GB
E18_MS = 50.0
SAMPLE_RUNS = 3
WARM_CALLS = 5
SEED = 35
SHAPE = (5, 10)  # sources x targets: 50 pairs, E18's most in one request
FLAGS = "distances, locations-resource"
CHILD = (
    "import sys; from tests.benchmarks.imports.imdf_goals import cli_child; "
    "sys.exit(cli_child(sys.argv[1]))"
)


@dataclass
class Import:
    """One `floorgate import-imdf` in a child process, as measured."""

    process_s: float  # the child process from start to exit, seen from here
    command_s: float  # `main(["import-imdf", ...])` inside the child
    hwm_bytes: int  # the child's peak RSS (VmHWM)
    output: str


@dataclass
class Results:
    max_documents: int
    sample: list[Import] = field(default_factory=list)
    tower: Import | None = None
    tower_server_hwm: int | None = None  # the database server's peak RSS after the tower
    cold_ms: float = 0.0
    warm_ms: list[float] = field(default_factory=list)
    kept_ms: list[float] = field(default_factory=list)
    one_by_fifty_ms: list[float] = field(default_factory=list)
    algorithm_ms: list[float] = field(default_factory=list)  # LoadedGraph.matrix, warm 5 x 10
    map_note: str = ""
    graph_note: str = ""


# -- the child ------------------------------------------------------------------------


def vm_hwm(pid: int | str = "self") -> int | None:
    """A process's peak resident set (VmHWM) in bytes, None when it cannot be read."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text(encoding="utf-8").splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def cli_child(folder: str) -> int:
    """In the child: run `floorgate import-imdf FOLDER` (its settings from the
    environment), then print one JSON line: exit code, seconds, peak RSS, output."""
    from rest.cli.main import main as floorgate

    out, err = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = floorgate(["import-imdf", folder])
    seconds = time.perf_counter() - start
    peak = vm_hwm() or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    text = out.getvalue() + err.getvalue()
    print(json.dumps({"code": code, "seconds": seconds, "hwm": peak, "output": text}))
    return code


def import_in_child(
    folder: Path, server: EmbeddedServer, database: str, env: dict[str, str]
) -> Import:
    """`floorgate import-imdf folder` in a fresh Python process into `database`."""
    environment = {
        **os.environ,
        "FLOORGATE_MONGODB_URI": server.uri,
        "FLOORGATE_DATABASE": database,
        "FLOORGATE_DATA_DIR": str(folder.parent / "cli-data"),
        **env,
    }
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(folder)],
        env=environment,
        capture_output=True,
        text=True,
        check=False,
        cwd=Path(__file__).parents[3],
    )
    process_s = time.perf_counter() - start
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"import-imdf failed ({done.returncode}): {done.stdout}{done.stderr}")
    answer = json.loads(lines[-1])
    return Import(process_s, answer["seconds"], answer["hwm"], answer["output"])


def write_folder(venue: Venue, folder: Path) -> Path:
    """The venue as an IMDF folder of .geojson files, as a user has it unpacked."""
    folder.mkdir(parents=True)
    for name, data in venue.files().items():
        (folder / name).write_bytes(data)
    return folder


# -- E18 on the tower -----------------------------------------------------------------


@contextlib.contextmanager
def timing_matrix(results: Results) -> Iterator[None]:
    """Time `LoadedGraph.matrix` (the algorithm on the loaded graph, in the CPU thread)
    during the block, so the table can say what of a request is routing and what the
    rest (HTTP, GraphQL, the map and locations read, the thread hand-off)."""
    original = LoadedGraph.matrix

    def timed(self: LoadedGraph, *args: Any) -> Any:
        start = time.perf_counter()
        try:
            return original(self, *args)
        finally:
            results.algorithm_ms.append((time.perf_counter() - start) * 1000)
            results.graph_note = f"{self.graph.node_count:,} nodes, {self.graph.edge_count:,} edges"

    LoadedGraph.matrix = timed  # type: ignore[method-assign]
    try:
        yield
    finally:
        LoadedGraph.matrix = original  # type: ignore[method-assign]


def pairs_body(
    by_level: dict[str, list[str]], rng: random.Random, shape: tuple[int, int]
) -> dict[str, Any]:
    """Sources and targets spread over the levels: each drawn from a level in turn."""
    levels = sorted(by_level)
    rng.shuffle(levels)

    def pick(count: int, offset: int) -> list[dict[str, str]]:
        return [
            {"id": rng.choice(by_level[levels[(offset + i) % len(levels)]])} for i in range(count)
        ]

    return {
        "sources": pick(shape[0], 0),
        "targets": pick(shape[1], shape[0]),
        "distance_method": "pathfinding",
    }


async def e18(
    server: EmbeddedServer, database: str, map_id: str, folder: Path, results: Results
) -> None:
    """Cold (the app's first request: graph and locations read) and warm (new pairs
    each call, so no kept answer) 5 x 10 matrices on the tower's stack map `map_id`
    (the venue's id, docs/imdf.md)."""
    settings = Settings(
        database_name=database,
        data_dir=folder,
        rate_limit_per_second=0,
        mongodb_uri=server.uri,
    )
    app = create_app(settings)
    store = app.services.store  # type: ignore[attr-defined]
    assert await store[c.UNIT_MAPS].find_one({"_id": map_id}) is not None, map_id
    by_level: dict[str, list[str]] = {}
    async for loc in store[c.LOCATIONS].find({"unit_map_id": map_id}):
        if ":" not in loc["_id"]:  # an amenity or occupant, not a unit
            continue
        by_level.setdefault(loc["floors"][0]["id"], []).append(loc["_id"])
    for ids in by_level.values():
        ids.sort()
    results.map_note = (
        f"stack map `{map_id}`: {sum(len(v) for v in by_level.values())} unit locations "
        f"on {len(by_level)} levels"
    )
    key = (await create_key(store, "bench", list(ALL_PERMISSIONS), None)).secret
    headers = {"API-Key": key, "Experimental-Flags": FLAGS}
    rng = random.Random(SEED)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="https://bench") as client:

        async def call(body: dict[str, Any]) -> float:
            start = time.perf_counter()
            response = await client.post(
                f"/v1/unitmaps/{map_id}/distance-matrix", headers=headers, json={"data": body}
            )
            seconds = time.perf_counter() - start
            assert response.status_code == 200, response.text
            rows = response.json()["data"]["sources"]
            reached = sum(t["distance"] is not None for r in rows for t in r["targets"])
            assert reached == len(body["sources"]) * len(body["targets"]), response.text
            return seconds * 1000

        results.cold_ms = await call(pairs_body(by_level, rng, SHAPE))
        bodies = [pairs_body(by_level, rng, SHAPE) for _ in range(WARM_CALLS)]
        with timing_matrix(results):
            results.warm_ms = [await call(body) for body in bodies]
        results.kept_ms = [await call(bodies[0]) for _ in range(WARM_CALLS)]
        results.one_by_fifty_ms = [
            await call(pairs_body(by_level, rng, (1, 50))) for _ in range(WARM_CALLS)
        ]
    await store.close()


# -- the run --------------------------------------------------------------------------


async def measure(folder: Path, max_documents: int) -> Results:
    """The sample venue three times on fresh databases, then the tower and E18 on it;
    one embedded server, started and stopped here."""
    results = Results(max_documents=max_documents)
    sample = write_folder(exchange().venue, folder / "exchange" / "venue")
    start = time.perf_counter()
    building = office_tower()
    stack_id = building.features["venue"][0]["id"]
    tower = write_folder(building, folder / "tower" / "venue")
    print(f"  (venues written in {time.perf_counter() - start:.1f} s, not counted)", flush=True)
    server = EmbeddedServer(folder / "server")
    server.start()
    try:
        for run in range(SAMPLE_RUNS):
            results.sample.append(import_in_child(sample, server, f"floorgate_bench_x{run}", {}))
            print(f"  (sample run {run + 1}: {results.sample[-1].process_s:.2f} s)", flush=True)
        # The tower writes 15,033 documents, within the default one-transaction limit.
        env = {"FLOORGATE_IMPORT_MAX_DOCUMENTS": str(max_documents)}
        results.tower = import_in_child(tower, server, "floorgate_bench_tower35", env)
        results.tower_server_hwm = vm_hwm(server.pid) if server.pid else None
        print(f"  (tower: {results.tower.process_s:.2f} s)", flush=True)
        await e18(server, "floorgate_bench_tower35", stack_id, folder / "app", results)
    finally:
        server.stop()
    return results


def verdict(met: bool) -> str:
    return "met" if met else "NOT met"


def table(results: Results) -> list[str]:
    """The goals table (Markdown) and the lines around it."""
    assert results.tower is not None
    runs = results.sample
    process = statistics.median(r.process_s for r in runs)
    command = statistics.median(r.command_s for r in runs)
    tower = results.tower
    warm = statistics.median(results.warm_ms)
    mb = 1e6
    lines = [
        "Issue 35 goals (point 7):",
        *(f"- {line}" for line in machine()),
        f"- E18 on the tower's {results.map_note}; {SHAPE[0]} x {SHAPE[1]} = 50 pairs in one "
        f"request (seed {SEED}, each source and target on a level in turn)",
        "- tower imported with FLOORGATE_IMPORT_MAX_DOCUMENTS="
        f"{results.max_documents} (the default; the tower writes 15,033 documents)",
        "",
        "| Measurement | Measured | Goal | Verdict |",
        "|---|---:|---:|---|",
        f"| sample venue (`exchange()`), `floorgate import-imdf`, whole process, median of "
        f"{len(runs)} | {process:.2f} s | < {SAMPLE_SECONDS:g} s | "
        f"{verdict(process < SAMPLE_SECONDS)} |",
        f"| the same, the command inside the process (no interpreter start) | {command:.2f} s "
        f"| | (runs: {', '.join(f'{r.process_s:.2f}/{r.command_s:.2f}' for r in runs)} s) |",
        f"| tower (10 levels, 5,000 units), whole process | {tower.process_s:.2f} s "
        f"| < {TOWER_SECONDS:g} s | {verdict(tower.process_s < TOWER_SECONDS)} |",
        f"| the same, the command inside the process | {tower.command_s:.2f} s | | |",
        f"| tower, peak RSS of the importing process (VmHWM) | {tower.hwm_bytes / mb:,.0f} MB "
        f"| < 1,000 MB | {verdict(tower.hwm_bytes < TOWER_RSS_BYTES)} |",
        "| the database server's peak RSS then (not the import's) | "
        + (f"{results.tower_server_hwm / mb:,.0f} MB" if results.tower_server_hwm else "?")
        + " | | |",
        f"| E18 5 x 10 on the tower's stack, warm, median of {len(results.warm_ms)} | "
        f"{warm:.1f} ms | < {E18_MS:g} ms | {verdict(warm < E18_MS)} |",
        f"| of which the algorithm on the loaded graph ({results.graph_note}), median | "
        f"{statistics.median(results.algorithm_ms):.1f} ms | | |",
        f"| the same, cold (the app's first request: graph loaded) | {results.cold_ms:.1f} ms "
        "| | |",
        f"| the same request again (a kept answer), median | "
        f"{statistics.median(results.kept_ms):.1f} ms | | |",
        f"| E18 1 x 50, warm, median of {len(results.one_by_fifty_ms)} | "
        f"{statistics.median(results.one_by_fifty_ms):.1f} ms | | |",
        "",
        f"warm 5 x 10 calls: {', '.join(f'{v:.1f}' for v in results.warm_ms)} ms; "
        f"1 x 50: {', '.join(f'{v:.1f}' for v in results.one_by_fifty_ms)} ms",
    ]
    return lines


async def goals(folder: Path, max_documents: int) -> None:
    """Measure and print issue 35's goals (called by `import_imdf`'s run), the tower
    imported with `max_documents` as its one-transaction limit."""
    results = await measure(folder, max_documents)
    print("\n".join(table(results)), flush=True)
