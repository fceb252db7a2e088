"""The embedded database server runs as a real `secantusd-py` child process."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from pymongo import MongoClient, WriteConcern

from storage.embedded.server import INSTALL_HINT, EmbeddedServer, EmbeddedServerError
from tests.servers import free_port

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def servers() -> Iterator[list[EmbeddedServer]]:
    """Servers a test creates; all are stopped afterwards, whatever happened."""
    made: list[EmbeddedServer] = []
    yield made
    for server in made:
        server.stop()


def _pid_alive(pid: int) -> bool:
    proc = Path(f"/proc/{pid}/stat")
    if proc.exists():
        return proc.read_text().rsplit(")", 1)[-1].split()[0] != "Z"
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_restart_keeps_data_and_port(tmp_path: Path, servers: list[EmbeddedServer]) -> None:
    server = EmbeddedServer(tmp_path)
    servers.append(server)
    assert server.running is False
    server.start()
    assert server.running is True
    port = server.port
    assert server.uri == f"mongodb://127.0.0.1:{port}/?directConnection=true"
    with MongoClient(server.uri, serverSelectionTimeoutMS=2000) as client:
        client.floorgate.units.insert_one({"_id": "u-101", "name": "Suite 101", "floor": 1})

    server.stop()
    assert server.running is False
    assert server.pid is None
    assert not (tmp_path / "secantusd.pid").exists()

    server.start()
    assert server.running is True
    assert server.port == port
    with MongoClient(server.uri, serverSelectionTimeoutMS=2000) as client:
        docs = list(client.floorgate.units.find())
    assert docs == [{"_id": "u-101", "name": "Suite 101", "floor": 1}]

    server.stop()
    server.stop()  # idempotent
    assert server.running is False

    assert sorted(p.name for p in tmp_path.iterdir()) == ["db", "secantusd.log", "secantusd.toml"]
    log = (tmp_path / "secantusd.log").read_text()
    assert log.count(f"secantus listening on 127.0.0.1:{port}") == 2
    assert log.count(f"--- floorgate: starting secantusd-py on 127.0.0.1:{port}") == 2


def test_port_refuses_connections_after_stop(tmp_path: Path, servers: list[EmbeddedServer]) -> None:
    server = EmbeddedServer(tmp_path)
    servers.append(server)
    server.start()
    with socket.create_connection(("127.0.0.1", server.port), timeout=2):
        pass
    server.stop()
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", server.port), timeout=2)


def test_context_manager_and_explicit_port(tmp_path: Path, servers: list[EmbeddedServer]) -> None:
    port = free_port()
    server = EmbeddedServer(tmp_path, port=port)
    servers.append(server)
    with server as entered:
        assert entered is server
        assert server.running is True
        assert server.port == port
        with MongoClient(server.uri, serverSelectionTimeoutMS=2000) as client:
            assert client.admin.command("ping")["ok"] == 1.0
    assert server.running is False


def test_missing_explicit_executable(tmp_path: Path) -> None:
    missing = tmp_path / "bin" / "secantusd-py"
    server = EmbeddedServer(tmp_path, executable=str(missing))
    with pytest.raises(EmbeddedServerError) as info:
        server.start()
    assert str(info.value) == (
        f"the embedded database server {str(missing)!r} was not found; "
        "install the embedded extra (pip install -e '.[embedded]'), "
        "or set FLOORGATE_MONGODB_URI to use an external MongoDB-compatible server"
    )
    assert server.running is False
    assert not (tmp_path / "db").exists()


def test_missing_installed_executable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A Python with no secantusd-py next to it and none on PATH.
    empty_bin = tmp_path / "bin"
    empty_bin.mkdir()
    monkeypatch.setattr(sys, "executable", str(empty_bin / "python"))
    monkeypatch.setenv("PATH", str(empty_bin))
    with pytest.raises(EmbeddedServerError) as info:
        EmbeddedServer(tmp_path).start()
    assert str(info.value) == "the embedded database server (secantusd-py) is not installed; " + (
        INSTALL_HINT
    )
    assert "pip install -e '.[embedded]'" in INSTALL_HINT


def test_second_server_on_same_folder_is_refused(
    tmp_path: Path, servers: list[EmbeddedServer]
) -> None:
    first = EmbeddedServer(tmp_path)
    second = EmbeddedServer(tmp_path)
    servers += [first, second]
    first.start()
    with pytest.raises(EmbeddedServerError) as info:
        second.start()
    assert str(info.value) == (
        f"the database folder {tmp_path / 'db'} is in use by secantusd-py "
        f"(pid {first.pid}, started by pid {os.getpid()})"
    )
    assert first.running is True
    assert second.running is False


def test_port_in_use_is_reported(tmp_path: Path, servers: list[EmbeddedServer]) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        server = EmbeddedServer(tmp_path, port=port)
        servers.append(server)
        with pytest.raises(EmbeddedServerError) as info:
            server.start()
    assert str(info.value) == (
        f"port 127.0.0.1:{port} is in use by another process; "
        "cannot start the embedded database server"
    )
    assert server.running is False


def test_server_orphaned_by_a_killed_parent_is_replaced(
    tmp_path: Path, servers: list[EmbeddedServer]
) -> None:
    # A parent killed with SIGKILL never runs atexit: its server keeps running and
    # keeps the WiredTiger lock. The next start must stop it and reopen the data.
    script = textwrap.dedent(
        f"""
        import os, signal, sys
        sys.path.insert(0, {str(REPO)!r})
        from pathlib import Path
        from pymongo import MongoClient, WriteConcern
        from storage.embedded.server import EmbeddedServer
        server = EmbeddedServer(Path({str(tmp_path)!r}))
        server.start()
        with MongoClient(server.uri) as client:
            client.floorgate.units.insert_one({{"_id": "orphaned"}})
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    parent = subprocess.Popen([sys.executable, "-c", script])
    assert parent.wait(timeout=60) == -9
    record = json.loads((tmp_path / "secantusd.pid").read_text())
    orphan = record["pid"]
    assert record == {"pid": orphan, "parent": parent.pid, "storage_path": str(tmp_path / "db")}
    assert _pid_alive(orphan) is True

    server = EmbeddedServer(tmp_path)
    servers.append(server)
    try:
        server.start()
        assert _pid_alive(orphan) is False
        with MongoClient(server.uri, serverSelectionTimeoutMS=2000) as client:
            assert list(client.floorgate.units.find()) == [{"_id": "orphaned"}]
        assert json.loads((tmp_path / "secantusd.pid").read_text()) == {
            "pid": server.pid,
            "parent": os.getpid(),
            "storage_path": str(tmp_path / "db"),
        }
    finally:
        if _pid_alive(orphan):
            os.kill(orphan, 9)
            time.sleep(0.2)


def test_stale_lock_file_after_kill_is_harmless(
    tmp_path: Path, servers: list[EmbeddedServer]
) -> None:
    server = EmbeddedServer(tmp_path)
    servers.append(server)
    server.start()
    with MongoClient(server.uri, serverSelectionTimeoutMS=2000) as client:
        # j=True: a write without it reaches the WiredTiger log only within ~0.2 s,
        # so a SIGKILL right after it can lose it.
        units = client.floorgate.get_collection("units", write_concern=WriteConcern(j=True))
        units.insert_one({"_id": "before-kill"})
    assert server._process is not None
    server._process.kill()  # no clean shutdown: WiredTiger.lock stays behind
    server._process.wait()
    assert (tmp_path / "db" / "WiredTiger.lock").exists()
    server.stop()

    server.start()
    with MongoClient(server.uri, serverSelectionTimeoutMS=2000) as client:
        assert list(client.floorgate.units.find()) == [{"_id": "before-kill"}]
