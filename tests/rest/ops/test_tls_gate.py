"""`rest.ops.tls_gate.Gate`: each address's turns of new connections, what waits too long
is refused without a turn taken, and the table of addresses stays bounded."""

from __future__ import annotations

import pytest

from rest.ops import tls_gate
from rest.ops.tls_gate import MAX_WAIT_SECONDS, Gate


def test_an_address_gets_its_burst_then_its_rate_and_another_address_its_own():
    gate = Gate(per_second=10, burst=3)
    assert [gate.turn("a", 100.0) for _ in range(3)] == [0.0, 0.0, 0.0]
    assert [round(gate.turn("a", 100.0) or -1, 6) for _ in range(3)] == [0.1, 0.2, 0.3]
    assert gate.turn("b", 100.0) == 0.0  # nobody else waits for a's turns
    assert gate.turn("a", 200.0) == 0.0  # time gives the burst back


def test_a_connection_that_would_wait_too_long_is_refused_and_takes_no_turn():
    gate = Gate(per_second=10, burst=1)
    waits = [gate.turn("a", 0.0) for _ in range(1 + int(MAX_WAIT_SECONDS * 10))]
    assert waits[0] == 0.0 and waits[-1] == pytest.approx(MAX_WAIT_SECONDS)
    assert gate.turn("a", 0.0) is None
    assert gate.turn("a", 0.0) is None
    assert gate.closed == 2
    # Refusals reserved nothing: a tenth of a second later, one more turn fits.
    assert gate.turn("a", 0.1) == pytest.approx(MAX_WAIT_SECONDS)


def test_past_the_waiting_bound_a_connection_that_must_wait_is_refused():
    gate = Gate(per_second=10, burst=1)
    gate.waiting = tls_gate.MAX_WAITING
    assert gate.turn("a", 0.0) == 0.0  # its turn is now: it waits for nothing
    assert gate.turn("a", 0.0) is None


def test_no_pace_when_the_rate_is_zero():
    gate = Gate(per_second=0, burst=1)
    assert {gate.turn("a", 0.0) for _ in range(1000)} == {0.0}
    assert gate.paces == {}


def test_the_table_forgets_idle_addresses_then_everything(monkeypatch):
    monkeypatch.setattr(tls_gate, "MAX_ADDRESSES", 3)
    gate = Gate(per_second=1, burst=1)
    for address in ("a", "b", "c"):
        gate.turn(address, 0.0)  # each is busy until 1.0
    gate.turn("d", 5.0)  # a, b and c are full again: forgotten
    assert sorted(gate.paces) == ["d"]
    for address in ("e", "f"):
        gate.turn(address, 5.0)
    gate.turn("g", 5.0)  # every one busy: the table starts over
    assert sorted(gate.paces) == ["g"]
