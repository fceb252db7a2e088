"""The REST routes planned ahead of time (schema/execution/running/planned/) are the
GraphQL operations they are made from: the files are current, each route's access rule
and cost are the schema's, stored values a plan cannot complete are answered through
GraphQL, and the answers are GraphQL's byte for byte (every route of the demo with its
error paths:
`tests/schema/test_compiled_executor.py::test_every_rest_route_answers_alike_on_both_executors`
runs each with and without plans)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from graphql import GraphQLFloat

import schema.execution.running.route as running_route
from resolvers.context import RequestContext, Services
from resolvers.reads import list_units
from rest.v1.routes import ROUTES
from schema.build import build_schema
from schema.execution.operation_cost import operation_cost
from schema.execution.running.planned.plan import PlannedRoute, page_size
from schema.execution.running.planned.routes import PLANS
from schema.execution.running.route import RESULT
from schema.execution.running.route_documents import requirement_of
from schema.execution.shapes import float_of_int
from storage.settings import Settings

BY_ID = {route.operation_id: route for route in ROUTES}


@pytest.fixture(scope="module")
def schema() -> Any:
    return build_schema(Settings())._schema


def test_the_gets_of_table_rows_with_plain_answers_are_planned():
    """What is planned and what is not, by kind: every GET of a table row whose answer is
    plain; no write, body, event stream, hand-written field or resolver field (a map's
    `url`)."""
    planned = set(PLANS)
    assert {"getAsset", "listAssets", "listUnits", "getUnit", "listFloors"} <= planned
    for operation_id in planned:
        route = BY_ID[operation_id]
        assert (route.method, route.operation, route.body) == ("GET", "query", None)
    for route in ROUTES:
        if route.method != "GET" or route.graphql_field in ("locations", "unitMap", "unitMaps"):
            assert route.operation_id not in planned, route.operation_id
    assert len(planned) >= 25


def test_each_plan_demands_what_its_root_field_demands(schema):
    for operation_id, plan in PLANS.items():
        assert plan.requirement == requirement_of(schema, BY_ID[operation_id]), operation_id


@pytest.mark.parametrize("per_page", [None, 1, 2, 99, 100, 101, 9_999, 10_000, 10_001, 0, -5])
def test_each_plan_costs_what_its_document_costs(schema, per_page):
    for operation_id, plan in PLANS.items():
        route = BY_ID[operation_id]
        variables: dict[str, Any] = {
            p.variable: "x" * 40 for p in route.params if not p.is_int and p.location == "path"
        }
        if per_page is not None:
            variables["perPage"] = per_page
        expected = operation_cost(schema, route.parsed, variables)
        assert plan.price(variables) == expected, (operation_id, per_page)


def test_page_size_counts_as_the_cost_model_does():
    assert [page_size(v) for v in (None, 0, -1, 1, 50, 10_000, 10_001, True)] == [
        100,
        1,
        1,
        1,
        50,
        10_000,
        10_000,
        1,
    ]


@pytest.mark.parametrize(
    "value", [0, 1, -1, 40, 2**31, 2**53, 2**53 + 1, -(2**53) - 1, 10**308, 10**400, True]
)
def test_a_whole_number_in_a_float_is_coerced_as_graphql_core_does(value):
    """The one coercion a plan made ahead does itself: exactly graphql-core's, or none
    (the plan then steps aside and graphql-core reports its own error)."""
    try:
        expected = GraphQLFloat.serialize(value)
    except Exception:
        expected = None
    ours = float_of_int(value)
    if type(value) is bool:
        assert ours is None  # not an int to us: graphql-core completes it
    else:
        assert ours == expected and type(ours) is type(expected)


async def test_a_stored_value_a_plan_cannot_complete_is_answered_through_graphql(
    client, store, full_headers
):
    """A latitude stored as a whole number is completed by the plan (47 -> 47.0); a name
    stored as a number is not (String's coercion is graphql-core's): the route steps aside
    and answers exactly as without its plan."""
    await store["assets"].insert_one(
        {
            "_id": "asset-odd",
            "market": "multifamily",
            "name": 1234,
            "latitude": 47,
            "created_at": "2026-01-15T09:00:00+00:00",
            "updated_at": "2026-01-15T09:00:00+00:00",
        }
    )
    try:
        store.cache.flush()  # each answer computed, none kept from the other
        planned = await client.get("/v1/assets/asset-odd", headers=full_headers)
        plans = running_route.PLANS
        running_route.PLANS = {}
        try:
            store.cache.flush()
            through_graphql = await client.get("/v1/assets/asset-odd", headers=full_headers)
        finally:
            running_route.PLANS = plans
        await store["assets"].update_one({"_id": "asset-odd"}, {"$set": {"name": "Odd"}})
        whole = await client.get("/v1/assets/asset-odd", headers=full_headers)
    finally:
        await store["assets"].delete_one({"_id": "asset-odd"})
    assert (planned.status_code, planned.content) == (200, through_graphql.content)
    assert planned.json()["name"] == "1234" and planned.json()["latitude"] == 47.0
    assert whole.status_code == 200 and whole.json()["latitude"] == 47.0


def test_a_plan_makes_its_completer_once():
    plan: PlannedRoute = PLANS["getAsset"]
    assert plan.direct(RESULT) is plan.direct(RESULT)


def test_a_planned_page_completes_its_items_as_stored():
    """A page's items come as stored (`_id`): its completer renames each as it builds it
    (no pass over the page first), and completes a page of API objects (`id`) alike.
    A single object is read as an API object, as before."""
    root = PLANS["listUnits"].direct(RESULT).roots[0]
    assert root.stored_ids is True
    assert PLANS["getUnit"].direct(RESULT).roots[0].stored_ids is False
    unit = {
        "asset_id": "asset-1",
        "floor_id": "floor-1",
        "name": "101",
        "created_at": "2026-01-15T09:00:00+00:00",
        "updated_at": "2026-01-15T09:00:00+00:00",
    }
    paging = {"per_page": 2, "current_page": 1, "prev_page": None, "next_page": None}
    stored = {"paging": {**paging, "total_count": 1}, "data": [{"_id": "u-1", **unit}]}
    renamed = {"paging": {**paging, "total_count": 1}, "data": [{"id": "u-1", **unit}]}
    answer = root.complete(stored)
    assert answer == root.complete(renamed)
    assert answer["data"] == [{"id": "u-1", **unit}]
    assert next(iter(answer["data"][0])) == "id"  # in the schema's order, not as stored
    with pytest.raises(KeyError):  # neither: graphql-core answers (the route steps aside)
        root.complete({"paging": stored["paging"], "data": [unit]})


async def test_a_planned_page_reads_stored_documents_for_its_call_only(store, settings, keys):
    """The row's resolver reads the page as stored while the planned route calls it, and
    as API objects once it returned (graphql-core, stepping in, gets those)."""
    context = RequestContext(Services(store, settings), keys.full, frozenset())
    root = PLANS["listUnits"].direct(RESULT).roots[0]
    seen: list[bool] = []

    async def call(context: RequestContext, *values: Any) -> Any:
        seen.append(context.stored_ids)
        return await list_units(context, *values)

    planned = replace(root, call=call)
    values = planned.values({"perPage": 3})
    stored = await planned.resolve(context, values)
    after = await list_units(context, *values)
    assert seen == [True] and context.stored_ids is False
    assert [item["_id"] for item in stored["data"]] == [item["id"] for item in after["data"]]
    assert len(after["data"]) == 3 and all("_id" not in item for item in after["data"])
    assert planned.complete(stored) == root.complete(after)
    with context.reading_stored():  # root fields run at once: one ending ends only itself
        with context.reading_stored():
            pass
        assert context.stored_ids is True
    assert context.stored_ids is False


@pytest.mark.security
async def test_a_key_of_another_asset_lists_only_its_own_units_on_both_faces(
    client, store, keys, full_headers
):
    """The pages read as stored keep the scope rule: a key of asset-2 listing units (REST's
    planned route, /graphql's direct plan) gets asset-2's units, each with its stored
    `_id` as `id`, and asking for asset-1's is an empty page, as for any scope."""
    mine = await store["units"].find({"asset_id": "asset-2"}).sort("_id", 1).to_list()
    assert mine  # the fixture data has units of the scoped key's asset
    expected = [unit["_id"] for unit in mine]
    scoped = {"API-Key": keys.scoped}
    rest = await client.get("/v1/units", params={"per-page": 1000}, headers=scoped)
    assert rest.status_code == 200
    assert [unit["id"] for unit in rest.json()["data"]] == expected
    assert {unit["asset_id"] for unit in rest.json()["data"]} == {"asset-2"}
    query = "{ units(perPage: 1000) { data { id assetId } } }"
    graphql = await client.post("/graphql", json={"query": query}, headers=scoped)
    assert graphql.status_code == 200 and "errors" not in graphql.json()
    units = graphql.json()["data"]["units"]["data"]
    assert [unit["id"] for unit in units] == expected
    other = await client.get("/v1/units", params={"asset": "asset-1"}, headers=scoped)
    assert (other.status_code, other.json()["data"]) == (200, [])
    everyone = await client.get("/v1/units", params={"per-page": 1000}, headers=full_headers)
    assert len(everyone.json()["data"]) > len(expected)  # the full key sees more
