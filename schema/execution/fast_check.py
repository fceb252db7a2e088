"""A single pass that accepts documents certainly valid under the guard's rules (issue 36;
docs/performance-history.md, "A fast path for valid documents").

graphql-core's `validate` runs about thirty rules as one parallel visit with TypeInfo:
50-60 ms for a valid page of 5,000 tokens, even sped up (`schema.execution.validation`).
Most documents the server sees are valid pages written by a frontend, and for those the
answer is an empty list. `certainly_valid` walks the document once and says True only
when every rule of the guard (graphql-core 3.3.2's `specified_rules` with the bounded
overlap rule, then strawberry's MaybeNull and OneOf rules) would pass it; anything it does
not handle, or any doubt, is False, and `validate_document` then runs the exact rules and
makes their errors. A wrong True would let an invalid document execute, so it is strict:
no subscriptions, no directives but @include and @skip, no null literals, no oneOf
inputs, no variables inside list or object literals, no introspection but `__typename`,
no fragment arguments, a nesting depth well below graphql-core's abort, and overlapping
fields only when they are the same field with the same arguments (see
`schema.execution.fast_check_overlap`, which also bounds the overlap rule's budget).
`tests/schema/test_fast_check.py` compares it with graphql-core on generated pages, with
and without mistakes, and on hand-written invalid documents.
"""

from __future__ import annotations

from typing import Any, cast

from graphql import (
    BooleanValueNode,
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLArgument,
    GraphQLCompositeType,
    GraphQLError,
    GraphQLIncludeDirective,
    GraphQLInputType,
    GraphQLInterfaceType,
    GraphQLObjectType,
    GraphQLSchema,
    GraphQLSkipDirective,
    InlineFragmentNode,
    ListValueNode,
    ObjectValueNode,
    OperationDefinitionNode,
    OperationType,
    SelectionSetNode,
    ValueNode,
    VariableNode,
    do_types_overlap,
    get_named_type,
    get_nullable_type,
    is_composite_type,
    is_input_object_type,
    is_input_type,
    is_leaf_type,
    is_list_type,
    is_required_argument,
    type_from_ast,
)
from graphql.language import DirectiveNode
from graphql.type import assert_valid_schema
from graphql.utilities.validate_input_value import validate_input_literal
from graphql.validation import ASTValidationRule
from graphql.validation.rules.variables_in_allowed_position import allowed_variable_usage

from resolvers.limits import OVERLAP_COMPARISON_BUDGET
from schema.execution.fast_check_overlap import Bail, Collected, Entry, Overlaps
from schema.execution.validation import validate_document as validate_exactly

# Selection sets nested in one operation, fragments followed (graphql-core aborts past
# 200, and its overlap rule recurses a few frames a level): deeper is left to it.
MAX_NESTING = 48
# The overlap rule's budget that a document may need by the bound: at most this share.
OVERLAP_SHARE = 0.9
CONDITIONS = (GraphQLIncludeDirective, GraphQLSkipDirective)
Usage = tuple[str, GraphQLInputType, Any]  # variable, type of its place, the place's default


class Definition:
    """What one operation or fragment holds: variable usages, spreads and depth."""

    __slots__ = ("depth", "spreads", "usages")

    def __init__(self) -> None:
        self.usages: list[Usage] = []
        self.spreads: list[tuple[str, int]] = []  # fragment, nesting of the set spreading it
        self.depth = 0  # nesting of its deepest selection set (its own set is 1)

    def use(self, variable: VariableNode, argument: GraphQLArgument) -> None:
        self.usages.append((variable.name.value, argument.type, location_default(argument)))


def location_default(argument: GraphQLArgument) -> Any:
    """The default of an argument as graphql-core's TypeInfo gives it to usages."""
    return argument.default if argument.default is not None else argument.default_value


def value_key(node: ValueNode) -> Any:
    """A hashable form of a value: equal forms mean equal values to the overlap rule
    (which compares kinds and values, object fields by name, variables by name)."""
    if isinstance(node, ListValueNode):
        return ("list", tuple(value_key(value) for value in node.values))
    if isinstance(node, ObjectValueNode):
        return ("object", tuple((f.name.value, value_key(f.value)) for f in node.fields))
    if isinstance(node, VariableNode):
        return ("variable", node.name.value)
    return (node.kind, getattr(node, "value", None), getattr(node, "block", None))


def plain_literal(node: ValueNode, type_: GraphQLInputType) -> None:
    """Bail on what the value rules of strawberry or a usage would need more for: null,
    a variable inside a literal, an object that is not of a plain input object type
    (oneOf, or a scalar's), an object field twice or unknown."""
    if isinstance(node, ListValueNode | ObjectValueNode):
        nullable: Any = get_nullable_type(type_)
        if isinstance(node, ListValueNode):
            if not is_list_type(nullable):
                raise Bail
            for value in node.values or ():
                plain_literal(value, nullable.of_type)
            return
        named: Any = get_named_type(type_)  # a list of one object is coerced from one
        strawberry = named.extensions.get("strawberry-definition") if named else None
        if not is_input_object_type(named) or named.is_one_of:
            raise Bail
        if getattr(strawberry, "is_one_of", False):
            raise Bail
        names: set[str] = set()
        for field in node.fields or ():
            definition = named.fields.get(field.name.value)
            if definition is None or field.name.value in names:
                raise Bail
            names.add(field.name.value)
            plain_literal(field.value, definition.type)
    elif node.kind in ("null_value", "variable"):
        raise Bail


def check_literal(node: ValueNode, type_: GraphQLInputType) -> None:
    """A literal value is valid for `type_` by graphql-core's own check (that of
    ValuesOfCorrectTypeRule), and nothing strawberry's rules report is in it."""
    plain_literal(node, type_)
    errors: list[GraphQLError] = []
    validate_input_literal(node, type_, lambda error, _path: errors.append(error), None, None, True)
    if errors:
        raise Bail


class Walk:
    """One pass over a document's definitions, raising Bail at the first doubt."""

    def __init__(self, schema: GraphQLSchema) -> None:
        self.schema = schema
        self.roots: list[Collected] = []  # selection sets the overlap rule compares within
        self.spread_places: dict[tuple[str, int], GraphQLCompositeType] = {}
        self.spread_nodes = 0
        self.required: dict[int, tuple[str, ...]] = {}  # id(field): required arguments

    def selection_set(
        self, node: SelectionSetNode, parent: GraphQLCompositeType, owner: Definition, depth: int
    ) -> Collected:
        """The collected fields of a field's, fragment's or operation's selection set."""
        selections = node.selections
        if not selections:
            raise Bail
        collected = Collected()
        self.collect(node, parent, collected, owner, depth)
        collected.done()
        if len(selections) > 1 or isinstance(selections[0], InlineFragmentNode):
            self.roots.append(collected)
        return collected

    def collect(
        self,
        node: SelectionSetNode,
        parent: GraphQLCompositeType,
        collected: Collected,
        owner: Definition,
        depth: int,
    ) -> None:
        if depth > MAX_NESTING or not node.selections:
            raise Bail
        if depth > owner.depth:
            owner.depth = depth
        for selection in node.selections:
            if selection.directives:
                self.directives(selection.directives, owner)
            if isinstance(selection, FieldNode):
                self.field(selection, parent, collected, owner, depth)
            elif isinstance(selection, FragmentSpreadNode):
                if getattr(selection, "arguments", None):
                    raise Bail  # fragment arguments (experimental syntax)
                name = selection.name.value
                collected.spreads.append(name)
                owner.spreads.append((name, depth))
                self.spread_places[(name, id(parent))] = parent
                self.spread_nodes += 1
            elif isinstance(selection, InlineFragmentNode):
                condition = selection.type_condition
                inner: Any = parent
                if condition is not None:
                    inner = self.schema.get_type(condition.name.value)
                    if not is_composite_type(inner):
                        raise Bail
                    if not do_types_overlap(self.schema, inner, parent):
                        raise Bail
                self.collect(selection.selection_set, inner, collected, owner, depth + 1)
            else:
                raise Bail

    def field(
        self,
        node: FieldNode,
        parent: GraphQLCompositeType,
        collected: Collected,
        owner: Definition,
        depth: int,
    ) -> None:
        name = node.name.value
        if name == "__typename":
            if node.arguments or node.selection_set is not None:
                raise Bail
            entry = Entry(node, parent, None, None, None)
        else:
            if not isinstance(parent, GraphQLObjectType | GraphQLInterfaceType):
                raise Bail  # a union's fields, or __schema and __type
            definition = parent.fields.get(name)
            if definition is None or name.startswith("__"):
                raise Bail
            args = self.arguments(node, definition.args, owner)
            named = get_named_type(definition.type)
            sub = None
            if is_leaf_type(named):
                if node.selection_set is not None:
                    raise Bail
            elif node.selection_set is None:
                raise Bail
            else:
                sub = self.selection_set(node.selection_set, named, owner, depth + 1)
            entry = Entry(node, parent, definition.type, args, sub)
        collected.add(node.alias.value if node.alias is not None else name, entry)

    def arguments(
        self, node: FieldNode, definitions: dict[str, GraphQLArgument], owner: Definition
    ) -> Any:
        """Known, unique, required ones present, values valid; their key for overlaps."""
        required = self.required.get(id(definitions))
        if required is None:
            required = tuple(n for n, arg in definitions.items() if is_required_argument(arg))
            self.required[id(definitions)] = required
        if not node.arguments:
            if required:
                raise Bail
            return None
        key = []
        for argument in node.arguments:
            name = argument.name.value
            definition = definitions.get(name)
            if definition is None:
                raise Bail
            value = argument.value
            if isinstance(value, VariableNode):
                owner.use(value, definition)
            else:
                check_literal(value, definition.type)
            key.append((name, value_key(value)))
        names = {name for name, _value in key}
        if len(names) < len(key) or not names.issuperset(required):
            raise Bail
        return tuple(sorted(key))

    def directives(self, nodes: tuple[DirectiveNode, ...], owner: Definition) -> None:
        """Only @include and @skip, once each, with a Boolean literal or a variable."""
        seen: set[str] = set()
        for node in nodes:
            name = node.name.value
            directive = self.schema.get_directive(name)
            if not any(directive is known for known in CONDITIONS):
                raise Bail
            arguments = node.arguments or ()
            if name in seen or len(arguments) != 1:
                raise Bail
            seen.add(name)
            argument = arguments[0]
            assert directive is not None  # one of CONDITIONS
            definition = directive.args.get(argument.name.value)
            if definition is None:
                raise Bail
            value = argument.value
            if isinstance(value, VariableNode):
                owner.use(value, definition)
            elif not isinstance(value, BooleanValueNode):
                raise Bail


def split(document: DocumentNode) -> tuple[list[OperationDefinitionNode], dict[str, Any]]:
    """Operations and fragments by name; Bail on anything else, a name twice, or an
    anonymous operation beside another."""
    operations: list[OperationDefinitionNode] = []
    fragments: dict[str, FragmentDefinitionNode] = {}
    names: set[str] = set()
    for definition in document.definitions:
        if isinstance(definition, FragmentDefinitionNode):
            name = definition.name.value
            if name in fragments or definition.directives:
                raise Bail
            if getattr(definition, "variable_definitions", None):
                raise Bail
            fragments[name] = definition
        elif isinstance(definition, OperationDefinitionNode):
            if definition.name is not None:
                if definition.name.value in names:
                    raise Bail
                names.add(definition.name.value)
            operations.append(definition)
        else:
            raise Bail
    if not operations or (len(operations) > 1 and len(names) < len(operations)):
        raise Bail
    return operations, fragments


def variables_of(schema: GraphQLSchema, operation: OperationDefinitionNode) -> dict[str, Any]:
    """The operation's variables: name to (type, default); unique, of known input types,
    defaults valid, no directives."""
    defined: dict[str, Any] = {}
    for definition in operation.variable_definitions or ():
        name = definition.variable.name.value
        if name in defined or definition.directives:
            raise Bail
        type_ = type_from_ast(schema, definition.type)
        if type_ is None or not is_input_type(type_):
            raise Bail
        if definition.default_value is not None:
            check_literal(definition.default_value, type_)
        defined[name] = (type_, definition.default_value)
    return defined


def fragment_depths(fragments: dict[str, Definition]) -> dict[str, int]:
    """Each fragment's nesting with the fragments it spreads (as graphql-core's
    FragmentNestingVisitor counts it); Bail on a cycle or an unknown fragment."""
    depths: dict[str, int] = {}
    on_path: set[str] = set()
    for root in fragments:
        if root in depths:
            continue
        path = [(root, iter(fragments[root].spreads))]
        on_path.add(root)
        while path:
            name, spreads = path[-1]
            for spread, _depth in spreads:
                if spread in on_path or spread not in fragments:
                    raise Bail
                if spread not in depths:
                    path.append((spread, iter(fragments[spread].spreads)))
                    on_path.add(spread)
                    break
            else:
                path.pop()
                on_path.discard(name)
                depths[name] = nesting(fragments[name], depths)
    return depths


def nesting(definition: Definition, depths: dict[str, int]) -> int:
    """A definition's nesting, its fragments' (`depths`) counted where they are spread;
    Bail past MAX_NESTING."""
    depth = definition.depth
    for spread, at in definition.spreads:
        depth = max(depth, at + depths[spread])
    if depth > MAX_NESTING:
        raise Bail
    return depth


def reachable(start: Definition, fragments: dict[str, Definition]) -> set[str]:
    """The fragments an operation spreads, directly or through others."""
    found: set[str] = set()
    stack = [name for name, _depth in start.spreads]
    while stack:
        name = stack.pop()
        if name not in found:
            found.add(name)
            stack.extend(spread for spread, _depth in fragments[name].spreads)
    return found


def check_variables(schema: GraphQLSchema, defined: dict[str, Any], usages: list[Usage]) -> None:
    """Every usage defined and allowed where it is (graphql-core's own test), every
    variable used."""
    used: set[str] = set()
    for name, type_, default in usages:
        found = defined.get(name)
        if found is None:
            raise Bail
        if not allowed_variable_usage(schema, found[0], found[1], type_, default):
            raise Bail
        used.add(name)
    if len(used) != len(defined):
        raise Bail


def certainly_valid(schema: GraphQLSchema, document: DocumentNode) -> bool:
    """True only when the guard's rules would find no error in `document` (and its
    overlap rule would not run out of budget); False when not sure."""
    assert_valid_schema(schema)  # as `validate` does (a schema's check is kept)
    try:
        check_document(schema, document)
    except Exception:  # Bail, or a document this pass cannot read: a doubt either way
        return False
    return True


def check_document(schema: GraphQLSchema, document: DocumentNode) -> int:
    """Raise Bail unless `document` is certainly valid; else the bound of what the
    overlap rule spends of its budget on it."""
    operations, fragment_nodes = split(document)
    walk = Walk(schema)
    fragments: dict[str, Definition] = {}
    collected: dict[str, Collected] = {}
    for name, node in fragment_nodes.items():
        type_: Any = schema.get_type(node.type_condition.name.value)
        if not is_composite_type(type_):
            raise Bail
        definition = fragments[name] = Definition()
        collected[name] = walk.selection_set(node.selection_set, type_, definition, 1)
    walked: list[tuple[dict[str, Any], Definition]] = []
    for operation in operations:
        if operation.operation is OperationType.SUBSCRIPTION or operation.directives:
            raise Bail
        root = schema.get_root_type(operation.operation)
        if root is None:
            raise Bail
        definition = Definition()
        walk.selection_set(operation.selection_set, root, definition, 1)
        walked.append((variables_of(schema, operation), definition))
    for (name, _id), parent in walk.spread_places.items():
        node = fragment_nodes.get(name)
        if node is None:
            raise Bail
        # Composite: every fragment's type condition was checked in the first loop.
        condition = cast(GraphQLCompositeType, schema.get_type(node.type_condition.name.value))
        if not do_types_overlap(schema, condition, parent):
            raise Bail
    depths = fragment_depths(fragments)
    used: set[str] = set()
    for defined, definition in walked:
        nesting(definition, depths)
        spread = reachable(definition, fragments)
        used |= spread
        usages = definition.usages + [u for name in spread for u in fragments[name].usages]
        check_variables(schema, defined, usages)
    if len(used) != len(fragments):
        raise Bail
    cap = int(OVERLAP_COMPARISON_BUDGET * OVERLAP_SHARE)
    return Overlaps(collected, cap).total(walk.roots, walk.spread_nodes)


def validate_document(
    schema: GraphQLSchema, document: DocumentNode, rules: tuple[type[ASTValidationRule], ...]
) -> list[GraphQLError]:
    """The guard's validation under its own rules (`rules`: the caller makes sure of
    that): nothing to report for a document `certainly_valid` accepts, else the exact
    rules and their errors. (Named as the one it stands for: what runs on the CPU pool
    is named by tests/schema/test_graphql_hardening.py.)"""
    if certainly_valid(schema, document):
        return []
    return validate_exactly(schema, document, rules)
