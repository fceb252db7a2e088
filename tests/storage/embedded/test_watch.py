"""The embedded database ends with the last process that uses it, however that process
ends (issue 63, finding 11): killed with SIGKILL (its watcher stops the server), after
the server was paused and resumed, or paused still."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from storage.embedded.processes import alive, started
from storage.embedded.runtime import live_users
from tests.servers import free_port

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[3]
FLOORGATE = str(Path(sys.executable).with_name("floorgate"))
# A process of the folder, as `floorgate serve` is one: it holds the database until killed.
USER = textwrap.dedent(
    """
    import signal, sys
    from pathlib import Path
    from storage.embedded.runtime import database_uri
    from storage.settings import Settings
    with database_uri(Settings(data_dir=Path(sys.argv[1]))) as uri:
        print(uri, flush=True)
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        signal.pause()
    """
)


def runs(pid: int) -> bool:
    """Alive and not a zombie (this sandbox's init does not reap orphans)."""
    return alive(pid)


def gone_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not runs(pid):
            return True
        time.sleep(0.05)
    return False


def database_pid(data: Path) -> int:
    return int(json.loads((data / "secantusd.pid").read_text())["pid"])


@pytest.fixture
def processes() -> Iterator[list[subprocess.Popen[str]]]:
    """Processes a test starts; killed afterwards, with the database they left."""
    made: list[subprocess.Popen[str]] = []
    yield made
    for process in made:
        if process.poll() is None:
            process.kill()
            process.wait()


def user(data: Path, processes: list[subprocess.Popen[str]]) -> subprocess.Popen[str]:
    """A process using the folder's database; returns once it has its address."""
    process = subprocess.Popen(
        [sys.executable, "-c", USER, str(data)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    processes.append(process)
    assert process.stdout is not None
    assert process.stdout.readline().startswith("mongodb://")
    return process


def killed_database_left(data: Path) -> None:
    """Whatever the test left running on the folder."""
    try:
        pid = database_pid(data)
    except (OSError, ValueError):
        return
    if runs(pid):
        os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("paused", [False, True])
def test_a_killed_user_leaves_no_database_running(tmp_path, processes, paused):
    """SIGKILL runs no clean-up: the watcher sees no user left and stops the server, also
    one that is paused (SIGSTOP) then."""
    first = user(tmp_path, processes)
    database = database_pid(tmp_path)
    try:
        if paused:
            os.kill(database, signal.SIGSTOP)
        first.kill()
        first.wait()
        assert gone_within(database, 15)
        assert not (tmp_path / "db.uri").exists()
    finally:
        killed_database_left(tmp_path)


def test_the_database_outlives_a_killed_starter_while_another_uses_it(tmp_path, processes):
    """Processes of one folder share its database: the starter killed, the other still
    reaches it; once the other ends too, the database ends."""
    first = user(tmp_path, processes)
    database = database_pid(tmp_path)
    try:
        second = user(tmp_path, processes)
        assert database_pid(tmp_path) == database  # joined, not started anew
        first.kill()
        first.wait()
        time.sleep(1.5)  # three looks of the watcher
        assert runs(database)
        assert live_users(tmp_path) == [second.pid]
        second.send_signal(signal.SIGTERM)
        assert second.wait(timeout=30) == 0
        assert gone_within(database, 15)
    finally:
        killed_database_left(tmp_path)


def test_a_user_is_its_process_not_a_later_one_of_the_same_id(tmp_path):
    """A user's file holds its start time: a zombie, or another process that got the
    same id, does not keep the database running."""
    users = tmp_path / "db.users"
    users.mkdir()
    (users / str(os.getpid())).write_text(started(os.getpid()))
    (users / "1").write_text("12345")  # pid 1 runs, but did not start then
    zombie = subprocess.Popen([sys.executable, "-c", "pass"])
    while Path(f"/proc/{zombie.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
        time.sleep(0.01)
    (users / str(zombie.pid)).write_text("")
    try:
        assert live_users(tmp_path) == [os.getpid()]
        assert sorted(entry.name for entry in users.iterdir()) == [str(os.getpid())]
    finally:
        zombie.wait()


def serve(data: Path, port: int, processes: list[subprocess.Popen[str]]) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FLOORGATE_")}
    env["FLOORGATE_DATA_DIR"] = str(data)
    process = subprocess.Popen(
        [FLOORGATE, "serve", "--behind-proxy", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    processes.append(process)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return process
        except httpx.HTTPError:
            time.sleep(0.2)
    raise AssertionError("floorgate serve did not answer")


@pytest.mark.parametrize("how", ["paused and resumed, then SIGTERM", "SIGKILL"])
def test_floorgate_serve_takes_its_database_along(tmp_path, processes, how):
    """The round's case: `floorgate serve` on the embedded database, the database paused
    and resumed, then the server stopped cleanly; and the server killed."""
    data = tmp_path / "data"
    served = serve(data, free_port(), processes)
    database = database_pid(data)
    try:
        if how == "SIGKILL":
            served.kill()
            served.wait()
        else:
            os.kill(database, signal.SIGSTOP)
            time.sleep(0.5)
            os.kill(database, signal.SIGCONT)
            served.send_signal(signal.SIGTERM)
            assert served.wait(timeout=60) == -signal.SIGTERM  # as before, but cleanly:
            assert not runs(database)  # serve stopped it itself, before it ended
            assert list((data / "db.users").iterdir()) == []
        assert gone_within(database, 15)
    finally:
        killed_database_left(data)
