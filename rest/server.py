"""How `floorgate serve` runs uvicorn: connection timeouts and the connection limit.

uvicorn alone keeps a connection that never finishes its TLS handshake for asyncio's
60 s, and one that sends half a request head for ever. Here:

- the event loop (`new_event_loop`, uvicorn's `loop=`) gives every TLS listener a
  handshake timeout and a bound on the wait for the client's close_notify;
- the HTTP protocol (`GuardedH11Protocol`, uvicorn's `http=`) closes a connection whose
  request head is not complete in time, and answers over `max_connections` with the
  API's JSON 503 instead of uvicorn's plain text.

Both are named by import string so that `--workers N` (spawned processes) load them
too; each process reads its settings from the environment, like `rest.app:app_from_env`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import socket
from typing import Any

import h11
from starlette.types import Receive, Scope, Send
from uvicorn.config import Config
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

from resolvers.errors import ErrorCode
from rest.responses import error_of
from storage.settings import Settings

log = logging.getLogger("uvicorn.error")

PROTOCOL = "rest.server:GuardedH11Protocol"
LOOP = "rest.server:new_event_loop"


@functools.cache
def worker_settings() -> Settings:
    """The settings of this process, read once: every connection of a worker shares them."""
    return Settings.from_env()


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """The keyword arguments of `uvicorn.run` that bound connections."""
    return {
        "http": PROTOCOL,
        "loop": LOOP,
        "timeout_keep_alive": settings.keepalive_timeout_seconds,
        "limit_concurrency": settings.max_connections,
    }


class GuardedEventLoop(asyncio.SelectorEventLoop):
    """asyncio's loop (the one uvicorn picks without uvloop), with TLS timeouts on servers.

    uvicorn calls `create_server(..., ssl=context)` without a handshake timeout, so
    asyncio's default of 60 s applies; a subclass is the one place to give it ours."""

    async def create_server(self, *args: Any, **kwargs: Any) -> asyncio.Server:
        if kwargs.get("ssl") is not None:
            seconds = worker_settings().header_timeout_seconds
            kwargs.setdefault("ssl_handshake_timeout", seconds)
            # A closed TLS connection waits for the peer's close_notify (30 s by default);
            # a client that never sends it must not keep the socket that long.
            kwargs.setdefault("ssl_shutdown_timeout", seconds)
        return await super().create_server(*args, **kwargs)


def new_event_loop() -> asyncio.AbstractEventLoop:
    """uvicorn's `loop=` factory (called in each worker process)."""
    return GuardedEventLoop()


def send_without_delay(transport: asyncio.BaseTransport) -> None:
    """TCP_NODELAY on an accepted TCP connection, so an answer written in two pieces (head
    and body, two TLS records) is not held until the client's delayed ACK (~40 ms).

    asyncio sets it only on sockets it knows are TCP (`proto == IPPROTO_TCP`); the
    listening socket uvicorn hands to `--workers` processes has proto 0, so there every
    keep-alive answer waited (issue 15)."""
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a request-head timeout and a JSON over-limit answer.

    The head timer runs from the accepted TCP connection to the end of the first request
    head (so the TLS handshake and the head share one `header_timeout_seconds`), and on
    a keep-alive connection from the first byte of each later request to the end of its
    head. Idle time between requests is uvicorn's keep-alive timeout; the body is
    timed by the app (`rest.middleware.Boundary`)."""

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        settings = worker_settings()
        self.header_timeout = settings.header_timeout_seconds
        self.retry_after = settings.retry_after_seconds
        # The protocol is made when the TCP connection is accepted, before TLS.
        self.head_deadline: float | None = self.loop.time() + self.header_timeout
        self.head_timer: asyncio.TimerHandle | None = None
        # uvicorn's own check answers in plain text; ours answers like the API.
        self.max_connections = self.limit_concurrency
        self.limit_concurrency = None
        self.inner_app = self.app
        if self.max_connections is not None:
            self.app = self.app_within_limit

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        send_without_delay(transport)
        super().connection_made(transport)
        if self.head_deadline is not None:
            self.head_timer = self.loop.call_at(self.head_deadline, self.head_timed_out)
            self.head_deadline = None

    def connection_lost(self, exc: Exception | None) -> None:
        self.cancel_head_timer()
        super().connection_lost(exc)

    def handle_events(self) -> None:
        super().handle_events()
        if self.conn.their_state is not h11.IDLE:
            self.cancel_head_timer()  # a head arrived (or the connection is done)
        elif self.head_timer is None and self.conn.trailing_data[0]:
            # The first bytes of a later request: its head has the full timeout.
            self.head_timer = self.loop.call_later(self.header_timeout, self.head_timed_out)

    def cancel_head_timer(self) -> None:
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None

    def head_timed_out(self) -> None:
        """Close without an answer: the client has not asked anything yet (as nginx and
        Go's ReadHeaderTimeout do). Abort: a slow client gets no graceful TLS close."""
        self.head_timer = None
        if self.transport is not None and not self.transport.is_closing():
            log.debug("%s: request head not received in %ss, closed", self.client,
                      self.header_timeout)  # fmt: skip
            self.transport.abort()

    async def app_within_limit(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Over `max_connections` connections or running requests in this worker, 503.

        Both sets include this connection and this request's task."""
        limit = self.max_connections or 0
        if len(self.connections) > limit or len(self.tasks) > limit:
            log.warning("over the connection limit of %d: 503", limit)
            refusal = error_of(ErrorCode.SERVICE_UNAVAILABLE, headers={"Connection": "close"},
                               retry_after=self.retry_after)  # fmt: skip
            await refusal(scope, receive, send)
            return
        await self.inner_app(scope, receive, send)
