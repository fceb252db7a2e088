"""Operator errors are one line on stderr and an exit code, never a traceback: the real
`floorgate` command, run as a process."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from pymongo import MongoClient

from rest.ops.tls import LocalCertificates, ensure_local_certificates
from tests.servers import FLOORGATE, free_port

pytestmark = pytest.mark.e2e

QUICK = 10.0  # seconds: an operator error is reported at once, not after retries


def clean_env(data_dir: Path, **extra: str) -> dict[str, str]:
    """The environment without any FLOORGATE_* setting of the developer's shell."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("FLOORGATE_")}
    return {**env, "FLOORGATE_DATA_DIR": str(data_dir), **extra}


def run(args: list[str], env: dict[str, str]) -> tuple[subprocess.CompletedProcess, float]:
    started = time.monotonic()
    result = subprocess.run(
        [FLOORGATE, *args],
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    return result, time.monotonic() - started


def assert_one_line(result: subprocess.CompletedProcess, elapsed: float, code: int) -> str:
    """Exit `code`, quickly, with exactly one line on stderr and no traceback; that line."""
    assert "Traceback" not in result.stderr + result.stdout
    assert result.returncode == code, result.stderr
    assert result.stderr.endswith("\n") and result.stderr.count("\n") == 1, result.stderr
    assert elapsed < QUICK
    return result.stderr.rstrip("\n")


# -- floorgate serve: the certificate and key are checked before anything starts ---------


@pytest.fixture(scope="module")
def certs(tmp_path_factory) -> LocalCertificates:
    return ensure_local_certificates(tmp_path_factory.mktemp("certs"))


@pytest.fixture(scope="module")
def other_certs(tmp_path_factory) -> LocalCertificates:
    return ensure_local_certificates(tmp_path_factory.mktemp("other-certs"))


def serve_args(cert: Path, key: Path, *more: str) -> list[str]:
    return ["serve", "--cert", str(cert), "--key", str(key), "--port", str(free_port()), *more]


@pytest.mark.parametrize("workers", [[], ["--workers", "2"]], ids=["one-worker", "two-workers"])
def test_serve_with_a_missing_certificate_fails_at_start(tmp_path, certs, workers):
    data_dir = tmp_path / "data"
    result, elapsed = run(
        serve_args(tmp_path / "missing.pem", certs.key, *workers), clean_env(data_dir)
    )
    line = assert_one_line(result, elapsed, 2)
    assert line == (
        f"floorgate serve: cannot load the TLS certificate {tmp_path / 'missing.pem'}"
        ": No such file or directory"
    )
    assert result.stdout == ""
    assert not data_dir.exists()  # the embedded database was not started


def _garbage(path: Path) -> Path:
    path.write_text("this is not PEM\n")
    return path


def _encrypted_key(certs: LocalCertificates, path: Path) -> Path:
    key = serialization.load_pem_private_key(certs.key.read_bytes(), password=None)
    path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.BestAvailableEncryption(b"secret"),
        )
    )
    return path


@pytest.mark.parametrize(
    "case",
    [
        "missing-key",
        "directory-cert",
        "garbage-cert",
        "garbage-key",
        "key-of-another-cert",
        "encrypted-key",
    ],
)
def test_serve_with_unusable_tls_files_says_why_in_one_line(tmp_path, certs, other_certs, case):
    cert, key = certs.cert, certs.key
    if case == "missing-key":
        key = tmp_path / "missing-key.pem"
        expected = f"cannot load the TLS private key {key}: No such file or directory"
    elif case == "directory-cert":
        cert = tmp_path
        expected = f"cannot load the TLS certificate {cert}: Is a directory"
    elif case == "garbage-cert":
        cert = _garbage(tmp_path / "cert.pem")
        expected = f"cannot load the TLS certificate {cert}: not a PEM certificate"
    elif case == "garbage-key":
        key = _garbage(tmp_path / "key.pem")
        expected = f"cannot load the TLS private key {key}: not a PEM private key"
    elif case == "key-of-another-cert":
        key = other_certs.key
        expected = f"the TLS private key {key} does not match the certificate {cert}"
    else:  # an encrypted key fails; it must not prompt for a pass phrase (stdin is empty)
        key = _encrypted_key(certs, tmp_path / "encrypted-key.pem")
        expected = (
            f"cannot load the TLS private key {key}: it is encrypted; give an unencrypted key"
        )
    data_dir = tmp_path / "data"
    result, elapsed = run(serve_args(cert, key), clean_env(data_dir))
    assert assert_one_line(result, elapsed, 2) == f"floorgate serve: {expected}"
    assert not data_dir.exists()


# -- the database is unreachable ---------------------------------------------------------


@pytest.fixture
def unreachable(tmp_path) -> tuple[dict[str, str], int]:
    """An environment whose database is a closed loopback port."""
    port = free_port()
    return clean_env(
        tmp_path, FLOORGATE_MONGODB_URI=f"mongodb://127.0.0.1:{port}", FLOORGATE_DB_TIMEOUT_MS="500"
    ), port


def write_dataset(folder: Path, units: int = 1, name: str = "1") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    data = {
        "assets": [{"id": "err-asset", "market": "multifamily", "name": "CLI errors"}],
        "floors": [{"id": "err-f1", "asset_id": "err-asset", "name": "1", "sort": 1}],
        "units": [
            {
                "id": f"err-u{i}",
                "asset_id": "err-asset",
                "floor_id": "err-f1",
                "name": f"{name} {i}",
            }
            for i in range(units)
        ],
    }
    path = folder / "dataset.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    "args",
    [
        ["import", "DATASET"],
        ["keys", "create", "--name", "k", "--all-assets"],
        ["keys", "list"],
        ["keys", "disable", "some-key-id"],
    ],
    ids=["import", "keys-create", "keys-list", "keys-disable"],
)
def test_an_unreachable_database_is_one_line(tmp_path, unreachable, args):
    env, port = unreachable
    args = [str(write_dataset(tmp_path / "dataset")) if a == "DATASET" else a for a in args]
    result, elapsed = run(args, env)
    line = assert_one_line(result, elapsed, 1)
    command = " ".join(args[:2]) if args[0] == "keys" else args[0]
    assert line.startswith(f"floorgate {command}: the database is unreachable: 127.0.0.1:{port}: ")
    assert "Connect call failed" in line or "Connection refused" in line
    assert "Topology" not in line  # pymongo's long description is cut
    assert result.stdout == ""


def test_serve_with_an_unreachable_database_is_one_line(tmp_path, certs, unreachable):
    env, port = unreachable
    result, elapsed = run(serve_args(certs.cert, certs.key), env)
    line = assert_one_line(result, elapsed, 1)
    assert line.startswith(f"floorgate serve: the database is unreachable: 127.0.0.1:{port}: ")


class CuttingProxy:
    """A loopback TCP proxy to the database that, when a client sends `marker`, drops
    every connection and stops listening: the database goes away in the middle of work."""

    def __init__(self, target_port: int, marker: bytes) -> None:
        self.target_port = target_port
        self.marker = marker
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.sockets: list[socket.socket] = []
        self.lock = threading.Lock()
        self.cut = threading.Event()
        self.threads = [threading.Thread(target=self.accept, daemon=True)]
        self.threads[0].start()

    def accept(self) -> None:
        while not self.cut.is_set():
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target_port))
            with self.lock:
                self.sockets += [client, upstream]
            for source, target, watch in ((client, upstream, True), (upstream, client, False)):
                thread = threading.Thread(
                    target=self.pump, args=(source, target, watch), daemon=True
                )
                thread.start()
                self.threads.append(thread)

    def pump(self, source: socket.socket, target: socket.socket, watch: bool) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                if watch and self.marker in data:
                    self.close()
                    return
                target.sendall(data)

    def close(self) -> None:
        self.cut.set()
        self.listener.close()
        with self.lock:
            for sock in self.sockets:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()


@contextlib.contextmanager
def cutting_proxy(target_port: int, marker: bytes) -> Iterator[CuttingProxy]:
    proxy = CuttingProxy(target_port, marker)
    try:
        yield proxy
    finally:
        proxy.close()
        for thread in proxy.threads:
            thread.join(timeout=5)


def test_a_database_that_goes_away_during_an_import_is_one_line(tmp_path, db_server):
    """The proxy cuts when the units' names (only ever sent in the write) pass through."""
    marker = "gone-away-marker"
    path = write_dataset(tmp_path / "dataset", units=200, name=marker)
    with cutting_proxy(db_server.port, marker.encode()) as proxy:
        env = clean_env(
            tmp_path,
            FLOORGATE_DB_TIMEOUT_MS="500",
            FLOORGATE_MONGODB_URI=f"mongodb://127.0.0.1:{proxy.port}/?directConnection=true",
            FLOORGATE_DATABASE="floorgate_cli_gone",
        )
        result, elapsed = run(["import", str(path)], env)
        assert proxy.cut.is_set()  # it did go away during the write
    line = assert_one_line(result, elapsed, 1)
    assert line.startswith(f"floorgate import: the database is unreachable: 127.0.0.1:{proxy.port}")
    with MongoClient(db_server.uri) as client:
        client.drop_database("floorgate_cli_gone")


def test_a_valid_import_still_works(tmp_path, db_server):
    env = clean_env(
        tmp_path, FLOORGATE_MONGODB_URI=db_server.uri, FLOORGATE_DATABASE="floorgate_cli_errors_ok"
    )
    path = write_dataset(tmp_path / "dataset", units=2)
    result, elapsed = run(["import", str(path)], env)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert result.stdout.splitlines()[0] == f"Imported {path}:"
    assert "  units: 2 inserted, 0 updated" in result.stdout.splitlines()
    assert elapsed < QUICK
    with MongoClient(db_server.uri) as client:
        units = client["floorgate_cli_errors_ok"]["units"]
        names = sorted(unit["name"] for unit in units.find({"asset_id": "err-asset"}))
        client.drop_database("floorgate_cli_errors_ok")
    assert names == ["1 0", "1 1"]


def test_every_command_and_option_has_help():
    """`floorgate ... --help` explains everything (issue 17): no argument without help."""
    import argparse

    from rest.cli.main import parser

    missing = []

    def walk(command: argparse.ArgumentParser, name: str) -> None:
        for action in command._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub, subcommand in action.choices.items():
                    walk(subcommand, f"{name} {sub}")
            elif not isinstance(action, argparse._HelpAction) and not action.help:
                missing.append(f"{name} {action.dest}")

    walk(parser(), "floorgate")
    assert missing == []


def test_a_switch_cancelled_while_its_import_waits_is_one_line(tmp_path, db_server):
    """A staged import (the limit lowered) whose announced switch another process cancels
    while the import waits (as `floorgate gc` or a serving process does once the import's
    lease looks abandoned) ends with one line, and nothing of it is written."""
    database = "floorgate_cli_cancelled"
    env = clean_env(
        tmp_path,
        FLOORGATE_MONGODB_URI=db_server.uri,
        FLOORGATE_DATABASE=database,
        FLOORGATE_IMPORT_MAX_DOCUMENTS="3",  # of 7: staged
        FLOORGATE_REQUEST_TIMEOUT_SECONDS="1",  # the switch waits it, and two polls (4 s)
    )
    path = write_dataset(tmp_path / "dataset", units=5)
    process = subprocess.Popen(
        [FLOORGATE, "import", str(path)],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    with MongoClient(db_server.uri) as client:
        db = client[database]
        deadline = time.monotonic() + 60
        while (switch := db["switches"].find_one({"state": "announced"})) is None:
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.02)
        db["switches"].delete_one({"_id": switch["_id"], "token": switch["token"]})
        db["import_batches"].delete_many({"token": switch["token"]})
        stdout, stderr = process.communicate(timeout=60)
        units = db["units"].count_documents({})
        client.drop_database(database)
    result = subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
    line = assert_one_line(result, 0.0, 1)  # (it waited for its switch on purpose)
    assert line == (
        "Nothing was imported: the switch of asset 'err-asset' was cancelled by another "
        "process while it waited (this import lost its lease); nothing was changed: import "
        "it again"
    )
    assert result.stdout == ""
    assert units == 0
