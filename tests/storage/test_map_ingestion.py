"""Maps stored with their drawing: units, level tags, files and GeoJSON come from the SVG.

Every test runs on a database of its own (tests/_dbserver.py) and reads back through
the real app where the result is something a client sees.
"""

from __future__ import annotations

import copy
import json
from itertools import pairwise
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
import pytest_asyncio
from shapely.geometry import Point, Polygon

import storage.imports.importer as importer_module
from parsing.parsed_map import document_bytes
from parsing.svg import parse_unit_map
from resolvers.auth.keys import create_key
from resolvers.auth.permissions import ADMIN, ALL_PERMISSIONS
from rest.app import create_app
from storage import collections as col
from storage.datasets import sections
from storage.datasets.fields import DatasetError
from storage.files import content_name, get_file
from storage.imports.importer import import_data
from storage.settings import Settings
from tests._dbserver import fresh_store

T0 = "2026-02-01T12:00:00+00:00"
PUBLIC = "https://maps.floorgate.test"
LON0, LAT0 = -122.34, 47.6

LEVEL_1_UNITS = (
    '<rect data-unit-id="u1" x="0" y="0" width="100" height="100" fill="#fff"/>'
    '<rect data-unit-id="u2" x="100" y="0" width="100" height="100" fill="#fff"/>'
)


def drawing(level_1_units: str = LEVEL_1_UNITS, floor_2: str = "f2") -> str:
    """Two levels; u3 sits in a translated units layer on level 2."""
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="200" '
        'data-feet-per-unit="0.5">\n'
        '<g id="L1" data-level="Level 1" data-tag-building="main" data-tag-floor="f1" '
        'data-level-index="1">\n'
        f'<g data-layer="units">{level_1_units}</g>\n'
        "</g>\n"
        f'<g id="L2" data-level="Level 2" data-tag-building="main" data-tag-floor="{floor_2}" '
        'data-level-index="2">\n'
        '<g data-layer="units" transform="translate(200 0)">\n'
        '<rect data-unit-id="u3" x="0" y="0" width="100" height="100"/>\n'
        "</g>\n"
        "</g>\n"
        "</svg>\n"
    )


def georeference() -> dict[str, Any]:
    """lon = LON0 + 0.00001 x, lat = LAT0 - 0.00001 y: exact, so the residual is 0."""
    return {
        "control_points": [
            {"x": 0, "y": 0, "lon": LON0, "lat": LAT0},
            {"x": 400, "y": 0, "lon": LON0 + 0.004, "lat": LAT0},
            {"x": 0, "y": 200, "lon": LON0, "lat": LAT0 - 0.002},
        ]
    }


def dataset(folder: Path, svg: str | None = None, **map_fields: Any) -> dict[str, Any]:
    (folder / "m1.svg").write_text(svg if svg is not None else drawing())
    unit_map = {
        "id": "m1",
        "asset_id": "a1",
        "name": "Main",
        "svg": "m1.svg",
        "level_tags": [
            {"key": "building", "name": "Building", "values": [{"value": "main", "name": "Main"}]}
        ],
        **map_fields,
    }
    return {
        "assets": [{"id": "a1", "market": "multifamily", "name": "Alpha"}],
        "floors": [
            {"id": "f1", "asset_id": "a1", "name": "Floor 1", "sort": 1},
            {"id": "f2", "asset_id": "a1", "name": "Floor 2", "sort": 2},
        ],
        "units": [
            {"id": f"u{n}", "asset_id": "a1", "floor_id": "f1" if n < 3 else "f2", "name": str(n)}
            for n in range(1, 5)
        ],
        "unit_maps": [unit_map],
        "locations": [
            {
                "id": "loc-pool",
                "asset_id": "a1",
                "unit_map_id": "m1",
                "name": "Pool",
                "x": 300,
                "y": 150,
                "floors": [{"id": "f2"}],
                "tags": [{"key": "svc:amenity", "value": "yes"}],
            },
        ],
    }


@pytest_asyncio.fixture(loop_scope="session")
async def store(db_server):
    async with fresh_store(db_server) as store:
        yield store


@pytest.fixture(autouse=True)
def clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importer_module, "now", lambda: T0)


@pytest_asyncio.fixture(loop_scope="session")
async def client(store, tmp_path):
    settings = Settings(data_dir=tmp_path, public_url=PUBLIC, rate_limit_per_second=0)
    app = create_app(settings, store)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as client:
        secret = (await create_key(store, "ops", list(ALL_PERMISSIONS), None)).secret
        client.headers["API-Key"] = secret
        yield client


async def snapshot(store) -> dict[str, list[dict[str, Any]]]:
    names = (*sections.REPORTED, "fs.files")
    return {name: await store[name].find({}, {"uploadDate": 0}).to_list() for name in names}


# ---------------------------------------------------------------- derived from the drawing


async def test_import_derives_units_level_tags_and_files(store, tmp_path):
    report = await import_data(store, dataset(tmp_path), tmp_path)
    unit_map = await store[col.UNIT_MAPS].find_one({"_id": "m1"})
    assert unit_map["unit_ids"] == ["u1", "u2", "u3"]
    assert unit_map["feet_per_unit"] == 0.5
    parsed = document_bytes(parse_unit_map(drawing()))
    assert unit_map["parsed_file"] == content_name("m1", parsed, ".map.json")
    assert unit_map["source_file"] == content_name("m1", drawing().encode(), ".source.svg")
    assert unit_map["geojson_file"] is None  # no georeference
    assert (await get_file(store, unit_map["parsed_file"])).data == parsed
    assert (await get_file(store, unit_map["source_file"])).data == drawing().encode()
    tags = await store[col.LEVEL_TAGS].find({}, {"_id": 0}).sort("key").to_list()
    assert tags == [
        {
            "unit_map_id": "m1",
            "key": "building",
            "name": "Building",
            "values": [{"name": "Main", "value": "main", "created_at": T0, "updated_at": T0}],
            "created_at": T0,
            "updated_at": T0,
        },
        # Not named by the import: the key and the values name themselves.
        {
            "unit_map_id": "m1",
            "key": "floor",
            "name": "floor",
            "values": [
                {"name": "f1", "value": "f1", "created_at": T0, "updated_at": T0},
                {"name": "f2", "value": "f2", "created_at": T0, "updated_at": T0},
            ],
            "created_at": T0,
            "updated_at": T0,
        },
    ]
    assert "map files: 2 stored, 0 unchanged" in report.lines()


async def test_map_files_are_served_with_long_caching(store, tmp_path, client):
    await import_data(store, dataset(tmp_path), tmp_path)
    unit_map = (await client.get("/v1/maps/m1")).json()
    stored = await store[col.UNIT_MAPS].find_one({"_id": "m1"})
    parsed_file = stored["parsed_file"]
    assert unit_map["url"] == f"{PUBLIC}/files/{parsed_file}"
    assert unit_map["geojson_url"] is None
    response = await client.get(unit_map["url"].removeprefix(PUBLIC))
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/vnd.map+json"
    assert response.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert response.content == document_bytes(parse_unit_map(drawing()))
    again = await client.get(
        unit_map["url"].removeprefix(PUBLIC), headers={"If-None-Match": response.headers["etag"]}
    )
    assert again.status_code == 304
    source = await client.get(f"/files/{stored['source_file']}")  # content-addressed too
    assert source.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert source.headers["content-type"] == "image/svg+xml"


async def test_reimport_removes_units_that_left_the_svg(store, tmp_path, client):
    await import_data(store, dataset(tmp_path), tmp_path)
    first = (await store[col.UNIT_MAPS].find_one({"_id": "m1"}))["parsed_file"]
    only_u1 = '<rect data-unit-id="u1" x="0" y="0" width="100" height="100"/>'
    report = await import_data(store, dataset(tmp_path, drawing(only_u1)), tmp_path)
    unit_map = await store[col.UNIT_MAPS].find_one({"_id": "m1"})
    assert unit_map["unit_ids"] == ["u1", "u3"]
    listed = (await client.get("/v1/maps/m1/units")).json()["data"]
    assert [unit["id"] for unit in listed] == ["u1", "u3"]
    assert (await client.get("/v1/maps/m1/units/u2")).status_code == 404
    assert unit_map["parsed_file"] != first
    assert await get_file(store, first) is None  # the old version is gone
    names = sorted(f.filename for f in await store.files.find({}).to_list())
    assert names == sorted([unit_map["source_file"], unit_map["parsed_file"]])
    assert "map files: 2 stored, 0 unchanged" in report.lines()
    unchanged = await import_data(store, dataset(tmp_path, drawing(only_u1)), tmp_path)
    assert "map files: 0 stored, 2 unchanged" in unchanged.lines()


async def test_level_tags_follow_the_drawing_on_reimport(store, tmp_path):
    await import_data(store, dataset(tmp_path), tmp_path)
    without_building = drawing().replace(' data-tag-building="main"', "")
    await import_data(store, dataset(tmp_path, without_building, level_tags=[]), tmp_path)
    keys = [tag["key"] for tag in await store[col.LEVEL_TAGS].find({}).to_list()]
    assert keys == ["floor"]


# ---------------------------------------------------------------- problems: nothing written


@pytest.mark.parametrize(
    ("change", "problems"),
    [
        (
            {"svg": drawing('<rect data-unit-id="zz" width="5" height="5"/>')},
            ['$.unit_maps[0].svg: line 3: unknown unit "zz"'],
        ),
        (
            {"svg": drawing(floor_2="f9")},
            ['$.unit_maps[0].svg: line 5: level "Level 2": unknown floor "f9"'],
        ),
        (
            {"svg": '<svg xmlns="http://www.w3.org/2000/svg">\n<g>\n</svg>'},
            [
                "$.unit_maps[0].svg: is not a usable unit map: malformed XML: Opening and "
                "ending tag mismatch: g line 2 and svg (line 3, column 7)"
            ],
        ),
        (
            {"unit_ids": ["u1"]},
            [
                "$.unit_maps[0].unit_ids: must be left out: the drawing's units layers list "
                "the units"
            ],
        ),
        (
            {"level_tags": [{"key": "wing", "name": "Wing", "values": []}]},
            ['$.unit_maps[0].level_tags[0].key: no level of the drawing has the tag "wing"'],
        ),
        (
            {
                "level_tags": [
                    {"key": "floor", "name": "Floor", "values": [{"value": "f7", "name": "Seven"}]}
                ]
            },
            [
                "$.unit_maps[0].level_tags[0].values[0].value: no level of the drawing has "
                'floor = "f7"'
            ],
        ),
        (
            {"georeference": {"control_points": georeference()["control_points"][:2]}},
            [
                "$.unit_maps[0].georeference.control_points: at least 3 control points are "
                "needed, got 2"
            ],
        ),
    ],
)
async def test_drawing_problems_write_nothing(store, tmp_path, change, problems):
    await import_data(store, dataset(tmp_path), tmp_path)
    before = await snapshot(store)
    data = dataset(tmp_path, change.pop("svg", None))
    data["unit_maps"][0].update(change)
    with pytest.raises(DatasetError) as raised:
        await import_data(store, data, tmp_path)
    assert [str(problem) for problem in raised.value.problems] == problems
    assert await snapshot(store) == before


async def test_a_georeference_needs_a_drawing(store, tmp_path):
    data = dataset(tmp_path, georeference=georeference())
    del data["unit_maps"][0]["svg"]
    data["unit_maps"][0]["level_tags"] = []
    with pytest.raises(DatasetError) as raised:
        await import_data(store, data, tmp_path)
    assert [str(p) for p in raised.value.problems] == [
        "$.unit_maps[0].georeference: needs a drawing (svg) to place on the earth"
    ]


# ---------------------------------------------------------------- GeoJSON


async def test_georeferenced_map_gets_geojson(store, tmp_path, client):
    report = await import_data(store, dataset(tmp_path, georeference=georeference()), tmp_path)
    assert "m1: georeference: affine fit of 3 control points, residual RMS 0.00 m, max 0.00 m" in (
        report.lines()
    )
    unit_map = (await client.get("/v1/maps/m1")).json()
    assert unit_map["geojson_url"].startswith(f"{PUBLIC}/files/maps/m1/")
    response = await client.get(unit_map["geojson_url"].removeprefix(PUBLIC))
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/geo+json"
    assert response.headers["cache-control"] == "public, max-age=31536000, immutable"
    collection = response.json()
    assert collection["type"] == "FeatureCollection"
    kinds = [(f["properties"]["feature_type"], f["id"]) for f in collection["features"]]
    assert kinds == [
        ("level", "level:L1"),
        ("level", "level:L2"),
        ("unit", "unit:u1"),
        ("unit", "unit:u2"),
        ("unit", "unit:u3"),
        ("location", "location:loc-pool"),
    ]
    u3 = collection["features"][4]
    ring = u3["geometry"]["coordinates"][0]
    assert ring[0] == ring[-1]
    corners = {(round(lon, 7), round(lat, 7)) for lon, lat in ring}
    assert corners == {
        (round(LON0 + 0.002, 7), LAT0),
        (round(LON0 + 0.003, 7), LAT0),
        (round(LON0 + 0.003, 7), round(LAT0 - 0.001, 7)),
        (round(LON0 + 0.002, 7), round(LAT0 - 0.001, 7)),
    }
    area = sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in pairwise(ring))
    assert area > 0  # counterclockwise: the right-hand rule of RFC 7946
    assert u3["properties"]["unit_id"] == "u3"
    assert u3["properties"]["level_uid"] == "L2"
    pool = collection["features"][5]
    assert pool["geometry"] == {"type": "Point", "coordinates": [LON0 + 0.003, LAT0 - 0.0015]}
    assert pool["properties"]["tags"] == {"svc:amenity": "yes"}


async def test_geojson_follows_changed_locations(store, tmp_path):
    await import_data(store, dataset(tmp_path, georeference=georeference()), tmp_path)
    first = (await store[col.UNIT_MAPS].find_one({"_id": "m1"}))["geojson_file"]
    moved = dataset(tmp_path)
    locations_only = {"locations": copy.deepcopy(moved["locations"])}
    locations_only["locations"][0]["x"] = 310
    await import_data(store, locations_only, tmp_path)
    second = (await store[col.UNIT_MAPS].find_one({"_id": "m1"}))["geojson_file"]
    assert second != first
    assert await get_file(store, first) is None
    collection = json.loads((await get_file(store, second)).data)
    assert collection["features"][-1]["geometry"]["coordinates"][0] == LON0 + 0.0031


async def test_geojson_follows_a_renamed_unit(store, tmp_path):
    """An import of units alone that renames one rewrites the GeoJSON of the maps that
    draw it (its features carry unit names); the file before is dropped."""
    await import_data(store, dataset(tmp_path, georeference=georeference()), tmp_path)
    first = (await store[col.UNIT_MAPS].find_one({"_id": "m1"}))["geojson_file"]
    units_only = {"units": copy.deepcopy(dataset(tmp_path)["units"])}
    units_only["units"][0]["name"] = "Lobby"
    report = await import_data(store, units_only, tmp_path)
    assert report.lines() == [
        "units: 0 inserted, 4 updated",
        "map files: 0 stored, 0 unchanged",
        "m1: georeference: affine fit of 3 control points, residual RMS 0.00 m, max 0.00 m",
    ]
    second = (await store[col.UNIT_MAPS].find_one({"_id": "m1"}))["geojson_file"]
    assert second != first
    assert await get_file(store, first) is None
    features = {f["id"]: f for f in json.loads((await get_file(store, second)).data)["features"]}
    assert features["unit:u1"]["properties"]["name"] == "Lobby"
    assert features["unit:u2"]["properties"]["name"] == "2"
    # The same names again: nothing is renamed, the GeoJSON stays.
    await import_data(store, units_only, tmp_path)
    assert (await store[col.UNIT_MAPS].find_one({"_id": "m1"}))["geojson_file"] == second


# ---------------------------------------------------------------- putUnitMap

PUT = """mutation ($input: UnitMapInput!, $svg: String!) {
  putUnitMap(input: $input, svg: $svg) { id url geojsonUrl units { id } levelTags { key name } }
}"""


async def put(client, input_: dict[str, Any], svg: str, key: str | None = None):
    headers = {"API-Key": key} if key else {}
    body = {"query": PUT, "variables": {"input": input_, "svg": svg}}
    return await client.post("/graphql", json=body, headers=headers)


async def test_put_unit_map_stores_the_drawing(store, tmp_path, client):
    data = dataset(tmp_path)
    data["unit_maps"], data["locations"] = [], []
    await import_data(store, data, tmp_path)
    input_ = {
        "id": "m9",
        "assetId": "a1",
        "name": "Put",
        "georeference": {
            "controlPoints": [
                {"x": p["x"], "y": p["y"], "lon": p["lon"], "lat": p["lat"]}
                for p in georeference()["control_points"]
            ]
        },
        "levelTags": [
            {"key": "floor", "name": "Floor", "values": [{"value": "f1", "name": "Floor 1"}]}
        ],
    }
    response = await put(client, input_, drawing())
    assert response.status_code == 200, response.text
    result = response.json()["data"]["putUnitMap"]
    parsed = document_bytes(parse_unit_map(drawing()))
    assert result["url"] == f"{PUBLIC}/files/{content_name('m9', parsed, '.map.json')}"
    assert result["geojsonUrl"].startswith(f"{PUBLIC}/files/maps/m9/")
    assert [unit["id"] for unit in result["units"]] == ["u1", "u2", "u3"]
    assert result["levelTags"] == [
        {"key": "building", "name": "building"},
        {"key": "floor", "name": "Floor"},
    ]


async def test_put_unit_map_problems_are_422_and_write_nothing(store, tmp_path, client):
    await import_data(store, dataset(tmp_path), tmp_path)
    before = await snapshot(store)
    bad = await put(client, {"id": "m1", "assetId": "nope", "name": "X"}, "<svg><g></svg>")
    assert bad.status_code == 200
    error = bad.json()["errors"][0]
    assert error["message"] == "Resource validation failed"
    assert error["extensions"]["code"] == "BAD_USER_INPUT"
    assert error["extensions"]["fields"] == {
        "input.assetId": ['unknown asset "nope"'],
        "svg": [
            "is not a usable unit map: malformed XML: Opening and ending tag mismatch: "
            "g line 1 and svg (line 1, column 15)"
        ],
    }
    assert await snapshot(store) == before


async def test_put_unit_map_needs_admin(store, client):
    plain = await create_key(store, "reader", [p for p in ALL_PERMISSIONS if p != ADMIN], None)
    input_ = {"id": "m1", "assetId": "a1", "name": "X"}
    response = await put(client, input_, "<svg/>", plain.secret)
    assert response.json()["errors"][0]["message"] == (
        "Access denied: missing permission service.admin"
    )
    assert await store[col.UNIT_MAPS].count_documents({}) == 0


def test_parsed_document_bytes_are_json():
    # The stored document is what E10 answers for the same drawing.
    assert orjson.loads(document_bytes(parse_unit_map(drawing())))["version"] == "1.2"


# ---------------------------------------------------------------- holes (issue 35)

# A unit with a courtyard (docs/svg-parsing.md, "Holes"): its derived location stands in
# the unit, not in the courtyard, and the GeoJSON gives the courtyard back as a ring.
HOLED_OUTLINE = [(0.0, 0.0), (90.0, 0.0), (90.0, 90.0), (0.0, 90.0)]
HOLED_COURT = [(30.0, 30.0), (60.0, 30.0), (60.0, 60.0), (30.0, 60.0)]
HOLED_SVG = (
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


def holed_dataset(folder: Path) -> dict[str, Any]:
    (folder / "m1.svg").write_text(HOLED_SVG)
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


async def test_the_derived_location_is_not_in_the_courtyard(store, tmp_path):
    await import_data(store, holed_dataset(tmp_path), tmp_path)
    location = await store[col.LOCATIONS].find_one({"_id": "m1:u1"})
    assert location is not None and location["derived"] is True
    point = Point(location["x"], location["y"])
    assert Polygon(HOLED_OUTLINE, [HOLED_COURT]).contains(point)  # the centroid (45, 45) is not
    # The pole of inaccessibility: a corner of the ring, 17.574 from both outer walls.
    assert abs(min(point.x, 90 - point.x) - 17.574) < 0.1
    assert abs(min(point.y, 90 - point.y) - 17.574) < 0.1
    shop = await store[col.LOCATIONS].find_one({"_id": "m1:u2"})
    assert (shop["x"], shop["y"]) == (125.0, 25.0)  # a unit without holes: its centroid


async def test_the_geojson_keeps_the_courtyard_and_the_unit_names(store, tmp_path):
    await import_data(store, holed_dataset(tmp_path), tmp_path)
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
