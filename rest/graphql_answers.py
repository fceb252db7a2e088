"""Whole answers of /graphql queries, kept as REST GETs' are (docs/api.md, "Read cache").

A query's answer depends on its document, operation name and variables, on who asks
(permissions, assets, flags) and on what it read. It is kept under the first four, with
the versions of the collections it read, and served while those hold. Before a kept
answer is served, the key has been looked up (`GraphQLView.refusal`), the root fields'
access is checked again and the operation's cost is charged, as on its first run; only
parsing, validation, execution and encoding are skipped. Anything that is not plainly
one query in a JSON POST or a GET (a batch, a malformed body, a mutation) runs as before.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from hashlib import blake2b
from typing import Any

import orjson
from graphql import DocumentNode, GraphQLError, GraphQLSchema, OperationType, get_operation_ast
from starlette.requests import Request

from resolvers.access import authorize
from resolvers.context import RequestContext
from schema.guard import DocumentCaches, root_requirements


@dataclass(frozen=True)
class Query:
    """One query operation of a request, parsed, and the key of its answer."""

    document: DocumentNode
    operation_name: str | None
    key: Hashable


def operation_params(request: Request, body: bytes | None) -> dict[str, Any] | None:
    """`query`, `variables` and `operationName` of a GET or of a JSON POST's body, when
    the request is plainly one operation; else None (strawberry then reads it as before)."""
    if request.method == "GET":
        params: dict[str, Any] = dict(request.query_params)
        raw = params.get("variables")
        try:
            params["variables"] = orjson.loads(raw) if raw else None
        except orjson.JSONDecodeError:
            return None
    else:
        if body is None or request.headers.get("content-type", "").split(";")[0].strip() != (
            "application/json"
        ):
            return None
        try:
            params = orjson.loads(body)
        except orjson.JSONDecodeError:
            return None
    if not isinstance(params, dict):
        return None
    query, variables, name = (params.get(k) for k in ("query", "variables", "operationName"))
    if not isinstance(query, str) or not isinstance(name, str | None):
        return None
    if not isinstance(variables, dict | None):
        return None
    return {"query": query, "variables": variables, "operationName": name}


async def query_of(
    request: Request, context: RequestContext, caches: DocumentCaches
) -> Query | None:
    """The request's query and its answer's key; None for anything else (not one
    operation, a document that does not parse, a mutation, variables that do not
    encode). The key was already looked up: the caller is known."""
    body = await request.body() if request.method == "POST" else None
    params = operation_params(request, body)
    if params is None:
        return None
    try:
        document = caches.document(params["query"])
    except GraphQLError:
        return None  # strawberry answers it (a failed parse is not cached: parsed again)
    operation = get_operation_ast(document, params["operationName"])
    if operation is None or operation.operation is not OperationType.QUERY:
        return None
    try:
        variables = orjson.dumps(params["variables"], option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError:
        return None  # nested past what orjson writes: runs, is not kept
    caller = await context.caller()
    # A digest, not the texts: the cache's byte budget counts answers, not keys, and a
    # document may be long. BLAKE2b-256: no two requests meet by accident or design.
    digest = blake2b(params["query"].encode(), digest_size=32)
    name = params["operationName"]  # a valid name: no NUL, like the parsed document
    digest.update(b"\0-\0" if name is None else b"\0%s\0" % name.encode())
    digest.update(variables)
    key = ("graphql", digest.digest(), caller.permissions, caller.assets, context.flags)
    return Query(document, params["operationName"], key)


async def charge_kept(
    schema: GraphQLSchema, query: Query, context: RequestContext, cost: int
) -> None:
    """What serving a kept answer still costs the caller, as on its first run: the root
    fields' access (ApiError if refused) and the operation's cost against the rate limit."""
    operation = get_operation_ast(query.document, query.operation_name)
    assert operation is not None, "only a query's answer is kept"
    for permission, flag in root_requirements(schema, query.document, operation):
        await authorize(context, permission=permission, flag=flag)
    await context.charge(cost)
