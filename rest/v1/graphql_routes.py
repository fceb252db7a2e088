"""REST routes run through GraphQL: every route the table has not planned ahead of time
(`rest.v1.planned`), and a planned one whose plan steps aside. Made once the schema is
built (`schema.lazy`): validating each route's document, its plan, its access rule and
its cost, the execution and the answer of a failed operation.
"""

from __future__ import annotations

import logging
from inspect import isawaitable
from typing import Any

from graphql import ExecutionResult, GraphQLSchema, execute, validate
from graphql.pyutils import AwaitableOrValue
from starlette.requests import Request
from starlette.responses import Response

from resolvers.context import RequestContext
from resolvers.errors import ApiError, ErrorCode, OperationFailed, classify
from rest.v1.bodies import read_text_body
from rest.v1.event_stream import EventTexts, event_stream
from rest.v1.json_body import body_problems, body_variables, read_json_body
from rest.v1.route_rows import RestRoute, Shape
from rest.v1.routes import ROUTES
from schema.execution.direct_plans import execute_directly
from schema.execution.executor import CompiledExecutor
from schema.execution.operation_cost import operation_cost
from schema.execution.plans import precompile
from schema.permissions import Requirement, field_requirement
from storage.settings import Settings

log = logging.getLogger("floorgate.rest")


def requirement_of(schema: GraphQLSchema, route: RestRoute) -> Requirement:
    """The permission and flag that the route's root field demands, so REST checks
    access before it reads a body or anything else."""
    roots = {
        "query": schema.query_type,
        "mutation": schema.mutation_type,
        "subscription": schema.subscription_type,
    }
    root = roots[route.operation]
    assert root is not None
    return field_requirement(root.fields[route.graphql_field]) or (None, None)


class GraphQLRoutes:
    """The routes of the table over one schema."""

    def __init__(self, schema: GraphQLSchema, settings: Settings) -> None:
        self.schema = schema
        self.settings = settings
        self.requirements = {route.operation_id: requirement_of(schema, route) for route in ROUTES}
        self.prepared: set[str] = set()
        self.event_texts = EventTexts()  # each change's event, for every stream

    def prepare(self, route: RestRoute) -> None:
        """Validate the route's document and make its plan, once. Not at import or app
        creation: validating every document takes 100 ms or more of a cold start."""
        if route.operation_id in self.prepared:
            return
        problems = validate(self.schema, route.parsed)
        if problems:
            raise RuntimeError(f"route {route.path}: invalid document: {problems}")
        if route.shape is not Shape.EVENTS and precompile(self.schema, route.parsed) is None:
            log.debug("route %s runs on graphql-core alone", route.operation_id)
        self.prepared.add(route.operation_id)

    def cost(self, route: RestRoute, variables: dict[str, Any]) -> int:
        return operation_cost(self.schema, route.parsed, variables)

    async def execute(
        self, route: RestRoute, variables: dict[str, Any], context: RequestContext
    ) -> Any:
        """The route's result (`data.result`); raises OperationFailed with its first error."""
        self.prepare(route)
        outcome: AwaitableOrValue[ExecutionResult] | None = None
        if CompiledExecutor.runs_direct_plans:
            outcome = await execute_directly(
                self.schema, route.parsed, route.definition, variables, context
            )
        if outcome is None:
            outcome = execute(
                self.schema,
                route.parsed,
                context_value=context,
                variable_values=variables,
                executor_class=CompiledExecutor,
            )
        if isawaitable(outcome):  # not when the variables do not coerce
            outcome = await outcome
        assert isinstance(outcome, ExecutionResult)
        if outcome.errors:
            raise OperationFailed(self.classify(outcome), outcome.data is None)
        return (outcome.data or {})["result"]

    def classify(self, outcome: ExecutionResult) -> ApiError:
        assert outcome.errors
        error = classify(outcome.errors[0], self.settings.retry_after_seconds)
        if error.code is ErrorCode.INTERNAL:
            log.error(
                "request failed: %s", outcome.errors[0], exc_info=outcome.errors[0].original_error
            )
        return error

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
            raise OperationFailed(self.classify(opened), True)
        return opened
