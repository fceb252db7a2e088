"""One parsed GraphQL operation run as strawberry's `Schema.execute` runs it, without its
extension machinery: `/graphql` takes this path for every request that is plainly one
query or mutation (`rest.graphql_http.direct`), strawberry's own for everything else.

Strawberry's pipeline for one operation is: parse (our cached parse), the operation type
against what the transport allows, the guard's checks before validation, validation
(cached), the guard's checks after it, graphql-core's execution with our executor, then
`process_errors` on any error. An exception on the way is the operation's one error
(data null). This module does exactly that, with the same functions
(`schema.execution.guard.check_access`, `check_cost_of`, the shared `DocumentCaches`, the
schema's executor: `CompiledExecutor`), so both paths answer alike
(`tests/rest/graphql_http/test_graphql_direct.py` compares them); what it skips is
strawberry's per-operation objects and hooks, about 0.3-0.5 ms of a small request.

An operation of introspection alone that costs INTROSPECTION_ON_LOOP_COST or more runs on
the CPU pool, by graphql-core's own executor (its resolvers are graphql-core's, pure and
synchronous; no plan is made, so no cache is touched from another thread): a walk of the
schema takes about 7 microseconds a unit of cost, and 12 keyless requests just under their
ceiling held the event loop 3 s. (Strawberry's pipeline, which takes only requests that
do not plainly name one operation, runs it in place.)
"""

from __future__ import annotations

from functools import partial
from inspect import isawaitable
from typing import Any, cast

from graphql import (
    DocumentNode,
    GraphQLError,
    OperationDefinitionNode,
    OperationType,
    execute,
    execute_sync,
)
from graphql import ExecutionResult as CoreResult
from graphql.pyutils import AwaitableOrValue
from strawberry.types import ExecutionResult

from resolvers.errors import ApiError, ErrorCode
from resolvers.limits import INTROSPECTION_ON_LOOP_COST
from schema.build import Schema
from schema.execution.direct_plans import execute_directly
from schema.execution.guard import VALIDATION_RULES, check_access, check_cost_of
from schema.execution.operation_limits import root_field_names
from storage.cpu import run_cpu


async def run_operation(
    schema: Schema,
    document: DocumentNode,
    operation: OperationDefinitionNode,
    variables: dict[str, Any] | None,
    context: object,
) -> ExecutionResult:
    """The result strawberry's `execute` would give for `operation` of `document`."""
    graphql_schema = schema._schema
    caches = schema.caches
    name = operation.name.value if operation.name else None
    try:
        keyed = await check_access(caches, graphql_schema, document, operation, context)
        errors = await caches.validate(graphql_schema, document, VALIDATION_RULES)
        if errors:
            schema.process_errors(errors)
            return ExecutionResult(data=None, errors=errors)
        cost = await check_cost_of(
            caches, graphql_schema, document, name, variables, context, keyed
        )
        if operation.operation is OperationType.SUBSCRIPTION:  # its limits first, as above
            raise ApiError(ErrorCode.NO_SUBSCRIPTIONS_OVER_HTTP)
        if cost >= INTROSPECTION_ON_LOOP_COST and not root_field_names(document, operation):
            result: AwaitableOrValue[CoreResult] | None = await run_cpu(
                partial(
                    execute_sync,
                    graphql_schema,
                    document,
                    variable_values=variables,
                    operation_name=name,
                )
            )
        else:
            result = None
            if getattr(schema.execution_context_class, "runs_direct_plans", False):
                result = await execute_directly(
                    graphql_schema, document, operation, variables, context
                )
            if result is None:
                result = execute(
                    graphql_schema,
                    document,
                    variable_values=variables,
                    operation_name=name,
                    context_value=context,
                    executor_class=schema.execution_context_class,
                )
        if isawaitable(result):
            result = await result
        # Awaited; and not None: `execute` ran when nothing before it answered.
        result = cast(CoreResult, result)
    except Exception as exc:  # as strawberry: any failure is the operation's one error
        error = exc if isinstance(exc, GraphQLError) else GraphQLError(str(exc), original_error=exc)
        schema.process_errors([error])
        return ExecutionResult(data=None, errors=[error])
    if result.errors:
        schema.process_errors(result.errors)
    return ExecutionResult(data=result.data, errors=result.errors)
