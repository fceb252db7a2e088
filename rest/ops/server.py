"""How `floorgate serve` runs uvicorn: the event loop and HTTP parser, connection timeouts
and the connection limit.

uvicorn alone keeps a connection that never finishes its TLS handshake for asyncio's
60 s, and one that sends half a request head for ever. Here:

- the event loop (uvicorn's `loop=`: `new_uvloop`, or `new_asyncio_loop`) makes every
  TLS listener start each connection's TLS in its address's turn (`rest.ops.tls_gate`),
  with a handshake timeout and a bound on the wait for the client's close_notify (the
  TLS protocols of both loops take `ssl_handshake_timeout`/`ssl_shutdown_timeout`);
- the HTTP protocol (uvicorn's `http=`: `GuardedHttpToolsProtocol`, or
  `GuardedH11Protocol`) closes a connection whose request head is not complete in time,
  drops one whose client stops reading an answer (the send timeout), answers over
  `max_connections` with the API's JSON 503 instead of uvicorn's plain text (WebSocket
  upgrades too, which uvicorn lets past), and sets TCP_NODELAY on every accepted
  connection (`ConnectionGuards`, in `rest.ops.guards`).

uvloop and httptools (uvicorn's "standard" extras) are the fast path, taken where they
are installed; asyncio's loop and h11 are the fallback, with the same guards
(`FLOORGATE_LOOP`, `FLOORGATE_HTTP` choose). All are named by import string so that
`--workers N` (spawned processes) load them too; each process reads its settings from
the environment, like `rest.app:app_from_env`. The h11 protocol is defined on first use
(`__getattr__`), so the fast path never imports h11 (20 ms of every start).
"""

from __future__ import annotations

import asyncio
import asyncio.sslproto
import functools
import importlib.util
import sys
from typing import TYPE_CHECKING, Any

from resolvers.errors import ApiError, ErrorCode
from resolvers.limits import MAX_QUERY_BODY_BYTES, MAX_TARGET_BYTES
from rest.ops.guards import ConnectionGuards, worker_settings
from rest.ops.tls_gate import Gate, ProtocolFactory, gated
from storage.settings import Settings

if TYPE_CHECKING:
    from uvicorn.protocols.http.h11_impl import H11Protocol
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

# Implementation name -> uvicorn's import string, and the module it needs.
LOOPS = {"uvloop": "rest.ops.server:new_uvloop", "asyncio": "rest.ops.server:new_asyncio_loop"}
PROTOCOLS = {
    "httptools": "rest.ops.server:GuardedHttpToolsProtocol",
    "h11": "rest.ops.server:GuardedH11Protocol",
}
NEEDS = {"uvloop": "uvloop", "asyncio": None, "httptools": "httptools", "h11": "h11"}
FAST = {"loop": "uvloop", "http": "httptools"}
FALLBACK = {"loop": "asyncio", "http": "h11"}
SETTING = {"loop": "FLOORGATE_LOOP", "http": "FLOORGATE_HTTP"}
# Set by `floorgate serve --workers N` (N > 1) for its workers: the folder where each
# writes its `/metrics` figures for the others' scrapes (`rest.ops.metrics_folder`).
METRICS_FOLDER = "FLOORGATE_METRICS_FOLDER"


def installed(module: str | None) -> bool:
    if module is None:
        return True
    if module == "uvloop" and sys.platform == "win32":
        return False  # uvloop does not run on Windows (and is not installed there)
    return importlib.util.find_spec(module) is not None


def implementations(settings: Settings) -> dict[str, str]:
    """{"loop": ..., "http": ...}: the settings' choice, with `auto` the fast one where it
    is installed. ValueError (one line, for `floorgate serve`) for a choice that cannot run."""
    chosen: dict[str, str] = {}
    for part, wanted in (("loop", settings.event_loop), ("http", settings.http_parser)):
        known = (FAST[part], FALLBACK[part])
        if wanted == "auto":
            wanted = FAST[part] if installed(NEEDS[FAST[part]]) else FALLBACK[part]
        elif wanted not in known:
            raise ValueError(
                f"{SETTING[part]} must be auto, {known[0]} or {known[1]}, not {wanted!r}"
            )
        elif not installed(NEEDS[wanted]):
            raise ValueError(f"{SETTING[part]}={wanted}, but {NEEDS[wanted]} is not installed")
        chosen[part] = wanted
    return chosen


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """The keyword arguments of `uvicorn.run` that pick the loop and parser and bound
    connections. uvicorn's own access log is off: `rest.middleware.Boundary` writes a
    cheaper structured line (`FLOORGATE_ACCESS_LOG`)."""
    chosen = implementations(settings)
    return {
        "http": PROTOCOLS[chosen["http"]],
        "loop": LOOPS[chosen["loop"]],
        "timeout_keep_alive": settings.keepalive_timeout_seconds,
        "limit_concurrency": settings.max_connections,
        "access_log": False,
        # h11 keeps at most this much of an unfinished head, then refuses it (431/414).
        "h11_max_incomplete_event_size": settings.max_header_bytes,
        # A WebSocket message (a subscription's document and variables, connection_init)
        # is bounded as a keyed /graphql body is, before it is read whole.
        "ws_max_size": settings.graphql_max_document_bytes + MAX_QUERY_BODY_BYTES,
        # uvicorn's WebSocket protocol, which stops reading a socket soon after its close.
        "ws": "rest.ops.websocket_protocol:ClosingWebSockets",
    }


def forwarding_options(settings: Settings) -> dict[str, Any]:
    """uvicorn's proxy headers stay off: they took any text of X-Forwarded-For as the
    client's address. With `--behind-proxy` the app reads X-Forwarded-For and
    X-Forwarded-Proto itself, from the addresses and networks of `proxy_addresses`
    (checked at start: `storage.settings_fields.PROXIES`), or from anyone for `*`, and
    takes only an IP address (`rest.forwarding`). A peer outside them sets neither the
    client's address nor its scheme; the answer then sees the proxy's own address, and
    plain HTTP (403 HTTPS_REQUIRED but for the probes)."""
    return {"proxy_headers": False}


# -- the event loops -------------------------------------------------------------------


@functools.cache
def process_gate() -> Gate:
    """The process's pace of new TLS connections per address (`rest.ops.tls_gate`)."""
    settings = worker_settings()
    return Gate(settings.new_connections_per_second, settings.new_connections_burst)


class TlsTimeouts:
    """A loop mixin: TLS listeners start each connection's TLS themselves, in its
    address's turn (`rest.ops.tls_gate`), with our handshake timeout and close_notify
    wait.

    uvicorn calls `create_server(..., ssl=context)`: the loop would do every handshake
    at once, with its default timeout of 60 s; a subclass is the one place to change
    that. A closed TLS connection waits for the peer's close_notify (30 s by default): a
    client that never sends it must not keep the socket that long either."""

    ssl_protocol: type[Any]  # the loop's own TLS protocol, the one `ssl=` would use

    async def create_server(
        self, protocol_factory: ProtocolFactory, *args: Any, **kwargs: Any
    ) -> asyncio.Server:
        context = kwargs.pop("ssl", None)
        if context is not None:
            seconds = worker_settings().header_timeout_seconds
            protocol_factory = gated(
                protocol_factory, context, process_gate(), seconds, self.ssl_protocol
            )
        # a mixin: the loop class it is mixed into has `create_server`
        server: asyncio.Server = await super().create_server(  # type: ignore[misc]  # mixin
            protocol_factory, *args, **kwargs
        )
        return server


class GuardedEventLoop(TlsTimeouts, asyncio.SelectorEventLoop):
    """asyncio's loop (the fallback), with the TLS timeouts."""

    ssl_protocol = asyncio.sslproto.SSLProtocol


def new_asyncio_loop() -> asyncio.AbstractEventLoop:
    """uvicorn's `loop=` factory for asyncio (called in each worker process)."""
    return GuardedEventLoop()


@functools.cache
def _uvloop_class() -> type[asyncio.AbstractEventLoop]:
    import uvloop

    class GuardedUvloop(TlsTimeouts, uvloop.Loop):  # type: ignore[misc]  # uvloop's stubs differ
        """uvloop's loop, with the TLS timeouts (its TLS protocol takes both)."""

        ssl_protocol = uvloop.loop.SSLProtocol  # type: ignore[attr-defined]  # not in its loop.pyi

    return GuardedUvloop


def new_uvloop() -> asyncio.AbstractEventLoop:
    """uvicorn's `loop=` factory for uvloop (called in each worker process)."""
    return _uvloop_class()()


# -- the HTTP protocols ------------------------------------------------------------------


@functools.cache
def _httptools_class() -> type[HttpToolsProtocol]:
    import httptools
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class GuardedHttpToolsProtocol(ConnectionGuards, HttpToolsProtocol):
        """uvicorn's httptools protocol with the guards. llhttp calls `on_message_begin`
        at the first byte of each request and `on_headers_complete` at the end of its
        head: the head timer starts and stops there.

        llhttp has no bound on a head: httptools keeps a header line whole until it ends
        (an 8 MB one, too). So the head's bytes are counted here: the target as it comes
        (`on_url`; past MAX_TARGET_BYTES, 414), each finished header line (`on_header`),
        and the unfinished line at the end of what was read; past `max_header_bytes`,
        431. Either way nothing more is read."""

        in_head = False
        last_read = b""  # while llhttp reads it
        head_bytes = 0  # finished header lines of the head being read
        line_bytes = 0  # the unfinished line at the end of what was read

        def data_received(self, data: bytes) -> None:
            if self.lingered(data) or self.refused:
                return
            self.last_read = data  # for send_400_response
            super().data_received(data)
            self.last_read = b""
            if self.in_head and not self.refused:
                newline = data.rfind(b"\n")
                self.line_bytes = (
                    len(data) - newline - 1 if newline >= 0 else self.line_bytes + len(data)
                )
                if len(self.url) + self.head_bytes + self.line_bytes > self.max_header_bytes:
                    self.refuse(
                        ApiError(ErrorCode.HEADERS_TOO_LARGE, limit=str(self.max_header_bytes))
                    )

        def send_400_response(self, msg: str) -> None:
            """uvicorn's answer to what llhttp refused (called in its `except`): ours. llhttp
            knows a fixed list of methods: another word there is 405, as h11 lets the app
            say; bytes that are no method at all are 400."""
            word = self.last_read.lstrip(b"\r\n").split(b" ", 1)[0]
            if (
                isinstance(sys.exc_info()[1], httptools.HttpParserInvalidMethodError)
                and word.isalpha()
                and len(word) <= 32
            ):
                self.refuse(ApiError(ErrorCode.METHOD_NOT_ALLOWED), word.decode("ascii"))
            else:
                self.refuse(ApiError(ErrorCode.BAD_REQUEST))

        def upgrade_request(self) -> tuple[str, bytes]:
            return self.scope["method"], self.url

        def forget_head(self) -> None:
            """httptools keeps an unfinished header line whole in its parser."""
            self.parser = None  # type: ignore[assignment]  # as uvicorn's connection_lost does
            self.url, self.headers = b"", []

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self.in_head, self.head_bytes, self.line_bytes = True, 0, 0
            self.start_head_timer()  # no-op on the first request: its timer runs already

        def on_url(self, url: bytes) -> None:
            """llhttp hands the target over as it reads it. Past the limit: refused, and
            the parser stopped by an error (whose 400 is then not sent: `refuse` answered).
            httptools.parse_url fails on targets over 64 KB, so they must not reach it."""
            super().on_url(url)
            if len(self.url) > MAX_TARGET_BYTES:
                method = self.parser.get_method().decode("latin-1")
                self.refuse(
                    ApiError(ErrorCode.URI_TOO_LONG, limit=str(MAX_TARGET_BYTES)), method, self.url
                )
                raise ValueError("request target over the limit")

        def on_header(self, name: bytes, value: bytes) -> None:
            super().on_header(name, value)
            self.head_bytes += len(name) + len(value) + 4  # ": " and CRLF

        def on_headers_complete(self) -> None:
            self.in_head = False
            self.cancel_head_timer()
            super().on_headers_complete()
            self.watch_cycle()

    return GuardedHttpToolsProtocol


@functools.cache
def _h11_class() -> type[H11Protocol]:
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class GuardedH11Protocol(ConnectionGuards, H11Protocol):
        """uvicorn's h11 protocol with the guards (the fallback). h11 keeps at most
        `max_header_bytes` of an unfinished head (`h11_max_incomplete_event_size`)."""

        def data_received(self, data: bytes) -> None:
            if not self.lingered(data) and not self.refused:
                super().data_received(data)

        def send_400_response(self, msg: str) -> None:
            """uvicorn's answer to what h11 refused (called in its `except`): ours. A head
            over the size limit is 414 while its request line is still unfinished."""
            error = sys.exc_info()[1]
            if getattr(error, "error_status_hint", 400) == 431:
                start = self.conn.trailing_data[0][: MAX_TARGET_BYTES + 64]
                method, _, target = start.split(b"\r\n", 1)[0].partition(b" ")
                word = method.decode("latin-1") if method.isalpha() else "-"
                if b"\n" in start:
                    self.refuse(
                        ApiError(ErrorCode.HEADERS_TOO_LARGE, limit=str(self.max_header_bytes)),
                        word,
                    )
                else:
                    self.refuse(
                        ApiError(ErrorCode.URI_TOO_LONG, limit=str(MAX_TARGET_BYTES)), word, target
                    )
            else:
                self.refuse(ApiError(ErrorCode.BAD_REQUEST))

        def upgrade_request(self, request: h11.Request) -> tuple[str, bytes]:
            return request.method.decode("latin-1"), request.target

        def forget_head(self) -> None:
            """h11 keeps what it has not parsed in its connection's buffer. A fresh one
            is idle: uvicorn's `connection_lost` can still tell it the connection closed."""
            self.conn = h11.Connection(h11.SERVER)

        def handle_events(self) -> None:
            super().handle_events()
            self.watch_cycle()
            if self.conn.their_state is not h11.IDLE:
                self.cancel_head_timer()  # a head arrived (or the connection is done)
            elif self.conn.trailing_data[0]:
                self.start_head_timer()

    return GuardedH11Protocol


def __getattr__(name: str) -> Any:
    """`GuardedHttpToolsProtocol` and `GuardedH11Protocol`, made on first use: only the
    chosen parser is imported (uvicorn resolves `rest.ops.server:<name>` through this)."""
    if name == "GuardedHttpToolsProtocol":
        return _httptools_class()
    if name == "GuardedH11Protocol":
        return _h11_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
