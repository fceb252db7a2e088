"""One parsed /graphql operation, priced and run as strawberry's `Schema.execute` runs it,
without its extension machinery: every `/graphql` operation over HTTP (read by
`schema.execution.running.request`) runs through the runner as a `DocumentOperation`
(a subscription: `schema.execution.running.subscription`); strawberry's own pipeline runs
nothing (`schema/build.py`).

Strawberry's pipeline for one operation is: parse (our cached parse), the operation type
against what the transport allows, the guard's checks before validation, validation
(cached), the guard's checks after it, graphql-core's execution with our executor, then
`process_errors` on any error. An exception on the way is the operation's one error
(data null). `price` does the checks and validation with the same functions
(`schema.execution.guard.check_operation`, the shared `DocumentCaches`),
`execute` the execution (`schema.execution.running.strategies`), so both paths answer alike
(`tests/rest/graphql_http/test_graphql_direct.py` compares them); the charge between
them is the runner's (`schema.execution.running.runner`). What this skips is strawberry's
per-operation objects and hooks, about 0.3-0.5 ms of a small request.

An operation of introspection alone that costs INTROSPECTION_ON_LOOP_COST or more runs on
the CPU pool, by graphql-core's own executor: a walk of the schema takes about 7
microseconds a unit of cost, and 12 keyless requests just under their ceiling held the
event loop 3 s.
"""

from __future__ import annotations

from typing import Any

from graphql import DocumentNode, GraphQLError, OperationDefinitionNode, OperationType
from strawberry.types import ExecutionResult

from resolvers.context import RequestContext
from resolvers.errors import ApiError, ErrorCode
from resolvers.limits import INTROSPECTION_ON_LOOP_COST
from schema.build import Schema
from schema.execution.guard import check_operation
from schema.execution.operation_cost import answered_cost
from schema.execution.operation_limits import root_field_names
from schema.execution.running.runner import Encoded, OperationCall, OperationRunner
from schema.execution.running.strategies import execute_document


class DocumentOperation:
    """One operation of a parsed document, for the runner (`Priced`)."""

    def __init__(
        self,
        schema: Schema,
        document: DocumentNode,
        operation: OperationDefinitionNode,
        variables: dict[str, Any] | None,
        context: object,
    ) -> None:
        self.schema = schema
        self.document = document
        self.operation = operation
        self.variables = variables
        self.context = context
        self.failed: ExecutionResult | None = None  # refused before it ran
        self.on_cpu = False
        self.data: dict[str, Any] | None = None

    async def price(self) -> int | None:
        """The checks before and after validation; the cost when a key pays it, else None.
        A refusal is the operation's one error, answered by `execute`."""
        document, operation = self.document, self.operation
        try:
            checked = await check_operation(
                self.schema.caches,
                self.schema._schema,
                document,
                operation,
                self.variables,
                self.context,
            )
            if checked.errors:
                self.schema.process_errors(checked.errors)
                self.failed = ExecutionResult(data=None, errors=checked.errors)
                return None
            if operation.operation is OperationType.SUBSCRIPTION:  # its limits first
                raise ApiError(ErrorCode.NO_SUBSCRIPTIONS_OVER_HTTP)
        except Exception as exc:  # as strawberry: any failure is the operation's one error
            if isinstance(exc, ApiError) and exc.code is ErrorCode.RATE_LIMITED:
                raise  # the price of validating it refused: answered as a refused charge
            self.failed = self.failure(exc)
            return None
        self.on_cpu = checked.cost >= INTROSPECTION_ON_LOOP_COST and not root_field_names(
            document, operation
        )
        return checked.cost if checked.keyed else None

    async def execute(self) -> ExecutionResult:
        if self.failed is not None:
            return self.failed
        try:
            result = await execute_document(
                self.schema._schema,
                self.schema.execution_context_class,
                self.document,
                self.operation,
                self.variables,
                self.context,
                on_cpu=self.on_cpu,
            )
        except Exception as exc:  # as strawberry: any failure is the operation's one error
            return self.failure(exc)
        if result.errors:
            self.schema.process_errors(result.errors)
        self.data = result.data
        return ExecutionResult(data=result.data, errors=result.errors)

    def answered(self, content: bytes) -> int | None:
        """What its answer holds, by the cost model (`answered_cost`); None without data."""
        if self.data is None:
            return None
        return answered_cost(
            self.schema._schema, self.operation, self.variables, self.data, content
        )

    def failure(self, exc: Exception) -> ExecutionResult:
        error = exc if isinstance(exc, GraphQLError) else GraphQLError(str(exc), original_error=exc)
        self.schema.process_errors([error])
        return ExecutionResult(data=None, errors=[error])


async def run_operation(
    schema: Schema,
    document: DocumentNode,
    operation: OperationDefinitionNode,
    variables: dict[str, Any] | None,
    context: RequestContext,
) -> ExecutionResult:
    """The result strawberry's `execute` would give for `operation` of `document`, run by
    a runner without kept answers (in-process callers, tests); a refused charge is the
    operation's one error."""
    runner = OperationRunner(None)
    priced = DocumentOperation(schema, document, operation, variables, context)
    try:
        ran = await runner.run(OperationCall(context, priced, lambda _: Encoded(b"", keep=False)))
    except ApiError as refusal:
        return priced.failure(refusal)
    assert ran.result is not None
    return ran.result
