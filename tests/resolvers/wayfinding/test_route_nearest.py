"""Nearest in one call (issue 47, point 4): a route's `to` names candidates
(`{"nearest": {"ids": [...]}}`, `{"tags": ...}`, `{"q": ...}`) and the answer is the
route to the one reached first, through the real app on the demo and on maps of our own.

- For random origins on every demo map with walk paths, both modes, the choice and its
  time and distance are the minimum over E18 1 x N of the same candidates (ties:
  distance, then id), and the whole answer is the plain route to the chosen place.
- Across every pair of levels of both building maps, the route starts on the one and
  ends on the other.
- Stairs-only levels, a level without walk paths and a map without walk paths: a null
  route with its reason, `to` naming the candidate nearest in a straight line.
- Every refusal with its exact body, on REST and GraphQL; `from` and E18 refuse `nearest`.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from resolvers.limits import MAX_NEAREST_IDS, MAX_SEARCH_CHARS
from storage.imports.importer import import_data
from tests.resolvers.wayfinding.test_distance_matrix import ROUTE_MAP, demo_env
from tests.resolvers.wayfinding.test_distance_matrix import post as post_e18
from tests.resolvers.wayfinding.test_route import (
    DEMO_MAPS,
    FAILED,
    FLAGS,
    RouteEnv,
    e18,
    gql,
    locations,
    post,
)

B1, B2 = "map-b1", "map-b2"
E18_PAIRS = 50  # E18's pair limit: candidates are measured in chunks of it
ORIGINS = 40  # random origins per demo map
AMENITY = "svc:amenity==yes"
FILTERS = (AMENITY, "svc:type==unit", "indoor==room,-svc:amenity", "amenity==mailroom")

# Our own asset: the stairs map of test_distance_matrix with locations on it (S1 and S2
# joined by stairs only, S3 without walk paths; 1 ft per unit), and a map without walk
# paths. Feet per unit 1, floor height 10 ft.
OWN = "nr-asset"
STAIRS_MAP, FLAT_MAP = "nr-stairs", "nr-flat"
SVG_HEAD = '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"'
STAIRS = (
    '<rect data-connector="stairs" data-connector-id="s" x="100" y="0" width="20" height="20"/>'
)
STAIRS_SVG = (
    f"{SVG_HEAD}>"
    + "".join(
        f'<g id="S{n}" data-level="S{n}" data-tag-floor="nr-f{n}" data-level-index="{n}">'
        '<g data-layer="paths"><line x1="10" y1="10" x2="110" y2="10"/></g>'
        f"{STAIRS}</g>"
        for n in (1, 2)
    )
    + '<g id="S3" data-level="S3" data-tag-floor="nr-f3" data-level-index="3">'
    '<rect x="0" y="0" width="10" height="10"/></g></svg>'
)
FLAT_SVG = (
    f'{SVG_HEAD} data-feet-per-unit="0.5">'
    '<g id="A" data-level="One" data-tag-floor="nr-f1" data-level-index="1"><rect '
    'x="0" y="0" width="10" height="10"/></g>'
    '<g id="B" data-level="Two" data-tag-floor="nr-f2" data-level-index="2"><rect '
    'x="0" y="0" width="10" height="10"/></g></svg>'
)
STAMP = "2026-01-01T00:00:00+00:00"
# id -> (map, x, y, floor, tags)
OWN_LOCATIONS: dict[str, tuple[str, float, float, str, dict[str, str]]] = {
    "nr-s1a": (STAIRS_MAP, 10, 10, "nr-f1", {"kind": "start"}),
    "nr-s1m": (STAIRS_MAP, 60, 10, "nr-f1", {"kind": "start"}),
    "nr-s1t1": (STAIRS_MAP, 10, 10, "nr-f1", {"kind": "twin"}),
    "nr-s1t2": (STAIRS_MAP, 110, 10, "nr-f1", {"kind": "twin"}),
    "nr-s2a": (STAIRS_MAP, 10, 10, "nr-f2", {"kind": "upstairs", "side": "west"}),
    "nr-s2b": (STAIRS_MAP, 60, 10, "nr-f2", {"kind": "upstairs", "side": "middle"}),
    "nr-s3": (STAIRS_MAP, 5, 5, "nr-f3", {"kind": "cellar"}),
    "nr-fa": (FLAT_MAP, 2, 2, "nr-f1", {"kind": "flat"}),
    "nr-fb": (FLAT_MAP, 8, 8, "nr-f1", {"kind": "flat"}),
    "nr-fc": (FLAT_MAP, 3, 3, "nr-f2", {"kind": "flat"}),
}
FOOT = 4.4  # ft/s
STAIRS_STEP = 12.0  # seconds per floor step


def own_dataset() -> tuple[dict[str, Any], dict[str, str]]:
    def location(id_: str) -> dict[str, Any]:
        map_id, x, y, floor, tags = OWN_LOCATIONS[id_]
        return {
            "id": id_,
            "asset_id": OWN,
            "unit_map_id": map_id,
            "name": f"Place {id_}",
            "x": x,
            "y": y,
            "floors": [{"id": floor}],
            "tags": [
                {"key": key, "value": value, "created_at": STAMP, "updated_at": STAMP}
                for key, value in tags.items()
            ],
            "created_at": STAMP,
            "updated_at": STAMP,
        }

    data = {
        "version": 1,
        "assets": [{"id": OWN, "market": "office", "name": "Nearest"}],
        "floors": [
            {"id": f"nr-f{n}", "asset_id": OWN, "name": f"F{n}", "sort": n} for n in (1, 2, 3)
        ],
        "unit_maps": [
            {"id": STAIRS_MAP, "asset_id": OWN, "name": "Stairs"},
            {"id": FLAT_MAP, "asset_id": OWN, "name": "Flat"},
        ],
        "locations": [location(id_) for id_ in OWN_LOCATIONS],
    }
    return data, {STAIRS_MAP: STAIRS_SVG, FLAT_MAP: FLAT_SVG}


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def env(db_server, settings, tmp_path_factory) -> AsyncIterator[RouteEnv]:
    tmp = tmp_path_factory.mktemp("nearest")
    async with demo_env(db_server, settings, tmp, RouteEnv) as made:
        data, svgs = own_dataset()
        await import_data(made.store, data, tmp, svg_sources=svgs)
        yield made


def refused(fields: dict[str, list[str]]) -> tuple[int, dict[str, Any]]:
    return 422, {"message": FAILED, "fields": fields}


def nearest(**candidates: Any) -> dict[str, Any]:
    return {"nearest": candidates}


async def route_to(
    env: RouteEnv, map_id: str, start: dict[str, Any], to: dict[str, Any], mode: str = "foot"
) -> dict[str, Any]:
    response = await post(env, map_id, {"from": start, "to": to, "mode": mode})
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


async def e18_best(
    env: RouteEnv, map_id: str, start: dict[str, Any], ids: list[str], mode: str
) -> tuple[float, float, str] | None:
    """(time, distance, id) of the candidate E18 1 x N puts first (least time, then
    distance, then id), asked in chunks of E18's pair limit; None when none is reached."""
    reached: list[tuple[float, float, str]] = []
    for at in range(0, len(ids), E18_PAIRS):
        chunk = ids[at : at + E18_PAIRS]
        (row,) = await e18(env, map_id, [start], [{"id": id_} for id_ in chunk], mode)
        cells = zip(chunk, row, strict=True)
        reached += [(t, d, id_) for id_, (d, t) in cells if d is not None and t is not None]
    return min(reached) if reached else None


async def tagged_ids(env: RouteEnv, map_id: str, tags: str) -> list[str]:
    """What E17 answers for the filter: the candidates `nearest.tags` must have."""
    response = await env.client.get(
        f"/v1/maps/{map_id}/locations", params={"tags": tags}, headers=env.headers()
    )
    assert response.status_code == 200, response.text
    return [location["id"] for location in response.json()["data"]]


def origins(rng: random.Random, found: list[dict[str, Any]], count: int) -> list[dict[str, Any]]:
    """Location ids, and one in four an ad-hoc point near a location."""
    chosen: list[dict[str, Any]] = []
    for _ in range(count):
        location = rng.choice(found)
        if rng.random() < 0.25:
            dx, dy = rng.uniform(-20, 20), rng.uniform(-20, 20)
            floor = location["floors"][0]["id"]
            chosen.append({"x": location["x"] + dx, "y": location["y"] + dy, "floor_id": floor})
        else:
            chosen.append({"id": location["id"]})
    return chosen


async def check_against_e18(
    env: RouteEnv,
    map_id: str,
    start: dict[str, Any],
    to: dict[str, Any],
    ids: list[str],
    mode: str,
) -> dict[str, Any]:
    """The nearest route's choice, time and distance are E18's minimum, and the whole
    answer is the plain route to the chosen place's id."""
    answer = await route_to(env, map_id, start, to, mode)
    best = await e18_best(env, map_id, start, ids, mode)
    assert best is not None, (map_id, start, ids, mode)  # the demo's maps are all joined
    time, distance, chosen = best
    assert answer["to"]["id"] == chosen, (map_id, start, to, mode)
    route = answer["route"]
    assert (route["time"], route["distance"]) == (time, distance), (map_id, start, to, mode)
    plain = await route_to(env, map_id, start, {"id": chosen}, mode)
    assert answer == plain
    return answer


# ---------------------------------------------------------------- against E18 1 x N


@pytest.mark.parametrize("map_id", DEMO_MAPS)
async def test_ids_choose_the_e18_minimum_from_random_origins(env, map_id):
    rng = random.Random(f"ids {map_id}")
    found = await locations(env, map_id)
    assert len(found) >= 2
    checked = 0
    for start in origins(rng, found, ORIGINS):
        size = rng.randint(1, min(len(found), 2 * E18_PAIRS + 7))
        ids = sorted(location["id"] for location in rng.sample(found, size))
        asked = rng.sample(ids, len(ids))  # in any order, some twice
        asked += rng.sample(ids, rng.randint(0, min(3, len(ids))))
        for mode in ("foot", "wheelchair"):
            await check_against_e18(env, map_id, start, nearest(ids=asked), ids, mode)
            checked += 1
    assert checked == 2 * ORIGINS


@pytest.mark.parametrize("map_id", DEMO_MAPS)
async def test_tags_choose_the_e18_minimum_of_what_e17_lists(env, map_id):
    rng = random.Random(f"tags {map_id}")
    found = await locations(env, map_id)
    listed = {tags: await tagged_ids(env, map_id, tags) for tags in FILTERS}
    usable = [tags for tags, ids in listed.items() if ids]
    assert AMENITY in usable or "svc:type==unit" in usable
    for start in origins(rng, found, ORIGINS):
        tags = rng.choice(usable)
        for mode in ("foot", "wheelchair"):
            await check_against_e18(env, map_id, start, nearest(tags=tags), listed[tags], mode)


# A search text and the tag filter of the places it names on the demo.
Q_AND_TAGS = (
    ("gym", "leisure==fitness_centre"),
    ("mail", "amenity==mailroom"),
    ("Mail Room", "amenity==mailroom"),
    ("trash", "amenity==waste_disposal"),
)


@pytest.mark.parametrize("map_id", DEMO_MAPS)
async def test_q_chooses_among_the_places_it_names(env, map_id):
    """`q: "gym"` is the gym, `q: "mail"` the mail room, `q: "trash"` the nearest trash
    room: E18's minimum over what the tag filter of that kind lists, and the same answer
    as `tags`. Where the map has none, 422."""
    rng = random.Random(f"q {map_id}")
    found = await locations(env, map_id)
    for q, tags in Q_AND_TAGS:
        ids = await tagged_ids(env, map_id, tags)
        if not ids:
            response = await post(env, map_id, {"from": {"id": found[0]["id"]}, "to": nearest(q=q)})
            assert (response.status_code, response.json()) == refused(
                {"data.to.nearest": [f"has no candidate: no location of this map matches q {q!r}"]}
            )
            continue
        for start in origins(rng, found, 8):
            for mode in ("foot", "wheelchair"):
                answer = await check_against_e18(env, map_id, start, nearest(q=q), ids, mode)
                assert answer == await route_to(env, map_id, start, nearest(tags=tags), mode)


async def test_q_finds_the_demo_gym_and_mail_room(env):
    start = {"id": "map-b1:b1-401"}
    gym = await route_to(env, B1, start, nearest(q="gym"), "wheelchair")
    assert gym["to"] == {
        "id": "loc-b1-f1-gym@map-b1",
        "name": "Fitness Center",
        "x": gym["to"]["x"],
        "y": gym["to"]["y"],
        "floor_id": "b1-f1",
    }
    assert gym == await route_to(env, B1, start, {"id": "loc-b1-f1-gym@map-b1"}, "wheelchair")
    mail = await route_to(env, "map-b2-f1", {"id": "loc-b2-f1-trash"}, nearest(q="mail"))
    assert (mail["to"]["id"], mail["to"]["name"]) == ("loc-b2-f1-mail", "Mail Room")
    assert mail["route"]["legs"][-1]["floor_id"] == "b2-f1"


@pytest.mark.parametrize("map_id", [B1, B2])
async def test_across_every_pair_of_levels(env, map_id):
    """From a place on one floor to the places of another (or the same): E18's choice,
    the first leg on the start's floor and the last on the chosen place's."""
    rng = random.Random(f"levels {map_id}")
    found = await locations(env, map_id)
    by_floor: dict[str, list[dict[str, Any]]] = {}
    for location in found:
        by_floor.setdefault(location["floors"][0]["id"], []).append(location)
    assert len(by_floor) == 4
    for start_floor in sorted(by_floor):
        for end_floor in sorted(by_floor):
            start = {"id": rng.choice(by_floor[start_floor])["id"]}
            ids = sorted(location["id"] for location in by_floor[end_floor])
            for mode in ("foot", "wheelchair"):
                answer = await check_against_e18(env, map_id, start, nearest(ids=ids), ids, mode)
                legs = answer["route"]["legs"]
                assert answer["to"]["floor_id"] == end_floor
                assert (legs[0]["floor_id"], legs[-1]["floor_id"]) == (start_floor, end_floor)
                if start_floor != end_floor:
                    kinds = {leg["connector"]["kind"] for leg in legs[:-1]}
                    assert kinds <= (
                        {"elevator"} if mode == "wheelchair" else {"elevator", "stairs"}
                    )


async def test_the_demo_amenity_nearest_a_unit_exactly(env):
    """One worked answer: from unit 401 of building 1 in a wheelchair, the nearest
    amenity is E18's and the answer names it as the plain route does."""
    start = {"id": "map-b1:b1-401"}
    answer = await route_to(env, B1, start, nearest(tags=AMENITY), "wheelchair")
    ids = await tagged_ids(env, B1, AMENITY)
    assert len(ids) == 7
    time, distance, chosen = await e18_best(env, B1, start, ids, "wheelchair") or (0, 0, "")
    assert answer["to"]["id"] == chosen and chosen in ids
    assert (answer["route"]["time"], answer["route"]["distance"]) == (time, distance)
    assert answer["reason"] is None and answer["mode"] == "wheelchair"
    assert answer["from"]["id"] == "map-b1:b1-401"


# ---------------------------------------------------------------- our own maps


async def test_walking_time_not_a_straight_line(env):
    """On foot from nr-s1a (west end of S1): nr-s2a is straight above (10 ft), nr-s2b
    50 units east of it, but the stairs are at the east end: nr-s2b is 165 ft away on
    foot, nr-s2a 215 ft."""
    answer = await route_to(env, STAIRS_MAP, {"id": "nr-s1a"}, nearest(ids=["nr-s2a", "nr-s2b"]))
    assert answer["to"] == {
        "id": "nr-s2b",
        "name": "Place nr-s2b",
        "x": 60.0,
        "y": 10.0,
        "floor_id": "nr-f2",
    }
    assert answer["route"]["distance"] == 165.0
    assert answer["route"]["time"] == round(150 / FOOT + STAIRS_STEP, 2)
    by_tags = await route_to(env, STAIRS_MAP, {"id": "nr-s1a"}, nearest(tags="kind==upstairs"))
    assert by_tags == answer


async def test_ties_go_to_the_least_id_and_the_start_itself_wins(env):
    """nr-s1t1 and nr-s1t2 are 50 ft either side of nr-s1m: the least id. A candidate
    at the start is reached in no time."""
    twins = await route_to(env, STAIRS_MAP, {"id": "nr-s1m"}, nearest(tags="kind==twin"))
    assert twins["to"]["id"] == "nr-s1t1"
    assert twins["route"]["distance"] == 50.0
    reversed_ids = nearest(ids=["nr-s1t2", "nr-s1t1"])
    assert await route_to(env, STAIRS_MAP, {"id": "nr-s1m"}, reversed_ids) == twins
    itself = await route_to(env, STAIRS_MAP, {"id": "nr-s1a"}, nearest(ids=["nr-s2b", "nr-s1a"]))
    assert itself["to"]["id"] == "nr-s1a"
    assert (itself["route"]["distance"], itself["route"]["time"]) == (0.0, 0.0)
    at_a_point = {"x": 110, "y": 10, "floor_id": "nr-f1"}
    there = await route_to(env, STAIRS_MAP, at_a_point, nearest(tags="kind==twin"))
    assert (there["to"]["id"], there["route"]["distance"]) == ("nr-s1t2", 0.0)


async def test_no_candidate_reachable_is_a_null_route_and_a_reason(env):
    """By wheelchair nothing upstairs is reachable (stairs only): 200, a null route,
    and `to` names the candidate nearest in a straight line (from nr-s1m: nr-s2b, 10 ft
    above it, not nr-s2a, the first by id)."""
    upstairs = nearest(ids=["nr-s2a", "nr-s2b"])
    answer = await route_to(env, STAIRS_MAP, {"id": "nr-s1m"}, upstairs, "wheelchair")
    assert answer == {
        "mode": "wheelchair",
        "from": {"id": "nr-s1m", "name": "Place nr-s1m", "x": 60.0, "y": 10.0, "floor_id": "nr-f1"},
        "to": {"id": "nr-s2b", "name": "Place nr-s2b", "x": 60.0, "y": 10.0, "floor_id": "nr-f2"},
        "route": None,
        "reason": "no candidate is reachable by wheelchair from the start",
        "via": None,
        "visit_order": None,
        "optimized": None,
        "closures": [],
    }
    # A candidate on a level without walk paths is never reached; on foot the other is.
    mixed = nearest(ids=["nr-s3", "nr-s2b"])
    by_chair = await route_to(env, STAIRS_MAP, {"id": "nr-s1a"}, mixed, "wheelchair")
    assert (by_chair["route"], by_chair["reason"]) == (
        None,
        "no candidate is reachable by wheelchair from the start",
    )
    assert by_chair["to"]["id"] == "nr-s3"  # 21 ft away in a straight line, nr-s2b 51 ft
    on_foot = await route_to(env, STAIRS_MAP, {"id": "nr-s1a"}, mixed)
    assert (on_foot["to"]["id"], on_foot["route"]["distance"]) == ("nr-s2b", 165.0)
    # From a level without walk paths: the start's reason, as a plain route's.
    cellar = await route_to(env, STAIRS_MAP, {"id": "nr-s3"}, nearest(tags="kind==start"))
    plain = await route_to(env, STAIRS_MAP, {"id": "nr-s3"}, {"id": "nr-s1a"})
    assert cellar["reason"] == plain["reason"] == "no walk path usable on foot on the start's level"
    assert cellar["route"] is None and cellar["to"]["id"] == "nr-s1a"
    # The response on GraphQL says the same.
    as_gql = await gql(
        env, {"map": STAIRS_MAP, "from": {"id": "nr-s1m"}, "to": upstairs, "mode": "wheelchair"}
    )
    assert as_gql["data"]["route"]["route"] is None
    assert as_gql["data"]["route"]["reason"] == answer["reason"]
    assert as_gql["data"]["route"]["to"]["id"] == "nr-s2b"


async def test_a_map_without_walk_paths(env):
    """No route at all: the map's reason; `to` the nearest in a straight line (0.5 ft
    per unit, 10 ft a floor): nr-fb, 4.2 ft away, before nr-fc on the floor above (10 ft)."""
    answer = await route_to(env, FLAT_MAP, {"id": "nr-fa"}, nearest(ids=["nr-fc", "nr-fb"]))
    assert answer["route"] is None
    assert answer["reason"] == "this map has no walk paths (it is not processed for pathfinding)"
    assert answer["to"] == {
        "id": "nr-fb",
        "name": "Place nr-fb",
        "x": 8.0,
        "y": 8.0,
        "floor_id": "nr-f1",
    }


# ---------------------------------------------------------------- GraphQL


async def test_graphql_answers_as_rest(env):
    variables = {"map": B2, "from": {"id": "map-b2:b2-301"}, "mode": "foot"}
    ids = await tagged_ids(env, B2, AMENITY)
    for candidates in ({"tags": AMENITY}, {"ids": ids}, {"q": "trash"}):
        as_gql = await gql(env, {**variables, "to": {"nearest": candidates}})
        assert "errors" not in as_gql, as_gql
        answer = as_gql["data"]["route"]
        rest = await route_to(env, B2, {"id": "map-b2:b2-301"}, nearest(**candidates))
        assert answer["to"] == {
            "id": rest["to"]["id"],
            "name": rest["to"]["name"],
            "x": rest["to"]["x"],
            "y": rest["to"]["y"],
            "floorId": rest["to"]["floor_id"],
        }
        assert (answer["route"]["distance"], answer["route"]["time"]) == (
            rest["route"]["distance"],
            rest["route"]["time"],
        )
        assert answer["route"]["steps"] == rest["route"]["steps"]


async def test_graphql_refusals_are_bad_user_input_on_the_field(env):
    cases = [
        ({"from": {"id": "dm-a"}, "to": {"nearest": {}}}, {"to.nearest": [EXACTLY_ONE]}),
        (
            {"from": {"id": "dm-a"}, "to": {"nearest": {"ids": ["dm-b", "nope"]}}},
            {"to.nearest.ids.1": ["no location 'nope' on this map"]},
        ),
        (
            {"from": {"nearest": {"ids": ["dm-a"]}}, "to": {"id": "dm-b"}},
            {"from.nearest": [ONLY_TO]},
        ),
        (
            {"from": {"id": "dm-a"}, "to": {"nearest": {"tags": "kind==nothing"}}},
            {
                "to.nearest": [
                    "has no candidate: no location of this map matches tags 'kind==nothing'"
                ]
            },
        ),
    ]
    for variables, fields in cases:
        answer = await gql(env, {"map": ROUTE_MAP, **variables})
        assert answer["data"] is None
        (error,) = answer["errors"]
        assert error["message"] == FAILED
        assert error["extensions"] == {"code": "BAD_USER_INPUT", "fields": fields}
    matrix = await env.client.post(
        "/graphql",
        json={
            "query": "query ($input: DistanceMatrixInput!) { distanceMatrix(unitMapId: "
            '"dm-route", input: $input) { sources { targets { distance } } } }',
            "variables": {
                "input": {"sources": [{"id": "dm-a"}], "targets": [{"nearest": {"q": "b"}}]}
            },
        },
        headers=env.headers(),
    )
    (error,) = matrix.json()["errors"]
    assert error["extensions"] == {
        "code": "BAD_USER_INPUT",
        "fields": {"input.targets.0.nearest": [ONLY_TO]},
    }


# ---------------------------------------------------------------- refusals

EXACTLY_ONE = "must have exactly one of q, tags or ids"
ALONE = "must be alone in its waypoint: no id, name, x, y, lon, lat, floor or level with it"
ONLY_TO = "is accepted only in a route's to"
FROM = {"id": "dm-a"}


@pytest.mark.parametrize(
    ("to", "fields"),
    [
        (nearest(), {"data.to.nearest": [EXACTLY_ONE]}),
        (nearest(q=None, tags=None), {"data.to.nearest": [EXACTLY_ONE]}),
        (nearest(q="b", tags="kind"), {"data.to.nearest": [EXACTLY_ONE]}),
        (nearest(tags="kind", ids=["dm-b"]), {"data.to.nearest": [EXACTLY_ONE]}),
        ({"id": "dm-b", **nearest(ids=["dm-b"])}, {"data.to.nearest": [ALONE]}),
        ({"x": 1, "y": 2, **nearest(ids=["dm-b"])}, {"data.to.nearest": [ALONE]}),
        ({"floor_id": "dm-f1", **nearest(ids=["dm-b"])}, {"data.to.nearest": [ALONE]}),
        ({"name": "B", **nearest(ids=["dm-b"])}, {"data.to.nearest": [ALONE]}),
        (
            {"id": "dm-b", **nearest()},
            {"data.to.nearest": [ALONE, EXACTLY_ONE]},
        ),
        (
            nearest(q=""),
            {"data.to.nearest.q": [f"must be from 1 to {MAX_SEARCH_CHARS} characters"]},
        ),
        (
            nearest(q="x" * (MAX_SEARCH_CHARS + 1)),
            {"data.to.nearest.q": [f"must be from 1 to {MAX_SEARCH_CHARS} characters"]},
        ),
        (nearest(tags=" "), {"data.to.nearest.tags": ["must have at least one term"]}),
        (
            nearest(tags="kind,a=b"),
            {
                "data.to.nearest.tags": [
                    "invalid term 'a=b': use key, -key, key==value or key!=value"
                ]
            },
        ),
        (
            nearest(tags="k" * 256),
            {"data.to.nearest.tags": ["must be at most 255 characters"]},
        ),
        (
            nearest(ids=["dm-b"] * (MAX_NEAREST_IDS + 1)),
            {"data.to.nearest.ids": [f"must have at most {MAX_NEAREST_IDS} items"]},
        ),
        (
            nearest(ids=["dm-b", "", "x" * 256]),
            {
                "data.to.nearest.ids.1": ["must not be empty"],
                "data.to.nearest.ids.2": ["must be at most 255 characters"],
            },
        ),
        (nearest(ids=[]), {"data.to.nearest": ["has no candidate: ids is empty"]}),
        (
            nearest(ids=["dm-b", "nope", "loc-b1-f1-gym", "dm-a"]),
            {
                "data.to.nearest.ids.1": ["no location 'nope' on this map"],
                "data.to.nearest.ids.2": ["no location 'loc-b1-f1-gym' on this map"],
            },
        ),
        (
            nearest(tags="svc:amenity==yes"),
            {
                "data.to.nearest": [
                    "has no candidate: no location of this map matches tags 'svc:amenity==yes'"
                ]
            },
        ),
        (
            nearest(tags="kind==" + "n" * 60),
            {
                "data.to.nearest": [
                    f"has no candidate: no location of this map matches tags 'kind=={'n' * 31}...'"
                ]
            },
        ),
        (nearest(near="dm-b"), {"data.to.nearest.near": ["is not a known field"]}),
        (nearest(ids="dm-b", q=3), {"data.to.nearest.q": ["must be a string"]}),
    ],
)
async def test_invalid_nearest(env, to, fields):
    response = await post(env, ROUTE_MAP, {"from": FROM, "to": to})
    assert (response.status_code, response.json()) == refused(fields)


async def test_start_and_candidates_are_refused_together_after_the_map(env):
    """Waypoints against the map after its existence (404 first), every problem of the
    start and the candidates in one 422."""
    data = {"from": {"id": "nope"}, "to": nearest(ids=["dm-b", "nope-2"])}
    response = await post(env, ROUTE_MAP, data)
    assert (response.status_code, response.json()) == refused(
        {
            "data.from.id": ["no location 'nope' on this map"],
            "data.to.nearest.ids.1": ["no location 'nope-2' on this map"],
        }
    )
    unknown_map = await post(env, "no-such-map", data)
    assert (unknown_map.status_code, unknown_map.json()) == (404, {"message": "Not found"})
    other_asset = await post(
        env, STAIRS_MAP, {"from": FROM, "to": nearest(ids=["nr-s1a"])}, key=env.other
    )
    assert (other_asset.status_code, other_asset.json()) == (404, {"message": "Not found"})
    far = {"from": {"x": 1e6, "y": 0, "floor_id": "nr-f1"}, "to": nearest(ids=["nr-s1a"])}
    off = await post(env, STAIRS_MAP, far)
    assert off.status_code == 422
    assert list(off.json()["fields"]) == ["data.from"]
    no_flag = await post(
        env, ROUTE_MAP, {"from": FROM, "to": nearest(ids=["dm-b"])}, flags="distances"
    )
    assert no_flag.status_code == 404


async def test_from_and_e18_refuse_nearest(env):
    for data in (
        {"from": nearest(ids=["dm-a"]), "to": {"id": "dm-b"}},
        {"from": {"id": "dm-a", **nearest(tags="kind")}, "to": {"id": "dm-b"}},
    ):
        response = await post(env, ROUTE_MAP, data)
        assert (response.status_code, response.json()) == refused({"data.from.nearest": [ONLY_TO]})
    matrix = await post_e18(
        env,
        ROUTE_MAP,
        {
            "data": {
                "sources": [{"id": "dm-a"}, nearest(q="b")],
                "targets": [{"id": "dm-b"}, nearest(ids=["dm-b"])],
            }
        },
        flags=FLAGS,
    )
    assert (matrix.status_code, matrix.json()) == refused(
        {
            "data.sources.1.nearest": [ONLY_TO],
            "data.targets.1.nearest": [ONLY_TO],
        }
    )


@pytest.mark.security
@pytest.mark.parametrize(
    "to",
    [nearest(q="mail"), nearest(tags="svc:amenity==yes"), nearest(ids=["loc-b2-f1-mail@map-b2"])],
)
async def test_a_key_of_another_asset_chooses_nothing_and_loads_nothing(env, to):
    """A key scoped to another asset asking the demo's map for the nearest place is 404
    before any candidate is looked for: no walk graph, waypoint or search index is built,
    so such a key cannot fill the caches (or learn from their timing) with places it may
    not see."""
    services = env.app.services
    for cache in (services.graph_cache, services.waypoint_cache, services.search_indexes):
        cache.clear()
    env.store.cache.flush()
    refused = await post(env, B2, {"from": {"id": "map-b2:b2-101"}, "to": to}, key=env.other)
    assert (refused.status_code, refused.json()) == (404, {"message": "Not found"})
    ready = (await env.client.get("/readyz")).json()
    for cache in ("walk_graphs", "waypoints", "search_indexes"):
        assert (ready[cache]["entries"], ready[cache]["bytes_used"]) == (0, 0), cache
