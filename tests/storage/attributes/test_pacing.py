"""`storage.attributes.pacing`: the turns of a pace, and each key's share of the events
passed to live subscriptions (issue 45, point 8)."""

from __future__ import annotations

import asyncio

import pytest

from storage.attributes.pacing import KeyShares, Pace


def test_a_pace_gives_its_burst_at_once_then_one_turn_per_interval():
    pace = Pace(rate=10, burst=3, now=100.0)
    assert [pace.turn(100.0) for _ in range(3)] == [0.0, 0.0, 0.0]
    # Reserved in order: each later turn a tenth of a second after the one before.
    assert [round(pace.turn(100.0), 6) for _ in range(3)] == [0.1, 0.2, 0.3]
    # Time passing pays the turns back; the burst is the most it ever holds.
    assert pace.turn(110.0) == 0.0
    assert [pace.turn(110.0) for _ in range(2)] == [0.0, 0.0]
    assert round(pace.turn(110.0), 6) == 0.1


def test_a_pace_says_its_next_wait_without_reserving_it():
    pace = Pace(rate=10, burst=2, now=0.0)
    assert pace.wait(0.0) == 0.0
    pace.turn(0.0)
    pace.turn(0.0)
    assert round(pace.wait(0.0), 6) == round(pace.wait(0.0), 6) == 0.1  # asked twice
    assert round(pace.turn(0.0), 6) == 0.1  # the turn it said
    assert pace.wait(1.0) == 0.0


async def test_a_key_beyond_its_share_waits_and_another_key_does_not():
    shares = KeyShares(rate=100, burst=5)
    shares.join("busy")
    shares.join("quiet")
    loop = asyncio.get_running_loop()
    began = loop.time()
    for _ in range(5 + 10):  # its burst, then ten turns at 100 a second
        await shares.take("busy")
    took = loop.time() - began
    assert shares.waits >= 1
    assert took == pytest.approx(0.1, abs=0.05)
    began = loop.time()
    for _ in range(5):
        await shares.take("quiet")
    assert loop.time() - began < 0.01


async def test_the_table_holds_only_keys_with_subscriptions():
    shares = KeyShares()
    shares.join("a")
    shares.join("a")
    shares.join("b")
    assert (sorted(shares.paces), shares.users) == (["a", "b"], {"a": 2, "b": 1})
    shares.leave("a")
    shares.leave("b")
    assert (sorted(shares.paces), shares.users) == (["a"], {"a": 1})
    shares.leave("a")
    shares.leave("a")  # once more than joined: nothing left to forget
    assert (shares.paces, shares.users) == ({}, {})
