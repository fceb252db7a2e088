"""Which operations run on a direct plan (`schema.execution.direct`), the plan made from
an operation's compiled plan, and an operation run on it as graphql-core's `execute`
would answer it.

An operation runs directly when it is a query without directives of its own, and each
of its root fields is a row of the table (its strawberry resolver is the one
`schema.root_fields.root_field` generates, with no field extension but its permission
class) whose value the compiled plan completes (a plain selection). Anything else, and
any request the plan steps aside from, is executed by graphql-core.
"""

from __future__ import annotations

from typing import Any, cast

from graphql import (
    DocumentNode,
    ExecutionResult,
    FragmentDefinitionNode,
    GraphQLField,
    GraphQLSchema,
    OperationDefinitionNode,
    OperationType,
    VariableNode,
    is_non_null_type,
    located_error,
    value_from_ast,
)
from graphql.execution.collect_fields import FragmentDetails
from graphql.execution.values import get_variable_values
from graphql.pyutils import Undefined
from strawberry.permission import PermissionExtension

from schema.execution.compiled import SLOW, UNPLANNED, Plan
from schema.execution.direct import Argument, DirectPlan, DirectRoot, StepAside, run_direct
from schema.execution.plans import plans_of
from schema.execution.shapes import Generator, Obj, TooLarge, with_stored_ids
from schema.root_fields import PAGING, Kind, RootField

PAGING_NAMES = frozenset(arg.name for arg in PAGING)


def row_of(field: GraphQLField) -> RootField | None:
    """The table row a root field was generated from, when it runs nothing else: its
    resolver is the generated one and its only extension its permission class."""
    definition = field.extensions.get("strawberry-definition")
    resolver = getattr(definition, "base_resolver", None)
    row = getattr(getattr(resolver, "wrapped_func", None), "root_field", None)
    if not isinstance(row, RootField):
        return None
    assert definition is not None  # the row was found through it
    extensions = list(getattr(definition, "extensions", None) or ())
    if len(extensions) != 1 or not isinstance(extensions[0], PermissionExtension):
        return None
    if list(definition.permission_classes) != [row.permission]:
        return None
    return row


def direct_plan(
    schema: GraphQLSchema, operation: OperationDefinitionNode, plan: Plan
) -> DirectPlan | None:
    """The operation's direct plan, or None when graphql-core must run it."""
    root_type = schema.query_type
    if operation.operation is not OperationType.QUERY or operation.directives or root_type is None:
        return None
    roots = []
    stored = Generator(SLOW, Undefined)  # completers of pages read as stored, if any
    for key, details in plan.root.grouped_field_set.items():
        node = details[0].node
        field = root_type.fields.get(node.name.value)
        completion = plan.completions.get(id(details))
        if field is None or completion is None or completion.field_type is not field.type:
            return None
        row = row_of(field)
        if row is None or len(row.arguments) != len(field.args):
            return None
        given = {argument.name.value: argument.value for argument in node.arguments or ()}
        arguments, filters = [], []
        for position, (arg, (name, definition)) in enumerate(
            zip(row.arguments, field.args.items(), strict=True)
        ):
            default = definition.default_value
            default = None if default is Undefined else default
            required = is_non_null_type(definition.type)
            value = given.get(name)
            if value is None:
                arguments.append(Argument(name, None, default, required))
            elif isinstance(value, VariableNode):
                arguments.append(Argument(name, value.name.value, default, required))
            else:
                literal = value_from_ast(value, definition.type)
                if literal is Undefined:
                    return None
                arguments.append(Argument(name, None, literal, required))
            if arg.name not in PAGING_NAMES:
                filters.append(position)
        # A page's items are read as stored (`shapes.with_stored_ids`): graphql-core's
        # completion of the same field, when it runs, keeps reading them as API objects.
        page = row.kind is Kind.PAGE and isinstance(completion.shape, Obj)
        complete = completion.complete
        if page:
            try:  # `page`: its shape is an Obj
                complete = stored.completer(with_stored_ids(cast(Obj, completion.shape)))
            except TooLarge:  # its own bound on generated code: API objects, as before
                page = False
        roots.append(
            DirectRoot(
                key,
                node.name.value,
                row.resolver,
                tuple(arguments),
                (row.permission.required_permission, row.permission.required_flag),
                complete,
                not is_non_null_type(field.type),
                tuple(filters) if row.kind is Kind.PAGE else None,
                [d.node for d in details],  # a list: graphql-core takes a tuple for one node
                stored_ids=page,
            )
        )
    return DirectPlan(tuple(roots)) if roots else None


def fragments_of(document: DocumentNode) -> dict[str, FragmentDetails] | None:
    """The document's fragments as graphql-core's executor holds them; None when one
    declares variables of its own (graphql-core runs those)."""
    fragments = {}
    for definition in document.definitions:
        if isinstance(definition, FragmentDefinitionNode):
            if definition.variable_definitions:
                return None
            fragments[definition.name.value] = FragmentDetails(definition)
    return fragments


async def execute_directly(
    schema: GraphQLSchema,
    document: DocumentNode,
    operation: OperationDefinitionNode,
    variables: dict[str, Any] | None,
    context: Any,
) -> ExecutionResult | None:
    """The result graphql-core's `execute` gives for a valid `operation`, run on its
    direct plan; None when it has none or steps aside (nothing changed: the caller
    executes it through graphql-core)."""
    if operation.operation is not OperationType.QUERY:  # no direct plan: coerced once, there
        return None
    coerced = get_variable_values(
        schema, operation.variable_definitions or (), variables or {}, max_errors=50
    )
    fragments = fragments_of(document)
    if isinstance(coerced, list) or fragments is None:
        return None
    plan = plans_of(schema).get(schema, operation, fragments, coerced, False)
    if plan is None:
        return None
    direct = plan.direct
    if direct is UNPLANNED:  # made on first use, kept with the compiled plan
        direct = plan.direct = direct_plan(schema, operation, plan)
    if direct is None:
        return None
    try:
        outcome = await run_direct(direct, context, coerced.coerced)
    except StepAside:
        return None
    errors = [
        located_error(error, root.error_nodes, [root.key]) for root, error in outcome.failures
    ]
    return ExecutionResult(outcome.data, errors or None)
