"""`floorgate import-imdf` on hostile input, in the single-document forms as in a
folder or zip: every bound refuses before the venue is built, with one line that names
it and quotes no more than a few dozen characters of the input; text from the input is
cut where it is shown or stored (a name of 1 MB); a refusal leaves the database as it
was."""

from __future__ import annotations

import os
import uuid
import zipfile
from pathlib import Path
from typing import Any

import pytest
from pymongo import MongoClient

import storage.imdf.dataset
import storage.imdf.files
from parsing.imdf.read import MAX_LABEL_CHARS, MAX_NESTING
from parsing.imdf.venue import ImdfOptions
from rest.cli.main import PROBLEM_CHARS, parser
from storage.imdf.dataset import dataset_from_path
from tests.storage.imdf.test_input_forms import venue
from tests.storage.imdf.test_unreadable_venue import in_process
from tests.storage.test_imdf_import import run_cli
from tests.venues.old_market import collections, dumps, feature_collection, manifest

MIB = 1024 * 1024
MEGA = "N" * 1_000_000  # a name, key or id of 1 MB
CUT = "N" * 77 + "..."  # as a message quotes it


def nested(depth: int) -> bytes:
    """Arrays nested `depth` levels (within orjson's own limit of 1,024)."""
    return b"[" * depth + b"1" + b"]" * depth


def with_deep_level_id(depth: int) -> bytes:
    """The venue as one document whose first unit's level_id is nested arrays: the
    document is `depth` + 5 levels deep (document, collection, features, feature,
    properties)."""
    document = collections(venue())
    document["unit"]["features"][0]["properties"]["level_id"] = "@deep@"
    return dumps(document).replace(b'"@deep@"', nested(depth))


def refused(path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """The refusal of `floorgate import-imdf path`, in-process: exit 1, nothing on
    stdout, one line on stderr (returned without its prefix and newline)."""
    args = parser().parse_args(["import-imdf", str(path)])
    assert args.handler(args) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith("Nothing was imported: ")
    return err.removeprefix("Nothing was imported: ").removesuffix("\n")


def hostile(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    """name -> (the input, the refusal after `Nothing was imported: `), each built so
    that it is refused by the bound it names, not by anything before it."""
    found: dict[str, tuple[Path, str]] = {}

    def add(name: str, data: bytes, message: str, where: Path | None = None) -> None:
        path = where or tmp_path / name
        if where is None:
            path.write_bytes(data)
        found[name] = (path, message.format(path=path))

    # Past the size bound (1 MiB in these tests, 512 MiB in use): a single document,
    # and a zip bomb whose only member is one document (a few KiB packed).
    document = dumps({**collections(venue()), "manifest": manifest("en")})
    padded = document + b" " * (MIB + 1 - len(document))
    add("big.json", padded, "{path}: 1048577 bytes of JSON, at most 1048576")
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("export/venue.json", document + b" " * (2 * MIB))
    assert bomb.stat().st_size < 30_000
    add(
        "bomb.zip", b"", f"{{path}}: {len(document) + 2 * MIB} bytes of JSON, at most 1048576", bomb
    )
    # Nested past the bound (64 levels), and past orjson's own (1,024).
    deep = (
        f"{{path}}: arrays and objects nested deeper than {MAX_NESTING} levels, "
        "far more than an IMDF venue needs"
    )
    add("deep.json", with_deep_level_id(MAX_NESTING - 4), deep)
    add(
        "deeper.json",
        nested(2000),
        "{path}: not JSON (depth limit exceeded: line 1 column 1026 (char 1025))",
    )
    # Text of 1 MB where a message quotes it: cut to 80 characters.
    add(
        "two.json",
        dumps({MEGA: {"unit": []}, "b": {"level": []}}),
        f"{{path}}: two wrapper keys hold IMDF collections ('{CUT}' and 'b'); "
        "give a document with one venue",
    )
    add(
        "keys.json",
        dumps({MEGA: 1}),
        "{path}: JSON, but not an IMDF venue: expected a FeatureCollection whose features "
        "carry feature_type, or an object whose keys are IMDF collections (venue, level, "
        f"unit, opening, ...); found an object with keys '{CUT}'",
    )
    headless = collections(venue())
    headless["unit"]["features"][0] |= {"id": MEGA, "geometry": None}
    add(
        "id.json",
        dumps(headless),
        f"{{path}}: 1 unit feature(s) without a geometry ({CUT}): IMDF gives every unit one",
    )
    # A wrapper holding no object of collections: an array of features, or collections
    # that are neither FeatureCollections nor arrays.
    add(
        "wrapped-array.json",
        dumps({"data": feature_collection(venue())["features"]}),
        "{path}: JSON, but not an IMDF venue: expected a FeatureCollection whose features "
        "carry feature_type, or an object whose keys are IMDF collections (venue, level, "
        "unit, opening, ...); found an object with keys 'data'",
    )
    add(
        "wrapped-scalars.json",
        dumps({"data": {"fixture": 5, "kiosk": "x", "section": None}}),
        "{path}: one JSON document with IMDF collections as keys, under the wrapper key "
        "'data', but not one feature in it could be read",
    )
    # A collection the import needs that holds no features: refused, not skipped (issue
    # 45: skipped, it imported the venue without its units).
    add(
        "wrapped-unit-scalar.json",
        dumps({"data": {**collections(venue()), "unit": 5}}),
        "{path}#unit: an int, neither a FeatureCollection nor an array of features",
    )
    return found


def test_each_bound_is_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(storage.imdf.files, "MAX_ARCHIVE_BYTES", MIB)
    for name, (path, message) in hostile(tmp_path).items():
        assert refused(path, capsys) == message, name


def test_a_document_is_read_no_further_than_the_bound(tmp_path, monkeypatch, capsys):
    """The size checked first may be stale (the file grows, or is a stream): the read
    itself stops past the bound."""
    monkeypatch.setattr(storage.imdf.files, "MAX_ARCHIVE_BYTES", MIB)
    monkeypatch.setattr(storage.imdf.files, "_check_bounds", lambda *args: None)
    path, _ = hostile(tmp_path)["big.json"]
    assert refused(path, capsys) == f"{path}: grew past 1048576 bytes of JSON while read"


def test_nesting_up_to_the_bound_is_read(tmp_path):
    """A document exactly MAX_NESTING levels deep reads (the unit's odd level_id is
    reported as an unknown level); one level more is refused (above)."""
    path = tmp_path / "deep.json"
    path.write_bytes(with_deep_level_id(MAX_NESTING - 5))
    dataset = dataset_from_path(path, ImdfOptions())
    unit_id = venue().features["unit"][0]["id"]
    level_id = "[" * (MAX_NESTING - 5) + "1" + "]" * (MAX_NESTING - 5)
    assert dataset.report.examples["unit on an unknown level, skipped"] == [
        f"{unit_id}: {level_id}"
    ]


def test_a_deep_file_of_a_folder_is_skipped_and_reported(tmp_path):
    """In a folder or zip a file nested past the bound is skipped, like a file that is
    not JSON: the rest of the venue is read."""
    document = collections(venue())
    folder = tmp_path / "venue"
    folder.mkdir()
    for kind, collection in document.items():
        (folder / f"{kind}.geojson").write_bytes(dumps(collection))
    (folder / "fixture.geojson").write_bytes(nested(100))
    dataset = dataset_from_path(folder, ImdfOptions())
    assert dataset.report.examples[f"file nested deeper than {MAX_NESTING} levels, skipped"] == [
        "fixture.geojson"
    ]
    assert len(dataset.data["units"]) == 14


def test_a_wrapper_key_of_1_mb_is_cut_where_the_form_is_named(tmp_path, capsys):
    path = tmp_path / "wrapped.json"
    path.write_bytes(dumps({MEGA: collections(venue())}))
    form = f"one JSON document with IMDF collections as keys, under the wrapper key '{CUT}'"
    assert dataset_from_path(path, ImdfOptions()).form == form
    path.write_bytes(dumps({MEGA: {"unit": []}}))
    assert refused(path, capsys) == f"{path}: {form}, but not one feature in it could be read"
    zipped = tmp_path / "long-name.zip"  # a member's name: up to 64 KiB
    with zipfile.ZipFile(zipped, "w") as archive:
        archive.writestr(MEGA[:60_000] + ".json", b"{")
    assert refused(zipped, capsys).startswith(f"{zipped}: {CUT}: not JSON (")


def test_a_reader_fault_is_one_bounded_line(tmp_path, monkeypatch, capsys):
    def fault(path: Path, options: ImdfOptions) -> Any:
        raise RuntimeError("first line\n" + MEGA)

    monkeypatch.setattr(storage.imdf.dataset, "dataset_from_path", fault)
    line = refused(tmp_path / "any.json", capsys)
    assert line == f"RuntimeError: first line {MEGA}"[: PROBLEM_CHARS - 3] + "..."


def test_hostile_input_leaves_the_database_as_it_was_and_a_long_name_is_cut(
    tmp_path, db_server, monkeypatch, capsys
):
    database = f"floorgate_cli_imdf_bounds_{uuid.uuid4().hex[:8]}"  # parallel runs apart
    env = {
        **os.environ,
        "FLOORGATE_MONGODB_URI": db_server.uri,
        "FLOORGATE_DATABASE": database,
        "FLOORGATE_DATA_DIR": str(tmp_path),
    }
    document = collections(venue())
    document["unit"]["features"][0]["properties"]["name"] = {"en": MEGA}
    document["unit"]["features"][7]["properties"]["category"] = MEGA  # unnamed: its label
    named = tmp_path / "named.json"
    named.write_bytes(dumps(document))
    code, out, err = in_process(["import-imdf", str(named)], env, capsys)  # main, here
    assert code == 0, err
    assert max(len(line) for line in out.splitlines()) < 400
    for what in ("label", "category"):
        assert f"  {what} longer than {MAX_LABEL_CHARS} characters, cut: 1 (e.g. NNN" in out
    with MongoClient(db_server.uri) as client:
        before = state(client[database])
    label = "N" + "n" * (MAX_LABEL_CHARS - 1)  # the category, as category_label writes it
    assert {"N" * MAX_LABEL_CHARS, f"{label} 1"} <= set(before["names"])
    monkeypatch.setattr(storage.imdf.files, "MAX_ARCHIVE_BYTES", MIB)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    inputs = hostile(tmp_path)
    for name, (path, message) in inputs.items():
        assert refused(path, capsys) == message, name
    deep = run_cli(["import-imdf", str(tmp_path / "deep.json")], env)  # a process of its own
    assert deep.returncode == 1 and deep.stdout == ""
    assert deep.stderr == f"Nothing was imported: {inputs['deep.json'][1]}\n"
    with MongoClient(db_server.uri) as client:
        after = state(client[database])
    assert after == before
    # A venue larger than one transaction may take is staged and switched in (the
    # switch's wait shortened with the request budget), the same venue again.
    staged = {"FLOORGATE_IMPORT_MAX_DOCUMENTS": "10", "FLOORGATE_REQUEST_TIMEOUT_SECONDS": "0.1"}
    monkeypatch.undo()  # the bound of 512 MiB back: the venue's names weigh 2 MB
    code, _, err = in_process(["import-imdf", str(named)], {**env, **staged}, capsys)
    assert code == 0, err
    with MongoClient(db_server.uri) as client:
        again = state(client[database])
        client.drop_database(database)
    assert again["names"] == before["names"] and again["switches"] == again["import_batches"] == []


def state(database: Any) -> dict[str, Any]:
    """What a refusal must not change: every collection's documents (without files'
    chunks), and the units' names."""
    found: dict[str, Any] = {
        name: sorted(map(str, database[name].find({}, {"_id": 0})))
        for name in database.list_collection_names()
        if not name.endswith(".chunks")
    }
    found["names"] = sorted(u["name"] for u in database["units"].find({}, {"name": 1}))
    return found
