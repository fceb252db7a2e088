"""One GraphQL operation read from a `/graphql` request, run directly, and its answer
kept when it is a query (docs/api.md, "Read cache").

A request that is plainly one query or mutation (a JSON POST or a GET, whose document
parses and names one operation the method allows) runs through the runner
(`schema.execution.running.runner`) as a `schema.execution.running.document.DocumentOperation`: the
same checks and execution as strawberry's pipeline, without its per-operation machinery.
Anything else (a batch, a malformed body, a document that does not parse, a mutation
over GET) goes to strawberry, which answers it as before.

A query's answer depends on its document, operation name and variables, on who asks
(permissions, assets, flags) and on what it read. It is kept under a digest of the
first three and the caller's permissions, assets and flags, with the versions of the
collections it read, and served while those hold. Before a kept answer is served, the
key has been looked up (`GraphQLView.refusal`) and the cost its first run settled at is
charged; the root fields' access, validation and the price are not done again: the key
holds everything they read (`schema.execution.running.runner`).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import orjson
from graphql import (
    DocumentNode,
    GraphQLError,
    OperationDefinitionNode,
    OperationType,
    get_operation_ast,
)
from starlette.requests import Request

from resolvers.context import RequestContext
from resolvers.errors import ApiError, ErrorCode
from resolvers.language import checked_lang, choose
from resolvers.limits import PARSE_ON_LOOP_CHARS
from schema.execution.guard import DocumentCaches
from schema.language import operation_tag
from storage.cache.read_cache import kept_key, variables_digest
from storage.cpu import run_cpu


@dataclass(frozen=True)
class Operation:
    """One query or mutation of a request, parsed, and the key its answer is kept under
    (None: not kept)."""

    document: DocumentNode
    definition: OperationDefinitionNode
    variables: dict[str, Any] | None
    key: Hashable | None


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
    if isinstance(params, list):
        return None  # a batch: strawberry refuses it ("Batching is not enabled")
    if not isinstance(params, dict):  # strawberry's reading of it failed: a 500
        raise ApiError(ErrorCode.BAD_USER_INPUT, fields={"body": [NOT_AN_OBJECT]})
    query, variables, name = (params.get(k) for k in ("query", "variables", "operationName"))
    if not isinstance(query, str) or not isinstance(name, str | None):
        return None
    if not isinstance(variables, dict | None):
        return None
    return {"query": query, "variables": variables, "operationName": name}


NOT_AN_OBJECT = "The GraphQL request must be a JSON object."
NAME = "operationName"
UNNAMED = "Must provide operation name if query contains multiple operations."
ALLOWED = {"GET": (OperationType.QUERY,), "POST": (OperationType.QUERY, OperationType.MUTATION)}


async def operation_of(
    request: Request, context: RequestContext, caches: DocumentCaches, keep: bool
) -> Operation | None:
    """The request's one operation, with its answer's key when `keep` and it is a keyed
    query; None for anything else (strawberry answers it). ApiError for a document over
    the size limit (`DocumentCaches.too_large`), a body that is JSON but no object, and
    several operations without a name."""
    body = await request.body() if request.method == "POST" else None
    if body is not None and len(body) > PARSE_ON_LOOP_CHARS:  # JSON of many small objects
        params = await run_cpu(operation_params, request, body)  # decodes ~60 MB/s
    else:
        params = operation_params(request, body)
    if params is None:
        return None
    try:
        document = await caches.document(params["query"])
    except ApiError:
        raise  # too large: nothing is parsed, by either path
    except GraphQLError:
        return None  # strawberry answers it (a failed parse is not cached: parsed again)
    definition = get_operation_ast(document, params["operationName"])
    if definition is None and params["operationName"] is None and several_operations(document):
        # The GraphQL spec's error; strawberry ran the first operation instead.
        raise ApiError(ErrorCode.BAD_USER_INPUT, fields={NAME: [UNNAMED]})
    if definition is None or definition.operation not in ALLOWED.get(request.method, ()):
        return None
    asked = operation_tag(definition, params["variables"])
    if asked is not None:  # `@lang` comes before `?lang=` and Accept-Language (issue 51)
        wrong = checked_lang(asked)
        if wrong is not None:
            raise ApiError(ErrorCode.BAD_USER_INPUT, fields={"@lang.tag": [wrong]})
        context.language = choose([asked], context.settings.default_language)
    key = None
    if keep and context.api_key is not None and definition.operation is OperationType.QUERY:
        key = await answer_key(params, context)
    return Operation(document, definition, params["variables"], key)


def several_operations(document: DocumentNode) -> bool:
    return sum(isinstance(node, OperationDefinitionNode) for node in document.definitions) > 1


async def answer_key(params: dict[str, Any], context: RequestContext) -> bytes | None:
    """A digest, not the texts: the cache's byte budget counts answers, not keys, and a
    document may be long. BLAKE2b-256: no two requests meet by accident or design."""
    name = params["operationName"]  # a valid name: no NUL, like the parsed document
    head = params["query"].encode() + (b"\0-\0" if name is None else b"\0%s\0" % name.encode())
    digest = variables_digest(head, params["variables"])
    if digest is None:
        return None
    caller = await context.caller()  # looked up already (`GraphQLView.refusal`)
    language = None if context.language is None else context.language.key
    return kept_key("graphql", digest, caller.permissions, caller.assets, context.flags, language)
