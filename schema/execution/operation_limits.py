"""What one GraphQL operation may ask for, measured on its document before anything runs.

Every figure here is linear in the document: a fragment's figures are computed once and
reused at each of its spreads, so a chain of fragments that each spread the next one
twice costs no more to measure than to read (the numbers themselves may be huge). The
walks use explicit stacks, so no nesting can exhaust the interpreter's recursion. A
fragment that is unknown, or whose spread closes a cycle, counts as empty: graphql-core's
KnownFragmentNamesRule and NoFragmentCyclesRule report those.

Pure functions over graphql-core's AST and schema: both faces use them, /graphql through
`schema.execution.guard` and REST on its persisted documents. What an operation costs is priced by
`schema.execution.operation_cost`.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, cast

from graphql import (
    ASTValidationRule,
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    GraphQLField,
    InlineFragmentNode,
    Node,
    OperationDefinitionNode,
    OverlappingFieldsCanBeMergedRule,
    SchemaMetaFieldDef,
    SelectionNode,
    SelectionSetNode,
    Token,
    TokenKind,
    TypeMetaFieldDef,
    ValidationContext,
)
from graphql.validation.validate import ValidationAbortedError

from resolvers.limits import (
    BYTES_PER_TOKEN,
    MAX_NUMBER_LITERAL_CHARS,
    OVERLAP_COMPARISON_BUDGET,
)
from storage.settings import Settings

META_FIELDS: dict[str, GraphQLField] = {"__schema": SchemaMetaFieldDef, "__type": TypeMetaFieldDef}
Fragments = dict[str, FragmentDefinitionNode]


@dataclass(frozen=True)
class OperationLimits:
    """The deployment's limits of one GraphQL document and operation."""

    max_depth: int
    max_aliases: int
    max_fragment_spreads: int
    max_cost: int  # of an operation with a key
    max_cost_without_key: int = 0  # of one without (introspection only); 0: max_cost

    @classmethod
    def from_settings(cls, settings: Settings) -> OperationLimits:
        return cls(
            max_depth=settings.graphql_max_depth,
            max_aliases=settings.graphql_max_aliases,
            max_fragment_spreads=settings.graphql_max_fragment_spreads,
            max_cost=settings.graphql_max_cost,
            max_cost_without_key=settings.graphql_max_cost_without_key,
        )

    def cost_limit(self, keyless: bool) -> int:
        """The ceiling of one operation: a request without a key can only introspect, and
        pays for it with its address's few tokens, so its ceiling is much lower."""
        if keyless and self.max_cost_without_key:
            return min(self.max_cost, self.max_cost_without_key)
        return self.max_cost


def fragments_of(document: DocumentNode) -> Fragments:
    return {
        definition.name.value: definition
        for definition in document.definitions
        if isinstance(definition, FragmentDefinitionNode)
    }


def dependency_order(spreads: Mapping[str, Sequence[str]], roots: Iterable[str]) -> list[str]:
    """The known fragments reachable from `roots`, each after every fragment it spreads,
    except the one a spread closes a cycle with (that spread then finds nothing)."""
    order: list[str] = []
    entered: set[str] = set()
    for root in roots:
        if root in entered or root not in spreads:
            continue
        entered.add(root)
        path: list[tuple[str, Iterator[str]]] = [(root, iter(spreads[root]))]
        while path:
            name, targets = path[-1]
            for target in targets:
                if target in spreads and target not in entered:
                    entered.add(target)
                    path.append((target, iter(spreads[target])))
                    break
            else:
                path.pop()
                order.append(name)
    return order


def spread_names(selection_set: SelectionSetNode) -> list[str]:
    """The fragments spread anywhere below a selection set, in document order."""
    names: list[str] = []
    stack: list[Iterator[SelectionNode]] = [iter(selection_set.selections)]
    while stack:
        selection = next(stack[-1], None)
        if selection is None:
            stack.pop()
        elif isinstance(selection, FragmentSpreadNode):
            names.append(selection.name.value)
        else:  # a field or an inline fragment
            below = cast("FieldNode | InlineFragmentNode", selection).selection_set
            if below is not None:
                stack.append(iter(below.selections))
    return names


# Depth, aliases and fragment spreads: strawberry's QueryDepthLimiter and
# MaxAliasesLimiter count the same, but walk a fragment again at every spread.


class Spread(NamedTuple):
    fragment: str
    level: int  # the level of the fields it brings in (root fields are level 0)
    counted: bool  # False below an introspection field, which depth does not count


@dataclass
class LocalFigures:
    """One definition's own figures, its spreads not followed."""

    aliases: int = 0
    depth: int = -1  # level of its deepest counted field; -1 without any
    deepest: FieldNode | None = None
    spreads: list[Spread] = field(default_factory=list)


class Figures(NamedTuple):
    """A definition's figures with its fragments followed, each at every spread."""

    aliases: int
    depth: int
    deepest: FieldNode | None


class OperationDepth(NamedTuple):
    name: str  # as the error names it: the operation's name, or 'anonymous'
    depth: int
    deepest: FieldNode | None


@dataclass(frozen=True)
class DocumentFigures:
    spreads: int  # fragment spreads written in the document
    aliases: int  # aliased fields of every operation, fragments counted at each spread
    operations: tuple[OperationDepth, ...]


def local_figures(selection_set: SelectionSetNode) -> LocalFigures:
    """Depth counts a field's level, the fields below an introspection field excepted
    (the field itself counts); aliases count every aliased field."""
    local = LocalFigures()
    stack: list[tuple[Iterator[SelectionNode], int, bool]] = [
        (iter(selection_set.selections), 0, True)
    ]
    while stack:
        selections, level, counted = stack[-1]
        selection = next(selections, None)
        if selection is None:
            stack.pop()
        elif isinstance(selection, FieldNode):
            if selection.alias is not None:
                local.aliases += 1
            if counted and level > local.depth:
                local.depth, local.deepest = level, selection
            if selection.selection_set is not None:
                below = counted and not selection.name.value.startswith("__")
                stack.append((iter(selection.selection_set.selections), level + 1, below))
        elif isinstance(selection, InlineFragmentNode):
            stack.append((iter(selection.selection_set.selections), level, counted))
        elif isinstance(selection, FragmentSpreadNode):
            local.spreads.append(Spread(selection.name.value, level, counted))
    return local


def followed(local: LocalFigures, fragments: Mapping[str, Figures]) -> Figures:
    aliases, depth, deepest = local.aliases, local.depth, local.deepest
    for spread in local.spreads:
        inner = fragments.get(spread.fragment)
        if inner is None:  # unknown, or closing a cycle
            continue
        aliases += inner.aliases
        if spread.counted and inner.depth >= 0 and spread.level + inner.depth > depth:
            depth, deepest = spread.level + inner.depth, inner.deepest
    return Figures(aliases, depth, deepest)


def document_figures(document: DocumentNode) -> DocumentFigures:
    """Depth of each operation, aliases of all, and spreads: in one pass over the document
    and one over its fragments."""
    locals_: dict[str, LocalFigures] = {}
    operations: list[tuple[str, LocalFigures]] = []
    spreads = 0
    for definition in document.definitions:
        if isinstance(definition, FragmentDefinitionNode):
            local = locals_[definition.name.value] = local_figures(definition.selection_set)
        elif isinstance(definition, OperationDefinitionNode):
            name = definition.name.value if definition.name else "anonymous"
            local = local_figures(definition.selection_set)
            operations.append((name, local))
        else:
            continue
        spreads += len(local.spreads)
    graph = {name: [spread.fragment for spread in local.spreads] for name, local in locals_.items()}
    fragments: dict[str, Figures] = {}
    for name in dependency_order(graph, graph):
        fragments[name] = followed(locals_[name], fragments)
    aliases = 0
    depths: list[OperationDepth] = []
    for name, local in operations:
        figures = followed(local, fragments)
        aliases += figures.aliases
        depths.append(OperationDepth(name, figures.depth, figures.deepest))
    return DocumentFigures(spreads, aliases, tuple(depths))


def figure_problem(figures: DocumentFigures, limits: OperationLimits) -> GraphQLError | None:
    """The first limit the document exceeds, in strawberry's words for depth and aliases."""
    if figures.spreads > limits.max_fragment_spreads:
        return GraphQLError(
            f"{figures.spreads} fragment spreads found. Allowed: {limits.max_fragment_spreads}"
        )
    for operation in figures.operations:
        if operation.depth > limits.max_depth:
            return GraphQLError(
                f"'{operation.name}' exceeds maximum operation depth of {limits.max_depth}",
                operation.deepest,
            )
    if figures.aliases > limits.max_aliases:
        return GraphQLError(f"{figures.aliases} aliases found. Allowed: {limits.max_aliases}")
    return None


def number_problem(document: DocumentNode) -> GraphQLError | None:
    """A number literal longer than MAX_NUMBER_LITERAL_CHARS, as a validation error: Int's
    `int()` refuses more than 4,300 digits with a ValueError, which graphql-core passes on
    as if it were the server's fault (a 500)."""
    token = document.loc.start_token if document.loc is not None else None
    while token is not None:
        if token.kind in (TokenKind.INT, TokenKind.FLOAT) and (
            len(token.value or "") > MAX_NUMBER_LITERAL_CHARS
        ):
            return GraphQLError(
                f"Number literal of {len(token.value or '')} characters: "
                f"at most {MAX_NUMBER_LITERAL_CHARS}",
                source=document.loc.source if document.loc else None,
                positions=[token.start],
            )
        token = token.next
    return None


def token_count(document: DocumentNode) -> int:
    """The document's tokens, comments included (what its validation walks, and more)."""
    count = 0
    token = document.loc.start_token if document.loc is not None else None
    while token is not None:
        count, token = count + 1, token.next
    return count


def token_counts(document: DocumentNode) -> tuple[int, int]:
    """(tokens, words): the document's tokens with comments, and without (what its
    validation walks, and what a new document's validation is charged by)."""
    count = words = 0
    token = document.loc.start_token if document.loc is not None else None
    while token is not None:
        count += 1
        words += token.kind is not TokenKind.COMMENT
        token = token.next
    return count, words


def rough_size(node: Node) -> int:
    """Bytes the parsed document of `node` keeps alive, roughly: its text, the values of
    its tokens (strings and comments are copied) and BYTES_PER_TOKEN for each token with
    its node. Every node's location links the whole token list, so anything that holds
    one node (a validation error, a plan) holds all of this."""
    if node.loc is None:
        return BYTES_PER_TOKEN
    size = sys.getsizeof(node.loc.source.body)
    first = node.loc.start_token
    while first.prev is not None:
        first = first.prev
    token: Token | None = first
    while token is not None:
        size += BYTES_PER_TOKEN + (0 if token.value is None else sys.getsizeof(token.value))
        token = token.next
    return size


def root_field_names(document: DocumentNode, operation: OperationDefinitionNode) -> list[str]:
    """The operation's root fields through fragment spreads and inline fragments (each
    fragment once), in document order and once each, introspection fields left out."""
    fragments = fragments_of(document)
    names: dict[str, None] = {}
    entered: set[str] = set()
    stack: list[Iterator[SelectionNode]] = [iter(operation.selection_set.selections)]
    while stack:
        selection = next(stack[-1], None)
        if selection is None:
            stack.pop()
        elif isinstance(selection, FieldNode):
            if not selection.name.value.startswith("__"):
                names.setdefault(selection.name.value)
        elif isinstance(selection, InlineFragmentNode):
            stack.append(iter(selection.selection_set.selections))
        elif isinstance(selection, FragmentSpreadNode):
            name = selection.name.value
            if name not in entered and name in fragments:
                entered.add(name)
                stack.append(iter(fragments[name].selection_set.selections))
    return list(names)


# graphql-core's own rules are linear but one: OverlappingFieldsCanBeMergedRule compares
# fields that share a response name pairwise. Its budget of comparisons is lowered from
# graphql-core's 500,000 (seconds of work) to one request's worth.

OVERLAP_ABORTED = (
    "Validation aborted: too many fields share a response name to compare them all. "
    "Give repeated fields distinct aliases, or spread fewer fragments side by side."
)


class BoundedOverlappingFieldsRule(OverlappingFieldsCanBeMergedRule):
    """OverlappingFieldsCanBeMergedRule within OVERLAP_COMPARISON_BUDGET."""

    def __init__(self, context: ValidationContext) -> None:
        super().__init__(context)
        self.rule_context.remaining_complexity_budget = OVERLAP_COMPARISON_BUDGET

    def enter_selection_set(self, *args: Any) -> None:
        try:
            super().enter_selection_set(*args)
        except ValidationAbortedError:
            if self.rule_context.remaining_complexity_budget >= 0:
                raise  # the error limit, not the budget
            raise ValidationAbortedError(OVERLAP_ABORTED) from None


def bounded_rules(
    rules: Iterable[type[ASTValidationRule]],
) -> tuple[type[ASTValidationRule], ...]:
    """The rules, with the bounded overlap rule in place of graphql-core's."""
    return tuple(
        BoundedOverlappingFieldsRule if rule is OverlappingFieldsCanBeMergedRule else rule
        for rule in rules
    )
