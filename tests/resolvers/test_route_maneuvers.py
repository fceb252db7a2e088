"""Maneuvers of `route` through the real app (issue 33).

On many routes of every demo map with walk paths, of the Old Mill (tests/resolvers/
old_mill.py, a building drawn the way real ones are) and of an IMDF venue
(tests/imdf_venues.py), sampled with a fixed seed, on foot and by wheelchair: the rules
of tests/routing/maneuver_rules.py (vocabulary, order, location = leg point, bearings
recomputed, modifiers, a turn near every bend of 60 degrees, connectors, sums), the
texts in feet and in metres, landmarks and arrival sides against the map's locations,
and REST = GraphQL. Then exact answers on the demo and the errors of `units`.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio

from resolvers.auth.keys import create_key
from resolvers.auth.permissions import DISTANCES_CALCULATE
from rest.app import create_app
from storage.demo import install as demo
from storage.demo.drawings import BUILDINGS, FLOORS
from storage.imdf.dataset import dataset_from_path, import_venue
from storage.imdf.venue import ImdfOptions
from storage.imports.importer import import_data
from tests._dbserver import fresh_store
from tests.imdf_venues import two_levels, zip_bytes
from tests.resolvers import old_mill
from tests.routing.maneuver_rules import bearing, check_route

FLAGS = "directions, distances, locations-resource"
DEMO_MAPS = [
    *(demo.building_map_id(b) for b in BUILDINGS),
    *(demo.map_id(b, f) for b in BUILDINGS for f in FLOORS),
]
PAIRS = 12
METRES = 0.3048
TURN_WORDS = {
    "uturn": "make a U-turn",
    "sharp right": "turn sharply right",
    "right": "turn right",
    "slight right": "turn slightly right",
    "slight left": "turn slightly left",
    "left": "turn left",
    "sharp left": "turn sharply left",
}
CONNECTOR = "connector { id kind x y fromLevelUid toLevelUid fromFloorId toFloorId distance time }"
QUERY = (
    "query ($map: ID!, $from: WaypointInput!, $to: WaypointInput!, $mode: String, "
    "$units: String) { route(unitMapId: $map, from: $from, to: $to, mode: $mode, "
    "units: $units) { mode reason route { distance time steps legs { levelUid floorId "
    f"points {{ x y }} distance time {CONNECTOR} }} maneuvers {{ type modifier "
    "bearingBefore bearingAfter location { x y } legIndex pointIndex distance time "
    f"landmark {{ unitId locationId name }} side {CONNECTOR} instruction }} }} }} }}"
)


@dataclass
class MapFacts:
    feet_per_unit: float
    level_floors: list[str | None]  # lowest first
    floor_names: dict[str, str]
    locations: dict[str, dict[str, Any]]


@dataclass
class Env:
    client: httpx.AsyncClient
    key: str
    maps: dict[str, MapFacts]

    @property
    def headers(self) -> dict[str, str]:
        return {"API-Key": self.key, "Experimental-Flags": FLAGS}


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def env(db_server, settings, tmp_path_factory) -> AsyncIterator[Env]:
    tmp: Path = tmp_path_factory.mktemp("maneuvers")
    venue = two_levels()
    archive = tmp / "venue.zip"
    archive.write_bytes(zip_bytes(venue.venue.files()))
    venue_map = venue.venue.features["venue"][0]["id"]
    async with fresh_store(db_server) as store:
        await demo.install_demo(store, tmp)
        data, svgs = old_mill.old_mill()
        await import_data(store, data, tmp, svg_sources=svgs)
        await import_venue(
            store, dataset_from_path(archive, ImdfOptions()), limits=settings.svg_limits
        )
        key = (await create_key(store, "maneuvers", [DISTANCES_CALCULATE], None)).secret
        maps = {}
        for map_id in [*DEMO_MAPS, old_mill.MAP, venue_map]:
            unit_map = await store["unit_maps"].find_one({"_id": map_id})
            floors = store["floors"].find({"asset_id": unit_map["asset_id"]})
            found = store["locations"].find({"unit_map_id": map_id})
            maps[map_id] = MapFacts(
                unit_map["feet_per_unit"],
                [level.get("floor_id") for level in unit_map["levels"]],
                {f["_id"]: f["name"] async for f in floors},
                {loc["_id"]: loc async for loc in found},
            )
        transport = httpx.ASGITransport(app=create_app(settings, store))
        async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as client:
            yield Env(client, key, maps)


def camel(value: Any) -> Any:
    """REST's snake_case members as GraphQL names them."""
    if isinstance(value, dict):
        return {re.sub(r"_([a-z])", lambda m: m[1].upper(), k): camel(v) for k, v in value.items()}
    if isinstance(value, list):
        return [camel(item) for item in value]
    return value


async def rest(env: Env, map_id: str, body: dict[str, Any]) -> dict[str, Any]:
    response = await env.client.post(
        f"/v1/unitmaps/{map_id}/route", json={"data": body}, headers=env.headers
    )
    assert response.status_code == 200, response.text
    return response.json()


async def graphql(env: Env, variables: dict[str, Any]) -> dict[str, Any]:
    response = await env.client.post(
        "/graphql", json={"query": QUERY, "variables": variables}, headers=env.headers
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert "errors" not in body, body
    return body["data"]["route"]


def sample_pairs(facts: MapFacts, seed: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Locations and ad-hoc points up to 5 ft from them, paired at random; one pair of a
    waypoint with itself."""
    rng = random.Random(seed)
    ids = sorted(facts.locations)
    waypoints: list[dict[str, Any]] = [{"id": i} for i in rng.sample(ids, min(8, len(ids)))]
    for location_id in rng.sample(ids, min(3, len(ids))):
        location = facts.locations[location_id]
        reach = 5 / facts.feet_per_unit
        waypoints.append(
            {
                "x": location["x"] + rng.uniform(-reach, reach),
                "y": location["y"] + rng.uniform(-reach, reach),
                "floor_id": location["floors"][0]["id"],
            }
        )
    pairs = [(a, b) for a in waypoints for b in waypoints if a is not b]
    return [*rng.sample(pairs, PAIRS), (waypoints[0], waypoints[0])]


def walk_clause(text: str, unit: str) -> tuple[int | None, str]:
    """("Walk 40 ft, then turn left" -> (40, "turn left")); the action in lower case."""
    found = re.fullmatch(rf"Walk (\d+) {unit}, then (.+)", text)
    if found:
        return int(found[1]), found[2]
    return None, text[0].lower() + text[1:]


def check_length(told: int | None, feet: float, factor: float) -> None:
    """The whole number a text says for `feet` (in hundredths, give or take one: the
    shown figures are shared out in hundredths), or no walk when it rounds to 0."""
    low, high = round((feet - 0.02) * factor), round((feet + 0.02) * factor)
    if told is None:
        assert low == 0, feet
    else:
        assert low <= told <= high and told > 0, (told, feet)


def check_texts(answer: dict[str, Any], metric: dict[str, Any], facts: MapFacts, mode: str) -> None:
    """Each instruction as issue 33 writes it, in feet and in metres."""
    route = answer["route"]
    start, end = answer["from"], answer["to"]
    maneuvers = route["maneuvers"]
    assert [m["instruction"] for m in metric["route"]["maneuvers"]] == metric["route"]["steps"]
    for k, (m, in_metres) in enumerate(zip(maneuvers, metric["route"]["maneuvers"], strict=True)):
        assert {**in_metres, "instruction": ""} == {**m, "instruction": ""}
        feet_told, action = walk_clause(m["instruction"], "ft")
        metres_told, metric_action = walk_clause(in_metres["instruction"], "m")
        assert action == metric_action
        if k == 0:
            assert feet_told is None and metres_told is None
        else:
            before = maneuvers[k - 1]
            walked = before["distance"] - (before["connector"] or {}).get("distance", 0.0)
            check_length(feet_told, walked, 1.0)
            check_length(metres_told, walked, METRES)
        assert action == expected_action(m, start, end, route, facts)
    if mode == "wheelchair":
        assert not any("stairs" in step or "escalator" in step for step in route["steps"])


def expected_action(
    m: dict[str, Any],
    start: dict[str, Any],
    end: dict[str, Any],
    route: dict[str, Any],
    facts: MapFacts,
) -> str:
    if m["type"] == "depart":
        return f"start at {start['name']}" if start["name"] else "start at your location"
    if m["type"] == "turn":
        at = f" at {m['landmark']['name']}" if m["landmark"] else ""
        return TURN_WORDS[m["modifier"]] + at
    if m["type"] == "connector":
        ride = m["connector"]
        order = facts.level_floors
        way = (
            "up"
            if order.index(ride["to_floor_id"]) > order.index(ride["from_floor_id"])
            else "down"
        )
        return f"take the {ride['kind']} {way} to {facts.floor_names[ride['to_floor_id']]}"
    side = f"on your {m['side']}" if m["side"] else ""
    if end["name"]:
        return f"arrive at {end['name']} {side}".rstrip()
    floor = facts.floor_names[route["legs"][-1]["floor_id"]]
    return f"arrive at your destination on {floor}" + (f", {side}" if side else "")


def check_places(answer: dict[str, Any], facts: MapFacts) -> None:
    """Landmarks: locations of the map on the maneuver's level within 30 ft, never the
    route's own ends. An arrival side: the destination within 30 ft, off to that side of
    the walk before it (45 to 135 degrees, give or take a whole bearing's degree)."""
    route, fpu = answer["route"], facts.feet_per_unit
    ends = {answer["from"]["id"], answer["to"]["id"]}
    for m in route["maneuvers"]:
        at = (m["location"]["x"], m["location"]["y"])
        landmark = m["landmark"]
        if landmark is not None:
            location = facts.locations[landmark["location_id"]]
            assert landmark["location_id"] not in ends
            assert landmark["name"] == location["name"]
            unit = [t["value"] for t in location.get("tags", []) if t["key"] == "svc:id"]
            assert landmark["unit_id"] == (unit[0] if unit else None)
            floor = route["legs"][m["leg_index"]]["floor_id"]
            assert floor in [f["id"] for f in location["floors"]]
            assert math.dist(at, (location["x"], location["y"])) * fpu <= 30 + 1e-9
        if m["side"] is not None:
            end = (answer["to"]["x"], answer["to"]["y"])
            assert math.dist(at, end) * fpu <= 30 + 1e-9
            toward = bearing(at, end, fpu)
            assert toward is not None
            off = (toward - m["bearing_before"] + 180) % 360 - 180
            assert 44 <= abs(off) <= 136 and (off > 0) == (m["side"] == "right"), (m, off)


@pytest.mark.parametrize("map_index", range(len(DEMO_MAPS) + 2))
async def test_the_rules_on_sampled_routes(env, map_index):
    map_id = list(env.maps)[map_index]
    facts = env.maps[map_id]
    routes = 0
    for start, end in sample_pairs(facts, f"issue-33:{map_id}"):
        for mode in ("foot", "wheelchair"):
            body = {"from": start, "to": end, "mode": mode}
            answer = await rest(env, map_id, body)
            variables = {"map": map_id, "from": camel(start), "to": camel(end), "mode": mode}
            assert camel(answer["route"]) == (await graphql(env, variables))["route"]
            if answer["route"] is None:
                assert answer["reason"]
                continue
            routes += 1
            check_route(answer["route"], facts.feet_per_unit)
            metric = await rest(env, map_id, {**body, "units": "metric"})
            as_graphql = await graphql(env, {**variables, "units": "metric"})
            assert camel(metric["route"]) == as_graphql["route"]
            check_texts(answer, metric, facts, mode)
            check_places(answer, facts)
            if start == end:
                assert [m["type"] for m in answer["route"]["maneuvers"]] == ["depart", "arrive"]
    assert routes >= PAIRS


# ---------------------------------------------------------------- exact answers


async def test_along_a_demo_corridor_exactly_in_feet_and_in_metres(env):
    """map-b1-f2, Unit 201 (north-west corner) to Unit 210 (south row): out of 201 south
    through its door to the corridor (17.5 + 4 ft), left, east 153.75 ft to the spur of
    210's door, which opens to the right: arrived there, 21.5 ft short of its centre.
    Unit 213 is across the corridor from the first turn (22 ft away, ahead)."""
    body = {"from": {"id": "loc-b1-201"}, "to": {"id": "loc-b1-210"}}
    answer = await rest(env, "map-b1-f2", body)
    route = answer["route"]
    assert [
        (m["type"], m["modifier"], m["bearing_before"], m["bearing_after"], m["location"])
        for m in route["maneuvers"]
    ] == [
        ("depart", None, 0, 180, {"x": 200.0, "y": 170.0}),
        ("turn", "left", 180, 90, {"x": 200.0, "y": 256.0}),
        ("arrive", None, 90, 0, {"x": 815.0, "y": 256.0}),
    ]
    assert [(m["distance"], m["time"]) for m in route["maneuvers"]] == [
        (21.5, 4.89),
        (153.75, 34.94),
        (21.5, 4.89),
    ]
    assert (route["distance"], route["time"]) == (196.75, 44.72)
    turn, arrive = route["maneuvers"][1:]
    assert turn["landmark"] == {
        "unit_id": "b1-213",
        "location_id": "loc-b1-213",
        "name": "Unit 213",
    }
    assert (arrive["side"], arrive["leg_index"]) == ("right", 0)
    assert route["legs"][0]["points"][arrive["point_index"]] == arrive["location"]
    assert route["steps"] == [
        "Start at Unit 201",
        "Walk 22 ft, then turn left at Unit 213",
        "Walk 154 ft, then arrive at Unit 210 on your right",
    ]
    metric = await rest(env, "map-b1-f2", {**body, "units": "metric"})
    assert metric["route"]["steps"] == [
        "Start at Unit 201",
        "Walk 7 m, then turn left at Unit 213",
        "Walk 47 m, then arrive at Unit 210 on your right",
    ]


async def test_by_wheelchair_up_the_elevator_exactly(env):
    """map-b1, the Fitness Center (floor 1) to unit 301 (floor 3): out of the gym, left
    along the corridor, right into the elevator's spur (the trash room ahead), up two
    floors, out, left, and 301's door opens to the right. The building map's unit
    locations are named as the units are (`301`)."""
    body = {"from": {"id": "loc-b1-f1-gym@map-b1"}, "to": {"id": "map-b1:b1-301"}}
    route = (await rest(env, "map-b1", {**body, "mode": "wheelchair"}))["route"]
    assert route["steps"] == [
        "Start at Fitness Center",
        "Walk 22 ft, then turn left at 109",
        "Walk 86 ft, then turn right at Trash Room",
        "Walk 22 ft, then take the elevator up to Floor 3",
        "Walk 22 ft, then turn left at 304",
        "Walk 106 ft, then arrive at 301 on your right",
    ]
    lift = route["maneuvers"][3]
    assert (lift["type"], lift["connector"]) == ("connector", route["legs"][0]["connector"])
    assert (lift["connector"]["kind"], lift["distance"]) == ("elevator", 20 + 21.5)
    assert (lift["bearing_before"], lift["bearing_after"]) == (180, 0)


@pytest.mark.parametrize(
    ("units", "message"),
    [
        ("furlongs", "must be one of imperial, metric, not 'furlongs'"),
        ("Metric", "must be one of imperial, metric, not 'Metric'"),
        ("", "must be one of imperial, metric, not ''"),
    ],
)
async def test_units_other_than_imperial_or_metric_are_422(env, units, message):
    body = {"from": {"id": "loc-b1-201"}, "to": {"id": "loc-b1-210"}, "units": units}
    response = await env.client.post(
        "/v1/unitmaps/map-b1-f2/route", json={"data": body}, headers=env.headers
    )
    assert (response.status_code, response.json()) == (
        422,
        {"message": "Resource validation failed", "fields": {"data.units": [message]}},
    )
    variables = {"map": "map-b1-f2", "from": {"id": "loc-b1-201"}, "to": {"id": "loc-b1-210"}}
    answer = await env.client.post(
        "/graphql",
        json={"query": QUERY, "variables": {**variables, "units": units}},
        headers=env.headers,
    )
    (error,) = answer.json()["errors"]
    assert error["extensions"]["code"] == "BAD_USER_INPUT"
    assert error["extensions"]["fields"] == {"units": [message]}


@pytest.mark.parametrize("units", [5, ["metric"], {"system": "metric"}, True])
async def test_units_of_the_wrong_type_are_422(env, units):
    body = {"from": {"id": "loc-b1-201"}, "to": {"id": "loc-b1-210"}, "units": units}
    response = await env.client.post(
        "/v1/unitmaps/map-b1-f2/route", json={"data": body}, headers=env.headers
    )
    assert response.status_code == 422, response.text
    assert response.json()["fields"] == {"data.units": ["must be a string"]}
