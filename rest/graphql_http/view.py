"""GraphQL over HTTP at /graphql, with the same keys, flags and error codes as REST,
and our offline GraphiQL page for browsers."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta
from typing import Any, cast

import orjson
from cross_web import HTTPException
from graphql import GraphQLError
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.http import GraphQLHTTPResponse
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL
from strawberry.types import ExecutionResult

from resolvers.auth.permissions import ADMIN
from resolvers.context import RequestContext, Services
from resolvers.errors import ApiError, ErrorCode, FieldErrors, classify
from resolvers.limits import MAX_QUERY_BODY_BYTES, MAX_UNAUTHENTICATED_BODY_BYTES
from rest.credentials import repeated_key, request_context
from rest.graphql_http.graphiql import PAGE_HEADERS, graphiql_html
from rest.graphql_http.persisted import PersistedQueries
from rest.graphql_http.sockets import Sockets
from rest.graphql_http.ws_handlers import SubscriptionSocket, close_code, reason_of
from rest.language import language_headers, request_language
from rest.ops.metrics import ROUTE
from rest.responses import error_response, json_bytes, json_response
from schema.build import Schema
from schema.execution.event_results import EventResults
from schema.execution.running.request import (
    GraphQLRequest,
    NotOneOperation,
    ParseFailed,
    run_chosen,
    run_request,
)
from schema.execution.running.runner import Encoded, OperationRunner, Ran


async def graphql_request(request: Request) -> GraphQLRequest:
    """What the runner needs of a `/graphql` request, as plain values."""
    media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    body = await request.body() if request.method == "POST" else None
    return GraphQLRequest(request.method, media_type, request.query_params, body)


def outcome(ran: Ran[ExecutionResult]) -> tuple[bool, bool]:
    """Whether the operation ran (was not refused before it executed) and whether its
    answer has no errors; a kept answer is both."""
    result = ran.result
    if result is None:
        return True, True
    executed = result.data is not None or any(error.path for error in result.errors or ())
    return executed, not result.errors


def request_error(status: int, reason: str) -> ApiError:
    """The contract's error for a GraphQL request that could not be read."""
    if status == 405:
        return ApiError(ErrorCode.METHOD_NOT_ALLOWED)
    if "content type" in reason.lower():
        return ApiError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, content_type="application/json")
    return ApiError(ErrorCode.BAD_USER_INPUT, fields={"body": [reason]})


async def body_up_to(request: Request, limit: int) -> bytes | None:
    """The whole body if it is at most `limit` bytes, else None (the rest is left unread)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isascii() and declared.isdigit() and int(declared) > limit:
        return None
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


class GraphQLView(GraphQL[RequestContext, None]):
    """Strawberry's ASGI view with our context, error codes and IDE page."""

    schema: Schema  # built by `schema.build.build_schema` (`rest.graphql_http.endpoint`)
    graphql_transport_ws_handler_class = SubscriptionSocket  # our guards (ws_handlers.py)

    def __init__(
        self, schema: Any, services: Services, table_documents: Iterable[str] = ()
    ) -> None:
        # A WebSocket that sends no `connection_init` (so no key) is closed (4408) as a
        # connection that sends no request head is: it must not hold a slot for a minute.
        # Only graphql-transport-ws: the older graphql-ws (subscriptions-transport-ws,
        # unmaintained) had none of its guards; an upgrade offering only it is closed
        # with 4406 (docs/graphql.md, "Subscriptions"). A key's subscriptions are capped
        # per key, not per socket (FLOORGATE_MAX_SUBSCRIPTIONS_PER_KEY).
        init_wait = timedelta(seconds=services.settings.header_timeout_seconds)
        super().__init__(
            schema,
            graphql_ide="graphiql",
            allow_queries_via_get=True,
            subscription_protocols=(GRAPHQL_TRANSPORT_WS_PROTOCOL,),
            connection_init_wait_timeout=init_wait,
            max_subscriptions_per_connection=None,
        )
        self.services = services
        self.runner = OperationRunner(services.store.cache)
        self.sockets = Sockets(services)  # the process's sockets by key
        self.event_results = EventResults()  # each event's `next` payload, shared
        self.page = graphiql_html("/graphql")
        # docs/graphql.md, "Persisted queries"; the REST table's documents run in every mode
        self.persisted = PersistedQueries(services, table_documents)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Strawberry answers malformed requests in plain text; ours are JSON like every error."""
        if scope["type"] == "websocket":
            await self.upgrade(WebSocket(scope, receive=receive, send=send))
            return
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        request = Request(scope=scope, receive=receive)
        scope.setdefault("state", {})[ROUTE] = "graphql"  # for /metrics
        try:
            response = await self.refusal(request) or await self.answer(request)
        except HTTPException as error:
            response = error_response(request_error(error.status_code, error.reason))
        await response(scope, receive, send)

    async def upgrade(self, websocket: WebSocket) -> None:
        """A WebSocket upgrade is a request like any other: one without a valid key in its
        headers (a browser's, whose key comes in `connection_init`) spends a token of its
        address's limit on requests without a key, as keyless HTTP requests do, and one
        with an invalid key is refused: one address cannot open hundreds of sockets that
        hold a connection each until their init timeout. A refused upgrade is accepted
        and closed at once with the protocol's code and our message (4429 `API rate limit
        exceeded`, 4403, 4400): a browser learns nothing of a refused handshake, but
        reads a close's code and reason."""
        refusal = repeated_key(websocket)
        context = request_context(websocket, self.services)
        context.over_websocket = True
        websocket.state.context = context
        if refusal is None:
            try:
                await self.runner.admit(context, keyless=True)
            except ApiError as error:
                refusal = error
        if refusal is None:
            await self.run(websocket)
            return
        offered = GRAPHQL_TRANSPORT_WS_PROTOCOL in websocket.scope.get("subprotocols", ())
        await websocket.accept(subprotocol=GRAPHQL_TRANSPORT_WS_PROTOCOL if offered else None)
        await websocket.close(close_code(refusal), reason_of(refusal.message))

    async def refusal(self, request: Request) -> Response | None:
        """Access before work: the key is checked before the body is read. Without a key
        only introspection can succeed, and its documents are small: a larger body (or
        GET query string) is refused unread. A GET's query string longer than the
        document limit is refused first (413). (Root fields' flags and permissions are
        checked once the document is parsed, before it is validated: `schema.execution.guard`.)"""
        if request.method not in ("GET", "POST") or self.should_render_graphql_ide(
            self.request_adapter_class(request)
        ):
            return None
        query_string = request.scope.get("query_string", b"")
        limit = self.services.settings.graphql_max_document_bytes
        if request.method == "GET" and len(query_string) > limit:
            return error_response(ApiError(ErrorCode.DOCUMENT_TOO_LARGE, limit=str(limit)))
        repeated = repeated_key(request)
        if repeated is not None:
            return error_response(repeated)
        context = request_context(request, self.services)
        request.state.context = context
        try:
            await self.runner.admit(context, keyless=True)  # keyless: introspection alone
            problems = FieldErrors()  # the answer's language: `?lang=`, Accept-Language
            default = self.services.settings.default_language
            context.language = request_language(request, default, problems)
            problems.raise_if_any()
            if context.api_key is not None:
                caller = await context.caller()  # looked up by `admit`
                if request.method == "POST" and ADMIN not in caller.permissions:
                    # Only the operator's writes carry large variables (a map's SVG):
                    # anyone else's body is a document and small variables, refused unread
                    # past them (parsing megabytes of JSON holds the interpreter).
                    body = await body_up_to(request, limit + MAX_QUERY_BODY_BYTES)
                    if body is None:
                        return error_response(ApiError(ErrorCode.PAYLOAD_TOO_LARGE))
                    request._body = body
                return None
            if request.method == "POST":
                body = await body_up_to(request, MAX_UNAUTHENTICATED_BODY_BYTES)
                if body is None:
                    await context.caller()  # refuses: 401
                # Starlette's cache: strawberry reads it from there. Not None: without a
                # key, `caller()` refused (401) above.
                request._body = cast(bytes, body)
            elif len(query_string) > MAX_UNAUTHENTICATED_BODY_BYTES:
                await context.caller()  # refuses: 401, as a POST's body
        except ApiError as error:
            return self.error_result(error)
        return None

    async def answer(self, request: Request) -> Response:
        """Every operation runs through the runner: the request goes down once, as plain
        values (`schema.execution.running.request`), which reads, parses, chooses and keys
        its one operation and runs it; a keyed query's kept answer is served after the
        charge of its first run, and a query's answer without errors is kept while what it
        read holds. A request that is not plainly one operation is refused there;
        strawberry's view serves only the IDE page (and the WebSocket). A persisted query
        (`rest.graphql_http.persisted`) is resolved to its document first, and its document
        stored once it ran."""
        context = getattr(request.state, "context", None)
        if context is None:  # not an operation: the IDE page
            return await self.run(request)
        asked = await self.persisted.asked(request, context)
        if isinstance(asked, Response):
            return asked
        try:
            if asked is None:
                plain = await graphql_request(request)
                ran = await run_request(self.runner, self.schema, plain, context, self.encode)
                return self.json(ran.content, language_headers(context.language))
            try:
                operation = await self.persisted.operation(
                    asked, request, context, self.schema.caches, self.services.store.cache.live
                )
            except ApiError as error:
                raise NotOneOperation(error) from None
            if isinstance(operation, Response):
                return operation
            ran = await run_chosen(self.runner, self.schema, operation, context, self.encode)
        except NotOneOperation as refused:  # 413, 415, 422
            return error_response(refused.error)
        except ParseFailed as failed:  # the document's one error, as GraphQL answers it
            return self.error_result(failed.error)
        except ApiError as error:  # the charge refused
            return self.error_result(error)
        executed, clean = outcome(ran)
        if executed:
            await self.persisted.ran(asked)
        headers = language_headers(context.language)
        return self.persisted.answer(asked, request, ran.content, clean, headers)

    @staticmethod
    def json(content: bytes, headers: dict[str, str] | None = None) -> Response:
        return Response(content, media_type="application/json", headers=headers)

    def encode(self, result: ExecutionResult) -> Encoded:
        """The answer's JSON; kept only without errors."""
        return Encoded(json_bytes(self.response_of(result)), keep=not result.errors)

    def error_result(self, error: ApiError | GraphQLError) -> Response:
        """A GraphQL response carrying one error and no data, as after any failed check or
        a document that does not parse."""
        wait = error.retry_after if isinstance(error, ApiError) else None
        headers = {"Retry-After": str(wait)} if wait else None
        return json_response({"data": None, "errors": [self.format_error(error)]}, headers=headers)

    async def get_context(
        self, request: Request | WebSocket, response: Response | WebSocket
    ) -> RequestContext:
        context = getattr(request.state, "context", None)
        if context is None:
            context = request_context(request, self.services)
            context.over_websocket = isinstance(request, WebSocket)
        return context

    def decode_json(self, data: str | bytes) -> object:
        """orjson: fast, and nesting beyond its limit (1024) is a JSON error (422), not a
        RecursionError."""
        return orjson.loads(data)

    def encode_json(self, data: object) -> str:
        """orjson, as REST answers (strawberry's `json.dumps` took longer than the whole
        execution of a 10,000-unit page). Text: strawberry sends bytes as binary
        WebSocket frames, which graphql-ws clients and browsers' `JSON.parse` refuse;
        our own HTTP answers are written by `json_bytes` directly."""
        return json_bytes(data).decode()

    def should_render_graphql_ide(self, request: Any) -> bool:
        """A GET with a persisted query's `extensions` (and no `query`) is an operation,
        not a browser asking for the IDE (curl sends `Accept: */*`)."""
        return (
            super().should_render_graphql_ide(request)
            and request.query_params.get("extensions") is None
        )

    async def render_graphql_ide(self, request: Request) -> HTMLResponse:
        """The page holds an API key while in use: it gets its strict CSP and nosniff."""
        return HTMLResponse(self.page, headers=PAGE_HEADERS)

    async def process_result(
        self, request: Request, result: ExecutionResult
    ) -> GraphQLHTTPResponse:
        return self.response_of(result)

    def response_of(self, result: ExecutionResult) -> GraphQLHTTPResponse:
        data: GraphQLHTTPResponse = {"data": result.data}
        if result.errors:
            data["errors"] = [self.format_error(error) for error in result.errors]
        if result.extensions:
            data["extensions"] = result.extensions
        return data

    def format_error(self, error: GraphQLError | ApiError) -> dict[str, Any]:
        """Every error carries `extensions.code`; internal details never leave the server."""
        if isinstance(error, ApiError):  # refused before any GraphQL ran
            return error.formatted
        api_error = classify(error, self.services.settings.retry_after_seconds)
        formatted = error.formatted
        formatted["message"] = api_error.message if error.original_error else error.message
        formatted["extensions"] = dict(api_error.extensions or {})
        return dict(formatted)
