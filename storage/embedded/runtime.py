"""Which database a command talks to: FLOORGATE_MONGODB_URI, else the embedded server.

The process that starts the embedded server writes its address to
`<data_dir>/db.uri`; other commands on the same data folder (for example
`floorgate keys create` while `make run` serves, or a second `make run` on another
port) connect to that server instead of starting a second one on the same files.
Each registers in `<data_dir>/db.users/`, under a lock (`db.lock`), and the last to
leave stops the server, whoever started it. One that cannot leave (killed) leaves it to
the server's watcher (storage/embedded/watch.py), which stops a server no process uses.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pymongo import MongoClient
from pymongo.errors import PyMongoError

from storage.embedded.processes import alive, started
from storage.embedded.server import EmbeddedServer
from storage.settings import Settings

USERS_DIR = "db.users"  # a file per process using the embedded server, named by its pid
LOCK_FILE = "db.lock"


def _uri_file(data_dir: Path) -> Path:
    return data_dir / "db.uri"


def running_embedded_uri(data_dir: Path) -> str | None:
    """The address of an embedded server already serving this data folder, if it answers."""
    try:
        uri = _uri_file(data_dir).read_text(encoding="utf-8").strip()
    except OSError:
        return None
    client: MongoClient[dict[str, Any]]
    try:
        with MongoClient(uri, serverSelectionTimeoutMS=500) as client:
            client.admin.command("ping")
    except PyMongoError:
        return None
    return uri


@contextlib.contextmanager
def registry(data_dir: Path) -> Iterator[None]:
    """One process at a time decides about the folder's server (start, join, leave)."""
    with (data_dir / LOCK_FILE).open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _users(data_dir: Path) -> Path:
    users = data_dir / USERS_DIR
    users.mkdir(exist_ok=True)
    return users


def live_users(data_dir: Path) -> list[int]:
    """Processes registered as using the folder's server that still run (a process that
    was killed leaves its file: it is dropped here). A file holds its process's start
    time: a later process given the same id is not that user."""
    live = []
    for entry in _users(data_dir).iterdir():
        if entry.name.isdigit() and _runs_as_registered(entry):
            live.append(int(entry.name))
        else:
            entry.unlink(missing_ok=True)
    return live


def _runs_as_registered(entry: Path) -> bool:
    pid = int(entry.name)
    try:
        stamp = entry.read_text(encoding="utf-8").strip()
    except OSError:
        return False
    return alive(pid) and (not stamp or stamp == started(pid))


def forget_server(data_dir: Path) -> None:
    """No process finds the folder's server any more (it is stopping)."""
    _uri_file(data_dir).unlink(missing_ok=True)


def _watch(data_dir: Path, server: EmbeddedServer) -> subprocess.Popen[bytes] | None:
    """The server's watcher (storage/embedded/watch.py), in a session of its own."""
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "storage.embedded.watch", str(data_dir), str(server.pid)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            close_fds=True,
            start_new_session=True,
        )
    except OSError:
        return None  # as before the watcher: the server stops with its last user


@contextlib.contextmanager
def database_uri(settings: Settings) -> Iterator[str]:
    """Yield a usable MongoDB URI; start the embedded server if none serves the data
    folder yet. Every process using it registers in `db.users/`; whichever leaves last
    stops it, so stopping one `make run` never stops another's database."""
    if settings.mongodb_uri:
        yield settings.mongodb_uri
        return
    data_dir = settings.data_dir
    data_dir.mkdir(parents=True, exist_ok=True)
    uri_file = _uri_file(data_dir)
    mine = _users(data_dir) / str(os.getpid())
    server: EmbeddedServer | None = None
    watcher: subprocess.Popen[bytes] | None = None
    with registry(data_dir):
        uri = running_embedded_uri(data_dir)
        if uri is None:
            server = EmbeddedServer(data_dir)
            server.start()
            uri = server.uri
            uri_file.write_text(uri + "\n", encoding="utf-8")
        mine.write_text(started(os.getpid()), encoding="utf-8")
        if server is not None:
            watcher = _watch(data_dir, server)
    try:
        yield uri
    finally:
        with registry(data_dir):
            mine.unlink(missing_ok=True)
            last = not live_users(data_dir)
            if not last:
                if server is not None:
                    server.detach()  # the last of the others (or the watcher) stops it
            else:
                forget_server(data_dir)
                if server is not None:
                    server.stop()
                else:
                    EmbeddedServer(data_dir).stop_left_running()
        if watcher is not None and last:
            with contextlib.suppress(subprocess.TimeoutExpired):
                watcher.wait(timeout=2.0)  # it ends with the server: collect it
