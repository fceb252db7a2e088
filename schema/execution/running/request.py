"""A `/graphql` request's one operation, read, parsed, chosen and keyed in one place, then
run by the runner (docs/api.md, "Read cache"). The /graphql face (`rest.graphql_http.view`)
hands the request down once, as plain values (`GraphQLRequest`), and gets its answer.

Every operation of a `/graphql` request (a JSON POST or a GET) runs through the runner
(`schema.execution.running.runner`) as a `schema.execution.running.document.DocumentOperation`:
the same checks and execution as strawberry's pipeline, without its per-operation
machinery. Anything that is not plainly one operation the method allows is refused here,
in our error format, with the words strawberry's HTTP view used (`operation_params`,
`chosen_operation`): a body that is not JSON, a batch, members of the wrong type, an
unknown operation name, a mutation over GET (422 on `body`), a body that is not
`application/json` (415); a document that does not parse is answered 200 with its one
GraphQL error (`ParseFailed`), as GraphQL over HTTP's `application/json` answers are.
Strawberry's view serves only the IDE page and the WebSocket.

A query's answer depends on its document, operation name and variables, on who asks
(permissions, assets, flags) and on what it read. It is kept under a digest of the
first three and the caller's permissions, assets and flags, with the versions of the
collections it read, and served while those hold. Before a kept answer is served, the
key has been looked up (`GraphQLView.refusal`) and the cost its first run settled at is
charged; the root fields' access, validation and the price are not done again: the key
holds everything they read (`schema.execution.running.runner`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
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
from strawberry.types import ExecutionResult

from resolvers.context import RequestContext
from resolvers.errors import ApiError, ErrorCode
from resolvers.language import checked_lang, choose
from resolvers.limits import PARSE_ON_LOOP_CHARS
from schema.build import Schema
from schema.execution.guard import DocumentCaches
from schema.execution.running.document import DocumentOperation
from schema.execution.running.runner import Encoded, OperationCall, OperationRunner, Ran
from schema.language import keyed_variables, operation_tag
from storage.cache.read_cache import kept_key, variables_digest
from storage.cpu import run_cpu


@dataclass(frozen=True)
class GraphQLRequest:
    """What the face read of a `/graphql` request: its method, its media type (lower
    case, without parameters), its query-string parameters and, for a POST, its body."""

    method: str
    media_type: str
    query: Mapping[str, str]
    body: bytes | None


@dataclass(frozen=True)
class Operation:
    """One query or mutation of a request, parsed, and the key its answer is kept under
    (None: not kept)."""

    document: DocumentNode
    definition: OperationDefinitionNode
    variables: dict[str, Any] | None
    key: Hashable | None


def operation_params(request: GraphQLRequest) -> dict[str, Any]:
    """`query`, `variables` and `operationName` of a GET or of a JSON POST's body; ApiError
    when they are not plainly one operation's."""
    if request.method == "GET":
        params: dict[str, Any] = dict(request.query)
        raw = params.get("variables")
        try:
            params["variables"] = orjson.loads(raw) if raw else None
        except orjson.JSONDecodeError:
            raise body_problem(NOT_JSON) from None
    else:
        if request.body is None or request.media_type != "application/json":
            raise ApiError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, content_type="application/json")
        try:
            params = orjson.loads(request.body)
        except orjson.JSONDecodeError:
            raise body_problem(NOT_JSON) from None
    if isinstance(params, list):
        raise body_problem(BATCH)
    if not isinstance(params, dict):
        raise body_problem(NOT_AN_OBJECT)
    query, variables, name = (params.get(k) for k in ("query", "variables", "operationName"))
    if query is None:
        raise body_problem(NO_QUERY)
    if not isinstance(query, str):
        raise body_problem(QUERY_TYPE)
    if not isinstance(variables, dict | None):
        raise body_problem(VARIABLES_TYPE)
    if not isinstance(name, str | None):
        raise body_problem(NAME_TYPE)
    return {"query": query, "variables": variables, "operationName": name}


def body_problem(reason: str) -> ApiError:
    """A request that is not plainly one operation: 422 on `body`."""
    return ApiError(ErrorCode.BAD_USER_INPUT, fields={"body": [reason]})


class NotOneOperation(Exception):
    """A request that is not plainly one operation the method allows (413, 415, 422), told
    apart from a refusal of the runner (the charge: a GraphQL answer)."""

    def __init__(self, error: ApiError) -> None:
        super().__init__(error.message)
        self.error = error


class ParseFailed(Exception):
    """A document that does not parse: answered 200 with its one GraphQL error."""

    def __init__(self, error: GraphQLError) -> None:
        super().__init__(error.message)
        self.error = error


# The words of strawberry's HTTP view (and of the GraphQL spec, for UNNAMED), kept.
NOT_JSON = "Unable to parse request body as JSON"
BATCH = "Batching is not enabled"
NOT_AN_OBJECT = "The GraphQL request must be a JSON object."
NO_QUERY = "No GraphQL query found in the request"
QUERY_TYPE = "The GraphQL operation's `query` must be a string or null, if provided."
VARIABLES_TYPE = "The GraphQL operation's `variables` must be an object or null, if provided."
NAME_TYPE = "The GraphQL operation's `operationName` must be a string or null, if provided."
NO_OPERATION = "Can't get GraphQL operation type"
MUTATION_OVER_GET = "mutations are not allowed when using GET"
NAME = "operationName"
UNNAMED = "Must provide operation name if query contains multiple operations."


def chosen_operation(
    document: DocumentNode, name: str | None, method: str
) -> OperationDefinitionNode:
    """The operation `name` picks in `document`, if `method` may run it; ApiError if not.
    A subscription is chosen: its checks run, then it is refused (`DocumentOperation`)."""
    definition = get_operation_ast(document, name)
    if definition is None:
        if name is not None:
            raise body_problem(f'Unknown operation named "{name}".')
        if several_operations(document):  # the GraphQL spec's error
            raise ApiError(ErrorCode.BAD_USER_INPUT, fields={NAME: [UNNAMED]})
        raise body_problem(NO_OPERATION)
    if method == "GET" and definition.operation is OperationType.MUTATION:
        raise body_problem(MUTATION_OVER_GET)
    return definition


async def parsed(caches: DocumentCaches, query: str) -> DocumentNode:
    """The cached parse; ApiError for a document over the size limit (nothing is parsed),
    ParseFailed for one that does not parse (not cached: parsed again)."""
    try:
        return await caches.document(query)
    except GraphQLError as error:
        raise ParseFailed(error) from None


async def operation_of(
    request: GraphQLRequest, context: RequestContext, caches: DocumentCaches, keep: bool
) -> Operation:
    """The request's one operation, with its answer's key when `keep` and it is a keyed
    query. ApiError or ParseFailed for anything else (see the module)."""
    body = request.body
    if body is not None and len(body) > PARSE_ON_LOOP_CHARS:  # JSON of many small objects
        params = await run_cpu(operation_params, request)  # decodes ~60 MB/s
    else:
        params = operation_params(request)
    document = await parsed(caches, params["query"])
    definition = chosen_operation(document, params["operationName"], request.method)
    return await prepared(document, definition, params, context, keep)


async def prepared(
    document: DocumentNode,
    definition: OperationDefinitionNode,
    params: dict[str, Any],
    context: RequestContext,
    keep: bool,
) -> Operation:
    """The operation chosen, in the language its `@lang` asks for, with its answer's key
    when `keep` and it is a keyed query (also for a persisted query's document)."""
    asked = operation_tag(definition, params["variables"])
    if asked is not None:  # `@lang` comes before `?lang=` and Accept-Language (issue 51)
        wrong = checked_lang(asked)
        if wrong is not None:
            raise ApiError(ErrorCode.BAD_USER_INPUT, fields={"@lang.tag": [wrong]})
        context.language = choose([asked], context.settings.default_language)
    key = None
    if keep and context.api_key is not None and definition.operation is OperationType.QUERY:
        keyed = params
        if context.language is not None:  # `$tag` of `@lang` keyed by the language chosen
            canonical = context.language.canonical
            variables = keyed_variables(document, definition, params["variables"], canonical)
            keyed = {**params, "variables": variables}
        key = await answer_key(keyed, context)
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


Encode = Callable[[ExecutionResult], Encoded]


async def run_request(
    runner: OperationRunner,
    schema: Schema,
    request: GraphQLRequest,
    context: RequestContext,
    encode: Encode,
) -> Ran[ExecutionResult]:
    """The request's one operation read (`operation_of`; its answer kept when the runner's
    cache is live) and run: NotOneOperation or ParseFailed for a request that is not
    plainly one operation, ApiError for a charge refused."""
    cache = runner.cache
    keep = cache is not None and cache.live
    try:
        operation = await operation_of(request, context, schema.caches, keep)
    except ApiError as error:
        raise NotOneOperation(error) from None
    return await run_chosen(runner, schema, operation, context, encode)


async def run_chosen(
    runner: OperationRunner,
    schema: Schema,
    operation: Operation,
    context: RequestContext,
    encode: Encode,
) -> Ran[ExecutionResult]:
    """An operation read already (a persisted query's) run by the runner: checked, priced,
    a kept answer served or the operation charged and executed, settled and kept."""
    priced = DocumentOperation(
        schema, operation.document, operation.definition, operation.variables, context
    )
    return await runner.run(OperationCall(context, priced, encode, operation.key))
