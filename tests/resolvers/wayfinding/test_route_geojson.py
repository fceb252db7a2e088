"""Routes as GeoJSON (issue 49, point 2): `"geometry": "geojson"` on REST, `route(geometry:
"geojson") { route { geojson } }` on GraphQL, on the demo's georeferenced maps.

For random pairs: one LineString per leg at the fit's lon/lat of the leg's points (7
decimals), one Point per connector and per maneuver, and a geodesic length (haversine)
within 1% of the walked distance x 0.3048: the route's `distance` on one level, less
its connector rides (vertical, not on the map) across levels. Every refusal exactly.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from tests.resolvers.wayfinding.on_the_earth import METRES_PER_FOOT, fit_of, line_length_m
from tests.resolvers.wayfinding.test_distance_matrix import demo_env
from tests.resolvers.wayfinding.test_route import FAILED, RouteEnv, locations, post

MAPS = ["map-b1", "map-b1-f1", "map-b1-f3", "map-b2", "map-b2-f2"]
PAIRS_PER_MAP = 20
GEOJSON_QUERY = """
query ($map: ID!, $from: WaypointInput!, $to: WaypointInput!, $geometry: String) {
  route(unitMapId: $map, from: $from, to: $to, geometry: $geometry) {
    route { distance geojson }
  }
}"""


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def env(db_server, settings, tmp_path_factory) -> AsyncIterator[RouteEnv]:
    async with demo_env(db_server, settings, tmp_path_factory.mktemp("geojson"), RouteEnv) as made:
        yield made


def refused(fields: dict[str, list[str]]) -> tuple[int, dict[str, Any]]:
    return 422, {"message": FAILED, "fields": fields}


async def graphql(env: RouteEnv, variables: dict[str, Any]) -> dict[str, Any]:
    response = await env.client.post(
        "/graphql", json={"query": GEOJSON_QUERY, "variables": variables}, headers=env.headers()
    )
    assert response.status_code == 200, response.text
    return response.json()


def seven(x: float, y: float, fit: Any) -> list[float]:
    lon, lat = fit.apply(x, y)
    return [round(lon, 7), round(lat, 7)]


@pytest.mark.parametrize("map_id", MAPS)
async def test_random_routes_as_geojson(env, map_id):
    fit = await fit_of(env.store, map_id)
    found = await locations(env, map_id)
    rng = random.Random(f"geojson-{map_id}")
    checked = 0
    for _ in range(PAIRS_PER_MAP):
        a, b = rng.sample(found, 2)
        data = {"from": {"id": a["id"]}, "to": {"id": b["id"]}, "geometry": "geojson"}
        response = await post(env, map_id, data)
        assert response.status_code == 200, response.text
        route = response.json()["route"]
        if route is None:
            continue
        collection = route["geometry"]
        assert collection["type"] == "FeatureCollection"
        assert collection["floorgate"]["map_id"] == map_id
        assert collection["floorgate"]["rms_residual_m"] == round(fit.rms_residual_m, 3)
        kinds = [f["properties"]["feature_type"] for f in collection["features"]]
        connectors = [leg["connector"] for leg in route["legs"] if leg["connector"]]
        assert kinds == (
            ["leg"] * len(route["legs"])
            + ["connector"] * len(connectors)
            + ["maneuver"] * len(route["maneuvers"])
        )
        lines = collection["features"][: len(route["legs"])]
        for index, (line, leg) in enumerate(zip(lines, route["legs"], strict=True)):
            assert line["geometry"]["type"] == "LineString"
            positions = [seven(p["x"], p["y"], fit) for p in leg["points"]]
            assert line["geometry"]["coordinates"] == (
                positions * 2 if len(positions) == 1 else positions
            )
            assert line["properties"] == {
                "feature_type": "leg",
                "leg_index": index,
                "level_uid": leg["level_uid"],
                "floor_id": leg["floor_id"],
                "level": str(int(leg["floor_id"][-1]) - 1) if map_id.count("-") == 1 else "0",
                "distance": leg["distance"],
                "time": leg["time"],
            }
        points = collection["features"][len(route["legs"]) + len(connectors) :]
        for point, maneuver in zip(points, route["maneuvers"], strict=True):
            location = maneuver["location"]
            assert point["geometry"] == {
                "type": "Point",
                "coordinates": seven(location["x"], location["y"], fit),
            }
            props = point["properties"]
            assert (props["type"], props["modifier"], props["instruction"], props["then"]) == (
                maneuver["type"],
                maneuver["modifier"],
                maneuver["instruction"],
                [told["modifier"] for told in maneuver["then"]],
            )
        walked = route["distance"] - sum(c["distance"] for c in connectors)
        metres = sum(line_length_m(line["geometry"]["coordinates"]) for line in lines)
        assert abs(metres - walked * METRES_PER_FOOT) <= 0.01 * walked * METRES_PER_FOOT, (
            metres,
            walked,
        )
        if not connectors:
            assert abs(metres - route["distance"] * METRES_PER_FOOT) <= 0.01 * route["distance"]
        checked += 1
    assert checked >= PAIRS_PER_MAP // 2


async def test_connectors_are_points_with_both_levels(env):
    found = {loc["id"]: loc for loc in await locations(env, "map-b1")}
    data = {
        "from": {"id": "loc-b1-f1-gym@map-b1"},
        "to": {"id": "map-b1:b1-413"},
        "geometry": "geojson",
    }
    assert "map-b1:b1-413" in found
    route = (await post(env, "map-b1", data)).json()["route"]
    fit = await fit_of(env.store, "map-b1")
    (connector,) = [
        f for f in route["geometry"]["features"] if f["properties"]["feature_type"] == "connector"
    ]
    leg = route["legs"][0]["connector"]
    assert connector == {
        "type": "Feature",
        "geometry": {"type": "Point", "coordinates": seven(leg["x"], leg["y"], fit)},
        "properties": {
            "feature_type": "connector",
            "leg_index": 0,
            "id": "b1-elevator",
            "kind": "elevator",
            "from_floor_id": "b1-f1",
            "to_floor_id": "b1-f4",
            "from_level": "0",
            "to_level": "3",
            "level": "0;3",
            "distance": leg["distance"],
            "time": leg["time"],
        },
    }


async def test_graphql_selects_it_and_rest_agrees(env):
    variables = {
        "map": "map-b1",
        "from": {"id": "loc-b1-f1-gym@map-b1"},
        "to": {"id": "map-b1:b1-413"},
        "geometry": "geojson",
    }
    answer = await graphql(env, variables)
    assert "errors" not in answer, answer
    rest = await post(
        env, "map-b1", {"from": variables["from"], "to": variables["to"], "geometry": "geojson"}
    )
    assert answer["data"]["route"]["route"]["geojson"] == rest.json()["route"]["geometry"]
    without = await graphql(env, {**variables, "geometry": None})
    assert without["data"]["route"]["route"] == {
        "distance": answer["data"]["route"]["route"]["distance"],
        "geojson": None,
    }
    plain = await post(env, "map-b1", {"from": variables["from"], "to": variables["to"]})
    assert plain.json()["route"]["geometry"] is None


async def test_refusals_of_geometry(env):
    start, end = {"id": "dm-a"}, {"id": "dm-b"}
    response = await post(env, "dm-route", {"from": start, "to": end, "geometry": "geojson"})
    assert (response.status_code, response.json()) == refused(
        {"data.geometry": ["this map is not georeferenced"]}
    )
    answer = await graphql(
        env, {"map": "dm-route", "from": start, "to": end, "geometry": "geojson"}
    )
    assert answer["data"] is None
    assert answer["errors"][0]["extensions"] == {
        "code": "BAD_USER_INPUT",
        "fields": {"geometry": ["this map is not georeferenced"]},
    }
    response = await post(
        env,
        "map-b1",
        {"from": {"id": "loc-b1-f1-gym@map-b1"}, "to": {"id": "map-b1:b1-413"}, "geometry": "kml"},
    )
    assert (response.status_code, response.json()) == refused(
        {"data.geometry": ["must be one of geojson, not 'kml'"]}
    )
    both = {"from": {"lon": 1.0, "lat": 2.0, "level": "0"}, "to": end, "geometry": "geojson"}
    response = await post(env, "dm-route", both)
    assert (response.status_code, response.json()) == refused(
        {
            "data.geometry": ["this map is not georeferenced"],
            "data.from.lon": ["this map is not georeferenced"],
        }
    )
