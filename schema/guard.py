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
from collections.abc import AsyncIterator, Callable, Hashable, Iterator
from functools import lru_cache, partial
from typing import Any, Generic, TypeVar

from graphql import (
    DocumentNode,
    GraphQLError,
    GraphQLSchema,
    OperationDefinitionNode,
    get_operation_ast,
    parse,
    specified_rules,
)
from graphql.validation import ASTValidationRule
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

T = TypeVar("T")
KEYED_VARIABLES = 16  # a cost is kept for up to this many scalar variables
KEYED_STRING_CHARS = 256  # each string at most this long


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


class ByDocument(Generic[T]):
    """A bounded LRU of what was worked out for a parsed document, keyed by the
    document's identity and a small extra key. The parse cache hands the same object
    back for the same text, and graphql-core's nodes hash by walking all their children
    (about 0.1 ms of a small request for `lru_cache` over documents); the entry holds
    the document, which keeps its id unique."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.entries: OrderedDict[tuple[int, Hashable], tuple[DocumentNode, T]] = OrderedDict()

    def get(self, document: DocumentNode, extra: Hashable, make: Callable[[], T]) -> T:
        key = (id(document), extra)
        found = self.entries.get(key)
        if found is not None and found[0] is document:
            self.entries.move_to_end(key)
            return found[1]
        value = make()
        self.entries[key] = (document, value)
        if len(self.entries) > self.size:
            self.entries.popitem(last=False)
        return value


class DocumentCaches:
    """What each document costs once, shared by every operation of one schema: its
    parse (by text and parse options), then by parsed document its figures, its
    validation and its cost under small variables."""

    def __init__(self, limits: OperationLimits, size: int, max_tokens: int) -> None:
        self.limits = limits
        self.max_tokens = max_tokens
        self.parse = lru_cache(maxsize=size)(parse)
        self.figures: ByDocument[GraphQLError | None] = ByDocument(size)
        self.validations: ByDocument[list[GraphQLError]] = ByDocument(size)
        self.costs: ByDocument[int] = ByDocument(size * 4)

    def document(self, query: str) -> DocumentNode:
        """The parse of `query` within the token limit, shared with every operation's
        (`OperationGuard.on_parse` asks with the same options); GraphQLError if it fails."""
        return self.parse(query, max_tokens=self.max_tokens)

    def problem(self, document: DocumentNode) -> GraphQLError | None:
        """`figure_problem` of the document, measured once."""
        return self.figures.get(
            document, None, lambda: figure_problem(document_figures(document), self.limits)
        )

    def validate(
        self,
        schema: GraphQLSchema,
        document: DocumentNode,
        rules: tuple[type[ASTValidationRule], ...],
    ) -> list[GraphQLError]:
        """strawberry's validation (graphql-core's rules and its own two), once per
        document and rules."""
        return self.validations.get(
            document, rules, lambda: validate_document(schema, document, rules)
        )

    def cost(
        self,
        schema: GraphQLSchema,
        document: DocumentNode,
        variables: dict[str, Any] | None,
        operation_name: str | None,
    ) -> int:
        """`operation_cost`, kept per document, operation and variables when the variables
        are a few short scalars (a page size, an id); computed every time otherwise."""
        compute = partial(operation_cost, schema, document, variables, operation_name)
        key = scalar_key(variables)
        if key is None:
            return compute()
        return self.costs.get(document, (operation_name, key), compute)


def scalar_key(variables: dict[str, Any] | None) -> Hashable | None:
    """The variables as a small hashable key, or None when any is a list, an object or a
    long string, or there are many (their cost is worked out each time instead)."""
    if variables is not None and len(variables) > KEYED_VARIABLES:
        return None
    items = []
    for name, value in (variables or {}).items():
        if isinstance(value, str) and len(value) > KEYED_STRING_CHARS:
            return None
        if value is not None and not isinstance(value, str | int | float | bool):
            return None
        items.append((name, type(value).__name__, value))  # True is not 1
    return tuple(sorted(items))


VALIDATION_RULES = bounded_rules(specified_rules)  # graphql-core's, overlaps bounded


async def check_access(
    caches: DocumentCaches,
    schema: GraphQLSchema,
    document: DocumentNode,
    operation: OperationDefinitionNode | None,
    context: object,
) -> bool:
    """Before validation: the root fields' access, then the document's figures. True when
    the operation is keyed (its cost is then charged). Raises the refusal.

    In-process execution without a request (tests, tools) has no caller to check: the
    fields' permission classes still refuse it."""
    keyed = False
    if isinstance(context, RequestContext) and operation is not None:
        requirements = root_requirements(schema, document, operation)
        for permission, flag in requirements:
            await authorize(context, permission=permission, flag=flag)
        keyed = bool(requirements)
    problem = caches.problem(document)
    if problem is not None:
        raise problem
    return keyed


async def check_cost_of(
    caches: DocumentCaches,
    schema: GraphQLSchema,
    document: DocumentNode,
    operation_name: str | None,
    variables: dict[str, Any] | None,
    context: object,
    keyed: bool,
) -> None:
    """After a valid document, before anything walks the variables (the cost, coercion):
    a huge list costs nothing to refuse; then the cost against the limit, charged to the
    key's rate limit. Raises the refusal."""
    oversized = [where for name, value in (variables or {}).items()
                 for where in oversized_lists(value, MAX_INPUT_ITEMS, name)]  # fmt: skip
    if oversized:
        raise invalid({where: [f"must have at most {MAX_INPUT_ITEMS} items"]
                       for where in oversized})  # fmt: skip
    cost = caches.cost(schema, document, variables, operation_name)
    check_cost(cost, caches.limits.max_cost)
    if keyed:
        assert isinstance(context, RequestContext)
        await context.charge(cost)


class OperationGuard(SchemaExtension):
    """The one extension of every operation strawberry runs: the token limit and the
    cached parse, then `check_access` before the cached validation, then `check_cost_of`.
    One extension instead of four (strawberry's MaxTokensLimiter, ParserCache and
    ValidationCache did the same) halves strawberry's hook work per operation, about
    0.3 ms of a small request. (`schema.operation.run_operation` runs the same checks
    without strawberry's pipeline.)"""

    def __init__(self, caches: DocumentCaches) -> None:
        self.caches = caches

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
        keyed = await check_access(self.caches, schema, document, operation, execution.context)
        execution.validation_rules = bounded_rules(execution.validation_rules)
        execution.pre_execution_errors = self.caches.validate(
            schema, document, execution.validation_rules
        )
        yield
        if execution.pre_execution_errors or operation is None:
            return  # nothing runs
        await check_cost_of(self.caches, schema, document, execution.operation_name,
                            execution.variables, execution.context, keyed)  # fmt: skip
