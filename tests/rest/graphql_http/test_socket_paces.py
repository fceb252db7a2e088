"""A key's sockets share one message pace per process (rest/graphql_http/sockets.py):
kept while the key has sockets here and, after its last one closes, until its burst is
whole again, so that reconnecting brings no new burst; then forgotten."""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace
from typing import Any

from resolvers.limits import WS_KEY_MESSAGE_BURST, WS_KEY_MESSAGES_PER_SECOND
from rest.graphql_http.sockets import MessageBudget, Sockets


def registry(max_sockets_per_key: int = 100) -> Sockets:
    services: Any = SimpleNamespace(
        event_hub=SimpleNamespace(key_listeners=[]),
        settings=SimpleNamespace(max_sockets_per_key=max_sockets_per_key),
    )
    return Sockets(services)


def test_one_pace_per_key():
    sockets = registry()
    assert sockets.pace_of("k1") is sockets.pace_of("k1")
    assert sockets.pace_of("k1") is not sockets.pace_of("k2")


async def test_a_key_without_sockets_is_forgotten_once_within_its_burst():
    sockets = registry()
    spent, rested = sockets.pace_of("spent"), sockets.pace_of("rested")
    now = time.monotonic()
    for _ in range(10):  # ten turns: not a fresh burst again for 10 / rate seconds
        spent.turn(now)
    sockets.by_key["held"] = set()  # a key with a socket here is kept, spent or not
    held = sockets.pace_of("held")
    for key_id in ("spent", "rested", "held"):  # as `leave` does for a key's last socket
        sockets.forget_pace(key_id)
    assert set(sockets.paces) == {"spent", "held"}
    assert sockets.paces["spent"] is spent and sockets.paces["held"] is held
    assert rested.wait(now) == 0
    await asyncio.sleep(spent.due - time.monotonic() + 0.05)  # its turns have come back
    assert set(sockets.paces) == {"held"}


async def test_a_message_waits_for_its_keys_turn_too():
    budget = MessageBudget()  # its own burst is far from spent
    budget.shared = shared = registry().pace_of("k")
    now = time.monotonic()
    for _ in range(WS_KEY_MESSAGE_BURST):
        shared.turn(now)  # the key's other sockets spent its burst
    started = time.monotonic()
    await budget.take()
    assert budget.waited == 1
    assert time.monotonic() - started >= 0.9 / WS_KEY_MESSAGES_PER_SECOND


def bursts(pace) -> int:
    """Turns `pace` gives at once."""
    now, given = time.monotonic(), 0
    while pace.turn(now) == 0:
        given += 1
    return given


def test_the_keys_burst_covers_every_socket_it_may_open():
    assert bursts(registry(100).pace_of("k")) == WS_KEY_MESSAGE_BURST == 200
    assert bursts(registry(1000).pace_of("k")) == 1000
