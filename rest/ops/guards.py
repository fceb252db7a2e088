"""What every connection of `floorgate serve` goes through, whichever HTTP parser reads
it (`rest.ops.server` mixes `ConnectionGuards` into uvicorn's httptools and h11 protocols):
the request-head and send timeouts, the connection limit answered with the API's JSON 503
(WebSocket upgrades included), refusals of the parser answered through the app and
followed by a lingering close (`rest.ops.linger`), TCP_NODELAY, and a connection freed by
reference counting as soon as it ends or is handed to a WebSocket."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import socket
from http import HTTPStatus
from typing import Any, Literal

from starlette.types import Receive, Scope, Send
from uvicorn.config import Config
from uvicorn.server import ServerState

from resolvers.errors import ApiError, ErrorCode
from rest.middleware import REFUSED_BY_PARSER
from rest.ops.linger import CycleTransport, Linger
from rest.ops.logs import ANSWER_CUT
from rest.responses import error_of
from storage.settings import Settings

log = logging.getLogger("uvicorn.error")


@functools.cache
def worker_settings() -> Settings:
    """The settings of this process, read once: every connection of a worker shares them."""
    return Settings.from_env()


def send_without_delay(transport: asyncio.BaseTransport) -> None:
    """TCP_NODELAY on an accepted TCP connection, so an answer written in two pieces (head
    and body, two TLS records) is not held until the client's delayed ACK (~40 ms).

    asyncio sets it only on sockets it knows are TCP (`proto == IPPROTO_TCP`); the
    listening socket uvicorn hands to `--workers` processes has proto 0, so there every
    keep-alive answer waited (issue 15). uvloop sets it on every TCP transport; setting
    it again costs one system call per connection and keeps both paths alike."""
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class ConnectionGuards:
    """What both protocols add to uvicorn's: a request-head timeout, a send timeout, a
    JSON over-limit answer and TCP_NODELAY. Mixed in before uvicorn's protocol class.

    The head timer runs from the accepted TCP connection to the end of the first request
    head (so the TLS handshake and the head share one `header_timeout_seconds`), and on
    a keep-alive connection from the first byte of each later request to the end of its
    head. Idle time between requests is uvicorn's keep-alive timeout; the body is
    timed by the app (`rest.middleware.Boundary`).

    The send timer runs while the transport has paused writing (its buffer is over the
    high-water mark because the client does not read): if the client has not taken
    enough for writing to resume within `send_timeout_seconds`, the connection is
    aborted, which drops the buffer and ends the answer's task (uvicorn's
    `connection_lost` releases the waiting `send`). nginx's `send_timeout` does the
    same. Without it a client that asks for large answers and never reads them keeps
    each in memory, and its task running, for ever."""

    # Set by uvicorn's protocol classes.
    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport
    client: tuple[str, int] | None
    inner_app: Any  # uvicorn's `self.app = ...` lands here (the `app` property)
    limit_concurrency: int | None
    connections: set[Any]
    tasks: set[asyncio.Task[None]]
    scheme: Literal["http", "https"] | None
    server: tuple[str, int | None] | None
    app_state: dict[str, Any]
    timeout_keep_alive_task: asyncio.TimerHandle | None
    # uvicorn's current RequestResponseCycle (each parser's module has its own class),
    # None once forgotten: only Any fits both protocols' declarations.
    cycle: Any

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)  # type: ignore[call-arg]  # mixin
        settings = worker_settings()
        self.header_timeout = settings.header_timeout_seconds
        self.retry_after = settings.retry_after_seconds
        # The protocol is made when the TCP connection is accepted, before TLS.
        self.head_deadline: float | None = self.loop.time() + self.header_timeout
        self.head_timer: asyncio.TimerHandle | None = None
        self.send_timeout = settings.send_timeout_seconds
        self.send_timer: asyncio.TimerHandle | None = None
        self.max_header_bytes = settings.max_header_bytes
        self.max_body_bytes = settings.max_body_bytes
        self.refused = False  # the parser refused what came: nothing more is parsed
        self.lingering: Linger | None = None  # answered; what still arrives is dropped
        # uvicorn's own check answers in plain text; ours answers like the API.
        self.max_connections = self.limit_concurrency
        self.limit_concurrency = None
        # Requests whose app runs: if the connection ends meanwhile, their answers are
        # cut (uvicorn's `cycle` is the last request parsed, pipelined ones included).
        self.answering: dict[int, Scope] = {}  # by id: scopes are dicts

    @property
    def app(self) -> Any:
        """What uvicorn runs for a request: the app behind the guards. A property: the
        bound method kept in an attribute would tie every protocol into a reference cycle
        (see `connection_lost`)."""
        return self.app_with_guards

    @app.setter
    def app(self, app: Any) -> None:
        self.inner_app = app

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        send_without_delay(transport)
        super().connection_made(transport)  # type: ignore[misc]  # mixin: uvicorn's
        if self.head_deadline is not None:
            self.head_timer = self.loop.call_at(self.head_deadline, self.head_timed_out)
            self.head_deadline = None

    def connection_lost(self, exc: Exception | None) -> None:
        self.cancel_head_timer()
        self.cancel_send_timer()
        if self.lingering is not None:
            self.lingering.stop()
        for scope in self.answering.values():  # for their access lines
            scope.setdefault("state", {})[ANSWER_CUT] = True
        super().connection_lost(exc)  # type: ignore[misc]  # mixin: uvicorn's
        self.forget_requests()

    def forget_requests(self) -> None:
        """Drop the last references that tie the protocol into cycles (its request cycles
        hold its bound methods; `CycleTransport` holds it): nothing reads them once the
        connection is lost or handed over (a request still running keeps its own cycle).
        Left, the protocol, its transport and the transport's TLS buffers (256 KiB and
        more a connection) wait for a full collection, which an idle process never runs:
        1.6 GB stayed after a flood of refused heads (issue 45)."""
        self.cycle = None
        pipelined = getattr(self, "pipeline", None)  # httptools' queue of (cycle, app)
        if pipelined:
            pipelined.clear()

    def pause_writing(self) -> None:
        """The client reads slower than the answer is written: it has this long to catch up."""
        super().pause_writing()  # type: ignore[misc]  # mixin: uvicorn's
        if self.send_timer is None:
            self.send_timer = self.loop.call_later(self.send_timeout, self.send_timed_out)

    def resume_writing(self) -> None:
        self.cancel_send_timer()
        super().resume_writing()  # type: ignore[misc]  # mixin: uvicorn's

    def cancel_send_timer(self) -> None:
        if self.send_timer is not None:
            self.send_timer.cancel()
            self.send_timer = None

    def send_timed_out(self) -> None:
        """Abort, even a transport already closing: a graceful close would wait for the
        buffer to be read, which is what this client does not do."""
        self.send_timer = None
        if self.transport is not None:
            log.debug(
                "%s: answer not read for %ss, connection dropped", self.client, self.send_timeout
            )
            self.transport.abort()

    def linger(self) -> None:
        """Close after an answer while the client may still be sending: drop what it
        sends at a bounded rate first (`rest.ops.linger`, which bounds how many linger).
        Answered, the connection no longer counts against `max_connections`: refused
        heads draining there made honest requests 503 (issue 45)."""
        if self.lingering is not None or self.transport is None or self.transport.is_closing():
            return
        self.cancel_head_timer()
        self.connections.discard(self)
        self.lingering = Linger(self.loop, self.transport, self.max_body_bytes)

    def lingered(self, data: bytes) -> bool:
        """True when the connection lingers: `data` is dropped, not parsed."""
        if self.lingering is None:
            return False
        self.lingering.take(data)
        return True

    def on_response_complete(self) -> None:
        """uvicorn arms its keep-alive timer here, whose close would end the lingering
        with a graceful TLS close (decrypting all that arrives): not while it lingers."""
        super().on_response_complete()  # type: ignore[misc]  # mixin: uvicorn's
        if self.lingering is not None:
            timer = getattr(self, "timeout_keep_alive_task", None)
            if timer is not None:
                timer.cancel()
                self.timeout_keep_alive_task = None

    def watch_cycle(self) -> None:
        """The current request's cycle closes through `CycleTransport`, which lingers
        while the request's body is still arriving."""
        cycle = getattr(self, "cycle", None)
        if cycle is not None and not isinstance(cycle.transport, CycleTransport):
            cycle.transport = CycleTransport(self.transport, self, cycle)

    def start_head_timer(self) -> None:
        """The first bytes of a later request: its head has the full timeout."""
        if self.head_timer is None:
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
            log.debug(
                "%s: request head not received in %ss, closed", self.client, self.header_timeout
            )
            self.transport.abort()

    def refuse(self, error: ApiError, method: str = "-", target: bytes = b"") -> None:
        """The request cannot be parsed (or is over a size limit): read nothing more, and
        answer it through the app, whose `Boundary` answers `error` as JSON (logged and
        counted like any answer); then close. Replaces uvicorn's plain-text 400. A body
        that breaks off into bytes the parser refuses (bad chunks) ends its connection
        without an answer: its request is already running, and is logged as cut. The
        method and `target` read so far, if known, are for the access line (which clips
        them)."""
        if self.refused:
            return
        self.refused = True
        self.cancel_head_timer()
        if self.transport is None or self.transport.is_closing():
            return
        cycle = getattr(self, "cycle", None)  # uvicorn's current request, if its head came
        if cycle is not None and not cycle.response_complete:  # its body broke off
            cycle.disconnected = True  # its app hears a disconnect and sends nothing more
            cycle.scope.setdefault("state", {})[ANSWER_CUT] = True  # logged, counted as such
            self.transport.close()
            return
        self.transport.pause_reading()
        self.forget_head()
        path, _, query = target.partition(b"?")
        scope: Scope = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1",
            "method": method,
            "scheme": self.scheme,
            "server": self.server,
            "client": self.client,
            "root_path": "",
            "path": "",
            "raw_path": path,
            "query_string": query,
            "headers": [],
            "state": {**self.app_state, REFUSED_BY_PARSER: error},
        }
        task = self.loop.create_task(self.answer_refusal(scope))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def forget_head(self) -> None:
        """Drop what the parser kept: of a refused head (a 1 MB header line: all of it
        that arrived), at once rather than when the connection ends; of a connection
        handed to a WebSocket, the parser itself (httptools' holds this protocol's
        callbacks: a cycle). Nothing is parsed here any more. Each class knows its parser."""

    async def answer_refusal(self, scope: Scope) -> None:
        """Runs the app for a refused request, writing its answer straight to the transport
        (the parser's state is an error: it cannot frame an answer any more)."""
        parts: list[bytes] = []

        async def receive() -> dict[str, Any]:
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                status = message["status"]
                parts.append(f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\n".encode())
                parts.extend(
                    name + b": " + value + b"\r\n"
                    for name, value in message.get("headers", [])
                    if name.lower() != b"connection"
                )
                parts.append(b"connection: close\r\n\r\n")
            elif message["type"] == "http.response.body":
                parts.append(message.get("body", b""))

        try:
            await self.inner_app(scope, receive, send)
        finally:
            if self.transport is not None and not self.transport.is_closing():
                self.transport.write(b"".join(parts))
                self.linger()

    def over_limit(self) -> bool:
        """More than `max_connections` connections (this one included: open WebSockets
        count until they close, lingering ones not) or running requests in this worker."""
        limit = self.max_connections
        if limit is None or (len(self.connections) <= limit and len(self.tasks) <= limit):
            return False
        log.warning("over the connection limit of %d: 503", limit)
        return True

    def handle_websocket_upgrade(self, *request: Any) -> None:
        """An upgrade is a connection like any: over the limit it is refused with the
        API's 503 (JSON, `Retry-After`, `Connection: close`) before the WebSocket
        handshake, and the connection closes; else uvicorn's WebSocket protocol takes
        the connection over and stays in the same set of connections until it closes.
        uvicorn checks the limit for HTTP requests only: 1,500 sockets were accepted
        with a limit of 1,000 (issue 45)."""
        if self.over_limit():
            error = ApiError(ErrorCode.SERVICE_UNAVAILABLE, retry_after=self.retry_after)
            self.refuse(error, *self.upgrade_request(*request))
            return
        super().handle_websocket_upgrade(*request)  # type: ignore[misc]  # mixin: uvicorn's
        # This protocol hears nothing more (not even `connection_lost`): what would tie
        # it into cycles, with the transport it holds, goes now.
        self.cancel_head_timer()
        self.cancel_send_timer()
        self.forget_requests()
        self.forget_head()

    def upgrade_request(self, *request: Any) -> tuple[str, bytes]:
        """The method and target of an upgrade request (for the access line)."""
        raise NotImplementedError  # each protocol class reads its parser's

    async def app_with_guards(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Over `max_connections` connections or running requests in this worker, 503
        (both sets include this connection and this request's task); else the app, with
        the request in `answering` while it runs."""
        if self.over_limit():
            refusal = error_of(
                ErrorCode.SERVICE_UNAVAILABLE,
                headers={"Connection": "close"},
                retry_after=self.retry_after,
            )
            await refusal(scope, receive, send)
            return
        self.answering[id(scope)] = scope
        try:
            await self.inner_app(scope, receive, send)
        finally:
            del self.answering[id(scope)]
