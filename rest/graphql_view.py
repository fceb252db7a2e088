"""GraphQL over HTTP at /graphql, with the same keys, flags and error codes as REST,
and our offline GraphiQL page for browsers."""

from __future__ import annotations

from typing import Any

from cross_web import HTTPException
from graphql import GraphQLError
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.http import GraphQLHTTPResponse
from strawberry.types import ExecutionResult

from resolvers.context import RequestContext, Services
from resolvers.errors import ApiError, ErrorCode, classify
from rest.credentials import request_context
from rest.graphiql import graphiql_html
from rest.responses import error_response


def request_error(status: int, reason: str) -> ApiError:
    """The contract's error for a GraphQL request that could not be read."""
    if status == 405:
        return ApiError(ErrorCode.METHOD_NOT_ALLOWED)
    if "content type" in reason.lower():
        return ApiError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, content_type="application/json")
    return ApiError(ErrorCode.BAD_USER_INPUT, fields={"body": [reason]})


class GraphQLView(GraphQL):
    """Strawberry's ASGI view with our context, error codes and IDE page."""

    def __init__(self, schema: Any, services: Services) -> None:
        super().__init__(schema, graphql_ide="graphiql", allow_queries_via_get=True)
        self.services = services
        self.page = graphiql_html("/graphql")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Strawberry answers malformed requests in plain text; ours are JSON like every error."""
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        try:
            response = await self.run(Request(scope=scope, receive=receive))
        except HTTPException as error:
            response = error_response(request_error(error.status_code, error.reason))
        await response(scope, receive, send)

    async def get_context(
        self, request: Request | WebSocket, response: Response | WebSocket
    ) -> RequestContext:
        return request_context(request, self.services)

    async def render_graphql_ide(self, request: Request) -> HTMLResponse:
        return HTMLResponse(self.page)

    async def process_result(
        self, request: Request, result: ExecutionResult
    ) -> GraphQLHTTPResponse:
        data: GraphQLHTTPResponse = {"data": result.data}
        if result.errors:
            data["errors"] = [self.format_error(error) for error in result.errors]
        if result.extensions:
            data["extensions"] = result.extensions
        return data

    def format_error(self, error: GraphQLError) -> dict[str, Any]:
        """Every error carries `extensions.code`; internal details never leave the server."""
        api_error = classify(error, self.services.settings.retry_after_seconds)
        formatted = error.formatted
        formatted["message"] = api_error.message if error.original_error else error.message
        formatted["extensions"] = dict(api_error.extensions or {})
        return dict(formatted)
