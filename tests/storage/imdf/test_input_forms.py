"""Every input form of an IMDF venue imports the same venue (issue 35, point 1), the
report says which form it was read as and what was skipped, and bad input is one clear
line, never a traceback, with the stored data unchanged."""

from __future__ import annotations

import os
import uuid
import zipfile
from pathlib import Path
from typing import Any

import orjson
import pytest
from pymongo import MongoClient

from parsing.imdf.read import ImdfError
from parsing.imdf.venue import ImdfOptions
from rest.cli.main import parser
from storage.imdf.dataset import dataset_from_path
from tests.storage.test_imdf_import import run_cli
from tests.venues.imdf_venues import Venue
from tests.venues.old_market import collections, dumps, feature_collection, manifest
from tests.venues.old_market import old_market as market

ENGLISH_FIRST = {"en": "Old Market", "fr": "Vieux Marché"}  # the first language: en


def venue() -> Venue:
    return market(ENGLISH_FIRST)[0]


def write_forms(folder: Path) -> dict[str, Path]:
    """The same venue as a folder, a zip, and each single-document form."""
    v = venue()
    files = {f"{kind}.geojson": dumps(collections(v)[kind]) for kind in v.features}
    files["manifest.json"] = dumps(manifest("en"))
    (folder / "dir").mkdir()
    for name, data in files.items():
        (folder / "dir" / name).write_bytes(data)
    with zipfile.ZipFile(folder / "venue.zip", "w") as archive:
        for name, data in files.items():
            archive.writestr(f"IMDF/{name}", data)
    typed = feature_collection(v)
    typed["features"] += [
        {"type": "Feature", "id": "x1", "geometry": None, "properties": {}},
        {"type": "Feature", "id": "x2", "feature_type": "widget", "geometry": None},
    ]
    documents: dict[str, Any] = {
        "top.json": {**collections(v), "manifest": manifest("en")},
        "wrapped.json": {"data": collections(v, bare=True), "meta": {"source": "x"}},
        "typed.geojson": typed,
        "array.json": feature_collection(v)["features"],
    }
    for name, document in documents.items():
        (folder / name).write_bytes(dumps(document))
    return {"folder": folder / "dir", "zip": folder / "venue.zip"} | {
        name.split(".")[0]: folder / name for name in documents
    }


FORMS = {
    "folder": "folder of IMDF GeoJSON files",
    "zip": "zip of IMDF GeoJSON files",
    "top": "one JSON document with IMDF collections as keys, at the top",
    "wrapped": "one JSON document with IMDF collections as keys, under the wrapper key 'data'",
    "typed": "one FeatureCollection whose features carry feature_type",
    "array": "one array of features that carry feature_type",
}
SKIPPED = {
    "folder": {},
    "zip": {},
    "top": {},
    "wrapped": {"key beside the wrapper, skipped": 1},
    "typed": {
        "feature without feature_type, skipped": 1,
        "feature of another feature_type, skipped": 1,
    },
    "array": {},
}


def test_every_form_reads_as_the_same_venue(tmp_path):
    paths = write_forms(tmp_path)
    datasets = {form: dataset_from_path(path, ImdfOptions()) for form, path in paths.items()}
    for form, dataset in datasets.items():
        assert dataset.form == FORMS[form], form
        assert dataset.data == datasets["folder"].data, form
        assert dict(dataset.report.counts) == SKIPPED[form], form
    assert datasets["typed"].report.examples["feature of another feature_type, skipped"] == [
        "x2: widget"
    ]
    assert len(datasets["folder"].data["units"]) == 14


def test_a_folder_or_zip_of_one_document_reads_it(tmp_path):
    v = venue()
    folder = tmp_path / "export"
    folder.mkdir()
    (folder / "venue-export.json").write_bytes(dumps({"data": collections(v)}))
    dataset = dataset_from_path(folder, ImdfOptions())
    assert dataset.form == f"{FORMS['wrapped']}, the only JSON file of a folder"
    assert len(dataset.data["units"]) == 14
    with zipfile.ZipFile(tmp_path / "export.zip", "w") as archive:
        archive.writestr("manifest.json", dumps(manifest("en")))
        archive.writestr("export/old-market.json", dumps(feature_collection(v)))
    dataset = dataset_from_path(tmp_path / "export.zip", ImdfOptions())
    assert dataset.form == f"{FORMS['typed']}, the only JSON file of a zip"
    assert len(dataset.data["units"]) == 14


def bad_inputs() -> dict[str, tuple[bytes, str]]:
    """name -> (bytes, the message after the path)."""
    v = venue()
    unit = v.features["unit"][3]
    headless = collections(v)
    headless["unit"]["features"] = [
        {**f, "geometry": None} if f["id"] == unit["id"] else f
        for f in headless["unit"]["features"]
    ]
    untyped = {"type": "FeatureCollection", "features": [{"type": "Feature", "id": "a"}] * 2}
    return {
        "broken.json": (b'{"venue": [', "not JSON (unexpected end of data: line 1 column 12"),
        "other.json": (
            dumps({"hello": 1, "world": [1]}),
            "JSON, but not an IMDF venue: expected a FeatureCollection whose features "
            "carry feature_type, or an object whose keys are IMDF collections (venue, "
            "level, unit, opening, ...); found an object with keys 'hello', 'world'",
        ),
        "number.json": (b"42", "JSON, but a int, not an IMDF venue"),
        "two.json": (
            dumps({"a": {"unit": []}, "b": {"level": []}}),
            "two wrapper keys hold IMDF collections ('a' and 'b'); give a document with one venue",
        ),
        "empty.json": (
            dumps({"unit": [], "level": {"type": "FeatureCollection", "features": []}}),
            "one JSON document with IMDF collections as keys, at the top, but not one "
            "feature in it could be read",
        ),
        "untyped.json": (
            dumps(untyped),
            "a FeatureCollection, but none of its 2 features carries an IMDF feature_type "
            "(venue, level, unit, ...), as a venue in one FeatureCollection must",
        ),
        "untyped-array.json": (
            dumps(untyped["features"] * 2),
            "an array, but none of its 4 features carries an IMDF feature_type "
            "(venue, level, unit, ...), as a venue in one array must",
        ),
        "featureless.json": (
            dumps({"type": "FeatureCollection", "features": {"a": 1}}),
            "a FeatureCollection without a `features` array",
        ),
    } | {
        "headless.json": (
            dumps(headless),
            f"1 unit feature(s) without a geometry ({unit['id']}): IMDF gives every unit one",
        )
    }


def test_bad_input_is_one_clear_error(tmp_path):
    for name, (data, message) in bad_inputs().items():
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(ImdfError) as caught:
            dataset_from_path(path, ImdfOptions())
        assert str(caught.value).startswith(f"{path}: {message}"), name


def test_a_missing_geometry_is_refused_in_every_form(tmp_path):
    """The same refusal, naming the path handed in, for a folder and a zip too."""
    data, message = bad_inputs()["headless.json"]
    folder = tmp_path / "headless"
    folder.mkdir()
    with zipfile.ZipFile(tmp_path / "headless.zip", "w") as archive:
        for kind, collection in orjson.loads(data).items():
            (folder / f"{kind}.geojson").write_bytes(dumps(collection))
            archive.writestr(f"IMDF/{kind}.geojson", dumps(collection))
    for path in (folder, tmp_path / "headless.zip"):
        with pytest.raises(ImdfError) as caught:
            dataset_from_path(path, ImdfOptions())
        assert str(caught.value) == f"{path}: {message}"


def test_cli_imports_a_document_and_bad_input_changes_nothing(tmp_path, db_server, capsys):
    database = f"floorgate_cli_imdf_forms_{uuid.uuid4().hex[:8]}"  # parallel runs apart
    env = {
        "FLOORGATE_MONGODB_URI": db_server.uri,
        "FLOORGATE_DATABASE": database,
        "FLOORGATE_DATA_DIR": str(tmp_path),
    }
    paths = write_forms(tmp_path)
    done = run_cli(["import-imdf", str(paths["wrapped"])], {**os.environ, **env})
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"read as: {FORMS['wrapped']}"
    assert lines[2:4] == [
        "Read with 1 remark(s):",
        f"  key beside the wrapper, skipped: 1 (e.g. {paths['wrapped']}: meta)",
    ]
    with MongoClient(db_server.uri) as client:
        names = {u["name"] for u in client[database]["units"].find({}, {"name": 1})}
        before = {n: client[database][n].count_documents({}) for n in ("units", "locations")}
    # 14 units, 13 names: each floor has its "Restroom 1" (the floor is no part of a name)
    assert "Restroom (female) 1" in names and len(names) == 13
    for name, (data, message) in bad_inputs().items():
        path = tmp_path / name
        path.write_bytes(data)
        args = parser().parse_args(["import-imdf", str(path)])
        assert args.handler(args) == 1
        out, err = capsys.readouterr()
        assert (out, err.count("\n")) == ("", 1), name
        assert err.startswith("Nothing was imported: ") and message[:30] in err, name
    refused = run_cli(["import-imdf", str(tmp_path / "two.json")], {**os.environ, **env})
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert refused.stderr.startswith("Nothing was imported: ")
    with MongoClient(db_server.uri) as client:
        after = {n: client[database][n].count_documents({}) for n in before}
        client.drop_database(database)
    assert after == before
