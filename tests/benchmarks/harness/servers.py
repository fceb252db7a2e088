"""Processes of `versus_minimal`: the servers it starts, their CPU time, the load generators.

Everything here runs other programs and reads `/proc`; the measurements and the report
are in `side_by_side.py`, `versus_report.py` and `versus_minimal.py`.
"""

from __future__ import annotations

import asyncio
import compileall
import contextlib
import dataclasses
import json
import os
import resource
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import httpx

ROOT = Path(__file__).resolve().parents[3]  # the project (this file: tests/benchmarks/harness/)
FLOORGATE = str(Path(sys.executable).with_name("floorgate"))
MINIMAL = Path(__file__).with_name("minimal_server.py")
KEY_VARIABLE = "VERSUS_MINIMAL_KEY"  # how wrk's script gets the key: never on a command line
POLL_SECONDS = 0.005
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# -- CPU time of other processes --------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process, all its threads included.

    `/proc/<pid>/task/*/schedstat` counts nanoseconds; `/proc/<pid>/stat` only clock
    ticks (10 ms), too coarse for a few requests. A thread that ended is no longer in
    `task/`, so this is for servers whose threads live as long as they do (uvicorn,
    pymongo, floorgate's CPU pool)."""
    total = 0
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return 0.0
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat", encoding="ascii") as stat:
                total += int(stat.read().split()[0])
        except FileNotFoundError:
            continue  # the thread ended just now
        except (OSError, ValueError, IndexError):
            return _stat_seconds(pid)  # no schedstat on this kernel
    return total / 1e9


def _stat_seconds(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime


def descendants(pid: int) -> list[int]:
    """`pid` and every process below it (uvicorn's `--workers` children)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii") as stat:
                parent = int(stat.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(parent, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo.extend(children.get(current, []))
    return found


def tree_cpu_seconds(pids: list[int]) -> float:
    return sum(cpu_seconds(pid) for pid in pids)


# -- servers ----------------------------------------------------------------------------


@dataclass
class Spawned:
    """A server process on `port`, its output in `log`; `started` is `perf_counter()`
    just before it was spawned."""

    name: str
    process: subprocess.Popen[bytes]
    port: int
    log: Path
    started: float

    @property
    def base(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        return self.process.pid


def spawn(name: str, args: list[str], env: dict[str, str], folder: Path, port: int) -> Spawned:
    """Start a server; its output goes to a file (a pipe nobody reads would stall it)."""
    log = folder / f"{name}-{port}.log"
    with log.open("wb") as output:
        started = time.perf_counter()
        process = subprocess.Popen(args, env=env, stdout=output, stderr=subprocess.STDOUT)
    return Spawned(name, process, port, log, started)


def floorgate_args(port: int, cert: Path, key: Path, public_url: str, workers: int) -> list[str]:
    return [
        FLOORGATE,
        "serve",
        "--cert",
        str(cert),
        "--key",
        str(key),
        "--port",
        str(port),
        "--public-url",
        public_url,
        "--workers",
        str(workers),
    ]


def minimal_args(
    port: int, cert: Path, key: Path, public_url: str, uri: str, database: str
) -> list[str]:
    return [
        sys.executable,
        str(MINIMAL),
        "--mongodb-uri",
        uri,
        "--database",
        database,
        "--port",
        str(port),
        "--cert",
        str(cert),
        "--key",
        str(key),
        "--public-url",
        public_url,
    ]


def compile_bytecode() -> None:
    """Write the bytecode of floorgate's packages, as an install does, so that a start is
    timed and not a compile: with PYTHONDONTWRITEBYTECODE set (as on this machine), an
    editable checkout compiles each changed module again at every start."""
    with (ROOT / "pyproject.toml").open("rb") as project:
        found = tomllib.load(project)["tool"]["setuptools"]["packages"]["find"]
    for pattern in found["include"]:  # "schema*", ...: the top-level packages
        compileall.compile_dir(ROOT / pattern.rstrip("*"), quiet=1)


def import_seconds(modules: tuple[str, ...]) -> float:
    """Seconds from spawning Python to its exit, when all it does is import `modules`
    (`os._exit`: the interpreter's own clean-up at exit is not timed)."""
    started = time.perf_counter()
    code = f"import {', '.join(modules)}; import os; os._exit(0)"
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - started


def wait_for_200(
    server: Spawned,
    path: str,
    headers: dict[str, str],
    tls: ssl.SSLContext,
    timeout: float = 60.0,
) -> float:
    """Seconds from the spawn to the first 200 of `GET path` (a new connection per try)."""
    deadline = time.monotonic() + timeout
    with httpx.Client(verify=tls, headers=headers, timeout=10.0) as client:
        while time.monotonic() < deadline:
            if server.process.poll() is not None:
                raise RuntimeError(f"{server.name} exited: {tail(server.log)}")
            try:
                response = client.get(server.base + path)
            except httpx.TransportError:
                time.sleep(POLL_SECONDS)
                continue
            if response.status_code != 200:
                raise RuntimeError(f"{server.name}: {response.status_code} {response.text[:200]}")
            return time.perf_counter() - server.started
    raise RuntimeError(f"{server.name} did not answer 200 in {timeout:.0f} s: {tail(server.log)}")


def stop(server: Spawned) -> None:
    """SIGINT (uvicorn's graceful stop, workers included), then SIGKILL after 20 s."""
    if server.process.poll() is not None:
        return
    server.process.send_signal(signal.SIGINT)
    try:
        server.process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        for pid in reversed(descendants(server.pid)):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        server.process.wait(timeout=10)


def tail(log: Path, lines: int = 15) -> str:
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


# -- load generators --------------------------------------------------------------------


@dataclass(frozen=True)
class Load:
    """One load run: answers counted, errors (non-200 and socket), and the client's CPU."""

    tool: str
    requests: int
    errors: int
    seconds: float
    client_cpu: float

    @property
    def rate(self) -> float:
        return self.requests / self.seconds


WRK_SCRIPT = f"""\
wrk.headers["API-Key"] = os.getenv("{KEY_VARIABLE}")
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %d %d %d %d %d %d %d\\n", summary.requests,
    summary.duration, e.status, e.connect, e.read, e.write, e.timeout))
end
"""


def load_tool() -> str:
    """wrk when installed (C, epoll: it needs a fraction of a core), else a raw asyncio
    HTTP/1.1 client (an httpx AsyncClient took about 10 ms of CPU per request with 32
    requests in flight here: it measured itself, not the servers)."""
    return "wrk" if shutil.which("wrk") else "asyncio"


def run_load(
    url: str, key: str, ca_file: Path, connections: int, seconds: float, folder: Path
) -> Load:
    """`connections` keep-alive connections sending `GET url` for `seconds`."""
    if load_tool() == "wrk":
        return _wrk(url, key, connections, seconds, folder)
    return _asyncio(url, key, ca_file, connections, seconds)


def _wrk(url: str, key: str, connections: int, seconds: float, folder: Path) -> Load:
    script = folder / "versus_minimal.lua"
    script.write_text(WRK_SCRIPT, encoding="utf-8")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [
            "wrk",
            "-t1",
            f"-c{connections}",
            f"-d{max(1, round(seconds))}s",
            "--timeout",
            "10s",
            "-s",
            str(script),
            url,
        ],
        env={**os.environ, KEY_VARIABLE: key},
        capture_output=True,
        text=True,
        timeout=seconds + 60,
        check=True,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    line = next(line for line in done.stdout.splitlines() if line.startswith("RESULT "))
    requests, duration_us, *errors = (int(part) for part in line.split()[1:])
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Load("wrk", requests, sum(errors), duration_us / 1e6, cpu)


def _asyncio(url: str, key: str, ca_file: Path, connections: int, seconds: float) -> Load:
    """The fallback, in a process of its own (this module run as a program)."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.benchmarks.harness.servers",
            url,
            str(ca_file),
            str(connections),
            str(seconds),
        ],
        env={**os.environ, KEY_VARIABLE: key, "PYTHONPATH": str(ROOT)},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=seconds + 120,
        check=True,
    )
    return Load(**json.loads(done.stdout.strip().splitlines()[-1]))


async def asyncio_load(url: str, key: str, ca_file: str, connections: int, seconds: float) -> Load:
    """GET `url` over `connections` TLS keep-alive connections until `seconds` pass; each
    answer is read by its Content-Length (both servers send one)."""
    target = urlsplit(url)
    host, port = target.hostname or "127.0.0.1", target.port or 443
    request = (
        f"GET {target.path} HTTP/1.1\r\nHost: {target.netloc}\r\nAPI-Key: {key}\r\n\r\n"
    ).encode()
    tls = ssl.create_default_context(cafile=ca_file)
    streams = [await asyncio.open_connection(host, port, ssl=tls) for _ in range(connections)]
    answered = errors = 0
    cpu = time.process_time()
    start = time.perf_counter()
    deadline = start + seconds

    async def one_connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal answered, errors
        while time.perf_counter() < deadline:
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            await reader.readexactly(length)
            answered += 1
            errors += head[9:12] != b"200"

    results = await asyncio.gather(
        *(one_connection(*pair) for pair in streams), return_exceptions=True
    )
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu
    errors += sum(isinstance(result, BaseException) for result in results)
    for _, writer in streams:
        writer.close()
    return Load("asyncio", answered, errors, elapsed, cpu)


if __name__ == "__main__":
    # The fallback load generator: URL, CA file, connections, seconds; the key from the
    # environment, never the command line. Prints the Load as JSON.
    found = asyncio.run(
        asyncio_load(
            sys.argv[1], os.environ[KEY_VARIABLE], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
        )
    )
    print(json.dumps(dataclasses.asdict(found)))
