"""Routes and distance matrices are priced by their work (issue 45, point 9):
`route` one path search (PATH_SEARCH_COST), E18 one per source or target searched
from, whichever side is smaller, and MATRIX_PAIR_COST per pair, read from its input
before anything runs (schema/execution/operation_cost.py `Pricing.matrix_cost`).

One GraphQL document of 30 aliased `route` fields was accepted (5,000 each): four clients
sending three such documents at a time put an honest GET's p95 at 27x idle. It is now
refused with COST_LIMIT before anything runs, while one route, and an E18 of 50 pairs,
stay well within the limit; REST runs the same documents, so it is priced the same.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import httpx
import pytest

from resolvers.auth.keys import create_key
from resolvers.auth.permissions import DISTANCES_CALCULATE
from resolvers.limits import MATRIX_PAIR_COST, PATH_SEARCH_COST
from rest.app import create_app
from tests.schema.test_operation_limits import cost

B1 = "map-b1"
GYM = "loc-b1-f1-gym@map-b1"
FLAGS = "directions, distances, locations-resource"
LIMIT = 250_000  # FLOORGATE_GRAPHQL_MAX_COST
MATRIX = """query ($input: DistanceMatrixInput!) {
  distanceMatrix(unitMapId: "m", input: $input) { distanceMethod }
}"""
AT = {"x": 1, "y": 2, "floorId": "f"}


def matrix_cost(sources: int, targets: int, searches: int | None = None) -> int:
    """The field (1), its searches and pairs, `distanceMethod` (1)."""
    searches = min(sources, targets) if searches is None else searches
    return 1 + PATH_SEARCH_COST * searches + MATRIX_PAIR_COST * sources * targets + 1


def test_the_weights():
    assert (PATH_SEARCH_COST, MATRIX_PAIR_COST) == (9_000, 100)


@pytest.mark.parametrize(
    ("sources", "targets", "expected"),
    [
        (1, 1, matrix_cost(1, 1)),  # 9,102
        (1, 50, matrix_cost(1, 50)),  # one search from the single source: 14,002
        (50, 1, matrix_cost(50, 1)),  # or to the single target
        (7, 7, matrix_cost(7, 7)),  # 67,902: seven searches
        (5, 10, matrix_cost(5, 10)),
        (8, 8, matrix_cost(1, 1)),  # 64 pairs: refused (422) before any work
        (0, 3, matrix_cost(1, 1)),  # no pairs: refused (422) before any work
    ],
)
def test_e18_costs_its_searches_and_pairs(sources, targets, expected):
    variables = {"input": {"sources": [AT] * sources, "targets": [AT] * targets}}
    assert cost(MATRIX, variables) == expected


def test_e18_reads_its_lists_wherever_they_are_written():
    """Literal lists, lists in variables inside a literal input, a variable's default,
    a single waypoint (GraphQL makes it a list of one)."""
    literal = (
        '{ distanceMatrix(unitMapId: "m", input: {sources: [{id: "a"}, {id: "b"}], '
        'targets: [{id: "c"}, {id: "d"}, {id: "e"}]}) { distanceMethod } }'
    )
    assert cost(literal) == matrix_cost(2, 3)
    inside = (
        "query ($s: [WaypointInput!]!, $t: [WaypointInput!]!) { distanceMatrix("
        'unitMapId: "m", input: {sources: $s, targets: $t}) { distanceMethod } }'
    )
    assert cost(inside, {"s": [AT] * 4, "t": [AT] * 6}) == matrix_cost(4, 6)
    defaulted = (
        'query ($t: [WaypointInput!]! = [{id: "c"}, {id: "d"}]) { distanceMatrix('
        'unitMapId: "m", input: {sources: [{id: "a"}], targets: $t}) { distanceMethod } }'
    )
    assert cost(defaulted) == matrix_cost(1, 2)
    single = (
        '{ distanceMatrix(unitMapId: "m", input: {sources: {id: "a"}, targets: [{id: "c"}, '
        '{id: "d"}]}) { distanceMethod } }'
    )
    assert cost(single) == matrix_cost(1, 2)


def test_a_straight_line_matrix_costs_its_pairs_only():
    variables = {"input": {"sources": [AT] * 7, "targets": [AT] * 7, "distanceMethod": "euclidean"}}
    assert cost(MATRIX, variables) == matrix_cost(7, 7, searches=0)  # 4,902
    literal = (
        '{ distanceMatrix(unitMapId: "m", input: {sources: [{id: "a"}], targets: [{id: "b"}], '
        'distanceMethod: "euclidean"}) { distanceMethod } }'
    )
    assert cost(literal) == matrix_cost(1, 1, searches=0)
    for method in ("pathfinding", "default", None):
        variables["input"]["distanceMethod"] = method
        assert cost(MATRIX, variables) == matrix_cost(7, 7)


def aliased_routes(count: int) -> str:
    """`count` routes from the gym to itself, each answering its reason and distance."""
    fields = " ".join(
        f'r{n}: route(unitMapId: "{B1}", from: {{id: "{GYM}"}}, to: {{id: "{GYM}"}}) '
        "{ reason route { distance } }"
        for n in range(count)
    )
    return "{ " + fields + " }"


def test_thirty_aliased_routes_cost_past_the_limit_and_one_route_a_unit():
    # Each: 1 + 9,000 + its selection (reason 1, route 1 + distance 1).
    assert cost(aliased_routes(1)) == 9_004
    assert cost(aliased_routes(30)) == 30 * 9_004 > LIMIT
    assert cost(aliased_routes(27)) == 27 * 9_004 < LIMIT


@pytest.mark.security
async def test_a_document_of_thirty_aliased_routes_is_refused_with_cost_limit(demo):
    """Issue 45, point 9, as found: 30 aliased routes in one document. Refused before
    anything runs: COST_LIMIT with the cost and the limit; one route is answered."""
    headers = {"API-Key": demo.key, "Experimental-Flags": FLAGS}
    refused = await demo.client.post(
        "/graphql", json={"query": aliased_routes(30)}, headers=headers
    )
    assert refused.status_code == 200
    assert refused.json() == {
        "data": None,
        "errors": [
            {
                "message": "Query cost 270120 exceeds the limit of 250000: ask for smaller "
                "pages or fewer fields",
                "extensions": {"code": "COST_LIMIT", "cost": 270_120, "limit": LIMIT},
            }
        ],
    }
    one = await demo.client.post("/graphql", json={"query": aliased_routes(1)}, headers=headers)
    assert one.status_code == 200
    assert one.json() == {"data": {"r0": {"reason": None, "route": {"distance": 0.0}}}}


async def b1_locations(demo: Any, count: int) -> list[dict[str, str]]:
    response = await demo.client.get(
        f"/v1/maps/{B1}/locations?per-page={count}",
        headers={"API-Key": demo.key, "Experimental-Flags": FLAGS},
    )
    assert response.status_code == 200
    return [{"id": location["id"]} for location in response.json()["data"]]


@pytest.mark.security
async def test_route_and_e18_are_charged_their_price_on_rest_and_graphql(demo):
    """Rate-limit units, one per 10,000 of cost, charged before the work runs: a route
    (9,661 over REST) and a 1 x 1 E18 one each, a 7 x 7 E18 (seven searches, 49 pairs:
    over 67,900) seven, a straight-line 7 x 7 one; the same over `/graphql`."""
    key = (
        await create_key(demo.store, "route prices", [DISTANCES_CALCULATE], None, (0.01, 100))
    ).secret
    headers = {"API-Key": key, "Experimental-Flags": FLAGS}
    app = create_app(replace(demo.settings, rate_limit_per_second=200), demo.store)
    seven = await b1_locations(demo, 7)
    assert len(seven) == 7
    one_to_one = {"sources": seven[:1], "targets": seven[1:2]}
    seven_by_seven = {"sources": seven, "targets": seven}
    straight = {**seven_by_seven, "distance_method": "euclidean"}
    matrix = (
        'query ($input: DistanceMatrixInput!) { distanceMatrix(unitMapId: "map-b1", '
        "input: $input) { sources { targets { distance } } } }"
    )
    route = (
        f'{{ route(unitMapId: "{B1}", from: {{id: "{seven[0]["id"]}"}}, '
        f'to: {{id: "{GYM}"}}) {{ route {{ distance steps }} }} }}'
    )
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="https://t") as client:

        async def rest(what: str, data: dict[str, Any]) -> httpx.Response:
            return await client.post(f"/v1/maps/{B1}/{what}", json={"data": data}, headers=headers)

        async def graphql(query: str, variables: dict[str, Any] | None = None) -> httpx.Response:
            body = {"query": query, "variables": variables or {}}
            return await client.post("/graphql", json=body, headers=headers)

        answers = [
            await rest("route", {"from": seven[0], "to": {"id": GYM}}),
            await graphql(route),
            await rest("distance-matrix", one_to_one),
            await rest("distance-matrix", seven_by_seven),
            await graphql(matrix, {"input": seven_by_seven}),
            await rest("distance-matrix", straight),
            await graphql(matrix, {"input": {**seven_by_seven, "distanceMethod": "euclidean"}}),
        ]
    for answer in answers:
        assert answer.status_code == 200, answer.text
        assert "errors" not in answer.json(), answer.text
    remaining = [int(answer.headers["ratelimit-remaining"]) for answer in answers]
    spent = [before - after for before, after in zip([100, *remaining], remaining, strict=False)]
    assert spent == [1, 1, 1, 7, 7, 1, 1]
