"""The one runner of every operation, from either face: access, cache, price, charge,
execute, settle, keep, in this order and only here.

A face (REST's `rest.v1.dispatch`, `/graphql`'s `rest.graphql_http.view`) translates its
request into an `OperationCall`: the caller's context, the operation to run (a
`Priced` operation: a REST route's, `schema.execution.running.route`, or a /graphql
document's, `schema.execution.running.document`), how its result is written (`encode`) and the
key its answer is kept under (a digest of the canonical input and the caller, or None).
It translates the `Ran` answer back into HTTP. What the runner owns:

1. **access**: `admit` checks the key, flag and permission a route names before its
   face reads a body (a /graphql document's root fields are checked by its `price`, once
   parsed: its body is the document);
2. **cache**: an answer kept for the same input and caller, while the data it read
   holds, is served after access, charged what its first run settled at. Its key holds
   everything the price and a document's checks read (the document, operation and
   variables, or the route and query; the caller's permissions, assets and flags; the
   language), so they would find what they found then and are not done again (a
   /graphql kept answer spent a fifth of its CPU on them);
3. **price**: the operation's cost before anything runs, refused over the one ceiling
   (`FLOORGATE_GRAPHQL_MAX_COST`) whichever face asked: a /graphql document's guard
   refuses first (without a key, under its lower ceiling), and a REST route's price is
   held to the same number here (issue 63: a route of 25 stops, optimised, ran on REST
   at 477,021 where /graphql refused it);
4. **charge**: the cost against the key's rate limit (a kept answer: what its first run
   settled at, kept beside it; one cost store, the read cache's entry);
5. **execute**: in the request's language (its reads give names in it, `storage.cache.names`),
   the operation's strategy (a REST route's plan, a direct plan, the
   compiled executor, graphql-core; `schema.execution.running.strategies`);
6. **settle**: a page shorter than priced gives back what it did not cost; what it
   did beyond its price (a bulk write's documents, the searches that explain a route
   that does not exist) is charged once it ran (`RequestContext.charge_after`);
7. **keep**: an answer without errors is kept while what it read holds.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from resolvers.auth.access import authorize
from resolvers.context import RequestContext
from resolvers.errors import check_cost
from storage.cache.names import READ_LANGUAGE
from storage.cache.read_cache import READS, ReadCache, ReadLog

if TYPE_CHECKING:  # not imported: a planned REST route runs before GraphQL is imported
    from schema.permissions import Requirement

R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)


class Priced(Protocol[R_co]):
    """One operation, ready to run: priced first, then executed, then its answer costed."""

    async def price(self) -> int | None:
        """Its cost before it runs; None when nothing is charged (no key, or refused before
        pricing: `execute` then answers the refusal). Raises ApiError to refuse."""
        ...

    async def execute(self) -> R_co:
        """Its result; a failure is raised (`OperationFailed`) or part of the result."""
        ...

    def answered(self, content: bytes) -> int | None:
        """What its answer (`content`, as encoded) cost, when less than its price."""
        ...


@dataclass(frozen=True)
class Encoded:
    """An answer written by its face: its bytes, its tag, and whether it may be kept (an
    answer with errors is not)."""

    content: bytes
    tag: str = ""
    keep: bool = True


@dataclass(frozen=True)
class OperationCall(Generic[R]):
    """What a face hands to the runner."""

    context: RequestContext
    operation: Priced[R]
    encode: Callable[[R], Encoded]
    key: Hashable | None = None  # its answer's key; None: not kept
    charged: bool = True  # False: its input is refused after it ran (REST's query problems)


@dataclass(frozen=True)
class Ran(Generic[R]):
    """An operation's answer: `result` is None when a kept answer was served."""

    content: bytes
    tag: str
    result: R | None


class OperationRunner:
    """Runs operations against one process's read cache (the kept answers and their costs)."""

    def __init__(self, cache: ReadCache | None) -> None:
        self.cache = cache  # None: no answer is kept (in-process callers)

    @staticmethod
    async def admit(
        context: RequestContext, requirements: Iterable[Requirement] = (), *, keyless: bool = False
    ) -> None:
        """Access before the body is read: the key, then each flag and permission (ApiError
        refuses; a caller who may not call learns nothing else and costs nothing more).
        Where an operation needs no key (`keyless`: /graphql's introspection), a request
        without one spends a token of its address's limit instead."""
        if keyless and context.api_key is None:
            context.spend_address_token()
            return
        await context.caller()
        for permission, flag in requirements:
            await authorize(context, permission=permission, flag=flag)

    async def run(self, call: OperationCall[R]) -> Ran[R]:
        """Cache, price, charge, execute, settle, keep (ApiError refuses)."""
        context, operation = call.context, call.operation
        if call.key is not None and self.cache is not None:
            kept = self.cache.answer(call.key)
            if kept is not None:
                await context.charge(kept.cost)
                return Ran(kept.data, kept.tag, None)
        cost = await operation.price()
        if cost is not None:  # one ceiling for both faces: a REST route's price too
            check_cost(cost, context.settings.graphql_max_cost)
        key = call.key if self.cache is not None and cost is not None else None
        if cost is not None and call.charged:
            await context.charge(cost)
        reads = None if key is None else ReadLog(key)
        token = READS.set(reads)
        language = READ_LANGUAGE.set(None if context.language is None else context.language.reading)
        try:
            result = await operation.execute()
        finally:
            READ_LANGUAGE.reset(language)
            READS.reset(token)
            await context.charge_after()
        encoded = call.encode(result)
        if cost is not None and call.charged:
            answered = operation.answered(encoded.content)
            if answered is not None and answered < cost:
                await context.settle(answered)
                cost = answered
        if reads is not None and encoded.keep and cost is not None:
            assert self.cache is not None
            self.cache.keep_answer(reads, encoded.content, encoded.tag, cost)
        return Ran(encoded.content, encoded.tag, result)

    @staticmethod
    async def open(context: RequestContext, operation: Priced[R]) -> R:
        """A subscription's opening (`schema.execution.running.subscription`): priced and
        charged once, then opened; nothing is kept or settled (its events are paid as
        they come: a replay per event, by the hub's pace)."""
        cost = await operation.price()
        if cost is not None:
            check_cost(cost, context.settings.graphql_max_cost)
            await context.charge(cost)
        return await operation.execute()
