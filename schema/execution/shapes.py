"""What a plain selection completes to, as data (a shape), and the completers generated
for it: Python source with one line per member, each value's type checked inline.

A shape is made from graphql-core's types and a document's selection at run time
(`schema.execution.compiled`), or written ahead of time for the REST table
(`schema.execution.running.planned.routes`); either way the same code generator makes
its completers, and this module imports nothing of GraphQL.

A completer has no error handling: on anything unexpected (null in a non-null member, a
value of another type, a missing member, an iterable that is not a list) it raises, and
its caller has graphql-core complete the same value again, exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import CodeType
from typing import Any, cast

from resolvers.limits import COMPILED_PLAN_BYTES
from schema.execution.bounded import ByteLRU

Completer = Callable[[Any], Any]
INT_MIN, INT_MAX = -(2**31), 2**31 - 1
# Generated functions of one plan. Compiling one takes about a millisecond: a document
# of a thousand small selections (a few thousand tokens) must not buy a second of CPU.
# REST's documents need at most five.
MAX_GENERATED = 50
# The inline check that a leaf's value is already its own output, by the leaf's kind.
TESTS = {
    "str": "type({v}) is str",
    "bool": "type({v}) is bool",
    "int": f"(type({{v}}) is int and {INT_MIN} <= {{v}} <= {INT_MAX})",
    "float": "(type({v}) is float and {v} - {v} == 0.0)",  # finite: inf - inf is nan
}


@dataclass(frozen=True)
class Leaf:
    """A scalar or enum. `test` names the check a value passes when it is already its own
    output (a key of TESTS; None: every value goes through `coerce`). `coerce` is the
    type's own output coercion; None (a plan made ahead of time) steps aside instead."""

    test: str | None
    nullable: bool
    coerce: Completer | None = None


@dataclass(frozen=True)
class ListOf:
    item: Shape
    nullable: bool


@dataclass(frozen=True)
class Member:
    """One member of an object's answer: its response name, the stored member it reads
    (None: `__typename`), and its shape."""

    name: str
    read: str | None
    shape: Shape | None


@dataclass(frozen=True)
class Obj:
    type_name: str
    members: tuple[Member, ...]
    nullable: bool


Shape = Leaf | ListOf | Obj

# The read of an item's `id` in a page of stored documents (`resolvers.paging.find_page`
# with `stored_ids`): `_id` as stored, else `id` (a page a resolver made of API objects).
# The completer renames it as it builds the item: no pass over the page does it first.
STORED_ID = "_id"


def with_stored_ids(page: Obj) -> Obj:
    """A page's shape whose items (the members of its `data` list) read their id as
    stored; any other shape as it is."""
    members = []
    for member in page.members:
        listed = member.shape
        if member.read == "data" and isinstance(listed, ListOf) and isinstance(listed.item, Obj):
            item = listed.item
            reads = tuple(
                Member(m.name, STORED_ID, m.shape) if m.read == "id" else m for m in item.members
            )
            member = Member(
                member.name,
                member.read,
                ListOf(Obj(item.type_name, reads, item.nullable), listed.nullable),
            )
        members.append(member)
    return Obj(page.type_name, tuple(members), page.nullable)


class TooLarge(Exception):
    """The plan has MAX_GENERATED functions already: the rest is generic."""


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


def step_aside(value: Any) -> Any:
    """A plan made ahead has no GraphQL coercion: graphql-core completes this value."""
    return None  # a completer gives up on None where a value is needed


def float_of_int(value: Any) -> Any:
    """GraphQL's Float of an `int` (a stored 40 for 40.0), as graphql-core coerces it: the
    same float when it holds the integer exactly; else None (graphql-core's error)."""
    if type(value) is not int:
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if int(number) == value else None


# Coercions a plan made ahead of time does itself, exactly as graphql-core, by the leaf's
# test: the cases stored data has (a whole number in a Float); every other value fails.
AHEAD: dict[str, Completer] = {"float": float_of_int}


def dict_read(read: str, nullable: bool) -> str:
    """The expression that reads a member of a dict: a missing non-null one raises
    KeyError (graphql-core then reports the null exactly); a nullable one may be absent."""
    if read == STORED_ID:
        fallback = 'source["id"]' if not nullable else 'source.get("id")'
        return f'(source["_id"] if "_id" in source else {fallback})'
    return f"source[{read!r}]" if not nullable else f"source.get({read!r})"


def inline_test(shape: Shape, value: str) -> str | None:
    """The Python check, inline, that a leaf's value is already its output: its type, or
    null where the leaf is nullable (a missing address costs no call). None for a shape
    that is no tested leaf: every value goes to its completer."""
    if not isinstance(shape, Leaf) or shape.test is None:
        return None
    test = TESTS[shape.test].format(v=value)
    return f"({value} is None or {test})" if shape.nullable else test


class Generator:
    """Completers of shapes, made once per shape (a shape used twice shares them).
    `undefined` is graphql-core's Undefined where it is loaded (a value no completer
    accepts as null); `slow` the exception a completer raises when it gives up."""

    def __init__(self, slow: type[Exception], undefined: object) -> None:
        self.slow = slow
        self.undefined = undefined
        self.made: dict[tuple[Shape, bool], tuple[Completer, Completer]] = {}
        self.generated = 0

    def completer(self, shape: Shape) -> Completer:
        """graphql-core's `complete_value` for `shape`; for a list of objects, one loop."""
        if isinstance(shape, Leaf):
            return self.leaf(shape)
        if isinstance(shape, ListOf):
            if isinstance(shape.item, Obj):
                return self.objects(shape.item, shape)[1]
            return self.items(shape)
        complete = self.objects(shape)[0]
        if not shape.nullable:
            return complete  # None or Undefined has no member: it raises
        undefined = self.undefined

        def complete_nullable(value: Any) -> Any:
            if value is None or value is undefined:
                return None
            return complete(value)

        return complete_nullable

    def leaf(self, leaf: Leaf) -> Completer:
        """A leaf's value that failed its test (or has none): null where allowed, else
        the type's coercion, raising where graphql-core would fail."""
        coerce, nullable, slow, undefined = leaf.coerce, leaf.nullable, self.slow, self.undefined
        if coerce is None and leaf.test is not None:
            coerce = AHEAD.get(leaf.test, step_aside)

        def complete(value: Any) -> Any:
            if value is None or value is undefined:
                if nullable:
                    return None
                raise slow
            if coerce is None or isinstance(value, Exception):
                raise slow
            coerced = coerce(value)
            if coerced is None or coerced is undefined:
                raise slow
            return coerced

        return complete

    def items(self, shape: ListOf) -> Completer:
        """A list of leaves or lists: each item checked inline where its leaf has a test
        (`["a", "b"]` costs no call per item), else completed by its completer."""
        names = {
            "complete_item": self.completer(shape.item),
            "SLOW": self.slow,
            "Undefined": self.undefined,
            "type": type,
        }
        test = inline_test(shape.item, "v")
        item = "complete_item(v)" if test is None else f"v if {test} else complete_item(v)"
        null = "value is None or value is Undefined" if shape.nullable else "False"
        source = "\n".join(
            [
                f"def complete(value, {', '.join(f'{n}={n}' for n in names)}):",
                "    if type(value) is list:",
                f"        return [{item} for v in value]",
                f"    if {null}:",
                "        return None",
                "    raise SLOW",  # another iterable, an async iterable, an error: graphql-core's
            ]
        )
        exec(compiled_source(source, "list"), names)
        return cast(Completer, names["complete"])  # the `def complete` of the source

    def objects(self, shape: Obj, list_of: ListOf | None = None) -> tuple[Completer, Completer]:
        """Generated source: read every member (as the default resolver does), check each
        leaf's type inline, complete the rest by their completers, build the dict in
        order. `complete` does one object; `complete_list`, made for `list_of`, a list of
        them in one loop."""
        key = (list_of or shape, list_of is not None)
        found = self.made.get(key)
        if found is not None:
            return found
        if self.generated >= MAX_GENERATED:
            raise TooLarge
        self.generated += 1
        names: dict[str, Any] = {"SLOW": self.slow, "Undefined": self.undefined}
        dict_reads: list[str] = []
        other_reads: list[str] = []
        checks: list[str] = []
        members: list[str] = []
        for index, member in enumerate(shape.members):
            value = f"v{index}"
            members.append(f"{member.name!r}: {value}")
            if member.read is None or member.shape is None:  # __typename
                dict_reads.append(f"{value} = {shape.type_name!r}")
                other_reads.append(f"{value} = {shape.type_name!r}")
                continue
            dict_reads.append(f"{value} = {dict_read(member.read, member.shape.nullable)}")
            attribute = "id" if member.read == STORED_ID else member.read
            other_reads.append(f"{value} = getattr(source, {attribute!r})")
            names[f"c{index}"] = self.completer(member.shape)
            inline = inline_test(member.shape, value)
            if inline is not None:
                checks.append(f"if not {inline}: {value} = c{index}({value})")
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
            item_nullable = shape.nullable
            lines += [
                f"def complete_list(items, complete=complete, {defaults}):",
                "    if type(items) is not list:",
                *(
                    ["        if items is None or items is Undefined: return None"]
                    if list_of.nullable
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
        exec(compiled_source("\n".join(lines), shape.type_name), names)
        made = names["complete"], names.get("complete_list", names["complete"])
        self.made[key] = made
        return made
