"""The GeoJSON round trip (issue 35, point 5): an IMDF venue imported, its maps' GeoJSON
fetched through the API, and what comes back compared with the archive: every unit with
its name, category and level; the cloister's courtyard and shaft as interior rings at
the archive's coordinates (within 1e-6 degrees) and its area (within 0.1 %); walkways
and the other drawn spaces as polygons; every opening as a line (docs/geojson.md)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest_asyncio
from pyproj import Geod
from shapely.geometry import Polygon, shape

from parsing.imdf.venue import ImdfOptions
from resolvers.auth.keys import create_key
from resolvers.auth.permissions import DISTANCES_CALCULATE
from rest.app import create_app
from storage.imdf.dataset import dataset_from_path, import_venue
from tests._dbserver import fresh_store
from tests.venues.imdf_venues import Cloister, cloister, zip_bytes

DEGREES = 1e-6  # how far a position may come back from the archive's
GEOD = Geod(ellps="WGS84")


@dataclass
class Env:
    client: httpx.AsyncClient
    venue: Cloister
    key: str
    geojson: dict[str, dict[str, Any]]  # map id -> its GeoJSON
    units: dict[str, str]  # API unit id -> its API name


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def env(db_server, settings, tmp_path_factory) -> AsyncIterator[Env]:
    venue = cloister()
    archive = tmp_path_factory.mktemp("cloister") / "cloister.zip"
    archive.write_bytes(zip_bytes(venue.venue.files()))
    async with fresh_store(db_server) as store:
        await import_venue(
            store, dataset_from_path(archive, ImdfOptions()), limits=settings.svg_limits
        )
        key = (await create_key(store, "cloister", [DISTANCES_CALCULATE], None)).secret
        transport = httpx.ASGITransport(app=create_app(settings, store))
        async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as client:
            headers = {"API-Key": key}
            geojson = {}
            map_ids = [*venue.levels.values(), venue.venue.features["venue"][0]["id"]]
            for map_id in map_ids:
                found = await client.get(f"/v1/maps/{map_id}", headers=headers)
                assert found.status_code == 200, found.text
                url = found.json()["geojson_url"].replace("https://localhost:8443", "")
                response = await client.get(url)
                assert response.status_code == 200, response.text
                assert response.headers["content-type"] == "application/geo+json"
                geojson[map_id] = response.json()
            listed = await client.get("/v1/units?per-page=100", headers=headers)
            units = {unit["id"]: unit["name"] for unit in listed.json()["data"]}
            yield Env(client, venue, key, geojson, units)


def source(env: Env, kind: str) -> dict[str, dict[str, Any]]:
    return {feature["id"]: feature for feature in env.venue.venue.features[kind]}


def of_type(collection: dict[str, Any], feature_type: str) -> list[dict[str, Any]]:
    return [f for f in collection["features"] if f["properties"]["feature_type"] == feature_type]


def stack(env: Env) -> dict[str, Any]:
    return env.geojson[env.venue.venue.features["venue"][0]["id"]]


def same_ring(got: list[list[float]], want: list[list[float]]) -> bool:
    """The same closed ring within DEGREES, in the same direction, from any vertex."""
    got, want = got[:-1], want[:-1]
    if len(got) != len(want):
        return False
    for start in range(len(got)):
        turned = got[start:] + got[:start]
        if all(
            abs(a[0] - b[0]) <= DEGREES and abs(a[1] - b[1]) <= DEGREES
            for a, b in zip(turned, want, strict=True)
        ):
            return True
    return False


def same_polygon(got: dict[str, Any], want: dict[str, Any]) -> bool:
    """Both Polygons, every ring the same, in the same order."""
    rings, wanted = got["coordinates"], want["coordinates"]
    return (
        got["type"] == want["type"] == "Polygon"
        and len(rings) == len(wanted)
        and all(same_ring(a, b) for a, b in zip(rings, wanted, strict=True))
    )


def square_metres(geometry: dict[str, Any]) -> float:
    """Geodesic area on the WGS84 ellipsoid, holes taken out."""
    polygon = shape(geometry)
    assert isinstance(polygon, Polygon)
    area, _ = GEOD.geometry_area_perimeter(polygon)
    return abs(area)


# ---------------------------------------------------------------- units


async def test_every_unit_comes_back_with_its_name_category_and_level(env):
    levels = {feature["id"]: feature for feature in env.venue.venue.features["level"]}
    listed = 0
    for feature in env.venue.venue.features["unit"]:
        if feature["id"] not in env.units:
            continue  # drawn only: a space (below)
        listed += 1
        level = levels[feature["properties"]["level_id"]]
        for map_id in (level["id"], env.venue.venue.features["venue"][0]["id"]):
            found = {f["id"]: f for f in env.geojson[map_id]["features"]}
            got = found[f"unit:{feature['id']}"]["properties"]
            assert got["name"] == env.units[feature["id"]], feature["id"]
            assert got["category"] == feature["properties"]["category"]
            assert (got["level_name"], got["floor_id"]) == (
                level["properties"]["name"]["en"],
                level["id"],
            )
            assert got["level_uid"] == f"level-{level['id']}"
            assert same_polygon(found[f"unit:{feature['id']}"]["geometry"], feature["geometry"])
    assert listed == 4  # the cloister, two libraries and the reading room
    by_unit = {f["properties"]["unit_id"]: f["properties"] for f in of_type(stack(env), "unit")}
    assert by_unit[env.venue.units["cloister"]]["name"] == "Cloister"
    assert by_unit[env.venue.units["library1"]]["name"] == "Library 1"
    assert by_unit[env.venue.units["library1"]]["level_ordinal"] == 1
    assert by_unit[env.venue.units["reading"]]["category"] == "office"
    # Unnamed in the archive: the name the import gave it (docs/imdf.md, "Names").
    assert by_unit[env.venue.units["reading"]]["name"] == env.units[env.venue.units["reading"]]
    assert by_unit[env.venue.units["reading"]]["name"]


async def test_the_cloister_keeps_its_courtyard_and_its_shaft(env):
    cloister_id = env.venue.units["cloister"]
    want = source(env, "unit")[cloister_id]["geometry"]
    for collection in (env.geojson[env.venue.levels[0]], stack(env)):
        got = next(f for f in collection["features"] if f["id"] == f"unit:{cloister_id}")
        rings = got["geometry"]["coordinates"]
        assert len(rings) == 3  # the outline, the courtyard, the shaft
        assert same_ring(rings[1], want["coordinates"][1])  # the courtyard, clockwise
        assert same_ring(rings[2], want["coordinates"][2])  # the shaft
        assert not same_ring(rings[1], want["coordinates"][1][::-1])
        area, wanted = square_metres(got["geometry"]), square_metres(want)
        assert abs(area - wanted) <= wanted * 0.001
        # 40 x 40 less 20 x 15 less 3 x 3, to within the projection's scale error.
        assert abs(area - 1291.0) <= 1291.0 * 0.001


# ---------------------------------------------------------------- spaces and openings


async def test_walkways_and_the_lift_come_back_as_spaces(env):
    units = source(env, "unit")
    drawn = [f for f in env.venue.venue.features["unit"] if f["id"] not in env.units]
    assert {units[f["id"]]["properties"]["category"] for f in drawn} == {"walkway", "elevator"}
    spaces = of_type(stack(env), "space")
    assert len(spaces) == len(drawn) == 3
    for feature in drawn:
        level_id = feature["properties"]["level_id"]
        matches = [
            space
            for space in spaces
            if same_polygon(space["geometry"], feature["geometry"])
            and space["properties"]["floor_id"] == level_id
        ]
        assert len(matches) == 1, feature["id"]
        assert matches[0]["properties"]["category"] == feature["properties"]["category"]
        assert matches[0]["properties"]["level_uid"] == f"level-{level_id}"
    walkways = [s for s in spaces if s["properties"]["category"] == "walkway"]
    assert sorted(s["properties"]["level_name"] for s in walkways) == [
        "Ground Floor",
        "Upper Floor",
    ]


async def test_every_opening_comes_back_as_a_line(env):
    openings = source(env, "opening")
    for map_id, collection in env.geojson.items():
        on_map = [
            f
            for f in openings.values()
            if map_id not in env.venue.levels.values() or f["properties"]["level_id"] == map_id
        ]
        lines = of_type(collection, "opening")
        assert len(lines) == len(on_map), map_id
        for feature in on_map:
            want = feature["geometry"]["coordinates"]
            matches = [
                line
                for line in lines
                if line["geometry"]["type"] == "LineString"
                and line["properties"]["floor_id"] == feature["properties"]["level_id"]
                and len(line["geometry"]["coordinates"]) == len(want)
                and all(
                    abs(a[0] - b[0]) <= DEGREES and abs(a[1] - b[1]) <= DEGREES
                    for a, b in zip(line["geometry"]["coordinates"], want, strict=True)
                )
            ]
            assert len(matches) == 1, feature["id"]
    assert len(openings) == 5


async def test_the_bbox_covers_every_feature(env):
    for collection in env.geojson.values():
        west, south, east, north = collection["bbox"]
        for feature in collection["features"]:
            geometry = feature["geometry"]
            if geometry["type"] == "Point":
                positions = [geometry["coordinates"]]
            elif geometry["type"] == "LineString":
                positions = geometry["coordinates"]
            else:
                positions = [p for ring in geometry["coordinates"] for p in ring]
            assert all(west <= lon <= east and south <= lat <= north for lon, lat in positions)
