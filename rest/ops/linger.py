"""Closing a connection whose client is still sending, at a cost the server bounds.

After an answer that refuses a request before its body is read (413 by `Content-Length`,
a refused head: 431, 414, 400, 405), the client may still be sending: many clients
(httpx, requests, most scripts) write the whole body before they read any answer. Over
TLS a plain close is graceful: the loop waits for the client's close_notify and decrypts
everything the client sends until then, at full speed, on the event loop. A refused
15 MB body cost a worker 30 ms of its loop that way, and a flood of them held every
other request up (issue 30, attacks 3 and 7). Aborting at once instead would reset the
connection before such a client reads its 413.

So the connection lingers: what still arrives is read and dropped, at most
DRAIN_BYTES_PER_SECOND for the whole process (so a flood of refused uploads costs a
worker a few percent of a core, however many connections carry it), at most the body
limit in all, for at most LINGER_SECONDS. A client that has sent everything reads its
answer and closes; one that is still sending when a bound is reached is aborted (nginx's
lingering close does the same).

A lingering connection is answered: it no longer counts against the connection limit
(`rest.ops.server`), and at most MAX_LINGERING linger at once in a process, the longest
lingering one reset to make room for the next. Each holds its TLS buffers while it
lingers (uvloop's 256 KiB read buffer, and what arrived still encrypted, at most
LINGER_READ_BUFFER): 1 MB heads from 40 reconnecting threads kept 1,200 connections
lingering, counted against the limit of 1,000 (honest requests answered 503), and 1.6
GB of RSS (issue 45).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import weakref
from typing import Any, Protocol

from rest.ops.heap import GiveBack

# Bytes a process drains per second from connections that linger, all together: about
# 3 % of a core at the 2 ms per MiB that decrypting and dropping costs (measured,
# 2 cores, AMD EPYC). A refused 15 MB upload is answered within about a second.
DRAIN_BYTES_PER_SECOND = 8 * 1024 * 1024
# The longest a connection lingers after its answer, and the quiet time after which a
# client that sends nothing more is taken to have sent everything (closed, not aborted):
# it reads its answer then, and closes first, well before.
LINGER_SECONDS = 10.0
QUIET_SECONDS = 1.0
# Connections lingering at once per process: at most about 20 MB of TLS buffers (about
# 0.5 MiB each, measured). A flood of refused requests rotates through them (each lingers
# while this many newer ones come); a client that sent everything has its answer already.
MAX_LINGERING = 32
# After this many lingering connections ended, the process gives the memory that refused
# connections held back to the system (`rest.ops.heap`): a flood of refused 1 MB heads
# otherwise left 20-35 MB of freed heap with glibc for good.
GIVE_BACK_AFTER_LINGERED = MAX_LINGERING
# What a lingering TLS connection keeps of what arrived, still encrypted (high and low
# water marks): 512 KiB by default (256 KiB, and a read of up to 256 KiB more). The low
# mark holds more than a TLS record (16 KiB), so that a partial one never stalls reading.
LINGER_READ_BUFFER = (64 * 1024, 32 * 1024)


class DrainBudget:
    """A token bucket of bytes per second, shared by every lingering connection of the
    process: `delay(n)` takes `n` bytes and says how long to wait before reading more."""

    def __init__(self, per_second: float, burst: float) -> None:
        self.per_second = per_second
        self.burst = burst
        self.tokens = burst
        self.at = time.monotonic()

    def delay(self, taken: int) -> float:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.per_second)
        self.at = now
        self.tokens -= taken
        return 0.0 if self.tokens >= 0 else -self.tokens / self.per_second


DRAIN = DrainBudget(DRAIN_BYTES_PER_SECOND, DRAIN_BYTES_PER_SECOND / 4)


class Lingering(Protocol):
    """What `CycleTransport` needs of the connection's protocol."""

    def linger(self) -> None: ...


class CycleTransport:
    """The transport as uvicorn's request cycle sees it: its `close` after an answer
    lingers while the request's body is still arriving (`cycle.more_body`). The cycle
    holds this transport: a weak reference back, so that the two make no reference cycle
    (freed only by a full collection, with the TLS buffers behind the transport)."""

    def __init__(self, transport: asyncio.Transport, protocol: Lingering, cycle: Any) -> None:
        self.transport = transport
        self.protocol = protocol
        self.cycle = weakref.ref(cycle)

    def write(self, data: bytes) -> None:
        self.transport.write(data)

    def is_closing(self) -> bool:
        return self.transport.is_closing()

    def close(self) -> None:
        cycle = self.cycle()  # alive: its own `send` closes
        if cycle is not None and cycle.more_body:
            self.protocol.linger()
        else:
            self.transport.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.transport, name)


class Linger:
    """One connection's lingering: `take(data)` for what arrives meanwhile. Checked every
    QUIET_SECONDS: a client that sent nothing since (while reading was not paused here)
    has sent everything and gets a graceful close; past LINGER_SECONDS one still sending
    is aborted, as is one past `max_bytes`, and the oldest of MAX_LINGERING when
    another begins (`LINGERING`, in the order they began)."""

    def __init__(
        self, loop: asyncio.AbstractEventLoop, transport: asyncio.Transport, max_bytes: int
    ) -> None:
        while len(LINGERING) >= MAX_LINGERING:
            next(iter(LINGERING)).reset()
        LINGERING[self] = None
        self.loop = loop
        self.transport = transport
        self.left = max_bytes
        self.deadline = loop.time() + LINGER_SECONDS
        self.last_data = loop.time()
        self.resume: asyncio.TimerHandle | None = None
        self.timer = loop.call_later(QUIET_SECONDS, self.check)
        with contextlib.suppress(AttributeError):  # a TLS transport's; plain TCP has none
            transport.set_read_buffer_limits(*LINGER_READ_BUFFER)  # type: ignore[attr-defined]  # TLS's
        transport.resume_reading()  # flow control (or a refusal) may have paused it

    def take(self, data: bytes) -> None:
        self.left -= len(data)
        self.last_data = self.loop.time()
        if self.left < 0:
            self.reset()
            return
        wait = DRAIN.delay(len(data))
        if wait > 0 and self.resume is None:
            self.transport.pause_reading()
            self.resume = self.loop.call_later(wait, self.resumed)

    def resumed(self) -> None:
        self.resume = None
        self.last_data = self.loop.time()  # the pause was ours, not the client's quiet
        if not self.transport.is_closing():
            self.transport.resume_reading()

    def check(self) -> None:
        if self.transport.is_closing():
            self.stop()
            return
        now = self.loop.time()
        if self.resume is None and now - self.last_data >= QUIET_SECONDS:
            self.stop()
            self.transport.close()
        elif now >= self.deadline:
            self.reset()
        else:
            self.timer = self.loop.call_later(QUIET_SECONDS, self.check)

    def reset(self) -> None:
        """Abort: the client is still sending (or must make room); what is buffered is dropped."""
        self.stop()
        self.transport.abort()

    def stop(self) -> None:
        """No more lingering (the connection closes, or is lost): the timers stop and the
        connection leaves `LINGERING`."""
        if LINGERING.pop(self, False) is None:
            LINGERED.count()
        self.timer.cancel()
        if self.resume is not None:
            self.resume.cancel()
            self.resume = None


# The connections lingering in this process, oldest first (a dict: ordered, O(1) removal).
LINGERING: dict[Linger, None] = {}
LINGERED = GiveBack(GIVE_BACK_AFTER_LINGERED)
