"""Directions: `route` on GraphQL and `POST /v1/unitmaps/{id}/route` (issue 18).

On the demo and on maps of our own (from test_distance_matrix): exact answers, every
error in the order of E18 (key, flag, permission, input, map, waypoints), unreachable
pairs as a null route with a reason, and a route's distance and time equal to E18's
for every pair of a sample of every demo map, on foot and by wheelchair.
"""

from __future__ import annotations

import itertools
import math
import random
import re
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import pytest_asyncio

from parsing.demo.drawings import BUILDINGS, FLOORS
from storage import collections as col
from storage.demo import install as demo
from tests.resolvers.wayfinding.test_distance_matrix import (
    FLAT_MAP,
    FOOT,
    ROUTE_MAP,
    STAIRS_MAP,
    STAIRS_STEP,
    WHEELCHAIR,
    Env,
    assert_access_in_order,
    demo_env,
    flag_message,
)

FLAGS = "directions, distances, locations-resource"
FEET_PER_UNIT = 0.25  # of the demo drawings
B1 = "map-b1"
GYM = "loc-b1-f1-gym@map-b1"
# Every demo map with walk paths (the stacking plan has none).
DEMO_MAPS = [
    *(demo.building_map_id(b) for b in BUILDINGS),
    *(demo.map_id(b, f) for b in BUILDINGS for f in FLOORS),
]
ROUTE_QUERY = """
query ($map: ID!, $from: WaypointInput!, $to: WaypointInput!, $mode: String) {
  route(unitMapId: $map, from: $from, to: $to, mode: $mode) {
    mode reason
    from { id name x y floorId } to { id name x y floorId }
    route { distance time steps legs { levelUid floorId distance time points { x y }
            connector { id kind x y fromLevelUid toLevelUid fromFloorId toFloorId
                        distance time } } }
  }
}"""


class RouteEnv(Env):
    """The distance-matrix tests' demo and maps, with the directions flag by default."""

    def headers(self, key: str | None = None, flags: str | None = FLAGS) -> dict[str, str]:
        return super().headers(key, flags)


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def env(db_server, settings, tmp_path_factory) -> AsyncIterator[RouteEnv]:
    async with demo_env(db_server, settings, tmp_path_factory.mktemp("route"), RouteEnv) as made:
        yield made


def rest_path(map_id: str, alias: bool = False) -> str:
    return f"/v1/maps/{map_id}/route" if alias else f"/v1/unitmaps/{map_id}/route"


async def post(
    env: RouteEnv,
    map_id: str,
    data: Any,
    *,
    key: str | None = None,
    flags: str | None = FLAGS,
    alias: bool = False,
) -> httpx.Response:
    return await env.client.post(
        rest_path(map_id, alias), json={"data": data}, headers=env.headers(key, flags)
    )


async def gql(
    env: RouteEnv, variables: dict[str, Any], key: str | None = None, flags: str | None = FLAGS
) -> dict[str, Any]:
    response = await env.client.post(
        "/graphql",
        json={"query": ROUTE_QUERY, "variables": variables},
        headers=env.headers(key, flags),
    )
    assert response.status_code == 200, response.text
    return response.json()


async def e18(
    env: RouteEnv, map_id: str, sources: list[dict], targets: list[dict], mode: str
) -> list[list[tuple[float | None, float | None]]]:
    response = await env.client.post(
        f"/v1/unitmaps/{map_id}/distance-matrix",
        json={
            "data": {
                "sources": sources,
                "targets": targets,
                "distance_method": "pathfinding",
                "costing_options": {"pedestrian": {"mode": mode}},
            }
        },
        headers=env.headers(),
    )
    assert response.status_code == 200, response.text
    return [
        [(t["distance"], t["time"]) for t in s["targets"]]
        for s in response.json()["data"]["sources"]
    ]


async def locations(env: RouteEnv, map_id: str) -> list[dict[str, Any]]:
    response = await env.client.get(f"/v1/maps/{map_id}/locations", headers=env.headers())
    assert response.status_code == 200
    return response.json()["data"]


def polyline_feet(points: list[dict[str, float]], feet_per_unit: float) -> float:
    return feet_per_unit * sum(
        math.dist((a["x"], a["y"]), (b["x"], b["y"])) for a, b in itertools.pairwise(points)
    )


VALID = {"from": {"id": "dm-a"}, "to": {"id": "dm-b"}}
FAILED = "Resource validation failed"


# ---------------------------------------------------------------- exact answers


async def test_a_straight_route_exactly(env):
    """Our map: one 100-unit line, 1 ft per unit, from one end to the other."""
    response = await post(env, ROUTE_MAP, VALID)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/json"
    end = {"name": "dm-b", "x": 110.0, "y": 10.0, "floor_id": "dm-f1"}
    assert response.json() == {
        "mode": "foot",
        "from": {"id": "dm-a", "name": "dm-a", "x": 10.0, "y": 10.0, "floor_id": "dm-f1"},
        "to": {"id": "dm-b", **end},
        "route": {
            "distance": 100.0,
            "time": round(100 / FOOT, 2),
            "steps": ["Start at dm-a", "Walk 100 ft, then arrive at dm-b"],
            "geometry": None,  # asked with "geometry": "geojson" (issue 49)
            "legs": [
                {
                    "level_uid": "L1",
                    "floor_id": "dm-f1",
                    "points": [{"x": 10.0, "y": 10.0}, {"x": 110.0, "y": 10.0}],
                    "distance": 100.0,
                    "time": round(100 / FOOT, 2),
                    "connector": None,
                }
            ],
            "maneuvers": [
                {
                    "type": "depart",
                    "modifier": None,
                    "bearing_before": 0,
                    "bearing_after": 90,
                    "location": {"x": 10.0, "y": 10.0},
                    "leg_index": 0,
                    "point_index": 0,
                    "distance": 100.0,
                    "time": round(100 / FOOT, 2),
                    "landmark": None,
                    "side": None,
                    "connector": None,
                    "via_index": None,
                    "instruction": "Start at dm-a",
                    "then": [],
                },
                {
                    "type": "arrive",
                    "modifier": None,
                    "bearing_before": 90,
                    "bearing_after": 0,
                    "location": {"x": 110.0, "y": 10.0},
                    "leg_index": 0,
                    "point_index": 1,
                    "distance": 0.0,
                    "time": 0.0,
                    "landmark": None,
                    "side": None,
                    "connector": None,
                    "via_index": None,
                    "instruction": "Walk 100 ft, then arrive at dm-b",
                    "then": [],
                },
            ],
        },
        "reason": None,
        "via": None,
        "visit_order": None,
        "optimized": None,
        "closures": [],
    }
    alias = await post(env, ROUTE_MAP, VALID, alias=True)
    assert alias.status_code == 200 and alias.json() == response.json()


async def test_from_a_place_to_itself(env):
    """Zero feet, one leg of one point, as E18's 0 for a pair of equal waypoints: depart
    then arrive, at that point (issue 33)."""
    response = await post(env, ROUTE_MAP, {"from": {"id": "dm-a"}, "to": {"id": "dm-a"}})
    assert response.status_code == 200, response.text
    route = response.json()["route"]
    assert [
        (m["type"], m["location"], m["point_index"], m["distance"], m["bearing_after"])
        for m in route.pop("maneuvers")
    ] == [
        ("depart", {"x": 10.0, "y": 10.0}, 0, 0.0, 0),
        ("arrive", {"x": 10.0, "y": 10.0}, 0, 0.0, 0),
    ]
    assert route == {
        "distance": 0.0,
        "time": 0.0,
        "steps": ["Start at dm-a", "Arrive at dm-a"],
        "geometry": None,
        "legs": [
            {
                "level_uid": "L1",
                "floor_id": "dm-f1",
                "points": [{"x": 10.0, "y": 10.0}],
                "distance": 0.0,
                "time": 0.0,
                "connector": None,
            }
        ],
    }


async def test_an_ad_hoc_point_off_the_line_walks_to_it(env):
    """(60, 40) is 30 units below the line: the route starts there, goes straight up to
    the line (30 ft), then along it to dm-b (50 ft)."""
    response = await post(
        env,
        ROUTE_MAP,
        {
            "from": {"x": 60, "y": 40, "floor_id": "dm-f1"},
            "to": {"id": "dm-b"},
            "mode": "wheelchair",
        },
    )
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["mode"] == "wheelchair"
    assert answer["from"] == {"id": None, "name": None, "x": 60.0, "y": 40.0, "floor_id": "dm-f1"}
    (leg,) = answer["route"]["legs"]
    assert leg["points"] == [
        {"x": 60.0, "y": 40.0},
        {"x": 60.0, "y": 10.0},
        {"x": 110.0, "y": 10.0},
    ]
    assert answer["route"]["distance"] == 80.0
    assert answer["route"]["time"] == round(80 / WHEELCHAIR, 2)


async def test_stairs_between_levels_are_a_connector_between_legs(env):
    """Our stairs map: S1 and S2 each a 100-unit line, stairs at the east end (x 110).
    On foot from the west end of S1 to the west end of S2: 100 ft, the stairs (15 ft,
    12 s), 100 ft back."""
    start = {"x": 10, "y": 10, "floor_id": "dm-f1"}
    end = {"x": 10, "y": 10, "floor_id": "dm-f2"}
    response = await post(env, STAIRS_MAP, {"from": start, "to": end})
    assert response.status_code == 200, response.text
    route = response.json()["route"]
    assert (route["distance"], route["time"]) == (215.0, round(200 / FOOT + STAIRS_STEP, 2))
    first, second = route["legs"]
    assert first["connector"] == {
        "id": "s",
        "kind": "stairs",
        "x": 110.0,
        "y": 10.0,
        "from_level_uid": "S1",
        "to_level_uid": "S2",
        "from_floor_id": "dm-f1",
        "to_floor_id": "dm-f2",
        "distance": 15.0,
        "time": STAIRS_STEP,
    }
    assert [p["x"] for p in first["points"]] == [10.0, 110.0]
    assert [p["x"] for p in second["points"]] == [110.0, 10.0]
    assert (first["level_uid"], second["level_uid"], second["connector"]) == ("S1", "S2", None)
    assert route["steps"] == [
        "Start at your location",
        "Walk 100 ft, then take the stairs up to F2",
        "Walk 100 ft, then arrive at your destination on F2",
    ]


# ---------------------------------------------------------------- no route


async def test_unreachable_pairs_are_a_null_route_with_a_reason(env):
    """Stairs only: no wheelchair route between S1 and S2; S3 has no walk paths; a map
    without walk paths has no route at all. Each is a 200 with `route: null`."""
    s1, s2, s3 = ({"x": 10, "y": 10, "floor_id": f"dm-f{n}"} for n in (1, 2, 3))
    cases = [
        (
            STAIRS_MAP,
            s1,
            s2,
            "wheelchair",
            "no walk path usable by wheelchair joins the start and the destination",
        ),
        (STAIRS_MAP, s3, s1, "foot", "no walk path usable on foot on the start's level"),
        (
            STAIRS_MAP,
            s1,
            s3,
            "wheelchair",
            "no walk path usable by wheelchair on the destination's level",
        ),
        (
            FLAT_MAP,
            s1,
            s2,
            "foot",
            "this map has no walk paths (it is not processed for pathfinding)",
        ),
    ]
    for map_id, start, end, mode, reason in cases:
        response = await post(env, map_id, {"from": start, "to": end, "mode": mode})
        assert response.status_code == 200, response.text
        answer = response.json()
        assert (answer["route"], answer["reason"], answer["mode"]) == (None, reason, mode)
        as_gql = await gql(
            env, {"map": map_id, "from": _camel(start), "to": _camel(end), "mode": mode}
        )
        assert as_gql["data"]["route"]["route"] is None
        assert as_gql["data"]["route"]["reason"] == reason


def _camel(waypoint: dict[str, Any]) -> dict[str, Any]:
    return {("floorId" if key == "floor_id" else key): value for key, value in waypoint.items()}


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize("alias", [False, True], ids=["unitmaps", "maps"])
async def test_access_in_order(env, alias):
    path = rest_path(ROUTE_MAP, alias)
    bad_units = {"data": {**VALID, "units": "x" * 100_000}}
    for payload in ({"data": VALID}, {"data": {}}, bad_units):
        # `distances` alone does not open directions.
        await assert_access_in_order(
            env, path, payload, "directions", "distances, locations-resource"
        )


async def test_graphql_access(env):
    variables = {"map": ROUTE_MAP, "from": {"id": "dm-a"}, "to": {"id": "dm-b"}}
    no_flag = await gql(env, variables, flags="distances")
    assert no_flag["data"] is None
    assert no_flag["errors"][0]["message"] == flag_message("directions")
    assert no_flag["errors"][0]["extensions"]["code"] == "FLAG_REQUIRED"
    denied = await gql(env, variables, key=env.plain)
    assert denied["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    ok = await gql(env, variables)
    assert "errors" not in ok
    assert ok["data"]["route"]["route"]["distance"] == 100.0


async def test_graphql_input_errors_are_keyed_by_argument(env):
    off_map = {"x": 1, "y": 2, "floorId": "dm-f9"}
    answer = await gql(
        env, {"map": ROUTE_MAP, "from": {"id": "nope"}, "to": off_map, "mode": "bike"}
    )
    assert answer["data"] is None
    (error,) = answer["errors"]
    assert error["extensions"]["code"] == "BAD_USER_INPUT"
    assert error["extensions"]["fields"] == {
        "mode": ["must be one of foot, wheelchair, not 'bike'"]
    }
    on_map = await gql(env, {"map": ROUTE_MAP, "from": {"id": "nope"}, "to": off_map})
    assert on_map["errors"][0]["extensions"]["fields"] == {
        "from.id": ["no location 'nope' on this map"],
        "to.floorId": ["floor 'dm-f9' is not a level of this map"],
    }


async def test_scope_unknown_map_and_map_of_another_asset(env):
    for map_id, key in (("no-such-map", env.full), (B1, env.other)):
        response = await post(env, map_id, VALID, key=key)
        assert (response.status_code, response.json()) == (404, {"message": "Not found"})
        as_gql = await gql(env, {"map": map_id, "from": {"id": "x"}, "to": {"id": "y"}}, key=key)
        assert as_gql["errors"][0]["extensions"]["code"] == "NOT_FOUND"
    own = await post(env, ROUTE_MAP, VALID, key=env.other)
    assert own.status_code == 200


@pytest.mark.parametrize(
    ("data", "fields"),
    [
        (
            {"from": {"id": "nope"}, "to": {"id": "dm-b"}},
            {"data.from.id": ["no location 'nope' on this map"]},
        ),
        (
            {"from": {"id": "dm-a"}, "to": {"id": "loc-b1-f1-gym"}},
            {"data.to.id": ["no location 'loc-b1-f1-gym' on this map"]},
        ),
        (
            {"from": {"x": 1, "y": 2, "floor_id": "dm-f9"}, "to": {"id": "dm-b"}},
            {"data.from.floor_id": ["floor 'dm-f9' is not a level of this map"]},
        ),
        (
            {"from": {"x": 1}, "to": {"id": "dm-b"}},
            {
                "data.from.y": ["is required for a waypoint without an id"],
                "data.from.floor_id": ["is required for a waypoint without an id"],
            },
        ),
        (
            {"from": {"id": "dm-a", "x": 11}, "to": {"id": "dm-b"}},
            {"data.from.x": ["is 11.0, but location 'dm-a' is at 10"]},
        ),
        (
            {"from": {"id": "dm-a"}, "to": {"id": "dm-b"}, "mode": "bike"},
            {"data.mode": ["must be one of foot, wheelchair, not 'bike'"]},
        ),
        ({"from": {"id": "dm-a"}}, {"data.to": ["is required"]}),
        (
            {"from": {"id": "dm-a"}, "to": {"id": "dm-b"}, "stops": []},
            {"data.stops": ["is not a known field"]},
        ),
        (
            {"from": {"x": "west", "y": 0, "floor_id": "dm-f1"}, "to": {"id": "dm-b"}},
            {"data.from.x": ["must be a number"]},
        ),
        ({"from": {"id": "dm-a"}, "to": None}, {"data.to": ["must not be null"]}),
        (
            {"from": {"id": ""}, "to": {"x": 1e300, "y": 0, "floor_id": "dm-f1"}},
            {
                "data.from.id": ["must not be empty"],
                "data.to.x": ["must be a number from -1e+09 to 1e+09"],
            },
        ),
        ([], {"data": ["must be an object"]}),
    ],
)
async def test_invalid_input(env, data, fields):
    response = await post(env, ROUTE_MAP, data)
    assert (response.status_code, response.json()) == (422, {"message": FAILED, "fields": fields})


async def test_body_shape_and_media_type(env):
    headers = env.headers()
    not_json = await env.client.post(
        rest_path(ROUTE_MAP), content=b"{", headers={**headers, "Content-Type": "application/json"}
    )
    assert not_json.status_code == 422
    assert list(not_json.json()["fields"]) == ["body"]
    no_data = await env.client.post(rest_path(ROUTE_MAP), json=VALID, headers=headers)
    assert (no_data.status_code, no_data.json()["fields"]) == (
        422,
        {"body": ['must be a JSON object with a "data" member']},
    )
    text = await env.client.post(
        rest_path(ROUTE_MAP), content=b"x", headers={**headers, "Content-Type": "text/plain"}
    )
    assert text.status_code == 415
    get = await env.client.get(rest_path(ROUTE_MAP), headers=headers)
    assert (get.status_code, get.headers["allow"]) == (405, "POST")


# ---------------------------------------------------------------- the demo, against E18


async def test_across_floors_by_elevator_in_a_wheelchair(env):
    """From a unit on b1's top floor to the gym on its ground floor: on foot and by
    wheelchair the route's distance and time are E18's; the wheelchair rides the
    elevator, never the stairs; legs start and end where their connectors are."""
    found = await locations(env, B1)
    unit = next(
        loc
        for loc in found
        if loc["floors"][0]["id"] == "b1-f4"
        and any(tag["key"] == "svc:type" for tag in loc["tags"])
    )
    for mode in ("foot", "wheelchair"):
        response = await post(
            env, B1, {"from": {"id": unit["id"]}, "to": {"id": GYM}, "mode": mode}
        )
        assert response.status_code == 200, response.text
        route = response.json()["route"]
        (((distance, time),),) = await e18(env, B1, [{"id": unit["id"]}], [{"id": GYM}], mode)
        assert (route["distance"], route["time"]) == (distance, time)
        legs = route["legs"]
        assert (legs[0]["floor_id"], legs[-1]["floor_id"]) == ("b1-f4", "b1-f1")
        rides = [leg["connector"] for leg in legs[:-1]]
        assert all(ride is not None for ride in rides)
        if mode == "wheelchair":
            assert [ride["kind"] for ride in rides] == ["elevator"]
            assert rides[0]["id"] == "b1-elevator"
            assert (rides[0]["from_floor_id"], rides[0]["to_floor_id"]) == ("b1-f4", "b1-f1")
            assert re.fullmatch(
                r"Walk \d+ ft, then take the elevator down 3 floors to Floor 1", route["steps"][-3]
            )
        assert re.fullmatch(
            r"Walk \d+ ft, then arrive at Fitness Center on your right", route["steps"][-1]
        )
        for before, after in itertools.pairwise(legs):
            ride = before["connector"]
            assert before["points"][-1] == {"x": ride["x"], "y": ride["y"]}
            assert after["points"][0] == {"x": ride["x"], "y": ride["y"]}
        total = sum(leg["distance"] + (leg["connector"] or {}).get("distance", 0) for leg in legs)
        assert total == pytest.approx(route["distance"], abs=0.01 * (len(legs) * 2))


@pytest.mark.parametrize("map_id", DEMO_MAPS)
async def test_routes_equal_e18_on_random_pairs_of_every_demo_map(env, map_id):
    """Random pairs of locations and ad-hoc points of the map, both modes: distance and
    time are E18's, each leg's polyline is as long as its distance."""
    rng = random.Random(map_id)
    found = await locations(env, map_id)
    map_answer = await env.client.get(f"/v1/maps/{map_id}", headers=env.headers())
    assert map_answer.status_code == 200
    waypoints: list[dict[str, Any]] = [{"id": loc["id"]} for loc in rng.sample(found, 8)]
    for loc in rng.sample(found, 4):
        dx, dy = rng.uniform(-20, 20), rng.uniform(-20, 20)
        waypoints.append(
            {"x": loc["x"] + dx, "y": loc["y"] + dy, "floor_id": loc["floors"][0]["id"]}
        )
    pairs = [(a, b) for a in waypoints for b in waypoints if rng.random() < 0.35][:30]
    assert len(pairs) >= 10
    for mode in ("foot", "wheelchair"):
        for a, b in pairs:
            response = await post(env, map_id, {"from": a, "to": b, "mode": mode})
            assert response.status_code == 200, response.text
            answer = response.json()
            (((distance, time),),) = await e18(env, map_id, [a], [b], mode)
            if distance is None:
                assert answer["route"] is None and answer["reason"], answer
                continue
            route = answer["route"]
            assert (route["distance"], route["time"]) == (distance, time), (a, b, mode)
            for leg in route["legs"]:
                assert polyline_feet(leg["points"], FEET_PER_UNIT) == pytest.approx(
                    leg["distance"], abs=0.006
                )
                if mode == "wheelchair" and leg["connector"]:
                    assert leg["connector"]["kind"] != "stairs"


async def test_failed_requests_change_nothing(env):
    """A route only reads: the database is the same after a bad and a good request. Not
    `readers`: the process records its request budget there before its first read through
    the switch gate (`switch_gate._record_budget`), whatever the read; alone, this test's
    requests were the process's first."""
    names = [n for n in await env.store.db.list_collection_names() if n != col.READERS]
    before = {name: await env.store[name].count_documents({}) for name in names}
    await post(env, ROUTE_MAP, {"from": {"id": "nope"}, "to": {"id": "dm-b"}})
    await post(env, ROUTE_MAP, VALID)
    after = {name: await env.store[name].count_documents({}) for name in names}
    assert after == before
