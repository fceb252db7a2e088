"""How a valid operation executes, the strategy picked per operation: a REST route's plan
made ahead of time (`schema.execution.direct`, run by `schema.execution.running.route`),
a direct plan made from the compiled plan (`schema.execution.direct_plans`), the compiled
executor (`schema.execution.executor.CompiledExecutor`), or graphql-core's own executor on
the CPU pool for a large walk of introspection alone. Each gives the result graphql-core's
`execute` would give; `execute_document` picks among the last three.
"""

from __future__ import annotations

from functools import partial
from inspect import isawaitable
from typing import Any

from graphql import (
    DocumentNode,
    ExecutionResult,
    GraphQLSchema,
    OperationDefinitionNode,
    execute,
    execute_sync,
)
from graphql.execution.executor import Executor
from graphql.pyutils import AwaitableOrValue

from schema.execution.direct_plans import execute_directly
from storage.cpu import run_cpu


async def execute_document(
    schema: GraphQLSchema,
    executor: type[Executor[Any]],
    document: DocumentNode,
    operation: OperationDefinitionNode,
    variables: dict[str, Any] | None,
    context: object,
    *,
    on_cpu: bool = False,
) -> ExecutionResult:
    """The result of a valid `operation` of `document`: on graphql-core's executor on the
    CPU pool when `on_cpu` (introspection alone: its resolvers are graphql-core's, pure
    and synchronous, and no plan is made, so no cache is touched from another thread),
    else on its direct plan when it has one, else on `executor`."""
    name = operation.name.value if operation.name else None
    if on_cpu:
        return await run_cpu(
            partial(execute_sync, schema, document, variable_values=variables, operation_name=name)
        )
    result: AwaitableOrValue[ExecutionResult] | None = None
    if getattr(executor, "runs_direct_plans", False):
        result = await execute_directly(schema, document, operation, variables, context)
    if result is None:
        result = execute(
            schema,
            document,
            variable_values=variables,
            operation_name=name,
            context_value=context,
            executor_class=executor,
        )
    if isawaitable(result):  # not when the variables do not coerce
        result = await result
    assert isinstance(result, ExecutionResult)
    return result
