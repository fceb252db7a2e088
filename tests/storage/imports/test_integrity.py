"""What a killed import leaves behind (issue 14, items 3 and 5): one stored version per
file name, repaired by the next import; `floorgate gc` for files nothing names and
chunks without a file; `floorgate check` for documents naming what does not exist.

The leftovers are made by writing to the database directly (GridFS bucket, `fs.files`,
`fs.chunks`, the collections), as a kill at the wrong moment would have left them.
"""

from __future__ import annotations

import os
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from bson import ObjectId

from storage import collections as col
from storage.closures import put_closure
from storage.files import get_file, is_stored
from storage.imports.importer import import_data
from storage.imports.integrity import collect_garbage, find_dangling
from tests._dbserver import fresh_store
from tests.servers import FLOORGATE
from tests.storage.test_map_ingestion import dataset, drawing, georeference

HOURS_AGO = datetime.now(UTC) - timedelta(hours=2)


@pytest_asyncio.fixture(loop_scope="session")
async def store(db_server):
    async with fresh_store(db_server) as store:
        yield store


async def imported(store, folder: Path) -> dict[str, Any]:
    """The map test dataset with a georeference: source, parsed and GeoJSON files."""
    await import_data(store, dataset(folder, georeference=georeference()), folder)
    return await store[col.UNIT_MAPS].find_one({"_id": "m1"})


async def versions(store, name: str) -> int:
    return await store["fs.files"].count_documents({"filename": name})


async def names(store) -> list[str]:
    return sorted(doc["filename"] for doc in await store["fs.files"].find({}).to_list())


async def upload(store, name: str, data: bytes, uploaded: datetime | None = None) -> ObjectId:
    """A GridFS file written directly, optionally dated back."""
    file_id = await store.files.upload_from_stream(name, data, metadata={"etag": "other"})
    if uploaded is not None:
        await store["fs.files"].update_one({"_id": file_id}, {"$set": {"uploadDate": uploaded}})
    return file_id


# ---------------------------------------------------------------- one version per name


async def test_reimport_replaces_a_second_version_of_a_name(store, tmp_path):
    unit_map = await imported(store, tmp_path)
    source = unit_map["source_file"]
    # A kill between an upload and the removal of the older version: two versions, the
    # newer one with other bytes. The name's check must not trust either of them.
    await upload(store, source, b"<svg>another drawing</svg>")
    assert await versions(store, source) == 2
    assert not await is_stored(store, source, drawing().encode())

    report = await import_data(store, dataset(tmp_path, georeference=georeference()), tmp_path)
    assert "map files: 1 stored, 1 unchanged" in report.lines()
    assert await versions(store, source) == 1
    assert (await get_file(store, source)).data == drawing().encode()
    assert await is_stored(store, source, drawing().encode())


async def test_reimport_replaces_a_version_with_missing_chunks(store, tmp_path):
    unit_map = await imported(store, tmp_path)
    parsed = unit_map["parsed_file"]
    stored = await store["fs.files"].find_one({"filename": parsed})
    good = (await get_file(store, parsed)).data
    await store["fs.chunks"].delete_many({"files_id": stored["_id"]})
    assert await get_file(store, parsed) is None  # nothing complete to serve
    assert not await is_stored(store, parsed, good)

    report = await import_data(store, dataset(tmp_path, georeference=georeference()), tmp_path)
    assert "map files: 1 stored, 1 unchanged" in report.lines()
    assert await versions(store, parsed) == 1
    assert (await get_file(store, parsed)).data == good


async def test_get_file_reads_the_newest_complete_version(store):
    name = "maps/m9/0123456789abcdef0123.source.svg"
    old = await upload(store, name, b"old", HOURS_AGO)
    newest = await upload(store, name, b"newest, then broken", HOURS_AGO + timedelta(hours=1))
    await store["fs.chunks"].delete_many({"files_id": newest})
    assert (await get_file(store, name)).data == b"old"
    # Equal upload dates: the larger `_id` wins, every time.
    tie = await upload(store, name, b"tie", HOURS_AGO)
    assert tie > old
    assert (await get_file(store, name)).data == b"tie"


# ---------------------------------------------------------------- gc


async def test_gc_removes_old_unnamed_files_and_orphan_chunks(store, tmp_path):
    unit_map = await imported(store, tmp_path)
    named = sorted(unit_map[f] for f in ("source_file", "parsed_file", "geojson_file"))
    assert await names(store) == named
    await upload(store, "maps/m1/aaaaaaaaaaaaaaaaaaaa.map.json", b"{}", HOURS_AGO)
    await upload(store, "maps/m2/bbbbbbbbbbbbbbbbbbbb.source.svg", b"<svg/>", HOURS_AGO)
    await upload(store, "maps/m1/cccccccccccccccccccc.map.json", b"[]")  # an import's, now
    # A killed upload: chunks written, no files document (two old, one just now).
    old_upload = ObjectId.from_datetime(HOURS_AGO)
    await store["fs.chunks"].insert_many(
        [
            {"files_id": old_upload, "n": 0, "data": b"x"},
            {"files_id": old_upload, "n": 1, "data": b"y"},
            {"files_id": ObjectId(), "n": 0, "data": b"z"},
        ]
    )

    dry = await collect_garbage(store, dry_run=True)
    assert (dry.files, dry.chunks, dry.recent) == (
        ["maps/m1/aaaaaaaaaaaaaaaaaaaa.map.json", "maps/m2/bbbbbbbbbbbbbbbbbbbb.source.svg"],
        2,
        ["maps/m1/cccccccccccccccccccc.map.json"],
    )
    assert len(await names(store)) == 6
    assert await store["fs.chunks"].count_documents({"files_id": old_upload}) == 2

    done = await collect_garbage(store)
    assert (done.files, done.chunks, done.recent) == (dry.files, 2, dry.recent)
    assert await names(store) == sorted([*named, "maps/m1/cccccccccccccccccccc.map.json"])
    assert await store["fs.chunks"].count_documents({"files_id": old_upload}) == 0
    file_ids = {doc["_id"] for doc in await store["fs.files"].find({}).to_list()}
    owners = {doc["files_id"] for doc in await store["fs.chunks"].find({}).to_list()}
    assert len(owners - file_ids) == 1  # the upload of just now
    for name in named:  # what the map names is still served
        assert (await get_file(store, name)) is not None
    assert (await get_file(store, unit_map["source_file"])).data == drawing().encode()

    later = await collect_garbage(store, timedelta(0), now=datetime.now(UTC) + timedelta(1))
    assert (later.files, later.chunks, later.recent) == (
        ["maps/m1/cccccccccccccccccccc.map.json"],
        1,
        [],
    )
    assert await names(store) == named
    assert (await find_dangling(store)).clean


# ---------------------------------------------------------------- check


async def test_check_is_clean_after_an_import(store, tmp_path):
    await imported(store, tmp_path)
    report = await find_dangling(store)
    assert report.dangling == []
    assert report.clean


async def test_check_reports_every_dangling_reference(store, tmp_path):
    unit_map = await imported(store, tmp_path)
    await store.files.delete(
        (await store["fs.files"].find_one({"filename": unit_map["geojson_file"]}))["_id"]
    )
    await store[col.UNITS].delete_one({"_id": "u2"})  # still on the map
    await store[col.UNITS].insert_one(
        {"_id": "u9", "asset_id": "a9", "floor_id": "f9", "name": "9"}
    )
    await store[col.FLOORS].insert_one({"_id": "f7", "asset_id": "a9", "name": "7", "sort": 7})
    await store[col.BACKGROUNDS].insert_one({"_id": "b1", "unit_map_id": "m9", "name": "B"})
    await store[col.UNIT_MAPS].update_one({"_id": "m1"}, {"$set": {"background_id": "b8"}})
    await store[col.LOCATIONS].insert_many(
        [
            {
                "_id": "loc-lost",
                "asset_id": "a1",
                "unit_map_id": "m9",
                "name": "Lost",
                "x": 0,
                "y": 0,
                "floors": [{"id": "f9"}],
                "tags": [],
            },
            {
                "_id": "loc-off",
                "asset_id": "a1",
                "unit_map_id": "m1",
                "name": "Off",
                "x": 0,
                "y": 0,
                "floors": [{"id": "f7"}],
                "tags": [],
            },
        ]
    )
    await store[col.UNIT_REFERENCES].insert_one(
        {"group_id": "a1", "asset_id": "a1", "unit_id": "u8", "key": "svc:ext", "value": "1"}
    )
    await store[col.ATTRIBUTE_GROUPS].insert_one(
        {
            "_id": "g1",
            "group_name": "G",
            "one_attribute_per_unit": False,
            "attributes": [{"attribute_id": "x", "attribute_name": "X", "attribute_key": "x"}],
        }
    )
    await store[col.ASSIGNMENTS].insert_many(
        [
            {
                "group_id": "g1",
                "attribute_id": "y",
                "asset_id": "a1",
                "unit_id": "u1",
                "exclusive": False,
            },
            {
                "group_id": "g9",
                "attribute_id": "x",
                "asset_id": "a1",
                "unit_id": "u7",
                "exclusive": False,
            },
        ]
    )
    await put_closure(store, "m1", "a1", "unit", "u1", None, None)  # in order
    await put_closure(store, "m9", "a9", "connector", "lift", None, "Service")

    report = await find_dangling(store)
    assert [str(finding) for finding in report.dangling] == [
        "floors f7: asset_id 'a9': no such asset",
        "units u9: asset_id 'a9': no such asset",
        "units u9: floor_id 'f9': no such floor",
        "unit_maps m1: background_id 'b8': no such background",
        f"unit_maps m1: geojson_file {unit_map['geojson_file']!r}: no such file",
        "unit_maps m1: unit_ids 'u2': no such unit",
        "backgrounds b1: unit_map_id 'm9': no such map",
        "unit_references u8/svc:ext: unit_id 'u8': no such unit",
        "assignments g1/u1/y: attribute_id 'y': no such attribute of its group",
        "assignments g9/u7/x: group_id 'g9': no such attribute group",
        "assignments g9/u7/x: unit_id 'u7': no such unit",
        "locations loc-lost: unit_map_id 'm9': no such map",
        "locations loc-lost: floors.id 'f9': no such floor",
        "locations loc-off: floors.id 'f7': no such level of its map",
        "closures m9/connector/lift: asset_id 'a9': no such asset",
        "closures m9/connector/lift: unit_map_id 'm9': no such map",
    ]
    assert not report.clean


# ---------------------------------------------------------------- the commands


def floorgate(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([FLOORGATE, *args], env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.e2e
async def test_gc_and_check_commands(store, tmp_path, db_server):
    unit_map = await imported(store, tmp_path)
    env = {
        **os.environ,
        "FLOORGATE_MONGODB_URI": db_server.uri,
        "FLOORGATE_DATABASE": store.db.name,
        "FLOORGATE_DATA_DIR": str(tmp_path / "data"),
    }
    clean = floorgate(["check"], env)
    assert (clean.returncode, clean.stdout, clean.stderr) == (0, "No dangling references.\n", "")

    await store[col.LOCATIONS].update_one({"_id": "loc-pool"}, {"$set": {"floors": [{"id": "f9"}]}})
    parsed = await store["fs.files"].find_one({"filename": unit_map["parsed_file"]})
    await store["fs.files"].delete_one({"_id": parsed["_id"]})  # its chunks are orphans now
    await upload(store, "maps/m1/dddddddddddddddddddd.walk.npz", b"old", HOURS_AGO)
    dangling = floorgate(["check"], env)
    assert dangling.returncode == 1
    assert dangling.stdout.splitlines() == [
        f"unit_maps m1: parsed_file {unit_map['parsed_file']!r}: no such file",
        "locations loc-pool: floors.id 'f9': no such floor",
    ]
    assert dangling.stderr == "2 dangling reference(s).\n"

    dry = floorgate(["gc", "--dry-run", "--verbose"], env)
    assert (dry.returncode, dry.stderr) == (0, "")
    assert dry.stdout.splitlines() == [
        "Would remove 1 unnamed file(s) and 0 orphan chunk(s).",
        "  would remove maps/m1/dddddddddddddddddddd.walk.npz",
    ]
    assert await versions(store, "maps/m1/dddddddddddddddddddd.walk.npz") == 1
    # The orphan chunks are as new as the import: the grace period of 1h keeps them.
    young = floorgate(["gc", "--older-than", "1d"], env)
    assert young.stdout.splitlines() == [
        "Removed 0 unnamed file(s) and 0 orphan chunk(s).",
        "Kept 1 unnamed file(s) younger than 1d (an import may be writing them).",
    ]
    assert floorgate(["gc", "--older-than", "soon"], env).returncode == 2

    done = floorgate(["gc", "--older-than", "0"], env)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines() == ["Removed 1 unnamed file(s) and 1 orphan chunk(s)."]
    assert await versions(store, "maps/m1/dddddddddddddddddddd.walk.npz") == 0
    assert await store["fs.chunks"].count_documents({"files_id": parsed["_id"]}) == 0

    # A re-import stores the missing file again and repairs the location.
    await import_data(store, dataset(tmp_path, georeference=georeference()), tmp_path)
    repaired = floorgate(["check"], env)
    assert (repaired.returncode, repaired.stdout) == (0, "No dangling references.\n")
