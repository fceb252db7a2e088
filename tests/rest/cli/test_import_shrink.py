"""Issue 45, point 6, for the generic command: `floorgate import` of a dataset whose
drawing lost most of its units is refused in one line with the figures, writes nothing,
and imports with `--allow-shrink` (storage/imports/shrink.py). The real command, run as
a process."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from pymongo import MongoClient

from storage.embedded.server import EmbeddedServer
from tests.rest.cli.test_cli_errors import clean_env, run
from tests.storage.imdf.test_unreadable_venue import stored
from tests.storage.imports.test_shrink import UNITS, dataset

pytestmark = [pytest.mark.e2e, pytest.mark.security]


def test_floorgate_import_refuses_to_shrink_a_map_unless_asked(
    tmp_path: Path, db_server: EmbeddedServer
) -> None:
    database = f"floorgate_cli_shrink_{uuid.uuid4().hex[:8]}"
    env = clean_env(tmp_path, FLOORGATE_MONGODB_URI=db_server.uri, FLOORGATE_DATABASE=database)
    try:
        first, _ = run(["import", str(dataset(tmp_path / "first", UNITS, UNITS))], env)
        assert first.returncode == 0, first.stderr
        before = stored(db_server.uri, database)
        shrunk = dataset(tmp_path / "shrunk", UNITS[:2], UNITS)
        refused, _ = run(["import", str(shrunk)], env)
        assert (refused.returncode, refused.stdout, refused.stderr) == (
            1,
            "",
            "Nothing was imported: it would leave 1 stored map(s) with fewer than 50% of "
            "their units: 'sc-drawn' from 6 units to 2. Give --allow-shrink to import it "
            "anyway\n",
        )
        assert stored(db_server.uri, database) == before
        allowed, _ = run(["import", str(shrunk), "--allow-shrink"], env)
        assert allowed.returncode == 0, allowed.stderr
        with MongoClient(db_server.uri) as client:
            drawn = client[database]["unit_maps"].find_one({"_id": "sc-drawn"})
        assert drawn is not None and drawn["unit_ids"] == UNITS[:2]
    finally:
        with MongoClient(db_server.uri) as client:
            client.drop_database(database)
