"""Issue 45, point 6: one bad file of an IMDF folder no longer wipes the venue's maps.

`floorgate import-imdf` runs as a process of its own on Harbourside Exchange
(tests/venues/imdf_venues.py: four levels of 60-150 units, five maps with walk paths),
imported first. Then one file the import needs is replaced by one that cannot be read
(nested 100,000 deep; `NaN` literals, as Python's `json.dumps` writes them): the dry run
and the import refuse with one line naming the file, exit 1, and the database is the
same byte for byte. A readable venue that lost its units is refused unless
`--allow-shrink` is given (storage/imports/shrink.py). Each test failed before the fix:
the file was skipped with a remark, the dry run said "would import without problems",
and the import emptied every map.

The imports that write run as processes; the refusals and dry runs run the command's
`main` in this process (`in_process`), with the same settings: a process of its own spent
a second of CPU starting for each, and little else."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import bson
import orjson
import pytest
from pymongo import MongoClient

from parsing.imdf.read import MAX_NESTING
from parsing.imdf.venue import DRAWN_ONLY
from rest.cli.main import main
from tests.storage.test_imdf_import import run_cli
from tests.venues.imdf_venues import Exchange, exchange

pytestmark = [pytest.mark.security, pytest.mark.e2e]


@dataclass
class Imported:
    """Harbourside Exchange as a folder, imported into `database` by the CLI."""

    venue: Exchange
    folder: Path
    uri: str
    database: str
    env: dict[str, str]

    def copy(self, target: Path) -> Path:
        """The venue's folder copied to `target`, to change a file of it."""
        shutil.copytree(self.folder, target)
        return target


def imported_venue(db_server: Any, folder: Path, data_dir: Path) -> Imported:
    venue = exchange()
    folder.mkdir(parents=True)
    for name, data in venue.venue.files().items():
        (folder / name).write_bytes(data)
    database = f"floorgate_imdf_unreadable_{uuid.uuid4().hex[:8]}"
    env = {
        **os.environ,
        "FLOORGATE_MONGODB_URI": db_server.uri,
        "FLOORGATE_DATABASE": database,
        "FLOORGATE_DATA_DIR": str(data_dir),
    }
    done = run_cli(["import-imdf", str(folder)], env)
    assert done.returncode == 0, done.stderr
    return Imported(venue, folder, db_server.uri, database, env)


@pytest.fixture(scope="module")
def imported(db_server: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Imported]:
    base = tmp_path_factory.mktemp("exchange")
    found = imported_venue(db_server, base / "exchange", base / "data")
    yield found
    with MongoClient(found.uri) as client:
        client.drop_database(found.database)


def in_process(
    args: list[str], env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, str]:
    """`floorgate ARGS` run in this process, by the `main` the installed command runs,
    with the FLOORGATE_ settings of `env` alone: its exit code, stdout and stderr."""
    hang_up = signal.getsignal(signal.SIGHUP)  # main takes SIGHUP; given back after
    capsys.readouterr()
    with pytest.MonkeyPatch.context() as patch:
        for name in [name for name in os.environ if name.startswith("FLOORGATE_")]:
            patch.delenv(name)
        for name, value in env.items():
            if name.startswith("FLOORGATE_"):
                patch.setenv(name, value)
        try:
            code = main(args)
        finally:
            signal.signal(signal.SIGHUP, hang_up)
    out, err = capsys.readouterr()
    return code, out, err


def copied(found: Imported, data_dir: Path) -> Imported:
    """`found`'s database copied, document for document, into a new one (its empty
    collections too), for a test that imports into it: a copy of the import, where
    importing the venue again took seconds of CPU."""
    database = f"floorgate_imdf_unreadable_{uuid.uuid4().hex[:8]}"
    with MongoClient(found.uri) as client:
        source, target = client[found.database], client[database]
        for name in source.list_collection_names():
            target.create_collection(name)
            docs = list(source[name].find({}))
            if docs:
                target[name].insert_many(docs)
    env = {**found.env, "FLOORGATE_DATABASE": database, "FLOORGATE_DATA_DIR": str(data_dir)}
    return Imported(found.venue, found.folder, found.uri, database, env)


def stored(uri: str, database: str) -> dict[str, list[str]]:
    """Every document of every collection (files' chunks included), as the SHA-256 of its
    BSON, sorted: equal exactly when the database holds the same bytes."""
    with MongoClient(uri) as client:
        db = client[database]
        return {
            name: sorted(hashlib.sha256(bson.encode(doc)).hexdigest() for doc in db[name].find({}))
            for name in sorted(db.list_collection_names())
        }


def maps(uri: str, database: str) -> dict[str, tuple[int, bool, bool]]:
    """Each map: its units, whether it is tagged `pathfinding`, whether it has a walk
    graph."""
    with MongoClient(uri) as client:
        return {
            doc["_id"]: (
                len(doc["unit_ids"]),
                "pathfinding" in doc["tags"],
                doc.get("graph_file") is not None,
            )
            for doc in client[database]["unit_maps"].find({})
        }


def listed_units(venue: Exchange, level: str) -> list[str]:
    """The venue's units of `level` that become API units (their map's units)."""
    return [unit_id for unit_id, category, _ in venue.units[level] if category not in DRAWN_ONLY]


def expected_maps(venue: Exchange) -> dict[str, tuple[int, bool, bool]]:
    """What the import stores: each level's listed units, and all of them on the stack
    map, every map with walk paths."""
    levels = {venue.levels[key]: len(listed_units(venue, key)) for key in venue.units}
    stack = venue.venue.features["venue"][0]["id"]
    return {
        **{level: (count, True, True) for level, count in levels.items()},
        stack: (sum(levels.values()), True, True),
    }


def nan_literals(folder: Path, name: str) -> str:
    """Write `name` back with a NaN in its first feature's first coordinate, as Python's
    json.dumps writes a float('nan'); return orjson's message for it."""
    document = orjson.loads((folder / name).read_bytes())
    position = document["features"][0]["geometry"]["coordinates"]
    while isinstance(position[0], list):
        position = position[0]
    position[0] = float("nan")
    text = json.dumps(document)
    (folder / name).write_text(text)
    at = text.index("NaN")
    return f"unexpected character, expected a JSON value: line 1 column {at + 1} (char {at})"


def deep(folder: Path, name: str, depth: int) -> str:
    """Write `name` as arrays nested `depth` deep; return the reason it cannot be read."""
    (folder / name).write_bytes(b"[" * depth + b"]" * depth)
    if depth > 1024:  # orjson's own limit, met before ours
        return "not JSON (depth limit exceeded: line 1 column 1026 (char 1025))"
    return (
        f"arrays and objects nested deeper than {MAX_NESTING} levels, "
        "far more than an IMDF venue needs"
    )


BAD_FILES = {
    "unit nested 100,000 deep": ("unit.geojson", lambda f, n: deep(f, n, 100_000)),
    "unit with NaN": ("unit.geojson", lambda f, n: f"not JSON ({nan_literals(f, n)})"),
    "opening with NaN": ("opening.geojson", lambda f, n: f"not JSON ({nan_literals(f, n)})"),
    "level nested 100 deep": ("level.geojson", lambda f, n: deep(f, n, 100)),
    "manifest nested 100,000 deep": ("manifest.json", lambda f, n: deep(f, n, 100_000)),
}


@pytest.mark.parametrize("case", BAD_FILES)
def test_a_file_the_import_needs_that_cannot_be_read_refuses_it(
    imported: Imported, tmp_path: Path, case: str, capsys: pytest.CaptureFixture[str]
) -> None:
    name, spoil = BAD_FILES[case]
    before = stored(imported.uri, imported.database)
    assert maps(imported.uri, imported.database) == expected_maps(imported.venue)
    folder = imported.copy(tmp_path / "exchange")
    why = spoil(folder, name)
    line = f"Nothing was imported: {folder}: {name}: {why}\n"
    for dry_run in (["--dry-run"], []):
        done = in_process(["import-imdf", str(folder), *dry_run], imported.env, capsys)
        assert done == (1, "", line), dry_run
    assert stored(imported.uri, imported.database) == before
    assert maps(imported.uri, imported.database) == expected_maps(imported.venue)


def test_a_file_the_import_does_not_read_is_still_skipped(
    imported: Imported, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A fixture file (IMDF fixtures are drawn by nothing of the import) that cannot be
    read is skipped with its remark, and the venue imports as it was."""
    folder = imported.copy(tmp_path / "exchange")
    (folder / "fixture.geojson").write_bytes(b"[" * 100_000 + b"]" * 100_000)
    code, out, err = in_process(["import-imdf", str(folder), "--dry-run"], imported.env, capsys)
    assert code == 0, err
    assert "  file is not JSON, skipped: 1 (e.g. fixture.geojson: depth limit exceeded" in out
    assert f"Dry run: {folder} would import without problems; nothing was written" in out


def test_a_venue_that_lost_its_units_is_imported_only_when_asked(
    imported: Imported, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """On a copy of the module's import (`copied`): the last import here changes it."""
    mine = copied(imported, tmp_path / "data")
    try:
        venue, uri, database = mine.venue, mine.uri, mine.database
        before = stored(uri, database)
        expected = expected_maps(venue)
        assert maps(uri, database) == expected
        ground, stack = venue.levels["G"], venue.venue.features["venue"][0]["id"]
        order = [venue.levels[key] for key in venue.units]  # the maps' order: by ordinal
        # An empty unit file (readable: a FeatureCollection of none) would empty every map.
        empty = mine.copy(tmp_path / "empty")
        (empty / "unit.geojson").write_bytes(b'{"type": "FeatureCollection", "features": []}')
        figures = [f"'{m}' from {expected[m][0]} units to 0" for m in [*order, stack][:3]]
        code, _, err = in_process(["import-imdf", str(empty)], mine.env, capsys)
        assert code == 1
        assert err == (
            "Nothing was imported: it would leave 5 stored map(s) with fewer than 50% of "
            f"their units: {', '.join(figures)} and 2 more. "
            "Give --allow-shrink to import it anyway\n"
        )
        assert stored(uri, database) == before
        # The ground floor keeping 2 of its units: its map is named with its figures.
        kept = set(listed_units(venue, "G")[:2])
        gone = set(listed_units(venue, "G")) - kept
        fewer = mine.copy(tmp_path / "fewer")
        document = orjson.loads((fewer / "unit.geojson").read_bytes())
        document["features"] = [f for f in document["features"] if f["id"] not in gone]
        (fewer / "unit.geojson").write_bytes(orjson.dumps(document))
        line = (
            "Nothing was imported: it would leave 1 stored map(s) with fewer than 50% of "
            f"their units: '{ground}' from {expected[ground][0]} units to 2. "
            "Give --allow-shrink to import it anyway\n"
        )
        for dry_run in (["--dry-run"], []):
            code, _, err = in_process(["import-imdf", str(fewer), *dry_run], mine.env, capsys)
            assert (code, err) == (1, line), dry_run
        assert stored(uri, database) == before
        allowed = run_cli(["import-imdf", str(fewer), "--allow-shrink"], mine.env)
        assert allowed.returncode == 0, allowed.stderr
        stack_units = expected[stack][0] - len(gone)
        assert maps(uri, database) == {
            **expected,
            ground: (2, True, True),
            stack: (stack_units, True, True),
        }
    finally:
        with MongoClient(mine.uri) as client:
            client.drop_database(mine.database)
