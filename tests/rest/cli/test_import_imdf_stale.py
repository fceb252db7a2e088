"""`floorgate import-imdf` again removes the places the venue no longer has and says how
many (docs/imdf.md, "Places and locations"); `--dry-run` says the same count and writes
nothing; `floorgate import` of a location keeps the general upsert rule. The real
commands, run as processes, on the test database."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import orjson
from pymongo import MongoClient

from storage.embedded.server import EmbeddedServer
from tests.rest.cli.test_cli_errors import clean_env, run
from tests.venues.food_hall import food_hall
from tests.venues.imdf_venues import zip_bytes

PREFIX = "food-hall"
GROUND = f"{PREFIX}-level-g"


def stored(uri: str, database: str) -> dict[str, dict[str, Any]]:
    """The stored locations by id, whole."""
    with MongoClient[dict[str, Any]](uri) as client:
        return {doc["_id"]: doc for doc in client[database]["locations"].find({})}


def test_the_second_import_removes_the_twin_and_the_dry_run_counts_it(
    tmp_path: Path, db_server: EmbeddedServer
) -> None:
    database = f"floorgate_cli_stale_{uuid.uuid4().hex[:8]}"
    hall = food_hall()
    twin = hall.features["Bakery"]
    archive = tmp_path / "food-hall.zip"
    archive.write_bytes(zip_bytes(hall.venue.files()))
    by_hand = tmp_path / "twin.json"
    by_hand.write_bytes(
        orjson.dumps(
            {
                "locations": [
                    {
                        "id": twin,
                        "asset_id": PREFIX,
                        "unit_map_id": GROUND,
                        "name": "Café",
                        "x": 300.0,
                        "y": 200.0,
                        "floors": [{"id": GROUND}],
                    }
                ]
            }
        )
    )
    env = clean_env(
        tmp_path,
        FLOORGATE_MONGODB_URI=db_server.uri,
        FLOORGATE_DATABASE=database,
        FLOORGATE_PORT="8556",
    )
    imdf = ["import-imdf", str(archive), "--id-prefix", PREFIX]
    try:
        first, _ = run(imdf, env)
        assert first.returncode == 0, first.stderr
        assert "  removed 0 locations the venue no longer has\n" in first.stdout
        venue = stored(db_server.uri, database)
        assert len(venue) == 38

        added, _ = run(["import", str(by_hand)], env)
        assert added.returncode == 0, added.stderr
        assert "locations: 1 inserted, 0 updated\n" in added.stdout  # nothing else deleted
        with_twin = stored(db_server.uri, database)
        assert sorted(with_twin) == sorted([*venue, twin])

        dry, _ = run([*imdf, "--dry-run"], env)
        assert dry.returncode == 0, dry.stderr
        assert dry.stdout.splitlines()[-2:] == [
            f"Dry run: {archive} would import without problems; nothing was written",
            "  it would remove 1 location the venue no longer has",
        ]
        assert stored(db_server.uri, database) == with_twin

        report = tmp_path / "report.json"
        second, _ = run([*imdf, "--report", str(report)], env)
        assert second.returncode == 0, second.stderr
        lines = second.stdout.splitlines()
        assert "  locations: 0 inserted, 38 updated, 1 deleted" in lines
        assert lines[-4:-1] == [
            "  removed 1 location the venue no longer has",
            f"View it: https://localhost:8556/viewer/maps/{PREFIX}-stack",
            "  (the stack map: every level of the venue on one map, routes between floors)",
        ]
        assert sorted(stored(db_server.uri, database)) == sorted(venue)
        outcome = orjson.loads(report.read_bytes())["outcome"]
        assert outcome["status"] == "imported"
        assert outcome["message"].endswith("; removed 1 location the venue no longer has")
    finally:
        with MongoClient[dict[str, Any]](db_server.uri) as client:
            client.drop_database(database)
