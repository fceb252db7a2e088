"""Maneuvers of `route` through the real app (issue 33).

On many routes of every demo map with walk paths, of the Old Mill (old_mill.py
here, a building drawn the way real ones are) and of two IMDF venues
(tests/venues/imdf_venues.py: two levels, and the four of `exchange()`), sampled with a fixed
seed, on foot and by wheelchair: the rules of tests/routing/maneuver_rules.py
(vocabulary, order, location = leg point, bearings recomputed, modifiers, a turn near
every bend of 60 degrees, connectors, sums, and issue 48's at connectors), the texts in
feet and in metres (one step per ride, with its floors), landmarks (public places, a
generated name only where no other is in reach) and arrival sides against the map's
locations, and REST = GraphQL. Then exact answers on the demo and the errors of `units`.
"""

from __future__ import annotations

import math
import random
import re
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio

from parsing.demo.drawings import BUILDINGS, FLOORS
from parsing.imdf.categories import category_label
from parsing.imdf.venue import ImdfOptions
from resolvers.auth.keys import create_key
from resolvers.auth.permissions import DISTANCES_CALCULATE
from rest.app import create_app
from storage.demo import install as demo
from storage.imdf.dataset import dataset_from_path, import_venue
from storage.imports.importer import import_data
from tests._dbserver import fresh_store
from tests.resolvers.wayfinding import old_mill
from tests.routing.maneuver_rules import bearing, check_route
from tests.venues.imdf_venues import exchange, two_levels, zip_bytes

FLAGS = "directions, distances, locations-resource"
DEMO_MAPS = [
    *(demo.building_map_id(b) for b in BUILDINGS),
    *(demo.map_id(b, f) for b in BUILDINGS for f in FLOORS),
]
PAIRS = 12
METRES = 0.3048
# The words of issue 33, kept apart from instructions.TURNS on purpose: this is the oracle,
# so a change of the service's words fails here instead of passing with them.
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
    "units: $units) { mode reason route { distance time steps geometry: geojson "
    f"legs {{ levelUid floorId points {{ x y }} distance time {CONNECTOR} }} "
    "maneuvers { type modifier "
    "bearingBefore bearingAfter location { x y } legIndex pointIndex distance time "
    f"landmark {{ unitId locationId name }} side {CONNECTOR} viaIndex instruction "
    "then { modifier bearingBefore bearingAfter location { x y } pointIndex } } } } }"
)


@dataclass
class MapFacts:
    feet_per_unit: float
    level_floors: list[str | None]  # lowest first
    level_uids: list[str]  # lowest first
    floor_names: dict[str, str]
    locations: dict[str, dict[str, Any]]


@dataclass
class Env:
    client: httpx.AsyncClient
    key: str
    maps: dict[str, MapFacts]
    app: Any
    store: Any
    tmp: Path

    @property
    def headers(self) -> dict[str, str]:
        return {"API-Key": self.key, "Experimental-Flags": FLAGS}


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def env(db_server, settings, tmp_path_factory) -> AsyncIterator[Env]:
    tmp: Path = tmp_path_factory.mktemp("maneuvers")
    venues = {"venue": two_levels().venue, "exchange": exchange().venue}
    for name, venue in venues.items():
        (tmp / f"{name}.zip").write_bytes(zip_bytes(venue.files()))
    venue_maps = [venue.features["venue"][0]["id"] for venue in venues.values()]
    async with fresh_store(db_server) as store:
        await demo.install_demo(store, tmp)
        data, svgs = old_mill.old_mill()
        await import_data(store, data, tmp, svg_sources=svgs)
        for name in venues:
            archive = dataset_from_path(tmp / f"{name}.zip", ImdfOptions())
            await import_venue(store, archive, limits=settings.svg_limits)
        key = (await create_key(store, "maneuvers", [DISTANCES_CALCULATE], None)).secret
        maps = {}
        for map_id in [*DEMO_MAPS, old_mill.MAP, *venue_maps]:
            unit_map = await store["unit_maps"].find_one({"_id": map_id})
            floors = store["floors"].find({"asset_id": unit_map["asset_id"]})
            found = store["locations"].find({"unit_map_id": map_id})
            maps[map_id] = MapFacts(
                unit_map["feet_per_unit"],
                [level.get("floor_id") for level in unit_map["levels"]],
                [level["uid"] for level in unit_map["levels"]],
                {f["_id"]: f["name"] async for f in floors},
                {loc["_id"]: loc async for loc in found},
            )
        app = create_app(settings, store)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as client:
            yield Env(client, key, maps, app, store, tmp)


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
        then = "".join(f", then {TURN_WORDS[told['modifier']]}" for told in m["then"])
        return TURN_WORDS[m["modifier"]] + at + then
    if m["type"] == "connector":
        ride = m["connector"]
        order = facts.level_uids
        climbed = order.index(ride["to_level_uid"]) - order.index(ride["from_level_uid"])
        way = "up" if climbed > 0 else "down"
        floors = f" {abs(climbed)} floors" if abs(climbed) > 1 else ""
        return f"take the {ride['kind']} {way}{floors} to {facts.floor_names[ride['to_floor_id']]}"
    side = f"on your {m['side']}" if m["side"] else ""
    if end["name"]:
        return f"arrive at {end['name']} {side}".rstrip()
    floor = facts.floor_names[route["legs"][-1]["floor_id"]]
    return f"arrive at your destination on {floor}" + (f", {side}" if side else "")


def tag_values(location: dict[str, Any]) -> dict[str, Any]:
    return {tag["key"]: tag["value"] for tag in location.get("tags", [])}


def non_public(location: dict[str, Any]) -> bool:
    """An IMDF non-public area: a place a visitor does not see from the route."""
    return str(tag_values(location).get("imdf:category", "")).startswith("nonpublic")


def made_up(location: dict[str, Any]) -> bool:
    """A generated name, written apart from resolvers/wayfinding/landmarks.py: tagged
    `svc:name=generated`, "<IMDF category label> <n>, <floor>" as the import wrote it
    before that tag, or "Unit/Area/Room <n>" alone."""
    tags, name = tag_values(location), location["name"]
    if tags.get("svc:name") == "generated" or re.fullmatch(r"(Unit|Area|Room) [0-9]+", name):
        return True
    category = tags.get("imdf:category")
    label = category_label(category) if category else None
    return label is not None and re.fullmatch(rf"{re.escape(label)} [0-9]+, .+", name) is not None


def check_places(answer: dict[str, Any], facts: MapFacts) -> None:
    """Landmarks: public locations of the map on the maneuver's level within 30 ft, never
    the route's own ends, nor the landmark of the turn just before; a generated name only
    where no other such place is. An arrival side: the destination within 30 ft, off to
    that side of the walk before it (45 to 135 degrees, give or take a whole bearing's
    degree)."""
    route, fpu = answer["route"], facts.feet_per_unit
    ends = {answer["from"]["id"], answer["to"]["id"]}
    previous: str | None = None  # the landmark of the maneuver just before
    for m in route["maneuvers"]:
        at = (m["location"]["x"], m["location"]["y"])
        landmark = m["landmark"]
        floor = route["legs"][m["leg_index"]]["floor_id"]
        if landmark is not None:
            location = facts.locations[landmark["location_id"]]
            assert landmark["location_id"] not in ends
            assert landmark["name"] == location["name"]
            unit = [t["value"] for t in location.get("tags", []) if t["key"] == "svc:id"]
            assert landmark["unit_id"] == (unit[0] if unit else None)
            assert floor in [f["id"] for f in location["floors"]]
            assert math.dist(at, (location["x"], location["y"])) * fpu <= 30 + 1e-9
            assert not non_public(location), landmark
            if made_up(location):
                named = [
                    other["name"]
                    for key, other in facts.locations.items()
                    if other.get("name")
                    and key not in ends
                    and key != previous
                    and floor in [f["id"] for f in other["floors"]]
                    and math.dist(at, (other["x"], other["y"])) * fpu < 30 - 1e-6
                    and not non_public(other)
                    and not made_up(other)
                ]
                assert not named, (landmark, named)
        previous = None if landmark is None else landmark["location_id"]
        if m["side"] is not None:
            end = (answer["to"]["x"], answer["to"]["y"])
            assert math.dist(at, end) * fpu <= 30 + 1e-9
            toward = bearing(at, end, fpu)
            assert toward is not None
            off = (toward - m["bearing_before"] + 180) % 360 - 180
            assert 44 <= abs(off) <= 136 and (off > 0) == (m["side"] == "right"), (m, off)


@pytest.mark.parametrize("map_index", range(len(DEMO_MAPS) + 3))
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
            check_route(answer["route"], facts.feet_per_unit, facts.level_uids)
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
    floors in one step, out, left, and 301's door opens to the right. The building map's unit
    locations are named as the units are (`301`)."""
    body = {"from": {"id": "loc-b1-f1-gym@map-b1"}, "to": {"id": "map-b1:b1-301"}}
    route = (await rest(env, "map-b1", {**body, "mode": "wheelchair"}))["route"]
    assert route["steps"] == [
        "Start at Fitness Center",
        "Walk 22 ft, then turn left at 109",
        "Walk 86 ft, then turn right at Trash Room",
        "Walk 22 ft, then take the elevator up 2 floors to Floor 3",
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


# ---------------------------------------------------------------- the safety checklist

SCOPE_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100">'
    '<g id="L1" data-level="Ground" data-tag-floor="{floor}"><g data-layer="paths">'
    '<polyline points="10,10 110,10 110,90"/></g></g></svg>'
)
STAMP = "2026-01-01T00:00:00+00:00"


def scope_dataset() -> tuple[dict[str, Any], dict[str, str]]:
    """Two assets whose maps draw the same walk at the same canvas places (1 ft per unit):
    east 100 ft, then right, south 80 ft. Near the turn, asset lm-a has "A Lobby" 15 ft
    ahead; asset lm-b has "B Vault" under 3 ft from it, which would win on any map that
    saw both."""

    def location(asset: str, id_: str, name: str, x: float, y: float) -> dict[str, Any]:
        return {
            "id": id_,
            "asset_id": asset,
            "unit_map_id": f"{asset}-map",
            "name": name,
            "x": x,
            "y": y,
            "floors": [{"id": f"{asset}-f1"}],
            "created_at": STAMP,
            "updated_at": STAMP,
        }

    assets = ("lm-a", "lm-b")
    data = {
        "version": 1,
        "assets": [{"id": a, "market": "office", "name": a} for a in assets],
        "floors": [{"id": f"{a}-f1", "asset_id": a, "name": "F1", "sort": 1} for a in assets],
        "unit_maps": [{"id": f"{a}-map", "asset_id": a, "name": a} for a in assets],
        "locations": [
            *(location(a, f"{a}-start", f"{a} start", 10, 10) for a in assets),
            *(location(a, f"{a}-end", f"{a} end", 110, 90) for a in assets),
            location("lm-a", "lm-a-lobby", "A Lobby", 125, 10),
            location("lm-b", "lm-b-vault", "B Vault", 112, 8),
        ],
    }
    return data, {f"{a}-map": SCOPE_SVG.format(floor=f"{a}-f1") for a in assets}


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def scoped(env) -> str:
    """Asset lm-a and lm-b imported; a key that sees lm-a only."""
    data, svgs = scope_dataset()
    await import_data(env.store, data, env.tmp, svg_sources=svgs)
    return (await create_key(env.store, "lm-a only", [DISTANCES_CALCULATE], ["lm-a"])).secret


async def test_landmarks_never_name_another_assets_locations(env, scoped):
    """B's map is routed first (its places kept in the process), then A's: A's key gets
    A's landmark, never B's nearer one; B's map and B's locations do not exist for it."""
    b_route = await rest(env, "lm-b-map", {"from": {"id": "lm-b-start"}, "to": {"id": "lm-b-end"}})
    assert b_route["route"]["steps"] == [
        "Start at lm-b start",
        "Walk 100 ft, then turn right at B Vault",
        "Walk 80 ft, then arrive at lm-b end",
    ]
    headers = {**env.headers, "API-Key": scoped}
    body = {"from": {"id": "lm-a-start"}, "to": {"id": "lm-a-end"}}
    own = await env.client.post("/v1/maps/lm-a-map/route", json={"data": body}, headers=headers)
    assert own.status_code == 200, own.text
    route = own.json()["route"]
    assert route["steps"] == [
        "Start at lm-a start",
        "Walk 100 ft, then turn right at A Lobby",
        "Walk 80 ft, then arrive at lm-a end",
    ]
    assert [m["landmark"] for m in route["maneuvers"]] == [
        None,
        {"unit_id": None, "location_id": "lm-a-lobby", "name": "A Lobby"},
        None,
    ]
    variables = {"map": "lm-a-map", "from": {"id": "lm-a-start"}, "to": {"id": "lm-a-end"}}
    as_graphql = await env.client.post(
        "/graphql", json={"query": QUERY, "variables": variables}, headers=headers
    )
    assert as_graphql.json()["data"]["route"]["route"] == camel(route)
    # B's map is not found, on both paths and on GraphQL, whatever the body says.
    for path in ("/v1/unitmaps/lm-b-map/route", "/v1/maps/lm-b-map/route"):
        for payload in (
            {"from": {"id": "lm-b-start"}, "to": {"id": "lm-b-end"}},
            {"from": {"id": "lm-b-start"}, "to": {"id": "lm-b-end"}, "units": "metric"},
        ):
            other = await env.client.post(path, json={"data": payload}, headers=headers)
            assert (other.status_code, other.json()) == (404, {"message": "Not found"})
    variables = {"map": "lm-b-map", "from": {"id": "lm-b-start"}, "to": {"id": "lm-b-end"}}
    refused = await env.client.post(
        "/graphql",
        json={"query": QUERY, "variables": {**variables, "units": "metric"}},
        headers=headers,
    )
    assert refused.json() == {
        "data": None,
        "errors": [
            {
                "message": "Not found",
                "locations": [{"line": 1, "column": 96}],
                "path": ["route"],
                "extensions": {"code": "NOT_FOUND"},
            }
        ],
    }
    # B's locations named on A's map are no locations of it: nothing of B is echoed.
    named = await env.client.post(
        "/v1/maps/lm-a-map/route",
        json={"data": {"from": {"id": "lm-b-vault"}, "to": {"id": "lm-a-end"}}},
        headers=headers,
    )
    assert (named.status_code, named.json()) == (
        422,
        {
            "message": "Resource validation failed",
            "fields": {"data.from.id": ["no location 'lm-b-vault' on this map"]},
        },
    )


async def test_landmarks_are_built_where_the_route_is_computed(env, scoped, monkeypatch):
    """The grid of a map's places and the plan run with the route: on the event loop for
    a small graph, on the CPU pool for a large one (a map of thousands of locations)."""
    from resolvers.wayfinding import landmarks
    from routing import matrix, trip

    threads: dict[str, int] = {}

    def recorded(name: str, work: Any) -> Any:
        def run(*args: Any, **kwargs: Any) -> Any:  # the plan takes `stop=` on the pool
            threads[name] = threading.get_ident()
            return work(*args, **kwargs)

        return run

    monkeypatch.setattr(landmarks, "places_of", recorded("places", landmarks.places_of))
    monkeypatch.setattr(trip, "plan_trip", recorded("plan", trip.plan_trip))
    body = {"from": {"id": "lm-b-start"}, "to": {"id": "lm-b-end"}}
    loop = threading.get_ident()
    for large, units in ((False, "imperial"), (True, "metric")):
        monkeypatch.setattr(matrix, "SMALL_GRAPH_EDGES", 0 if large else 10**9)
        env.app.services.place_cache.clear()
        threads.clear()
        answer = await rest(env, "lm-b-map", {**body, "units": units})
        assert answer["route"]["maneuvers"][1]["landmark"]["name"] == "B Vault"
        assert set(threads) == {"places", "plan"}
        assert all((ident != loop) == large for ident in threads.values()), (large, threads)


def graphql_refusal(
    fields: dict[str, list[str]], column: int = 96, path: bool = True
) -> dict[str, Any]:
    """`/graphql`'s answer to QUERY refused for its input: at `route`'s arguments, or at
    a variable's definition when its value is not of its type (nothing ran)."""
    error: dict[str, Any] = {
        "message": "Resource validation failed",
        "locations": [{"line": 1, "column": column}],
        "path": ["route"],
        "extensions": {"code": "BAD_USER_INPUT", "fields": fields},
    }
    if not path:
        del error["path"]
    return {"data": None, "errors": [error]}


@pytest.mark.parametrize("units", ["x" * 200_000, "metric" * 10_000])
async def test_a_huge_units_string_is_422(env, units):
    """Refused as any other word (within the body's 256 KiB), never a 500, quoting only
    its first 37 characters."""
    message = f"must be one of imperial, metric, not {units[:37] + '...'!r}"
    body = {"from": {"id": "loc-b1-201"}, "to": {"id": "loc-b1-210"}, "units": units}
    response = await env.client.post(
        "/v1/unitmaps/map-b1-f2/route", json={"data": body}, headers=env.headers
    )
    assert (response.status_code, response.json()) == (
        422,
        {
            "message": "Resource validation failed",
            "fields": {"data.units": [message]},
        },
    )
    variables = {"map": "map-b1-f2", "from": {"id": "loc-b1-201"}, "to": {"id": "loc-b1-210"}}
    answer = await env.client.post(
        "/graphql",
        json={"query": QUERY, "variables": {**variables, "units": units}},
        headers=env.headers,
    )
    assert (answer.status_code, answer.json()) == (200, graphql_refusal({"units": [message]}))


@pytest.mark.parametrize("units", [5, ["metric"], {"system": "metric"}, True])
async def test_units_of_the_wrong_type_on_graphql(env, units):
    variables = {"map": "map-b1-f2", "from": {"id": "loc-b1-201"}, "to": {"id": "loc-b1-210"}}
    answer = await env.client.post(
        "/graphql",
        json={"query": QUERY, "variables": {**variables, "units": units}},
        headers=env.headers,
    )
    problem = (
        "Variable '$units' has invalid value: String cannot represent a non string value: "
        f"{units!r}"
    )
    assert (answer.status_code, answer.json()) == (
        200,
        graphql_refusal({"query": [problem]}, column=78, path=False),
    )
