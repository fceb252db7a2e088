"""JSON request bodies of REST routes: `{"data": ...}` into one GraphQL variable.

REST clients write the spec's snake_case; GraphQL input fields are camelCase. A body
that does not fit the variable's GraphQL input type fails the execution's variable
coercion before any resolver runs; `input_problems` then names every problem once, in
REST words and at its REST place (`data.3.unit_id`). A body that fits is coerced once.
"""

from __future__ import annotations

import re
from typing import Any, cast

import orjson
from graphql import GraphQLError, GraphQLInputType, GraphQLSchema, Undefined
from graphql.language import parse_type
from graphql.utilities import coerce_input_value, type_from_ast, validate_input_value
from starlette.requests import Request

from resolvers.errors import invalid
from resolvers.limits import JSON_ON_LOOP_BYTES, MAX_INPUT_ITEMS
from resolvers.validation import oversized_lists
from rest.v1.bodies import read_body_bytes
from rest.v1.names import SameField, camelized, rest_name
from rest.v1.routes.rows import Body
from storage.cpu import run_cpu
from storage.settings import Settings

SCALAR_WORDS = {
    "ID": "must be a string",
    "String": "must be a string",
    "Int": "must be an integer",
    "Float": "must be a number",
    "Boolean": "must be true or false",
}
REQUIRED = re.compile(r"to include required field '(\w+)'")
UNKNOWN = re.compile(r"not to include unknown field '(\w+)'")
SCALAR = re.compile(r"^(\w+) cannot represent")


async def read_json_body(body: Body, request: Request, settings: Settings) -> Any:
    """The body's `data` member, camelized; 415 for another media type, 413 over the
    limit, 422 for JSON that does not parse, is not `{"data": ...}`, or has too many
    items (the route's counts, any list over MAX_INPUT_ITEMS). A body over
    JSON_ON_LOOP_BYTES is read on the CPU pool: its parse and walks (seconds for 15 MB of
    small nested lists) would hold the event loop and every other request."""
    data, _ = await read_body_bytes(body, request, settings)
    if len(data) > JSON_ON_LOOP_BYTES:
        return await run_cpu(decoded_body, body, data)
    return decoded_body(body, data)


def decoded_body(body: Body, data: bytes | bytearray) -> Any:
    """`read_json_body`'s work on the bytes, wherever it runs."""
    try:
        document = orjson.loads(data)
    except orjson.JSONDecodeError as error:
        raise invalid({"body": [f"is not valid JSON: {error}"]}) from None
    member = body.name
    if not isinstance(document, dict) or member not in document:
        raise invalid({"body": [f'must be a JSON object with a "{member}" member']})
    extra = sorted(set(document) - {member})
    if extra:
        raise invalid({"body": [f"unknown member {name!r}" for name in extra]})
    value = document[member]
    # Counts before anything walks the items: a huge list costs nothing to refuse.
    counts = body.counts(value) if body.counts else []
    if counts:
        raise invalid({f"{member}.{body.counted}" if body.counted else member: counts})
    oversized = oversized_lists(value, MAX_INPUT_ITEMS, member)
    if oversized:
        raise invalid(
            {where: [f"must have at most {MAX_INPUT_ITEMS} items"] for where in oversized}
        )
    try:
        return camelized(value)
    except SameField as error:
        raise invalid({"body": [str(error)]}) from None


def body_variables(body: Body, value: Any) -> dict[str, Any]:
    """The GraphQL variables a read body fills: its one variable, or, for a body of
    members, one per member (422 for anything else)."""
    if not body.members:
        return {body.variable: value}
    if not isinstance(value, dict):
        raise invalid({body.name: ["must be an object"]})
    known = {member.variable for member in body.members}
    unknown = sorted(set(value) - known)
    if unknown:
        raise invalid(
            {f"{body.name}.{rest_name(name)}": ["is not a known field"] for name in unknown}
        )
    return value


def body_problems(
    schema: GraphQLSchema, body: Body, variables: dict[str, Any]
) -> dict[str, list[str]]:
    """Every way the variables a JSON body filled do not fit their GraphQL types, keyed
    by REST place: the body's one variable, or each member (`data.from.id`; a required
    member left out `is required`)."""
    if not body.members:
        return input_problems(schema, body.graphql_type, variables[body.variable], body.name)
    problems: dict[str, list[str]] = {}
    for member in body.members:
        place = f"{body.name}.{member.name}"
        if member.variable in variables:
            problems.update(
                input_problems(schema, member.graphql_type, variables[member.variable], place)
            )
        elif member.graphql_type.endswith("!"):
            problems[place] = ["is required"]
    return problems


def input_problems(
    schema: GraphQLSchema, graphql_type: str, value: Any, name: str
) -> dict[str, list[str]]:
    """Every way `value` does not fit the GraphQL input type, keyed by its REST place.

    A value that coerces has none: graphql-core's coercion is about twice as fast as
    its validation (0.25 against 0.5 ms for 50 waypoints), so the validation runs, as
    graphql-core does for variables, only to name the problems of a value that does not.
    """
    # a route's body type: GraphQL validation holds a variable's type to an input type
    input_type = cast("GraphQLInputType | None", type_from_ast(schema, parse_type(graphql_type)))
    assert input_type is not None, f"unknown GraphQL type {graphql_type}"
    if coerce_input_value(value, input_type) is not Undefined:
        return {}
    fields: dict[str, list[str]] = {}

    def on_error(error: GraphQLError, path: list[str | int]) -> None:
        message = error.message
        place = [name, *(str(part) for part in path)]
        if found := REQUIRED.search(message):
            place.append(found.group(1))
            message = "is required"
        elif found := UNKNOWN.search(message):
            place.append(found.group(1))
            message = "is not a known field"
        elif "not to be None" in message:
            message = "must not be null"
        elif "to be an object" in message:
            message = "must be an object"
        elif (found := SCALAR.match(message)) and found.group(1) in SCALAR_WORDS:
            message = SCALAR_WORDS[found.group(1)]
        fields.setdefault(rest_name(".".join(place)), []).append(message)

    validate_input_value(value, input_type, on_error, hide_suggestions=True)
    return fields
