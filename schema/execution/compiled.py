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

from collections.abc import Callable
from dataclasses import dataclass, field
from types import CodeType
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

from resolvers.limits import COMPILED_PLAN_BYTES
from schema.execution.bounded import ByteLRU

Completer = Callable[[Any], Any]
INT_MIN, INT_MAX = -(2**31), 2**31 - 1
# Generated functions of one plan. Compiling one takes about a millisecond: a document
# of a thousand small selections (a few thousand tokens) must not buy a second of CPU.
# REST's documents need at most five.
MAX_GENERATED = 50


def read_field(source: Any, name: str) -> Any:
    """The default resolver: plain fields read stored dicts directly, other sources by
    attribute. Completers inline exactly this read."""
    if type(source) is dict:
        return source.get(name)
    return getattr(source, name)


class Slow(Exception):  # a signal, not an error
    """A completer met something it does not handle: graphql-core takes over."""


SLOW = Slow  # raised as a class: a new instance each time, no traceback kept alive


class TooLarge(Exception):
    """The document's plan has MAX_GENERATED functions already: the rest is generic."""


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


def fast_test(leaf: GraphQLLeafType, value: str) -> str | None:
    """A Python expression true when `value` is already its own coerced output (so
    graphql-core would return it unchanged), or None when every value must be coerced."""
    if leaf is GraphQLString or leaf is GraphQLID or leaf.coerce_output_value is str:
        return f"type({value}) is str"
    if leaf is GraphQLBoolean:
        return f"type({value}) is bool"
    if leaf is GraphQLInt:
        return f"(type({value}) is int and {INT_MIN} <= {value} <= {INT_MAX})"
    if leaf is GraphQLFloat:  # finite: inf - inf and nan - nan are nan
        return f"(type({value}) is float and {value} - {value} == 0.0)"
    return None


def leaf_completer(leaf: GraphQLLeafType, nullable: bool) -> Completer:
    """graphql-core's `complete_value` for a leaf, raising SLOW where it would fail."""
    coerce = leaf.coerce_output_value

    def complete(value: Any) -> Any:
        if value is None or value is Undefined:
            if nullable:
                return None
            raise SLOW
        if isinstance(value, Exception):
            raise SLOW
        coerced = coerce(value)
        if coerced is None or coerced is Undefined:
            raise SLOW
        return coerced

    return complete


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
        self.completers: dict[tuple[int, int], Completer] = {}
        self.generated = 0

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
        return FastCompletion(kind, self.completer(kind, details), is_list_type(inner))

    def completer(self, kind: GraphQLOutputType, details: FieldDetailsList) -> Completer:
        """graphql-core's `complete_value` for `kind`, specialised to the selection; made
        once per selection (an outer field's completer reuses its inner fields')."""
        key = (id(kind), id(details))
        found = self.completers.get(key)
        if found is None:
            found = self.completers[key] = self.make_completer(kind, details)
        return found

    def make_completer(self, kind: GraphQLOutputType, details: FieldDetailsList) -> Completer:
        nullable = not is_non_null_type(kind)
        if not nullable:
            kind = kind.of_type
        if is_list_type(kind):
            return self.list_completer(kind, details, nullable)
        if is_leaf_type(kind):
            return leaf_completer(kind, nullable)
        assert is_object_type(kind)
        complete_object = self.object_completer(kind, details)
        if not nullable:
            return complete_object  # None or Undefined has no member: it raises

        def complete(value: Any) -> Any:
            if value is None or value is Undefined:
                return None
            return complete_object(value)

        return complete

    def list_completer(
        self, kind: GraphQLList, details: FieldDetailsList, nullable: bool
    ) -> Completer:
        item_kind = kind.of_type
        named = item_kind.of_type if is_non_null_type(item_kind) else item_kind
        if is_object_type(named):  # one generated loop, no call per row
            return self.object_completers(named, details, list_of=(nullable, item_kind))[1]
        complete_item = self.completer(item_kind, details)

        def complete(value: Any) -> Any:
            if type(value) is list:
                return [complete_item(item) for item in value]
            if nullable and (value is None or value is Undefined):
                return None
            raise SLOW  # another iterable, an async iterable, an error: graphql-core's

        return complete

    def object_completer(self, kind: GraphQLObjectType, details: FieldDetailsList) -> Completer:
        return self.object_completers(kind, details)[0]

    def object_completers(
        self,
        kind: GraphQLObjectType,
        details: FieldDetailsList,
        list_of: tuple[bool, GraphQLOutputType] | None = None,
    ) -> tuple[Completer, Completer]:
        """Generated source: read every member (as `read_field` does), check each leaf's
        type inline, complete the rest by their completers, build the dict in order.
        `complete` does one object; `complete_list`, made when `list_of` gives the
        list's and its items' nullability, a list of them in one loop."""
        assert self.plan is not None
        if self.generated >= MAX_GENERATED:
            raise TooLarge
        self.generated += 1
        sub = self.plan.subfields[(kind, id(details))]
        names: dict[str, Any] = {"SLOW": SLOW, "Undefined": Undefined}
        dict_reads: list[str] = []
        other_reads: list[str] = []
        checks: list[str] = []
        members: list[str] = []
        for index, (response_name, sub_details) in enumerate(sub.grouped_field_set.items()):
            value = f"v{index}"
            members.append(f"{response_name!r}: {value}")
            field_name = sub_details[0].node.name.value
            if field_name == "__typename":
                dict_reads.append(f"{value} = {kind.name!r}")
                other_reads.append(f"{value} = {kind.name!r}")
                continue
            sub_field = kind.fields[field_name]
            python_name = sub_field.extensions["strawberry-definition"].python_name
            leaf = sub_field.type
            nullable = not is_non_null_type(leaf)
            if not nullable:
                leaf = leaf.of_type
            # A non-null member must be there: a missing one raises KeyError, and
            # graphql-core then reports the null exactly. A nullable one may be absent.
            read = f"source[{python_name!r}]" if not nullable else f"source.get({python_name!r})"
            dict_reads.append(f"{value} = {read}")
            other_reads.append(f"{value} = getattr(source, {python_name!r})")
            test = fast_test(leaf, value) if is_leaf_type(leaf) else None
            names[f"c{index}"] = self.completer(sub_field.type, sub_details)
            if test is not None:
                checks.append(f"if not {test}: {value} = c{index}({value})")
            else:
                checks.append(f"{value} = c{index}({value})")
        built = f"{{{', '.join(members)}}}"
        # Every name the bodies use is a default argument: a local (LOAD_FAST), not a
        # global or builtin looked up on every row.
        names.update(
            type=type,
            str=str,
            int=int,
            bool=bool,
            list=list,
            dict=dict,
            getattr=getattr,
            isinstance=isinstance,
            Exception=Exception,
        )
        defaults = ", ".join(f"{name}={name}" for name in names)
        lines = [
            f"def complete(source, {defaults}):",
            "    if type(source) is dict:",
            *(f"        {line}" for line in dict_reads or ["pass"]),  # all skipped: {}
            "    else:",
            "        if isinstance(source, Exception): raise SLOW",
            *(f"        {line}" for line in other_reads),
            *(f"    {line}" for line in checks),
            f"    return {built}",
        ]
        if list_of is not None:
            list_nullable, item_kind = list_of
            item_nullable = not is_non_null_type(item_kind)
            lines += [
                f"def complete_list(items, complete=complete, {defaults}):",
                "    if type(items) is not list:",
                *(
                    ["        if items is None or items is Undefined: return None"]
                    if list_nullable
                    else []
                ),
                "        raise SLOW",
                "    out = []",
                "    append = out.append",
                "    for source in items:",
                "        if type(source) is not dict:",
                *(
                    [
                        "            if source is None or source is Undefined:",
                        "                append(None)",
                        "                continue",
                    ]
                    if item_nullable
                    else []
                ),
                "            append(complete(source))",
                "            continue",
                *(f"        {line}" for line in dict_reads),
                *(f"        {line}" for line in checks),
                f"        append({built})",
                "    return out",
            ]
        exec(compiled_source("\n".join(lines), kind.name), names)
        return names["complete"], names.get("complete_list", names["complete"])


COMPILED_CODE: ByteLRU[tuple[str, str], CodeType] = ByteLRU(COMPILED_PLAN_BYTES // 4)


def compiled_source(source: str, type_name: str) -> CodeType:
    """Byte code of a completer's source: documents that select the same members of a
    type (REST routes sharing a fragment, a client's variants of one query) share it.
    Kept by its source within a byte budget (aliases are a client's, of any length):
    the source counts twice, once as the key, once in the code's names and constants."""
    key = (source, type_name)
    code = COMPILED_CODE.get(key)
    if code is None:
        code = compile(source, f"<completer {type_name}>", "exec")
        COMPILED_CODE.put(key, code, 3 * (len(source) + len(type_name)) + 2048)
    return code
