"""The guard of every /graphql operation: who may ask, and how much, before anything runs.

Before graphql-core validates the document (parsed, within the token limit): the access
of the operation's root fields, as their permission classes name it (introspection needs
no key), so a caller without access learns nothing else and costs nothing more; then the
document's depth, aliases and fragment spreads, each measured in linear time. After a
valid document: the length of the variables' lists, then the operation's cost under the
request's variables against the limit, charged to the key's rate limit. A refusal raised
here is the operation's one error (data null).

Validating a document not validated yet is charged to the caller's rate limit before it
starts, by its tokens (`validation_units`; the key's bucket, or the address's without a
key), and a new document's parse waits in a segment of its own until it is asked again,
so a flood of new documents pays for its work and cannot evict the documents in use
(issue 63; docs/limits.md, "What work costs").
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass, field
from functools import partial
from hashlib import blake2b
from typing import Any

from graphql import (
    DocumentNode,
    GraphQLError,
    GraphQLSchema,
    OperationDefinitionNode,
    OperationType,
    parse,
    specified_rules,
)
from graphql.validation import ASTValidationRule

from resolvers.auth.access import authorize
from resolvers.context import RequestContext
from resolvers.errors import ApiError, ErrorCode, invalid
from resolvers.limits import (
    MAX_INPUT_ITEMS,
    NEW_DOCUMENTS_SHARE,
    PARSE_ON_LOOP_CHARS,
    PARSE_TOKENS_PER_RATE_UNIT,
    SEEN_DOCUMENTS_BYTES,
    SEEN_KEY_BYTES,
    VALIDATE_ON_LOOP_TOKENS,
    VALIDATION_FREE_TOKENS,
    VALIDATION_TOKENS_PER_RATE_UNIT,
)
from resolvers.validation import oversized_lists
from schema.execution import fast_check
from schema.execution.bounded import ByteLRU
from schema.execution.operation_cost import check_cost, operation_cost, priced_digest
from schema.execution.operation_limits import (
    OperationLimits,
    bounded_rules,
    document_figures,
    figure_problem,
    number_problem,
    root_field_names,
    rough_size,
    token_counts,
)
from schema.execution.validation import validate_document
from schema.permissions import Requirement, field_requirement
from storage.cpu import run_cpu

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


COSTS_PER_DOCUMENT = 16  # costs kept per document for different variables
ENTRY_BYTES = 1024  # an entry's own objects, beyond its document (a rough figure)
UNSET: Any = object()


@dataclass(eq=False)
class Parsed:
    """What was worked out once for one document text: its parse, figures, validations
    and costs. Each validation error and plan holds nodes of the document, and every node
    the whole token list: they live and go with this entry."""

    document: DocumentNode
    tokens: int = 0  # comments included
    words: int = 0  # tokens without comments: what validation walks, and is charged by
    problem: GraphQLError | None = UNSET
    validations: dict[Hashable, list[GraphQLError]] = field(default_factory=dict)
    # Validations under way, by rules: a request of the same document waits for it.
    validating: dict[Hashable, asyncio.Future[None]] = field(default_factory=dict)
    costs: OrderedDict[Hashable, int] = field(default_factory=OrderedDict)


class DocumentCaches:
    """What each document costs once, shared by every operation of one schema: its
    parse, then its figures, validation and costs under small variables, all in one
    entry per text. Entries are keyed by a digest of the text (not the text: a key may
    be a megabyte) and bounded in bytes, each counted at its document's rough size.

    Two segments share the budget: a document seen once waits in `new` (a quarter), and
    moves to `entries` when it is asked again (or was seen before its entry left `new`:
    `seen` keeps digests, within SEEN_DOCUMENTS_BYTES of the budget). So documents asked
    once, refused or run, evict only each other, never the documents in use."""

    def __init__(
        self, limits: OperationLimits, max_bytes: int, max_tokens: int, max_document_bytes: int
    ) -> None:
        self.limits = limits
        self.max_tokens = max_tokens
        self.max_document_bytes = max_document_bytes
        new_bytes = int(max_bytes * NEW_DOCUMENTS_SHARE)
        seen_bytes = min(SEEN_DOCUMENTS_BYTES, max_bytes // 16)
        kept_bytes = max_bytes - new_bytes - seen_bytes
        self.entries: ByteLRU[bytes, Parsed] = ByteLRU(kept_bytes, self.forget)
        self.new: ByteLRU[bytes, Parsed] = ByteLRU(new_bytes, self.forget)
        self.seen: ByteLRU[bytes, None] = ByteLRU(seen_bytes)
        self.by_document: dict[int, Parsed] = {}  # id(document): its entry, while kept
        self.hits = self.misses = 0  # documents found parsed, documents parsed (`/metrics`)

    def figures(self) -> dict[str, int]:
        """What `/readyz` shows: both segments and the digests of documents seen, as one
        cache within FLOORGATE_GRAPHQL_CACHE_MB (its entries: parsed documents)."""
        parts = (self.entries, self.new, self.seen)
        return {
            "entries": len(self.entries) + len(self.new),
            "bytes_used": sum(part.bytes for part in parts),
            "budget_bytes": sum(part.max_bytes for part in parts),
            "hits": self.hits,  # documents found parsed
            "misses": self.misses,  # documents parsed
            "evictions": self.entries.evictions + self.new.evictions,
        }

    def forget(self, entry: Parsed) -> None:
        self.by_document.pop(id(entry.document), None)

    async def document(self, query: str) -> DocumentNode:
        """The parse of `query` within the size and token limits, shared with every
        operation's. A long text is parsed on the CPU pool, not on the event loop.
        Raises ApiError (over the size limit in UTF-8, refused before anything else) or
        GraphQLError (does not parse; not kept)."""
        limit = self.max_document_bytes
        encoded = b"" if len(query) > limit else query.encode("utf-8", "surrogatepass")
        if len(query) > limit or len(encoded) > limit:
            raise ApiError(ErrorCode.DOCUMENT_TOO_LARGE, limit=str(limit))
        key = blake2b(encoded, digest_size=16).digest()  # a key of 16 bytes, not the text
        entry = self.entries.get(key)
        if entry is not None:
            self.hits += 1
            return entry.document
        again = self.new.take(key)
        if again is not None:  # asked a second time: kept with the documents in use
            self.hits += 1
            self.entries.put(key, *again)
            if key not in self.entries:
                self.forget(again[0])
            return again[0].document
        self.misses += 1
        if len(query) > PARSE_ON_LOOP_CHARS:
            document, size, tokens, words = await run_cpu(parse_and_size, query, self.max_tokens)
        else:
            document, size, tokens, words = parse_and_size(query, self.max_tokens)
        entry = Parsed(document, tokens, words)
        seen = key in self.seen
        segment = self.entries if seen else self.new
        segment.put(key, entry, len(key) + ENTRY_BYTES + size)
        if seen:
            self.seen.pop(key)
        else:
            self.seen.put(key, None, SEEN_KEY_BYTES)
        if key in segment:
            self.by_document[id(document)] = entry
        return document

    def parsed(self, document: DocumentNode) -> Parsed:
        """The document's entry, or a fresh one that nothing keeps (a document parsed
        elsewhere, or already dropped)."""
        entry = self.by_document.get(id(document))
        if entry is not None and entry.document is document:
            return entry
        return Parsed(document, *token_counts(document))

    def validation_units(
        self, document: DocumentNode, rules: tuple[type[ASTValidationRule], ...]
    ) -> int:
        """The rate-limit units validating `document` under `rules` costs before it starts:
        none once validated (kept), else by its tokens without comments, one unit per
        VALIDATION_TOKENS_PER_RATE_UNIT beyond VALIDATION_FREE_TOKENS."""
        entry = self.parsed(document)
        if rules in entry.validations:
            return 0
        return validation_price(entry.words)

    def problem(self, document: DocumentNode) -> GraphQLError | None:
        """A number literal too long, else `figure_problem` of the document; once."""
        entry = self.parsed(document)
        if entry.problem is UNSET:
            entry.problem = number_problem(document) or figure_problem(
                document_figures(document), self.limits
            )
        return entry.problem

    async def validate(
        self,
        schema: GraphQLSchema,
        document: DocumentNode,
        rules: tuple[type[ASTValidationRule], ...],
    ) -> list[GraphQLError]:
        """strawberry's validation (graphql-core's rules and its own two), once per
        document and rules, by `validate_document` (the same errors, faster); on the CPU pool
        for a document of many tokens (15-40 us each: 5,000 hold a thread up to 0.2 s)."""
        entry = self.parsed(document)
        found = entry.validations.get(rules)
        if found is None:
            # Under the guard's own rules, a document that one pass finds certainly valid
            # is not validated again (`schema.execution.fast_check`); other rules, as ever.
            known = rules == VALIDATION_RULES
            validate = fast_check.validate_document if known else validate_document
            if entry.tokens > VALIDATE_ON_LOOP_TOKENS:
                found = await run_cpu(validate, schema, document, rules)
            else:
                found = validate(schema, document, rules)
            entry.validations[rules] = found
        return found

    def cost(
        self,
        schema: GraphQLSchema,
        document: DocumentNode,
        variables: dict[str, Any] | None,
        operation_name: str | None,
    ) -> int:
        """`operation_cost`, kept per document, operation and variables: the variables
        themselves when they are a few short scalars (a page size, an id), else a digest
        of what the price reads of them (`priced_digest`: 30 routes of one document, each
        from a point of its own, are priced once)."""
        compute = partial(operation_cost, schema, document, variables, operation_name)
        key = scalar_key(variables)
        if key is None:
            key = priced_digest(variables or {})
        costs = self.parsed(document).costs
        found = costs.get((operation_name, key))
        if found is None:
            found = costs[(operation_name, key)] = compute()
            if len(costs) > COSTS_PER_DOCUMENT:
                costs.popitem(last=False)
        return found


def parse_and_size(query: str, max_tokens: int) -> tuple[DocumentNode, int, int, int]:
    """The parse, its rough size and its tokens with and without comments, together (on
    the CPU pool for a long text)."""
    document = parse(query, max_tokens=max_tokens)
    return document, rough_size(document), *token_counts(document)


def validation_price(words: int) -> int:
    """Rate-limit units of validating a document of `words` tokens (comments left out)."""
    return -(-max(0, words - VALIDATION_FREE_TOKENS) // VALIDATION_TOKENS_PER_RATE_UNIT)


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


def keyless(context: object) -> bool:
    """A request without a key: it can only introspect, under the keyless cost ceiling.
    (In-process execution without a request, tests and tools, is not a request.)"""
    return isinstance(context, RequestContext) and context.api_key is None


async def check_access(
    caches: DocumentCaches,
    schema: GraphQLSchema,
    document: DocumentNode,
    operation: OperationDefinitionNode | None,
    context: object,
) -> bool:
    """Before validation: the key, the root fields' access, then the document's figures.
    True when the operation is keyed (its cost is then charged, introspection too).
    Raises the refusal: a key that is missing (for any data field), unknown or out of
    tokens refuses the whole operation, and so does a permission or flag when it refuses
    every root field the operation asks for (the caller learns nothing else, costs
    nothing more). In a query, a root field refused among others that pass answers null
    with its error, as the GraphQL spec has it: its permission class refuses it as it
    runs. A mutation with any refused field is refused whole: its fields are non-null,
    so the null would reach `data` and hide the writes of the others, made before it.

    In-process execution without a request (tests, tools) has no caller to check: the
    fields' permission classes still refuse it."""
    keyed = isinstance(context, RequestContext) and context.api_key is not None
    if isinstance(context, RequestContext) and operation is not None:
        if keyed:
            await context.caller()
        refusals: list[ApiError] = []
        requirements = root_requirements(schema, document, operation)
        for permission, flag in requirements:
            try:
                await authorize(context, permission=permission, flag=flag)
            except ApiError as refusal:
                if refusal.code not in FIELD_REFUSALS:
                    raise
                refusals.append(refusal)
        every = len(refusals) == len(requirements)
        if refusals and (every or operation.operation is OperationType.MUTATION):
            raise refusals[0]
    problem = caches.problem(document)
    if problem is not None:
        raise problem
    return keyed


FIELD_REFUSALS = (ErrorCode.FORBIDDEN, ErrorCode.FLAG_REQUIRED)  # of one field, not the key


async def check_cost_of(
    caches: DocumentCaches,
    schema: GraphQLSchema,
    document: DocumentNode,
    operation_name: str | None,
    variables: dict[str, Any] | None,
    context: object,
) -> int:
    """After a valid document, before anything walks the variables (the cost, coercion):
    a huge list costs nothing to refuse; then the cost against the ceiling (the keyless
    one without a key). Raises the refusal; else the cost, which the caller charges (the
    runner, `schema.execution.running.runner`)."""
    oversized = [
        where
        for name, value in (variables or {}).items()
        for where in oversized_lists(value, MAX_INPUT_ITEMS, name)
    ]
    if oversized:
        raise invalid(
            {where: [f"must have at most {MAX_INPUT_ITEMS} items"] for where in oversized}
        )
    cost = caches.cost(schema, document, variables, operation_name)
    check_cost(cost, caches.limits.cost_limit(keyless(context)))
    return cost


async def paid_validation(
    caches: DocumentCaches, schema: GraphQLSchema, document: DocumentNode, context: object
) -> list[GraphQLError]:
    """The document's validation under the guard's rules, paid once: a request that finds
    it done takes it; one that finds it under way waits for it (twelve requests of a new
    document at once pay for one validation, not twelve); else this one claims it, pays
    its price (refused 429 when short, its parse then owed: the claim is given up and a
    waiter claims it in turn, paying its own) and validates."""
    entry = caches.parsed(document)
    while True:
        found = entry.validations.get(VALIDATION_RULES)
        if found is not None:
            return found
        under_way = entry.validating.get(VALIDATION_RULES)
        if under_way is None:
            break
        await asyncio.shield(under_way)  # done, or given up: look again
    claim: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    entry.validating[VALIDATION_RULES] = claim
    try:
        units = caches.validation_units(document, VALIDATION_RULES)
        if units and isinstance(context, RequestContext):
            owed = entry.tokens / PARSE_TOKENS_PER_RATE_UNIT
            await context.spend(units, owed)
        return await caches.validate(schema, document, VALIDATION_RULES)
    finally:
        del entry.validating[VALIDATION_RULES]
        claim.set_result(None)


@dataclass(frozen=True)
class Checked:
    """What `check_operation` found: whether a key pays, validation's errors (nothing was
    priced then), the cost."""

    keyed: bool
    errors: list[GraphQLError]
    cost: int


async def check_operation(
    caches: DocumentCaches,
    schema: GraphQLSchema,
    document: DocumentNode,
    operation: OperationDefinitionNode,
    variables: dict[str, Any] | None,
    context: object,
) -> Checked:
    """/graphql's checks of one operation without strawberry's pipeline, in their order:
    access (`check_access`), the price of validating a document not validated yet
    (`validation_units`; refused 429 past the rate limit, its parse then owed) and its
    validation, once for requests of it at once (`paid_validation`),
    the cost (`check_cost_of`). Refusals are raised; validation's errors are returned,
    unpriced. (`DocumentOperation` and the WebSocket's
    `SocketSubscription` run them.)"""
    keyed = await check_access(caches, schema, document, operation, context)
    errors = await paid_validation(caches, schema, document, context)
    if errors:
        return Checked(keyed, errors, 0)
    name = operation.name.value if operation.name else None
    cost = await check_cost_of(caches, schema, document, name, variables, context)
    return Checked(keyed, [], cost)
