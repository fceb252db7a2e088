"""Tiles never fail on geometry (issue 65, point 1), through import and the app: every
tile z14-18 over `tiles.json` bounds answers 200 or 204, for each OpenStreetMap place of
tests/data/ (the session's `osm_places`; Grand'Place answered 500 on 5 of its 27) and
for Crooked Arcade (tests/venues/crooked_arcade.py: unit polygons broken as real
archives' are), whose import names what it repaired or left out. Westport's sweep is in
tests/storage/imdf/test_westport.py, on the import its tests share. Data (c)
OpenStreetMap contributors, ODbL."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import mapbox_vector_tile
import orjson
import pytest
import pytest_asyncio
import shapely

from parsing.imdf.read import Report
from parsing.imdf.venue import ImdfOptions
from resolvers.auth.keys import create_key
from rest.app import create_app
from storage import collections as c
from storage.database import Store
from storage.datasets.map_drawings import GEOJSON_CONTENT_TYPE
from storage.files import content_name, get_file, put_file
from storage.imdf.dataset import import_venue
from storage.imports.writer import ImportReport
from tests._dbserver import fresh_store
from tests.conftest import OsmPlaces
from tests.resolvers.tiles.sweep import sweep, tile_of, tiles_over
from tests.venues.crooked_arcade import CrookedArcade, crooked_arcade
from tests.venues.run_cache import shared_venue_dataset

pytestmark = pytest.mark.asyncio(loop_scope="session")


@dataclass
class Imported:
    client: httpx.AsyncClient
    headers: dict[str, str]
    arcade: CrookedArcade
    asset: str  # Crooked Arcade's
    read: Report  # what reading its archive found
    report: ImportReport
    geojson: dict[str, dict[str, Any]]  # its maps' stored GeoJSON, by map id
    store: Store


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def imported(db_server: Any, settings: Any) -> AsyncIterator[Imported]:
    arcade = crooked_arcade()
    # converted once per run under xdist, for every module converting it so
    dataset = shared_venue_dataset(arcade.venue.files(), ImdfOptions())
    async with fresh_store(db_server) as store:
        report = await import_venue(store, dataset, limits=settings.svg_limits)
        assert isinstance(report, ImportReport)
        asset = dataset.data["assets"][0]["id"]
        maps = await store[c.UNIT_MAPS].find({"asset_id": asset}).sort("_id").to_list()
        files = {m["_id"]: await get_file(store, m["geojson_file"]) for m in maps}
        geojson = {name: orjson.loads(f.data) for name, f in files.items() if f}
        key = (await create_key(store, "tiles", [], None)).secret
        transport = httpx.ASGITransport(app=create_app(settings, store))
        async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as http:
            yield Imported(
                http, {"API-Key": key}, arcade, asset, dataset.report, report, geojson, store
            )


DRAWN = ("bowtie", "spike", "sliver", "duplicates", "hole-across", "hole-near", "hole-touching")


@pytest.mark.parametrize(
    ("asset", "tiles"),
    [("grand-place", 27), ("caserne", 17), ("gare-de-l-est", 16)],
)
async def test_every_tile_of_an_osm_place_answers(
    osm_places: OsmPlaces, asset: str, tiles: int
) -> None:
    """Grand'Place's column of 5 tiles at (14, 8452, 5883)... answered 500."""
    statuses, failed = await sweep(osm_places.client, osm_places.headers(), asset)
    assert failed == []
    assert statuses == {200: tiles}


async def test_every_tile_of_crooked_arcade_answers_with_its_units(imported: Imported) -> None:
    """Each unit is drawn but the one with no area, which the import left out."""
    statuses, failed = await sweep(imported.client, imported.headers, imported.asset)
    assert failed == []
    assert statuses == {200: 8}
    units = imported.arcade.units
    drawn: set[str] = set()
    tile_json = await imported.client.get(
        f"/v1/assets/{imported.asset}/tiles.json", headers=imported.headers
    )
    for z, x, y in tiles_over(tile_json.json()["bounds"]):
        answer = await imported.client.get(
            f"/v1/assets/{imported.asset}/tiles/{z}/{x}/{y}.mvt", headers=imported.headers
        )
        layers = mapbox_vector_tile.decode(answer.content)
        drawn |= {f["properties"]["id"] for f in layers.get("units", {}).get("features", [])}
    assert drawn == {units[key] for key in DRAWN}
    assert "invalid_geometry" not in tile_json.json()  # the import stored them valid


async def test_the_import_names_each_polygon_it_repaired_or_left_out(imported: Imported) -> None:
    """Invalid as written (the bow-tie, the hole across the wall): repaired when the
    archive is read. Broken on the GeoJSON's grid (the 0.2 mm spike, the hole 2 mm from
    the wall, the three points in a line): repaired or left out where the GeoJSON is
    stored, named in each map's note with what GEOS found and where."""
    units = imported.arcade.units
    assert imported.read.lines()[0] == (
        f"invalid polygon, repaired: 2 (e.g. {units['bowtie']}; {units['hole-across']})"
    )
    geometry = (
        f"geometry: 2 invalid polygons repaired (unit:{units['spike']}: self-intersection at "
        f"4.3522538 50.8467438; unit:{units['hole-near']}: self-intersection at 4.3524951 "
        "50.8466899), 1 invalid polygon left out: no area once made valid "
        f"(unit:{units['zero-area']}: self-intersection at 4.3520976 50.846636)"
    )
    notes = [note for note in imported.report.notes if "geometry:" in note]
    assert [note.split("; ", 1)[1] for note in notes] == [geometry, geometry]  # two maps
    for collection in imported.geojson.values():
        done = [(r["id"], r["action"]) for r in collection["floorgate"]["repaired"]]
        assert done == [  # in the drawing's order
            (f"unit:{units['zero-area']}", "left out: no area once made valid"),
            (f"unit:{units['spike']}", "repaired"),
            (f"unit:{units['hole-near']}", "repaired"),
        ]
        for feature in collection["features"]:
            if feature["geometry"] is not None:
                assert shapely.from_geojson(orjson.dumps(feature["geometry"])).is_valid


async def test_a_file_an_older_import_stored_invalid_never_fails_a_tile(
    imported: Imported,
) -> None:
    """GeoJSON files stored before imports checked validity stay in databases: each map
    given one whose every unit is a bow-tie (a self-crossing ring), its tiles still answer,
    each unit drawn as the two triangles the index makes of it."""
    maps = await imported.store[c.UNIT_MAPS].find({"asset_id": imported.asset}).to_list()
    kept = {m["_id"]: m["geojson_file"] for m in maps}
    try:
        for map_id, collection in imported.geojson.items():
            old = orjson.loads(orjson.dumps(collection))
            for feature in old["features"]:
                if feature["properties"]["feature_type"] == "unit":
                    shape = shapely.from_geojson(orjson.dumps(feature["geometry"]))
                    west, south, east, north = map(float, shapely.bounds(shape))
                    ring = [[west, south], [east, north], [east, south], [west, north]]
                    feature["geometry"] = {"type": "Polygon", "coordinates": [[*ring, ring[0]]]}
            data = orjson.dumps(old)
            name = content_name(map_id, data, ".geojson")
            await put_file(imported.store, name, data, GEOJSON_CONTENT_TYPE)
            await imported.store[c.UNIT_MAPS].update_one(
                {"_id": map_id}, {"$set": {"geojson_file": name}}
            )
        statuses, failed = await sweep(imported.client, imported.headers, imported.asset)
        assert failed == []
        assert statuses == {200: 8}
        tile_json = await imported.client.get(
            f"/v1/assets/{imported.asset}/tiles.json", headers=imported.headers
        )
        bowties = sorted(f"units:{imported.arcade.units[key]}" for key in DRAWN)
        assert sorted(tile_json.json()["invalid_geometry"]["repaired"]) == bowties
        assert tile_json.json()["invalid_geometry"]["left_out"] == []
        x, y = tile_of(4.3517, 50.8466, 14)  # the whole arcade
        tile = await imported.client.get(
            f"/v1/assets/{imported.asset}/tiles/14/{x}/{y}.mvt", headers=imported.headers
        )
        units = mapbox_vector_tile.decode(tile.content)["units"]["features"]
        assert {f["geometry"]["type"] for f in units} == {"MultiPolygon"}
    finally:
        for map_id, name in kept.items():
            await imported.store[c.UNIT_MAPS].update_one(
                {"_id": map_id}, {"$set": {"geojson_file": name}}
            )
