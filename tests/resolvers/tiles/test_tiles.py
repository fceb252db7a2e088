"""Vector tiles through the real app (docs/tiles.md), on the IMDF venue of
tests/venues/imdf_venues.py imported as `floorgate import-imdf` does
(tests/venues/viewer_buildings.py `install_exchange`): tiles decode with the standard
decoder, every feature has `level`, a tile's units are exactly the units whose geometry
meets the tile (computed here independently, with pyproj and shapely, from the stored
GeoJSON files), bad z/x/y are 422, another asset's key 404, ETag/304, and the TileJSON
and style hold what MapLibre needs and point at our addresses only."""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import mapbox_vector_tile
import orjson
import pytest
import pytest_asyncio
import shapely
from pyproj import Transformer
from shapely.geometry import shape

from resolvers.auth.keys import create_key
from rest.app import create_app
from storage import collections as c
from storage.files import get_file
from storage.settings import Settings
from tests._dbserver import fresh_store
from tests.conftest import PUBLIC_URL, with_schema
from tests.venues.viewer_buildings import install_exchange

pytestmark = pytest.mark.asyncio(loop_scope="module")

TO_MERCATOR = Transformer.from_crs("EPSG:4326", "EPSG:3857", always_xy=True)
HALF_WORLD = 20037508.342789244


@dataclass
class Venue:
    client: httpx.AsyncClient
    asset: str
    key: str
    other_key: str
    geojson: list[dict[str, Any]]  # the stored files of the asset's maps, by map id

    def headers(self) -> dict[str, str]:
        return {"API-Key": self.key}


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def venue(db_server, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Venue]:
    folder = Path(tmp_path_factory.mktemp("tiles"))
    settings = {}

    def settings_of(name: str) -> Settings:
        settings[name] = Settings(
            database_name=name, public_url=PUBLIC_URL, data_dir=folder, rate_limit_per_second=0
        )
        return settings[name]

    async with fresh_store(db_server, settings_of) as store:
        (config,) = settings.values()
        await install_exchange(store, config, folder)
        maps = await store[c.UNIT_MAPS].find({}).sort("_id").to_list()
        asset = maps[0]["asset_id"]
        files = [await get_file(store, m["geojson_file"]) for m in maps]
        key = (await create_key(store, "venue", [], [asset])).secret
        other = (await create_key(store, "other", [], ["another-asset"])).secret
        app = with_schema(create_app(config, store))
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as client:
            yield Venue(client, asset, key, other, [orjson.loads(f.data) for f in files if f])


def tile_of(lon: float, lat: float, z: int) -> tuple[int, int]:
    n = 1 << z
    x = int((lon + 180) / 360 * n)
    y = int((1 - math.asinh(math.tan(math.radians(lat))) / math.pi) / 2 * n)
    return x, y


def tile_box(z: int, x: int, y: int) -> shapely.Polygon:
    size = 2 * HALF_WORLD / (1 << z)
    west, north = -HALF_WORLD + x * size, HALF_WORLD - y * size
    return shapely.box(west, north - size, west + size, north)


def expected_units(venue: Venue, z: int, x: int, y: int) -> set[tuple[str, str]]:
    """(unit id, level) of every unit whose polygon meets the tile's inside, each floor
    from the map drawing the most levels (the stack map of this venue)."""
    stack = max(
        venue.geojson,
        key=lambda g: sum(f["properties"]["feature_type"] == "level" for f in g["features"]),
    )
    box = tile_box(z, x, y)
    found = set()
    for feature in stack["features"]:
        if feature["properties"]["feature_type"] != "unit":
            continue
        polygon = shapely.transform(shape(feature["geometry"]), lambda xy: _mercator(xy))
        if polygon.intersects(box) and not polygon.touches(box):
            found.add((feature["properties"]["unit_id"], feature["properties"]["level"]))
    return found


def _mercator(xy: Any) -> Any:
    import numpy as np

    x, y = TO_MERCATOR.transform(xy[:, 0], xy[:, 1])
    return np.column_stack((x, y))


async def test_tiles_decode_every_feature_has_a_level_and_units_are_those_meeting_the_tile(
    venue: Venue,
) -> None:
    west, south, east, north = venue.geojson[0]["bbox"]
    checked = 0
    for z in (17, 18, 19):
        x0, y0 = tile_of(west, north, z)
        x1, y1 = tile_of(east, south, z)
        for x in range(x0, x1 + 1):
            for y in range(y0, y1 + 1):
                url = f"/v1/assets/{venue.asset}/tiles/{z}/{x}/{y}.mvt"
                response = await venue.client.get(url, headers=venue.headers())
                assert response.status_code == 200, response.text
                assert response.headers["content-type"] == "application/vnd.mapbox-vector-tile"
                layers = mapbox_vector_tile.decode(response.content)
                for layer in layers.values():
                    assert layer["extent"] == 4096
                    for feature in layer["features"]:
                        assert feature["properties"]["level"] in {"-1", "0", "1", "2"}
                units = layers.get("units", {"features": []})["features"]
                got = {(f["properties"]["id"], f["properties"]["level"]) for f in units}
                assert got == expected_units(venue, z, x, y), (z, x, y)
                assert len(got) == len(units)  # each unit once
                checked += len(got)
    assert checked > 300


async def test_layers_and_their_properties(venue: Venue) -> None:
    west, south, east, north = venue.geojson[0]["bbox"]
    x, y = tile_of((west + east) / 2, (south + north) / 2, 16)
    url = f"/v1/assets/{venue.asset}/tiles/16/{x}/{y}.mvt"
    layers = mapbox_vector_tile.decode(
        (await venue.client.get(url, headers=venue.headers())).content
    )
    assert set(layers) == {"outline", "spaces", "units", "openings", "locations"}
    kinds = {
        name: {f["geometry"]["type"] for f in layer["features"]} for name, layer in layers.items()
    }
    assert kinds["units"] <= {"Polygon", "MultiPolygon"}
    assert kinds["openings"] <= {"LineString", "MultiLineString"}
    assert kinds["locations"] == {"Point"}
    assert sorted(f["properties"]["level"] for f in layers["outline"]["features"]) == [
        "-1",
        "0",
        "1",
        "2",
    ]
    unit = layers["units"]["features"][0]["properties"]
    assert set(unit) >= {"id", "floor_id", "level"}
    assert set(unit) <= {"id", "name", "category", "floor_id", "level"}


@pytest.mark.parametrize(
    ("path", "fields"),
    [
        ("13/0/0", {"z": ["must be from 14 to 22"]}),
        ("23/0/0", {"z": ["must be from 14 to 22"]}),
        ("14/16384/0", {"x": ["must be from 0 to 16383 at zoom 14"]}),
        (
            "14/-1/16384",
            {
                "x": ["must be from 0 to 16383 at zoom 14"],
                "y": ["must be from 0 to 16383 at zoom 14"],
            },
        ),
        ("14/a/0", {"x": ["must be an integer"]}),
    ],
)
async def test_tile_addresses_out_of_range_are_422(
    venue: Venue, path: str, fields: dict[str, Any]
) -> None:
    response = await venue.client.get(
        f"/v1/assets/{venue.asset}/tiles/{path}.mvt", headers=venue.headers()
    )
    assert response.status_code == 422
    assert response.json()["fields"] == fields


async def test_another_assets_key_and_an_unknown_asset_are_404(venue: Venue) -> None:
    url = f"/v1/assets/{venue.asset}/tiles/18/0/0.mvt"
    other = await venue.client.get(url, headers={"API-Key": venue.other_key})
    assert other.status_code == 404
    for route in ("tiles.json", "style.json"):
        response = await venue.client.get(
            f"/v1/assets/{venue.asset}/{route}", headers={"API-Key": venue.other_key}
        )
        assert response.status_code == 404
    unknown = await venue.client.get("/v1/assets/nowhere/tiles/18/0/0.mvt", headers=venue.headers())
    assert unknown.status_code == 404
    keyless = await venue.client.get(url)
    assert keyless.status_code == 401


async def test_etag_304_and_caching_by_where_the_key_is(venue: Venue) -> None:
    west, south, east, north = venue.geojson[0]["bbox"]
    x, y = tile_of((west + east) / 2, (south + north) / 2, 18)
    url = f"/v1/assets/{venue.asset}/tiles/18/{x}/{y}.mvt"
    plain = {**venue.headers(), "Accept-Encoding": "identity"}
    first = await venue.client.get(url, headers=plain)
    assert first.headers["cache-control"] == "private, max-age=300"
    assert "content-encoding" not in first.headers
    tag = first.headers["etag"]
    again = await venue.client.get(url, headers={**plain, "If-None-Match": tag})
    assert (again.status_code, again.content, again.headers["etag"]) == (304, b"", tag)
    queried = await venue.client.get(url, params={"api-key": venue.key})
    assert queried.status_code == 200
    assert queried.content == first.content
    assert queried.headers["cache-control"] == "public, max-age=300, s-maxage=600"
    gzipped = await venue.client.get(url, headers={**venue.headers(), "Accept-Encoding": "gzip"})
    assert gzipped.headers["content-encoding"] == "gzip"
    assert gzipped.headers["etag"] == tag[:-1] + '-gzip"'
    assert gzipped.content == first.content  # httpx decodes it
    # a tile is the same answer in every language (its features' default names)
    german = await venue.client.get(url + "?lang=de", headers={**plain, "Accept-Language": "fr"})
    assert (german.content, german.headers["etag"]) == (first.content, tag)
    assert "content-language" not in german.headers
    assert "Accept-Language" not in german.headers.get("vary", "")


async def test_tile_json_and_style_are_what_maplibre_reads_on_our_addresses(venue: Venue) -> None:
    tile_json = (
        await venue.client.get(f"/v1/assets/{venue.asset}/tiles.json", headers=venue.headers())
    ).json()
    assert tile_json["tilejson"] == "3.0.0"
    assert tile_json["tiles"] == [
        f"{PUBLIC_URL}/v1/assets/{venue.asset}/tiles/{{z}}/{{x}}/{{y}}.mvt"
    ]
    assert (tile_json["minzoom"], tile_json["maxzoom"]) == (14, 22)
    west, south, east, north = tile_json["bounds"]
    assert west < east and south < north
    assert [layer["id"] for layer in tile_json["vector_layers"]] == [
        "outline",
        "spaces",
        "units",
        "openings",
        "locations",
    ]
    assert set(tile_json["vector_layers"][2]["fields"]) == {
        "id",
        "name",
        "category",
        "floor_id",
        "level",
    }
    assert (tile_json["levels"], tile_json["default_level"]) == (["-1", "0", "1", "2"], "0")
    assert "rank" in tile_json["vector_layers"][4]["fields"]
    assert tile_json["level_names"] == {
        "-1": "Basement B1",
        "0": "Ground Floor",
        "1": "Mezzanine",
        "2": "First Floor",
    }
    style = (
        await venue.client.get(f"/v1/assets/{venue.asset}/style.json", headers=venue.headers())
    ).json()
    assert style["version"] == 8
    assert style["sources"] == {
        "floorgate": {"type": "vector", "url": f"{PUBLIC_URL}/v1/assets/{venue.asset}/tiles.json"}
    }
    assert "glyphs" not in style and "sprite" not in style  # no text, no icons: no other host
    hosts = {urlsplit(url).netloc for url in _urls(style) | _urls(tile_json)}
    assert hosts == {urlsplit(PUBLIC_URL).netloc}
    source_layers = {layer["id"] for layer in tile_json["vector_layers"]}
    for layer in style["layers"]:
        assert layer["source"] == "floorgate" and layer["source-layer"] in source_layers
        assert layer["type"] in {"fill", "line", "circle"}
        assert layer["filter"][1] == ["==", ["get", "level"], "0"]


def _urls(document: Any) -> set[str]:
    if isinstance(document, dict):
        return set().union(*(_urls(value) for value in document.values())) if document else set()
    if isinstance(document, list):
        return set().union(*(_urls(value) for value in document)) if document else set()
    return {document} if isinstance(document, str) and "://" in document else set()


async def test_an_asset_without_a_georeferenced_map_is_422(venue: Venue, db_server) -> None:
    async with fresh_store(db_server) as store:
        await store[c.ASSETS].insert_one({"_id": "plain", "name": "Plain", "market": "office"})
        key = (await create_key(store, "plain", [], None)).secret
        app = with_schema(create_app(Settings(database_name=store.db.name), store))
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as client:
            response = await client.get(
                "/v1/assets/plain/tiles/18/0/0.mvt", headers={"API-Key": key}
            )
    assert response.status_code == 422
    assert response.json()["fields"] == {
        "asset": ["has no georeferenced map: tiles need a map with a georeference"]
    }


async def test_every_map_of_the_venue_says_each_floor_s_ordinal(venue: Venue):
    """A level's own map and the stack map carry the same `level` for one floor: its
    IMDF ordinal (B1 -1, G 0, M 1, First Floor 2), never a position in one map's order."""
    ordinals = {"Basement B1": "-1", "Ground Floor": "0", "Mezzanine": "1", "First Floor": "2"}
    seen = []
    for collection in venue.geojson:
        levels = [f for f in collection["features"] if f["properties"]["feature_type"] == "level"]
        seen.append(len(levels))
        for level in levels:
            assert level["properties"]["level"] == ordinals[level["properties"]["name"]]
        by_uid = {f["properties"]["uid"]: f["properties"]["level"] for f in levels}
        for feature in collection["features"]:
            uid = feature["properties"].get("level_uid")
            if feature["properties"]["feature_type"] != "level" and uid is not None:
                assert feature["properties"]["level"] == by_uid[uid]
    assert sorted(seen) == [1, 1, 1, 1, 4]
