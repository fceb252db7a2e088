"""What one GraphQL operation may ask for, measured on its document before anything runs.

Every figure here is linear in the document: a fragment's figures are computed once and
reused at each of its spreads, so a chain of fragments that each spread the next one
twice costs no more to measure than to read (the numbers themselves may be huge). The
walks use explicit stacks, so no nesting can exhaust the interpreter's recursion. A
fragment that is unknown, or whose spread closes a cycle, counts as empty: graphql-core's
KnownFragmentNamesRule and NoFragmentCyclesRule report those.

Pure functions over graphql-core's AST and schema: both faces use them, /graphql through
`schema.guard` and REST on its persisted documents.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, NamedTuple

from graphql import (
    ASTValidationRule,
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLArgument,
    GraphQLError,
    GraphQLField,
    GraphQLNamedType,
    GraphQLSchema,
    InlineFragmentNode,
    IntValueNode,
    ListValueNode,
    Node,
    NullValueNode,
    ObjectValueNode,
    OperationDefinitionNode,
    OverlappingFieldsCanBeMergedRule,
    SchemaMetaFieldDef,
    SelectionNode,
    SelectionSetNode,
    StringValueNode,
    TokenKind,
    TypeMetaFieldDef,
    ValidationContext,
    ValueNode,
    VariableNode,
    get_named_type,
    get_nullable_type,
    get_operation_ast,
    is_abstract_type,
    is_composite_type,
    is_enum_type,
    is_input_object_type,
    is_interface_type,
    is_list_type,
    is_object_type,
    is_scalar_type,
)
from graphql.validation.validate import ValidationAbortedError

from resolvers.errors import ApiError, ErrorCode
from resolvers.limits import (
    BYTES_PER_TOKEN,
    DEFAULT_LIST_ESTIMATE,
    DEFAULT_PER_PAGE,
    FIELD_COSTS,
    INPUT_CHARS_PER_COST,
    LIST_ESTIMATES,
    MAX_NUMBER_LITERAL_CHARS,
    MAX_PER_PAGE,
    OVERLAP_COMPARISON_BUDGET,
)
from storage.settings import Settings

PER_PAGE = "perPage"
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
        elif selection.selection_set is not None:  # a field or an inline fragment
            stack.append(iter(selection.selection_set.selections))
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


def rough_size(node: Node) -> int:
    """Bytes the parsed document of `node` keeps alive, roughly: its text, the values of
    its tokens (strings and comments are copied) and BYTES_PER_TOKEN for each token with
    its node. Every node's location links the whole token list, so anything that holds
    one node (a validation error, a plan) holds all of this."""
    if node.loc is None:
        return BYTES_PER_TOKEN
    size = sys.getsizeof(node.loc.source.body)
    token = node.loc.start_token
    while token.prev is not None:
        token = token.prev
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


# Cost: see resolvers.limits for the model and its tables.


@lru_cache(maxsize=8)
def page_envelopes(schema: GraphQLSchema) -> frozenset[str]:
    """Object types that a paged field returns whole (`AssetPage`, `LocationList`): the
    page size already counts the items of their lists."""
    names: set[str] = set()
    for named in schema.type_map.values():
        if not is_object_type(named) or named.name.startswith("__"):
            continue
        for definition in named.fields.values():
            returned = get_nullable_type(definition.type)
            if PER_PAGE in definition.args and is_object_type(returned):
                names.add(returned.name)
    return frozenset(names)


WRAPPING = "ofType"  # the deepest `[T!]!`-like wrapping of the schema: 3


def wrapping(kind: Any) -> int:
    """How many list and non-null wrappers a type reference has: `[T!]!` has 3."""
    depth = 0
    while hasattr(kind, "of_type"):
        kind, depth = kind.of_type, depth + 1
    return depth


@lru_cache(maxsize=8)
def introspection_estimates(schema: GraphQLSchema) -> dict[str, int]:
    """How many items each introspection list walks, from the schema itself: every type
    under `__schema { types }`, then per type (or field, or directive) the schema's
    average, rounded up, at least one. `types { fields { ... } }` then counts every field
    of the schema, as its execution resolves them. A type reference's `ofType` chain
    (GraphiQL asks for 8 levels) costs nothing past the schema's deepest wrapping."""
    types = list(schema.type_map.values())
    composite = [t for t in types if is_object_type(t) or is_interface_type(t)]
    fields = [f for t in composite for f in t.fields.values()]
    directives = list(schema.directives)

    def per(count: int, among: int) -> int:
        return max(1, math.ceil(count / max(1, among)))

    wrappings = [wrapping(f.type) for f in fields]
    wrappings += [wrapping(a.type) for f in fields for a in f.args.values()]
    wrappings += [wrapping(f.type) for t in types if is_input_object_type(t)
                  for f in t.fields.values()]  # fmt: skip
    return {
        WRAPPING: max(wrappings, default=0),
        "__Schema.types": len(types),
        "__Schema.directives": len(directives),
        "__Type.fields": per(len(fields), len(types)),
        "__Type.interfaces": per(sum(len(t.interfaces) for t in composite), len(types)),
        "__Type.possibleTypes": per(
            sum(len(schema.get_possible_types(t)) for t in types if is_abstract_type(t)),
            len(types),
        ),
        "__Type.enumValues": per(
            sum(len(t.values) for t in types if is_enum_type(t)), len(types)
        ),
        "__Type.inputFields": per(
            sum(len(t.fields) for t in types if is_input_object_type(t)), len(types)
        ),
        "__Field.args": per(sum(len(f.args) for f in fields), len(fields)),
        "__Directive.args": per(sum(len(d.args) for d in directives), len(directives)),
    }


@dataclass(slots=True)
class Frame:
    """A selection set being priced: its cost is base + multiplier x total. An inline
    fragment's (base 0, multiplier 1) is the sum of its fields."""

    selections: Iterator[SelectionNode]
    parent: GraphQLNamedType | None
    base: int = 0  # 1 + the own cost of the field it belongs to
    multiplier: int = 1
    total: int = 0  # the cost of the selections seen so far
    wrapped: int = 0  # `__Type.ofType` fields around this one (a type reference's depth)


class Pricing:
    """The cost of fields under one operation's variables (fixed for the request, so a
    fragment's cost holds wherever it is spread)."""

    def __init__(
        self,
        schema: GraphQLSchema,
        operation: OperationDefinitionNode,
        variables: Mapping[str, Any],
    ) -> None:
        self.schema = schema
        self.variables = variables
        self.defaults: dict[str, ValueNode] = {
            definition.variable.name.value: definition.default_value
            for definition in operation.variable_definitions or ()
            if definition.default_value is not None
        }
        self.envelopes = page_envelopes(schema)
        self.variable_chars: dict[str, int] = {}

    def selection_cost(
        self,
        selection_set: SelectionSetNode,
        parent: GraphQLNamedType | None,
        fragments: Mapping[str, int],
    ) -> int:
        """The sum of the selected fields' costs; `fragments` holds the cost of each
        fragment already priced (others count 0)."""
        stack = [Frame(iter(selection_set.selections), parent)]
        while True:
            frame = stack[-1]
            selection = next(frame.selections, None)
            if selection is None:
                stack.pop()
                cost = frame.base + frame.multiplier * frame.total
                if not stack:
                    return cost
                stack[-1].total += cost
            elif isinstance(selection, FieldNode):
                base, multiplier, child = self.field_terms(frame.parent, selection)
                if selection.selection_set is None:
                    frame.total += base
                    continue
                wrapped = frame.wrapped
                if frame.parent is not None and frame.parent.name == "__Type" and (
                    selection.name.value == "ofType"
                ):
                    wrapped += 1  # past the schema's deepest wrapping, ofType is null
                    if wrapped > introspection_estimates(self.schema)[WRAPPING]:
                        multiplier = 0
                selections = iter(selection.selection_set.selections)
                stack.append(Frame(selections, child, base, multiplier, wrapped=wrapped))
            elif isinstance(selection, InlineFragmentNode):
                condition = selection.type_condition
                inner = self.schema.get_type(condition.name.value) if condition else frame.parent
                stack.append(Frame(iter(selection.selection_set.selections), inner,
                                   wrapped=frame.wrapped))  # fmt: skip
            elif isinstance(selection, FragmentSpreadNode):
                frame.total += fragments.get(selection.name.value, 0)

    def field_terms(
        self, parent: GraphQLNamedType | None, node: FieldNode
    ) -> tuple[int, int, GraphQLNamedType | None]:
        """1 plus the field's own cost, its multiplier, and the type of its selection."""
        name = node.name.value
        if name.startswith("__"):
            meta = META_FIELDS.get(name)
            return 1, 1, get_named_type(meta.type) if meta else None
        fields: dict[str, GraphQLField] = getattr(parent, "fields", None) or {}
        definition = fields.get(name)
        if parent is None or definition is None:  # not valid: validation reports it
            return 1, 1, None
        child = get_named_type(definition.type)
        if parent.name.startswith("__"):  # introspection: what it walks (no own cost)
            key = f"{parent.name}.{name}"
            return 1, introspection_estimates(self.schema).get(key, 1), child
        key = f"{parent.name}.{name}"
        base = 1
        own = FIELD_COSTS.get(key)
        if own is not None:
            base += own + self.input_chars(node) // INPUT_CHARS_PER_COST
        return base, self.multiplier(parent, definition, node, key), child

    def multiplier(
        self, parent: GraphQLNamedType, definition: GraphQLField, node: FieldNode, key: str
    ) -> int:
        argument = definition.args.get(PER_PAGE)
        if argument is not None:
            return self.page_size(node, argument)
        returned = get_nullable_type(definition.type)
        if is_list_type(returned) and is_composite_type(get_named_type(returned)):
            if parent.name in self.envelopes:
                return 1
            return LIST_ESTIMATES.get(key, DEFAULT_LIST_ESTIMATE)
        return 1

    def page_size(self, node: FieldNode, argument: GraphQLArgument) -> int:
        """The page size the resolver will use: absent or null is the default, more than
        the maximum is clamped; a value that is no integer or below 1 counts 1 (the
        request fails before or in the resolver)."""
        value_node = next(
            (given.value for given in node.arguments or () if given.name.value == PER_PAGE),
            None,
        )
        value: Any = None
        if isinstance(value_node, VariableNode):
            name = value_node.name.value
            if name in self.variables:
                raw = self.variables[name]
                scalar = get_nullable_type(argument.type)
                if raw is not None and not is_scalar_type(scalar):
                    return 1
                try:
                    value = None if raw is None else scalar.parse_value(raw)  # Int's coercion
                except (GraphQLError, TypeError, ValueError, ArithmeticError):
                    return 1
            else:
                value_node = self.defaults.get(name)
        if isinstance(value_node, IntValueNode):
            value = int(value_node.value)
        elif value_node is not None and not isinstance(value_node, (VariableNode, NullValueNode)):
            return 1
        if value is None:
            return DEFAULT_PER_PAGE
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            return 1
        return min(value, MAX_PER_PAGE)

    def input_chars(self, node: FieldNode) -> int:
        """Characters of the strings in a field's arguments, variables included."""
        chars = 0
        stack: list[ValueNode] = [argument.value for argument in node.arguments or ()]
        while stack:
            value = stack.pop()
            if isinstance(value, StringValueNode):
                chars += len(value.value)
            elif isinstance(value, ListValueNode):
                stack.extend(value.values or ())
            elif isinstance(value, ObjectValueNode):
                stack.extend(member.value for member in value.fields or ())
            elif isinstance(value, VariableNode):
                name = value.name.value
                if name in self.variables:
                    if name not in self.variable_chars:
                        self.variable_chars[name] = string_chars(self.variables[name])
                    chars += self.variable_chars[name]
                elif name in self.defaults:
                    stack.append(self.defaults[name])
        return chars


def string_chars(value: Any) -> int:
    """Characters of the strings in a JSON value (a variable's)."""
    chars = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            chars += len(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return chars


def operation_cost(
    schema: GraphQLSchema,
    document: DocumentNode,
    variables: Mapping[str, Any] | None,
    operation_name: str | None = None,
) -> int:
    """The cost of the operation that would run (0 when none can be chosen: nothing runs).

    Each fragment the operation reaches is priced once, after the fragments it spreads.
    """
    operation = get_operation_ast(document, operation_name)
    if operation is None:
        return 0
    root = schema.get_root_type(operation.operation)
    pricing = Pricing(schema, operation, variables or {})
    definitions = fragments_of(document)
    graph = {name: spread_names(fragment.selection_set) for name, fragment in definitions.items()}
    fragments: dict[str, int] = {}
    for name in dependency_order(graph, spread_names(operation.selection_set)):
        fragment = definitions[name]
        condition = schema.get_type(fragment.type_condition.name.value)
        fragments[name] = pricing.selection_cost(fragment.selection_set, condition, fragments)
    return pricing.selection_cost(operation.selection_set, root, fragments)


def check_cost(cost: int, limit: int) -> None:
    """Refuse an operation over the limit, before anything runs."""
    if cost > limit:
        raise ApiError(
            ErrorCode.COST_LIMIT,
            details={"cost": cost, "limit": limit},
            cost=str(cost),
            limit=str(limit),
        )


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

