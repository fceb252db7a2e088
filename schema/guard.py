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
from collections.abc import AsyncIterator, Iterator
from functools import lru_cache

from graphql import (
    DocumentNode,
    GraphQLError,
    GraphQLSchema,
    OperationDefinitionNode,
    get_operation_ast,
    parse,
)
from strawberry.extensions import SchemaExtension
from strawberry.schema.schema import validate_document

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


class DocumentCaches:
    """What each document costs once, shared by every operation of one schema: its
    parse (by text and parse options), its figures (by parsed document: the parse
    cache hands the same object back for the same text) and its validation."""

    def __init__(self, limits: OperationLimits, size: int, max_tokens: int) -> None:
        self.limits = limits
        self.size = size
        self.max_tokens = max_tokens
        self.parse = lru_cache(maxsize=size)(parse)
        self.validate = lru_cache(maxsize=size)(validate_document)
        self.checked: OrderedDict[int, tuple[DocumentNode, GraphQLError | None]] = OrderedDict()

    def document(self, query: str) -> DocumentNode:
        """The parse of `query` within the token limit, shared with every operation's
        (`OperationGuard.on_parse` asks with the same options); GraphQLError if it fails."""
        return self.parse(query, max_tokens=self.max_tokens)

    def problem(self, document: DocumentNode) -> GraphQLError | None:
        """`figure_problem` of the document, measured once."""
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
    """The one extension of every operation: the token limit and the cached parse, then
    access and the document's figures before the cached validation, then the variables'
    lists and the cost. One extension instead of four (strawberry's MaxTokensLimiter,
    ParserCache and ValidationCache did the same) halves strawberry's hook work per
    operation, about 0.3 ms of a small request."""

    def __init__(self, caches: DocumentCaches) -> None:
        self.caches = caches
        self.limits = caches.limits

    def on_operation(self) -> Iterator[None]:
        self.execution_context.parse_options["max_tokens"] = self.caches.max_tokens
        yield

    def on_parse(self) -> Iterator[None]:
        execution = self.execution_context
        execution.graphql_document = self.caches.parse(execution.query,
                                                       **execution.parse_options)  # fmt: skip
        yield

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
        problem = self.caches.problem(document)
        if problem is not None:
            raise problem
        execution.validation_rules = bounded_rules(execution.validation_rules)
        execution.pre_execution_errors = self.caches.validate(
            schema, document, execution.validation_rules
        )
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
