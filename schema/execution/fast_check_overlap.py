"""Overlapping fields for `schema.execution.fast_check`: no conflict, and an upper bound of
what graphql-core 3.3.2's OverlappingFieldsCanBeMergedRule would spend of its budget.

A document is accepted only if the guard's bounded rule (`BoundedOverlappingFieldsRule`,
OVERLAP_COMPARISON_BUDGET) would pass it, so the rule's own work is followed here: the same
comparisons "within" each selection set, between a set's fields and each fragment spread
in it, between fragments spread side by side, and between the sub-selections of fields
that share a response name (steps A to J of its source), for a document without fragment
variables (every variable scope is None). Each compared pair must be of the same field
with the same arguments and the same type, which is stricter than the rule (it lets
fields of two distinct object types differ); anything else is `Bail`.

The rule memoizes some steps and charges others once per pair; every count here takes the
larger side: steps it skips on a second visit are counted again (so a sub-result depends
on its arguments only, and is computed once here), field maps and argument lists are
charged once per distinct pair, as the rule does. The bound is therefore at least what the
rule spends, and `tests/schema/test_fast_check.py` checks that on generated pages. Each
step adds at least one unit, so the work here stays within the cap it is given.
"""

from __future__ import annotations

from typing import Any, cast

from graphql import (
    FieldNode,
    GraphQLCompositeType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
)


class Bail(Exception):
    """Not certainly valid: the exact validation decides."""


class Entry:
    """One field of a collected selection set, as the rule's `FieldDetails` sees it."""

    __slots__ = ("args", "name", "nargs", "node", "parent", "simple", "sub", "type")

    def __init__(
        self,
        node: FieldNode,
        parent: GraphQLCompositeType,
        type_: GraphQLOutputType | None,
        args: Any,
        sub: Collected | None,
    ) -> None:
        self.node = node
        self.parent = parent
        self.name = node.name.value
        self.type = type_  # None for __typename (the rule finds no definition for it)
        self.args = args  # a hashable key of the arguments, None without any
        self.nargs = len(node.arguments or ())
        self.simple = not self.nargs and sub is None  # the rule's `is_simple_leaf`
        self.sub = sub


class Collected:
    """A selection set with its inline fragments flattened (the rule's `collect_fields`):
    fields by response name, the names given to more than one field, and the fragments
    it spreads in order (`distinct`: each once, as `get_fragment_spreads` keeps them)."""

    __slots__ = ("distinct", "fields", "repeated", "spreads")

    def __init__(self) -> None:
        self.fields: dict[str, list[Entry]] = {}
        self.repeated: list[str] = []
        self.spreads: list[str] = []
        self.distinct: list[str] = []

    def add(self, response: str, entry: Entry) -> None:
        entries = self.fields.get(response)
        if entries is None:
            self.fields[response] = [entry]
        else:
            if len(entries) == 1:
                self.repeated.append(response)
            entries.append(entry)

    def done(self) -> None:
        """Called once every selection is in."""
        if self.spreads:
            self.distinct = list(dict.fromkeys(self.spreads))


def type_units(type1: GraphQLOutputType | None, type2: GraphQLOutputType | None) -> int:
    """Units of `do_types_conflict` for two types of the same structure: one per level
    until both are the same object."""
    units = 0
    while type1 is not type2 and type1 is not None and type2 is not None:
        units += 1
        if isinstance(type1, GraphQLList | GraphQLNonNull):
            # type2 prints as type1 does (the caller checks): a list or non-null as well.
            wrapper = cast("GraphQLList[Any] | GraphQLNonNull[Any]", type2)
            type1, type2 = type1.of_type, wrapper.of_type
        else:
            break
    return units


class Overlaps:
    """The bound for one document, at most `cap` (else Bail). The steps' units are
    returned and summed (a step's own are the same each time it is called, so they are
    kept); what the rule charges once per pair is counted apart (`extra`)."""

    def __init__(self, fragments: dict[str, Collected], cap: int) -> None:
        self.fragments = fragments
        self.cap = cap
        self.once = 0  # units charged once per distinct pair (field maps, arguments)
        self.maps: set[tuple[int, int]] = set()
        self.argument_pairs: set[tuple[int, int]] = set()
        self.subs: dict[tuple[int, int], int] = {}
        self.betweens: dict[tuple[int, int], int] = {}
        self.with_fragment: set[tuple[int, str]] = set()
        self.fragment_pairs: set[tuple[str, str]] = set()
        self.bodies = 0  # units of the bodies of steps D and F, once per pair
        self.exclusive = False  # whether two fields compared are of distinct object types

    def total(self, roots: list[Collected], spread_nodes: int) -> int:
        """The bound for the selection sets the rule enters (`roots`), spreads resolved
        once each (`get_fragment_spread`)."""
        units = spread_nodes
        for collected in roots:
            units += self.within(collected)
            if units + self.extra() > self.cap:
                raise Bail
        return units + self.extra()

    def extra(self) -> int:
        """The units charged apart from the steps' own: field maps and arguments once per
        pair, the bodies of D and F once per pair, or twice with exclusive fields (the
        rule runs a body again when it comes back to it not exclusive)."""
        return self.once + self.bodies * (2 if self.exclusive else 1)

    def over(self, units: int) -> None:
        """Bail once a sum passes the cap: every step adds a unit at least, so the work
        here is bounded by the cap too."""
        if units > self.cap or self.once + self.bodies > self.cap:
            raise Bail

    def pair(self, one: Entry, other: Entry) -> int:
        """`find_conflict` of two fields with one response name."""
        if one.name != other.name or one.args != other.args:
            raise Bail
        if one.simple and other.simple and one.type is other.type:
            return 2
        if one.type is not other.type and str(one.type) != str(other.type):
            raise Bail
        if one.parent is not other.parent and isinstance(one.parent, GraphQLObjectType):
            self.exclusive = self.exclusive or isinstance(other.parent, GraphQLObjectType)
        units = 2 + type_units(one.type, other.type)
        if one.nargs and one.nargs == other.nargs:
            key = (id(one.node), id(other.node))
            if key not in self.argument_pairs:
                self.argument_pairs.add(key)
                self.once += one.nargs
        if one.sub is not None and other.sub is not None:
            units += self.sub(one.sub, other.sub)
        return units

    def group(self, ones: list[Entry], others: list[Entry] | None) -> int:
        """Every pair within `ones` (others None), or of `ones` with `others`."""
        if others is not None and len(ones) == 1 and len(others) == 1:
            return self.pair(ones[0], others[0])
        first = ones[0]
        pairs = len(ones) * (len(ones) - 1) // 2 if others is None else len(ones) * len(others)
        everyone = ones if others is None else ones + others
        if all(e.simple and e.type is first.type and e.name == first.name for e in everyone):
            self.over(2 * pairs)
            return 2 * pairs
        units = 0
        for index, one in enumerate(ones):
            for other in ones[index + 1 :] if others is None else others:
                units += self.pair(one, other)
                self.over(units)
        return units

    def within(self, collected: Collected) -> int:
        """Steps A to C for one selection set the rule enters."""
        units = 0
        for name in collected.repeated:
            units += self.group(collected.fields[name], None)
            self.over(units)
        spreads = collected.distinct
        if spreads and (collected.fields or len(collected.spreads) > 1):  # as the rule has it
            for index, name in enumerate(spreads):
                units += self.fields_and_fragment(collected, name)
                for other in spreads[index + 1 :]:
                    units += self.between_fragments(name, other)
                self.over(units)
        return units

    def between(self, one: Collected, other: Collected) -> int:
        """`collect_conflicts_between`: the pairs of fields sharing a response name."""
        if not one.fields or not other.fields:
            return 0
        key = (id(one), id(other))
        found = self.betweens.get(key)
        if found is not None:
            return found
        if key not in self.maps:  # `get_overlapping_fields`, charged once per pair
            self.maps.add(key)
            self.once += len(one.fields)
        units = 0
        for name in one.fields.keys() & other.fields.keys():
            units += self.group(one.fields[name], other.fields[name])
            self.over(units)
        self.betweens[key] = units
        return units

    def sub(self, one: Collected, other: Collected) -> int:
        """Steps H to J: the sub-selections of two overlapping fields."""
        key = (id(one), id(other))
        found = self.subs.get(key)
        if found is not None:
            return found
        units = self.between(one, other)
        for name in other.distinct:
            units += self.fields_and_fragment(one, name)
        for name in one.distinct:
            units += self.fields_and_fragment(other, name)
            for name2 in other.distinct:
                units += self.between_fragments(name, name2)
            self.over(units)
        self.subs[key] = units
        return units

    def fields_and_fragment(self, collected: Collected, name: str) -> int:
        """Step D's call: one unit; its body (steps D and E) runs once per pair of set and
        fragment in the rule (twice at most where fields are mutually exclusive)."""
        if not collected.fields:
            return 1
        key = (id(collected), name)
        if key not in self.with_fragment:
            self.with_fragment.add(key)
            fragment = self.fragments[name]
            if fragment is not collected:
                units = self.between(collected, fragment)
                for inner in fragment.distinct:
                    units += self.fields_and_fragment(collected, inner)
                self.bodies += units
                self.over(units)
        return 1

    def between_fragments(self, name1: str, name2: str) -> int:
        """Step F's call: two units; its body (steps F and G) runs once per pair of
        fragments in the rule (twice at most where fields are mutually exclusive)."""
        key = (name1, name2)
        if name1 != name2 and key not in self.fragment_pairs:
            self.fragment_pairs.add(key)
            one, other = self.fragments[name1], self.fragments[name2]
            units = self.between(one, other)
            for inner in other.distinct:
                units += self.between_fragments(name1, inner)
            for inner in one.distinct:
                units += self.between_fragments(inner, name2)
            self.bodies += units
            self.over(units)
        return 2
