"""New TLS connections of one client address, paced before their handshake.

A TLS handshake is the dearest thing a client can make the server do before anything
can refuse it: the key exchange, then the request's way through the app. Two reconnection
storms from one address (issue 45: 1 MB heads from 40 threads, each refused with 431 on
a new connection; keyless WebSockets opened again as soon as they were closed) held an
honest GET's p95 at 3-4x idle with a fifth of the server's samples in `do_handshake`.

So a TLS listener accepts plain TCP and hands each connection to the loop's own TLS
protocol in its address's turn: `per_second` new connections a second after a burst of
`burst` (a `Pace`). A connection past it waits for its turn, reading paused (it holds its
socket and nothing else), at most MAX_WAIT_SECONDS and MAX_WAITING in the process; one
that would wait longer is closed before a byte of TLS is read. An honest client keeps its
connections alive and never meets the pace; a storm gets its turns and no more, however
fast it reconnects.

Per process, as the keyless request budget is: it is decided before any byte is read,
without a round trip. An address is the peer's IP address as the socket gives it (IPv6
whole, not per prefix). Behind a proxy that ends TLS, the listener has no TLS: the
proxy's own connection limits apply.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from ssl import SSLContext
from typing import Any, cast

from storage.attributes.pacing import Pace

# The longest a new connection waits for its address's turn; one that would wait longer
# is closed. Well within a client's handshake timeout (10 s and more for browsers, curl,
# httpx): an honest client that reconnects in a burst is slowed, not refused.
MAX_WAIT_SECONDS = 3.0
# Connections waiting for their turn at once in a process, every address together.
MAX_WAITING = 1_000
# What a connection may send before its turn: a ClientHello is a few hundred bytes, at
# most one TLS record (16 KiB and its header).
MAX_EARLY_BYTES = 17 * 1024
# Addresses whose pace is remembered; past it the idle ones (full again) are forgotten.
MAX_ADDRESSES = 10_000

ProtocolFactory = Callable[[], asyncio.BaseProtocol]


class Gate:
    """Each address's pace of new connections, and the connections waiting for it."""

    # Connections any gate of this process closed before their handshake: `/metrics`
    # (`floorgate_rate_limited_total{limit="connection"}`) counts them per process.
    closed_in_process = 0

    def __init__(self, per_second: float, burst: int) -> None:
        self.per_second, self.burst = per_second, max(1, burst)
        self.paces: dict[str, Pace] = {}
        self.waiting = 0  # connections waiting for their turn now
        self.closed = 0  # connections closed before their handshake so far (tests)

    def turn(self, address: str, now: float) -> float | None:
        """The seconds a new connection from `address` waits for its turn (0: none), its
        turn reserved; None when it would wait too long (nothing reserved)."""
        if self.per_second <= 0:
            return 0.0
        pace = self.paces.get(address)
        if pace is None:
            if len(self.paces) >= MAX_ADDRESSES:
                self.forget_idle(now)
            pace = self.paces[address] = Pace(self.per_second, self.burst, now)
        wait = pace.wait(now)
        if wait > MAX_WAIT_SECONDS + 1e-9 or (wait > 0 and self.waiting >= MAX_WAITING):
            self.closed += 1
            Gate.closed_in_process += 1
            return None
        return pace.turn(now)

    def forget_idle(self, now: float) -> None:
        """Drop the addresses whose pace is full again (as a new one would be); if every
        one is busy, all of them: the table stays bounded, an attacker's pace restarts."""
        for address in [a for a, pace in self.paces.items() if pace.due <= now]:
            del self.paces[address]
        if len(self.paces) >= MAX_ADDRESSES:
            self.paces.clear()


class GatedConnection(asyncio.Protocol):
    """An accepted connection until its TLS starts: when its address's turn comes, the
    loop's own TLS protocol (`ssl_protocol`: what `create_server(ssl=...)` would have
    made) takes the transport over, then the HTTP protocol (`make_protocol`) is told of
    the connection when the handshake is done, as if the listener had done it.

    Both loops start reading a new transport after its `connection_made`: what arrives
    while the connection waits (the ClientHello) is kept, reading paused, and fed to the
    TLS protocol when its turn comes; more than MAX_EARLY_BYTES is no TLS client's."""

    def __init__(self, gate: Gate, make_tls: Callable[[], Any]) -> None:
        self.gate, self.make_tls = gate, make_tls
        self.transport: asyncio.Transport | None = None
        self.timer: asyncio.TimerHandle | None = None
        self.early: list[bytes] = []
        self.early_bytes = 0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # A TCP transport (uvloop's is not a subclass of asyncio's, but has its methods).
        self.transport = cast(asyncio.Transport, transport)
        loop = asyncio.get_running_loop()
        peer = transport.get_extra_info("peername")
        address = str(peer[0]) if isinstance(peer, tuple) and peer else "-"
        wait = self.gate.turn(address, loop.time())
        if wait is None:
            self.transport.abort()
        elif wait > 0:
            self.gate.waiting += 1
            self.timer = loop.call_later(wait, self.start)
        else:
            self.start()

    def start(self) -> None:
        """The turn came: the TLS protocol takes the transport (and what came early)."""
        if self.timer is not None:
            self.timer = None
            self.gate.waiting -= 1
        transport = self.transport
        assert transport is not None
        if transport.is_closing():
            return
        tls = self.make_tls()
        transport.set_protocol(tls)
        tls.connection_made(transport)
        for data in self.early:  # the TLS protocols of both loops are buffered ones
            view = memoryview(data)
            while view and not transport.is_closing():
                buffer = tls.get_buffer(len(view))
                size = min(len(buffer), len(view))
                buffer[:size] = view[:size]
                tls.buffer_updated(size)
                view = view[size:]
        self.early.clear()
        if self.early_bytes and not transport.is_closing():
            transport.resume_reading()

    def data_received(self, data: bytes) -> None:
        """What comes before the turn: kept, and nothing more read until then."""
        assert self.transport is not None
        self.early_bytes += len(data)
        if self.early_bytes > MAX_EARLY_BYTES:
            self.transport.abort()
            return
        self.early.append(data)
        self.transport.pause_reading()

    def eof_received(self) -> bool:
        """The client gave up before its turn."""
        assert self.transport is not None
        self.transport.abort()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        """The client left while it waited for its turn."""
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
            self.gate.waiting -= 1
        self.early.clear()


def gated(
    make_protocol: ProtocolFactory,
    context: SSLContext,
    gate: Gate,
    seconds: float,
    ssl_protocol: type[Any],
) -> Callable[[], GatedConnection]:
    """The protocol factory of a TLS listener created without `ssl=`: each connection
    waits for its address's turn, then `ssl_protocol` (the loop's own) does its
    handshake, `seconds` at most for it and for the client's close_notify when it
    closes, and hands it to `make_protocol`'s protocol."""

    def connection(*args: Any) -> GatedConnection:
        loop = asyncio.get_running_loop()

        def make_tls() -> Any:
            return ssl_protocol(
                loop,
                make_protocol(),
                context,
                None,
                server_side=True,
                ssl_handshake_timeout=seconds,
                ssl_shutdown_timeout=seconds,
            )

        return GatedConnection(gate, make_tls)

    return connection
