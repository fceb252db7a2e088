"""WGS84 waypoints (issue 49, point 1): `{lon, lat, level}` and `{lon, lat, floorId}` on
the demo's georeferenced maps, through REST and GraphQL, for `route` and E18.

A waypoint at a location's point (the fit's own lon/lat of it, unrounded) gives the
same route as the location's id: distance, time and legs, for random pairs; every
refusal with its status and body.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from parsing.geo.georeference import distance_m
from parsing.geo.level_outlines import level_outlines
from storage import collections as col
from storage.files import get_file
from tests.resolvers.wayfinding.on_the_earth import fit_of, location_levels
from tests.resolvers.wayfinding.test_distance_matrix import body, demo_env
from tests.resolvers.wayfinding.test_distance_matrix import post as post_e18
from tests.resolvers.wayfinding.test_route import (
    FAILED,
    ROUTE_QUERY,
    RouteEnv,
    gql,
    locations,
    post,
)

B1 = "map-b1"
MAPS = ["map-b1", "map-b1-f2", "map-b2"]
PAIRS_PER_MAP = 12
NOT_GEOREFERENCED = "this map is not georeferenced"
ROUTE_WITH_LEVEL = ROUTE_QUERY.replace("levelUid floorId distance", "levelUid floorId distance")


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def env(db_server, settings, tmp_path_factory) -> AsyncIterator[RouteEnv]:
    async with demo_env(db_server, settings, tmp_path_factory.mktemp("wgs84"), RouteEnv) as made:
        yield made


def refused(fields: dict[str, list[str]]) -> tuple[int, dict[str, Any]]:
    return 422, {"message": FAILED, "fields": fields}


async def at_location(env: RouteEnv, map_id: str, location: dict[str, Any], by: str) -> dict:
    """The location as a WGS84 waypoint: the fit's lon/lat of its point, with the level
    its GeoJSON feature carries (`by="level"`) or its floor (`by="floor_id"`)."""
    fit = await fit_of(env.store, map_id)
    lon, lat = fit.apply(location["x"], location["y"])
    if by == "level":
        return {
            "lon": lon,
            "lat": lat,
            "level": (await location_levels(env.store, map_id))[location["id"]],
        }
    return {"lon": lon, "lat": lat, "floor_id": location["floors"][0]["id"]}


def same_route(by_point: dict[str, Any], by_id: dict[str, Any]) -> None:
    """Distance, time and legs (their points too) exactly equal."""
    assert by_point["distance"] == by_id["distance"]
    assert by_point["time"] == by_id["time"]
    assert by_point["legs"] == by_id["legs"]


@pytest.mark.parametrize("map_id", MAPS)
async def test_a_waypoint_at_a_locations_point_routes_as_its_id(env, map_id):
    found = await locations(env, map_id)
    rng = random.Random(f"49-{map_id}")
    for index in range(PAIRS_PER_MAP):
        a, b = rng.sample(found, 2)
        by = "level" if index % 2 == 0 else "floor_id"
        start = await at_location(env, map_id, a, by)
        end = await at_location(env, map_id, b, "level")
        by_id = await post(env, map_id, {"from": {"id": a["id"]}, "to": {"id": b["id"]}})
        by_point = await post(env, map_id, {"from": start, "to": end})
        assert by_id.status_code == by_point.status_code == 200, by_point.text
        answer = by_point.json()
        assert answer["from"]["floor_id"] == a["floors"][0]["id"]
        assert (answer["from"]["x"], answer["from"]["y"]) == (a["x"], a["y"])
        same_route(answer["route"], by_id.json()["route"])


async def test_graphql_takes_lon_lat_and_level(env):
    a, b = (await locations(env, B1))[:2]
    start = await at_location(env, B1, a, "level")
    end = await at_location(env, B1, b, "floor_id")
    end = {"lon": end["lon"], "lat": end["lat"], "floorId": end["floor_id"]}
    by_point = await gql(env, {"map": B1, "from": start, "to": end})
    by_id = await gql(env, {"map": B1, "from": {"id": a["id"]}, "to": {"id": b["id"]}})
    assert "errors" not in by_point, by_point
    ours, theirs = by_point["data"]["route"]["route"], by_id["data"]["route"]["route"]
    assert (ours["distance"], ours["time"]) == (theirs["distance"], theirs["time"])
    assert [leg["levelUid"] for leg in ours["legs"]] == [leg["levelUid"] for leg in theirs["legs"]]


async def test_e18_takes_lon_lat_entries(env):
    found = await locations(env, B1)
    sources, targets = found[:3], found[10:13]
    as_ids = body([{"id": s["id"]} for s in sources], [{"id": t["id"]} for t in targets])
    as_points = body(
        [await at_location(env, B1, s, "level") for s in sources],
        [await at_location(env, B1, t, "floor_id") for t in targets],
    )
    by_id, by_point = await post_e18(env, B1, as_ids), await post_e18(env, B1, as_points)
    assert by_id.status_code == by_point.status_code == 200, by_point.text

    def cells(answer: dict) -> list[list[tuple[float, float]]]:
        return [
            [(t["distance"], t["time"]) for t in s["targets"]] for s in answer["data"]["sources"]
        ]

    assert cells(by_point.json()) == cells(by_id.json())
    assert by_point.json()["data"]["sources"][0]["floor_id"] == sources[0]["floors"][0]["id"]


async def test_euclidean_e18_takes_them_too(env):
    found = await locations(env, B1)
    a, b = found[0], found[20]
    options = {"distance_method": "euclidean"}
    by_id = await post_e18(env, B1, body([{"id": a["id"]}], [{"id": b["id"]}], **options))
    start, end = await at_location(env, B1, a, "level"), await at_location(env, B1, b, "level")
    by_point = await post_e18(env, B1, body([start], [end], **options))
    assert by_point.status_code == 200, by_point.text
    assert (
        by_point.json()["data"]["sources"][0]["targets"][0]["distance"]
        == (by_id.json()["data"]["sources"][0]["targets"][0]["distance"])
    )


# ---------------------------------------------------------------- refusals

LON, LAT = -122.3423, 47.6061  # on map-b1's ground floor


@pytest.mark.parametrize(
    ("start", "fields"),
    [
        (
            {"lon": 200.0, "lat": LAT, "level": "0"},
            {"data.from.lon": ["must be a number from -180 to 180"]},
        ),
        (
            {"lon": LON, "lat": -90.5, "level": "0"},
            {"data.from.lat": ["must be a number from -90 to 90"]},
        ),
        ({"lon": LON, "level": "0"}, {"data.from.lat": ["is required with lon"]}),
        ({"lat": LAT, "floor_id": "b1-f1"}, {"data.from.lon": ["is required with lat"]}),
        (
            {"level": "0"},
            {
                "data.from.lon": ["is required with a level"],
                "data.from.lat": ["is required with a level"],
            },
        ),
        (
            {"lon": LON, "lat": LAT, "x": 10, "y": 10, "level": "0"},
            {"data.from.lon": ["cannot be given with x and y: give the point one way"]},
        ),
        (
            {"lon": LON, "lat": LAT, "id": "map-b1:b1-101"},
            {
                "data.from.id": [
                    "cannot be given with lon, lat or level: the location is the point"
                ],
                "data.from.level": ["a floor id or a level is required with lon and lat"],
            },
        ),
        (
            {"lon": LON, "lat": LAT},
            {"data.from.level": ["a floor id or a level is required with lon and lat"]},
        ),
        (
            {"lon": LON, "lat": LAT, "level": "0", "floor_id": "b1-f1"},
            {"data.from.level": ["cannot be given with a floor id: name the level one way"]},
        ),
        ({"lon": LON, "lat": LAT, "level": " "}, {"data.from.level": ["must not be empty"]}),
        (
            {"lon": LON, "lat": LAT, "level": "7"},
            {"data.from.level": ["level '7' is not a level of this map (its levels: 0, 1, 2, 3)"]},
        ),
        (
            {"lon": LON, "lat": LAT, "floor_id": "b9-f9"},
            {"data.from.floor_id": ["floor 'b9-f9' is not a level of this map"]},
        ),
    ],
)
async def test_refusals_of_a_wgs84_waypoint(env, start, fields):
    response = await post(env, B1, {"from": start, "to": {"id": "loc-b1-f1-gym@map-b1"}})
    assert (response.status_code, response.json()) == refused(fields)


async def test_a_map_without_georeference_refuses_lon_lat(env):
    start = {"lon": LON, "lat": LAT, "level": "0"}
    response = await post(env, "dm-route", {"from": start, "to": {"id": "dm-b"}})
    assert (response.status_code, response.json()) == refused(
        {"data.from.lon": [NOT_GEOREFERENCED]}
    )
    as_gql = await gql(env, {"map": "dm-route", "from": start, "to": {"id": "dm-b"}})
    assert as_gql["data"] is None
    (error,) = as_gql["errors"]
    assert error["message"] == FAILED
    assert error["extensions"] == {
        "code": "BAD_USER_INPUT",
        "fields": {"from.lon": [NOT_GEOREFERENCED]},
    }
    matrix = body([start], [{"id": "dm-b"}])
    response = await post_e18(env, "dm-route", matrix)
    assert (response.status_code, response.json()) == refused(
        {"data.sources.0.lon": [NOT_GEOREFERENCED]}
    )


async def test_the_outline_limit_is_five_metres_on_the_earth(env):
    """Points due east of the ground floor's outline (the box around its units), 4 m and
    6 m from it: the first is placed (and snapped), the second is 422 on the waypoint."""
    unit_map = await env.store[col.UNIT_MAPS].find_one({"_id": B1})
    stored = await get_file(env.store, unit_map["parsed_file"])
    assert stored is not None
    import orjson

    (ground,) = [o for o in level_outlines(orjson.loads(stored.data)) if o.uid == "level-b1-f1"]
    assert ground.box is not None
    x1, y0, y1 = ground.box[2], ground.box[1], ground.box[3]
    fit = await fit_of(env.store, B1)
    edge = fit.apply(x1, (y0 + y1) / 2)
    metres_per_unit = distance_m(*edge, *fit.apply(x1 + 100, (y0 + y1) / 2)) / 100
    gym = {"id": "loc-b1-f1-gym@map-b1"}
    near = fit.apply(x1 + 4 / metres_per_unit, (y0 + y1) / 2)
    inside = await post(
        env, B1, {"from": {"lon": near[0], "lat": near[1], "level": "0"}, "to": gym}
    )
    assert inside.status_code == 200, inside.text
    far = fit.apply(x1 + 6 / metres_per_unit, (y0 + y1) / 2)
    off = distance_m(*edge, *far)
    response = await post(
        env, B1, {"from": {"lon": far[0], "lat": far[1], "level": "0"}, "to": gym}
    )
    message = (
        f"({far[0]:g}, {far[1]:g}) is {off:.1f} m outside the outline of level '0': at most 5 m"
    )
    assert (response.status_code, response.json()) == refused({"data.from": [message]})
    assert f"is {off:.1f} m" == "is 6.0 m"


async def test_the_documented_example_of_the_limit(env):
    """docs/api.md and docs/limits.md quote this refusal."""
    start = {"lon": -122.35, "lat": 47.6062, "level": "0"}
    response = await post(env, B1, {"from": start, "to": {"id": "loc-b1-f1-gym@map-b1"}})
    assert (response.status_code, response.json()) == refused(
        {
            "data.from": [
                "(-122.35, 47.6062) is 562.8 m outside the outline of level '0': at most 5 m"
            ]
        }
    )


async def test_a_level_past_an_ids_length_is_refused_without_echoing_it(env):
    long = "9" * 256
    response = await post(
        env,
        B1,
        {"from": {"lon": LON, "lat": LAT, "level": long}, "to": {"id": "loc-b1-f1-gym@map-b1"}},
    )
    assert (response.status_code, response.json()) == refused(
        {"data.from.level": ["must be at most 255 characters"]}
    )


async def test_a_key_of_another_asset_gets_404_and_builds_no_frame(env):
    """A lon/lat route with GeoJSON asked by a key scoped to another asset is answered
    404 before the map's frame (its parsed document read) or graph is built."""
    services = env.app.services
    services.frame_cache.clear()
    services.graph_cache.clear()
    data = {
        "from": {"lon": LON, "lat": LAT, "level": "0"},
        "to": {"id": "loc-b1-f1-gym@map-b1"},
        "geometry": "geojson",
    }
    response = await post(env, B1, data, key=env.other)
    assert (response.status_code, response.json()) == (404, {"message": "Not found"})
    assert services.frame_cache.figures()["entries"] == 0
    assert services.graph_cache.figures()["entries"] == 0
    allowed = await post(env, B1, data)
    assert allowed.status_code == 200
    assert allowed.json()["route"]["geometry"]["type"] == "FeatureCollection"
    assert services.frame_cache.figures()["entries"] == 1
