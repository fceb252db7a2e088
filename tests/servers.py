"""Helpers for tests that start `floorgate serve` as a real process (over real TLS)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import random
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from pymongo.errors import AutoReconnect

from resolvers.auth.keys import create_key
from resolvers.auth.permissions import ALL_PERMISSIONS
from rest.ops.tls import LocalCertificates, ensure_local_certificates
from storage.database import Store, connect
from storage.demo.install import install_demo
from storage.settings import Settings

log = logging.getLogger(__name__)

FLOORGATE = str(Path(sys.executable).with_name("floorgate"))


# Ports for the servers tests start: below Linux's ephemeral range (32768 and up), so no
# outgoing connection takes one between its pick and the server's bind, and a block of
# 1000 for each pytest-xdist worker (gw0, gw1...; the run without workers has its own),
# so no two workers pick the same one. The start within the block is random: another
# test run on the machine rarely walks the same ports at the same moment.
PORT_BLOCKS_FROM, PORT_BLOCK, PORT_BLOCKS = 20_000, 1000, 12
_port_offsets = itertools.count(random.randrange(PORT_BLOCK))


def worker_number() -> int:
    """0 without pytest-xdist, else 1 for gw0, 2 for gw1..."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    return int(worker[2:]) + 1 if worker.startswith("gw") else 0


def free_port() -> int:
    """A loopback port free now, from this worker's block (see PORT_BLOCKS_FROM)."""
    base = PORT_BLOCKS_FROM + worker_number() % PORT_BLOCKS * PORT_BLOCK
    for _ in range(PORT_BLOCK):
        port = base + next(_port_offsets) % PORT_BLOCK
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue  # in use
        return port
    raise AssertionError(f"no free port in {base}-{base + PORT_BLOCK - 1}")


def cli_env(db_server, settings, data_dir: Path) -> dict[str, str]:
    """The environment of a served process or a CLI command on `settings`' database, with
    its database timeout (the session's is longer than the product's: see `settings` in
    tests/conftest.py; a served process with the product's 2 s answered its first request
    503 while the worker's loaded database server was slow to answer its heartbeat)."""
    return {
        **os.environ,
        "FLOORGATE_MONGODB_URI": db_server.uri,
        "FLOORGATE_DATABASE": settings.database_name,
        "FLOORGATE_DATA_DIR": str(data_dir),
        "FLOORGATE_DB_TIMEOUT_MS": str(settings.db_timeout_ms),
    }


def wait_for_port(
    port: int, process: subprocess.Popen, timeout: float = 30.0, log: Path | None = None
) -> None:
    """Until the server listens; its output (`process.stdout` or the `log` file) if it exits."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            output = log.read_text() if log else process.stdout.read()
            raise AssertionError(f"floorgate serve exited: {output}")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise AssertionError("floorgate serve did not listen in time")


@dataclass(frozen=True)
class Served:
    base: str  # https://localhost:<port>
    port: int
    certs: LocalCertificates
    process: subprocess.Popen
    log: Path  # its standard output and error: the access log among them


@contextlib.contextmanager
def serve_tls(data_dir: Path, db_server, settings, **env: str) -> Iterator[Served]:
    """`floorgate serve` on a free port with a fresh local CA; stopped with SIGINT on exit.

    Its output goes to `<data_dir>/serve.log`: a pipe that nobody reads fills up with
    the access log and stalls the server after a few thousand requests."""
    with serve_tls_with_args(data_dir, db_server, settings, (), **env) as served:
        yield served


# Every test's client is 127.0.0.1, and many tests open hundreds of connections on
# purpose (the connection limit, floods of refused heads): the pace of new connections
# per address (rest/ops/tls_gate.py) would slow those down, so a served test instance
# runs without it unless the test asks (`FLOORGATE_NEW_CONNECTIONS_PER_SECOND=""` is
# the default pace: the attack-latency test measures the server as it ships).
UNPACED = {"FLOORGATE_NEW_CONNECTIONS_PER_SECOND": "0"}


@contextlib.contextmanager
def serve_tls_with_args(
    data_dir: Path, db_server, settings, args: Sequence[str], **env: str
) -> Iterator[Served]:
    """`serve_tls` with more command-line arguments, e.g. `("--workers", "2")`."""
    certs = ensure_local_certificates(data_dir)
    port = free_port()
    log_path = data_dir / "serve.log"
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [
                FLOORGATE,
                "serve",
                "--cert",
                str(certs.cert),
                "--key",
                str(certs.key),
                "--port",
                str(port),
                "--public-url",
                f"https://localhost:{port}",
                *args,
            ],
            env={**cli_env(db_server, settings, data_dir), **UNPACED, **env},
            stdout=log,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,  # its group, parse workers included, can be killed
        )
        try:
            wait_for_port(port, process, log=log_path)
            yield Served(f"https://localhost:{port}", port, certs, process, log_path)
        finally:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:  # fails the test, and leaves no orphan (nor
                os.killpg(process.pid, signal.SIGKILL)  # parse worker) to load the machine
                process.wait()
                raise


@contextlib.asynccontextmanager
async def own_demo_database(
    db_server, data_dir: Path, database: str
) -> AsyncIterator[tuple[Settings, str]]:
    """A database of its own holding the demo, and a key with every permission; dropped
    afterwards (for tests that start their own `floorgate serve` on it)."""
    settings = Settings(data_dir=data_dir, database_name=database)
    store = connect(db_server.uri, settings)
    await store.client.drop_database(database)
    await store.ensure_indexes()
    await install_demo(store, data_dir)
    key = (await create_key(store, database, list(ALL_PERMISSIONS), None)).secret
    try:
        yield settings, key
    finally:
        await drop_quietly(store, database)
        await store.close()


async def drop_quietly(store: Store, database: str) -> None:
    """Drop a test's own database, once more after a dropped connection: on a loaded
    machine the worker's database server was once seen to cut the drop short (the
    operation cancelled with its pool). The server itself goes with the session."""
    for attempt in range(2):
        try:
            await store.client.drop_database(database)
            return
        except AutoReconnect:
            if attempt:
                log.warning("could not drop test database %s", database)
                return
            await asyncio.sleep(0.5)
