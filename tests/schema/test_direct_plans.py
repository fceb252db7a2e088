"""Direct plans (schema/execution/direct.py, direct_plans.py): which operations run on
one, and that they answer as graphql-core does (data, errors with message, locations,
path and extensions, and every resolver called once) on the cases a plan handles itself:
a root field that fails, nullable or not, beside others; arguments as literals, variables
and defaults. The generated documents of test_compiled_executor.py run on plans too."""

from __future__ import annotations

from typing import Any

import pytest
from graphql import OperationDefinitionNode, parse
from graphql.execution.values import get_variable_values

from resolvers.auth.permissions import ALL_FLAGS
from schema.execution import shapes
from schema.execution.direct import DirectPlan
from schema.execution.direct_plans import direct_plan, fragments_of
from schema.execution.plans import plans_of
from tests.schema.test_compiled_executor import (
    demo_ids,
    generic_executor,
    graphql_outcome,
    strawberry_schema_of,
)


def planned(schema: Any, text: str, variables: dict[str, Any] | None = None) -> Any:
    """The direct plan of a document's one operation, or None."""
    document = parse(text)
    operation = next(d for d in document.definitions if isinstance(d, OperationDefinitionNode))
    fragments = fragments_of(document)
    coerced = get_variable_values(schema, operation.variable_definitions or (), variables or {})
    assert fragments is not None and not isinstance(coerced, list)
    plan = plans_of(schema).get(schema, operation, fragments, coerced, False)
    return None if plan is None else direct_plan(schema, operation, plan)


@pytest.mark.parametrize(
    ("text", "roots"),
    [
        ('{ asset(id: "a") { id name } }', ["asset"]),
        ('{ a: asset(id: "a") { id } b: units(perPage: 2) { data { id } } }', ["a", "b"]),
        ("query ($n: Int) { units(perPage: $n) { paging { perPage } data { name } } }", ["units"]),
        ("{ units { data { ...U } } } fragment U on Unit { id assetId }", ["units"]),
        ('{ __typename asset(id: "a") { id } }', None),  # a meta field at the root
        ("{ unitMaps { data { id url } } }", None),  # `url` has a resolver
        ('{ locations(unitMapId: "m") { data { id } } }', None),  # written by hand
        ('{ asset(id: "a") { id floors { id } } }', None),  # `floors` has a resolver
        ('mutation { deleteLocation(id: "l") }', None),  # not a query
    ],
)
def test_which_operations_run_directly(demo, text, roots):
    schema = strawberry_schema_of(demo.app)._schema
    plan = planned(schema, text)
    if roots is None:
        assert plan is None
    else:
        assert isinstance(plan, DirectPlan)
        assert [root.key for root in plan.roots] == roots


def test_arguments_come_from_literals_variables_and_defaults(demo):
    schema = strawberry_schema_of(demo.app)._schema
    plan = planned(schema, 'query ($n: Int) { units(perPage: $n, assetId: "x") { data { id } } }')
    (root,) = plan.roots
    by_name = {argument.name: argument for argument in root.arguments}
    assert (by_name["perPage"].variable, by_name["perPage"].value) == ("n", None)
    assert (by_name["assetId"].variable, by_name["assetId"].value) == (None, "x")
    assert (by_name["page"].variable, by_name["page"].value) == (None, None)
    assert root.values({"n": 7}) == [None, 7, "x", None]  # the row's order
    assert root.filters == (2, 3)  # assetId, market: what the page is told of its list


def test_a_page_is_completed_as_stored_and_one_object_as_an_api_object(demo):
    """A page's items keep `_id` for a direct plan (`find_page`'s `stored_ids`), which
    its own completer renames; graphql-core's completion of the field reads `id`."""
    schema = strawberry_schema_of(demo.app)._schema
    plan = planned(schema, '{ a: asset(id: "a") { id } u: units { data { id i: id } } }')
    asset, units = plan.roots
    assert (asset.stored_ids, units.stored_ids) == (False, True)
    paging = {"per_page": 1, "current_page": 1, "prev_page": None, "next_page": None}
    page = {"paging": paging, "data": [{"_id": "u-1"}]}
    assert units.complete(page) == {"data": [{"id": "u-1", "i": "u-1"}]}
    assert units.complete({**page, "data": [{"id": "u-1"}]}) == units.complete(page)


@pytest.mark.security
def test_a_page_past_the_bound_on_generated_code_is_read_as_api_objects(demo, monkeypatch):
    """The completers of pages read as stored are generated within MAX_GENERATED too;
    past it the page root keeps the plan's own completer and reads API objects."""
    schema = strawberry_schema_of(demo.app)._schema
    text = "{ units { data { id } } }"
    document = parse(text)
    operation = next(d for d in document.definitions if isinstance(d, OperationDefinitionNode))
    coerced = get_variable_values(schema, (), {})
    plan = plans_of(schema).get(schema, operation, fragments_of(document), coerced, False)
    monkeypatch.setattr(shapes, "MAX_GENERATED", 0)
    (root,) = direct_plan(schema, operation, plan).roots
    completion = plan.completions[id(plan.root.grouped_field_set["units"])]
    assert root.stored_ids is False and root.complete is completion.complete


CASES = [
    ('{ asset(id: "no-such-asset") { id name } }', {}),  # nullable: null and an error
    ('{ a: asset(id: "no-such-asset") { id } b: assets(perPage: 2) { data { id } } }', {}),
    ("query ($n: Int) { units(perPage: $n) { data { id name } paging { totalCount } } }", {}),
    ("query ($n: Int) { units(perPage: $n) { data { id name } } }", {"n": 0}),  # 422 within
    ("query ($n: Int = 3) { units(perPage: $n) { data { id } } }", {}),  # a default
    ('{ unitReferences(perPage: 2) { data { key } } asset(id: "nope") { id } }', {}),
    ('{ a: unit(id: "no-such-unit") { id } b: unit(id: "nor-this") { id } }', {}),
]


@pytest.mark.parametrize(("query", "variables"), CASES)
async def test_a_direct_plan_answers_as_graphql_core(demo, query, variables):
    schema = strawberry_schema_of(demo.app)
    assert planned(schema._schema, query, variables) is not None  # the case runs directly
    direct = await graphql_outcome(demo, schema, query, variables)
    with generic_executor(schema):
        generic = await graphql_outcome(demo, schema, query, variables)
    assert direct == generic


async def test_a_refused_flag_is_the_fields_error_without_the_flag(demo):
    """A root field behind a flag the request lacks fails alone (its permission class),
    beside one that succeeds: the same answer, one call of the resolver that ran."""
    schema = strawberry_schema_of(demo.app)
    ids = await demo_ids(demo)
    query = f'{{ a: asset(id: "{ids["asset"]}") {{ id }} r: unitReferences {{ data {{ key }} }} }}'
    assert planned(schema._schema, query) is not None
    headers = demo.headers()  # no flags

    async def outcome() -> Any:
        demo.store.cache.flush()
        response = await demo.client.post("/graphql", json={"query": query}, headers=headers)
        return response.status_code, response.json()

    direct = await outcome()
    with generic_executor(schema):
        generic = await outcome()
    assert direct == generic
    assert direct[0] == 200 and direct[1]["data"] is None  # the page is non-null
    assert direct[1]["errors"][0]["extensions"]["code"] == "FLAG_REQUIRED"
    assert ALL_FLAGS  # the flags exist; this key simply did not send them
