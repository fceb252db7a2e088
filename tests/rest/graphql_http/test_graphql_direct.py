"""`/graphql` runs every operation directly (`schema.execution.running.document`), without
strawberry's per-operation pipeline: it must answer exactly as strawberry's pipeline
(with the guard as its extension) does. Every case runs twice through the real app,
directly and with the view's `answer` replaced by strawberry's pipeline, the read cache
flushed before each, and compares status, body (errors sorted: sibling resolvers run
concurrently) and resolver calls."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from graphql import get_introspection_query
from starlette.requests import Request
from starlette.responses import Response

from resolvers.auth.keys import create_key
from resolvers.auth.permissions import ALL_FLAGS, ALL_PERMISSIONS
from rest.graphql_http.view import GraphQLView
from schema.execution.running.document import DocumentOperation
from tests.schema.strawberry_pipeline import guarded
from tests.schema.test_compiled_executor import generated_cases, recording, strawberry_schema_of


async def strawberry_only(view: GraphQLView, request: Request) -> Response:
    """The view's `answer` as strawberry's pipeline, with the guard as its extension: the
    reference the direct path must match (it no longer falls back to it)."""
    return await view.run(request)


async def answered(demo, schema, method: str, body: dict, headers: dict) -> tuple:
    demo.store.cache.flush()  # no kept answer: both paths run
    with recording(schema._schema) as calls:
        if method == "GET":
            params = {
                k: (orjson.dumps(v).decode() if k == "variables" else v)
                for k, v in body.items()
                if v is not None
            }
            response = await demo.client.get("/graphql", params=params, headers=headers)
        else:
            response = await demo.client.post("/graphql", json=body, headers=headers)
    payload = response.json()
    if isinstance(payload, dict) and "errors" in payload:
        payload["errors"] = sorted(payload["errors"], key=orjson.dumps)
    return (
        response.status_code,
        response.headers.get("content-type"),
        payload,
        sorted(calls),
        response.headers.get("retry-after"),
    )


async def both_paths(demo, method: str, body: dict, headers: dict, monkeypatch) -> tuple:
    schema = strawberry_schema_of(demo.app)
    direct = await answered(demo, schema, method, body, headers)
    with monkeypatch.context() as patch:
        patch.setattr(GraphQLView, "answer", strawberry_only)
        patch.setattr(schema, "extensions", guarded(schema))
        strawberry = await answered(demo, schema, method, body, headers)
    assert direct == strawberry, (method, body)
    return direct


@pytest.fixture(scope="module")
def other_keys() -> dict[str, str]:
    return {}


async def keys_of(demo, other_keys: dict[str, str]) -> dict[str, str]:
    if not other_keys:
        other_keys["plain"] = (await create_key(demo.store, "plain", [], None)).secret
        other_keys["scoped"] = (
            await create_key(demo.store, "scoped", list(ALL_PERMISSIONS), ["no-such-asset"])
        ).secret
    return other_keys


UNITS = "query Units($n: Int) { units(perPage: $n) { data { id name floorId } } }"
CASES: dict[str, tuple[str, dict, str, int]] = {
    # name: (method, body, who: full | flagged | plain | scoped | none, status)
    "a query": ("POST", {"query": UNITS, "variables": {"n": 5}}, "full", 200),
    "a query over GET": ("GET", {"query": UNITS, "variables": {"n": 3}}, "full", 200),
    "an experimental field with its flag": (
        "POST",
        {"query": '{ locations(unitMapId: "map-b1-f1", perPage: 2) { data { id } } }'},
        "flagged",
        200,
    ),
    "an experimental field without its flag": (
        "POST",
        {"query": "{ assetReferences(perPage: 2) { data { id } } }"},
        "full",
        200,
    ),
    "a permission the key lacks": (
        "POST",
        {"query": "{ assetReferences(perPage: 2) { data { id } } }"},
        "plain",
        200,
    ),
    "a key scoped to another asset": (
        "POST",
        {"query": UNITS, "variables": {"n": 5}},
        "scoped",
        200,
    ),
    "no key": ("POST", {"query": UNITS}, "none", 200),
    "keyless introspection": (
        "POST",
        {"query": "{ __schema { queryType { name } } }"},
        "none",
        200,
    ),
    "an unknown field": ("POST", {"query": "{ units { nope } }"}, "full", 200),
    "a variable of the wrong type": (
        "POST",
        {"query": UNITS, "variables": {"n": "x"}},
        "full",
        200,
    ),
    "a bad argument": ("POST", {"query": "{ units(perPage: 0) { data { id } } }"}, "full", 200),
    "over the cost limit": (
        "POST",
        {
            "query": "{ "
            + " ".join(
                f"{a}: units(perPage: 10000) {{ data {{ id name assetId floorId }} }}"
                for a in "abcdef"
            )
            + " }"
        },
        "full",
        200,
    ),
    "a list variable over the item limit": (
        "POST",
        {
            "query": "mutation($d: [UnitAttributeAssignmentInput!]!) { unassignUnitAttributes("
            'groupId: "view", data: $d) { unitId } }',
            "variables": {
                "d": [{"groupId": "view", "attributeId": "a", "assetId": "b", "unitId": "c"}]
                * 10001
            },
        },
        "flagged",
        200,
    ),
    "a missing record": ("POST", {"query": '{ unit(id: "no-such-unit") { id } }'}, "full", 200),
    "named operations": (
        "POST",
        {
            "query": "query A { units(perPage: 1) { data { id } } } "
            "query B { assets { data { id } } }",
            "operationName": "B",
        },
        "full",
        200,
    ),
    "an unknown operation name": ("POST", {"query": UNITS, "operationName": "Nope"}, "full", 422),
    "a syntax error": ("POST", {"query": "{ units { data { id } }"}, "full", 200),
    "a mutation": (
        "POST",
        {"query": 'mutation { deleteLocation(id: "no-such-location") }'},
        "full",
        200,
    ),
    "a mutation with bad input": (
        "POST",
        {"query": 'mutation { putLocation(input: {id: "x"}) { id } }'},
        "full",
        200,
    ),
    "a mutation over GET": (
        "GET",
        {"query": 'mutation { deleteLocation(id: "no-such-location") }'},
        "full",
        422,
    ),
    "a refused root field among others": (
        "POST",
        {
            "query": '{ unit(id: "no-such-unit") { id } assetReferences(perPage: 2) '
            "{ data { id } } }"
        },
        "plain",
        200,
    ),
    "every root field refused": (
        "POST",
        {"query": "{ __typename assetReferences(perPage: 2) { data { id } } }"},
        "plain",
        200,
    ),
    "keyless introspection over its ceiling": (
        "POST",
        {
            "query": "{ "
            + " ".join(
                f"a{i}: __schema {{ types {{ fields {{ type {{ name }} }} }} }}" for i in range(30)
            )
            + " }"
        },
        "none",
        200,
    ),
    "keyed introspection": ("POST", {"query": "{ __schema { types { name } } }"}, "full", 200),
    "GraphiQL's introspection (on the CPU pool when direct)": (
        "POST",
        {"query": get_introspection_query(input_value_deprecation=True)},
        "none",
        200,
    ),
    "a number literal too long": (
        "POST",
        {"query": "{ units(perPage: " + "9" * 5000 + ") { data { id } } }"},
        "full",
        200,
    ),
}


@pytest.mark.parametrize("case", list(CASES))
async def test_each_case_answers_alike_on_both_paths(demo, other_keys, monkeypatch, case):
    method, body, who, expected = CASES[case]
    keys = await keys_of(demo, other_keys)
    headers = {
        "full": demo.headers(),
        "flagged": demo.headers(*ALL_FLAGS),
        "none": {},
        "plain": {"API-Key": keys.get("plain", ""), "Experimental-Flags": ", ".join(ALL_FLAGS)},
        "scoped": {"API-Key": keys.get("scoped", "")},
    }[who]
    status, _, payload, calls, _ = await both_paths(demo, method, body, headers, monkeypatch)
    assert status == expected, payload  # GraphQL errors are 200s; a request strawberry
    # refuses to read (an unknown operation name, a mutation over GET) is 422
    if case == "a query":
        assert len(payload["data"]["units"]["data"]) == 5 and calls


async def test_generated_documents_answer_alike_on_both_paths(demo, monkeypatch):
    cases = await generated_cases(demo, strawberry_schema_of(demo.app), 60)
    answered_with_data = 0
    for query, variables in cases:
        _, _, payload, _, _ = await both_paths(
            demo,
            "POST",
            {"query": query, "variables": variables},
            demo.headers(*ALL_FLAGS),
            monkeypatch,
        )
        answered_with_data += bool(payload.get("data"))
    assert answered_with_data > 20  # most generated documents reached data


async def test_the_direct_path_is_taken(demo, monkeypatch):
    """The cases above would pass vacuously if every request went to strawberry."""
    taken: list[str] = []
    real = DocumentOperation.execute

    async def counting(self: Any) -> Any:
        taken.append("direct")
        return await real(self)

    monkeypatch.setattr(DocumentOperation, "execute", counting)
    demo.store.cache.flush()
    response = await demo.client.post(
        "/graphql", json={"query": UNITS, "variables": {"n": 2}}, headers=demo.headers()
    )
    assert response.status_code == 200 and taken == ["direct"]
    syntax = await demo.client.post("/graphql", json={"query": "{"}, headers=demo.headers())
    assert syntax.json()["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    assert taken == ["direct"]  # a document that does not parse is strawberry's
