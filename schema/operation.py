"""One parsed GraphQL operation run as strawberry's `Schema.execute` runs it, without its
extension machinery: `/graphql` takes this path for every request that is plainly one
query or mutation (`rest.graphql_requests`), strawberry's own for everything else.

Strawberry's pipeline for one operation is: parse (our cached parse), the operation type
against what the transport allows, the guard's checks before validation, validation
(cached), the guard's checks after it, graphql-core's execution with our executor, then
`process_errors` on any error. An exception on the way is the operation's one error
(data null). This module does exactly that, with the same functions
(`schema.guard.check_access`, `check_cost_of`, the shared `DocumentCaches`, the
schema's executor: `CompiledExecutor`), so both
paths answer alike (`tests/test_graphql_direct.py` compares them); what it skips is
strawberry's per-operation objects and hooks, about 0.3-0.5 ms of a small request.
"""

from __future__ import annotations

from inspect import isawaitable
from typing import Any

from graphql import DocumentNode, GraphQLError, OperationDefinitionNode, execute
from strawberry.types import ExecutionResult

from schema.build import Schema
from schema.guard import VALIDATION_RULES, check_access, check_cost_of


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
        errors = caches.validate(graphql_schema, document, VALIDATION_RULES)
        if errors:
            schema.process_errors(errors)
            return ExecutionResult(data=None, errors=errors)
        await check_cost_of(caches, graphql_schema, document, name, variables, context, keyed)
        result = execute(graphql_schema, document, variable_values=variables,
                         operation_name=name, context_value=context,
                         executor_class=schema.execution_context_class)  # fmt: skip
        if isawaitable(result):
            result = await result
    except Exception as exc:  # as strawberry: any failure is the operation's one error
        error = exc if isinstance(exc, GraphQLError) else GraphQLError(str(exc), original_error=exc)
        schema.process_errors([error])
        return ExecutionResult(data=None, errors=[error])
    if result.errors:
        schema.process_errors(result.errors)
    return ExecutionResult(data=result.data, errors=result.errors)
