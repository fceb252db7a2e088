"""The newcomer's path: `floorgate demo` on an empty data folder (what `make run` does,
without serving), twice; and `floorgate import`, all or nothing."""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest
from pymongo import MongoClient

from tests.servers import free_port

pytestmark = pytest.mark.e2e
FLOORGATE = str(Path(sys.executable).with_name("floorgate"))


def run(args: list[str], env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [FLOORGATE, *args], env=env, capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture(scope="module")
def loaded(tmp_path_factory) -> tuple[Path, dict[str, str], subprocess.CompletedProcess]:
    """`floorgate demo --no-serve` once on an empty data folder: the folder (its database
    stopped), the environment and the run. Loading the demo is the costly part of these
    tests: the others that need a loaded folder start from a copy of this one."""
    tmp_path = tmp_path_factory.mktemp("demo")
    env = {k: v for k, v in os.environ.items() if not k.startswith("FLOORGATE_")}
    env.update(FLOORGATE_DATA_DIR=str(tmp_path / "data"), FLOORGATE_PORT="9443")
    return tmp_path, env, run(["demo", "--no-serve"], env)


def copy_of_loaded(loaded, tmp_path: Path) -> None:
    """`tmp_path / "data"` as the demo left it loaded (its database stopped, so its files
    are whole)."""
    assert loaded[2].returncode == 0, loaded[2].stderr
    source = loaded[0] / "data"
    assert not (source / "db.uri").exists()
    shutil.copytree(source, tmp_path / "data")


def test_demo_on_empty_folder_then_again(loaded):
    tmp_path, env, first = loaded
    assert first.returncode == 0, first.stderr
    assert "units: 100 inserted, 0 updated" in first.stdout
    key = (tmp_path / "data" / "demo-key").read_text().strip()
    ca = tmp_path / "data" / "tls" / "ca.pem"
    assert f'curl --cacert {ca} -H "API-Key: {key}" https://localhost:9443/v1/assets' in (
        first.stdout
    )
    assert oct((tmp_path / "data" / "demo-key").stat().st_mode & 0o777) == "0o600"
    assert not (tmp_path / "data" / "db.uri").exists()  # the database child was stopped

    second = run(["demo", "--no-serve"], env)
    assert second.returncode == 0, second.stderr
    assert "The database has data already; the demo property was not reloaded." in second.stdout
    assert f'-H "API-Key: {key}"' in second.stdout  # the same key, still valid


def write_dataset(folder: Path, units: list[dict]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    data = {
        "assets": [{"id": "cli-asset", "market": "multifamily", "name": "CLI"}],
        "floors": [{"id": "cli-f1", "asset_id": "cli-asset", "name": "1", "sort": 1}],
        "units": units,
    }
    path = folder / "dataset.json"
    path.write_text(json.dumps(data))
    return path


def test_import_all_or_nothing(tmp_path, db_server, settings):
    env = {
        **os.environ,
        "FLOORGATE_MONGODB_URI": db_server.uri,
        "FLOORGATE_DATABASE": "floorgate_cli_import",
        "FLOORGATE_DATA_DIR": str(tmp_path),
    }
    bad = write_dataset(
        tmp_path / "bad",
        [
            {"id": "u1", "asset_id": "cli-asset", "floor_id": "cli-f1", "name": "1"},
            {"id": "u2", "asset_id": "cli-asset", "floor_id": "nope", "name": "2"},
            {"id": "x" * 256, "asset_id": "cli-asset", "floor_id": "cli-f1", "name": "3"},
        ],
    )
    refused = run(["import", str(bad)], env)
    assert refused.returncode == 1
    assert "Nothing was imported: 2 problem(s)." in refused.stderr
    assert "$.units[1].floor_id" in refused.stderr
    assert "$.units[2].id" in refused.stderr
    with MongoClient(db_server.uri) as client:
        assert client["floorgate_cli_import"]["assets"].count_documents({}) == 0
        assert client["floorgate_cli_import"]["units"].count_documents({}) == 0

    good = write_dataset(
        tmp_path / "good",
        [
            {"id": "u1", "asset_id": "cli-asset", "floor_id": "cli-f1", "name": "1"},
        ],
    )
    imported = run(["import", str(good)], env)
    assert imported.returncode == 0, imported.stderr
    assert "units: 1 inserted, 0 updated" in imported.stdout
    with MongoClient(db_server.uri) as client:
        unit = client["floorgate_cli_import"]["units"].find_one({"_id": "u1"})
        client.drop_database("floorgate_cli_import")
    assert unit["floor_id"] == "cli-f1"


def test_keys_create_refuses_unknown_assets_and_permissions_and_list_has_a_header(
    tmp_path, db_server
):
    database = "floorgate_cli_keys"
    env = {
        **os.environ,
        "FLOORGATE_MONGODB_URI": db_server.uri,
        "FLOORGATE_DATABASE": database,
        "FLOORGATE_DATA_DIR": str(tmp_path),
    }
    with MongoClient(db_server.uri) as client:
        client.drop_database(database)
        client[database]["assets"].insert_one({"_id": "known", "name": "Known"})
    unknown = run(["keys", "create", "--name", "typo", "--asset", "known", "--asset", "nope"], env)
    assert (unknown.returncode, unknown.stdout) == (2, "")
    assert unknown.stderr == (
        "floorgate keys create: no asset 'nope' in the database (import it first, or check "
        "the id; `--all-assets` for every asset); no key was created.\n"
    )
    bad_permission = run(
        ["keys", "create", "--name", "p", "--all-assets", "--permission", "service.everything"], env
    )
    assert bad_permission.returncode == 2
    assert "argument --permission: invalid choice: 'service.everything'" in bad_permission.stderr
    assert run(["keys", "list"], env).stdout == (
        "ID  NAME  STATE  RATE LIMIT  ASSETS  PERMISSIONS\n"
    )

    made = run(["keys", "create", "--name", "listing site", "--asset", "known"], env)
    assert made.returncode == 0, made.stderr
    key_id = made.stdout.split()[2]
    listed = run(["keys", "list"], env).stdout.splitlines()
    width = len(key_id)
    assert listed == [
        f"{'ID'.ljust(width)}  NAME          STATE    RATE LIMIT  ASSETS  PERMISSIONS",
        f"{key_id}  listing site  enabled  default     known   -",
    ]
    with MongoClient(db_server.uri) as client:
        client.drop_database(database)


def test_serve_help_names_defaults_and_settings():
    shown = run(["serve", "--help"], dict(os.environ)).stdout
    for text in (
        "(default 127.0.0.1;",
        "FLOORGATE_HOST",
        "(default 8443; FLOORGATE_PORT)",
        "FLOORGATE_TLS_CERT",
        "(default 1)",
        "FLOORGATE_PUBLIC_URL",
    ):
        assert text in " ".join(shown.split()), text


def demo_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FLOORGATE_")}
    env["FLOORGATE_DATA_DIR"] = str(tmp_path / "data")
    return env


def test_demo_on_a_taken_port_says_so_before_anything_starts(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run(["demo", "--port", str(port)], demo_env(tmp_path), timeout=60)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"floorgate demo: port {port} on 127.0.0.1 is in use (another floorgate, or another "
        "server). Choose another port: FLOORGATE_PORT=8444 make run, or floorgate demo "
        "--port 8444.\n"
    )
    assert not (tmp_path / "data").exists()  # no database, no certificates were made


def test_the_ready_line_comes_once_the_server_answers(tmp_path):
    port = free_port()
    process = subprocess.Popen(
        [FLOORGATE, "demo", "--port", str(port)],
        env=demo_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(
        target=lambda: [lines.put(line) for line in process.stdout], daemon=True
    ).start()
    try:
        seen = []
        while not seen or not seen[-1].startswith("floorgate is ready. Try:"):
            seen.append(lines.get(timeout=120))
        # The very moment the line is out, the server answers over TLS.
        tls = ssl.create_default_context(cafile=str(tmp_path / "data" / "tls" / "ca.pem"))
        response = httpx.get(f"https://localhost:{port}/healthz", verify=tls, timeout=5)
        assert response.status_code == 200
        assert f"Starting floorgate on https://localhost:{port} ...\n" in seen
        curl = lines.get(timeout=5)
        assert curl.startswith("  curl --cacert ")
        assert curl.endswith(f"localhost:{port}/v1/assets\n")
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=60)


class Demo:
    """`floorgate demo --port PORT` on a data folder, its output read line by line."""

    def __init__(self, tmp_path: Path, port: int) -> None:
        self.port = port
        self.process = subprocess.Popen(
            [FLOORGATE, "demo", "--port", str(port)],
            env=demo_env(tmp_path),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(
            target=lambda: [self.lines.put(x) for x in self.process.stdout], daemon=True
        ).start()

    def wait_ready(self) -> None:
        line = ""
        while not line.startswith("floorgate is ready. Try:"):
            line = self.lines.get(timeout=120)

    def stop(self) -> int:
        self.process.send_signal(signal.SIGINT)
        return self.process.wait(timeout=60)


def runs(pid: int) -> bool:
    """Alive and not a zombie (this sandbox's init does not reap orphans)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_two_servers_share_the_database_and_the_last_one_stops_it(tmp_path, loaded):
    """The issue's case: `make run`, then `FLOORGATE_PORT=... make run` in the same
    checkout; stopping the first must leave the second answering. (On a copy of a folder
    the demo was loaded into: a second `make run`'s; the load is tested above.)"""
    copy_of_loaded(loaded, tmp_path)
    data = tmp_path / "data"
    first, second = Demo(tmp_path, free_port()), None
    try:
        first.wait_ready()
        database = json.loads((data / "secantusd.pid").read_text())["pid"]
        second = Demo(tmp_path, free_port())
        second.wait_ready()
        key = (data / "demo-key").read_text().strip()
        tls = ssl.create_default_context(cafile=str(data / "tls" / "ca.pem"))
        assert first.stop() == 0
        assert runs(database)  # the database child still serves
        answer = httpx.get(
            f"https://localhost:{second.port}/v1/assets",
            verify=tls,
            headers={"API-Key": key},
            timeout=10,
        )
        assert answer.status_code == 200, answer.text
        assert [asset["id"] for asset in answer.json()["data"]] == ["harbor-view"]
        assert second.stop() == 0
        second = None
        assert not runs(database)  # the last one stopped it
        assert not (data / "db.uri").exists()
        assert list((data / "db.users").iterdir()) == []
    finally:
        for demo in (first, second):
            if demo is not None and demo.process.poll() is None:
                demo.process.kill()


def test_demo_reset_loads_the_demo_anew_with_a_new_key(tmp_path, loaded):
    """On a copy of a folder the demo was loaded into (`loaded`)."""
    copy_of_loaded(loaded, tmp_path)
    env = demo_env(tmp_path)
    data = tmp_path / "data"
    old_key = (data / "demo-key").read_text().strip()
    made = run(["keys", "create", "--name", "extra", "--all-assets"], env)
    assert made.returncode == 0, made.stderr
    reset = run(["demo", "--no-serve", "--reset"], env)
    assert reset.returncode == 0, reset.stderr
    assert "Dropped the database 'floorgate'." in reset.stdout
    assert "units: 100 inserted, 0 updated" in reset.stdout  # loaded, not "has data already"
    new_key = (data / "demo-key").read_text().strip()
    assert new_key != old_key and f'-H "API-Key: {new_key}"' in reset.stdout
    listed = run(["keys", "list"], env).stdout.splitlines()
    assert [row.split()[1] for row in listed[1:]] == ["demo"]  # the other key went too
