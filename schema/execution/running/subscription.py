"""A subscription's opening, for the runner (`OperationRunner.open`): a REST event
stream's route (`SubscriptionOperation`, its access checked by the runner's `admit`) or
the WebSocket's `subscribe` (`SocketSubscription`, with /graphql's checks). Priced and
charged once when it opens; its events are executed once per process for every
subscriber alike (`schema.execution.event_results`), each replayed one paid by the hub's pace.
"""

from __future__ import annotations

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
from schema.execution.guard import check_operation
from schema.execution.operation_cost import operation_cost

Refusal = list[GraphQLError | ApiError]
Opened = tuple[CompiledExecutor, Any]  # the executor of each event, the stream of events


class SubscriptionOperation:
    """A REST event stream's subscription to open (`Priced`): its route's document,
    priced as every route is. `execute` gives the executor and the source stream, or
    the errors that refuse it (nothing then runs)."""

    def __init__(
        self,
        schema: GraphQLSchema,
        document: DocumentNode,
        operation_name: str | None,
        variables: dict[str, Any] | None,
        context: RequestContext,
    ) -> None:
        self.schema = schema
        self.document = document
        self.operation_name = operation_name
        self.variables = variables
        self.context = context
        self.refusal: Refusal = []

    async def checks(self) -> int | None:
        """Its cost, after whatever must hold before it (ApiError or GraphQLError refuse;
        errors put in `refusal` refuse too)."""
        return operation_cost(self.schema, self.document, self.variables)

    async def price(self) -> int | None:
        try:
            cost = await self.checks()
        except (ApiError, GraphQLError) as error:
            self.refusal = [error]
            return None
        return None if self.refusal else cost

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


class SocketSubscription(SubscriptionOperation):
    """A `subscribe` over the WebSocket, checked as /graphql checks an operation: its type
    (a query or mutation is `SUBSCRIPTIONS_ONLY`: HTTP bounds a query's time), the key
    afresh and the root fields' access, the document's figures, validation, the
    variables' lists and the cost (charged only with a key)."""

    def __init__(
        self,
        schema: Schema,
        document: DocumentNode,
        operation: OperationDefinitionNode,
        variables: dict[str, Any] | None,
        context: RequestContext,
    ) -> None:
        name = operation.name.value if operation.name else None
        super().__init__(schema._schema, document, name, variables, context)
        self.caches = schema.caches
        self.operation = operation

    async def checks(self) -> int | None:
        if self.operation.operation is not OperationType.SUBSCRIPTION:
            raise ApiError(ErrorCode.SUBSCRIPTIONS_ONLY)
        checked = await check_operation(
            self.caches, self.schema, self.document, self.operation, self.variables, self.context
        )
        if checked.errors:
            self.refusal = list(checked.errors)
            return None
        return checked.cost if checked.keyed else None
