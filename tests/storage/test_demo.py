"""The demo property: deterministic files, the counts it promises, drawings that
agree with the dataset, and a real import (tests/_dbserver.py)."""

from __future__ import annotations

import math
import re
from collections import Counter
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lxml import etree

from parsing.demo.drawings import FEET_PER_UNIT, SVG_NS
from storage import collections as col
from storage.datasets.structure import load_dataset
from storage.datasets.validation import validate_dataset
from storage.demo.install import STACK_MAP_ID, demo_dataset, demo_plans, install_demo, write_demo
from storage.files import content_name
from storage.imports.importer import import_dataset
from tests._dbserver import fresh_store

NS = {"s": SVG_NS}
FLOOR_MAPS = [f"map-b{b}-f{f}" for b in (1, 2) for f in (1, 2, 3, 4)]
BUILDING_MAPS = ["map-b1", "map-b2"]  # every floor of a building as the levels of one map
ROUTED_MAPS = sorted([*FLOOR_MAPS, *BUILDING_MAPS])


@pytest.fixture(scope="module")
def demo() -> dict[str, Any]:
    return demo_dataset(7).data


@pytest.fixture(scope="module")
def drawings() -> dict[str, etree._Element]:
    """Each map's SVG parsed with lxml (a parse error fails the test)."""
    svgs = demo_dataset(7).svgs
    return {
        Path(name).stem: etree.fromstring(text.encode("utf-8"), etree.XMLParser())
        for name, text in svgs.items()
    }


# Records per section of the demo dataset (seed 7); level tags are nested in the maps.
DEMO_COUNTS = {
    "assets": 1,
    "floors": 8,
    "units": 100,
    "unit_maps": 11,
    "backgrounds": 11,
    "asset_references": 2,
    "unit_references": 300,
    "attribute_groups": 2,
    "assignments": 226,
    "locations": 124,  # 112 on the floor maps, the 12 amenities again on building maps
}


@pytest_asyncio.fixture(loop_scope="session")
async def store(db_server):
    async with fresh_store(db_server) as store:
        yield store


def files_of(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def test_same_seed_gives_identical_bytes(tmp_path):
    first = write_demo(tmp_path / "one")
    write_demo(tmp_path / "two", seed=7)
    assert first == tmp_path / "one" / "dataset.json"
    one, two = files_of(tmp_path / "one"), files_of(tmp_path / "two")
    assert one == two
    assert sorted(one) == [
        "dataset.json",
        *sorted(f"maps/{m}.svg" for m in [*ROUTED_MAPS, "map-stack"]),
    ]
    other = files_of(write_demo(tmp_path / "three", seed=8).parent)
    assert other["dataset.json"] != one["dataset.json"]
    assert other["maps/map-b1-f1.svg"] == one["maps/map-b1-f1.svg"]  # geometry is fixed


def test_counts(demo):
    counts = {name: len(value) for name, value in demo.items() if isinstance(value, list)}
    assert counts == DEMO_COUNTS
    assert demo["assets"][0]["id"] == "harbor-view"
    assert demo["assets"][0]["market"] == "multifamily"
    assert [f["id"] for f in demo["floors"]] == [f"b{b}-f{f}" for b in (1, 2) for f in (1, 2, 3, 4)]
    assert demo["floors"][5]["label"] == "Building 2, Floor 2"
    assert demo["floors"][5]["short_label"] == "2-2"
    per_floor = Counter(unit["floor_id"] for unit in demo["units"])
    assert per_floor == {
        "b1-f1": 10,
        "b2-f1": 12,
        **{f"b{b}-f{f}": 13 for b in (1, 2) for f in (2, 3, 4)},
    }
    assert demo["units"][0] == {
        "id": "b1-101",
        "asset_id": "harbor-view",
        "floor_id": "b1-f1",
        "name": "101",
        "created_at": "2026-01-15T09:09:00+00:00",
        "updated_at": "2026-01-15T09:09:00+00:00",
    }
    maps = {m["id"]: m for m in demo["unit_maps"]}
    assert sorted(maps) == sorted([*ROUTED_MAPS, STACK_MAP_ID])
    assert Counter(m["style_type"] for m in maps.values()) == {
        "floor_plate": 8,
        "stack": 1,
        "building": 2,
    }
    for map_id in BUILDING_MAPS:
        assert maps[map_id]["tags"] == ["ils"]  # `pathfinding` comes from processing
        floors = [v["value"] for v in maps[map_id]["level_tags"][1]["values"]]
        assert floors == [f"{map_id.removeprefix('map-')}-f{f}" for f in (1, 2, 3, 4)]
    for map_id in FLOOR_MAPS:
        assert set(maps[map_id]["tags"]) == {"ils", "mls", "pathfinding"}
        assert [t["key"] for t in maps[map_id]["level_tags"]] == ["building", "floor"]
        assert len(maps[map_id]["georeference"]["control_points"]) == 4
    # The stacking plan's levels carry only `storey`; its units come from its drawing.
    assert [t["key"] for t in maps[STACK_MAP_ID]["level_tags"]] == ["storey"]
    assert "georeference" not in maps[STACK_MAP_ID]
    assert not any("unit_ids" in m for m in maps.values())
    assert sum(len(m["level_tags"]) for m in maps.values()) == 21
    assert Counter(g["id"] for g in demo["attribute_groups"]) == {"view": 1, "features": 1}
    assert Counter(a["group_id"] for a in demo["assignments"]) == {"view": 91, "features": 135}
    amenities = Counter(
        next(t["value"] for t in loc["tags"] if t["key"] in ("leisure", "amenity"))
        for loc in demo["locations"]
        if {"key": "svc:amenity", "value": "yes"} in loc["tags"]
        and loc["unit_map_id"] in FLOOR_MAPS
    )
    assert amenities == {
        "swimming_pool": 1,
        "fitness_centre": 1,
        "mailroom": 2,
        "waste_disposal": 8,
    }


def test_references_of_both_providers(demo):
    assert Counter(r["key"] for r in demo["asset_references"]) == {"acme-pms": 1, "realpage": 1}
    by_key = Counter(r["key"] for r in demo["unit_references"])
    assert by_key == {"acme-pms": 100, "realpage": 100, "realpage-unit-ids": 100}
    values = {(r["unit_id"], r["key"]): r["value"] for r in demo["unit_references"]}
    for unit in demo["units"]:
        composite = values[(unit["id"], "realpage")]
        assert re.fullmatch(r"\d+_\d+", composite)
        assert composite.split("_")[0] == values[(unit["id"], "realpage-unit-ids")]
    assert len(set(values.values())) == 300


def test_svgs_follow_the_conventions(demo, drawings):
    maps = {m["id"]: m for m in demo["unit_maps"]}
    locations: dict[str, list[dict[str, Any]]] = {}
    for location in demo["locations"]:
        locations.setdefault(location["unit_map_id"], []).append(location)
    for map_id, root in drawings.items():
        assert root.tag == f"{{{SVG_NS}}}svg"
        assert root.get("data-feet-per-unit") == str(FEET_PER_UNIT)
        levels = root.findall(".//s:g[@data-level]", NS)
        assert levels and all(level.get("data-level-index") for level in levels)
        units = {
            e.get("data-unit-id"): e for e in root.findall(".//s:g[@data-layer='units']/*", NS)
        }
        hits = [e for e in root.findall(".//s:g[@data-layer='hit-areas']/*", NS)]
        floor_ids = {v["value"] for t in maps[map_id]["level_tags"] for v in t["values"]}
        expected = [
            u["id"] for u in demo["units"] if map_id == STACK_MAP_ID or u["floor_id"] in floor_ids
        ]
        assert sorted(units) == sorted(expected), map_id
        assert sorted(e.get("data-target-id") for e in hits) == sorted(units), map_id
        assert {e.get("data-target-type") for e in hits} == {"Unit"}
        if map_id in BUILDING_MAPS:
            assert len(levels) == 4
            assert not any(tag_value(loc, "svc:id") for loc in locations[map_id])
            continue
        if map_id == STACK_MAP_ID:
            assert len(levels) == 4
            assert root.find(".//s:g[@data-layer='paths']", NS) is None
            continue
        (level,) = levels
        floor = maps[map_id]["level_tags"][1]["values"][0]["value"]
        assert level.get("data-tag-floor") == floor
        assert level.get("data-tag-building") == floor.split("-")[0]
        assert root.find(".//s:g[@id='walls']", NS) is not None
        assert root.find(".//s:g[@transform]//s:text", NS) is not None
        building = floor.split("-")[0]
        connectors = {
            e.get("data-connector"): e.get("data-connector-id")
            for e in root.findall(".//s:rect[@data-connector]", NS)
        }
        assert connectors == {"elevator": f"{building}-elevator", "stairs": f"{building}-stairs-a"}
        # Every unit has a location with its tags, at the centre of its shape.
        unit_locations = {
            tag_value(loc, "svc:id"): loc
            for loc in locations[map_id]
            if tag_value(loc, "svc:type") == "unit"
        }
        assert sorted(unit_locations) == sorted(units)
        for unit_id, shape in units.items():
            loc = unit_locations[unit_id]
            assert tag_value(loc, "indoor") == "room" and tag_value(loc, "room") == "apartment"
            assert loc["floors"] == [{"id": floor}]
            x, y, w, h = (float(shape.get(a)) for a in ("x", "y", "width", "height"))
            assert (loc["x"], loc["y"]) == (x + w / 2, y + h / 2)


def tag_value(location: dict[str, Any], key: str) -> str | None:
    return next((t["value"] for t in location["tags"] if t["key"] == key), None)


def segments(root: etree._Element, wheelchair: bool) -> list[tuple[tuple[float, float], ...]]:
    """The paths layer as straight segments, leaving out steps in wheelchair mode."""
    found = []
    for element in root.findall(".//s:g[@data-layer='paths']/*", NS):
        if wheelchair and element.get("data-access") == "no-wheelchair":
            continue
        if element.tag == f"{{{SVG_NS}}}line":
            points = [
                (float(element.get("x1")), float(element.get("y1"))),
                (float(element.get("x2")), float(element.get("y2"))),
            ]
        else:
            points = [tuple(map(float, p.split(","))) for p in element.get("points").split()]
        found += list(pairwise(points))
    return found


def on_segment(point, segment, tolerance: float = 0.5) -> bool:
    (x1, y1), (x2, y2) = segment
    px, py = point
    dx, dy = x2 - x1, y2 - y1
    t = max(0.0, min(1.0, ((px - x1) * dx + (py - y1) * dy) / (dx * dx + dy * dy)))
    return math.dist(point, (x1 + t * dx, y1 + t * dy)) <= tolerance


def components(parts: list[tuple[tuple[float, float], ...]]) -> list[int]:
    """Union-find: segments touch where an end of one lies on the other."""
    parent = list(range(len(parts)))

    def find(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    for i, a in enumerate(parts):
        for j, b in enumerate(parts):
            if i < j and (any(on_segment(p, b) for p in a) or any(on_segment(p, a) for p in b)):
                parent[find(i)] = find(j)
    return [find(i) for i in range(len(parts))]


def test_walk_paths_reach_every_door_and_amenity(drawings):
    for plan in demo_plans():
        root = drawings[f"map-{plan.floor_id}"]
        for wheelchair in (False, True):
            parts = segments(root, wheelchair)
            groups = components(parts)
            assert len(set(groups)) == 1, (plan.floor_id, wheelchair)
            for room in plan.rooms:
                assert any(on_segment(room.door, part) for part in parts), (room.id, wheelchair)
    with_steps = ("map-b1-f1", "map-b1")
    for name in with_steps:
        steps = drawings[name].findall(".//s:*[@data-access='no-wheelchair']", NS)
        assert len(steps) == 1
    others = [d for n, d in drawings.items() if n not in with_steps]
    assert all(not d.findall(".//s:*[@data-access]", NS) for d in others)


def test_pool_is_on_the_ground_floor_of_building_1(demo):
    pools = [loc for loc in demo["locations"] if tag_value(loc, "leisure") == "swimming_pool"]
    assert [pool["unit_map_id"] for pool in pools] == ["map-b1-f1", "map-b1"]
    pool = pools[0]
    assert pool["floors"] == [{"id": "b1-f1"}]
    assert tag_value(pool, "svc:amenity") == "yes"


async def test_demo_validates_and_imports(store, tmp_path):
    path = write_demo(tmp_path / "demo")
    data, base_dir = load_dataset(path)
    assert validate_dataset(data, base_dir) == []

    report = await import_dataset(store, path)
    inserted = {name: c.inserted for name, c in report.counts.items()}
    # Processing the building maps makes their 100 units locations; and each drawn
    # elevator and stairs a place on each floor it is drawn on (issue 66): 2 on each of
    # the 8 floors of the two building maps, 2 on each of the 8 floor plans.
    assert inserted == {**DEMO_COUNTS, "level_tags": 21, "locations": 224 + 32}
    assert report.files_stored == 32  # 11 sources, 11 parsed documents, 10 walk graphs
    for name, count in inserted.items():
        assert await store[name].count_documents({}) == count, name
    unit_map = await store[col.UNIT_MAPS].find_one({"_id": "map-b1-f1"})
    drawing = (tmp_path / "demo" / "maps" / "map-b1-f1.svg").read_bytes()
    assert unit_map["source_file"] == content_name("map-b1-f1", drawing, ".source.svg")
    assert unit_map["created_at"] == "2026-01-15T09:10:00+00:00"
    assert unit_map["unit_ids"] == [u["id"] for u in data["units"] if u["floor_id"] == "b1-f1"]
    maps = {m["_id"]: m for m in await store[col.UNIT_MAPS].find({}).to_list()}
    assert all(m["parsed_file"].endswith(".map.json") for m in maps.values())
    assert sorted(i for i, m in maps.items() if m.get("geojson_file")) == ROUTED_MAPS
    assert sorted(i for i, m in maps.items() if m.get("graph_file")) == ROUTED_MAPS
    assert sorted(i for i, m in maps.items() if "pathfinding" in m["tags"]) == ROUTED_MAPS
    places = await store[col.LOCATIONS].find({"derived": True}).sort("_id").to_list()
    derived = [
        d for d in places if (d["tags"][0]["key"], d["tags"][0]["value"]) == ("svc:type", "unit")
    ]
    assert len(derived) == 100
    assert {d["unit_map_id"] for d in derived} == set(BUILDING_MAPS)
    connectors = [d for d in places if d not in derived]  # storage/imports/connector_places.py
    assert len(connectors) == 32
    assert {(d["name"], d["tags"][0]["value"]) for d in connectors} == {
        ("Elevator", "connector"),
        ("Stairs", "connector"),
    }
    first = derived[0]
    assert (first["_id"], first["name"], first["floors"]) == (
        "map-b1:b1-101",
        "101",
        [{"id": "b1-f1"}],
    )
    assert [(t["key"], t["value"]) for t in first["tags"]] == [
        ("svc:type", "unit"),
        ("svc:id", "b1-101"),
    ]
    given = await store[col.LOCATIONS].find_one({"_id": "loc-b1-101"})
    assert (first["x"], first["y"]) == (given["x"], given["y"])  # the centre of its rectangle
    assert len(maps[STACK_MAP_ID]["unit_ids"]) == 100
    # Four corners, one measured 30 cm off: the fit spreads it over all four.
    assert [line for line in report.lines() if "georeference" in line] == [
        f"{map_id}: georeference: affine fit of 4 control points, residual RMS 0.08 m, max 0.08 m"
        for map_id in sorted([*FLOOR_MAPS, *BUILDING_MAPS], key=lambda m: maps[m]["created_at"])
    ]

    again = await install_demo(store, tmp_path)  # `floorgate demo`: <data_dir>/demo/
    assert sum(c.inserted for c in again.counts.values()) == 0
    assert again.counts["units"].updated == 100
    assert again.files_unchanged == 32
    assert again.counts["locations"].deleted == 0
