"""GraphQL over HTTP at /graphql, with the same keys, flags and error codes as REST,
and our offline GraphiQL page for browsers."""

from __future__ import annotations

from typing import Any

from graphql import GraphQLError
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.http import GraphQLHTTPResponse
from strawberry.types import ExecutionResult

from resolvers.context import RequestContext, Services
from resolvers.errors import classify
from rest.credentials import api_key_of, flags_of
from rest.graphiql import graphiql_html


class GraphQLView(GraphQL):
    """Strawberry's ASGI view with our context, error codes and IDE page."""

    def __init__(self, schema: Any, services: Services) -> None:
        super().__init__(schema, graphql_ide="graphiql", allow_queries_via_get=True)
        self.services = services
        self.page = graphiql_html("/graphql")

    async def get_context(
        self, request: Request | WebSocket, response: Response | WebSocket
    ) -> RequestContext:
        return RequestContext(
            self.services,
            api_key_of(request),
            flags_of(request),
            request.scope.get("state", {}).get("request_id", ""),
        )

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
