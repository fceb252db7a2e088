"""Costing options on E18 and route (issue 50, point 1: `costing_options.pedestrian`),
through the real app on the demo and on the maps of test_distance_matrix.

- Exact answers worked out by hand: the walking speed in km/h, a step penalty per
  flight, `exclude` (a word given twice counts once) and the `reason` naming the
  excluded kinds when only they stand in the way; the same answers on GraphQL.
- E18 equals route (distance and time) for the same options on many demo pairs, and a
  route's penalised time is never below its plain one.
- `to: {nearest}` chooses in the same options: E18's minimum with them.
- Every bad value refused with 422 on its own field, with what is allowed, on REST and
  GraphQL, for E18 and route; a route's `mode` and its options' `mode` must agree.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from resolvers.wayfinding.costing import EXCLUDE_WORDS, kmh_to_feet_per_second
from tests.resolvers.wayfinding.test_distance_matrix import (
    FOOT,
    ROUTE_MAP,
    STAIRS_MAP,
    STAIRS_STEP,
    demo_env,
)
from tests.resolvers.wayfinding.test_route import FAILED, RouteEnv, locations, post

B1, B2 = "map-b1", "map-b2"
PAIRS = 24  # random pairs per demo map and options
ROUTE_QUERY = """
query ($map: ID!, $from: WaypointInput!, $to: WaypointInput!, $mode: String,
       $options: CostingOptionsInput) {
  route(unitMapId: $map, from: $from, to: $to, mode: $mode, costingOptions: $options) {
    mode reason to { id }
    route { distance time legs { connector { kind } } }
  }
}"""
MATRIX_QUERY = """query ($map: ID!, $input: DistanceMatrixInput!) {
  distanceMatrix(unitMapId: $map, input: $input) { sources { targets { distance time } } } }"""


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def env(db_server, settings, tmp_path_factory) -> AsyncIterator[RouteEnv]:
    async with demo_env(db_server, settings, tmp_path_factory.mktemp("costing"), RouteEnv) as made:
        yield made


def options(**pedestrian: Any) -> dict[str, Any]:
    return {"pedestrian": pedestrian}


async def routed(
    env: RouteEnv,
    map_id: str,
    start: dict,
    end: dict,
    costing: dict | None,
    mode: str | None = None,
) -> dict[str, Any]:
    data: dict[str, Any] = {"from": start, "to": end}
    if costing is not None:
        data["costing_options"] = costing
    if mode is not None:
        data["mode"] = mode
    response = await post(env, map_id, data)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


async def matrix(
    env: RouteEnv, map_id: str, sources: list[dict], targets: list[dict], costing: dict
) -> list[list[tuple[float | None, float | None]]]:
    data = {"sources": sources, "targets": targets, "costing_options": costing}
    response = await env.client.post(
        f"/v1/unitmaps/{map_id}/distance-matrix", json={"data": data}, headers=env.headers()
    )
    assert response.status_code == 200, response.text
    return [
        [(t["distance"], t["time"]) for t in s["targets"]]
        for s in response.json()["data"]["sources"]
    ]


async def gql(env: RouteEnv, query: str, variables: dict[str, Any]) -> dict[str, Any]:
    response = await env.client.post(
        "/graphql", json={"query": query, "variables": variables}, headers=env.headers()
    )
    assert response.status_code == 200, response.text
    found: dict[str, Any] = response.json()
    return found


def kinds(answer: dict[str, Any]) -> list[str]:
    legs = answer["route"]["legs"]
    return [leg["connector"]["kind"] for leg in legs if leg["connector"] is not None]


# ---------------------------------------------------------------- exact answers

HERE = {"x": 10, "y": 10, "floor_id": "dm-f1"}  # STAIRS_MAP: up the stairs to THERE
THERE = {"x": 10, "y": 10, "floor_id": "dm-f2"}
UP_WALKED = 200.0  # feet walked; 15 ft of stairs besides (test_distance_matrix)


async def test_the_walking_speed_is_km_per_hour_and_scales_only_the_walk(env):
    # dm-a to dm-b: 100 ft along a line; 3.6 km/h is exactly 1 m/s: 30.48 s
    answer = await routed(
        env, ROUTE_MAP, {"id": "dm-a"}, {"id": "dm-b"}, options(walking_speed=3.6)
    )
    assert (answer["route"]["distance"], answer["route"]["time"]) == (100.0, 30.48)
    fast = kmh_to_feet_per_second(7.2)
    up = await routed(env, STAIRS_MAP, HERE, THERE, options(walking_speed=7.2))
    expected = (215.0, round(UP_WALKED / fast + STAIRS_STEP, 2))
    assert (up["route"]["distance"], up["route"]["time"]) == expected
    assert await matrix(env, STAIRS_MAP, [HERE], [THERE], options(walking_speed=7.2)) == [
        [expected]
    ]


async def test_a_step_penalty_adds_its_seconds_per_flight_and_no_distance(env):
    plain = (215.0, round(UP_WALKED / FOOT + STAIRS_STEP, 2))
    assert (await matrix(env, STAIRS_MAP, [HERE], [THERE], options())) == [[plain]]
    costed = options(step_penalty=100)
    up = await routed(env, STAIRS_MAP, HERE, THERE, costed)
    expected = (215.0, round(UP_WALKED / FOOT + STAIRS_STEP + 100, 2))
    assert (up["route"]["distance"], up["route"]["time"]) == expected
    assert await matrix(env, STAIRS_MAP, [HERE], [THERE], costed) == [[expected]]
    assert kinds(up) == ["stairs"]  # no other way: the penalty only costs time


async def test_the_reason_names_the_excluded_kinds_that_alone_stand_in_the_way(env):
    no_stairs = options(exclude=["stairs", "stairs"])  # twice: counted once
    answer = await routed(env, STAIRS_MAP, HERE, THERE, no_stairs)
    assert (answer["route"], answer["reason"]) == (
        None,
        "no walk path usable on foot joins the start and the destination without stairs",
    )
    # of several kinds excluded, those a route would ride: here only stairs exist
    every = await routed(env, STAIRS_MAP, HERE, THERE, options(exclude=list(EXCLUDE_WORDS)))
    assert every["reason"] == answer["reason"]
    assert await matrix(env, STAIRS_MAP, [HERE], [THERE], no_stairs) == [[(None, None)]]
    # on one level the exclusion changes nothing
    same_floor = await routed(env, STAIRS_MAP, HERE, {**HERE, "x": 110}, no_stairs)
    assert (same_floor["route"]["distance"], same_floor["reason"]) == (100.0, None)
    # by wheelchair the stairs were never usable: the mode's words, no exclusion named
    chair = await routed(env, STAIRS_MAP, HERE, THERE, no_stairs, mode="wheelchair")
    assert (
        chair["reason"] == "no walk path usable by wheelchair joins the start and the destination"
    )
    # the demo: the elevator excluded leaves a wheelchair nothing between floors
    spots = {loc["floors"][0]["id"]: loc["id"] for loc in await locations(env, B1)}
    start, end = {"id": spots["b1-f1"]}, {"id": spots["b1-f3"]}
    both = options(exclude=["elevator", "stairs"], mode="wheelchair")
    stuck = await routed(env, B1, start, end, both)
    assert (stuck["mode"], stuck["route"], stuck["reason"]) == (
        "wheelchair",
        None,
        "no walk path usable by wheelchair joins the start and the destination without "
        "elevators",  # not stairs: a wheelchair would not take them anyway
    )
    on_foot = await routed(env, B1, start, end, options(exclude=["elevator", "stairs"]))
    assert on_foot["reason"] == (
        "no walk path usable on foot joins the start and the destination without stairs and "
        "elevators"
    )
    lift = await routed(env, B1, start, end, options(exclude=["stairs"]))
    assert set(kinds(lift)) == {"elevator"}
    variables = {"map": B1, "from": start, "to": end, "options": both}
    assert (await gql(env, ROUTE_QUERY, variables))["data"]["route"]["reason"] == stuck["reason"]


async def test_graphql_answers_as_rest(env):
    costed = options(walking_speed=7.2, step_penalty=100)
    rest = await routed(env, STAIRS_MAP, HERE, THERE, costed)
    variables = {
        "map": STAIRS_MAP,
        "from": {"x": 10, "y": 10, "floorId": "dm-f1"},
        "to": {"x": 10, "y": 10, "floorId": "dm-f2"},
        "options": {"pedestrian": {"walkingSpeed": 7.2, "stepPenalty": 100}},
    }
    found = (await gql(env, ROUTE_QUERY, variables))["data"]["route"]["route"]
    assert (found["distance"], found["time"]) == (
        rest["route"]["distance"],
        rest["route"]["time"],
    )
    e18 = await gql(
        env,
        MATRIX_QUERY,
        {
            "map": STAIRS_MAP,
            "input": {
                "sources": [variables["from"]],
                "targets": [variables["to"]],
                "costingOptions": variables["options"],
            },
        },
    )
    cell = e18["data"]["distanceMatrix"]["sources"][0]["targets"][0]
    assert (cell["distance"], cell["time"]) == (found["distance"], found["time"])


# ---------------------------------------------------------------- E18 equals route

OPTIONS = [
    options(walking_speed=2.5, step_penalty=60),
    options(exclude=["stairs"], elevator_penalty=20),
    options(mode="wheelchair", walking_speed=4, elevator_penalty=3600),
    options(exclude=["elevator"], walking_speed=9),
]


@pytest.mark.parametrize("map_id", [B1, B2])
async def test_e18_equals_the_route_for_the_same_options(env, map_id):
    found = await locations(env, map_id)
    rng = random.Random(map_id)
    pairs = [tuple(rng.sample(found, 2)) for _ in range(PAIRS)]
    checked = 0
    for costing in OPTIONS:
        for a, b in pairs:
            start, end = {"id": a["id"]}, {"id": b["id"]}
            answer = await routed(env, map_id, start, end, costing)
            [[(distance, time)]] = await matrix(env, map_id, [start], [end], costing)
            if answer["route"] is None:
                assert (distance, time) == (None, None), (costing, a["id"], b["id"])
                continue
            assert (answer["route"]["distance"], answer["route"]["time"]) == (distance, time)
            # the same mode and speed, without penalties or exclusions: never slower
            kept = {
                k: v for k, v in costing["pedestrian"].items() if k in ("mode", "walking_speed")
            }
            plain = await routed(env, map_id, start, end, options(**kept))
            assert answer["route"]["time"] >= plain["route"]["time"]
            excluded = costing["pedestrian"].get("exclude", [])
            assert not set(kinds(answer)) & set(excluded)
            checked += 1
    assert checked >= 3 * PAIRS


# The largest penalties on the demo's ways between floors.
AVOID_FLOORS = options(step_penalty=3600, elevator_penalty=3600)


async def best_of(
    env: RouteEnv, start: dict, candidates: list[str], costing: dict
) -> tuple[float, float, str]:
    """E18's first candidate from `start`: least time, then distance, then id."""
    (row,) = await matrix(env, B1, [start], [{"id": id_} for id_ in candidates], costing)
    cells = zip(candidates, row, strict=True)
    return min((t, d, id_) for id_, (d, t) in cells if t is not None and d is not None)


async def test_nearest_chooses_with_the_same_options(env):
    """From every location, between the quickest place on another floor and a slower one
    on the origin's floor: plain, E18 and `nearest` take the other floor; with penalties
    on every way between floors both take the origin's floor."""
    found = await locations(env, B1)
    changed = 0
    for origin in found:
        start, floor = {"id": origin["id"]}, origin["floors"][0]["id"]
        others = [loc["id"] for loc in found if loc["floors"][0]["id"] != floor]
        mine = [loc["id"] for loc in found if loc["floors"][0]["id"] == floor]
        mine.remove(origin["id"])
        away = await best_of(env, start, others, options())
        (row,) = await matrix(env, B1, [start], [{"id": id_} for id_ in mine], options())
        slower = [id_ for id_, (_, t) in zip(mine, row, strict=True) if t and t > away[0]]
        if not slower:
            continue
        candidates = sorted([away[2], slower[0]])
        for costing, expected in ((options(), away[2]), (AVOID_FLOORS, slower[0])):
            best = await best_of(env, start, candidates, costing)
            answer = await routed(env, B1, start, {"nearest": {"ids": candidates}}, costing)
            assert answer["to"]["id"] == best[2] == expected, (origin["id"], costing)
            assert (answer["route"]["time"], answer["route"]["distance"]) == best[:2]
        changed += 1
    assert changed >= 3


# ---------------------------------------------------------------- refusals

BAD = [
    (
        {"walking_speed": 0.4},
        "walking_speed",
        "walkingSpeed",
        "must be from 0.5 to 25 km/h, not 0.4",
    ),
    ({"walking_speed": 26}, "walking_speed", "walkingSpeed", "must be from 0.5 to 25 km/h, not 26"),
    (
        {"step_penalty": -1},
        "step_penalty",
        "stepPenalty",
        "must be from 0 to 3600 seconds, not -1",
    ),
    (
        {"elevator_penalty": 3600.5},
        "elevator_penalty",
        "elevatorPenalty",
        "must be from 0 to 3600 seconds, not 3600.5",
    ),
    (
        {"escalator_penalty": 4000},
        "escalator_penalty",
        "escalatorPenalty",
        "must be from 0 to 3600 seconds, not 4000",
    ),
    (
        {"ramp_penalty": -0.5},
        "ramp_penalty",
        "rampPenalty",
        "must be from 0 to 3600 seconds, not -0.5",
    ),
    (
        {"exclude": ["stairs", "lift"]},
        "exclude.1",
        "exclude.1",
        "must be one of stairs, escalator, elevator, ramp, not 'lift'",
    ),
    ({"mode": "bicycle"}, "mode", "mode", "must be one of foot, wheelchair, not 'bicycle'"),
]
CAMEL = {"walking_speed": "walkingSpeed", "step_penalty": "stepPenalty"}
CAMEL |= {"elevator_penalty": "elevatorPenalty", "escalator_penalty": "escalatorPenalty"}
CAMEL |= {"ramp_penalty": "rampPenalty"}


def camel(pedestrian: dict[str, Any]) -> dict[str, Any]:
    return {CAMEL.get(key, key): value for key, value in pedestrian.items()}


@pytest.mark.parametrize(("pedestrian", "rest_name", "graphql_name", "message"), BAD)
async def test_a_bad_option_is_refused_on_its_field(
    env, pedestrian, rest_name, graphql_name, message
):
    start, end = {"id": "dm-a"}, {"id": "dm-b"}
    data = {"from": start, "to": end, "costing_options": {"pedestrian": pedestrian}}
    response = await post(env, ROUTE_MAP, data)
    field = f"data.costing_options.pedestrian.{rest_name}"
    assert (response.status_code, response.json()) == (
        422,
        {"message": FAILED, "fields": {field: [message]}},
    )
    e18 = await env.client.post(
        f"/v1/unitmaps/{ROUTE_MAP}/distance-matrix",
        json={
            "data": {
                "sources": [start],
                "targets": [end],
                "costing_options": {"pedestrian": pedestrian},
            }
        },
        headers=env.headers(),
    )
    assert (e18.status_code, e18.json()) == (
        422,
        {"message": FAILED, "fields": {field: [message]}},
    )
    ours = {"pedestrian": camel(pedestrian)}
    routed_gql = await gql(
        env, ROUTE_QUERY, {"map": ROUTE_MAP, "from": start, "to": end, "options": ours}
    )
    assert routed_gql["data"] is None
    assert routed_gql["errors"][0]["extensions"] == {
        "code": "BAD_USER_INPUT",
        "fields": {f"costingOptions.pedestrian.{graphql_name}": [message]},
    }
    e18_gql = await gql(
        env,
        MATRIX_QUERY,
        {"map": ROUTE_MAP, "input": {"sources": [start], "targets": [end], "costingOptions": ours}},
    )
    assert e18_gql["errors"][0]["extensions"] == {
        "code": "BAD_USER_INPUT",
        "fields": {f"input.costingOptions.pedestrian.{graphql_name}": [message]},
    }


async def test_a_route_s_mode_and_its_options_mode_must_agree(env):
    data = {
        "from": {"id": "dm-a"},
        "to": {"id": "dm-b"},
        "mode": "foot",
        "costing_options": {"pedestrian": {"mode": "wheelchair"}},
    }
    response = await post(env, ROUTE_MAP, data)
    assert (response.status_code, response.json()) == (
        422,
        {
            "message": FAILED,
            "fields": {
                "data.costing_options.pedestrian.mode": [
                    "is 'wheelchair', but the route's mode is 'foot'"
                ]
            },
        },
    )
    variables = {
        "map": ROUTE_MAP,
        "from": {"id": "dm-a"},
        "to": {"id": "dm-b"},
        "mode": "foot",
        "options": {"pedestrian": {"mode": "wheelchair"}},
    }
    found = await gql(env, ROUTE_QUERY, variables)
    assert found["errors"][0]["extensions"]["fields"] == {
        "costingOptions.pedestrian.mode": ["is 'wheelchair', but the route's mode is 'foot'"]
    }
    # the same mode twice, or only the options' own: accepted, and named in the answer
    for both in ({**data, "mode": "wheelchair"}, {k: v for k, v in data.items() if k != "mode"}):
        agreed = await post(env, ROUTE_MAP, both)
        assert (agreed.status_code, agreed.json()["mode"]) == (200, "wheelchair")


async def test_every_pair_of_floors_in_the_demo_keeps_the_exclusion(env):
    """Every pair of floors of both buildings, each exclusion: the connectors taken."""
    for map_id in (B1, B2):
        by_floor = {}
        for loc in await locations(env, map_id):
            by_floor.setdefault(loc["floors"][0]["id"], {"id": loc["id"]})
        for a, b in itertools.permutations(sorted(by_floor), 2):
            for word in ("stairs", "elevator"):
                answer = await routed(
                    env, map_id, by_floor[a], by_floor[b], options(exclude=[word])
                )
                assert answer["route"] is not None, (map_id, a, b, word)
                assert kinds(answer) and word not in kinds(answer), (map_id, a, b, word)
