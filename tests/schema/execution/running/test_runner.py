"""The one runner (`schema.execution.running.runner`): its steps in their order, on the
real read cache and rate limit of the test database, with an operation whose price,
result and answered cost the test sets."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from dataclasses import dataclass, field
from typing import Any

import pytest
import pytest_asyncio

from resolvers.auth.permissions import UNIT_MAPS_PARSE
from resolvers.context import RequestContext, Services
from resolvers.errors import ApiError, ErrorCode
from resolvers.limits import COST_PER_RATE_UNIT
from schema.execution.running.runner import Encoded, OperationCall, OperationRunner
from storage import collections as col
from storage.cache import cached_reads
from storage.cache.read_cache import READS, kept_key
from storage.cache.scopes import Scope

COLLECTION = "units"


@dataclass
class Recorded:
    """An operation that reads one collection through the cache and records its steps."""

    cost: int | None
    answered_cost: int | None = None
    steps: list[str] = field(default_factory=list)

    async def price(self) -> int | None:
        self.steps.append("price")
        return self.cost

    async def execute(self) -> dict[str, Any]:
        self.steps.append("execute")
        log = READS.get()
        if log is not None:
            log.note(COLLECTION, (0, 0))
        return {"answer": len(self.steps)}

    def answered(self, content: bytes) -> int | None:
        self.steps.append("answered")
        return self.answered_cost


def encoded(result: dict[str, Any]) -> Encoded:
    return Encoded(str(result).encode(), "tag")


@pytest_asyncio.fixture
async def live_cache(store):
    cache = store.cache
    await cached_reads.find_one(store, col.UNITS, {"_id": "none"})  # starts its stream
    deadline = time.monotonic() + 10
    while not cache.live:
        assert time.monotonic() < deadline, "the change stream never came up"
        await asyncio.sleep(0.05)
    cache.flush()
    before = cache.version

    def version(collection: str, scope: Scope | None = None) -> tuple[int, ...]:
        # one version the test controls
        return (0, 0) if collection == COLLECTION else before(collection, scope)

    cache.version = version  # type: ignore[method-assign]  # an instance's, undone below
    yield cache
    del cache.version
    cache.flush()


def context_of(store, settings, key: str | None) -> RequestContext:
    return RequestContext(Services(store, settings), key, frozenset(), state={})


async def test_an_answer_is_kept_and_served_at_what_it_settled(store, settings, keys, live_cache):
    runner = OperationRunner(live_cache)
    key = kept_key("runner-test", "settled")
    first = Recorded(cost=3 * COST_PER_RATE_UNIT, answered_cost=7)
    context = context_of(store, settings, keys.full)
    ran = await runner.run(OperationCall(context, first, encoded, key))
    assert (ran.content, ran.tag, ran.result) == (b"{'answer': 2}", "tag", {"answer": 2})
    assert first.steps == ["price", "execute", "answered"]
    assert context.cost == 7 and context.charged_units == 1  # settled: 2 units back
    kept = live_cache.answer(key)
    assert kept is not None and (kept.data, kept.tag, kept.cost) == (ran.content, "tag", 7)

    again = Recorded(cost=3 * COST_PER_RATE_UNIT)
    context = context_of(store, settings, keys.full)
    served = await runner.run(OperationCall(context, again, encoded, key))
    assert (served.content, served.tag, served.result) == (ran.content, "tag", None)
    assert again.steps == []  # neither priced (its key holds what that read) nor executed
    assert context.cost == 7  # charged what the first run settled at


async def test_an_answer_with_errors_or_without_a_key_is_not_kept(
    store, settings, keys, live_cache
):
    runner = OperationRunner(live_cache)
    key = kept_key("runner-test", "not kept")
    context = context_of(store, settings, keys.full)
    with_errors = OperationCall(context, Recorded(cost=5), lambda _: Encoded(b"x", keep=False), key)
    await runner.run(with_errors)
    assert live_cache.answer(key) is None
    keyless = context_of(store, settings, None)
    unpriced = Recorded(cost=None)  # no key: nothing charged, settled or kept
    ran = await runner.run(OperationCall(keyless, unpriced, encoded, key))
    assert unpriced.steps == ["price", "execute"] and ran.result == {"answer": 2}
    assert live_cache.answer(key) is None and keyless.cost is None


async def test_uncharged_input_is_run_but_neither_charged_nor_settled(
    store, settings, keys, live_cache
):
    runner = OperationRunner(live_cache)
    context = context_of(store, settings, keys.full)
    operation = Recorded(cost=5 * COST_PER_RATE_UNIT, answered_cost=1)
    await runner.run(OperationCall(context, operation, encoded, None, charged=False))
    assert operation.steps == ["price", "execute"]
    assert context.cost is None


async def test_a_refused_charge_runs_nothing(store, settings, keys, live_cache):
    runner = OperationRunner(live_cache)
    # The suite's rate limit is off; the ceiling is raised past the price (the next test).
    limited = dataclasses.replace(settings, rate_limit_per_second=5, graphql_max_cost=10**13)
    context = context_of(store, limited, keys.full)
    operation = Recorded(cost=10**12)  # more units than any key's limit holds
    with pytest.raises(ApiError) as refused:
        await runner.run(OperationCall(context, operation, encoded, kept_key("runner", "big")))
    assert refused.value.code is ErrorCode.RATE_LIMITED
    assert operation.steps == ["price"]


@pytest.mark.security
async def test_an_operation_over_the_ceiling_is_refused_whatever_its_face(
    store, settings, keys, live_cache
):
    """Issue 63, finding 4: the runner holds every priced operation to the one ceiling
    (FLOORGATE_GRAPHQL_MAX_COST), a REST route's as a /graphql document's: refused with
    COST_LIMIT after its price, nothing charged, run or kept; at the ceiling it runs."""
    runner = OperationRunner(live_cache)
    limit = settings.graphql_max_cost
    context = context_of(store, settings, keys.full)
    over = Recorded(cost=limit + 1)
    key = kept_key("runner", "over the ceiling")
    with pytest.raises(ApiError) as refused:
        await runner.run(OperationCall(context, over, encoded, key))
    assert refused.value.code is ErrorCode.COST_LIMIT
    assert refused.value.message == (
        f"Query cost {limit + 1} exceeds the limit of {limit}: ask for smaller pages or "
        "fewer fields"
    )
    assert over.steps == ["price"]
    assert context.cost is None and live_cache.answer(key) is None
    at = Recorded(cost=limit)
    await runner.run(OperationCall(context_of(store, settings, keys.full), at, encoded))
    assert at.steps == ["price", "execute", "answered"]
    opened = Recorded(cost=limit + 1)  # a subscription's opening, likewise
    with pytest.raises(ApiError) as refused:
        await runner.open(context_of(store, settings, keys.full), opened)
    assert refused.value.code is ErrorCode.COST_LIMIT and opened.steps == ["price"]


async def test_admit_checks_the_key_then_each_requirement(store, settings, keys):
    plain = context_of(store, settings, keys.plain)
    with pytest.raises(ApiError) as refused:
        await OperationRunner.admit(plain, [(None, None), (UNIT_MAPS_PARSE, None)])
    assert refused.value.code is ErrorCode.FORBIDDEN
    missing = context_of(store, settings, None)
    with pytest.raises(ApiError) as refused:
        await OperationRunner.admit(missing, [(None, None)])
    assert refused.value.code is ErrorCode.UNAUTHENTICATED
    keyless = context_of(store, settings, None)
    await OperationRunner.admit(keyless, keyless=True)  # a token of its address instead
    wrong = context_of(store, settings, "not-a-key")
    with pytest.raises(ApiError) as refused:
        await OperationRunner.admit(wrong, keyless=True)
    assert refused.value.code is ErrorCode.INVALID_KEY


async def test_a_kept_answer_is_served_only_after_its_charge(store, settings, keys, live_cache):
    """A key out of tokens gets its refusal, not the answer another request of its own
    left kept: the kept cost is charged before anything is served."""
    runner = OperationRunner(live_cache)
    key = kept_key("runner-test", "charged")
    first = Recorded(cost=10**12)  # the suite's rate limit is off: charged, not refused
    past = dataclasses.replace(settings, graphql_max_cost=10**13)  # the ceiling above it
    await runner.run(OperationCall(context_of(store, past, keys.full), first, encoded, key))
    kept = live_cache.answer(key)
    assert kept is not None and kept.cost == 10**12
    limited = dataclasses.replace(settings, rate_limit_per_second=5)
    again = Recorded(cost=1)
    with pytest.raises(ApiError) as refused:
        await runner.run(OperationCall(context_of(store, limited, keys.full), again, encoded, key))
    assert refused.value.code is ErrorCode.RATE_LIMITED
    assert again.steps == []
