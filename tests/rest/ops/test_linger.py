"""`rest.ops.linger`: after an answer that refuses a request, what the client still sends
is dropped at a rate the whole process shares, within a byte bound and a time bound;
then a client that went quiet is closed gracefully and one still sending is aborted."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import rest.ops.linger as linger
from rest.ops.linger import DrainBudget, Linger


class Transport:
    """What Linger calls on a transport, recorded."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.closing = False

    def pause_reading(self) -> None:
        self.calls.append("pause")

    def resume_reading(self) -> None:
        self.calls.append("resume")

    def close(self) -> None:
        self.calls.append("close")
        self.closing = True

    def abort(self) -> None:
        self.calls.append("abort")
        self.closing = True

    def is_closing(self) -> bool:
        return self.closing


def test_the_budget_gives_its_burst_then_its_rate(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [100.0]
    monkeypatch.setattr(linger.time, "monotonic", lambda: now[0])
    budget = DrainBudget(per_second=1000, burst=500)
    assert budget.delay(500) == 0.0
    assert budget.delay(250) == 0.25  # 250 bytes owed at 1,000 a second
    now[0] += 0.25
    assert budget.delay(0) == 0.0
    now[0] += 10  # the burst refills, never beyond itself
    assert budget.delay(600) == pytest.approx(0.1)


@pytest.fixture
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(linger, "QUIET_SECONDS", 0.1)
    monkeypatch.setattr(linger, "LINGER_SECONDS", 0.5)
    monkeypatch.setattr(linger, "DRAIN", DrainBudget(per_second=10_000, burst=1_000))


async def test_a_client_that_goes_quiet_is_closed_gracefully(quick: Any) -> None:
    transport = Transport()
    Linger(asyncio.get_running_loop(), transport, max_bytes=100_000).take(b"x" * 500)  # type: ignore[arg-type]
    await asyncio.sleep(0.3)
    assert transport.calls == ["resume", "close"]


async def test_reading_pauses_past_the_shared_budget(quick: Any) -> None:
    transport = Transport()
    lingering = Linger(asyncio.get_running_loop(), transport, max_bytes=100_000)  # type: ignore[arg-type]
    lingering.take(b"x" * 3_000)  # 2,000 bytes over: 200 ms at 10,000 a second
    assert transport.calls == ["resume", "pause"]
    await asyncio.sleep(0.12)
    assert transport.calls == ["resume", "pause"]  # not yet, and not "quiet": paused by us
    await asyncio.sleep(0.4)  # resumed at 200 ms, then quiet: closed
    assert transport.calls == ["resume", "pause", "resume", "close"]


async def test_a_client_past_the_byte_bound_is_aborted(quick: Any) -> None:
    transport = Transport()
    lingering = Linger(asyncio.get_running_loop(), transport, max_bytes=800)  # type: ignore[arg-type]
    lingering.take(b"x" * 500)
    lingering.take(b"x" * 301)
    assert transport.calls == ["resume", "abort"]
    await asyncio.sleep(0.1)
    assert transport.calls == ["resume", "abort"]  # its timer stopped


class Timer:
    """A timer of `Clock`: what Linger does with one (cancel it)."""

    def __init__(self, when: float, callback: Any) -> None:
        self.when, self.callback, self.cancelled = when, callback, False

    def cancel(self) -> None:
        self.cancelled = True


class Clock:
    """A loop's time and timers, moved on by the test: a trickle every 10 ms stays one on
    a loaded machine (on the real loop, a 100 ms stall of the test's process between two
    sleeps of 10 ms made it a client gone quiet: closed, not aborted; a CI-like run of
    2026-11-29)."""

    def __init__(self) -> None:
        self.now = 0.0
        self.timers: list[Timer] = []

    def time(self) -> float:
        return self.now

    def call_later(self, delay: float, callback: Any) -> Timer:
        timer = Timer(self.now + delay, callback)
        self.timers.append(timer)
        return timer

    def advance(self, seconds: float) -> None:
        """Run every timer due within `seconds`, in order, each at its time."""
        end = self.now + seconds
        while due := [t for t in self.timers if not t.cancelled and t.when <= end]:
            timer = min(due, key=lambda t: t.when)
            self.timers.remove(timer)
            self.now = timer.when
            timer.callback()
        self.now = end


def test_a_client_still_sending_at_the_deadline_is_aborted(quick: Any) -> None:
    clock, transport = Clock(), Transport()
    lingering = Linger(clock, transport, max_bytes=100_000)  # type: ignore[arg-type]
    for _ in range(70):  # a trickle: never quiet for 100 ms, within the byte budget
        lingering.take(b"x" * 10)
        clock.advance(0.01)
    assert transport.calls == ["resume", "abort"]
    assert clock.now == pytest.approx(0.7)  # the deadline (0.5 s) passed while it sent


async def test_past_the_bound_the_oldest_lingering_connection_is_reset(
    quick: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At most MAX_LINGERING connections linger in a process: the next one resets the one
    that has lingered longest (it has had the most time to read its answer), so a flood
    of refused requests holds a bounded number of connections and their buffers."""
    monkeypatch.setattr(linger, "MAX_LINGERING", 3)
    monkeypatch.setattr(linger, "LINGERING", {})
    loop = asyncio.get_running_loop()
    transports = [Transport() for _ in range(5)]
    lingering = [Linger(loop, transport, max_bytes=100_000) for transport in transports]  # type: ignore[arg-type]
    assert list(linger.LINGERING) == lingering[2:]
    assert [transport.calls for transport in transports] == [
        ["resume", "abort"],
        ["resume", "abort"],
        ["resume"],
        ["resume"],
        ["resume"],
    ]
    lingering[3].stop()  # its connection ended: it makes room
    Linger(loop, Transport(), max_bytes=100_000)  # type: ignore[arg-type]
    assert transports[2].calls == ["resume"]
    await asyncio.sleep(0.3)  # quiet: each closed gracefully, and gone from the bound
    assert [transport.calls[-1] for transport in transports[2:]] == ["close", "resume", "close"]
    assert linger.LINGERING == {}
