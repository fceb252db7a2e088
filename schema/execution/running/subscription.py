"""A subscription's opening, for the runner (`OperationRunner.open`): the WebSocket's
`subscribe` (`for_socket`, with /graphql's checks) or a REST event stream's route
(`for_route`, its access checked by the runner's `admit`). Priced and charged once when
it opens; its events are executed once per process for every subscriber alike
(`schema.event_results`), each replayed one paid by the hub's pace.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from inspect import isawaitable
from typing import Any

from graphql import (
    DocumentNode,
    ExecutionResult,
    GraphQLError,
    GraphQLSchema,
    OperationDefinitionNode,
    OperationType,
)
from graphql.execution.execute import create_source_event_stream

from resolvers.context import RequestContext
from resolvers.errors import ApiError, ErrorCode
from schema.build import Schema
from schema.execution.executor import CompiledExecutor
from schema.execution.guard import VALIDATION_RULES, check_access, check_cost_of
from schema.execution.operation_cost import operation_cost

Refusal = list[GraphQLError | ApiError]
Opened = tuple[CompiledExecutor, Any]  # the executor of each event, the stream of events


class SubscriptionOperation:
    """One subscription to open (`Priced`): `execute` gives the executor and the source
    stream, or the errors that refuse it (nothing then runs)."""

    def __init__(
        self,
        schema: GraphQLSchema,
        document: DocumentNode,
        operation_name: str | None,
        variables: dict[str, Any] | None,
        context: RequestContext,
        checks: Callable[[], Awaitable[int | None]],
    ) -> None:
        self.schema = schema
        self.document = document
        self.operation_name = operation_name
        self.variables = variables
        self.context = context
        self.checks = checks
        self.refusal: Refusal = []

    @classmethod
    def for_socket(
        cls,
        schema: Schema,
        document: DocumentNode,
        operation: OperationDefinitionNode,
        variables: dict[str, Any] | None,
        context: RequestContext,
    ) -> SubscriptionOperation:
        """A `subscribe` over the WebSocket, checked as /graphql checks an operation: its
        type (a query or mutation is `SUBSCRIPTIONS_ONLY`: HTTP bounds a query's time),
        the key afresh and the root fields' access, the document's figures, validation,
        the variables' lists and the cost."""
        graphql_schema, caches = schema._schema, schema.caches
        name = operation.name.value if operation.name else None

        async def checks() -> int | None:
            if operation.operation is not OperationType.SUBSCRIPTION:
                raise ApiError(ErrorCode.SUBSCRIPTIONS_ONLY)
            keyed = await check_access(caches, graphql_schema, document, operation, context)
            errors = await caches.validate(graphql_schema, document, VALIDATION_RULES)
            if errors:
                opening.refusal = list(errors)
                return None
            cost = await check_cost_of(caches, graphql_schema, document, name, variables, context)
            return cost if keyed else None

        opening = cls(graphql_schema, document, name, variables, context, checks)
        return opening

    @classmethod
    def for_route(
        cls,
        schema: GraphQLSchema,
        document: DocumentNode,
        variables: dict[str, Any],
        context: RequestContext,
    ) -> SubscriptionOperation:
        """A REST event stream: its route's document, priced as every route is."""

        async def checks() -> int:
            return operation_cost(schema, document, variables)

        return cls(schema, document, None, variables, context, checks)

    async def price(self) -> int | None:
        try:
            return await self.checks()
        except (ApiError, GraphQLError) as error:
            self.refusal = [error]
            return None

    async def execute(self) -> Opened | Refusal:
        if self.refusal:
            return self.refusal
        executor = CompiledExecutor.build(
            self.schema,
            self.document,
            context_value=self.context,
            raw_variable_values=self.variables,
            operation_name=self.operation_name,
        )
        if isinstance(executor, list):  # the variables do not coerce
            return list(executor)
        source = create_source_event_stream(executor)
        if isawaitable(source):
            source = await source
        if isinstance(source, ExecutionResult):  # the resolver refused (its checks, its slot)
            return list(source.errors or ())
        return executor, source

    def answered(self, content: bytes) -> int | None:
        return None  # a stream is charged when it opens; its replay per event
