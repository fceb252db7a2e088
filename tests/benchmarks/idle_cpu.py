"""Idle CPU (issue 45, point 12): what an idle `floorgate serve` and `floorgate demo` cost
per second, against the minimal server of `versus_minimal` idle beside them.

Both servers start on one embedded database (the demo and a key seeded), answer one keyed
GET each, settle, then nobody asks anything for SECONDS while each process tree's CPU
time (utime + stime of every thread, `harness.servers.cpu_seconds`, children included)
is read at both ends; the database's own CPU over the same window is shown apart. Then
`floorgate demo` runs alone (its own embedded database is its child: its tree includes
it, and is shown without it too).

    .venv/bin/python -m tests.benchmarks idle_cpu        # SECONDS each (60)
"""

from __future__ import annotations

import asyncio
import os
import ssl
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from resolvers.auth.keys import create_key
from resolvers.auth.permissions import ALL_PERMISSIONS
from rest.cli.main import DEMO_KEY_FILE
from rest.ops.tls import CA_FILE, ensure_local_certificates
from storage.cache.switch_gate import FRESH_SECONDS, QUIET_SECONDS
from storage.database import connect
from storage.demo.install import install_demo
from storage.embedded.server import EmbeddedServer
from storage.settings import Settings
from tests.benchmarks.harness import servers as s
from tests.benchmarks.harness.report import machine

DATABASE = "floorgate_idle_cpu"
PUBLIC_URL = "https://bench.local"
ASSET_PATH = "/v1/assets/harbor-view"  # a demo asset: both servers answer it
SECONDS = float(os.environ.get("IDLE_CPU_SECONDS", "60"))
# After the first answer: the schema is built a second after start, and the switch gate
# polls until its process has read nothing for QUIET_SECONDS (and one poll more).
SETTLE_SECONDS = QUIET_SECONDS + FRESH_SECONDS


@dataclass(frozen=True)
class Idle:
    """CPU per second of wall time over an idle window, in milliseconds."""

    name: str
    ms_per_second: float


def idle_cpu(trees: dict[str, Callable[[], list[int]]], seconds: float) -> list[Idle]:
    """Each tree's CPU over the same `seconds` of wall time, nothing asked of it."""
    before = {name: s.tree_cpu_seconds(pids()) for name, pids in trees.items()}
    started = time.monotonic()
    time.sleep(seconds)
    wall = time.monotonic() - started
    after = {name: s.tree_cpu_seconds(pids()) for name, pids in trees.items()}
    return [Idle(name, (after[name] - before[name]) * 1000 / wall) for name in trees]


async def seed(uri: str, folder: Path) -> str:
    """The demo and a key with every permission; the key's secret."""
    settings = Settings(data_dir=folder / "seed", database_name=DATABASE, mongodb_uri=uri)
    store = connect(uri, settings)
    try:
        await store.ensure_indexes()
        await install_demo(store, folder / "seed")
        return (await create_key(store, "idle", list(ALL_PERMISSIONS), None)).secret
    finally:
        await store.close()


def serve_env(uri: str, folder: Path) -> dict[str, str]:
    return {
        **os.environ,
        "FLOORGATE_MONGODB_URI": uri,
        "FLOORGATE_DATABASE": DATABASE,
        "FLOORGATE_DATA_DIR": str(folder / "floorgate"),
        "FLOORGATE_ACCESS_LOG": "off",
    }


def served_side_by_side(folder: Path, seconds: float) -> list[Idle]:
    """`floorgate serve` (one worker) and the minimal server, idle at the same time."""
    database = EmbeddedServer(folder / "db")
    database.start()
    started: list[s.Spawned] = []
    try:
        key = asyncio.run(seed(database.uri, folder))
        certs = ensure_local_certificates(folder / "tls")
        logs = folder / "logs"
        logs.mkdir()
        env = serve_env(database.uri, folder)
        port = s.free_port()
        args = s.floorgate_args(port, certs.cert, certs.key, PUBLIC_URL, 1)
        started.append(s.spawn("floorgate", args, env, logs, port))
        port = s.free_port()
        args = s.minimal_args(port, certs.cert, certs.key, PUBLIC_URL, database.uri, DATABASE)
        started.append(s.spawn("minimal", args, env, logs, port))
        tls = ssl.create_default_context(cafile=str(certs.ca_cert))
        for server in started:
            s.wait_for_200(server, ASSET_PATH, {"API-Key": key}, tls)
        time.sleep(SETTLE_SECONDS)
        pid = database.pid or 0
        trees = {server.name: (lambda p=server.pid: s.descendants(p)) for server in started}
        return idle_cpu({**trees, "database": lambda: [pid]}, seconds)
    finally:
        for server in started:
            s.stop(server)
        database.stop()


def demo_alone(folder: Path, seconds: float) -> list[Idle]:
    """`floorgate demo` with its own embedded database, idle: its whole tree, and without
    the database."""
    port = s.free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("FLOORGATE_")},
        "FLOORGATE_DATA_DIR": str(folder / "demo"),
        "FLOORGATE_ACCESS_LOG": "off",
    }
    log = folder / "demo.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            [s.FLOORGATE, "demo", "--port", str(port)],
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    demo = s.Spawned("floorgate demo", process, port, log, time.perf_counter())
    try:
        key = wait_for_demo_key(folder / "demo", demo)
        tls = ssl.create_default_context(cafile=str(folder / "demo" / "tls" / CA_FILE))
        s.wait_for_200(demo, ASSET_PATH, {"API-Key": key}, tls, timeout=300)
        time.sleep(SETTLE_SECONDS)

        def without_database() -> list[int]:
            return [pid for pid in s.descendants(demo.pid) if "secantus" not in command(pid)]

        return idle_cpu(
            {
                "floorgate demo (tree)": lambda: s.descendants(demo.pid),
                "floorgate demo (without its database)": without_database,
            },
            seconds,
        )
    finally:
        s.stop(demo)


def command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""


def wait_for_demo_key(data_dir: Path, demo: s.Spawned, timeout: float = 300) -> str:
    """The demo key `floorgate demo` writes into its data folder."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if demo.process.poll() is not None:
            raise RuntimeError(f"floorgate demo exited: {s.tail(demo.log)}")
        path = data_dir / DEMO_KEY_FILE
        if path.exists() and (secret := path.read_text(encoding="utf-8").strip()):
            return secret
        time.sleep(0.2)
    raise RuntimeError(f"no demo key in {data_dir}: {s.tail(demo.log)}")


def main() -> None:
    print(f"idle_cpu: {SECONDS:g} s idle each", flush=True)
    for line in machine():
        print(f"  {line}")
    with tempfile.TemporaryDirectory(prefix="floorgate-idle-") as tmp:
        folder = Path(tmp)
        figures = served_side_by_side(folder / "served", SECONDS)
        figures += demo_alone(folder, SECONDS)
    minimal = next(f.ms_per_second for f in figures if f.name == "minimal")
    print("\n| process tree | CPU ms per s idle | / minimal |\n|---|---:|---:|")
    for figure in figures:
        ratio = figure.ms_per_second / minimal
        print(f"| {figure.name} | {figure.ms_per_second:.2f} | {ratio:.2f}x |")


if __name__ == "__main__":
    main()
