"""`schema.execution.validation` answers every document exactly as graphql-core's `validate`
and strawberry's `validate_document` do: the same errors (message, locations, path,
extensions) in the same order, the aborts (error limit, the overlap rule's budget) alike.

Documents: frontend page queries written from the schema by the benchmark's seeded
generator (tests/benchmarks/validate_new.py), valid ones and the same with seeded
mistakes (unknown fields, wrong argument types, missing or unused variables, variables in
the wrong place, conflicting aliases, fragment cycles, unused, unknown or duplicate
fragments, unknown directives, fragments on the wrong type), plus small hand-written ones
without fragments or variables (where rules are left out).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

import pytest
from graphql import (
    DocumentNode,
    GraphQLError,
    GraphQLSyntaxError,
    parse,
    specified_rules,
    validate,
)
from strawberry.schema.schema import validate_document as strawberry_validate

from schema.build import build_schema
from schema.execution.guard import VALIDATION_RULES
from schema.execution.validation import needed_rules, validate_document, validate_fast
from storage.settings import Settings
from tests.benchmarks.validate_new import SHAPES, page_document

SCHEMA = build_schema(Settings())._schema


def seen(errors: list[GraphQLError]) -> list[tuple[str, object]]:
    return [(type(error).__name__, error.formatted) for error in errors]


def assert_same(
    text: str, document: DocumentNode | None = None, *, valid: bool = False
) -> list[GraphQLError]:
    """The fast validation's errors against graphql-core's and strawberry's; the guard's.
    (`document`: `text` parsed already, by a caller that had to; `valid`: graphql-core's
    `validate` must find nothing, checked on the run compared, not on one more.)"""
    if document is None:
        document = parse(text)
    plain = validate(SCHEMA, document)
    if valid:
        assert plain == []
    assert seen(validate_fast(SCHEMA, document, specified_rules)) == seen(plain)
    guard = strawberry_validate(SCHEMA, document, VALIDATION_RULES)
    assert seen(validate_document(SCHEMA, document, VALIDATION_RULES)) == seen(guard)
    return guard


def replace_one(pattern: str, by: Callable[[re.Match[str]], str]) -> Callable:
    def mutate(text: str, rng: random.Random) -> str:
        found = list(re.finditer(pattern, text))
        if not found:
            return text
        match = rng.choice(found)
        return text[: match.start()] + by(match) + text[match.end() :]

    return mutate


def append(extra: str) -> Callable:
    return lambda text, rng: text + "\n" + extra


def first_fragment_twice(text: str, rng: random.Random) -> str:
    found = re.search(r"fragment \w+ on \w+ \{.*", text)
    return text + "\n" + found.group(0) if found else text


MISTAKES: list[Callable[[str, random.Random], str]] = [
    replace_one(r"(?<=[{ ])(name|id|createdAt|updatedAt)(?= )", lambda m: m.group(0) + "Typo"),
    replace_one(r"perPage: \d+", lambda m: 'perPage: "many"'),
    replace_one(r"perPage: \d+", lambda m: "perPage: 1.5"),
    replace_one(r", \$\w+: [\w!\[\]]+", lambda m: ""),  # a variable not declared
    replace_one(r"query Page\d+\(", lambda m: m.group(0) + "$unused: Int, "),
    replace_one(r": ID!(?=[,)])", lambda m: ": Int"),  # a variable in the wrong place
    replace_one(r": ID!(?=[,)])", lambda m: ": ID"),  # nullable into non-null
    replace_one(r"(?<=\{ )(?=name )", lambda m: "name: id "),  # conflicting alias
    replace_one(r"(?<=\{ )", lambda m: "id: __typename "),
    replace_one(r"perPage: \d+", lambda m: "perPage: 1, perPage: 2"),
    replace_one(r"\.\.\.(\w+)", lambda m: "...Missing"),
    replace_one(r"@include", lambda m: "@includes"),
    replace_one(r"@include\(if: \$\w+\)", lambda m: "@include(if: 3)"),
    replace_one(r"\.\.\. on (\w+)", lambda m: "... on Asset"),
    replace_one(r"(?<=fragment )(\w+) on (\w+)", lambda m: f"{m.group(1)} on Floor"),
    replace_one(r"\((\w+): \$\w+", lambda m: "(" + m.group(1) + ": null"),
    append("fragment CycleA on Asset { id ...CycleB } fragment CycleB on Asset { ...CycleA }"),
    append("fragment Lonely on Unit { id name }"),
    append("query Page0 { __typename }"),
    append("{ __typename }"),
    first_fragment_twice,
]


def mistaken_parsed(text: str, seed: int) -> tuple[str, DocumentNode] | None:
    """`text` with one to three seeded mistakes, and the document it parsed (so that a
    caller parses it once); None when it no longer parses."""
    rng = random.Random(seed)
    for mistake in rng.sample(MISTAKES, rng.randint(1, 3)):
        text = mistake(text, rng)
    try:
        return text, parse(text)
    except GraphQLSyntaxError:
        return None


@pytest.mark.parametrize("shape", SHAPES)
def test_valid_pages_of_every_shape(shape):
    for seed in range(8):
        text = page_document(SCHEMA, seed, shape, 300 + 150 * seed)
        assert_same(text, parse(text), valid=True)


def test_pages_with_mistakes_answer_the_same_errors():
    """Pages of 100 to 568 tokens (half of what they were: every kind of mistake still
    applies to 7 to 22 of them, at 55 % of the CPU); the test below makes them on pages of
    4,900 tokens."""
    checked = with_errors = 0
    for seed in range(160):
        shape = SHAPES[seed % len(SHAPES)]
        found = mistaken_parsed(page_document(SCHEMA, seed, shape, 100 + 12 * (seed % 40)), seed)
        if found is None:
            continue
        checked += 1
        with_errors += bool(assert_same(*found))
    assert checked > 120 and with_errors > 100  # the mistakes are seen


def test_large_pages_abort_alike_at_the_overlap_budget():
    """Pages of about 5,000 tokens, which spend much of the overlap rule's budget: their
    errors (an abort, had the budget run out, and every error before it) are the same."""
    for seed, shape in enumerate(SHAPES):
        text = page_document(SCHEMA, 9000 + seed, shape, 4900)
        assert_same(text)
        wrong = mistaken_parsed(text, seed)
        if wrong is not None:
            assert_same(*wrong)


SMALL = [
    "{ assets { data { id name } } }",
    "{ assets { data { id: name name } } }",
    "{ assets { data { idTypo } } }",
    "{ asset(id: 3) { id } }",
    "{ asset { id } }",
    "{ asset(id: $x) { id } }",
    "query($x: ID!) { asset(id: $x) { id } }",
    "query($x: ID!, $x: ID) { asset(id: $x) { id } }",
    "query($x: Asset) { asset(id: $x) { id } }",
    "query($x: Int!) { assets { data { id } } }",
    "query($x: Int!) { asset(id: $x) { id } }",
    "{ assets { data { ...F } } }",
    "{ assets { data { ... on Asset { id } ... on Unit { id } } } }",
    "{ assets { data { ... { id } } } }",
    "fragment F on Asset { id } { assets { data { id } } }",
    "fragment F on Asset { ...F } { assets { data { ...F } } }",
    "{ assets { data { id @skip(if: true) @skip(if: false) } } }",
    "{ assets { data { id @nope } } }",
    "query A { __typename } query A { __typename }",
    "query A { __typename } { __typename }",
    "subscription { a: __typename b: __typename }",
    "mutation { __typename }",
    "{ __schema { types { name } } __type(name: 1) { name } }",
    "{ assets(perPage: 1, perPage: 2) { data { id } } }",
    '{ asset(id: "$x") { id } } # $y',
    "query($m: ID!, $x: Float, $n: String!) { route(unitMapId: $m, from: {x: $x, y: $x}, "
    "to: {name: $n, floorId: $n}) { __typename } }",
    "query($m: ID!, $x: String) { route(unitMapId: $m, from: {x: $x}, to: {id: $z}) "
    "{ __typename } }",
    "query($m: ID!, $b: Boolean!) { ...R } fragment R on Query { route(unitMapId: $m, "
    "from: {}, to: {}) @skip(if: $b) { __typename } }",
    "query($m: ID!) { ...R } fragment R on Query @include(if: $b) { unitMap(id: $m) { id } }",
    "query A($m: ID!) { ...R } query B { ...R } fragment R on Query { unitMap(id: $m) { id } }",
]


@pytest.mark.parametrize("text", SMALL)
def test_small_documents(text):
    assert_same(text)


def test_rules_are_left_out_only_without_fragments_or_variables():
    every = (*specified_rules,)
    assert needed_rules(parse("query($x: ID!) { a(id: $x) { ...F } }"), every) == every
    assert needed_rules(parse("{ a { ... on A { id } } }"), every) != every
    assert needed_rules(parse("{ a(id: $x) { id } }"), every) != every  # no fragments
    assert len(needed_rules(parse("{ a { id } }"), every)) == len(every) - 9
