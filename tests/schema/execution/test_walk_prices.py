"""Walk-graph work is priced by what it does, and one ceiling holds both faces (issue 63,
findings 2-4), through the real app on the demo:

- `search(near:)` is a search of the walk graph: it needs `service.distances.calculate`
  (403 before anything else), and 24 aliased ones of a key without it run no search;
- a route's `to: {nearest}` costs its candidates: 13 aliased routes to 400 ids each were
  under the ceiling (18,000 a route), now `COST_LIMIT`; a `tags` candidate set beyond its
  estimate is charged after it ran;
- a REST route is held to the ceiling /graphql is held to: 25 optimised stops were run on
  REST (charged 48 units) where /graphql refused them; now 422 on `via` on both, before
  any work, and a REST route over the ceiling is `COST_LIMIT` as on /graphql;
- the heaviest route (12 optimised stops) is the most walk-graph work one operation may
  ask for, and it is answered.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import httpx
import pytest

from resolvers.auth.keys import create_key
from resolvers.auth.permissions import DISTANCES_CALCULATE
from resolvers.limits import (
    MAX_NEAREST_IDS,
    MAX_OPTIMIZED_VIA,
    MAX_VIA,
    NEAREST_CANDIDATE_COST,
    NEAREST_UNLISTED_CANDIDATES,
    PATH_SEARCH_COST,
)
from rest.app import create_app
from rest.limits.prices import heaviest_route_searches, searches_within
from tests.schema.test_operation_limits import cost

B1 = "map-b1"
FLAGS = "directions, distances, locations-resource, search"
LIMIT = 250_000  # FLOORGATE_GRAPHQL_MAX_COST
START = "map-b1:b1-101"


async def b1_locations(demo: Any) -> list[str]:
    response = await demo.client.get(
        f"/v1/maps/{B1}/locations?per-page=1000",
        headers={"API-Key": demo.key, "Experimental-Flags": FLAGS},
    )
    assert response.status_code == 200
    return [location["id"] for location in response.json()["data"]]


def near_searches(count: int, near: str) -> str:
    return (
        "{ "
        + " ".join(
            f's{n}: search(q: "unit", unitMapId: "{B1}", near: "{near}") '
            "{ data { id distance } }"
            for n in range(count)
        )
        + " }"
    )


@pytest.mark.security
async def test_near_needs_the_permission_of_walk_graph_searches(demo):
    """Finding 2: 24 aliased searches with `near` from a key without the permission each
    answer 403 (no walk measured); REST likewise; without `near` the same key searches,
    and a key with the permission gets walking distances."""
    plain = (await create_key(demo.store, "near plain", [], None)).secret
    walker = (await create_key(demo.store, "near walker", [DISTANCES_CALCULATE], None)).secret
    denied = "Access denied: missing permission service.distances.calculate"
    headers = {"API-Key": plain, "Experimental-Flags": FLAGS}
    refused = await demo.client.post(
        "/graphql", json={"query": near_searches(24, START)}, headers=headers
    )
    assert refused.status_code == 200
    body = refused.json()
    assert body["data"] is None  # `search` is non-null: its error nulls the whole data
    assert {(e["message"], e["extensions"]["code"]) for e in body["errors"]} == {
        (denied, "FORBIDDEN")
    }
    rest = await demo.client.get(f"/v1/search?q=unit&map={B1}&near={START}", headers=headers)
    assert (rest.status_code, rest.json()) == (403, {"message": denied})
    # Before its input is checked: a bad `mode` is not what it is told.
    odd = await demo.client.get(f"/v1/search?q=unit&map={B1}&near={START}&mode=x", headers=headers)
    assert (odd.status_code, odd.json()) == (403, {"message": denied})
    text_only = await demo.client.get(f"/v1/search?q=unit&map={B1}", headers=headers)
    assert text_only.status_code == 200
    found = text_only.json()["data"]
    assert found and all(item["distance"] is None for item in found)
    walked = await demo.client.get(
        f"/v1/search?q=unit&map={B1}&near={START}",
        headers={"API-Key": walker, "Experimental-Flags": FLAGS},
    )
    assert walked.status_code == 200
    assert all(item["distance"] is not None for item in walked.json()["data"])


@pytest.mark.security
async def test_near_from_a_key_of_another_asset_is_a_map_that_does_not_exist(demo):
    """A key with the permission, scoped to another asset, searching `near` a place of the
    demo's map: answered word for word as a map that does not exist, on both faces (the
    asset scope's one rule, docs/api.md), never a walk of the demo's graph."""
    scoped = await create_key(demo.store, "near elsewhere", [DISTANCES_CALCULATE], ["asset-x"])
    headers = {"API-Key": scoped.secret, "Experimental-Flags": FLAGS}
    answers = []
    for map_id in (B1, "map-none"):
        rest = await demo.client.get(
            f"/v1/search?q=unit&map={map_id}&near={START}", headers=headers
        )
        graphql = await demo.client.post(
            "/graphql", json={"query": near_searches(2, START).replace(B1, map_id)}, headers=headers
        )
        answers.append((rest.status_code, rest.json(), graphql.status_code, graphql.json()))
    assert answers[0] == answers[1]
    status, body, _, graphql_body = answers[0]
    assert (status, body) == (404, {"message": "Not found"})
    assert graphql_body["data"] is None
    assert {e["extensions"]["code"] for e in graphql_body["errors"]} == {"NOT_FOUND"}


def nearest_routes(count: int, ids: list[str] | None = None) -> str:
    """`count` aliased routes to the nearest of `ids` (a literal list), else of `$ids`."""
    listed = "$ids" if ids is None else "[" + ", ".join(f'"{id_}"' for id_ in ids) + "]"
    routes = " ".join(
        f'r{n}: route(unitMapId: "{B1}", from: {{id: "{START}"}}, '
        f"to: {{nearest: {{ids: {listed}}}}}) {{ reason route {{ distance }} }}"
        for n in range(count)
    )
    return f"query ($ids: [ID!]) {{ {routes} }}" if ids is None else f"{{ {routes} }}"


SENT_ROUTE = (
    'query ($to: WaypointInput!) { route(unitMapId: "m", from: {id: "a"}, to: $to) { reason } }'
)


def test_nearest_is_priced_per_candidate():
    """Beyond a plain route: the candidates' search and each id (ids of one character,
    so that their text, one unit per 100 characters, adds nothing here); a `tags` or `q`
    at the estimate; ids past the limit, refused before any work, at the most."""
    plain = cost(SENT_ROUTE, {"to": {"id": "b"}})  # "b": one character, as each id below

    def added(nearest: dict[str, Any], chars: int) -> int:
        """What `nearest` adds, less its text's price ("m" and "a" count with it)."""
        return cost(SENT_ROUTE, {"to": {"nearest": nearest}}) - plain - (chars + 2) // 100

    assert added({"ids": ["x"] * 7}, 7) == PATH_SEARCH_COST + 7 * NEAREST_CANDIDATE_COST
    assert added({"ids": ["x"] * 98}, 98) == PATH_SEARCH_COST + 98 * NEAREST_CANDIDATE_COST
    past = MAX_NEAREST_IDS + 1
    assert added({"ids": ["x"] * past}, past) == (
        PATH_SEARCH_COST + MAX_NEAREST_IDS * NEAREST_CANDIDATE_COST
    )
    unlisted = PATH_SEARCH_COST + NEAREST_UNLISTED_CANDIDATES * NEAREST_CANDIDATE_COST
    assert added({"tags": "t"}, 1) == unlisted
    assert added({"q": "q"}, 1) == unlisted
    # In a literal too: 400 ids cost 399 candidates more than one.
    ids = [f"{n:03}" for n in range(400)]
    literal = cost(nearest_routes(1, ids)) - cost(nearest_routes(1, ids[:1]))
    chars = len(B1) + len(START)  # the other strings of the field
    text = (400 * 3 + chars) // 100 - (3 + chars) // 100
    assert literal == 399 * NEAREST_CANDIDATE_COST + text


@pytest.mark.security
async def test_thirteen_aliased_nearest_routes_are_refused_by_their_cost(demo):
    """Finding 3, as found: 13 aliased routes to 400 candidate ids each fit the ceiling at
    18,000 a route; now COST_LIMIT before anything runs. Four still fit, and run."""
    ids = (await b1_locations(demo))[:40] * 10  # 400 ids, as the attack sent them
    assert len(ids) == 400
    headers = {"API-Key": demo.key, "Experimental-Flags": FLAGS}
    attack = {"query": nearest_routes(13), "variables": {"ids": ids}}
    refused = await demo.client.post("/graphql", json=attack, headers=headers)
    (error,) = refused.json()["errors"]
    assert refused.json()["data"] is None
    assert error["extensions"]["code"] == "COST_LIMIT"
    assert error["extensions"]["cost"] == cost(nearest_routes(13), {"ids": ids}) > LIMIT
    assert error["message"] == (
        f"Query cost {error['extensions']['cost']} exceeds the limit of {LIMIT}: ask for "
        "smaller pages or fewer fields"
    )
    four = await demo.client.post(
        "/graphql", json={"query": nearest_routes(4), "variables": {"ids": ids}}, headers=headers
    )
    assert "errors" not in four.json(), four.text
    assert all(four.json()["data"][f"r{n}"]["route"] is not None for n in range(4))


def via_route(stops: list[str], optimize: bool) -> dict[str, Any]:
    return {
        "from": {"id": START},
        "to": {"id": stops[-1]},
        "via": [{"id": stop} for stop in stops[:-1]],
        "optimize": optimize,
    }


VIA_QUERY = """query ($from: WaypointInput!, $to: WaypointInput!, $via: [WaypointInput!],
  $optimize: Boolean) {
  route(unitMapId: "map-b1", from: $from, to: $to, via: $via, optimize: $optimize) {
    reason optimized visitOrder route { distance }
  }
}"""


def test_a_route_costs_a_search_per_stop_and_optimize_its_matrix():
    """`via` and `optimize` priced from the input: past their limits as none (refused
    before any work); `optimize: false` is not an optimisation, in a literal or a variable
    (variables that differ in it are priced apart: `priced_digest`)."""
    at = {"id": "a"}

    def priced(stops: int, optimize: bool | None) -> int:
        variables: dict[str, Any] = {"from": at, "to": at, "via": [at] * stops}
        if optimize is not None:
            variables["optimize"] = optimize
        return cost(VIA_QUERY, variables)

    base = priced(0, None)
    assert priced(5, None) - base == 5 * PATH_SEARCH_COST
    assert priced(5, False) - base == 5 * PATH_SEARCH_COST
    assert priced(5, True) - base == (5 + 7) * PATH_SEARCH_COST
    assert priced(1, True) - base == PATH_SEARCH_COST  # one stop: one order, no matrix
    assert priced(MAX_VIA, False) - base == MAX_VIA * PATH_SEARCH_COST
    assert priced(MAX_VIA + 1, False) == base  # 422 before any work
    heaviest = priced(MAX_OPTIMIZED_VIA, True)
    assert heaviest - base == (2 * MAX_OPTIMIZED_VIA + 2) * PATH_SEARCH_COST
    assert heaviest <= LIMIT < priced(MAX_OPTIMIZED_VIA + 1, False) + 2 * PATH_SEARCH_COST * 8
    assert priced(MAX_OPTIMIZED_VIA + 1, True) == base  # 422 before any work
    literal = (
        '{ route(unitMapId: "m", from: {id: "a"}, to: {id: "b"}, via: [{id: "c"}, {id: "d"}], '
        "optimize: false) { reason } }"
    )
    assert cost(literal) == cost(literal.replace("false", "true")) - 4 * PATH_SEARCH_COST
    # The ceiling allows the heaviest route's searches, and no more (docs/limits.md).
    assert heaviest_route_searches() == 2 * MAX_OPTIMIZED_VIA + 3 == searches_within(LIMIT)


@pytest.mark.security
async def test_rest_counts_a_routes_stops_before_reading_one(demo):
    """26 stops of no use, or 13 with `optimize`: refused from the list's length alone, as
    the resolver refuses them, with nothing said of the stops themselves (before, each was
    coerced first: 4 ms for 25)."""
    headers = {"API-Key": demo.key, "Experimental-Flags": FLAGS}
    for count, optimize in ((MAX_VIA + 1, False), (MAX_OPTIMIZED_VIA + 1, True)):
        body = {
            "data": {
                "from": {"id": START},
                "to": {"id": START},
                "via": [{"bogus": n} for n in range(count)],
                "optimize": optimize,
            }
        }
        refused = await demo.client.post(f"/v1/maps/{B1}/route", json=body, headers=headers)
        limit, words = (MAX_OPTIMIZED_VIA, " with optimize") if optimize else (MAX_VIA, "")
        assert (refused.status_code, refused.json()) == (
            422,
            {
                "message": "Resource validation failed",
                "fields": {
                    "data.via": [f"must hold at most {limit} waypoints{words}, not {count}"]
                },
            },
        )


@pytest.mark.security
async def test_a_routes_stop_count_is_told_only_to_who_may_route(demo):
    """The count comes after access: a key without the permission is refused 403 before its
    body is read; a key scoped to another asset is told the count (which names nothing of
    the map), and then, within the count, that the demo's map is not found, word for word
    as a map that does not exist."""
    plain = (await create_key(demo.store, "stops plain", [], None)).secret
    scoped = (
        await create_key(demo.store, "stops elsewhere", [DISTANCES_CALCULATE], ["asset-x"])
    ).secret
    too_many = {"from": {"id": START}, "to": {"id": START}, "via": [{"bogus": 0}] * 26}
    within = {"from": {"id": START}, "to": {"id": START}}
    denied = "Access denied: missing permission service.distances.calculate"
    count = "must hold at most 25 waypoints, not 26"
    for map_id in (B1, "map-none"):
        answers = []
        for key in (plain, scoped):
            for data in (too_many, within):
                answer = await demo.client.post(
                    f"/v1/maps/{map_id}/route",
                    json={"data": data},
                    headers={"API-Key": key, "Experimental-Flags": FLAGS},
                )
                answers.append((answer.status_code, answer.json()))
        assert answers == [
            (403, {"message": denied}),
            (403, {"message": denied}),
            (422, {"message": "Resource validation failed", "fields": {"data.via": [count]}}),
            (404, {"message": "Not found"}),
        ], map_id


@pytest.mark.security
async def test_rest_is_held_to_the_ceiling_graphql_is_held_to(demo):
    """Finding 4, as found: `POST /v1/maps/{id}/route` with 25 stops and `optimize` ran
    for 1.0-1.6 s on a mall and was charged 48 units, where /graphql refused it. Both
    faces now refuse it with the same 422 on `via` before any work; 12 optimised stops
    run on both; a REST route over the ceiling (25 stops to 500 candidates) is
    COST_LIMIT, with its cost and the limit, as on /graphql, and not charged its price."""
    ids = await b1_locations(demo)
    stops = ids[1:27]
    key = (
        await create_key(demo.store, "via prices", [DISTANCES_CALCULATE], None, (0.01, 100))
    ).secret
    headers = {"API-Key": key, "Experimental-Flags": FLAGS}
    app = create_app(replace(demo.settings, rate_limit_per_second=200), demo.store)
    message = f"must hold at most {MAX_OPTIMIZED_VIA} waypoints with optimize, not 25"
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="https://t") as client:
        rest = await client.post(
            f"/v1/maps/{B1}/route", json={"data": via_route(stops, True)}, headers=headers
        )
        assert (rest.status_code, rest.json()) == (
            422,
            {"message": "Resource validation failed", "fields": {"data.via": [message]}},
        )
        graphql = await client.post(
            "/graphql",
            json={"query": VIA_QUERY, "variables": via_route(stops, True)},
            headers=headers,
        )
        (error,) = graphql.json()["errors"]
        assert (error["message"], error["extensions"]["fields"]) == (
            "Resource validation failed",
            {"via": [message]},
        )
        twelve = via_route(stops[: MAX_OPTIMIZED_VIA + 1], True)
        ran = await client.post(f"/v1/maps/{B1}/route", json={"data": twelve}, headers=headers)
        assert ran.status_code == 200, ran.text
        assert ran.json()["optimized"] in ("exact", "heuristic")
        on_graphql = await client.post(
            "/graphql", json={"query": VIA_QUERY, "variables": twelve}, headers=headers
        )
        assert on_graphql.json()["data"]["route"]["optimized"] == ran.json()["optimized"]
        before = int(on_graphql.headers["ratelimit-remaining"])
        over = {
            "from": {"id": START},
            "to": {"nearest": {"ids": (ids * 10)[:MAX_NEAREST_IDS]}},
            "via": [{"id": stop} for stop in stops[:MAX_VIA]],
        }
        refused = await client.post(f"/v1/maps/{B1}/route", json={"data": over}, headers=headers)
        assert refused.status_code == 422
        (message,) = refused.json().values()  # `{message}`, as every REST refusal
        found = re.fullmatch(
            rf"Query cost (\d+) exceeds the limit of {LIMIT}: ask for smaller pages or "
            "fewer fields",
            message,
        )
        assert found is not None and int(found[1]) > LIMIT, message
        # The request's own unit (spent by the key's lookup), not the 30 of its price.
        assert int(refused.headers["ratelimit-remaining"]) == before - 1
