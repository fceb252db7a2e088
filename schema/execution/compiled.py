"""Compiled plans of GraphQL operations: graphql-core's per-document work, done once.

For every request graphql-core collects the fields of each selection set (fragments,
aliases, `@skip`/`@include`) and completes every field of every row through the same
generic calls: a resolve call with a freshly built info object, `complete_value` by
type, the leaf's coercion. A plan, made once per document (and per value of the
variables its directives read), holds instead:

- the collected fields of every selection set, so they are never collected again;
- for each field whose selection below resolves by default (members read straight
  from the stored dicts, no resolver, no permission class), a completer of its value
  generated for that selection: Python source with one line per member, each value's
  type checked inline. The field itself may have a resolver (a root field does): it
  has run by then.

A completer has no error handling of its own. On anything unexpected (null in a
non-null field, a value of another type, a missing attribute, an iterable that is not
a list) it raises, and the executor completes the same subtree again through
graphql-core, which produces the exact value or error. Completing such a value runs no
resolver and no permission class, so completing it twice changes nothing. Fields with
resolvers are executed by graphql-core as always (`schema.execution.executor`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from graphql import (
    GraphQLBoolean,
    GraphQLField,
    GraphQLFloat,
    GraphQLID,
    GraphQLInt,
    GraphQLLeafType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLSchema,
    GraphQLString,
    OperationDefinitionNode,
    OperationType,
    is_leaf_type,
    is_list_type,
    is_non_null_type,
    is_object_type,
)
from graphql.execution.collect_fields import (
    CollectedFields,
    FieldDetailsList,
    FragmentDetails,
    GroupedFieldSet,
    collect_fields,
    collect_subfields,
)
from graphql.execution.values import VariableValues
from graphql.pyutils import Undefined

from schema.execution.shapes import (
    Completer,
    Generator,
    Leaf,
    ListOf,
    Member,
    Obj,
    Shape,
    TooLarge,
)


def read_field(source: Any, name: str) -> Any:
    """The default resolver: plain fields read stored dicts directly, other sources by
    attribute. Completers inline exactly this read."""
    if type(source) is dict:
        return source.get(name)
    return getattr(source, name)


class Slow(Exception):  # a signal, not an error
    """A completer met something it does not handle: graphql-core takes over."""


SLOW = Slow  # raised as a class: a new instance each time, no traceback kept alive


class Unsupported(Exception):
    """The document needs something plans do not do: graphql-core runs it all."""


@dataclass(frozen=True)
class FastCompletion:
    """The completer of one field's value, for its declared type. When that type is a
    list, the completer also takes any part of the list (the executor completes long
    lists in slices)."""

    field_type: GraphQLOutputType
    complete: Completer
    is_list: bool
    shape: Shape  # what the completer was made from (REST's plans made ahead keep it)


UNPLANNED: Any = object()  # a plan's direct plan not made yet


@dataclass
class Plan:
    """What one operation needs at run time, keyed by the identity of the field lists
    graphql-core passes around. Every such list is a value of `root` or of a `subfields`
    entry, so the plan keeps it alive and its identity stays unique."""

    root: CollectedFields
    subfields: dict[tuple[GraphQLObjectType, int], CollectedFields] = field(default_factory=dict)
    completions: dict[int, FastCompletion] = field(default_factory=dict)
    # How the operation runs without graphql-core's executor, made on first use
    # (`schema.execution.direct_plans`); None: it does not.
    direct: Any = UNPLANNED


# -- leaves ------------------------------------------------------------------------------


def leaf_test(leaf: GraphQLLeafType) -> str | None:
    """The inline check (`schema.execution.shapes.TESTS`) that a value is already its own
    coerced output (so graphql-core would return it unchanged); None when every value
    must be coerced."""
    if leaf is GraphQLString or leaf is GraphQLID or leaf.coerce_output_value is str:
        return "str"
    if leaf is GraphQLBoolean:
        return "bool"
    if leaf is GraphQLInt:
        return "int"
    if leaf is GraphQLFloat:
        return "float"
    return None


# -- completers --------------------------------------------------------------------------


class Builder:
    """Collects the fields of one operation and makes completers for its plain subtrees."""

    def __init__(
        self,
        schema: GraphQLSchema,
        fragments: dict[str, FragmentDetails],
        variable_values: VariableValues,
        operation: OperationDefinitionNode,
        hide_suggestions: bool,
    ) -> None:
        self.schema = schema
        self.fragments = fragments
        self.variable_values = variable_values
        self.operation = operation
        self.hide_suggestions = hide_suggestions
        self.plan: Plan | None = None
        self.plain: dict[int, bool] = {}
        self.generator = Generator(SLOW, Undefined)

    def build(self) -> Plan:
        root_type = self.schema.get_root_type(self.operation.operation)
        if root_type is None or self.operation.operation is OperationType.SUBSCRIPTION:
            raise Unsupported("not a query or mutation")
        root = collect_fields(
            self.schema,
            self.fragments,
            self.variable_values,
            root_type,
            self.operation,
            self.hide_suggestions,
        )
        self.check(root)
        self.plan = Plan(root)
        self.walk(root_type, root.grouped_field_set)
        return self.plan

    @staticmethod
    def check(collected: CollectedFields) -> None:
        if collected.new_defer_usages or collected.forbidden_directive_instances:
            raise Unsupported("@defer, @stream or forbidden directives")
        for details_list in collected.grouped_field_set.values():
            for details in details_list:
                if details.defer_usage is not None or details.fragment_variable_values:
                    raise Unsupported("deferred fields or fragment variables")

    def walk(self, parent_type: GraphQLObjectType, grouped: GroupedFieldSet) -> None:
        """Collects every object selection below, then notes each plain field's completer."""
        assert self.plan is not None
        for details_list in grouped.values():
            field_def = self.schema.get_field(parent_type, details_list[0].node.name.value)
            if field_def is None:
                continue
            named = field_def.type
            while isinstance(named, (GraphQLNonNull, GraphQLList)):
                named = named.of_type
            if is_object_type(named):
                sub = collect_subfields(
                    self.schema,
                    self.fragments,
                    self.variable_values,
                    self.operation,
                    named,
                    details_list,
                    self.hide_suggestions,
                )
                self.check(sub)
                self.plan.subfields[(named, id(details_list))] = sub
                self.walk(named, sub.grouped_field_set)
            # The value's completion needs only a plain selection below: the field's
            # own resolver (if any) has run before, and is not run again.
            if self.plain_type(field_def.type, details_list):
                try:
                    completion = self.completion(field_def.type, details_list)
                except TooLarge:
                    continue  # graphql-core completes this field
                self.plan.completions[id(details_list)] = completion

    def is_plain(
        self, parent_type: GraphQLObjectType, field_def: GraphQLField, details: FieldDetailsList
    ) -> bool:
        """Resolved by default, and so is everything selected below it."""
        key = id(details)
        if key in self.plain:
            return self.plain[key]
        plain = self.resolves_by_default(field_def, details) and self.plain_type(
            field_def.type, details
        )
        self.plain[key] = plain
        return plain

    @staticmethod
    def resolves_by_default(field_def: GraphQLField, details: FieldDetailsList) -> bool:
        definition = field_def.extensions.get("strawberry-definition")
        return (
            getattr(field_def.resolve, "_is_default", False)
            and getattr(definition, "default_resolver", None) is read_field
            and not field_def.args
            and not details[0].node.arguments
        )

    def plain_type(self, kind: GraphQLOutputType, details: FieldDetailsList) -> bool:
        while isinstance(kind, (GraphQLNonNull, GraphQLList)):
            kind = kind.of_type
        if is_leaf_type(kind):
            return True
        if not is_object_type(kind) or kind.is_type_of is not None:
            return False  # abstract types pick their object type at run time
        assert self.plan is not None
        sub = self.plan.subfields[(kind, id(details))]
        for sub_details in sub.grouped_field_set.values():
            name = sub_details[0].node.name.value
            if name == "__typename":
                continue
            sub_field = kind.fields.get(name)
            if sub_field is None or not self.is_plain(kind, sub_field, sub_details):
                return False
        return True

    def completion(self, kind: GraphQLOutputType, details: FieldDetailsList) -> FastCompletion:
        inner = kind.of_type if is_non_null_type(kind) else kind
        shape = self.shape(kind, details)
        return FastCompletion(kind, self.generator.completer(shape), is_list_type(inner), shape)

    def shape(self, kind: GraphQLOutputType, details: FieldDetailsList) -> Shape:
        """What a value of `kind` completes to under this selection."""
        nullable = True
        if is_non_null_type(kind):
            kind, nullable = kind.of_type, False
        if is_list_type(kind):
            return ListOf(self.shape(kind.of_type, details), nullable)
        if is_leaf_type(kind):
            return Leaf(leaf_test(kind), nullable, kind.coerce_output_value)
        assert is_object_type(kind) and self.plan is not None
        sub = self.plan.subfields[(kind, id(details))]
        members = []
        for response_name, sub_details in sub.grouped_field_set.items():
            field_name = sub_details[0].node.name.value
            if field_name == "__typename":
                members.append(Member(response_name, None, None))
                continue
            sub_field = kind.fields[field_name]
            python_name = sub_field.extensions["strawberry-definition"].python_name
            members.append(
                Member(response_name, python_name, self.shape(sub_field.type, sub_details))
            )
        return Obj(kind.name, tuple(members), nullable)
