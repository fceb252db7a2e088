"""The newcomer's path: `floorgate demo` on an empty data folder (what `make run` does,
without serving), twice; and `floorgate import`, all or nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pymongo import MongoClient

pytestmark = pytest.mark.e2e
FLOORGATE = str(Path(sys.executable).with_name("floorgate"))


def run(args: list[str], env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([FLOORGATE, *args], env=env, capture_output=True, text=True,
                          timeout=timeout)


def test_demo_on_empty_folder_then_again(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("FLOORGATE_")}
    env.update(FLOORGATE_DATA_DIR=str(tmp_path / "data"), FLOORGATE_PORT="9443")
    first = run(["demo", "--no-serve"], env)
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
    env = {**os.environ, "FLOORGATE_MONGODB_URI": db_server.uri,
           "FLOORGATE_DATABASE": "floorgate_cli_import", "FLOORGATE_DATA_DIR": str(tmp_path)}
    bad = write_dataset(tmp_path / "bad", [
        {"id": "u1", "asset_id": "cli-asset", "floor_id": "cli-f1", "name": "1"},
        {"id": "u2", "asset_id": "cli-asset", "floor_id": "nope", "name": "2"},
        {"id": "x" * 256, "asset_id": "cli-asset", "floor_id": "cli-f1", "name": "3"},
    ])  # fmt: skip
    refused = run(["import", str(bad)], env)
    assert refused.returncode == 1
    assert "Nothing was imported: 2 problem(s)." in refused.stderr
    assert "$.units[1].floor_id" in refused.stderr
    assert "$.units[2].id" in refused.stderr
    with MongoClient(db_server.uri) as client:
        assert client["floorgate_cli_import"]["assets"].count_documents({}) == 0
        assert client["floorgate_cli_import"]["units"].count_documents({}) == 0

    good = write_dataset(tmp_path / "good", [
        {"id": "u1", "asset_id": "cli-asset", "floor_id": "cli-f1", "name": "1"},
    ])  # fmt: skip
    imported = run(["import", str(good)], env)
    assert imported.returncode == 0, imported.stderr
    assert "units: 1 inserted, 0 updated" in imported.stdout
    with MongoClient(db_server.uri) as client:
        unit = client["floorgate_cli_import"]["units"].find_one({"_id": "u1"})
        client.drop_database("floorgate_cli_import")
    assert unit["floor_id"] == "cli-f1"
