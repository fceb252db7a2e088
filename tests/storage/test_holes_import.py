"""A drawing whose unit has a courtyard, stored by `floorgate import` (issue 35; docs/
svg-parsing.md, "Holes"): the unit's derived location stands in the unit, not in its
courtyard, and the GeoJSON gives the courtyard back as an interior ring."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest_asyncio
from shapely.geometry import Point, Polygon

from storage import collections as col
from storage.files import get_file
from storage.imports.importer import import_data
from tests._dbserver import fresh_store

OUTLINE = [(0.0, 0.0), (90.0, 0.0), (90.0, 90.0), (0.0, 90.0)]
COURT = [(30.0, 30.0), (60.0, 30.0), (60.0, 60.0), (30.0, 60.0)]
SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100">'
    '<g id="G" data-level="Ground" data-tag-floor="f1">'
    '<g data-layer="units">'
    '<path data-unit-id="u1" fill-rule="evenodd" '
    'd="M0,0 L90,0 L90,90 L0,90 Z M30,30 L60,30 L60,60 L30,60 Z"/>'
    '<rect data-unit-id="u2" x="100" y="0" width="50" height="50"/>'
    "</g>"
    '<g data-layer="paths"><polyline points="15,45 15,95 125,95 125,25"/></g>'
    "</g></svg>"
)


def dataset(folder: Path) -> dict[str, Any]:
    (folder / "m1.svg").write_text(SVG)
    return {
        "assets": [{"id": "a1", "market": "multifamily", "name": "Alpha"}],
        "floors": [{"id": "f1", "asset_id": "a1", "name": "Ground", "sort": 1}],
        "units": [
            {"id": "u1", "asset_id": "a1", "floor_id": "f1", "name": "Cloister"},
            {"id": "u2", "asset_id": "a1", "floor_id": "f1", "name": "Shop"},
        ],
        "unit_maps": [
            {
                "id": "m1",
                "asset_id": "a1",
                "name": "Main",
                "svg": "m1.svg",
                "georeference": {
                    "control_points": [
                        {"x": 0, "y": 0, "lon": 13.4, "lat": 52.5},
                        {"x": 200, "y": 0, "lon": 13.402, "lat": 52.5},
                        {"x": 0, "y": 100, "lon": 13.4, "lat": 52.499},
                    ]
                },
            }
        ],
    }


@pytest_asyncio.fixture(loop_scope="session")
async def store(db_server):
    async with fresh_store(db_server) as store:
        yield store


async def test_the_derived_location_is_not_in_the_courtyard(store, tmp_path):
    await import_data(store, dataset(tmp_path), tmp_path)
    location = await store[col.LOCATIONS].find_one({"_id": "m1:u1"})
    assert location is not None and location["derived"] is True
    point = Point(location["x"], location["y"])
    assert Polygon(OUTLINE, [COURT]).contains(point)  # the centroid (45, 45) is not
    # The pole of inaccessibility: a corner of the ring, 17.574 from both outer walls.
    assert abs(min(point.x, 90 - point.x) - 17.574) < 0.1
    assert abs(min(point.y, 90 - point.y) - 17.574) < 0.1
    shop = await store[col.LOCATIONS].find_one({"_id": "m1:u2"})
    assert (shop["x"], shop["y"]) == (125.0, 25.0)  # a unit without holes: its centroid


async def test_the_geojson_keeps_the_courtyard_and_the_unit_names(store, tmp_path):
    await import_data(store, dataset(tmp_path), tmp_path)
    unit_map = await store[col.UNIT_MAPS].find_one({"_id": "m1"})
    stored = await get_file(store, unit_map["geojson_file"])
    assert stored is not None
    features = {f["id"]: f for f in orjson.loads(stored.data)["features"]}
    cloister = features["unit:u1"]
    assert cloister["properties"]["name"] == "Cloister"
    assert cloister["properties"]["floor_id"] == "f1"
    assert cloister["geometry"]["coordinates"] == [
        [[13.4, 52.5], [13.4, 52.4991], [13.4009, 52.4991], [13.4009, 52.5], [13.4, 52.5]],
        [
            [13.4003, 52.4997],
            [13.4006, 52.4997],
            [13.4006, 52.4994],
            [13.4003, 52.4994],
            [13.4003, 52.4997],
        ],
    ]
    assert features["unit:u2"]["properties"]["name"] == "Shop"
    assert len(features["unit:u2"]["geometry"]["coordinates"]) == 1
