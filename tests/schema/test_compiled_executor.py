"""The compiled executor is the same GraphQL as graphql-core's (issue 15, item 2).

Every comparison runs one request twice, with `CompiledExecutor` and with graphql-core's
generic executor (`YieldingExecutor`, graphql-core's plus slicing), and asserts equal
`data`, equal errors (message, path, locations, extensions) and the same resolver calls
in the same order:

- a small strawberry schema fed hypothesis-generated, often malformed, rows (wrong
  types, nulls in non-null fields, missing members, exceptions as values, tuples,
  objects), so every fallback of a completer is exercised;
- every REST route of the demo, with its error paths (bad input, 404, no key, a key
  without permissions or flags, a scoped key);
- hypothesis-graphql documents over the real schema on the demo, with aliases, inline
  fragments and `@skip`/`@include` on variables added, and named fragments.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import logging
import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import graphql
import hypothesis_graphql
import orjson
import pytest
import strawberry
from graphql import (
    ArgumentNode,
    DirectiveNode,
    DocumentNode,
    FieldNode,
    GraphQLSchema,
    InlineFragmentNode,
    NamedTypeNode,
    NameNode,
    NonNullTypeNode,
    OperationDefinitionNode,
    StringValueNode,
    VariableDefinitionNode,
    VariableNode,
    parse,
    print_ast,
)
from graphql.execution.values import VariableValues
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st
from strawberry.schema.config import StrawberryConfig

import rest.v1.dispatch
import rest.v1.routes.rows
from resolvers.auth.keys import create_key
from resolvers.auth.permissions import ALL_FLAGS, ALL_PERMISSIONS
from schema.execution.compiled import read_field
from schema.execution.direct import DirectRoot
from schema.execution.executor import SLICE, CompiledExecutor, YieldingExecutor
from schema.execution.plans import plans_of
from schema.execution.running import route as running_route
from schema.execution.running import route_documents
from schema.execution.shapes import MAX_GENERATED
from schema.lazy import LazySchema
from schema.scalars import Timestamp
from tests.examples import examples

# -- recording resolver calls ------------------------------------------------------------


@contextmanager
def recording(schema: GraphQLSchema) -> Iterator[list[tuple[Any, ...]]]:
    """Every call of a field's own resolver (not the default read), in call order."""
    calls: list[tuple[Any, ...]] = []
    wrapped: list[tuple[graphql.GraphQLField, Any]] = []
    for named in schema.type_map.values():
        if not isinstance(named, graphql.GraphQLObjectType) or named.name.startswith("__"):
            continue
        for name, field in named.fields.items():
            original = field.resolve
            if original is None or getattr(original, "_is_default", False):
                continue

            def resolve(source: Any, info: Any, _o=original, _n=f"{named.name}.{name}", **kw):
                calls.append((_n, tuple(info.path.as_list()), repr(sorted(kw.items()))))
                return _o(source, info, **kw)

            wrapped.append((field, original))
            field.resolve = resolve
    direct = DirectRoot.resolve

    async def resolve_directly(root: DirectRoot, context: Any, values: list[Any]) -> Any:
        """A root field run on a direct plan calls its row's resolver: recorded as the same
        call, with every argument by its schema name, as graphql-core passes them."""
        given = sorted((a.name, value) for a, value in zip(root.arguments, values, strict=True))
        calls.append((f"Query.{root.field}", (root.key,), repr(given)))
        return await direct(root, context, values)

    DirectRoot.resolve = resolve_directly  # type: ignore[method-assign]
    try:
        yield calls
    finally:
        DirectRoot.resolve = direct  # type: ignore[method-assign]
        for field, original in wrapped:
            field.resolve = original


@contextmanager
def generic_executor(strawberry_schema: Any) -> Iterator[None]:
    """Both faces on graphql-core's executor for the duration: no direct plans, no REST
    route planned ahead of time."""
    before = strawberry_schema.execution_context_class
    plans = running_route.PLANS
    strawberry_schema.execution_context_class = YieldingExecutor
    route_documents.CompiledExecutor = YieldingExecutor  # type: ignore[misc]
    running_route.PLANS = {}
    try:
        yield
    finally:
        strawberry_schema.execution_context_class = before
        route_documents.CompiledExecutor = CompiledExecutor  # type: ignore[misc]
        running_route.PLANS = plans


def outcome(result: graphql.ExecutionResult) -> tuple[Any, list[dict[str, Any]]]:
    return result.data, [error.formatted for error in result.errors or ()]


# -- a small schema, malformed rows ------------------------------------------------------


@strawberry.type
class Leaf:
    name: str
    count: int
    flag: bool | None
    ratio: float | None


@strawberry.type
class Row:
    id: strawberry.ID
    label: str | None
    size: int
    stamp: Timestamp
    tags: list[str]
    maybe_tags: list[str | None] | None
    leaf: Leaf | None
    leaves: list[Leaf]
    maybe_leaves: list[Leaf | None] | None

    @strawberry.field
    def doubled(self, root: strawberry.Parent[Any]) -> int:
        return read_field(root, "size") * 2


@strawberry.type
class SmallQuery:
    @strawberry.field
    def rows(self, info: strawberry.Info) -> list[Row]:
        return info.context["rows"]

    @strawberry.field
    def maybe_rows(self, info: strawberry.Info) -> list[Row | None] | None:
        return info.context["rows"]

    @strawberry.field
    def first(self, info: strawberry.Info) -> Row:
        return info.context["rows"][0] if info.context["rows"] else None  # type: ignore[return-value]


SMALL = strawberry.Schema(
    query=SmallQuery,
    config=StrawberryConfig(default_resolver=read_field),
    scalar_overrides={
        Timestamp: strawberry.scalar(name="Timestamp", serialize=str, parse_value=str)
    },
)
SMALL_QUERIES = [
    "{ rows { id label size stamp tags maybeTags leaf { name count flag ratio } "
    "leaves { name count } maybeLeaves { name ratio } } }",
    "{ maybeRows { __typename id size tags leaf { __typename name } } }",
    "{ first { id label } rows { doubled id } }",
    "{ a: rows { x: id ...on Row { y: size } ... { leaves { count } } } b: maybeRows { id } }",
    "query Q { rows { ...F } } fragment F on Row { id tags leaf { ...G } } "
    "fragment G on Leaf { name count }",
]


class Shape:
    """An object with attributes, read by `getattr` as strawberry's default would."""

    def __init__(self, **members: Any) -> None:
        self.__dict__.update(members)


ODD = st.sampled_from(
    [
        None,
        1,
        2**40,
        -(2**31) - 1,
        2.5,
        math.nan,
        math.inf,
        True,
        "s",
        b"b",
        ValueError("boom"),
        (),
        ["l"],
        {"k": 1},
        object(),
    ]
)


def sometimes(good: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly a well-typed value, sometimes anything."""
    return st.one_of(good, good, good, ODD)


LEAVES = st.fixed_dictionaries(
    {
        "name": sometimes(st.text(max_size=3)),
        "count": sometimes(st.integers(-5, 5)),
        "flag": sometimes(st.booleans()),
        "ratio": sometimes(st.floats(allow_nan=False)),
    }
)
ROWS = st.fixed_dictionaries(
    {
        "id": sometimes(st.text(min_size=1, max_size=4) | st.integers(0, 9)),
        "label": sometimes(st.none() | st.text(max_size=3)),
        "size": sometimes(st.integers(-(2**31), 2**31 - 1)),
        "stamp": sometimes(st.just("2025-01-01T00:00:00+00:00")),
        "tags": sometimes(st.lists(sometimes(st.text(max_size=2)), max_size=3)),
        "maybe_tags": sometimes(st.none() | st.lists(st.none() | st.text(max_size=2), max_size=3)),
        "leaf": sometimes(st.none() | LEAVES),
        "leaves": sometimes(st.lists(LEAVES, max_size=3) | st.tuples(LEAVES)),
        "maybe_leaves": sometimes(st.none() | st.lists(st.none() | LEAVES, max_size=3)),
    }
)


def shaped(row: dict[str, Any], draw_shape: bool, missing: str | None) -> Any:
    """The row as stored dict or as an object, possibly without one member."""
    members = {k: v for k, v in row.items() if k != missing}
    return Shape(**members) if draw_shape else members


@st.composite
def row_lists(draw: st.DrawFn) -> list[Any]:
    rows = draw(st.lists(ROWS, max_size=4))
    keys = sorted(ROWS_KEYS)
    return [
        shaped(row, draw(st.booleans()), draw(st.none() | st.sampled_from(keys))) for row in rows
    ]


ROWS_KEYS = {"id", "label", "size", "stamp", "tags", "maybe_tags", "leaf", "leaves", "maybe_leaves"}


async def run_small(query: str, rows: list[Any], executor: type) -> tuple[Any, Any]:
    with recording(SMALL._schema) as calls:
        result = graphql.execute(
            SMALL._schema, parse(query), context_value={"rows": rows}, executor_class=executor
        )
        if graphql.pyutils.is_awaitable(result):
            result = await result
    return outcome(result), calls


GOOD_LEAF = {"name": "n", "count": 1, "flag": None, "ratio": 0.5}
GOOD_ROW = {
    "id": "r",
    "label": None,
    "size": 3,
    "stamp": "2025-01-01T00:00:00+00:00",
    "tags": ["t"],
    "maybe_tags": [None, "u"],
    "leaf": GOOD_LEAF,
    "leaves": [GOOD_LEAF],
    "maybe_leaves": [None, GOOD_LEAF],
}


def pinned_rows() -> list[list[Any]]:
    """Rows pinned: well formed (none, as a dict, as an object), each member missing, and
    each odd value in each member of a row, of a leaf and of a list."""
    keys = sorted(ROWS_KEYS)
    cases: list[list[Any]] = [[], [GOOD_ROW], [Shape(**GOOD_ROW), GOOD_ROW]]
    cases.append([shaped(GOOD_ROW, index % 2 == 0, key) for index, key in enumerate(keys)])
    for value in ODD.elements:
        rows = [dict(GOOD_ROW, **{key: value}) for key in keys]
        rows += [Shape(**dict(GOOD_ROW, leaf=dict(GOOD_LEAF, **{n: value}))) for n in GOOD_LEAF]
        cases.append([*rows, dict(GOOD_ROW, tags=["t", value], leaves=[GOOD_LEAF, value])])
    return cases


def pin_rows(test: Any) -> Any:
    """Each pinned list with the query that reads every member, and with one other."""
    for index, rows in enumerate(pinned_rows()):
        for query in (SMALL_QUERIES[0], SMALL_QUERIES[1 + index % (len(SMALL_QUERIES) - 1)]):
            test = example(rows=rows, query=query)(test)
    return test


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=row_lists(), query=st.sampled_from(SMALL_QUERIES))
@pin_rows
async def test_malformed_rows_complete_as_graphql_core_completes_them(rows, query):
    """Drawn rows (a quarter of them in `make test`, all under `make explore`:
    tests/examples.py) and pinned ones: every odd value in every member, each query."""
    compiled = await run_small(query, rows, CompiledExecutor)
    generic = await run_small(query, rows, YieldingExecutor)
    plain = await run_small(query, rows, graphql.execution.executor.Executor)
    assert compiled == generic == plain


def plans_for(schema: GraphQLSchema, text: str, name: str | None) -> dict:
    """The plans kept for the document of that text and operation (the cache keys them by
    the parsed source's identity)."""
    for (_, entry_name), (entry, _) in plans_of(schema).documents.entries.items():
        if entry.source.body == text and entry_name == name:
            return entry.plans
    raise KeyError((text[:40], name))


async def test_the_small_schema_has_plans_with_completers():
    """The comparison above is worth something only if the compiled path runs."""
    await run_small(SMALL_QUERIES[0], [], CompiledExecutor)
    document_plans = plans_for(SMALL._schema, SMALL_QUERIES[0], None)
    (plan,) = document_plans.values()
    assert plan is not None and len(plan.completions) >= 10


@pytest.mark.parametrize("size", [SLICE - 1, SLICE * 3 + 7])
async def test_long_plain_lists_match_in_slices_and_with_a_bad_row(size):
    good = {
        "id": "x",
        "label": None,
        "size": 1,
        "stamp": "t",
        "tags": [],
        "maybe_tags": None,
        "leaf": None,
        "leaves": [],
        "maybe_leaves": None,
    }
    rows = [dict(good, id=str(index)) for index in range(size)]
    query = SMALL_QUERIES[0]
    assert await run_small(query, rows, CompiledExecutor) == await run_small(
        query, rows, YieldingExecutor
    )
    rows[size - 2] = dict(good, size="not an int")  # a late surprise: graphql-core redoes
    compiled = await run_small(query, rows, CompiledExecutor)
    assert compiled == await run_small(query, rows, YieldingExecutor)
    (data, errors), _ = compiled
    assert data is None and [e["path"] for e in errors] == [["rows", size - 2, "size"]]


# -- every REST route on the demo --------------------------------------------------------

VARYING_HEADERS = {"x-request-id", "date"}


async def demo_ids(demo) -> dict[str, str]:
    """One real id of each kind in the demo."""
    headers = demo.headers(*ALL_FLAGS)
    get = demo.client.get

    async def first(url: str, member: str = "id") -> str:
        response = await get(url, headers=headers)
        assert response.status_code == 200, response.text
        body = response.json()
        items = body["data"] if isinstance(body, dict) else body
        return items[0][member]

    ids = {"asset": await first("/v1/assets")}
    ids["market"] = await first("/v1/assets", "market")
    ids["group"] = await first("/v1/units/reference-groups")
    ids["floor"] = await first(f"/v1/assets/{ids['asset']}/floors")
    ids["unit"] = await first("/v1/units")
    ids["map"] = await first("/v1/maps")
    ids["unitMapId"] = ids["map"]
    backgrounds = (await get(f"/v1/maps/{ids['map']}/backgrounds", headers=headers)).json()
    ids["background"] = backgrounds["data"][0]["id"] if backgrounds["data"] else "none"
    groups = (await get("/v1/units/attribute-groups", headers=headers)).json()["data"]
    group = next(group for group in groups if group["attributes"])
    ids["group-id"] = group["group_id"]
    ids["attribute"] = group["attributes"][0]["attribute_id"]
    ids["location"] = await first(f"/v1/maps/{ids['map']}/locations")
    ids.update(z="18", x="0", y="0")  # a vector tile's address: a valid one, empty
    return ids


def rest_requests(
    ids: dict[str, str], key: str, plain: str, scoped: str
) -> list[tuple[str, str, dict, Any]]:
    """(method, url, headers, json body) for every route: good, 404, bad input, access
    (no key, an invalid one, no flags, a key without permissions, a key with every
    permission and flag scoped to another asset)."""
    flags = ", ".join(ALL_FLAGS)
    all_flags = {"API-Key": key, "Experimental-Flags": flags}
    requests: list[tuple[str, str, dict, Any]] = []
    for route in rest.v1.dispatch.ROUTES:
        if route.shape is rest.v1.routes.rows.Shape.EVENTS:  # endless: test_event_stream*
            continue
        path = route.path
        missing = path
        for param in route.params:
            if param.location == "path":
                path = path.replace("{" + param.name + "}", ids[param.name])
                missing = missing.replace("{" + param.name + "}", "does-not-exist")
        bodies: list[Any] = [None]
        if route.body is not None and route.body.name == "data":
            location = {"id": ids["location"]}
            good = (
                {"sources": [location], "targets": [location, location]}
                if "distance" in path
                else [
                    {
                        "unit_id": ids["unit"],
                        "attribute_id": ids["attribute"],
                        "group_id": ids["group-id"],
                        "asset_id": ids["asset"],
                    }
                ]
            )
            bodies = [{"data": good}, {"data": {}}, {"data": []}, {"data": {"sources": "x"}}, {}]
        elif route.body is not None:
            bodies = ['<svg xmlns="http://www.w3.org/2000/svg"/>', "not svg"]
        queries = [
            "",
            "?per-page=2&page=2",
            "?page=0",
            "?per-page=abc",
            "?per-page=20000",
            "?page=99999",
            "?tags=a,,b",
            "?asset=does-not-exist",
            "?per-page=1&per-page=2",
        ]
        has_query = any(param.location == "query" for param in route.params)
        for query in queries if has_query else [""]:
            for body in bodies:
                requests.append((route.method, path + query, all_flags, body))
        requests.append((route.method, missing, all_flags, bodies[0]))
        for headers in (
            {},
            {"API-Key": "fg_invalid"},
            {"API-Key": key},
            {"API-Key": key, "Experimental-Flags": "nope"},
            {"API-Key": plain, "Experimental-Flags": flags},
            {"API-Key": scoped, "Experimental-Flags": flags},
        ):
            requests.append((route.method, path, headers, bodies[0]))
    return requests


async def rest_outcome(demo, strawberry_schema, method, url, headers, body):
    with recording(strawberry_schema._schema) as calls:
        if isinstance(body, str):
            response = await demo.client.request(
                method, url, headers={**headers, "Content-Type": "image/svg+xml"}, content=body
            )
        else:
            response = await demo.client.request(method, url, headers=headers, json=body)
    kept = sorted((k, v) for k, v in response.headers.items() if k not in VARYING_HEADERS)
    return response.status_code, kept, response.content, calls


def strawberry_schema_of(app) -> Any:
    """The app's schema, built now if no request needed it yet (`schema.lazy`)."""
    while not hasattr(app, "routes"):  # through the middleware to the Starlette app
        app = app.app
    return app.state.schemas.now()


async def test_every_rest_route_answers_alike_on_both_executors(demo):
    schema = strawberry_schema_of(demo.app)
    ids = await demo_ids(demo)
    plain = (await create_key(demo.store, "no permissions", [], None)).secret
    scoped = (
        await create_key(demo.store, "elsewhere", list(ALL_PERMISSIONS), ["asset-elsewhere"])
    ).secret
    statuses: set[int] = set()
    scoped_statuses: set[int] = set()
    requests = rest_requests(ids, demo.key, plain, scoped)
    for method, url, headers, body in requests:
        demo.store.cache.flush()  # both executors run: no answer kept from the other
        compiled = await rest_outcome(demo, schema, method, url, headers, body)
        demo.store.cache.flush()
        with generic_executor(schema):
            generic = await rest_outcome(demo, schema, method, url, headers, body)
        assert compiled == generic, (method, url, headers.keys(), body)
        statuses.add(compiled[0])
        if headers.get("API-Key") == scoped:  # is answered nothing of the demo's asset
            scoped_statuses.add(compiled[0])
            if compiled[0] == 200:  # (a 422 may echo the asset id the body names)
                assert ids["asset"].encode() not in compiled[2], (method, url)
    # The list reached successes, every kind of refusal and bad input.
    assert {200, 204, 401, 403, 404, 422} <= statuses, statuses
    assert {200, 404} <= scoped_statuses, scoped_statuses
    assert len(requests) > 250


# -- generated documents over the real schema --------------------------------------------

SKIPPED_ROOTS = {"parseUnitMap", "distanceMatrix"}  # pure work, tested by REST above


# Built once: a strategy made anew at each draw was validated anew (a quarter of drawing).
BOOLEANS = st.booleans()
ONE_IN_FOUR = st.integers(0, 3)
ONE_IN_FIVE = st.integers(0, 4)
DIRECTIVES = st.sampled_from(["skip", "include"])


@st.composite
def decorated(draw: st.DrawFn, documents: st.SearchStrategy[DocumentNode]) -> tuple[str, dict]:
    """A generated query with aliases, inline fragments and `@skip`/`@include` added."""
    document = draw(documents)
    (operation,) = document.definitions
    assert isinstance(operation, OperationDefinitionNode)
    variables: dict[str, bool] = {}
    counter = iter(range(10_000))

    def rewrite(selections: tuple[Any, ...]) -> tuple[Any, ...]:
        out: list[Any] = []
        for selection in selections:
            if isinstance(selection, FieldNode) and selection.selection_set is not None:
                inner = rewrite(selection.selection_set.selections)
                if draw(BOOLEANS):
                    inner = (
                        InlineFragmentNode(
                            selection_set=graphql.SelectionSetNode(selections=inner), directives=()
                        ),
                    )
                selection = FieldNode(
                    alias=selection.alias,
                    name=selection.name,
                    arguments=selection.arguments,
                    directives=(),
                    selection_set=graphql.SelectionSetNode(selections=inner),
                )
            if isinstance(selection, FieldNode) and draw(ONE_IN_FOUR) == 0:
                selection = FieldNode(
                    alias=NameNode(value=f"a{next(counter)}"),
                    name=selection.name,
                    arguments=selection.arguments,
                    directives=(),
                    selection_set=selection.selection_set,
                )
            if draw(ONE_IN_FIVE) == 0:
                name = f"v{next(counter)}"
                variables[name] = draw(BOOLEANS)
                which = draw(DIRECTIVES)
                directive = DirectiveNode(
                    name=NameNode(value=which),
                    arguments=(
                        ArgumentNode(
                            name=NameNode(value="if"), value=VariableNode(name=NameNode(value=name))
                        ),
                    ),
                )
                selection = dataclasses.replace(
                    selection, directives=(*(selection.directives or ()), directive)
                )
            out.append(selection)
        return tuple(out)

    # One root field: sibling root fields run concurrently, and which of their errors
    # graphql-core keeps once one nulls `data` follows the database's timing.
    selections = rewrite(operation.selection_set.selections[:1])
    definitions = tuple(
        VariableDefinitionNode(
            variable=VariableNode(name=NameNode(value=name)),
            type=NonNullTypeNode(type=NamedTypeNode(name=NameNode(value="Boolean"))),
            directives=(),
        )
        for name in variables
    )
    operation = OperationDefinitionNode(
        operation=operation.operation,
        name=None,
        variable_definitions=definitions,
        directives=(),
        selection_set=graphql.SelectionSetNode(selections=selections),
    )
    return print_ast(DocumentNode(definitions=(operation,))), variables


def with_real_ids(document: DocumentNode, ids: list[str]) -> DocumentNode:
    """Id arguments replaced by real demo ids (or one that does not exist), so that
    generated queries reach data, not only nulls and NOT_FOUND."""

    class Ids(graphql.Visitor):
        def enter_argument(self, node: ArgumentNode, *_: Any) -> Any:
            if node.name.value.lower().endswith("id") and isinstance(node.value, StringValueNode):
                index = sum(map(ord, node.value.value)) % (len(ids) + 1)
                real = ids[index] if index < len(ids) else "does-not-exist"
                return ArgumentNode(name=node.name, value=StringValueNode(value=real))
            if node.name.value == "perPage":
                return ArgumentNode(name=node.name, value=graphql.IntValueNode(value="3"))
            return None

    return graphql.visit(document, Ids())


async def graphql_outcome(demo, strawberry_schema, query: str, variables: dict) -> Any:
    """Status, data, errors and resolver calls. Sibling fields with resolvers run
    concurrently, so the order of their errors and of their children's resolver calls
    may follow the database's timing, in graphql-core as here: errors are compared
    sorted, calls as a sorted list (the REST test compares both in order)."""
    demo.store.cache.flush()  # both executors run: no answer kept from the other
    with recording(strawberry_schema._schema) as calls:
        response = await demo.client.post(
            "/graphql",
            json={"query": query, "variables": variables},
            headers=demo.headers(*ALL_FLAGS),
        )
    body = response.json()
    errors = sorted(body.get("errors", ()), key=lambda error: orjson.dumps(error))
    return response.status_code, body.get("data"), errors, sorted(calls)


async def generated_cases(demo, schema: Any, count: int) -> list[tuple[str, dict]]:
    """`count` hypothesis-graphql documents over the demo's schema (real ids, decorated),
    with their variables. Drawn first (hypothesis runs no coroutine), then each is run."""
    ids = list((await demo_ids(demo)).values())
    fields = [name for name in schema._schema.query_type.fields if name not in SKIPPED_ROOTS]
    documents = hypothesis_graphql.queries(
        schema._schema, fields=fields, print_ast=lambda d: d, allow_x00=False, allow_null=True
    ).map(lambda document: with_real_ids(document, ids))
    cases: list[tuple[str, dict]] = []

    @settings(
        max_examples=count,
        deadline=None,
        database=None,
        derandomize=True,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=decorated(documents))
    def collect(case: tuple[str, dict]) -> None:
        cases.append(case)

    collect()
    return cases


async def test_generated_documents_answer_alike_on_both_executors(demo):
    schema = strawberry_schema_of(demo.app)
    cases = await generated_cases(demo, schema, 150)
    seen: list[tuple[int, Any]] = []
    for query, variables in cases:
        compiled = await graphql_outcome(demo, schema, query, variables)
        with generic_executor(schema):
            generic = await graphql_outcome(demo, schema, query, variables)
        assert compiled == generic, (query, variables)
        seen.append(compiled[:2])
    answered = [data for status, data in seen if status == 200 and data]
    assert len(answered) > 50  # most generated documents reached data


NAMED_FRAGMENTS = """
query Q($withUnits: Boolean!, $asset: ID!) {
  one: asset(id: $asset) {
    ...AssetBits floors { id ...FloorBits units @include(if: $withUnits) { id name } }
  }
  units(perPage: 5) { data { ...on Unit { id } name } paging { nextPage } }
  unitMaps { data { id tags url geojsonUrl __typename levelTags { key values { name value } } } }
}
fragment AssetBits on Asset { id name createdAt __typename }
fragment FloorBits on Floor { label sort shortLabel }
"""


@pytest.mark.parametrize("with_units", [True, False])
async def test_named_fragments_and_directive_variables_answer_alike(demo, with_units):
    schema = strawberry_schema_of(demo.app)
    ids = await demo_ids(demo)
    variables = {"withUnits": with_units, "asset": ids["asset"]}
    compiled = await graphql_outcome(demo, schema, NAMED_FRAGMENTS, variables)
    with generic_executor(schema):
        generic = await graphql_outcome(demo, schema, NAMED_FRAGMENTS, variables)
    assert compiled == generic
    status, data, errors, _ = compiled
    assert status == 200 and errors == []
    assert all(("units" in floor) is with_units for floor in data["one"]["floors"])
    plans = plans_for(schema._schema, NAMED_FRAGMENTS, "Q")
    assert (with_units,) in plans and plans[(with_units,)] is not None


def test_every_route_document_is_valid_and_planned(settings):
    """Routes are prepared after start (`RestApi.prepare_all`), not when the app is made:
    here all of them, as a started server does."""
    schemas = LazySchema(settings)
    schema = schemas.now()._schema
    api = rest.v1.dispatch.RestApi(None, schemas)  # type: ignore[arg-type]
    asyncio.run(api.prepare_all(after=0))
    assert api._graphql is not None
    every = {route.operation_id for route in rest.v1.dispatch.ROUTES}
    assert api._graphql.documents.prepared == every
    for route in rest.v1.dispatch.ROUTES:
        if route.shape is rest.v1.routes.rows.Shape.EVENTS:  # run once per change, not compiled
            continue
        document_plans = plans_for(schema, route.document, None)
        (plan,) = document_plans.values()
        assert plan is not None and plan.completions, route.operation_id


def rest_api_of(app) -> rest.v1.dispatch.RestApi:
    while not hasattr(app, "routes"):
        app = app.app
    (v1,) = [route for route in app.routes if getattr(route, "path", "") == "/v1"]
    return v1.endpoint.__self__


async def test_routes_are_prepared_only_while_no_rest_request_runs(settings):
    """`prepare_all` waits while a REST request is under way (a cold start's first
    answers do not wait for it), and goes on when none is."""
    api = rest.v1.dispatch.RestApi(None, LazySchema(settings))  # type: ignore[arg-type]
    graphql = await api.graphql()
    api.running = 1
    task = asyncio.create_task(api.prepare_all(after=0))
    await asyncio.sleep(rest.v1.dispatch.IDLE_POLL_SECONDS * 4)
    assert graphql.documents.prepared == set()
    api.running = 0
    await asyncio.wait_for(task, timeout=30)
    assert graphql.documents.prepared == {route.operation_id for route in rest.v1.dispatch.ROUTES}


async def test_a_rest_request_counts_as_running_until_it_is_answered(demo):
    """What `prepare_all` waits on: counted from the route's match, body included, to
    the answer."""
    api = rest_api_of(demo.app)
    seen: list[int] = []

    async def body() -> Any:
        for part in (b'<svg xmlns="http://www.w3.org/2000/svg" ', b'viewBox="0 0 10 10"/>'):
            seen.append(api.running)
            yield part

    answer = await demo.client.post(
        "/v1/maps/parse",
        content=body(),
        headers={**demo.headers(), "Content-Type": "image/svg+xml"},
    )
    assert answer.status_code == 200
    assert seen == [1, 1]
    assert api.running == 0
    refused = await demo.client.get("/v1/assets", headers={"API-Key": "nope"})
    assert refused.status_code == 403 and api.running == 0  # an unknown key


async def test_a_document_of_many_selections_compiles_only_up_to_the_cap(demo):
    """Each plain object selection is a generated function (about a millisecond to
    compile): past MAX_GENERATED in one document the rest runs on graphql-core, with
    equal answers. 20 aliases x 3 plain lists (units, level tags, their values) = 60,
    each its own selection (equal selections share their functions)."""
    schema = strawberry_schema_of(demo.app)
    ids = await demo_ids(demo)
    unit = ["id", "assetId", "floorId", "name", "createdAt", "updatedAt"]
    unit_fields = list(itertools.combinations(unit, 3))  # 20
    stamped = ["name", "createdAt", "updatedAt"]
    tag_fields = [c for k in (1, 2, 3, 4) for c in itertools.combinations(["key", *stamped], k)]
    value_fields = [c for k in (1, 2, 3, 4) for c in itertools.combinations(["value", *stamped], k)]
    query = (
        "query Many($id: ID!) { "
        + " ".join(
            f"a{n}: asset(id: $id) {{ units {{ {' '.join(unit_fields[n])} }} unitMaps {{ "
            f"levelTags {{ {' '.join(tag_fields[n % 15])} values "
            f"{{ {' '.join(value_fields[(n // 15 + n) % 15])} }} }} }} }}"
            for n in range(20)
        )
        + " }"
    )
    variables = {"id": ids["asset"]}
    compiled = await graphql_outcome(demo, schema, query, variables)
    with generic_executor(schema):
        generic = await graphql_outcome(demo, schema, query, variables)
    assert compiled == generic
    assert compiled[0] == 200 and compiled[2] == [] and len(compiled[1]) == 20
    (plan,) = plans_for(schema._schema, query, "Many").values()
    generated = {
        id(completion.complete)
        for completion in plan.completions.values()
        if completion.complete.__code__.co_filename.startswith("<completer")
    }
    assert MAX_GENERATED - 3 <= len(generated) <= MAX_GENERATED < 55


def test_an_operation_plans_cannot_run_falls_back_with_a_debug_line(caplog):
    """A subscription (this schema has none) gets no plan: graphql-core runs it and
    reports it; the fallback is a DEBUG line on `floorgate.graphql`, per document."""
    document = parse("subscription Watch { rows { id } }")
    (operation,) = document.definitions
    with caplog.at_level(logging.DEBUG, logger="floorgate.graphql"):
        plan = plans_of(SMALL._schema).get(
            SMALL._schema, operation, {}, VariableValues({}, {}), False
        )
    assert plan is None
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        ("DEBUG", "graphql-core runs operation Watch: not a query or mutation")
    ]
    result = graphql.execute(SMALL._schema, document, executor_class=CompiledExecutor)
    assert outcome(result) == (
        None,
        [
            {
                "message": "Schema is not configured to execute subscription operation.",
                "locations": [{"line": 1, "column": 1}],
            }
        ],
    )
