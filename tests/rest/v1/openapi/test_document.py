"""The OpenAPI document: it describes exactly the served routes, it is valid OpenAPI 3.1,
and each operation's example is what the demo property answers to its row's `example`
request (`rest/v1/routes/`).

`FLOORGATE_RECORD_EXAMPLES=1 pytest tests/rest/v1/openapi/test_document.py` records the
examples anew into `rest/v1/openapi/examples.json` (after a change to the demo or to a
response); `make generate` does, and writes the document that embeds them.
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import jsonschema
import pytest
import yaml
from openapi_spec_validator import validate as validate_openapi

from rest.v1.openapi.document import EXAMPLES_FILE, FLAGS_HEADER, RELEASE_DATE
from rest.v1.routes import ROUTES
from rest.v1.routes.rows import Example, RestRoute, Shape
from rest.v1.routes.writes import ASSIGNMENT
from schema.build import build_schema
from schema.execution.running.route_documents import requirement_of
from storage.settings import Settings
from tests.streams import event_stream

RECORD = os.environ.get("FLOORGATE_RECORD_EXAMPLES") == "1"
SCHEMA = build_schema(Settings())._schema
REQUIREMENTS = {route.operation_id: requirement_of(SCHEMA, route) for route in ROUTES}
RESTORE = {"data": [{**ASSIGNMENT, "attribute_id": "view-city"}]}


def url_of(route: RestRoute, example: Example) -> str:
    path = route.path
    for name, value in example.path.items():
        path = path.replace(f"{{{name}}}", quote(value, safe=""))
    return path


def inlined(document: dict[str, Any], node: Any) -> Any:
    """`node` with every local `$ref` replaced by what it points to."""
    if isinstance(node, dict):
        if "$ref" in node:
            target: Any = document
            for part in node["$ref"].removeprefix("#/").split("/"):
                target = target[part]
            return inlined(document, target)
        return {key: inlined(document, value) for key, value in node.items()}
    if isinstance(node, list):
        return [inlined(document, item) for item in node]
    return node


@pytest.fixture(scope="module")
async def document(demo) -> dict[str, Any]:
    response = await demo.client.get("/v1/openapi.json")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    return response.json()


async def test_yaml_is_the_same_document(demo, document):
    response = await demo.client.get("/v1/openapi.yaml")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/yaml"
    assert yaml.safe_load(response.text) == document
    assert "&id0" not in response.text and "*id0" not in response.text  # no YAML aliases


async def test_no_key_needed(demo):
    for path in ("/v1/openapi.json", "/v1/openapi.yaml"):
        response = await demo.client.get(path)
        assert response.status_code == 200, path


def test_valid_openapi_3_1(document):
    validate_openapi(copy.deepcopy(document))
    assert document["openapi"] == "3.1.0"
    assert document["info"]["version"] == f"v1.{RELEASE_DATE}"
    assert document["servers"] == [{"url": "https://localhost:8443", "description": "this service"}]


def test_every_route_and_nothing_else(document):
    """The table serves the requests, so the document cannot drift from what is served."""
    described = {
        (method.upper(), path, operation["operationId"])
        for path, item in document["paths"].items()
        for method, operation in item.items()
    }
    assert described == {(r.method, r.path, r.operation_id) for r in ROUTES}
    assert len({operation_id for _, _, operation_id in described}) == len(ROUTES)


@pytest.mark.parametrize("route", ROUTES, ids=lambda route: route.operation_id)
def test_parameters_are_the_routes(document, route):
    operation = document["paths"][route.path][route.method.lower()]
    names = [(p["name"], p["in"], p["required"]) for p in operation["parameters"]]
    expected = [(p.name, p.location, p.required) for p in route.params]
    permission, flag = REQUIREMENTS[route.operation_id]
    if flag:
        expected.append((FLAGS_HEADER, "header", route.shape is not Shape.EVENTS))
        assert f"`{flag}`" in operation["description"]
    if permission:
        assert f"`{permission}`" in operation["description"]
    if route.shape is Shape.EVENTS:  # a stream resumes; it is never revalidated
        expected.append(("experimental-flags", "query", False))  # for EventSource
        expected.append(("Last-Event-ID", "header", False))
        assert "304" not in operation["responses"]
        assert "410" in operation["responses"]
    elif route.shape is not Shape.TILE:  # every answer but a tile says its language
        expected += [("lang", "query", False), ("Accept-Language", "header", False)]
    language = {"Content-Language", "Vary"} if route.shape is not Shape.TILE else set()
    if route.shape is Shape.EVENTS:
        pass
    elif route.method == "GET":  # every GET revalidates (docs/api.md, Conditional GETs)
        expected.append(("If-None-Match", "header", False))
        headers = language | {"ETag", "Cache-Control"}
        assert set(operation["responses"]["304"]["headers"]) == headers
        assert set(operation["responses"]["200"]["headers"]) == headers
    else:
        assert "304" not in operation["responses"]
        assert set(operation["responses"].get("200", {}).get("headers", language)) == language
    assert names == expected
    assert ("requestBody" in operation) == (route.body is not None)
    assert document["security"] == [{"ApiKeyHeader": []}, {"ApiKeyQuery": []}]


def test_limits_and_security_schemes(document):
    parameters = {
        p["name"]: p["schema"]
        for item in document["paths"].values()
        for operation in item.values()
        for p in operation["parameters"]
    }
    assert parameters["per-page"]["maximum"] == 10000
    assert parameters["key"] == {
        "type": "string",
        "maxLength": 255,
        "pattern": "^[a-z]{1}[a-z0-9-]{1,254}$",
    }
    assert parameters["tags"]["maxLength"] == 255
    assert parameters["unitMapId"]["maxLength"] == 255
    assert document["components"]["securitySchemes"] == {
        "ApiKeyHeader": {"type": "apiKey", "in": "header", "name": "API-Key"},
        "ApiKeyQuery": {
            "type": "apiKey",
            "in": "query",
            "name": "api-key",
            "description": "Prefer the header: query strings are kept in "
            "browser history and server logs.",
        },
    }
    parse = document["paths"]["/v1/maps/parse"]["post"]["requestBody"]["content"]
    assert list(parse) == ["application/vnd.map+xml", "image/svg+xml"]
    errors = document["components"]["responses"]
    assert errors["401"]["content"]["application/json"]["examples"] == {
        "UNAUTHENTICATED": {"value": {"message": "No API key found in request"}}
    }


async def test_examples_are_what_the_demo_answers(demo, document):
    """Each example, sent to the demo, gets exactly the recorded answer, and that
    answer fits the documented schema."""
    recorded = {} if RECORD else json.loads(EXAMPLES_FILE.read_text(encoding="utf-8"))
    answers: dict[str, dict[str, Any]] = {}
    try:
        for route in ROUTES:
            answers[route.operation_id] = await answer(demo, document, route)
    finally:
        restored = await demo.client.put(
            "/v1/units/attribute-groups/view/units",
            json=RESTORE,
            headers=demo.headers("unit-attributes-resource"),
        )
        assert restored.status_code == 200
    if RECORD:
        EXAMPLES_FILE.write_text(
            json.dumps(answers, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        pytest.skip("examples recorded; run again to check them")
    for operation_id, answer_ in answers.items():
        assert answer_ == recorded[operation_id], operation_id
        operation = find_operation(document, operation_id)
        if "response" in answer_:
            content = next(iter(operation["responses"]["200"]["content"].values()))
            assert content["example"] == answer_["response"]


async def answer(demo, document: dict[str, Any], route: RestRoute) -> dict[str, Any]:
    example = route.example  # its row's (a vendor path's: its flat route's, under the market)
    flag = REQUIREMENTS[route.operation_id][1]
    headers = demo.headers(*([flag] if flag else []))
    parameters: dict[str, Any] = {**example.path, **example.query}
    if flag:
        parameters[FLAGS_HEADER] = flag
    if route.shape is Shape.EVENTS:
        await stream_opens(demo, url_of(route, example), example.query, headers)
        return {"parameters": parameters}
    kwargs: dict[str, Any] = {"params": example.query, "headers": headers}
    if route.body is not None and route.body.json:
        kwargs["json"] = example.body
    elif route.body is not None:
        kwargs["content"] = example.body.encode()
        headers["Content-Type"] = route.body.media_types[0]
    response = await demo.client.request(route.method, url_of(route, example), **kwargs)
    expected_status = 204 if route.shape is Shape.NO_CONTENT else 200
    assert response.status_code == expected_status, (route.operation_id, response.text)
    result: dict[str, Any] = {"parameters": parameters}
    if example.body is not None:
        result["body"] = example.body
    if route.shape is Shape.TILE:  # bytes, not JSON: the example is its request alone
        assert response.headers["content-type"] == route.media_type
        return result
    if expected_status == 200:
        body = response.json()
        operation = document["paths"][route.path][route.method.lower()]
        schema = inlined(document, operation["responses"]["200"]["content"][route.media_type])
        jsonschema.validate(body, schema["schema"])
        result["response"] = body
    return result


async def stream_opens(demo, url: str, query: dict[str, Any], headers: dict[str, str]) -> None:
    """An event stream's example opens it (its events are the document's own example,
    checked against a real stream in tests/rest/v1/test_event_stream.py)."""
    path = f"{url}?{urlencode(query)}"
    async with event_stream(demo.app, path, headers) as stream:
        assert (stream.status, await stream.event()) == (200, b"retry: 2000")
        assert stream.headers["content-type"] == "text/event-stream; charset=utf-8"


def find_operation(document: dict[str, Any], operation_id: str) -> dict[str, Any]:
    for item in document["paths"].values():
        for operation in item.values():
            if operation["operationId"] == operation_id:
                return operation
    raise AssertionError(operation_id)


def test_parameter_and_body_examples_are_in_the_document(document):
    recorded = json.loads(EXAMPLES_FILE.read_text(encoding="utf-8"))
    for route in ROUTES:
        operation = document["paths"][route.path][route.method.lower()]
        example = recorded[route.operation_id]
        shown = {p["name"]: p["example"] for p in operation["parameters"] if "example" in p}
        assert shown == example["parameters"], route.operation_id
        if route.body is not None:
            content = operation["requestBody"]["content"][route.body.media_types[0]]
            assert content["example"] == example["body"], route.operation_id


def test_unit_map_url_is_an_optional_string(document):
    """The spec types `url` as a string "present in some responses": left out, not null."""
    schema = document["components"]["schemas"]["UnitMap"]
    assert schema["properties"]["url"]["type"] == "string"
    assert "url" not in schema["required"]
    assert "geojson_url" in schema["required"]
    for operation_id in ("getUnitMap", "listUnitMaps"):
        content = find_operation(document, operation_id)["responses"]["200"]["content"]
        assert "#/components/schemas/UnitMap" in json.dumps(content), operation_id


COMMITTED_OPENAPI = Path(__file__).parents[4] / "docs" / "openapi.json"


async def test_the_committed_openapi_document_is_current(demo):
    """docs/openapi.json is the served document byte for byte: a restructuring of the
    code must not change it (`make generate` writes it after a deliberate change)."""
    served = (await demo.client.get("/v1/openapi.json")).content
    assert COMMITTED_OPENAPI.read_bytes() == served, (
        "docs/openapi.json is not the served document: run `make generate`"
    )
