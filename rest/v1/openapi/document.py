"""The OpenAPI 3.1 document of /v1, generated from the route table that serves requests.

Paths, parameters, bodies and the access each route needs come from `rest.v1.routes`
(and the permission classes of its GraphQL field); schemas from the GraphQL schema
through the route's persisted document (`rest.v1.openapi.schemas`); error responses
from `resolvers.errors`; examples from `openapi_examples.json`, the demo property's
answers to each row's example request, recorded and checked by the tests. A route
cannot exist without its description.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

from graphql import (
    FragmentDefinitionNode,
    GraphQLInputType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLSchema,
    get_named_type,
)
from graphql import OperationDefinitionNode as Operation
from graphql.language import parse_type
from graphql.utilities import type_from_ast

from resolvers.errors import ERRORS, ErrorCode
from resolvers.language import ACCEPT_LANGUAGE
from resolvers.limits import (
    MAX_ACCEPT_LANGUAGE_BYTES,
    MAX_PER_PAGE,
    MAX_TARGET_BYTES,
)
from rest.etags import REVALIDATE, TILE_WITH_HEADER_KEY, TILE_WITH_QUERY_KEY
from rest.language import LANGUAGE_HEADERS, LANGUAGE_PARAMETERS
from rest.limits.prices import PRICED_FIELDS, ceiling_words
from rest.v1.event_stream import EVENT_SCHEMA, EVENTS_DOC, EVENTS_EXAMPLE
from rest.v1.openapi.schemas import ID_SCHEMA, Schema, SelectionSchemas, input_schema, nullable
from rest.v1.openapi.vocabulary import (
    ERROR_RESPONSES,
    LOCATION_TAGS_DOC,
    PARAMETER_DOCS,
    RETRY_AFTER,
    SEARCH_PER_PAGE,
    TAGS,
)
from rest.v1.routes import ROUTES
from rest.v1.routes.rows import MARKET, Body, Param, RestRoute, Shape
from schema.permissions import Requirement
from storage.settings import Settings

API_VERSION = "v1"
RELEASE_DATE = "2026-11-23"  # the spec's `VERSION.RELEASE-DATE` label; bump on release


def as_yaml(document: dict[str, Any]) -> bytes:
    """The document in YAML (PyYAML is imported here, on the first request for it: 18 ms
    of every start otherwise). A shared schema is written out at each place instead of
    as `&id001`/`*id001` anchors, which some OpenAPI tools do not follow."""
    import yaml

    safe_dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)  # libyaml when there

    class YamlDumper(safe_dumper):  # type: ignore[misc,valid-type]  # chosen at run time
        def ignore_aliases(self, data: Any) -> bool:
            return True

    # PyYAML has no type information: without a stream, `dump` returns the text.
    text: str = yaml.dump(document, Dumper=YamlDumper, sort_keys=False, allow_unicode=True)
    return text.encode()


EXAMPLES_FILE = Path(__file__).with_name("examples.json")
ROUTE_BY_ID = {route.operation_id: route for route in ROUTES}
FLAGS_HEADER = "Experimental-Flags"

ERROR_SCHEMA: Schema = {
    "type": "object",
    "required": ["message"],
    "properties": {
        "message": {"type": "string"},
        "fields": {
            "type": "object",
            "description": "422 only: input name to its problems.",
            "additionalProperties": {"type": "array", "items": {"type": "string"}},
        },
    },
}
PAGING_SCHEMA: Schema = {
    "type": "object",
    "required": ["per_page", "current_page", "prev_url", "next_url"],
    "properties": {
        "per_page": {"type": "integer", "minimum": 1, "maximum": MAX_PER_PAGE},
        "current_page": {"type": "integer", "minimum": 1},
        "prev_url": nullable({"type": "string", "format": "uri"}),
        "next_url": nullable({"type": "string", "format": "uri"}),
        "total_count": {
            "type": "integer",
            "minimum": 0,
            "description": "Items in the whole list; present only when known "
            "without another scan of it (docs/api.md, Paging).",
        },
    },
}


def load_examples() -> dict[str, dict[str, Any]]:
    """Recorded examples by operation id (`tests/rest/v1/openapi/test_document.py` records and
    checks them)."""
    if not EXAMPLES_FILE.exists():
        return {}
    examples: dict[str, dict[str, Any]] = json.loads(EXAMPLES_FILE.read_text(encoding="utf-8"))
    return examples


class DocumentBuilder:
    def __init__(
        self,
        schema: GraphQLSchema,
        requirements: dict[str, Requirement],
        settings: Settings,
        examples: dict[str, dict[str, Any]],
    ) -> None:
        self.schema = schema
        self.requirements = requirements
        self.settings = settings
        self.examples = examples
        self.components: dict[str, Schema] = {"Error": ERROR_SCHEMA, "Paging": PAGING_SCHEMA}

    def document(self) -> dict[str, Any]:
        paths: dict[str, dict[str, Any]] = {}
        for route in ROUTES:
            paths.setdefault(route.path, {})[route.method.lower()] = self.operation(route)
        return {
            "openapi": "3.1.0",
            "info": {
                "title": "floorgate",
                "version": f"{API_VERSION}.{RELEASE_DATE}",
                "description": "Buildings, floors, units and interactive floor-plan maps; "
                "unit-map SVG parsing; distances on foot or by wheelchair. Every request "
                "needs an API key (`API-Key` header, or the `api-key` query parameter). "
                "Experimental resources also need their name in the `Experimental-Flags` "
                "header. Errors are JSON `{message}`; 422 adds `fields`. "
                + ceiling_words(self.settings.graphql_max_cost),
            },
            "servers": [{"url": self.settings.public_url, "description": "this service"}],
            "security": [{"ApiKeyHeader": []}, {"ApiKeyQuery": []}],
            "tags": [{"name": name} for name in dict.fromkeys(self.tag(route) for route in ROUTES)],
            "paths": paths,
            "components": {
                "schemas": self.components,
                "responses": self.error_responses(),
                "securitySchemes": {
                    "ApiKeyHeader": {"type": "apiKey", "in": "header", "name": "API-Key"},
                    "ApiKeyQuery": {
                        "type": "apiKey",
                        "in": "query",
                        "name": "api-key",
                        "description": "Prefer the header: query strings are "
                        "kept in browser history and server logs.",
                    },
                },
            },
        }

    def tag(self, route: RestRoute) -> str:
        if route.alias_of is not None:
            return TAGS["vendor"]
        flag = self.requirements[route.operation_id][1]
        return TAGS[flag] if flag else TAGS[route.segments[1]]

    def operation(self, route: RestRoute) -> dict[str, Any]:
        permission, flag = self.requirements[route.operation_id]
        example = self.examples.get(route.operation_id, {})
        notes = []
        if route.alias_of is not None:
            flat = ROUTE_BY_ID[route.alias_of]
            notes.append(
                f"Alias of `{flat.operation_id}` (`{flat.method} {flat.path}`), as "
                "clients of the vendor's API call it: the same answer, for the asset "
                "of the path. Not found unless `market` is that asset's market."
            )
        if flag:
            notes.append(f"Experimental: needs `{flag}` in the `{FLAGS_HEADER}` header.")
        if permission:
            notes.append(f"Needs the permission `{permission}`.")
        if route.graphql_field in PRICED_FIELDS:
            notes.append(PRICED_FIELDS[route.graphql_field])
        operation: dict[str, Any] = {
            "operationId": route.operation_id,
            "summary": route.summary,
            "tags": [self.tag(route)],
            "parameters": self.parameters(route, flag, example.get("parameters", {})),
            "responses": self.responses(route, flag, example),
        }
        if notes:
            operation["description"] = " ".join(notes)
        if route.body is not None:
            operation["requestBody"] = self.request_body(route, example)
        return operation

    def parameters(
        self, route: RestRoute, flag: str | None, examples: dict[str, Any]
    ) -> list[dict[str, Any]]:
        parameters = [self.parameter(route, param) for param in route.params]
        events = route.shape is Shape.EVENTS
        if flag:
            parameters.append(
                {
                    "name": FLAGS_HEADER,
                    "in": "header",
                    "required": not events,  # or its query form, below
                    "description": "Comma-separated names of experimental features.",
                    "schema": {"type": "string"},
                    "example": flag,
                }
            )
        if flag and events:
            parameters.append(
                {
                    "name": "experimental-flags",
                    "in": "query",
                    "required": False,
                    "description": f"The `{FLAGS_HEADER}` header's value, for a browser's "
                    "`EventSource`, which sends no header (the key then goes in `api-key`).",
                    "schema": {"type": "string"},
                }
            )
        if events:
            parameters.append(
                {
                    "name": "Last-Event-ID",
                    "in": "header",
                    "required": False,
                    "description": "The last event's `id`: resume after it (a browser's "
                    "`EventSource` sends it when it reconnects).",
                    "schema": PARAMETER_DOCS["after"][1],
                }
            )
        if not events and route.shape is not Shape.TILE:  # docs/api.md, "Languages"
            parameters += LANGUAGE_PARAMETERS
        if not events and route.method == "GET":
            parameters.append(
                {
                    "name": "If-None-Match",
                    "in": "header",
                    "required": False,
                    "description": "The `ETag` of an earlier answer (or a list of them, weak or "
                    "strong, or `*`): 304 if the answer would be the same.",
                    "schema": {"type": "string"},
                }
            )
        for parameter in parameters:
            if parameter["name"] in examples:
                parameter["example"] = examples[parameter["name"]]
        return parameters

    def parameter(self, route: RestRoute, param: Param) -> dict[str, Any]:
        if param is MARKET:
            description = "The asset's market (its `market` field, such as `multifamily`)."
            schema = ID_SCHEMA
        elif param.location == "path":
            description = "Id (any characters, percent-encoded)."
            schema = ID_SCHEMA
        else:
            description, schema = PARAMETER_DOCS[param.name]
            if param.name == "tags" and route.shape is Shape.VERSIONED:
                description = LOCATION_TAGS_DOC
            if param.name == "per-page" and route.graphql_field == "search":
                description, schema = SEARCH_PER_PAGE
        return {
            "name": param.name,
            "in": param.location,
            "required": param.required,
            "description": description,
            "schema": schema,
        }

    def request_body(self, route: RestRoute, example: dict[str, Any]) -> dict[str, Any]:
        body = route.body
        assert body is not None
        if body.json:
            schema: Schema = {
                "type": "object",
                "required": [body.name],
                "properties": {body.name: self.json_schema(body, route)},
            }
            content = {"application/json": {"schema": schema}}
        else:
            limit = body.max_bytes(self.settings) if body.max_bytes else None
            text: Schema = {"type": "string"}
            if limit:
                text["description"] = f"At most {limit} bytes."
            content = {media: {"schema": text} for media in body.media_types}
        if "body" in example:
            content[body.media_types[0]]["example"] = example["body"]
        return {"required": True, "content": content}

    def json_schema(self, body: Body, route: RestRoute) -> Schema:
        """The `data` member: the variable's input type, or an object of the members',
        each described as the root field's argument it fills."""
        if not body.members:
            return self.input_type_schema(body.graphql_type)
        root = getattr(self.schema, f"{route.operation}_type")  # the route's root type
        field = root.fields.get(route.graphql_field) if root is not None else None
        properties = {}
        for member in body.members:
            schema = self.input_type_schema(member.graphql_type)
            argument = field.args.get(member.variable) if field is not None else None
            if argument is not None and argument.description:
                schema = {**schema, "description": argument.description}
            properties[member.name] = schema
        required = [m.name for m in body.members if m.graphql_type.endswith("!")]
        return {"type": "object", "properties": properties, "required": required}

    def input_type_schema(self, graphql_type: str) -> Schema:
        kind = type_from_ast(self.schema, parse_type(graphql_type))
        assert kind is not None, f"unknown GraphQL type {graphql_type}"
        # a variable's type, which GraphQL validation holds to an input type
        return input_schema(cast(GraphQLInputType, kind))

    def responses(
        self, route: RestRoute, flag: str | None, example: dict[str, Any]
    ) -> dict[str, Any]:
        responses: dict[str, Any] = {}
        if route.shape is Shape.NO_CONTENT:
            responses["204"] = {"description": "Done."}
        elif route.shape is Shape.EVENTS:
            stream = {"schema": EVENT_SCHEMA, "example": EVENTS_EXAMPLE}
            responses["200"] = {"description": EVENTS_DOC, "content": {route.media_type: stream}}
        else:
            content: dict[str, Any] = {"schema": self.body_schema(route)}
            if route.shape is Shape.TILE:
                content = {"schema": {"type": "string", "format": "binary"}}
            if "response" in example:
                content["example"] = example["response"]
            ok: dict[str, Any] = {"description": "OK", "content": {route.media_type: content}}
            responses["200"] = ok
            language = LANGUAGE_HEADERS if route.shape is not Shape.TILE else {}
            ok["headers"] = dict(language)
            if route.method == "GET":  # every GET revalidates (docs/api.md, Conditional GETs)
                ok["headers"].update(self.revalidation_headers(route))
                responses["304"] = {
                    "description": "Not modified since the `If-None-Match` tag; no body.",
                    "headers": {**language, **self.revalidation_headers(route)},
                }
        for status in self.error_statuses(route, flag):
            responses[status] = {"$ref": f"#/components/responses/{status}"}
        return responses

    @staticmethod
    def revalidation_headers(route: RestRoute) -> dict[str, Any]:
        """`ETag` and `Cache-Control` of a GET's 200 and 304 (docs/api.md, Conditional GETs)."""
        changes = (
            "A hash of the map document and of exactly the locations returned."
            if route.shape is Shape.VERSIONED
            else "A hash of the asset's data version and the tile's address."
            if route.shape is Shape.TILE
            else "A hash of the exact body: the same in every process, new when the body changes."
        )
        caching: dict[str, Any] = {
            "description": "Always `private, no-cache`: keep, but revalidate.",
            "schema": {"type": "string", "const": REVALIDATE},
        }
        if route.shape is Shape.TILE:
            caching = {
                "description": "`public, max-age=300, s-maxage=600` when the key came in "
                "the query only, else `private, max-age=300` (docs/tiles.md).",
                "schema": {"type": "string", "enum": [TILE_WITH_QUERY_KEY, TILE_WITH_HEADER_KEY]},
            }
        return {
            "ETag": {
                "description": f"Strong entity tag, quoted. {changes}",
                "schema": {"type": "string"},
            },
            "Cache-Control": caching,
        }

    def error_statuses(self, route: RestRoute, flag: str | None) -> list[str]:
        """Every status the route can answer besides success, the HTTP layer's included
        (docs/limits.md): a client and a conformance check may meet any of them."""
        statuses = ["400", "401", "403"]
        if flag or any(param.location == "path" for param in route.params):
            statuses.append("404")
        if route.body is not None:
            statuses += ["413", "415"]
        statuses.append("414")
        if route.shape is Shape.EVENTS:
            statuses.append("410")
        if route.params or route.body is not None:
            statuses.append("422")
        return [*statuses, "429", "431", "500", "503"]

    def error_responses(self) -> dict[str, Any]:
        responses = {}
        for status, (description, codes) in ERROR_RESPONSES.items():
            examples: dict[str, dict[str, dict[str, Any]]] = {
                code.value: {"value": {"message": self.message_of(code)}} for code in codes
            }
            if status == "422":
                examples[codes[0].value]["value"]["fields"] = {"per-page": ["must be an integer"]}
            response: dict[str, Any] = {
                "description": description,
                "content": {
                    "application/json": {
                        "schema": {"$ref": "#/components/schemas/Error"},
                        "examples": examples,
                    }
                },
            }
            if status in ("429", "503"):
                response["headers"] = RETRY_AFTER
            responses[status] = response
        return responses

    def message_of(self, code: ErrorCode) -> str:
        """The message as a client reads it, the limit a 414 or 431 names filled in."""
        limits = {
            ErrorCode.URI_TOO_LONG: MAX_TARGET_BYTES,
            ErrorCode.HEADERS_TOO_LARGE: self.settings.max_header_bytes,
            ErrorCode.TOO_MANY_SUBSCRIPTIONS: self.settings.max_subscriptions_per_key,
            ErrorCode.HEADER_TOO_LARGE: MAX_ACCEPT_LANGUAGE_BYTES,
        }
        message = ERRORS[code].message
        if code is ErrorCode.COST_LIMIT:  # the price of 25 stops to 500 candidates, say
            return message.format(cost=293799, limit=self.settings.graphql_max_cost)
        if code not in limits:
            return message
        return message.format(limit=limits[code], header=ACCEPT_LANGUAGE)

    def body_schema(self, route: RestRoute) -> Schema:
        """The 200 body: the route's selection in the route's envelope."""
        (operation, *fragments) = route.parsed.definitions
        assert isinstance(operation, Operation)
        named = {f.name.value: f for f in fragments if isinstance(f, FragmentDefinitionNode)}
        selections = SelectionSchemas(self.schema, operation, named)
        kind, selection = selections.result()
        if route.shape in (Shape.PAGED, Shape.VERSIONED):
            kind, selection = selections.member(kind, selection, "data")  # inside the envelope
        item = self.item_schema(selections, kind, selection)
        if route.shape is Shape.PAGED:
            return {
                "type": "object",
                "required": ["paging", "data"],
                "properties": {"paging": {"$ref": "#/components/schemas/Paging"}, "data": item},
            }
        if route.shape in (Shape.DATA, Shape.VERSIONED):
            return {"type": "object", "required": ["data"], "properties": {"data": item}}
        return item

    def item_schema(self, selections: SelectionSchemas, kind: Any, selection: Any) -> Schema:
        """The schema of a result, its fragment's object named in components."""
        if selection is None:
            return {
                "type": "object",
                "description": "The parsed document (see the "
                "unit-map conventions): version, type, width, height, elements.",
            }
        fragment = selections.fragment_name(selection)
        if fragment is None:
            return selections.of(kind, selection)
        name = fragment.removesuffix("Fields")
        self.components[name] = selections.object(get_named_type(kind), selection)
        reference = {"$ref": f"#/components/schemas/{name}"}
        return _wrap(kind, reference)


def _wrap(kind: Any, reference: Schema) -> Schema:
    """`reference` inside the lists and nullability of `kind`."""
    if isinstance(kind, GraphQLNonNull):
        return _wrap_non_null(kind.of_type, reference)
    return nullable(_wrap_non_null(kind, reference))


def _wrap_non_null(kind: Any, reference: Schema) -> Schema:
    if isinstance(kind, GraphQLList):
        return {"type": "array", "items": _wrap(kind.of_type, reference)}
    return reference


def openapi_document(
    schema: GraphQLSchema, requirements: dict[str, Requirement], settings: Settings
) -> dict[str, Any]:
    return DocumentBuilder(schema, requirements, settings, load_examples()).document()
