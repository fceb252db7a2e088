"""The distance matrix (E18) through the real app on the demo property: access in the
contract's order, every input error, the answer's shape and numbers (walk graph and
straight lines), the demo's "closest amenity" question, GraphQL, and the graph cache."""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import httpx
import orjson
import pytest
import pytest_asyncio

from resolvers.auth.keys import create_key
from resolvers.auth.permissions import ADMIN, DISTANCES_CALCULATE
from resolvers.limits import SIDE_CACHE_SHARE
from resolvers.wayfinding.graph_cache import load_waypoints
from resolvers.wayfinding.versioned_cache import KEY_BYTES, waypoints_bytes
from rest.app import create_app
from routing.matrix import (
    JOIN_BYTES,
    KEPT_TARGET_BYTES,
    LOADED_BYTES_PER_ELEMENT,
    MAX_JOINS_KEPT,
    MAX_PROFILES_KEPT,
    MIN_JOINS_KEPT,
    PROFILE_BYTES_PER_ELEMENT,
)
from routing.model import graph_from_bytes
from storage import collections as c
from storage.demo.install import install_demo
from storage.files import get_file
from storage.imports.importer import import_data
from storage.settings import Settings
from tests._dbserver import fresh_store

FLAGS = "distances, locations-resource"
FEET_PER_UNIT = 0.25  # of the demo drawings
FLOOR_HEIGHT = 10.0  # default floor height, feet per floor step
FOOT, WHEELCHAIR = 4.4, 3.5  # ft/s
ELEVATOR_WAIT, ELEVATOR_STEP, STAIRS_STEP = 30.0, 5.0, 12.0  # seconds
STAIRS_LENGTH = 15.0  # feet per floor step (1.5 x floor height)
LEVEL = {f"b{b}-f{f}": f - 1 for b in (1, 2) for f in (1, 2, 3, 4)}  # building-map levels
DEMO_MAPS = ["map-b1", "map-b2"]
UNITS_PER_MAP = {"map-b1": 49, "map-b2": 51}
AMENITIES_PER_MAP = {"map-b1": 7, "map-b2": 5}

# A small asset and maps of our own, so that re-importing them changes nothing of the demo.
OWN_ASSET = "dm-asset"
ROUTE_MAP, FLAT_MAP, PLAIN_MAP, STAIRS_MAP = "dm-route", "dm-flat", "dm-plain", "dm-stairs"
SVG_HEAD = '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"'
STRAIGHT = (
    f'{SVG_HEAD}><g id="L1" data-level="Ground" data-tag-floor="dm-f1">'
    '<g data-layer="paths"><line x1="10" y1="10" x2="110" y2="10"/></g></g></svg>'
)
DETOUR = (
    f'{SVG_HEAD}><g id="L1" data-level="Ground" data-tag-floor="dm-f1">'
    '<g data-layer="paths"><polyline points="10,10 10,60 110,60 110,10"/></g></g></svg>'
)
FLAT = (
    f'{SVG_HEAD} data-feet-per-unit="0.5">'
    '<g id="A" data-level="One" data-tag-floor="dm-f1" data-level-index="1"><rect '
    'x="0" y="0" width="10" height="10"/></g>'
    '<g id="B" data-level="Two" data-tag-floor="dm-f2" data-level-index="2"><rect '
    'x="0" y="0" width="10" height="10"/></g></svg>'
)
PLAIN = f'{SVG_HEAD}><rect x="0" y="0" width="10" height="10"/></svg>'
# Two levels with walk paths joined by stairs only, and a third level without walk paths.
STAIRS = (
    '<rect data-connector="stairs" data-connector-id="s" x="100" y="0" width="20" height="20"/>'
)
STAIRS_ONLY = (
    f"{SVG_HEAD}>"
    + "".join(
        f'<g id="S{n}" data-level="S{n}" data-tag-floor="dm-f{n}" data-level-index="{n}">'
        '<g data-layer="paths"><line x1="10" y1="10" x2="110" y2="10"/></g>'
        f"{STAIRS}</g>"
        for n in (1, 2)
    )
    + '<g id="S3" data-level="S3" data-tag-floor="dm-f3" data-level-index="3">'
    '<rect x="0" y="0" width="10" height="10"/></g></svg>'
)
STAMP = "2026-01-01T00:00:00+00:00"


def own_dataset(route_svg: str, b_at: tuple[float, float] = (110, 10)) -> tuple[dict, dict]:
    """Asset, two floors, three maps (walk paths / two levels without / no level
    markup) and two locations on the routed map; the drawings in memory."""

    def location(id_: str, x: float, y: float) -> dict[str, Any]:
        return {
            "id": id_,
            "asset_id": OWN_ASSET,
            "unit_map_id": ROUTE_MAP,
            "name": id_,
            "x": x,
            "y": y,
            "floors": [{"id": "dm-f1"}],
            "created_at": STAMP,
            "updated_at": STAMP,
        }

    data = {
        "version": 1,
        "assets": [{"id": OWN_ASSET, "market": "office", "name": "Own"}],
        "floors": [
            {"id": f"dm-f{n}", "asset_id": OWN_ASSET, "name": f"F{n}", "sort": n} for n in (1, 2, 3)
        ],
        "unit_maps": [
            {"id": ROUTE_MAP, "asset_id": OWN_ASSET, "name": "Route"},
            {"id": FLAT_MAP, "asset_id": OWN_ASSET, "name": "Flat", "floor_height_ft": 12},
            {"id": PLAIN_MAP, "asset_id": OWN_ASSET, "name": "Plain"},
            {"id": STAIRS_MAP, "asset_id": OWN_ASSET, "name": "Stairs"},
        ],
        "locations": [location("dm-a", 10, 10), location("dm-b", *b_at)],
    }
    return data, {ROUTE_MAP: route_svg, FLAT_MAP: FLAT, PLAIN_MAP: PLAIN, STAIRS_MAP: STAIRS_ONLY}


@dataclass
class Env:
    client: httpx.AsyncClient
    app: Any
    store: Any
    tmp: Path
    full: str  # service.distances.calculate, every asset
    plain: str  # no permission
    other: str  # service.distances.calculate, only OWN_ASSET
    locations: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    matrices: dict[tuple, dict[tuple[str, str], tuple[float, float]]] = field(default_factory=dict)

    def headers(self, key: str | None = None, flags: str | None = FLAGS) -> dict[str, str]:
        headers = {"API-Key": key or self.full}
        if flags is not None:
            headers["Experimental-Flags"] = flags
        return headers


E = TypeVar("E", bound=Env)


@asynccontextmanager
async def demo_env(
    db_server: Any, settings: Any, tmp: Path, kind: type[E] = Env
) -> AsyncIterator[E]:
    """The demo and our own maps in a fresh database, three keys, a client of the app."""
    async with fresh_store(db_server) as store:
        await install_demo(store, tmp)
        data, svgs = own_dataset(STRAIGHT)
        await import_data(store, data, tmp, svg_sources=svgs)
        full = (await create_key(store, "dm-full", [DISTANCES_CALCULATE], None)).secret
        plain = (await create_key(store, "dm-plain", [ADMIN], None)).secret
        other = (await create_key(store, "dm-other", [DISTANCES_CALCULATE], [OWN_ASSET])).secret
        app = create_app(settings, store)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as client:
            yield kind(client, app, store, tmp, full, plain, other)


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def env(db_server, settings, tmp_path_factory) -> AsyncIterator[Env]:
    async with demo_env(db_server, settings, tmp_path_factory.mktemp("distance-matrix")) as made:
        yield made


def path_of(map_id: str, alias: bool = False) -> str:
    if alias:
        return f"/v1/maps/{map_id}/distance-matrix"
    return f"/v1/unitmaps/{map_id}/distance-matrix"


def body(sources: list, targets: list, **options: Any) -> dict[str, Any]:
    return {"data": {"sources": sources, "targets": targets, **options}}


def ids(*names: str) -> list[dict[str, str]]:
    return [{"id": name} for name in names]


async def post(
    env: Env,
    map_id: str,
    payload: Any,
    *,
    key: str | None = None,
    flags: str | None = FLAGS,
    alias: bool = False,
) -> httpx.Response:
    return await env.client.post(
        path_of(map_id, alias), json=payload, headers=env.headers(key, flags)
    )


async def locations(env: Env, map_id: str) -> list[dict[str, Any]]:
    """E17, as the spec's quickstart says: fetched once per map."""
    if map_id not in env.locations:
        response = await env.client.get(f"/v1/maps/{map_id}/locations", headers=env.headers())
        assert response.status_code == 200
        env.locations[map_id] = response.json()["data"]
    return env.locations[map_id]


def tagged(found: list[dict[str, Any]], key: str, value: str) -> list[dict[str, Any]]:
    return [
        loc
        for loc in found
        if {"key": key, "value": value}
        in [{"key": t["key"], "value": t["value"]} for t in loc["tags"]]
    ]


def floor_of(location: dict[str, Any]) -> str:
    return location["floors"][0]["id"]


def straight(
    a: dict[str, Any],
    b: dict[str, Any],
    feet_per_unit: float = FEET_PER_UNIT,
    steps: int | None = None,
    floor_height: float = FLOOR_HEIGHT,
) -> float:
    """The 3-D straight line in feet between two located points of a building map."""
    flat = math.hypot(a["x"] - b["x"], a["y"] - b["y"]) * feet_per_unit
    if steps is None:
        steps = abs(LEVEL[floor_of(a)] - LEVEL[floor_of(b)])
    return math.hypot(flat, floor_height * steps)


async def snapshot(env: Env) -> tuple[int, ...]:
    """What a failed request must not change."""
    names = (c.LOCATIONS, c.UNIT_MAPS, c.LEVEL_TAGS, "fs.files")
    return tuple([await env.store[name].count_documents({}) for name in names])


async def matrix(
    env: Env,
    map_id: str,
    sources: list[dict],
    targets: list[dict],
    mode: str = "foot",
    method: str = "default",
) -> dict[tuple[str, str], tuple[float, float]]:
    """(source id, target id) -> (distance, time), in batches of at most 50 pairs."""
    key = (map_id, tuple(s["id"] for s in sources), tuple(t["id"] for t in targets), mode, method)
    if key in env.matrices:
        return env.matrices[key]
    size = max(1, 50 // len(targets))
    cells: dict[tuple[str, str], tuple[float, float]] = {}
    for start in range(0, len(sources), size):
        batch = sources[start : start + size]
        assert len(batch) * len(targets) <= 50
        response = await post(
            env,
            map_id,
            body(
                ids(*(s["id"] for s in batch)),
                ids(*(t["id"] for t in targets)),
                costing="pedestrian",
                costing_options={"pedestrian": {"mode": mode}},
                distance_method=method,
            ),
        )
        assert response.status_code == 200, response.text
        answer = response.json()["data"]
        assert answer["distance_method"] == (
            "euclidean" if method == "euclidean" else "pathfinding"
        )
        assert [s["id"] for s in answer["sources"]] == [s["id"] for s in batch]
        for source in answer["sources"]:
            assert [t["id"] for t in source["targets"]] == [t["id"] for t in targets]
            for target in source["targets"]:
                cells[(source["id"], target["id"])] = (target["distance"], target["time"])
    env.matrices[key] = cells
    return cells


async def units_and_amenities(env: Env, map_id: str) -> tuple[list[dict], list[dict]]:
    found = await locations(env, map_id)
    units = tagged(found, "svc:type", "unit")
    amenities = tagged(found, "svc:amenity", "yes")
    assert len(units) == UNITS_PER_MAP[map_id]
    assert len(amenities) == AMENITIES_PER_MAP[map_id]
    return units, amenities


def flag_message(flag: str) -> str:
    return (
        "Not found: this experimental resource requires the Experimental-Flags header "
        f'to include "{flag}"'
    )


VALID = body(ids("loc-b1-101"), ids("loc-b1-f1-gym"))
BAD = body([], [])
BAD_FIELDS = {
    "data.sources": ["must be a non-empty array"],
    "data.targets": ["must be a non-empty array"],
}
NOT_FOUND = {"message": "Not found"}
FAILED = "Resource validation failed"


# ---------------------------------------------------------------- access


async def assert_access_in_order(
    env: Env, path: str, payload: Any, flag: str, other_flags: str
) -> None:
    """Whatever the body: 401 without a key, 403 for an unknown one, 404 without `flag`
    (also beside `other_flags`, and for a key that lacks the permission too: the flag
    comes first), then 403 for that key with the flag, before the body is read."""
    flags_alone = {"Experimental-Flags": env.headers()["Experimental-Flags"]}
    no_key = await env.client.post(path, json=payload, headers=flags_alone)
    assert (no_key.status_code, no_key.json()) == (401, {"message": "No API key found in request"})
    bad_key = await env.client.post(path, json=payload, headers=env.headers("fg_nope"))
    assert (bad_key.status_code, bad_key.json()) == (
        403,
        {"message": "Invalid authentication credentials"},
    )
    no_flag = {"message": flag_message(flag)}
    for flags in (None, other_flags):
        answer = await env.client.post(path, json=payload, headers=env.headers(flags=flags))
        assert (answer.status_code, answer.json()) == (404, no_flag)
    both = await env.client.post(path, json=payload, headers=env.headers(env.plain, None))
    assert (both.status_code, both.json()) == (404, no_flag)
    denied = await env.client.post(path, json=payload, headers=env.headers(env.plain))
    assert (denied.status_code, denied.json()) == (
        403,
        {"message": "Access denied: missing permission service.distances.calculate"},
    )


@pytest.mark.parametrize("alias", [False, True], ids=["unitmaps", "maps"])
async def test_access_in_order(env, alias):
    path = path_of("map-b1-f1", alias)
    for payload in (VALID, BAD):
        await assert_access_in_order(
            env, path, payload, "distances", "locations-resource, distance"
        )


async def test_flag_names_are_case_insensitive_and_key_may_be_a_query_parameter(env):
    ok = await env.client.post(
        path_of("map-b1-f1"),
        json=VALID,
        headers={"API-Key": env.full, "Experimental-Flags": " DISTANCES "},
    )
    assert ok.status_code == 200
    by_query = await env.client.post(
        f"{path_of('map-b1-f1')}?api-key={env.full}",
        json=VALID,
        headers={"Experimental-Flags": "distances"},
    )
    assert by_query.status_code == 200
    assert by_query.json() == ok.json()


@pytest.mark.parametrize("alias", [False, True], ids=["unitmaps", "maps"])
async def test_map_of_another_asset_is_not_found(env, alias):
    demo = await post(env, "map-b1-f1", VALID, key=env.other, alias=alias)
    assert (demo.status_code, demo.json()) == (404, NOT_FOUND)
    own = await post(env, ROUTE_MAP, body(ids("dm-a"), ids("dm-b")), key=env.other, alias=alias)
    assert own.status_code == 200
    # Input is checked before existence, for every key.
    bad = await post(env, "map-b1-f1", BAD, key=env.other, alias=alias)
    assert (bad.status_code, bad.json()) == (422, {"message": FAILED, "fields": BAD_FIELDS})


@pytest.mark.parametrize("alias", [False, True], ids=["unitmaps", "maps"])
async def test_unknown_map(env, alias):
    missing = await post(env, "no-such-map", VALID, alias=alias)
    assert (missing.status_code, missing.json()) == (404, NOT_FOUND)
    # Waypoints are checked against the map only when it exists.
    unknown_waypoint = await post(env, "no-such-map", body(ids("nope"), ids("nope")), alias=alias)
    assert (unknown_waypoint.status_code, unknown_waypoint.json()) == (404, NOT_FOUND)
    bad = await post(env, "no-such-map", BAD, alias=alias)
    assert (bad.status_code, bad.json()) == (422, {"message": FAILED, "fields": BAD_FIELDS})
    too_many = await post(env, "no-such-map", body(ids("a") * 3, ids("b") * 17), alias=alias)
    assert too_many.status_code == 422
    assert too_many.json()["fields"] == {
        "data": ["at most 50 source-target pairs (sources x targets) per request, not 51"]
    }
    long_id = await post(env, "m" * 256, VALID, alias=alias)
    assert (long_id.status_code, long_id.json()) == (
        422,
        {
            "message": FAILED,
            "fields": {"map" if alias else "unitMapId": ["must be at most 255 characters"]},
        },
    )


async def test_request_media_type_and_method(env):
    path = path_of("map-b1-f1")
    raw = orjson.dumps(VALID)
    for content_type in ("text/plain", "application/x-www-form-urlencoded", None):
        headers = env.headers()
        if content_type:
            headers["Content-Type"] = content_type
        wrong = await env.client.post(path, content=raw, headers=headers)
        assert (wrong.status_code, wrong.json()) == (
            415,
            {"message": "Content type must be application/json"},
        )
    no_key = await env.client.post(
        path, content=raw, headers={"Content-Type": "text/plain", "Experimental-Flags": FLAGS}
    )
    assert no_key.status_code == 401
    with_charset = await env.client.post(
        path,
        content=raw,
        headers={**env.headers(), "Content-Type": "application/json; charset=utf-8"},
    )
    assert with_charset.status_code == 200
    text = b'{"data": {"sources": [{"id": "loc-b1-101"}], '
    with pytest.raises(orjson.JSONDecodeError) as parse_error:
        orjson.loads(text)
    broken = await env.client.post(
        path, content=text, headers={**env.headers(), "Content-Type": "application/json"}
    )
    assert (broken.status_code, broken.json()) == (
        422,
        {"message": FAILED, "fields": {"body": [f"is not valid JSON: {parse_error.value}"]}},
    )
    broken_no_key = await env.client.post(
        path,
        content=text,
        headers={"Content-Type": "application/json", "Experimental-Flags": FLAGS},
    )
    assert broken_no_key.status_code == 401
    for method in ("GET", "PUT", "DELETE"):
        other = await env.client.request(method, path, headers=env.headers())
        assert (other.status_code, other.json()) == (405, {"message": "Method not allowed"})
        assert other.headers["Allow"] == "POST"


# ---------------------------------------------------------------- input errors

B1 = "map-b1"
U401 = "map-b1:b1-401"  # Unit 401, at (200, 170) on b1-f4
CASES: list[tuple[str, str, Any, dict[str, list[str]]]] = [
    ("empty arrays", B1, BAD, BAD_FIELDS),
    (
        "51 pairs",
        B1,
        body(ids(U401) * 3, ids(U401) * 17),
        {"data": ["at most 50 source-target pairs (sources x targets) per request, not 51"]},
    ),
    (
        "51 pairs the other way",
        B1,
        body(ids(U401) * 17, ids(U401) * 3),
        {"data": ["at most 50 source-target pairs (sources x targets) per request, not 51"]},
    ),
    (
        "unknown costing",
        B1,
        body(ids(U401), ids(U401), costing="auto"),
        {"data.costing": ["must be one of pedestrian, not 'auto'"]},
    ),
    (
        "unknown mode",
        B1,
        body(ids(U401), ids(U401), costing_options={"pedestrian": {"mode": "bicycle"}}),
        {
            "data.costing_options.pedestrian.mode": [
                "must be one of foot, wheelchair, not 'bicycle'"
            ]
        },
    ),
    (
        "unknown mode, camelCase body",
        B1,
        {
            "data": {
                "sources": ids(U401),
                "targets": ids(U401),
                "costingOptions": {"pedestrian": {"mode": "Wheelchair"}},
            }
        },
        {
            "data.costing_options.pedestrian.mode": [
                "must be one of foot, wheelchair, not 'Wheelchair'"
            ]
        },
    ),
    (
        "unknown distance method",
        B1,
        body(ids(U401), ids(U401), distance_method="shortest"),
        {
            "data.distance_method": [
                "must be one of default, pathfinding, euclidean, not 'shortest'"
            ]
        },
    ),
    (
        "waypoint without id or position",
        B1,
        body([{}], [{"x": 1, "name": "here"}]),
        {
            "data.sources.0.x": ["is required for a waypoint without an id"],
            "data.sources.0.y": ["is required for a waypoint without an id"],
            "data.sources.0.floor_id": ["is required for a waypoint without an id"],
            "data.targets.0.y": ["is required for a waypoint without an id"],
            "data.targets.0.floor_id": ["is required for a waypoint without an id"],
        },
    ),
    (
        "location of another map",
        B1,
        body(ids(U401, "loc-b1-401"), ids("nope")),
        {
            "data.sources.1.id": ["no location 'loc-b1-401' on this map"],
            "data.targets.0.id": ["no location 'nope' on this map"],
        },
    ),
    (
        "position disagrees with the location",
        B1,
        body(
            [{"id": U401, "x": 200, "y": 171}, {"id": U401, "x": 200.5}],
            [{"id": U401, "floor_id": "b1-f3"}, {"id": U401, "floorId": "b1-f1"}],
        ),
        {
            "data.sources.0.y": ["is 171.0, but location 'map-b1:b1-401' is at 170.0"],
            "data.sources.1.x": ["is 200.5, but location 'map-b1:b1-401' is at 200.0"],
            "data.targets.0.floor_id": ["is 'b1-f3', but location 'map-b1:b1-401' is on b1-f4"],
            "data.targets.1.floor_id": ["is 'b1-f1', but location 'map-b1:b1-401' is on b1-f4"],
        },
    ),
    (
        "floor that is not a level of the map",
        B1,
        body([{"x": 1, "y": 2, "floor_id": "b2-f1"}], [{"x": 1, "y": 2, "floorId": "nowhere"}]),
        {
            "data.sources.0.floor_id": ["floor 'b2-f1' is not a level of this map"],
            "data.targets.0.floor_id": ["floor 'nowhere' is not a level of this map"],
        },
    ),
    (
        "floor of another floor map",
        "map-b1-f2",
        body([{"x": 1, "y": 2, "floor_id": "b1-f1"}], ids("loc-b1-201")),
        {"data.sources.0.floor_id": ["floor 'b1-f1' is not a level of this map"]},
    ),
    (
        "ids out of bounds",
        B1,
        body([{"id": "x" * 256}], [{"x": 1, "y": 1, "floor_id": ""}]),
        {
            "data.sources.0.id": ["must be at most 255 characters"],
            "data.targets.0.floor_id": ["must not be empty"],
        },
    ),
    (
        "pathfinding without walk paths",
        "map-stack",
        body(
            [{"x": 100, "y": 20, "floor_id": "b1-f1"}],
            [{"x": 300, "y": 20, "floor_id": "b1-f1"}],
            distance_method="pathfinding",
        ),
        {
            "data.distance_method": [
                "this map is not processed for pathfinding (it has no walk paths)"
            ]
        },
    ),
    # The stacking plan's levels carry a `storey` tag, no `floor` tag: no floor id can
    # place a waypoint on it, so even the euclidean fallback cannot be reached.
    (
        "stacking plan levels have no floor",
        "map-stack",
        body([{"x": 100, "y": 20, "floor_id": "b1-f1"}], [{"x": 300, "y": 20, "floor_id": "1"}]),
        {
            "data.sources.0.floor_id": ["floor 'b1-f1' is not a level of this map"],
            "data.targets.0.floor_id": ["floor '1' is not a level of this map"],
        },
    ),
    (
        "wrong types and unknown fields",
        B1,
        body([{"id": U401, "x": "200"}], [{"id": U401, "storey": 3}], costing=7),
        {
            "data.sources.0.x": ["must be a number"],
            "data.targets.0.storey": ["is not a known field"],
            "data.costing": ["must be a string"],
        },
    ),
    (
        "missing arrays",
        B1,
        {"data": {"targets": None}},
        {"data.sources": ["is required"], "data.targets": ["must not be null"]},
    ),
    ("data is not an object", B1, {"data": [1]}, {"data": ["must be an object"]}),
    (
        "no data member",
        B1,
        {"sources": []},
        {"body": ['must be a JSON object with a "data" member']},
    ),
    ("extra member", B1, {**VALID, "meta": 1}, {"body": ["unknown member 'meta'"]}),
    (
        "floor_id and floorId at once",
        B1,
        body([{"id": U401, "floor_id": "b1-f4", "floorId": "b1-f4"}], ids(U401)),
        {"body": ["'floor_id' and 'floorId' name the same field"]},
    ),
    (
        "every problem at once",
        B1,
        body([{"id": "nope"}], [{}], costing="auto", distance_method="fast"),
        {
            "data.targets.0.x": ["is required for a waypoint without an id"],
            "data.targets.0.y": ["is required for a waypoint without an id"],
            "data.targets.0.floor_id": ["is required for a waypoint without an id"],
            "data.costing": ["must be one of pedestrian, not 'auto'"],
            "data.distance_method": ["must be one of default, pathfinding, euclidean, not 'fast'"],
        },
    ),
]


@pytest.mark.parametrize(
    ("map_id", "payload", "fields"), [case[1:] for case in CASES], ids=[case[0] for case in CASES]
)
async def test_invalid_input(env, map_id, payload, fields):
    before = await snapshot(env)
    for alias in (False, True):
        response = await post(env, map_id, payload, alias=alias)
        assert response.status_code == 422
        assert response.json() == {"message": FAILED, "fields": fields}
    assert await snapshot(env) == before


# ---------------------------------------------------------------- the answer


def waypoint(location: dict[str, Any], index: int, **extra: Any) -> dict[str, Any]:
    return {
        "id": location["id"],
        "name": location["name"],
        "x": location["x"],
        "y": location["y"],
        "floor_id": floor_of(location),
        "index": index,
        **extra,
    }


async def test_exact_answer_on_a_floor_map(env):
    """Walk paths of b1-f1 (0.25 ft per unit): from Unit 101's centre (700, 170) 70 units
    to its door, 16 to the corridor, 640 west, 204 down the walkway, 24 down the steps,
    46 and 136 on the deck, 154 to the pool's centre: 1290 units; to the gym, 592. In a
    wheelchair the ramp (132 units, then 10 on the deck) replaces steps and 36 units."""
    by_id = {loc["id"]: loc for loc in await locations(env, "map-b1-f1")}
    unit, pool, gym = by_id["loc-b1-101"], by_id["loc-b1-f1-pool"], by_id["loc-b1-f1-gym"]
    response = await post(env, "map-b1-f1", body(ids(unit["id"]), ids(pool["id"], gym["id"])))
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    assert response.json() == {
        "data": {
            "distance_method": "pathfinding",
            "sources": [
                waypoint(
                    unit,
                    0,
                    targets=[
                        waypoint(pool, 0, distance=322.5, time=round(322.5 / FOOT, 2)),
                        waypoint(gym, 1, distance=148.0, time=round(148 / FOOT, 2)),
                    ],
                )
            ],
        }
    }
    chair = await post(
        env,
        "map-b1-f1",
        body(
            ids(unit["id"]),
            ids(pool["id"], gym["id"]),
            costing="pedestrian",
            costing_options={"pedestrian": {"mode": "wheelchair"}},
            distance_method="pathfinding",
        ),
    )
    assert chair.json() == {
        "data": {
            "distance_method": "pathfinding",
            "sources": [
                waypoint(
                    unit,
                    0,
                    targets=[
                        waypoint(pool, 0, distance=340.5, time=round(340.5 / WHEELCHAIR, 2)),
                        waypoint(gym, 1, distance=148.0, time=round(148 / WHEELCHAIR, 2)),
                    ],
                )
            ],
        }
    }
    alias = await post(
        env, "map-b1-f1", body(ids(unit["id"]), ids(pool["id"], gym["id"])), alias=True
    )
    assert alias.json() == response.json()


async def test_index_follows_request_order_with_repeats(env):
    a, b = "map-b1:b1-101", "loc-b1-f4-trash@map-b1"
    response = await post(env, B1, body(ids(a, b, a), ids(b, a, b)))
    assert response.status_code == 200
    sources = response.json()["data"]["sources"]
    assert [(s["id"], s["index"]) for s in sources] == [(a, 0), (b, 1), (a, 2)]
    for source in sources:
        assert [(t["id"], t["index"]) for t in source["targets"]] == [(b, 0), (a, 1), (b, 2)]
    cell = {(s["id"], t["id"]): (t["distance"], t["time"]) for s in sources for t in s["targets"]}
    assert sources[0]["targets"] == sources[2]["targets"]
    assert [(t["distance"], t["time"]) for t in sources[0]["targets"]][1] == (0.0, 0.0)
    # The graph is undirected: there and back are the same.
    assert cell[(a, b)] == cell[(b, a)]
    assert sources[0]["targets"][0]["distance"] > 0


async def test_given_fields_agree_and_are_echoed(env):
    """`floorId` is a synonym in requests; the answer says `floor_id`. A given name is
    echoed; a waypoint without id is placed by x, y and floor."""
    loc = next(x for x in await locations(env, B1) if x["id"] == U401)
    response = await post(
        env,
        B1,
        {
            "data": {
                "sources": [
                    {"id": U401, "x": loc["x"], "y": loc["y"], "floorId": "b1-f4", "name": "Mine"}
                ],
                "targets": [
                    {"x": 200, "y": 170, "floorId": "b1-f4"},
                    {"id": U401, "floor_id": "b1-f4"},
                ],
                "distanceMethod": "euclidean",
            }
        },
    )
    assert response.status_code == 200
    assert response.json() == {
        "data": {
            "distance_method": "euclidean",
            "sources": [
                {
                    "id": U401,
                    "name": "Mine",
                    "x": 200.0,
                    "y": 170.0,
                    "floor_id": "b1-f4",
                    "index": 0,
                    "targets": [
                        {
                            "id": None,
                            "name": None,
                            "x": 200.0,
                            "y": 170.0,
                            "floor_id": "b1-f4",
                            "index": 0,
                            "distance": 0.0,
                            "time": 0.0,
                        },
                        {**waypoint(loc, 1), "distance": 0.0, "time": 0.0},
                    ],
                }
            ],
        }
    }


async def test_fifty_pairs_is_the_limit(env):
    units = await locations(env, B1)  # 56: 49 units, 7 amenities
    for shape in ((5, 10), (10, 5), (1, 50), (50, 1)):
        response = await post(
            env,
            B1,
            body(
                ids(*(u["id"] for u in units[: shape[0]])),
                ids(*(u["id"] for u in units[: shape[1]])),
            ),
        )
        assert response.status_code == 200
        answer = response.json()["data"]["sources"]
        assert len(answer) == shape[0]
        assert {len(source["targets"]) for source in answer} == {shape[1]}


async def test_default_method(env):
    pair = body(ids("map-b1:b1-202"), ids("map-b1:b1-302"))
    omitted = await post(env, B1, pair)
    default = await post(env, B1, {"data": {**pair["data"], "distance_method": "default"}})
    pathfinding = await post(env, B1, {"data": {**pair["data"], "distance_method": "pathfinding"}})
    euclidean = await post(env, B1, {"data": {**pair["data"], "distance_method": "euclidean"}})
    assert omitted.json()["data"]["distance_method"] == "pathfinding"
    assert omitted.json() == default.json() == pathfinding.json()
    assert euclidean.json()["data"]["distance_method"] == "euclidean"
    # Unit 302 is above Unit 202: straight up, one floor step.
    assert euclidean.json()["data"]["sources"][0]["targets"][0]["distance"] == 10.0
    assert euclidean.json()["data"]["sources"][0]["targets"][0]["time"] == round(10 / FOOT, 2)


async def test_default_is_euclidean_without_walk_paths(env):
    """Our map of two levels without walk paths: 0.5 ft per unit, its own floor height 12."""
    points = body(
        [{"x": 0, "y": 0, "floor_id": "dm-f1"}],
        [{"x": 6, "y": 8, "floor_id": "dm-f2"}, {"x": 6, "y": 8, "floor_id": "dm-f1"}],
    )
    for options in ({}, {"distance_method": "default"}, {"distance_method": "euclidean"}):
        response = await post(env, FLAT_MAP, {"data": {**points["data"], **options}})
        assert response.status_code == 200
        answer = response.json()["data"]
        assert answer["distance_method"] == "euclidean"
        assert [(t["distance"], t["time"]) for t in answer["sources"][0]["targets"]] == [
            (13.0, round(13 / FOOT, 2)),
            (5.0, round(5 / FOOT, 2)),
        ]
    chair = await post(
        env,
        FLAT_MAP,
        {"data": {**points["data"], "costing_options": {"pedestrian": {"mode": "wheelchair"}}}},
    )
    assert [t["time"] for t in chair.json()["data"]["sources"][0]["targets"]] == [
        round(13 / WHEELCHAIR, 2),
        round(5 / WHEELCHAIR, 2),
    ]
    no_graph = await post(
        env, FLAT_MAP, {"data": {**points["data"], "distance_method": "pathfinding"}}
    )
    assert no_graph.status_code == 422


async def test_single_level_without_floor_tag_takes_any_floor(env):
    """A drawing without level markup is one level: every floor id is that level."""
    response = await post(
        env,
        PLAIN_MAP,
        body([{"x": 0, "y": 0, "floor_id": "dm-f1"}], [{"x": 3, "y": 4, "floor_id": "dm-f2"}]),
    )
    assert response.status_code == 200
    answer = response.json()["data"]
    assert answer["distance_method"] == "euclidean"
    assert answer["sources"][0]["targets"][0]["distance"] == 5.0


async def test_unreachable_pairs_are_null(env):
    """Stairs only between S1 and S2 (1 ft per unit, 100 ft of path on each level, the
    stairs at the paths' east ends); S3 has no walk paths. The request still succeeds."""
    here = [{"x": 10, "y": 10, "floor_id": "dm-f1"}]
    there = [{"x": 10, "y": 10, "floor_id": f"dm-f{n}"} for n in (1, 2, 3)]
    expected = {
        "foot": [(0.0, 0.0), (215.0, round(200 / FOOT + STAIRS_STEP, 2)), (None, None)],
        "wheelchair": [(0.0, 0.0), (None, None), (None, None)],
    }
    for mode, cells in expected.items():
        response = await post(
            env, STAIRS_MAP, body(here, there, costing_options={"pedestrian": {"mode": mode}})
        )
        assert response.status_code == 200
        answer = response.json()["data"]
        assert answer["distance_method"] == "pathfinding"
        assert [(t["distance"], t["time"]) for t in answer["sources"][0]["targets"]] == cells
    on_s3 = await post(env, STAIRS_MAP, body(there[2:], there[2:]))
    assert [(t["distance"], t["time"]) for t in on_s3.json()["data"]["sources"][0]["targets"]] == [
        (None, None)
    ]
    straight_up = await post(env, STAIRS_MAP, body(here, there[2:], distance_method="euclidean"))
    assert straight_up.json()["data"]["sources"][0]["targets"][0]["distance"] == 20.0


@pytest.mark.parametrize("mode", ["foot", "wheelchair"])
async def test_euclidean_is_the_straight_line(env, mode):
    """From every unit of building 1 to every amenity: computed here from the stored
    coordinates, 0.25 ft per unit and 10 ft per floor step."""
    units, amenities = await units_and_amenities(env, B1)
    speed = FOOT if mode == "foot" else WHEELCHAIR
    cells = await matrix(env, B1, units, amenities, mode, "euclidean")
    assert len(cells) == len(units) * len(amenities)
    for unit in units:
        for amenity in amenities:
            feet = straight(unit, amenity)
            assert cells[(unit["id"], amenity["id"])] == (round(feet, 2), round(feet / speed, 2))


async def test_huge_coordinates_are_not_a_server_error(env):
    response = await post(
        env,
        B1,
        body(
            [{"x": 1e308, "y": 0, "floor_id": "b1-f1"}],
            [{"x": -1e308, "y": 0, "floor_id": "b1-f1"}],
            distance_method="euclidean",
        ),
    )
    assert response.status_code == 422
    assert response.json()["fields"] == {
        "data.sources.0.x": ["must be a number from -1e+09 to 1e+09"],
        "data.targets.0.x": ["must be a number from -1e+09 to 1e+09"],
    }


async def test_infinite_coordinate_literal_is_bad_input(env):
    query = (
        '{ distanceMatrix(unitMapId: "map-b1-f1", input: {sources: [{x: 1e309, y: 0, '
        'floorId: "b1-f1"}], targets: [{x: 0, y: 0, floorId: "b1-f1"}]}) '
        "{ sources { targets { distance } } } }"
    )
    response = await env.client.post("/graphql", json={"query": query}, headers=env.headers())
    assert response.json()["errors"][0]["extensions"] == {
        "code": "BAD_USER_INPUT",
        "fields": {"input.sources.0.x": ["must be a number from -1e+09 to 1e+09"]},
    }


# ---------------------------------------------------------------- the closest amenity


@pytest.mark.parametrize("map_id", DEMO_MAPS)
async def test_every_unit_reaches_every_amenity_on_foot(env, map_id):
    units, amenities = await units_and_amenities(env, map_id)
    cells = await matrix(env, map_id, units, amenities)
    assert len(cells) == len(units) * len(amenities)
    for unit in units:
        for amenity in amenities:
            distance, time = cells[(unit["id"], amenity["id"])]
            assert isinstance(distance, float) and distance > 0
            assert isinstance(time, float) and time > 0


@pytest.mark.parametrize("map_id", DEMO_MAPS)
async def test_nearest_trash_room_is_on_the_units_floor(env, map_id):
    units, amenities = await units_and_amenities(env, map_id)
    trash = tagged(amenities, "amenity", "waste_disposal")
    assert sorted(floor_of(t) for t in trash) == [f"{map_id[4:]}-f{f}" for f in (1, 2, 3, 4)]
    cells = await matrix(env, map_id, units, amenities)
    assert any(floor_of(unit).endswith("-f4") for unit in units)
    for unit in units:
        for metric in (0, 1):  # distance, then time
            nearest = min(trash, key=lambda t: cells[(unit["id"], t["id"])][metric])
            assert floor_of(nearest) == floor_of(unit), (unit["id"], metric)


async def test_wheelchair_route_to_the_pool_avoids_steps_and_stairs(env):
    """The pool is on b1-f1 behind three steps with a ramp beside them. In a wheelchair
    every route is slower; from the ground floor it is the ramp's 18 ft longer; from
    above it rides the elevator once (30 s wait + 5 s per floor step, 10 ft per step)
    and never takes the stairs (12 s and 15 ft per step), which on foot some routes do."""
    units, amenities = await units_and_amenities(env, B1)
    pool = tagged(amenities, "leisure", "swimming_pool")
    assert len(pool) == 1 and floor_of(pool[0]) == "b1-f1"
    foot = await matrix(env, B1, units, pool)
    chair = await matrix(env, B1, units, pool, "wheelchair")
    took_stairs = 0
    for unit in units:
        (walked, walk_time), (rolled, roll_time) = (
            foot[(unit["id"], pool[0]["id"])],
            chair[(unit["id"], pool[0]["id"])],
        )
        assert roll_time > walk_time, unit["id"]
        steps = LEVEL[floor_of(unit)]
        if steps == 0:
            assert rolled == pytest.approx(walked + 18, abs=0.011)
            assert roll_time == pytest.approx(rolled / WHEELCHAIR, abs=0.011)
            assert walk_time == pytest.approx(walked / FOOT, abs=0.011)
            continue
        elevator = ELEVATOR_WAIT + ELEVATOR_STEP * steps
        assert roll_time == pytest.approx(
            elevator + (rolled - FLOOR_HEIGHT * steps) / WHEELCHAIR, abs=0.011
        ), unit["id"]
        assert roll_time > elevator
        by_elevator = elevator + (walked - FLOOR_HEIGHT * steps) / FOOT
        by_stairs = STAIRS_STEP * steps + (walked - STAIRS_LENGTH * steps) / FOOT
        assert min(abs(walk_time - by_elevator), abs(walk_time - by_stairs)) < 0.011, unit["id"]
        took_stairs += abs(walk_time - by_stairs) < 0.011
    assert took_stairs > 0  # on foot the stairs are sometimes quicker


@pytest.mark.parametrize("map_id", DEMO_MAPS)
async def test_pathfinding_is_never_shorter_than_the_straight_line(env, map_id):
    units, amenities = await units_and_amenities(env, map_id)
    walked = await matrix(env, map_id, units, amenities)
    straight_line = await matrix(env, map_id, units, amenities, method="euclidean")
    same_floor = 0
    for unit in units:
        for amenity in amenities:
            pair = (unit["id"], amenity["id"])
            assert walked[pair][0] >= straight_line[pair][0] - 0.01, pair
            same_floor += floor_of(unit) == floor_of(amenity)
    assert same_floor >= len(units)


# ---------------------------------------------------------------- GraphQL

MATRIX_QUERY = """query ($map: ID!, $input: DistanceMatrixInput!) {
  distanceMatrix(unitMapId: $map, input: $input) {
    distanceMethod
    sources { id name x y floorId index
              targets { id name x y floorId index distance time } } } }"""


async def gql(
    env: Env, variables: dict[str, Any], key: str | None = None, flags: str | None = FLAGS
) -> dict[str, Any]:
    response = await env.client.post(
        "/graphql",
        json={"query": MATRIX_QUERY, "variables": variables},
        headers=env.headers(key, flags),
    )
    assert response.status_code == 200
    return response.json()


def snake_keys(value: Any) -> Any:
    renames = {"floorId": "floor_id", "distanceMethod": "distance_method"}
    if isinstance(value, dict):
        return {renames.get(k, k): snake_keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [snake_keys(v) for v in value]
    return value


async def test_graphql_gives_the_rest_numbers(env):
    rest_input = {
        "sources": [
            *ids("map-b1:b1-401", "map-b1:b1-108"),
            {"x": 600, "y": 256, "floor_id": "b1-f2"},
        ],
        "targets": ids("loc-b1-f1-pool@map-b1", "loc-b1-f3-trash@map-b1"),
        "costing_options": {"pedestrian": {"mode": "wheelchair"}},
    }
    graphql_input = {
        **rest_input,
        "costingOptions": rest_input["costing_options"],
        "sources": [*rest_input["sources"][:2], {"x": 600, "y": 256, "floorId": "b1-f2"}],
    }
    del graphql_input["costing_options"]
    rest = await post(env, B1, {"data": rest_input})
    assert rest.status_code == 200
    result = await gql(env, {"map": B1, "input": graphql_input})
    assert "errors" not in result
    assert snake_keys(result["data"]["distanceMatrix"]) == rest.json()["data"]


async def test_graphql_errors(env):
    good = {"sources": ids(U401), "targets": ids(U401)}
    invalid = await gql(
        env,
        {
            "map": B1,
            "input": {
                "sources": [{"id": U401, "x": 1}, {"x": 1, "y": 1}],
                "targets": [{"x": 1, "y": 1, "floorId": "b2-f1"}],
                "costingOptions": {"pedestrian": {"mode": "skates"}},
                "distanceMethod": "nearest",
            },
        },
    )
    assert invalid["data"] is None
    assert invalid["errors"][0]["message"] == FAILED
    assert invalid["errors"][0]["extensions"] == {
        "code": "BAD_USER_INPUT",
        "fields": {
            "input.sources.1.floorId": ["is required for a waypoint without an id"],
            "input.costingOptions.pedestrian.mode": [
                "must be one of foot, wheelchair, not 'skates'"
            ],
            "input.distanceMethod": [
                "must be one of default, pathfinding, euclidean, not 'nearest'"
            ],
        },
    }
    placed = await gql(
        env,
        {
            "map": B1,
            "input": {
                "sources": [{"id": U401, "x": 1}],
                "targets": [{"x": 1, "y": 1, "floorId": "b2-f1"}],
            },
        },
    )
    assert placed["errors"][0]["extensions"] == {
        "code": "BAD_USER_INPUT",
        "fields": {
            "input.sources.0.x": ["is 1.0, but location 'map-b1:b1-401' is at 200.0"],
            "input.targets.0.floorId": ["floor 'b2-f1' is not a level of this map"],
        },
    }
    too_many = await gql(
        env, {"map": B1, "input": {"sources": ids(U401) * 6, "targets": ids(U401) * 9}}
    )
    assert too_many["errors"][0]["extensions"] == {
        "code": "BAD_USER_INPUT",
        "fields": {
            "input": ["at most 50 source-target pairs (sources x targets) per request, not 54"]
        },
    }
    no_flag = await gql(env, {"map": B1, "input": good}, flags=None)
    assert no_flag["errors"][0]["message"] == flag_message("distances")
    assert no_flag["errors"][0]["extensions"] == {"code": "FLAG_REQUIRED"}
    forbidden = await gql(env, {"map": B1, "input": good}, key=env.plain)
    assert forbidden["errors"][0]["message"] == (
        "Access denied: missing permission service.distances.calculate"
    )
    assert forbidden["errors"][0]["extensions"] == {"code": "FORBIDDEN"}
    scoped = await gql(env, {"map": B1, "input": good}, key=env.other)
    assert scoped["errors"][0]["message"] == "Not found"
    assert scoped["errors"][0]["extensions"] == {"code": "NOT_FOUND"}
    stack = await gql(
        env,
        {
            "map": "map-stack",
            "input": {
                **good,
                "sources": [{"x": 1, "y": 1, "floorId": "b1-f1"}],
                "targets": [{"x": 1, "y": 1, "floorId": "b1-f1"}],
                "distanceMethod": "pathfinding",
            },
        },
    )
    assert stack["errors"][0]["extensions"] == {
        "code": "BAD_USER_INPUT",
        "fields": {
            "input.distanceMethod": [
                "this map is not processed for pathfinding (it has no walk paths)"
            ]
        },
    }


@pytest.mark.parametrize("x", ["abc", True], ids=["string", "boolean"])
async def test_graphql_variable_of_the_wrong_type_is_bad_input(env, x):
    result = await gql(
        env,
        {
            "map": B1,
            "input": {"sources": [{"x": x, "y": 0, "floorId": "b1-f1"}], "targets": ids(U401)},
        },
    )
    assert result["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"


# ---------------------------------------------------------------- the graph cache


async def test_graph_cache_follows_a_changed_drawing(env, monkeypatch):
    """A second request is answered from the cache; after the map is imported again
    with another drawing (and a moved location) the answer follows the new data."""
    import resolvers.wayfinding.distances as distances

    loads: list[str] = []
    real_load = distances.load_graph

    async def counted(store, settings, graph_file, floor_height):
        loads.append(graph_file)
        return await real_load(store, settings, graph_file, floor_height)

    monkeypatch.setattr(distances, "load_graph", counted)
    cache = env.app.services.graph_cache
    cache.clear()
    pair = body(ids("dm-a"), ids("dm-b"))

    async def answer() -> tuple[float, float]:
        response = await post(env, ROUTE_MAP, pair)
        assert response.status_code == 200
        data = response.json()["data"]
        assert data["distance_method"] == "pathfinding"
        target = data["sources"][0]["targets"][0]
        return target["distance"], target["time"]

    assert await answer() == (100.0, round(100 / FOOT, 2))
    assert (len(loads), len(cache)) == (1, 1)
    assert await answer() == (100.0, round(100 / FOOT, 2))
    assert (len(loads), len(cache)) == (1, 1)  # from the cache

    data, svgs = own_dataset(DETOUR)
    await import_data(env.store, data, env.tmp, svg_sources=svgs)
    assert await answer() == (200.0, round(200 / FOOT, 2))
    assert len(loads) == 2 and loads[0] != loads[1]
    assert len(cache) == 1  # the old version of the map is dropped
    assert await answer() == (200.0, round(200 / FOOT, 2))
    assert len(loads) == 2

    # A moved location: the drawing (and its graph) stay, the waypoint follows.
    data, svgs = own_dataset(DETOUR, b_at=(60, 60))
    await import_data(env.store, data, env.tmp, svg_sources=svgs)
    assert await answer() == (100.0, round(100 / FOOT, 2))  # 50 down, 50 east
    assert len(loads) == 2
    moved = await post(env, ROUTE_MAP, body(ids("dm-a"), [{"id": "dm-b", "x": 110, "y": 10}]))
    assert moved.status_code == 422
    assert moved.json()["fields"] == {
        "data.targets.0.x": ["is 110.0, but location 'dm-b' is at 60"],
        "data.targets.0.y": ["is 10.0, but location 'dm-b' is at 60"],
    }

    data, svgs = own_dataset(STRAIGHT)
    await import_data(env.store, data, env.tmp, svg_sources=svgs)
    assert await answer() == (100.0, round(100 / FOOT, 2))
    assert len(loads) == 3 and loads[2] == loads[0]  # content-addressed: the same file


async def test_graph_is_loaded_once_for_concurrent_requests(env, monkeypatch):
    import resolvers.wayfinding.distances as distances

    loads: list[str] = []
    real_load = distances.load_graph

    async def counted(store, settings, graph_file, floor_height):
        loads.append(graph_file)
        await asyncio.sleep(0.05)  # let the other requests arrive while loading
        return await real_load(store, settings, graph_file, floor_height)

    monkeypatch.setattr(distances, "load_graph", counted)
    env.app.services.graph_cache.clear()
    pair = body(ids("map-b2:b2-101", "map-b2:b2-401"), ids("loc-b2-f1-mail@map-b2"))
    responses = await asyncio.gather(*(post(env, "map-b2", pair) for _ in range(5)))
    assert {r.status_code for r in responses} == {200}
    assert len({r.text for r in responses}) == 1
    assert len(loads) == 1


async def test_readyz_shows_the_bytes_of_the_loaded_graph_and_waypoints(env):
    """The graph and waypoint caches count what they hold in bytes, keys included, and
    `/readyz` shows it (docs/limits.md, "Memory")."""
    services = env.app.services
    services.graph_cache.clear()
    services.waypoint_cache.clear()
    env.store.cache.flush()  # no kept answer of an earlier test: the graph is loaded
    pair = body(ids("map-b2:b2-101", "map-b2:b2-401"), ids("loc-b2-f1-mail@map-b2"))
    assert (await post(env, "map-b2", pair)).status_code == 200
    unit_map = await env.store["unit_maps"].find_one({"_id": "map-b2"})
    graph = graph_from_bytes((await get_file(env.store, unit_map["graph_file"])).data)
    elements = graph.node_count + graph.edge_count
    waypoints = await load_waypoints(env.store, "map-b2")
    ready = (await env.client.get("/readyz")).json()
    budget = Settings().graph_cache_mb * 1024 * 1024
    kept = min(MAX_JOINS_KEPT, max(MIN_JOINS_KEPT, graph.node_count))
    joins = kept * JOIN_BYTES
    profiles = MAX_PROFILES_KEPT * (PROFILE_BYTES_PER_ELEMENT * elements + joins)
    assert ready["walk_graphs"] == {
        "entries": 1,
        "bytes_used": LOADED_BYTES_PER_ELEMENT * elements
        + 2 * joins
        + kept * KEPT_TARGET_BYTES
        + profiles
        + KEY_BYTES
        + len("map-b2"),
        "budget_bytes": budget,
        # the module's requests share these caches: counted, never one let go for room
        "hits": ready["walk_graphs"]["hits"],
        "misses": ready["walk_graphs"]["misses"],
        "evictions": 0,
    }
    assert ready["waypoints"] == {
        "entries": 1,
        # keyed by map and language (issue 51): "map-b2\0en"
        "bytes_used": waypoints_bytes(waypoints) + KEY_BYTES + len("map-b2\0en"),
        "budget_bytes": budget // SIDE_CACHE_SHARE,
        "hits": ready["waypoints"]["hits"],
        "misses": ready["waypoints"]["misses"],
        "evictions": 0,
    }
    assert len(waypoints) > 10 and ready["landmarks"]["entries"] == 0


@pytest.mark.security
async def test_a_key_scoped_to_another_asset_loads_and_keeps_nothing(env):
    """A key of another asset asking for E18 on the demo's map is answered 404 before
    the map's graph or waypoints are read: the per-process caches stay empty, so such a
    key cannot fill them (or learn from their timing) with maps it may not see."""
    services = env.app.services
    services.graph_cache.clear()
    services.waypoint_cache.clear()
    env.store.cache.flush()
    pair = body(ids("map-b2:b2-101", "map-b2:b2-401"), ids("loc-b2-f1-mail@map-b2"))
    refused = await post(env, "map-b2", pair, key=env.other)
    assert (refused.status_code, refused.json()) == (404, {"message": "Not found"})
    ready = (await env.client.get("/readyz")).json()
    assert (ready["walk_graphs"]["entries"], ready["walk_graphs"]["bytes_used"]) == (0, 0)
    assert (ready["waypoints"]["entries"], ready["waypoints"]["bytes_used"]) == (0, 0)


@pytest.mark.parametrize("small", [True, False])
async def test_graph_work_runs_off_the_event_loop_on_a_large_graph(small):
    """`resolvers.wayfinding.distances.on_graph` (E18 and directions): a small graph answers on the
    event loop's thread, a large one on the CPU pool's, with the same result."""
    import threading
    from types import SimpleNamespace

    from resolvers.wayfinding.distances import on_graph

    loaded = SimpleNamespace(is_small=small)
    result, thread = await on_graph(loaded, lambda a, b: (a + b, threading.current_thread()), 2, 3)  # type: ignore[arg-type]
    assert result == 5
    assert (thread is threading.current_thread()) is small
