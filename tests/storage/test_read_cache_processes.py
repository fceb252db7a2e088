"""Issue 16, done-when: two `floorgate serve` processes on one database, each with its
read cache. A write through one, or through `floorgate import`, is visible in reads
from the other within WINDOW at p99, and no read ever returns data older than a write
acknowledged before the read began, plus WINDOW."""

from __future__ import annotations

import bisect
import json
import random
import ssl
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import httpx
import pytest
from pymongo import MongoClient

from resolvers.auth.permissions import ALL_PERMISSIONS
from tests.servers import FLOORGATE, cli_env, serve_tls

pytestmark = pytest.mark.e2e

WINDOW = 0.2  # seconds: the consistency window the issue asks for, at p99
ROUNDS = 1000
DATABASE = "floorgate_two_processes"
ASSET = "race-asset"
REFERENCE = "race-ref"
PUT = """mutation($input: AssetReferenceInput!) { putAssetReference(input: $input) { value } }"""
READ_PATH = f"/v1/assets/references?asset={ASSET}"


@dataclass
class Read:
    started: float
    value: int


def dataset(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "dataset.json"
    path.write_text(
        json.dumps(
            {
                "assets": [{"id": ASSET, "market": "multifamily", "name": name}],
                "floors": [{"id": "race-f1", "asset_id": ASSET, "name": "1", "sort": 1}],
            }
        )
    )
    return path


@pytest.fixture
def two_servers(tmp_path, db_server, settings) -> Iterator[tuple[httpx.Client, httpx.Client, str]]:
    """Servers A and B on their own database, a key with every permission."""
    own = replace(settings, database_name=DATABASE)
    env = cli_env(db_server, own, tmp_path)
    with MongoClient(db_server.uri) as client:
        client.drop_database(DATABASE)
    imported = subprocess.run(
        [FLOORGATE, "import", str(dataset(tmp_path / "d0", "v0"))],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert imported.returncode == 0, imported.stderr
    permissions = [arg for name in ALL_PERMISSIONS for arg in ("--permission", name)]
    created = subprocess.run(
        [FLOORGATE, "keys", "create", "--name", "race", "--all-assets", *permissions],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert created.returncode == 0, created.stderr
    key = created.stdout.split()[-1]
    quiet = {"FLOORGATE_RATE_LIMIT_PER_SECOND": "0", "FLOORGATE_ACCESS_LOG": "off"}
    with (
        serve_tls(tmp_path / "a", db_server, own, **quiet) as a,
        serve_tls(tmp_path / "b", db_server, own, **quiet) as b,
    ):
        headers = {"API-Key": key, "Experimental-Flags": "references"}
        clients = [
            httpx.Client(
                base_url=served.base,
                headers=headers,
                timeout=10,
                verify=ssl.create_default_context(cafile=str(served.certs.ca_cert)),
            )
            for served in (a, b)
        ]
        try:
            yield clients[0], clients[1], str(tmp_path)
        finally:
            for client in clients:
                client.close()
    with MongoClient(db_server.uri) as client:
        client.drop_database(DATABASE)


def put(client: httpx.Client, value: int) -> float:
    """Write `value` through the server; the time it was acknowledged."""
    variables = {"input": {"id": REFERENCE, "assetId": ASSET, "key": "race", "value": str(value)}}
    response = client.post("/graphql", json={"query": PUT, "variables": variables})
    acknowledged = time.monotonic()
    assert response.status_code == 200, response.text
    assert response.json() == {"data": {"putAssetReference": {"value": str(value)}}}
    return acknowledged


def read(client: httpx.Client, reads: list[Read]) -> int:
    started = time.monotonic()
    response = client.get(READ_PATH)
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    value = int(data[0]["value"]) if data else -1
    reads.append(Read(started, value))
    return value


def newest_before(acknowledged: list[float], moment: float) -> int:
    """The newest value acknowledged by `moment` (values 0, 1, 2... written in order)."""
    return bisect.bisect_right(acknowledged, moment) - 1


@pytest.mark.serial  # p99 of the consistency window, 200 ms: other tests' load would be measured
def test_a_write_through_one_is_read_from_the_other(two_servers):
    a, b, _ = two_servers
    rng = random.Random(16)
    acknowledged: list[float] = []
    reads: list[Read] = []
    delays: list[float] = []
    assert read(b, reads) == -1  # B has cached the empty list
    for value in range(ROUNDS):
        writer, reader = (a, b) if rng.random() < 0.8 else (b, a)  # mostly A to B
        acknowledged.append(put(writer, value))
        for _ in range(rng.randrange(3)):  # reads from the writer's side too
            read(writer, reads)
        time.sleep(rng.choice((0, 0, 0.001, 0.005)))
        while read(reader, reads) < value:
            assert time.monotonic() - acknowledged[value] < 5, f"value {value} never arrived"
        delays.append(reads[-1].started - acknowledged[value])
    owed = [(r.value, newest_before(acknowledged, r.started - WINDOW)) for r in reads]
    assert [(got, due) for got, due in owed if got < due] == []
    delays.sort()
    p99 = delays[int(len(delays) * 0.99) - 1]
    assert p99 <= WINDOW, f"p99 {p99 * 1000:.1f} ms, median {delays[len(delays) // 2] * 1000:.1f}"


def test_an_import_is_read_from_both(two_servers, db_server, settings):
    a, b, folder = two_servers
    env = cli_env(db_server, replace(settings, database_name=DATABASE), Path(folder))
    asset_path = f"/v1/assets/{ASSET}"
    for round_ in range(1, 4):
        for client in (a, b):  # both have the old name cached
            assert client.get(asset_path).json()["name"] == f"v{round_ - 1}"
        path = dataset(Path(folder) / f"d{round_}", f"v{round_}")
        imported = subprocess.run(
            [FLOORGATE, "import", str(path)], env=env, capture_output=True, text=True, timeout=120
        )
        assert imported.returncode == 0, imported.stderr
        done = time.monotonic()
        for client in (a, b):
            while (name := client.get(asset_path).json()["name"]) != f"v{round_}":
                assert name == f"v{round_ - 1}"
                assert time.monotonic() - done < WINDOW, "the import is not seen in time"
