"""The guard of every /graphql operation: who may ask, and how much, before anything runs.

Before graphql-core validates the document (parsed, within the token limit): the access
of the operation's root fields, as their permission classes name it (introspection needs
no key), so a caller without access learns nothing else and costs nothing more; then the
document's depth, aliases and fragment spreads, each measured in linear time. After a
valid document: the length of the variables' lists, then the operation's cost under the
request's variables against the limit, charged to the key's rate limit. A refusal raised
here is the operation's one error (data null).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import AsyncIterator

from graphql import (
    DocumentNode,
    GraphQLError,
    GraphQLSchema,
    OperationDefinitionNode,
    get_operation_ast,
)
from strawberry.extensions import SchemaExtension

from resolvers.access import authorize
from resolvers.context import RequestContext
from resolvers.errors import invalid
from resolvers.limits import MAX_INPUT_ITEMS
from resolvers.operation_limits import (
    OperationLimits,
    bounded_rules,
    check_cost,
    document_figures,
    figure_problem,
    operation_cost,
    root_field_names,
)
from resolvers.validation import oversized_lists
from schema.permissions import Requirement, field_requirement


def root_requirements(
    schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode
) -> list[Requirement]:
    """What the root fields demand, each requirement once, in document order. A field
    the schema does not have is left to validation."""
    root = schema.get_root_type(operation.operation)
    if root is None:
        return []
    requirements: dict[Requirement, None] = {}
    for name in root_field_names(document, operation):
        field = root.fields.get(name)
        requirement = field_requirement(field) if field is not None else None
        if requirement is not None:
            requirements.setdefault(requirement)
    return list(requirements)


class FigureChecks:
    """`figure_problem` once per parsed document: the parser cache hands the same
    document object back for the same text, so its figures are not measured again."""

    def __init__(self, limits: OperationLimits, size: int) -> None:
        self.limits = limits
        self.size = size
        self.checked: OrderedDict[int, tuple[DocumentNode, GraphQLError | None]] = OrderedDict()

    def problem(self, document: DocumentNode) -> GraphQLError | None:
        found = self.checked.get(id(document))
        if found is not None and found[0] is document:
            self.checked.move_to_end(id(document))
            return found[1]
        problem = figure_problem(document_figures(document), self.limits)
        self.checked[id(document)] = (document, problem)  # the entry keeps the id unique
        if len(self.checked) > self.size:
            self.checked.popitem(last=False)
        return problem


class OperationGuard(SchemaExtension):
    """Registered before `ValidationCache`, whose hook runs the validation."""

    def __init__(self, limits: OperationLimits, checks: FigureChecks | None = None) -> None:
        self.limits = limits
        self.checks = checks

    async def on_validate(self) -> AsyncIterator[None]:
        execution = self.execution_context
        document = execution.graphql_document
        assert document is not None, "validation follows a successful parse"
        schema = execution.schema._schema
        operation = get_operation_ast(document, execution.operation_name)
        context = execution.context
        # In-process execution without a request (tests, tools) has no caller to check:
        # the fields' permission classes still refuse it.
        keyed = False
        if isinstance(context, RequestContext) and operation is not None:
            requirements = root_requirements(schema, document, operation)
            for permission, flag in requirements:
                await authorize(context, permission=permission, flag=flag)
            keyed = bool(requirements)
        if self.checks is not None:
            problem = self.checks.problem(document)
        else:
            problem = figure_problem(document_figures(document), self.limits)
        if problem is not None:
            raise problem
        execution.validation_rules = bounded_rules(execution.validation_rules)
        yield
        if execution.pre_execution_errors or operation is None:
            return  # nothing runs
        # Before anything walks the variables (the cost, coercion): a huge list costs
        # nothing to refuse.
        oversized = [where for name, value in (execution.variables or {}).items()
                     for where in oversized_lists(value, MAX_INPUT_ITEMS, name)]  # fmt: skip
        if oversized:
            raise invalid({where: [f"must have at most {MAX_INPUT_ITEMS} items"]
                           for where in oversized})  # fmt: skip
        cost = operation_cost(schema, document, execution.variables, execution.operation_name)
        check_cost(cost, self.limits.max_cost)
        if keyed:
            assert isinstance(context, RequestContext)
            await context.charge(cost)
