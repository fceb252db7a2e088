"""A newcomer's tour of the routing quickstart (spec, Endpoints note 3) on the demo property.

List the key's assets (E1), list each asset's unit maps (E9) with a large `per-page` and
pick one tagged `pathfinding`, fetch its locations (E17) and cache them by ETag, find
amenities with the E17 `tags` filter, then ask the distance matrix (E18) how far they are
from a unit. Only ids and URLs taken from responses are used; the paths are the documented
templates (spec, contract "Paths the spec hides")."""

from __future__ import annotations

import math
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from tests.conftest import Demo

Json = dict[str, Any]

LOCATIONS_FLAG = "locations-resource"
DISTANCES_FLAG = "distances"
AMENITIES = "svc:amenity==yes"
UNITS = "svc:type==unit"
FOOT_SPEED = 4.4  # ft/s, the contract's default (Distances)
METRES_PER_DEGREE = 111_320  # docs/geojson.md, "The residual"
FEET_PER_METRE = 1 / 0.3048
ROUNDING = 0.01  # E18 rounds distance and time to 2 decimals (docs/routing.md)


Tour = Demo  # the demo property (`make run`'s data, conftest.py) as a newcomer meets it


@pytest.fixture
def tour(demo: Demo) -> Tour:
    return demo


# ---------------------------------------------------------------- helpers


def segment(value: str) -> str:
    """An id as one path segment: ids are opaque and may hold any character."""
    return quote(value, safe="")


async def every_page(tour: Tour, path: str, params: dict[str, str]) -> list[Json]:
    """A paged list (E1, E9) to its end, following the absolute `next_url` it hands out."""
    response = await tour.client.get(path, params=params, headers=tour.headers())
    found: list[Json] = []
    while True:
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["paging"]["per_page"] == int(params["per-page"])
        found += body["data"]
        next_url = body["paging"]["next_url"]
        if next_url is None:
            return found
        assert next_url.startswith(f"{tour.settings.public_url}/v1/")
        response = await tour.client.get(next_url, headers=tour.headers())


async def routable_map(tour: Tour) -> Json:
    """Quickstart: the first asset (E1, in list order) with a map tagged `pathfinding`
    (E9 filtered by `asset`, large `per-page`); the first such map of it."""
    assets = await every_page(tour, "/v1/assets", {"per-page": "10000"})
    assert assets, "the demo key sees at least one asset"
    for asset in assets:
        maps = await every_page(tour, "/v1/maps", {"asset": asset["id"], "per-page": "10000"})
        assert {m["asset_id"] for m in maps} <= {asset["id"]}
        routable = [m for m in maps if "pathfinding" in m["tags"]]
        if routable:
            return routable[0]
    raise AssertionError("no asset of the key has a map tagged pathfinding")


async def locations(tour: Tour, unit_map: Json, tags: str | None = None) -> httpx.Response:
    """E17 through its spec path `/v1/unitmaps/{unitMapId}/locations`."""
    params = {} if tags is None else {"tags": tags}
    return await tour.client.get(
        f"/v1/unitmaps/{segment(unit_map['id'])}/locations",
        params=params,
        headers=tour.headers(LOCATIONS_FLAG),
    )


async def located(tour: Tour, unit_map: Json, tags: str | None = None) -> list[Json]:
    response = await locations(tour, unit_map, tags)
    assert response.status_code == 200, response.text
    return response.json()["data"]


def tag_pairs(location: Json) -> set[tuple[str, str]]:
    return {(tag["key"], tag["value"]) for tag in location["tags"]}


def waypoint(location: Json) -> Json:
    """What E18 repeats of a location: its id, name, position and (only) floor."""
    (floor,) = location["floors"]
    return {key: location[key] for key in ("id", "name", "x", "y")} | {"floor_id": floor["id"]}


async def distance_matrix(
    tour: Tour,
    unit_map: Json,
    sources: list[Json],
    targets: list[Json],
    mode: str,
    method: str | None = None,
    alias: bool = False,
) -> Json:
    """E18 with waypoints given by location id only; returns `data`."""
    data: Json = {
        "sources": [{"id": s["id"]} for s in sources],
        "targets": [{"id": t["id"]} for t in targets],
        "costing": "pedestrian",
        "costing_options": {"pedestrian": {"mode": mode}},
    }
    if method is not None:
        data["distance_method"] = method
    prefix = "/v1/maps" if alias else "/v1/unitmaps"
    response = await tour.client.post(
        f"{prefix}/{segment(unit_map['id'])}/distance-matrix",
        json={"data": data},
        headers=tour.headers(DISTANCES_FLAG),
    )
    assert response.status_code == 200, response.text
    return response.json()["data"]


def cells(answer: Json) -> dict[tuple[str, str], Json]:
    """(source id, target id) -> the answer's target object."""
    return {(s["id"], t["id"]): t for s in answer["sources"] for t in s["targets"]}


def ground_feet(a: list[float], b: list[float]) -> float:
    """Straight line between two GeoJSON positions in feet, by the local equirectangular
    approximation docs/geojson.md uses for its residuals."""
    (lon_a, lat_a), (lon_b, lat_b) = a, b
    east = (lon_b - lon_a) * METRES_PER_DEGREE * math.cos(math.radians((lat_a + lat_b) / 2))
    north = (lat_b - lat_a) * METRES_PER_DEGREE
    return math.hypot(east, north) * FEET_PER_METRE


async def fetch_file(tour: Tour, url: str, media_type: str) -> Json:
    """A file address handed out by E11: absolute, on the service, served without a key."""
    assert url.startswith(f"{tour.settings.public_url}/files/"), url
    response = await tour.client.get(url)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == media_type
    return response.json()


# ---------------------------------------------------------------- the tour


async def test_quickstart_finds_a_map_processed_for_pathfinding(tour):
    unit_map = await routable_map(tour)
    assert "pathfinding" in unit_map["tags"]
    # E11 gives the same map that the list gave, `url` and `geojson_url` included.
    response = await tour.client.get(f"/v1/maps/{segment(unit_map['id'])}", headers=tour.headers())
    assert response.status_code == 200
    assert response.json() == unit_map


async def test_locations_are_cached_per_map_and_refreshed_by_etag(tour):
    unit_map = await routable_map(tour)
    first = await locations(tour, unit_map)
    assert first.status_code == 200
    body = first.json()
    assert list(body) == ["data"]  # unenveloped: no `paging`
    assert body["data"], "a map processed for pathfinding has locations"
    assert {loc["unit_map_id"] for loc in body["data"]} == {unit_map["id"]}
    assert {loc["asset_id"] for loc in body["data"]} == {unit_map["asset_id"]}
    etag = first.headers["ETag"]
    assert first.headers["Cache-Control"] == "private, no-cache"

    # The alias under /v1/maps answers the same list with the same tag.
    alias = await tour.client.get(
        f"/v1/maps/{segment(unit_map['id'])}/locations", headers=tour.headers(LOCATIONS_FLAG)
    )
    assert alias.status_code == 200
    assert alias.json() == body
    assert alias.headers["ETag"] == etag

    # Revalidating the cached copy: nothing changed, so 304 and no body, on either path.
    for path in ("unitmaps", "maps"):
        again = await tour.client.get(
            f"/v1/{path}/{segment(unit_map['id'])}/locations",
            headers={**tour.headers(LOCATIONS_FLAG), "If-None-Match": etag},
        )
        assert again.status_code == 304, path
        assert again.content == b""
        assert again.headers["ETag"] == etag

    # A filtered list is another representation with its own tag.
    amenities = await locations(tour, unit_map, AMENITIES)
    assert amenities.status_code == 200
    assert amenities.headers["ETag"] != etag


async def test_amenities_by_tag_filter(tour):
    unit_map = await routable_map(tour)
    everything = await located(tour, unit_map)
    amenities = await located(tour, unit_map, AMENITIES)
    assert amenities, "the demo's maps have amenities"
    assert all(("svc:amenity", "yes") in tag_pairs(loc) for loc in amenities)
    # Exactly the tagged part of the full list, the same objects, a strict subset.
    assert amenities == [loc for loc in everything if ("svc:amenity", "yes") in tag_pairs(loc)]
    assert len(amenities) < len(everything)

    # Keys and values match case-insensitively; the spec's sample adds `-amenity`.
    assert await located(tour, unit_map, "SVC:Amenity==YES") == amenities
    without_amenity_key = await located(tour, unit_map, "svc:amenity==yes,-amenity")
    assert without_amenity_key == [
        loc for loc in amenities if "amenity" not in {tag["key"] for tag in loc["tags"]}
    ]
    assert 0 < len(without_amenity_key) < len(amenities)


async def test_distance_from_a_unit_to_every_amenity(tour):
    unit_map = await routable_map(tour)
    everything = {loc["id"]: loc for loc in await located(tour, unit_map)}
    unit = (await located(tour, unit_map, UNITS))[0]
    # Reversed, so that an answer in id order instead of request order shows.
    amenities = list(reversed(await located(tour, unit_map, AMENITIES)))
    assert [loc["id"] for loc in amenities] != sorted(loc["id"] for loc in amenities)
    assert unit["id"] in everything and all(a["id"] in everything for a in amenities)

    foot = await distance_matrix(tour, unit_map, [unit], amenities, "foot")
    assert foot["distance_method"] == "pathfinding"  # `default` on a map with a walk graph
    (source,) = foot["sources"]
    assert {k: v for k, v in source.items() if k != "targets"} == waypoint(unit) | {"index": 0}
    assert [t["index"] for t in source["targets"]] == list(range(len(amenities)))
    for target, amenity in zip(source["targets"], amenities, strict=True):
        assert {k: target[k] for k in ("id", "name", "x", "y", "floor_id")} == waypoint(amenity)
        assert isinstance(target["distance"], float) and target["distance"] > 0, target
        assert isinstance(target["time"], float) and target["time"] > 0, target
    # The other documented path of E18 answers the same.
    assert await distance_matrix(tour, unit_map, [unit], amenities, "foot", alias=True) == foot

    # A walk is never shorter than the straight line. The map's feet-per-unit scale is an
    # attribute of its SVG source, which no response links to, so the straight line comes
    # from two documented sources instead: E18's `euclidean` method (3-D, in feet) and the
    # GeoJSON that E11's `geojson_url` names (WGS84 positions of the same locations).
    straight = await distance_matrix(tour, unit_map, [unit], amenities, "foot", "euclidean")
    assert straight["distance_method"] == "euclidean"
    geojson = await fetch_file(tour, unit_map["geojson_url"], "application/geo+json")
    position = {
        feature["properties"]["location_id"]: feature["geometry"]["coordinates"]
        for feature in geojson["features"]
        if feature["properties"]["feature_type"] == "location"
    }
    # Each position may be off by the georeference's fit (and ~1 cm of rounding).
    slack = (2 * geojson["floorgate"]["max_residual_m"] + 0.02) * FEET_PER_METRE
    walks, lines = cells(foot), cells(straight)
    for pair, walk in walks.items():
        ground = ground_feet(position[pair[0]], position[pair[1]])
        line = lines[pair]["distance"]
        assert walk["distance"] >= line - ROUNDING, pair
        assert walk["distance"] >= ground - slack, pair
        assert line >= ground - slack, pair  # 3-D: at least the ground distance
        if waypoint(everything[pair[0]])["floor_id"] == waypoint(everything[pair[1]])["floor_id"]:
            assert math.isclose(line, ground, abs_tol=slack), pair  # same floor: equal
        assert math.isclose(lines[pair]["time"], line / FOOT_SPEED, abs_tol=ROUNDING), pair

    # Wheelchair routes use a part of the walk graph at a lower speed: never quicker.
    # Their *distance* may be shorter than on foot: routes minimise time, and an elevator
    # (10 ft per floor step) is shorter but slower than stairs (15 ft) (docs/unit-map-svg.md),
    # so the docs promise no order of distances between modes.
    wheelchair = await distance_matrix(tour, unit_map, [unit], amenities, "wheelchair")
    assert wheelchair["distance_method"] == "pathfinding"
    rolls = cells(wheelchair)
    assert list(rolls) == list(walks)
    for pair, roll in rolls.items():
        # The demo's walk paths reach every room in both modes (tests/storage/test_demo.py).
        assert roll["distance"] is not None and roll["time"] is not None, pair
        assert roll["time"] >= walks[pair]["time"], pair
        assert roll["distance"] >= lines[pair]["distance"] - ROUNDING, pair
    assert any(rolls[p]["time"] > walks[p]["time"] for p in rolls)  # 3.5 ft/s against 4.4


async def test_map_files_are_served_from_the_addresses_e11_gives(tour):
    unit_map = await routable_map(tour)
    response = await tour.client.get(f"/v1/maps/{segment(unit_map['id'])}", headers=tour.headers())
    assert response.status_code == 200
    found = response.json()
    assert found["url"] is not None and found["geojson_url"] is not None

    document = await fetch_file(tour, found["url"], "application/vnd.map+json")
    assert document["type"] == "application/vnd.map+json"
    floors = {
        level["tags"].get("floor") for level in document["elements"] if level["type"] == "Level"
    }
    everything = await located(tour, unit_map)
    assert {waypoint(loc)["floor_id"] for loc in everything} <= floors

    geojson = await fetch_file(tour, found["geojson_url"], "application/geo+json")
    assert geojson["type"] == "FeatureCollection"
    assert geojson["floorgate"]["map_id"] == unit_map["id"]
    assert sorted(
        f["properties"]["location_id"]
        for f in geojson["features"]
        if f["properties"]["feature_type"] == "location"
    ) == sorted(loc["id"] for loc in everything)
