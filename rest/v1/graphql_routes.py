"""What REST needs of the schema, once it is built (`schema.lazy`): the routes' documents
(`schema.execution.running.route_documents.RouteDocuments`: their access rules, validated,
priced and run by the runner), the body's variables and problems in REST words, and the
event streams.
"""

from __future__ import annotations

from typing import Any

from graphql import ExecutionResult, GraphQLSchema
from starlette.requests import Request
from starlette.responses import Response

from resolvers.context import RequestContext
from resolvers.errors import OperationFailed
from rest.v1.bodies import read_text_body
from rest.v1.event_stream import EventTexts, event_stream
from rest.v1.json_body import body_problems, body_variables, read_json_body
from rest.v1.routes.rows import RestRoute, Shape
from schema.execution.running.route_documents import RouteDocuments
from storage.settings import Settings


class GraphQLRoutes:
    """The routes of the table over one schema."""

    def __init__(self, schema: GraphQLSchema, settings: Settings) -> None:
        self.schema = schema
        self.settings = settings
        self.documents = RouteDocuments(schema, settings.retry_after_seconds)
        self.event_texts = EventTexts()  # each change's event, for every stream

    def prepare(self, route: RestRoute) -> None:
        """Validate the route's document and make its plan, once (`RouteDocuments`)."""
        self.documents.prepare(route, compile_plan=route.shape is not Shape.EVENTS)

    def body_problems(self, route: RestRoute, variables: dict[str, Any]) -> dict[str, list[str]]:
        """Every way a JSON body does not fit its GraphQL input type, keyed by its REST
        place. Asked only when an execution failed before anything ran: a body that fits
        is coerced once, by the execution (for E18's 50 waypoints that halves the input
        work), and one that does not is refused before any resolver runs all the same."""
        body = route.body
        if body is None or not body.json:
            return {}
        return body_problems(self.schema, body, variables)

    async def body_variables(self, route: RestRoute, request: Request) -> dict[str, Any]:
        """The variables the route's body fills (ApiError: 413, 415, 422)."""
        body = route.body
        assert body is not None
        if body.json:
            value = await read_json_body(body, request, self.settings)
        else:
            value = await read_text_body(body, request, self.settings)
        return body_variables(body, value)

    async def event_stream(
        self,
        route: RestRoute,
        context: RequestContext,
        variables: dict[str, Any],
        request: Request,
    ) -> Response:
        """The route's Server-Sent Events, or the refusal before they start (OperationFailed)."""
        self.prepare(route)
        opened = await event_stream(
            self.schema, route, context, variables, request, self.event_texts
        )
        if isinstance(opened, ExecutionResult):
            raise OperationFailed(self.documents.classify(opened), True)
        return opened
