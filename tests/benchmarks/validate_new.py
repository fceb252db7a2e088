"""Validating a GraphQL document the server has not seen before (issue 36): a frontend
page query of about 5,000 tokens (the token limit), every one new, so no cache helps.

Documents are written from the schema itself by a seeded generator (`page_document`):
many root fields with their arguments as variables, aliases, nested lists of objects,
named fragments spread at several places (and inside each other), inline fragments and
`@include` on a variable, in four shapes (a dashboard of many shallow root fields, deep
nested lists, fragments everywhere, a mix). Their tokens are counted by graphql-core's
lexer. Each document is timed once (a new document each time, so nothing is cached):

- before: the guard's validation as it was (strawberry's `validate_document`: the
  guard's rules, then strawberry's two), errors checked equal to now's;
- exact: the exact rules as the guard ran them before the fast path
  (`schema.execution.validation.validate_document`), which it still runs for a document
  the fast path does not accept;
- guard: the validation a /graphql request runs for a new document now
  (`DocumentCaches.validate`: `schema.execution.fast_check.validate_document`, on the
  CPU pool as for any document over VALIDATE_ON_LOOP_TOKENS);
- fast path: `schema.execution.fast_check.certainly_valid` alone, and how many documents
  it accepts ("accepted");
- request: the whole path before execution as `schema.execution.running.document.run_operation`
  takes it on a fresh schema cache: the parse with its size and tokens, the figures
  (`DocumentCaches.problem`), the validation and the cost;
- plain: graphql-core's own `validate` with its default rules on the same document (every
  document is valid by them), and `validate_fast` with the same rules.

The guard refuses most documents of this size: the overlap rule's budget
(OVERLAP_COMPARISON_BUDGET) is spent before the end, and the column "refused" counts
them; the validation of those ends at the abort.

Medians and p95 per shape. Pure CPU, no database. Run with
`python -m tests.benchmarks validate_new`.
"""

from __future__ import annotations

import random
import re
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TypeVar

from graphql import (
    GraphQLField,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLSchema,
    Lexer,
    Source,
    TokenKind,
    get_named_type,
    specified_rules,
    validate,
)
from strawberry.schema.schema import validate_document as strawberry_validate

from schema.build import build_schema
from schema.execution.fast_check import certainly_valid
from schema.execution.guard import VALIDATION_RULES, DocumentCaches
from schema.execution.validation import validate_document, validate_fast
from storage.settings import Settings
from tests.benchmarks.harness.report import run_and_report

SHAPES = ("dashboard", "deep", "fragments", "mixed")
TARGET_TOKENS = 4900  # under the default limit of 5,000 (graphql_max_tokens)
RUNS = 20  # documents per shape, each new
WARMUP = 3
T = TypeVar("T")


# GraphQL's lexical tokens (commas, white space and the byte order mark are none):
# comments, block strings, strings, numbers, names and punctuators.
TOKEN = re.compile(
    r'#[^\n\r]*|"""(?:\\"""|[^"]|"(?!""))*"""|"(?:\\.|[^"\\\n\r])*"'
    r"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|[_A-Za-z][_0-9A-Za-z]*|\.\.\.|[!$&():=@\[\]{|}]"
)


def tokens_of(text: str) -> int:
    """The tokens of `text` as graphql-core's lexer counts them (comments are skipped), by
    one regular expression: the lexer took 98% of a page's writing, which renders and
    counts the page again at each root field it adds. `lexer_tokens_of` is the
    reference (tests/schema/test_fast_check.py)."""
    return sum(1 for token in TOKEN.findall(text) if token[0] != "#")


def lexer_tokens_of(text: str) -> int:
    """The tokens of `text` read by graphql-core's lexer."""
    lexer = Lexer(Source(text))
    count = 0
    while lexer.advance().kind is not TokenKind.EOF:
        count += 1
    return count


@dataclass
class Writer:
    """One document being written: its variables, fragments and aliases so far."""

    schema: GraphQLSchema
    rng: random.Random
    shape: str
    max_depth: int
    variables: dict[str, str] = field(default_factory=dict)  # name: type
    fragments: dict[str, str] = field(default_factory=dict)  # name: definition
    fragment_of: dict[str, list[str]] = field(default_factory=dict)  # type: its fragments
    aliases: int = 0  # a fragment's count at each spread: none are written in fragments
    writing: int = 0  # fragments being written
    tag: str = ""

    def variable(self, base: str, type_: str) -> str:
        name = f"{base}{len(self.variables)}"
        self.variables[name] = type_
        return f"${name}"

    def argument_text(self, field_: GraphQLField) -> str:
        """Required arguments from variables; an optional page size now and then."""
        parts = []
        for name, argument in field_.args.items():
            type_ = argument.type
            if isinstance(type_, GraphQLNonNull):
                parts.append(f"{name}: {self.variable(name, str(type_))}")
            elif name == "perPage" and self.rng.random() < 0.6:
                parts.append(f"perPage: {self.rng.randint(1, 50)}")
            elif name == "page" and self.rng.random() < 0.2:
                parts.append(f"page: {self.variable('page', 'Int')}")
        return f"({', '.join(parts)})" if parts else ""

    def selection(self, type_: GraphQLObjectType, depth: int) -> str:
        """A selection of `type_`: some of its leaves, some objects below, a fragment."""
        leaves, objects = [], []
        for name, field_ in type_.fields.items():
            named = get_named_type(field_.type)
            if isinstance(named, GraphQLObjectType):
                required = any(isinstance(a.type, GraphQLNonNull) for a in field_.args.values())
                if not required:
                    objects.append(name)
            else:
                leaves.append(name)
        picked = self.rng.sample(leaves, int(len(leaves) * self.rng.uniform(0.5, 1)))
        parts = ["__typename"] if self.rng.random() < 0.3 or not picked else []
        for name in picked:
            if not self.writing and self.aliases < 20 and self.rng.random() < 0.05:
                self.aliases += 1
                parts.append(f"{name}{self.tag}A{self.aliases}: {name}")
            else:
                parts.append(name)
        if depth < self.max_depth:
            share = {"dashboard": 0.3, "deep": 0.8, "fragments": 0.5, "mixed": 0.5}[self.shape]
            for name in objects:
                if name == "data" or not leaves or self.rng.random() < share:
                    below = get_named_type(type_.fields[name].type)
                    assert isinstance(below, GraphQLObjectType)
                    args = self.argument_text(type_.fields[name])
                    inner = self.selection(below, depth + 1)
                    if self.rng.random() < 0.15:
                        flag = self.variable("with", "Boolean!")
                        parts.append(f"{name}{args} @include(if: {flag}) {{ {inner} }}")
                    else:
                        parts.append(f"{name}{args} {{ {inner} }}")
        fragment_share = {"dashboard": 0.2, "deep": 0.2, "fragments": 0.7, "mixed": 0.4}
        if self.rng.random() < fragment_share[self.shape]:
            parts.append(self.spread(type_, depth))
        if self.rng.random() < 0.1:
            parts.append(f"... on {type_.name} {{ {self.rng.choice(leaves or ['__typename'])} }}")
        self.rng.shuffle(parts)
        return " ".join(parts)

    def spread(self, type_: GraphQLObjectType, depth: int) -> str:
        """A spread of a fragment on `type_`: one already written, or a new one."""
        known = self.fragment_of.setdefault(type_.name, [])
        written = [name for name in known if self.fragments[name]]  # not one being written
        if written and self.rng.random() < 0.6:
            return f"...{self.rng.choice(written)}"
        name = f"{type_.name}{self.tag}F{len(self.fragments)}"
        known.append(name)
        self.fragments[name] = ""  # reserved: a fragment below must not spread it
        self.writing += 1
        body = self.selection(type_, depth + 1)
        self.writing -= 1
        self.fragments[name] = f"fragment {name} on {type_.name} {{ {body} }}"
        return f"...{name}"


def page_document(schema: GraphQLSchema, seed: int, shape: str, target: int) -> str:
    """A new page query of about `target` tokens (seeded, so each seed is another text)."""
    rng = random.Random(seed)
    depth = {"dashboard": 2, "deep": 5, "fragments": 4, "mixed": 4}[shape]
    writer = Writer(schema, rng, shape, depth, tag=f"S{seed}")
    query = schema.query_type
    assert query is not None
    roots = [
        name
        for name, root in query.fields.items()
        if isinstance(get_named_type(root.type), GraphQLObjectType) and not name.startswith("__")
    ]
    chunks: list[str] = []
    chunks_tokens = 0  # the tokens of `chunks`, counted once each
    fragment_tokens: dict[str, int] = {}  # a written fragment's text: its tokens
    first_arguments: dict[str, str] = {}  # a root field's arguments where it came first
    while True:
        unused = [name for name in roots if name not in first_arguments]
        if writer.aliases >= 10 and unused:
            name = rng.choice(unused)
        else:
            name = rng.choice(unused if unused and rng.random() < 0.7 else roots)
        root = query.fields[name]
        arguments = writer.argument_text(root)
        if name not in first_arguments:
            first_arguments[name] = arguments
            alias = ""
        elif writer.aliases < 10:  # the same field again, other arguments, an alias
            writer.aliases += 1
            alias = f"{name}{writer.aliases}: "
        else:  # again, merged with the first (another part of the page asks for more)
            arguments, alias = first_arguments[name], ""
        type_ = get_named_type(root.type)
        assert isinstance(type_, GraphQLObjectType)
        chunk = f"{alias}{name}{arguments} {{ {writer.selection(type_, 1)} }}"
        tokens = tokens_of(chunk)
        if chunks_tokens + tokens + frame_tokens(writer, seed, fragment_tokens) > target and chunks:
            return render(writer, chunks, seed, prune=True)
        chunks.append(chunk)
        chunks_tokens += tokens


def frame_tokens(writer: Writer, seed: int, fragment_tokens: dict[str, int]) -> int:
    """The tokens of `render(writer, chunks, seed)` but those of its chunks: its head,
    braces and fragments. Tokens never span the spaces and line breaks between the parts,
    so the page's count is this plus its chunks', each counted once (counting each
    rendered page again was most of writing one)."""
    declared = ", ".join(f"${name}: {type_}" for name, type_ in writer.variables.items())
    head = f"query Page{seed}({declared})" if declared else f"query Page{seed}"
    count = tokens_of(head) + 2  # and the operation's braces
    for fragment in writer.fragments.values():
        if fragment not in fragment_tokens:
            fragment_tokens[fragment] = tokens_of(fragment)
        count += fragment_tokens[fragment]
    return count


def render(writer: Writer, chunks: list[str], seed: int, prune: bool = False) -> str:
    """The document of `chunks`: its variables (those used, when pruning) and fragments
    (those spread: a fragment spread only from a dropped chunk would be unused)."""
    body = " ".join(chunks)
    fragments = dict(writer.fragments)
    if prune:
        while True:
            text = body + " ".join(fragments.values())
            keep = {name: f for name, f in fragments.items() if mentions(text, f"...{name}")}
            if len(keep) == len(fragments):
                break
            fragments = keep
        text = body + " ".join(fragments.values())
        variables = {n: t for n, t in writer.variables.items() if mentions(text, f"${n}")}
    else:
        variables = writer.variables
    declared = ", ".join(f"${name}: {type_}" for name, type_ in variables.items())
    head = f"query Page{seed}({declared})" if declared else f"query Page{seed}"
    return f"{head} {{ {body} }}\n" + "\n".join(fragments.values())


def mentions(text: str, word: str) -> bool:
    """`word` in `text` as a whole name (`...F1` is not in `...F12`). (By `str.find`: a
    regular expression per word was compiled anew each time.)"""
    start = text.find(word)
    while start >= 0:
        end = start + len(word)
        if end == len(text) or text[end] not in NAME_CHARACTERS:
            return True
        start = text.find(word, start + 1)
    return False


NAME_CHARACTERS = frozenset("_0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


@dataclass
class Timings:
    tokens: list[int] = field(default_factory=list)
    refused: int = 0  # by the guard's validation (the overlap rule's budget)
    accepted: int = 0  # by the fast path
    columns: dict[str, list[float]] = field(default_factory=dict)  # ms

    def add(self, column: str, seconds: float) -> None:
        self.columns.setdefault(column, []).append(seconds * 1000)


COLUMNS = {
    "before": "guard's validation before (strawberry's `validate_document`)",
    "exact": "exact path (`validation.validate_document`)",
    "guard": "guard's validation now",
    "fast": "fast path (`certainly_valid`)",
    "request": "parse+figures+validation+cost now",
    "plain": "graphql-core `validate`, default rules",
    "plain_fast": "same rules, `validate_fast`",
}


def timed(function: Callable[[], T]) -> tuple[T, float]:
    started = time.perf_counter()
    result = function()
    return result, time.perf_counter() - started


async def time_shape(shape: str, runs: int, first_seed: int) -> Timings:
    """`runs` new documents of `shape`, each timed once by each path (fresh caches, so
    nothing is a hit)."""
    schema = build_schema(Settings())
    graphql_schema = schema._schema
    limits = schema.caches.limits
    timings = Timings()
    for index in range(WARMUP + runs):
        text = page_document(graphql_schema, first_seed + index, shape, TARGET_TOKENS)
        caches = DocumentCaches(limits, 64 << 20, 100_000, 1 << 22)
        started = time.perf_counter()
        document = await caches.document(text)
        problem = caches.problem(document)
        errors = await caches.validate(graphql_schema, document, VALIDATION_RULES)
        assert problem is None, problem
        if not errors:
            name = document.definitions[0].name.value  # type: ignore[union-attr]
            caches.cost(graphql_schema, document, None, name)
        request = time.perf_counter() - started
        caches = DocumentCaches(limits, 64 << 20, 100_000, 1 << 22)
        document = await caches.document(text)
        started = time.perf_counter()
        await caches.validate(graphql_schema, document, VALIDATION_RULES)
        guard = time.perf_counter() - started
        before_errors, before = timed(
            partial(strawberry_validate, graphql_schema, document, VALIDATION_RULES)
        )
        exact_errors, exact = timed(
            partial(validate_document, graphql_schema, document, VALIDATION_RULES)
        )
        accepted, fast = timed(partial(certainly_valid, graphql_schema, document))
        assert not (accepted and exact_errors), exact_errors[:3]  # never a wrong yes
        plain_errors, plain = timed(partial(validate, graphql_schema, document))
        fast_errors, plain_fast = timed(
            partial(validate_fast, graphql_schema, document, specified_rules)
        )
        assert not plain_errors and not fast_errors, plain_errors[:3]  # valid by the spec
        assert [e.formatted for e in before_errors] == [e.formatted for e in errors]
        assert [e.formatted for e in exact_errors] == [e.formatted for e in errors]
        if index >= WARMUP:
            timings.refused += bool(errors)
            timings.accepted += accepted
            timings.tokens.append(tokens_of(text))
            for column, seconds in zip(
                COLUMNS, (before, exact, guard, fast, request, plain, plain_fast), strict=True
            ):
                timings.add(column, seconds)
    return timings


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) > 1 else values[0]


async def measure(_tmp: Path) -> dict[str, Timings]:
    return {
        shape: await time_shape(shape, RUNS, 1000 * (number + 1))
        for number, shape in enumerate(SHAPES)
    }


def tables(results: dict[str, Timings]) -> list[list[str]]:
    """One table: per shape, the median and p95 of each column in ms."""
    lines = [
        "| shape | tokens (median) | refused by the guard | accepted by the fast path | "
        + " | ".join(f"{title}, ms median / p95" for title in COLUMNS.values())
        + " |",
        "|---" * (4 + len(COLUMNS)) + "|",
    ]
    for shape, t in results.items():
        cells = [
            f"{statistics.median(t.columns[c]):.1f} / {p95(t.columns[c]):.1f}" for c in COLUMNS
        ]
        lines.append(
            f"| {shape} | {statistics.median(t.tokens):.0f} | {t.refused}/{len(t.tokens)} | "
            f"{t.accepted}/{len(t.tokens)} | " + " | ".join(cells) + " |"
        )
    return [lines]


def main() -> None:
    run_and_report(
        f"Validating new documents of about {TARGET_TOKENS} tokens, {RUNS} per shape",
        measure,
        tables,
    )


if __name__ == "__main__":
    main()
