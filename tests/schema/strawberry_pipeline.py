"""Strawberry's own per-operation pipeline with floorgate's checks as its extension: the
reference the runner is compared with (`tests/rest/graphql_http/test_graphql_direct.py`,
`tests/schema/test_graphql_hardening.py`). The service never runs an operation this
way: its schema refuses strawberry's pipeline (`schema.build.OutsideTheRunner`), and
every operation goes through `schema.execution.running.runner`. Here the same checks
run as strawberry's hooks, in the order `schema.execution.guard.check_operation` runs
them, so that a runner answering otherwise than strawberry would is caught."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from graphql import GraphQLError, OperationType, get_operation_ast
from strawberry.extensions import SchemaExtension

from resolvers.context import RequestContext
from resolvers.errors import ApiError, ErrorCode
from schema.execution.guard import DocumentCaches, check_access, check_cost_of
from schema.execution.operation_limits import bounded_rules


class OperationGuard(SchemaExtension):
    """The checks as strawberry's hooks: the size and token limits and the cached parse,
    then `check_access` before the cached validation, then `check_cost_of` and the charge
    (strawberry's pipeline has no runner to charge)."""

    def __init__(self, caches: DocumentCaches) -> None:
        self.caches = caches

    async def on_parse(self) -> AsyncIterator[None]:
        """The cached parse, within the size and token limits (a long text off the loop)."""
        execution = self.execution_context
        assert execution.query is not None, "strawberry parses only a query it was given"
        execution.graphql_document = await self.caches.document(execution.query)
        yield

    async def on_validate(self) -> AsyncIterator[None]:
        execution = self.execution_context
        document = execution.graphql_document
        assert document is not None, "validation follows a successful parse"
        schema = execution.schema._schema
        operation = get_operation_ast(document, execution.operation_name)
        subscription = operation is not None and operation.operation is OperationType.SUBSCRIPTION
        websocket = getattr(execution.context, "over_websocket", False)
        try:
            if websocket and not subscription:
                raise ApiError(ErrorCode.SUBSCRIPTIONS_ONLY)  # no time budget there
            keyed = await check_access(self.caches, schema, document, operation, execution.context)
        except ApiError as error:
            if not (subscription or websocket):
                raise  # strawberry's execution answers it as the operation's one error
            # Strawberry's stream lets an exception of this hook escape: the operation
            # ended without a word. As an error before execution, the client is told.
            execution.pre_execution_errors = [GraphQLError(str(error), original_error=error)]
            yield
            return
        execution.validation_rules = bounded_rules(execution.validation_rules)
        execution.pre_execution_errors = await self.caches.validate(
            schema, document, execution.validation_rules
        )
        yield
        if execution.pre_execution_errors or operation is None:
            return  # nothing runs
        cost = await check_cost_of(
            self.caches,
            schema,
            document,
            execution.operation_name,
            execution.variables,
            execution.context,
        )
        if keyed:  # strawberry's pipeline has no runner: it charges here
            assert isinstance(execution.context, RequestContext)
            await execution.context.charge(cost)
        if subscription and not websocket:  # its limits first: its errors as over a socket
            raise ApiError(ErrorCode.NO_SUBSCRIPTIONS_OVER_HTTP)


def guarded(schema: Any) -> tuple[Any, ...]:
    """The extensions that make `schema` (built by `schema.build.build_schema`) run
    strawberry's pipeline with the guard: set them as its `extensions` for a test."""
    return (lambda: OperationGuard(schema.caches),)
