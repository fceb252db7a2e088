"""Dataset import against a real database server (tests/_dbserver.py), never a mock."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

import storage.imports.importer as importer_module
from parsing.limits import SvgLimits
from parsing.parsed_map import document_bytes
from parsing.svg import parse_unit_map
from storage import collections as col
from storage.datasets import sections
from storage.datasets.fields import DatasetError, Problem
from storage.datasets.structure import load_dataset
from storage.datasets.validation import validate, validate_dataset
from storage.files import content_name, digest, get_file, map_file_name
from storage.imports.importer import import_data, import_dataset
from tests._dbserver import fresh_store

T0 = "2026-02-01T12:00:00+00:00"
T1 = "2026-02-02T12:00:00+00:00"
SVG = (
    b'<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50">'
    b'<g id="L1" data-level="Floor 1" data-tag-floor="f1"><g data-layer="units">'
    b'<rect data-unit-id="u1" x="0" y="0" width="50" height="50"/>'
    b'<rect data-unit-id="u2" x="50" y="0" width="50" height="50"/>'
    b"</g></g></svg>"
)
# The drawing of the re-import: level tagged by building; units u2 and u4.
SVG_2 = SVG.replace(b'data-tag-floor="f1"', b'data-tag-building="main"').replace(b'"u1"', b'"u4"')
DATA_COLLECTIONS = (*sections.REPORTED, "fs.files", "fs.chunks")


@pytest_asyncio.fixture(loop_scope="session")
async def store(db_server):
    async with fresh_store(db_server) as store:
        yield store


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch):
    """Fix the import's "now" so default timestamps are exact."""

    def set_now(value: str) -> None:
        monkeypatch.setattr(importer_module, "now", lambda: value)

    set_now(T0)
    return set_now


def attribute(group: str, key: str, name: str) -> dict[str, str]:
    return {"attribute_id": f"{group}-{key}", "attribute_name": name, "attribute_key": key}


def assignment(group: str, key: str, unit: str, asset: str = "a1") -> dict[str, str]:
    return {"group_id": group, "attribute_id": f"{group}-{key}", "asset_id": asset, "unit_id": unit}


def small(folder: Path) -> dict[str, Any]:
    """A dataset that uses every section and most optional fields."""
    (folder / "maps").mkdir(parents=True, exist_ok=True)
    (folder / "maps" / "m1.svg").write_bytes(SVG)
    return {
        "version": 1,
        "assets": [
            {
                "id": "a1",
                "market": "multifamily",
                "name": "Alpha",
                "created_at": "2026-01-01T10:00:00+02:00",
                "updated_at": "2026-01-03T00:00:00Z",
            },
            {"id": "a2", "market": "student", "name": "Beta"},
        ],
        "floors": [
            {
                "id": "f1",
                "asset_id": "a1",
                "name": "Floor 1",
                "label": "Alpha, Floor 1",
                "short_label": "1",
                "sort": 1,
            },
            {"id": "f2", "asset_id": "a1", "name": "Floor 2", "sort": 2},
            {"id": "g1", "asset_id": "a2", "name": "Ground", "sort": 0},
        ],
        "units": [
            {"id": "u1", "asset_id": "a1", "floor_id": "f1", "name": "101"},
            {"id": "u2", "asset_id": "a1", "floor_id": "f1", "name": "102"},
            {"id": "u3", "asset_id": "a1", "floor_id": "f2", "name": "201"},
            {"id": "v1", "asset_id": "a2", "floor_id": "g1", "name": "G1"},
        ],
        "unit_maps": [
            {
                "id": "m1",
                "asset_id": "a1",
                "background_id": "bg1",
                "name": "Floor 1",
                "style": "b",
                "style_type": "floor_plate",
                "tags": ["ils", "mls"],
                "routing_tier": "basic",
                "svg": "maps/m1.svg",
                "level_tags": [
                    {
                        "key": "floor",
                        "name": "Floor",
                        "values": [{"name": "Floor 1", "value": "f1"}],
                    }
                ],
            },
            {"id": "m2", "asset_id": "a2", "name": "Ground", "background_id": None},
        ],
        "backgrounds": [
            {"id": "bg1", "unit_map_id": "m1", "name": "Plan"},
            {"id": "bg2", "unit_map_id": "m1", "name": "Site"},
        ],
        "asset_references": [{"id": "r1", "asset_id": "a1", "key": "acme-pms", "value": "40071"}],
        "unit_references": [
            {
                "group_id": "grp",
                "asset_id": "a1",
                "unit_id": "u1",
                "key": "realpage",
                "value": "11_22",
            },
            {"asset_id": "a1", "unit_id": "u1", "key": "realpage-unit-ids", "value": "11"},
        ],
        "attribute_groups": [
            {
                "id": "view",
                "group_name": "View",
                "one_attribute_per_unit": True,
                "attributes": [
                    attribute("view", "city", "City"),
                    attribute("view", "pool", "Pool"),
                ],
            },
            {
                "id": "features",
                "group_name": "Features",
                "attributes": [
                    attribute("features", "balcony", "Balcony"),
                    attribute("features", "fireplace", "Fireplace"),
                ],
            },
        ],
        "assignments": [
            assignment("view", "city", "u1"),
            assignment("features", "balcony", "u1"),
            assignment("features", "fireplace", "u1"),
            assignment("view", "pool", "u2"),
        ],
        "locations": [
            {
                "id": "l1",
                "asset_id": "a1",
                "unit_map_id": "m1",
                "name": "Unit 101",
                "x": 25,
                "y": 25.5,
                "floors": [{"id": "f1"}],
                "tags": [
                    {"key": "svc:type", "value": "unit"},
                    {
                        "key": "svc:id",
                        "value": "u1",
                        "created_at": "2026-01-05T00:00:00+00:00",
                        "updated_at": "2026-01-06T00:00:00+00:00",
                    },
                ],
            }
        ],
    }


async def dump(store, name: str) -> list[dict[str, Any]]:
    """Every document of a collection, ordered; generated ids are dropped."""
    found = [doc async for doc in store[name].find()]
    if name in (col.LEVEL_TAGS, col.UNIT_REFERENCES, col.ASSIGNMENTS):
        for doc in found:
            doc.pop("_id")
    return sorted(found, key=repr)


async def snapshot(store) -> dict[str, list[dict[str, Any]]]:
    return {name: [doc async for doc in store[name].find()] for name in DATA_COLLECTIONS}


def stamps(created: str = T0, updated: str = T0) -> dict[str, str]:
    return {"created_at": created, "updated_at": updated}


# ---------------------------------------------------------------- import


async def test_valid_dataset_imports_exact_documents(store, tmp_path, clock):
    report = await import_data(store, small(tmp_path), tmp_path)

    assert await dump(store, col.ASSETS) == [
        {
            "_id": "a1",
            "market": "multifamily",
            "name": "Alpha",
            **stamps("2026-01-01T08:00:00+00:00", "2026-01-03T00:00:00+00:00"),
        },
        {"_id": "a2", "market": "student", "name": "Beta", **stamps()},
    ]
    assert await dump(store, col.FLOORS) == [
        {
            "_id": "f1",
            "asset_id": "a1",
            "name": "Floor 1",
            "label": "Alpha, Floor 1",
            "short_label": "1",
            "sort": 1,
            **stamps(),
        },
        {
            "_id": "f2",
            "asset_id": "a1",
            "name": "Floor 2",
            "label": "Floor 2",
            "short_label": "Floor 2",
            "sort": 2,
            **stamps(),
        },
        {
            "_id": "g1",
            "asset_id": "a2",
            "name": "Ground",
            "label": "Ground",
            "short_label": "Ground",
            "sort": 0,
            **stamps(),
        },
    ]
    assert await dump(store, col.UNITS) == [
        {"_id": "u1", "asset_id": "a1", "floor_id": "f1", "name": "101", **stamps()},
        {"_id": "u2", "asset_id": "a1", "floor_id": "f1", "name": "102", **stamps()},
        {"_id": "u3", "asset_id": "a1", "floor_id": "f2", "name": "201", **stamps()},
        {"_id": "v1", "asset_id": "a2", "floor_id": "g1", "name": "G1", **stamps()},
    ]
    maps = await dump(store, col.UNIT_MAPS)
    versions = {doc["_id"]: doc.pop("locations_version") for doc in maps}
    # A digest of the map's locations, which per-process caches key on; m2 has none.
    assert re.fullmatch(r"[0-9a-f]{32}", versions["m1"])
    assert versions["m2"] == digest(b"[]")
    assert maps == [
        {
            "_id": "m1",
            "asset_id": "a1",
            "background_id": "bg1",
            "name": "Floor 1",
            "style": "b",
            "style_type": "floor_plate",
            "tags": ["ils", "mls"],
            "routing_tier": "basic",
            "unit_ids": ["u1", "u2"],
            "source_file": content_name("m1", SVG, ".source.svg"),
            "parsed_file": content_name("m1", document_bytes(parse_unit_map(SVG)), ".map.json"),
            "geojson_file": None,
            "feet_per_unit": 1.0,
            "floor_height_ft": None,
            "levels": [{"uid": "L1", "floor_id": "f1"}],
            "graph_file": None,  # no walk paths
            "georeference": None,
            **stamps(),
        },
        {
            "_id": "m2",
            "asset_id": "a2",
            "background_id": None,
            "name": "Ground",
            "style": "a",
            "style_type": "floor_plate",
            "tags": [],
            "routing_tier": "no_routing",
            "unit_ids": [],
            "source_file": None,
            "parsed_file": None,
            "geojson_file": None,
            "feet_per_unit": None,
            "floor_height_ft": None,
            "levels": [],
            "graph_file": None,
            "georeference": None,
            **stamps(),
        },
    ]
    assert await dump(store, col.BACKGROUNDS) == [
        {"_id": "bg1", "unit_map_id": "m1", "name": "Plan", **stamps()},
        {"_id": "bg2", "unit_map_id": "m1", "name": "Site", **stamps()},
    ]
    assert await dump(store, col.LEVEL_TAGS) == [
        {
            "unit_map_id": "m1",
            "key": "floor",
            "name": "Floor",
            "values": [{"name": "Floor 1", "value": "f1", **stamps()}],
            **stamps(),
        }
    ]
    assert await dump(store, col.ASSET_REFERENCES) == [
        {"_id": "r1", "asset_id": "a1", "key": "acme-pms", "value": "40071", **stamps()}
    ]
    assert await dump(store, col.UNIT_REFERENCES) == sorted(
        [
            {
                "group_id": "grp",
                "asset_id": "a1",
                "unit_id": "u1",
                "key": "realpage",
                "value": "11_22",
                **stamps(),
            },
            {
                "group_id": "a1",  # defaults to the asset id
                "asset_id": "a1",
                "unit_id": "u1",
                "key": "realpage-unit-ids",
                "value": "11",
                **stamps(),
            },
        ],
        key=repr,
    )
    assert await dump(store, col.ATTRIBUTE_GROUPS) == [
        {
            "_id": "features",
            "group_name": "Features",
            "one_attribute_per_unit": False,
            "attributes": [
                attribute("features", "balcony", "Balcony"),
                attribute("features", "fireplace", "Fireplace"),
            ],
        },
        {
            "_id": "view",
            "group_name": "View",
            "one_attribute_per_unit": True,
            "attributes": [attribute("view", "city", "City"), attribute("view", "pool", "Pool")],
        },
    ]
    assert await dump(store, col.ASSIGNMENTS) == sorted(
        [
            {**assignment("view", "city", "u1"), "exclusive": True},
            {**assignment("features", "balcony", "u1"), "exclusive": False},
            {**assignment("features", "fireplace", "u1"), "exclusive": False},
            {**assignment("view", "pool", "u2"), "exclusive": True},
        ],
        key=repr,
    )
    assert await dump(store, col.LOCATIONS) == [
        {
            "_id": "l1",
            "asset_id": "a1",
            "unit_map_id": "m1",
            "name": "Unit 101",
            "x": 25,
            "y": 25.5,
            "floors": [{"id": "f1"}],
            "tags": [
                {"key": "svc:type", "value": "unit", **stamps()},
                {
                    "key": "svc:id",
                    "value": "u1",
                    **stamps("2026-01-05T00:00:00+00:00", "2026-01-06T00:00:00+00:00"),
                },
            ],
            **stamps(),
        }
    ]
    inserted = {name: counts.inserted for name, counts in report.counts.items()}
    assert inserted == {
        "assets": 2,
        "floors": 3,
        "units": 4,
        "unit_maps": 2,
        "level_tags": 1,
        "backgrounds": 2,
        "asset_references": 1,
        "unit_references": 2,
        "attribute_groups": 2,
        "assignments": 4,
        "locations": 1,
    }
    assert all(c.updated == 0 and c.deleted == 0 for c in report.counts.values())
    assert (report.files_stored, report.files_unchanged) == (2, 0)


async def test_svg_is_stored_in_gridfs(store, tmp_path):
    await import_data(store, small(tmp_path), tmp_path)
    stored = await get_file(store, content_name("m1", SVG, ".source.svg"))
    assert stored is not None
    assert stored.data == SVG
    assert stored.content_type == "image/svg+xml"


async def test_reimport_is_an_upsert(store, tmp_path, clock):
    data = small(tmp_path)
    await import_data(store, data, tmp_path)

    clock(T1)
    data["units"].append({"id": "u4", "asset_id": "a1", "floor_id": "f2", "name": "202"})
    (tmp_path / "maps" / "m1.svg").write_bytes(SVG_2)  # units u2, u4 (the drawing lists them)
    data["unit_maps"][0]["level_tags"] = [
        {"key": "building", "name": "Building", "values": [{"name": "Main", "value": "main"}]}
    ]
    data["assignments"][0] = assignment("view", "pool", "u1")  # replaces u1's city view
    report = await import_data(store, data, tmp_path)

    counts = {name: (c.inserted, c.updated, c.deleted) for name, c in report.counts.items()}
    assert counts == {
        "assets": (0, 2, 0),
        "floors": (0, 3, 0),
        "units": (1, 4, 0),
        "unit_maps": (0, 2, 0),
        "level_tags": (1, 0, 1),
        "backgrounds": (0, 2, 0),
        "asset_references": (0, 1, 0),
        "unit_references": (0, 2, 0),
        "attribute_groups": (0, 2, 0),
        "assignments": (1, 3, 1),
        "locations": (0, 1, 0),
    }
    assert (report.files_stored, report.files_unchanged) == (2, 0)

    a2 = await store[col.ASSETS].find_one({"_id": "a2"})
    assert (a2["created_at"], a2["updated_at"]) == (T0, T1)  # created_at kept
    a1 = await store[col.ASSETS].find_one({"_id": "a1"})
    assert a1["created_at"] == "2026-01-01T08:00:00+00:00"  # given in the file
    m1 = await store[col.UNIT_MAPS].find_one({"_id": "m1"})
    assert m1["unit_ids"] == ["u4", "u2"]  # drawing order
    assert (m1["created_at"], m1["updated_at"]) == (T0, T1)
    tags = await dump(store, col.LEVEL_TAGS)
    assert [(t["unit_map_id"], t["key"]) for t in tags] == [("m1", "building")]
    views = await dump(store, col.ASSIGNMENTS)
    assert [(a["unit_id"], a["attribute_id"]) for a in views if a["group_id"] == "view"] == [
        ("u1", "view-pool"),
        ("u2", "view-pool"),
    ]
    reference = await store[col.UNIT_REFERENCES].find_one({"key": "realpage"})
    assert (reference["created_at"], reference["updated_at"]) == (T0, T1)
    for name in sections.REPORTED:
        expected = {"units": 5, "level_tags": 1, "assignments": 4}.get(name)
        total = len(data.get(name, [])) if expected is None else expected
        assert await store[name].count_documents({}) == total, name

    # A changed drawing replaces the stored file; one version stays.
    report = await import_data(store, data, tmp_path)
    assert (report.files_stored, report.files_unchanged) == (0, 2)
    changed = SVG_2.replace(b'width="100"', b'width="120"')
    (tmp_path / "maps" / "m1.svg").write_bytes(changed)
    report = await import_data(store, data, tmp_path)
    assert (report.files_stored, report.files_unchanged) == (2, 0)
    sources = {"filename": {"$regex": r"^maps/m1/.*\.source\.svg$"}}
    assert [f["filename"] for f in await store["fs.files"].find(sources).to_list()] == [
        content_name("m1", changed, ".source.svg")
    ]
    stored = await get_file(store, content_name("m1", changed, ".source.svg"))
    assert stored is not None and stored.data == changed


# ---------------------------------------------------------------- validation


def invalid(folder: Path) -> dict[str, Any]:
    """Many different problems, some resolved against what `small` stored."""
    with (folder / "big.svg").open("wb") as big:
        big.truncate(SvgLimits().max_bytes + 1)
    return {
        "assets": [
            {"id": "a3", "market": "multifamily", "name": "Gamma", "created_at": "last tuesday"},
            {"id": "a3", "market": "multifamily", "name": "Gamma again"},
        ],
        "floors": [{"id": "h1", "asset_id": "a3", "name": "1", "sort": "1"}],
        "units": [
            {"id": "w1", "asset_id": "a3", "floor_id": "nope", "name": "1"},
            {"id": "w2", "asset_id": "a3", "floor_id": "f1", "name": "2"},
            {"id": "w3", "asset_id": "a3", "floor_id": "h1", "colour": "red"},
            {"id": "x" * 256, "asset_id": "a3", "floor_id": "h1", "name": "4"},
            {"id": "w5", "asset_id": "a1", "floor_id": "f2", "name": "fine: both in the database"},
        ],
        "unit_maps": [
            {
                "id": "m3",
                "asset_id": "a3",
                "name": "M",
                "background_id": "bg1",
                "svg": "maps/missing.svg",
                "level_tags": [
                    {"key": "floor", "name": "F", "values": [{"name": "1", "value": "h1"}]},
                    {"key": "floor", "name": "F2", "values": []},
                ],
            },
            {"id": "m4", "asset_id": "a3", "name": "Big", "svg": "big.svg"},
        ],
        "asset_references": [{"id": "r9", "asset_id": "a3", "key": "Acme", "value": "1"}],
        "unit_references": [{"asset_id": "a3", "unit_id": "u1", "key": "acme-pms", "value": "1"}],
        "assignments": [
            assignment("view", "ocean", "u3"),
            assignment("view", "city", "u3"),
            assignment("view", "pool", "u3"),
        ],
        "locations": [
            {
                "id": "l9",
                "asset_id": "a3",
                "unit_map_id": "m3",
                "name": "L",
                "x": 1,
                "y": 2,
                "floors": [{"id": "f9"}],
            }
        ],
    }


async def test_invalid_dataset_lists_every_problem_and_writes_nothing(store, tmp_path):
    await import_data(store, small(tmp_path), tmp_path)
    before = await snapshot(store)

    with pytest.raises(DatasetError) as raised:
        await import_data(store, invalid(tmp_path), tmp_path)

    problems = raised.value.problems
    assert [p.path for p in problems] == [
        "$.assets[0].created_at",
        "$.assets[1].id",
        "$.floors[0].sort",
        "$.units[0].floor_id",
        "$.units[1].floor_id",
        "$.units[2].name",
        "$.units[2].colour",
        "$.units[3].id",
        "$.unit_maps[0].level_tags[1].key",
        "$.unit_maps[0].svg",
        "$.unit_maps[0].background_id",
        "$.unit_maps[1].svg",
        "$.asset_references[0].key",
        "$.unit_references[0].unit_id",
        "$.assignments[0].attribute_id",
        "$.assignments[2]",
        "$.locations[0].floors[0].id",
    ]
    messages = {p.path: p.message for p in problems}
    assert "not an ISO 8601 timestamp" in messages["$.assets[0].created_at"]
    assert messages["$.assets[1].id"] == 'duplicate id "a3" (also at $.assets[0])'
    assert messages["$.floors[0].sort"] == "must be an integer, not a string"
    assert messages["$.units[0].floor_id"] == 'unknown floor "nope"'
    assert messages["$.units[1].floor_id"] == 'floor "f1" belongs to asset "a1", not "a3"'
    assert messages["$.units[2].name"] == "is required"
    assert messages["$.units[2].colour"] == "unknown field"
    assert messages["$.units[3].id"] == "must be at most 255 characters (has 256)"
    assert messages["$.unit_maps[0].background_id"] == (
        'background "bg1" belongs to map "m1", not this map'
    )
    assert "not found" in messages["$.unit_maps[0].svg"]
    assert "more than 16777216" in messages["$.unit_maps[1].svg"]
    assert "does not match" in messages["$.asset_references[0].key"]
    assert messages["$.unit_references[0].unit_id"] == 'unit "u1" belongs to asset "a1", not "a3"'
    assert messages["$.assignments[0].attribute_id"] == (
        'group "view" has no attribute "view-ocean"'
    )
    assert "one attribute per unit" in messages["$.assignments[2]"]
    assert str(raised.value).splitlines()[0] == str(problems[0])

    assert await snapshot(store) == before
    assert await validate(store, invalid(tmp_path), tmp_path) == problems


async def test_group_changes_that_would_orphan_assignments(store, tmp_path):
    data = small(tmp_path)
    await import_data(store, data, tmp_path)
    groups = data["attribute_groups"]
    groups[0]["attributes"] = [attribute("view", "pool", "Pool")]  # u1 still holds city
    groups[1]["one_attribute_per_unit"] = True  # u1 holds balcony and fireplace
    update = {"attribute_groups": groups}

    problems = await validate(store, update, tmp_path)
    assert [p.path for p in problems] == [
        "$.attribute_groups[0].attributes",
        "$.attribute_groups[1].one_attribute_per_unit",
    ]
    # Assigning u1 one feature in the same file resolves the second problem.
    update["assignments"] = [assignment("features", "balcony", "u1")]
    problems = await validate(store, update, tmp_path)
    assert [p.path for p in problems] == ["$.attribute_groups[0].attributes"]

    # With the attribute kept, the import drops u1's fireplace and marks the rest exclusive.
    groups[0]["attributes"] = small(tmp_path)["attribute_groups"][0]["attributes"]
    report = await import_data(store, update, tmp_path)
    assert (report.counts["assignments"].updated, report.counts["assignments"].deleted) == (1, 1)
    features = [a async for a in store[col.ASSIGNMENTS].find({"group_id": "features"})]
    assert [(a["unit_id"], a["attribute_id"], a["exclusive"]) for a in features] == [
        ("u1", "features-balcony", True)
    ]


async def test_ids_up_to_255_characters_of_any_kind_round_trip(store, tmp_path):
    long_id = ("Harbor View: ü 🏢 / 棟 " * 20)[:255]
    assert len(long_id) == 255
    drawing = (
        SVG.replace(b'"u1"', b'"' + long_id.encode() + b'"')
        .replace(b'data-tag-floor="f1"', b'data-tag-floor="' + long_id.encode() + b'"')
        .replace(b'<rect data-unit-id="u2" x="50" y="0" width="50" height="50"/>', b"")
    )
    (tmp_path / "plan.svg").write_bytes(drawing)
    data = {
        "assets": [
            {"id": long_id, "market": "multifamily", "name": "Long"},
            {"id": "Ab", "market": "multifamily", "name": "upper"},
            {"id": "ab", "market": "multifamily", "name": "lower"},
        ],
        "floors": [{"id": long_id, "asset_id": long_id, "name": "F", "sort": 1}],
        "units": [{"id": long_id, "asset_id": long_id, "floor_id": long_id, "name": "U"}],
        "unit_maps": [
            {
                "id": long_id,
                "asset_id": long_id,
                "name": "M",
                "svg": "plan.svg",
            }
        ],
    }
    report = await import_data(store, data, tmp_path)
    assert report.counts["assets"].inserted == 3

    for name in (col.ASSETS, col.FLOORS, col.UNITS, col.UNIT_MAPS):
        doc = await store[name].find_one({"_id": long_id})
        assert doc is not None and doc["_id"] == long_id, name
    unit_map = await store[col.UNIT_MAPS].find_one({"_id": long_id})
    assert unit_map["unit_ids"] == [long_id]
    assert unit_map["source_file"] == content_name(long_id, drawing, ".source.svg")
    assert unit_map["source_file"].startswith(map_file_name(long_id, ""))
    stored = await get_file(store, unit_map["source_file"])
    assert stored is not None and stored.data == drawing
    assert (await store[col.ASSETS].find_one({"_id": "Ab"}))["name"] == "upper"
    assert (await store[col.ASSETS].find_one({"_id": "ab"}))["name"] == "lower"

    # `AB` is a third id, unknown; 256 characters is too long.
    problems = await validate(
        store,
        {
            "assets": [{"id": long_id + "x", "market": "m", "name": "too long"}],
            "floors": [{"id": "F", "asset_id": "AB", "name": "F", "sort": 1}],
        },
        tmp_path,
    )
    assert problems == [
        Problem("$.assets[0].id", "must be at most 255 characters (has 256)"),
        Problem("$.floors[0].asset_id", 'unknown asset "AB"'),
    ]


async def test_a_location_goes_on_a_floor_a_level_of_its_map_is_on(store, tmp_path, clock):
    """Issue 45, point 11: in the file (the map's drawing has one level, on f1) and against
    a stored map; `floorgate check` holds a location to its map's levels."""
    data = small(tmp_path)
    data["locations"][0]["floors"] = [{"id": "f1"}, {"id": "f2"}]
    not_a_level = 'floor "f2" is not a level of unit map "m1" (its levels are on "f1")'
    assert validate_dataset(data, tmp_path) == [Problem("$.locations[0].floors[1].id", not_a_level)]
    await import_data(store, small(tmp_path), tmp_path)
    before = await snapshot(store)
    location = {**data["locations"][0], "id": "l2"}
    assert await validate(store, {"locations": [location]}, tmp_path) == [
        Problem("$.locations[0].floors[1].id", not_a_level)
    ]
    with pytest.raises(DatasetError):
        await import_data(store, {"locations": [location]}, tmp_path)
    assert await snapshot(store) == before
    location["floors"] = [{"id": "f1"}]
    assert await validate(store, {"locations": [location]}, tmp_path) == []


# ---------------------------------------------------------------- files and pure validation


def test_load_dataset_reports_json_errors_with_position(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{\n  "assets": [\n    {"id": "a1",}\n  ]\n}\n', encoding="utf-8")
    with pytest.raises(DatasetError) as raised:
        load_dataset(path)
    (problem,) = raised.value.problems
    assert problem.path == "$"
    assert re.search(r"at line 3, column \d+", problem.message)

    path.write_text('{"assets": [], "assets": []}', encoding="utf-8")
    with pytest.raises(DatasetError, match="appears twice"):
        load_dataset(path)
    path.write_text("[]", encoding="utf-8")
    with pytest.raises(DatasetError, match="must be an object"):
        load_dataset(path)
    with pytest.raises(DatasetError, match="cannot read"):
        load_dataset(tmp_path / "missing.json")


def test_structure_problems_without_a_database(tmp_path):
    data = {
        "version": 2,
        "asets": [],
        "units": {"id": "u1"},
        "unit_maps": [
            {
                "id": "m1",
                "asset_id": "a1",
                "name": "M",
                "tags": ["ils", "ils", "a,b"],
                "unit_ids": ["u1", "u1"],
                "level_tags": [
                    {
                        "key": "building",
                        "name": "B",
                        "values": [{"name": "1", "value": "b1"}, {"name": "1", "value": "b1"}],
                    }
                ],
                "created_at": "2026-02-02T00:00:00+00:00",
                "updated_at": "2026-02-01T00:00:00+00:00",
            }
        ],
        "locations": [
            {
                "id": "l1",
                "asset_id": "a1",
                "unit_map_id": "m1",
                "name": "L",
                "x": True,
                "y": "2",
                "floors": [],
                "tags": [{"key": "k", "value": "1"}, {"key": "k", "value": "2"}],
            }
        ],
    }
    assert [str(p) for p in validate_dataset(data, tmp_path)] == [
        "$.version: must be 1",
        "$.asets: unknown section (known: assets, floors, units, unit_maps, backgrounds, "
        "asset_references, unit_references, attribute_groups, assignments, locations)",
        "$.units: must be an array, not an object",
        '$.unit_maps[0].tags[1]: duplicate "ils" (also at $.unit_maps[0].tags[0])',
        "$.unit_maps[0].tags[2]: must not contain a comma (the tags filter splits on commas)",
        '$.unit_maps[0].unit_ids[1]: duplicate "u1" (also at $.unit_maps[0].unit_ids[0])',
        "$.unit_maps[0].updated_at: is earlier than created_at 2026-02-02T00:00:00+00:00",
        '$.unit_maps[0].level_tags[0].values[1].value: duplicate "b1" '
        "(also at $.unit_maps[0].level_tags[0].values[0])",
        '$.unit_maps[0].asset_id: unknown asset "a1"',
        '$.unit_maps[0].unit_ids[0]: unknown unit "u1"',
        "$.locations[0].x: must be a number, not a boolean",
        "$.locations[0].y: must be a number, not a string",
        "$.locations[0].floors: must name at least one floor",
        '$.locations[0].tags[1].key: duplicate "k" (also at $.locations[0].tags[0])',
        '$.locations[0].asset_id: unknown asset "a1"',
    ]


def docs_example(folder: Path) -> Path:
    """The example of docs/dataset.md, written out, so the docs stay true."""
    text = (Path(__file__).parents[2] / "docs" / "dataset.md").read_text(encoding="utf-8")
    dataset = re.search(r"```json\n(.*?)```", text, re.S)
    svg = re.search(r"```xml\n(.*?)```", text, re.S)
    assert dataset and svg
    (folder / "maps").mkdir(parents=True, exist_ok=True)
    (folder / "maps" / "dc-f1.svg").write_text(svg.group(1), encoding="utf-8")
    path = folder / "dataset.json"
    path.write_text(dataset.group(1), encoding="utf-8")
    return path


async def test_docs_example_is_valid_and_imports(store, tmp_path):
    path = docs_example(tmp_path)
    data, base_dir = load_dataset(path)
    assert base_dir == tmp_path.resolve()
    assert validate_dataset(data, base_dir) == []
    report = await import_dataset(store, path)
    assert report.counts["units"].inserted == 2
    assert report.lines()[0] == "assets: 1 inserted, 0 updated"
    again = await import_dataset(store, path)
    assert sum(c.inserted for c in again.counts.values()) == 0
    assert json.loads(path.read_text(encoding="utf-8"))["version"] == 1


async def test_docs_example_imports_beside_the_demo(store, tmp_path):
    """A newcomer runs `make run`, then imports the example into that database: its
    ids must not clash with the demo's (attribute groups are global)."""
    from storage.demo.install import install_demo

    await install_demo(store, tmp_path / "demo")
    before = await store[col.ATTRIBUTE_GROUPS].find_one({"_id": "view"})
    report = await import_dataset(store, docs_example(tmp_path / "harbor"))
    assert report.counts["units"].inserted == 2
    assert report.counts["attribute_groups"].updated == 0  # nothing of the demo's replaced
    assert await store[col.ATTRIBUTE_GROUPS].find_one({"_id": "view"}) == before
