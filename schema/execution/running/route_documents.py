"""The REST routes' documents over one schema, for `schema.execution.running.route`:
each validated and compiled once, priced, and executed by the strategies of
`schema.execution.running.strategies`.
"""

from __future__ import annotations

import logging
from typing import Any

from graphql import ExecutionResult, FieldNode, GraphQLSchema, validate

from resolvers.context import RequestContext
from resolvers.errors import ApiError, ErrorCode, OperationFailed, classify
from resolvers.limits import MAX_PER_PAGE, PER_PAGE
from schema.execution.executor import CompiledExecutor
from schema.execution.operation_cost import operation_cost
from schema.execution.plans import precompile
from schema.execution.running.route import RESULT, RouteDocument
from schema.execution.running.strategies import execute_document
from schema.permissions import Requirement, field_requirement

log = logging.getLogger("floorgate.rest")
MAX_PRICED = 4096  # (route, page size) costs remembered; the rest priced every time


def requirement_of(schema: GraphQLSchema, route: RouteDocument) -> Requirement:
    """The permission and flag that the route's one root field demands, so REST checks
    access before it reads a body or anything else."""
    definition = route.definition
    root = schema.get_root_type(definition.operation)
    (field,) = definition.selection_set.selections
    assert root is not None and isinstance(field, FieldNode)
    return field_requirement(root.fields[field.name.value]) or (None, None)


class RouteDocuments:
    """The routes' documents over one schema: each validated and compiled once, priced,
    executed."""

    def __init__(self, schema: GraphQLSchema, retry_after: int) -> None:
        self.schema = schema
        self.retry_after = retry_after
        self.prepared: set[str] = set()
        self.costs: dict[tuple[str, int | None], int] = {}
        self.requirements: dict[str, Requirement] = {}

    def requirement(self, route: RouteDocument) -> Requirement:
        found = self.requirements.get(route.operation_id)
        if found is None:
            found = self.requirements[route.operation_id] = requirement_of(self.schema, route)
        return found

    def prepare(self, route: RouteDocument, compile_plan: bool = True) -> None:
        """Validate the route's document and make its plan, once. Not at import or app
        creation: validating every document takes 100 ms or more of a cold start."""
        if route.operation_id in self.prepared:
            return
        problems = validate(self.schema, route.parsed)
        if problems:
            raise RuntimeError(f"route {route.operation_id}: invalid document: {problems}")
        if compile_plan and precompile(self.schema, route.parsed) is None:
            log.debug("route %s runs on graphql-core alone", route.operation_id)
        self.prepared.add(route.operation_id)

    def cost(self, route: RouteDocument, variables: dict[str, Any]) -> int:
        """Without a body a route's cost depends on the page size alone (no field of a
        bodiless route has a cost of its own that grows with its strings), so it is priced
        once per route and page size."""
        if route.body is not None:
            return operation_cost(self.schema, route.parsed, variables)
        per_page = variables.get(PER_PAGE)
        key = (route.operation_id, None if per_page is None else min(per_page, MAX_PER_PAGE + 1))
        found = self.costs.get(key)
        if found is None:
            found = operation_cost(self.schema, route.parsed, variables)
            if len(self.costs) < MAX_PRICED:
                self.costs[key] = found
        return found

    async def execute(
        self, route: RouteDocument, variables: dict[str, Any], context: RequestContext
    ) -> Any:
        """The route's result (`data.result`); raises OperationFailed with its first error."""
        self.prepare(route)
        outcome = await execute_document(
            self.schema, CompiledExecutor, route.parsed, route.definition, variables, context
        )
        if outcome.errors:
            raise OperationFailed(self.classify(outcome), outcome.data is None)
        return (outcome.data or {})[RESULT]

    def classify(self, outcome: ExecutionResult) -> ApiError:
        assert outcome.errors
        error = classify(outcome.errors[0], self.retry_after)
        if error.code is ErrorCode.INTERNAL:
            log.error(
                "request failed: %s", outcome.errors[0], exc_info=outcome.errors[0].original_error
            )
        return error
