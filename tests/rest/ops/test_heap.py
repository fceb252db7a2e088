"""When the heap is given back after connections close (rest/ops/heap.py), on a real event
loop with GIVE_BACK_DELAY and GIVE_BACK_SECONDS shortened, `give_back` itself counted."""

from __future__ import annotations

import asyncio
import itertools

import pytest

import rest.ops.heap as heap

DELAY, EVERY = 0.05, 0.2


@pytest.fixture
def given_back(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The loop's times of each give-back."""
    times: list[float] = []
    monkeypatch.setattr(heap, "GIVE_BACK_DELAY", DELAY)
    monkeypatch.setattr(heap, "GIVE_BACK_SECONDS", EVERY)
    monkeypatch.setattr(heap, "give_back", lambda: times.append(asyncio.get_running_loop().time()))
    return times


async def closes(counter: heap.GiveBack, count: int) -> None:
    for _ in range(count):
        counter.count()


async def test_fewer_closes_than_the_count_give_nothing_back(given_back: list[float]) -> None:
    counter = heap.GiveBack(10)
    await closes(counter, 9)
    await asyncio.sleep(DELAY + EVERY + 0.1)
    assert given_back == []


async def test_a_mass_close_is_given_back_after_the_delay(given_back: list[float]) -> None:
    counter = heap.GiveBack(10)
    start = asyncio.get_running_loop().time()
    await closes(counter, 25)
    await asyncio.sleep(DELAY + 0.1)
    assert len(given_back) == 1
    assert given_back[0] - start >= DELAY
    assert (counter.closed, counter.trailing) == (0, True)


async def test_the_rest_of_a_slow_mass_close_gets_one_give_back_at_the_pace(
    given_back: list[float],
) -> None:
    """Three connections closing after the mass close's give-back: given back once more,
    EVERY after the first (they once stayed held until the next mass close); then a lone
    close later is not followed by another."""
    counter = heap.GiveBack(10)
    await closes(counter, 10)
    await asyncio.sleep(DELAY + 0.05)
    await closes(counter, 3)
    await asyncio.sleep(EVERY + 0.1)
    assert len(given_back) == 2
    assert given_back[1] - given_back[0] >= EVERY
    assert counter.trailing is False
    await closes(counter, 1)
    await asyncio.sleep(DELAY + EVERY + 0.1)
    assert len(given_back) == 2
    assert counter.closed == 1


async def test_closes_keep_to_one_give_back_per_period(given_back: list[float]) -> None:
    """A steady churn of closes: never two give-backs within EVERY."""
    counter = heap.GiveBack(5)
    loop = asyncio.get_running_loop()
    end = loop.time() + 4 * EVERY
    while loop.time() < end:
        await closes(counter, 3)
        await asyncio.sleep(0.01)
    assert len(given_back) >= 2
    assert all(b - a >= EVERY for a, b in itertools.pairwise(given_back))
