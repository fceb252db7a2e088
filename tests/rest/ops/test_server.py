"""`rest.ops.server`'s protocols, in process: what a connection leaves behind when it ends.

A closed connection must be freed by reference counting alone, with its transport (whose
TLS buffers are 256 KiB and more): a reference cycle waits for a full collection, which
an idle process never runs, and 1 MB request heads in a loop kept 1.8 GB that way
(issue 45). The collector is off while each test runs, so a cycle shows as an object
still alive. Both HTTP parsers, as `floorgate serve` may run either."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator
from typing import Any

import pytest
from uvicorn.config import Config
from uvicorn.server import ServerState

import rest.ops.linger as linger
from rest.middleware import REFUSED_BY_PARSER
from rest.ops.server import _h11_class, _httptools_class

REQUEST = b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n"
# A header line far over the 32 KiB head limit, never finished.
BIG_HEAD = b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: " + b"b" * 200_000


UPGRADE = (
    b"GET /graphql HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\n"
    b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
    b"Sec-WebSocket-Version: 13\r\n\r\n"
)


async def answer(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """The app: 200, or the status of the error a parser refused the request with; a
    WebSocket is accepted and held until it closes."""
    if scope["type"] == "websocket":
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        await receive()  # websocket.disconnect
        return
    refused = scope.get("state", {}).get(REFUSED_BY_PARSER)
    status = refused.status if refused is not None else 200
    await send({"type": "http.response.start", "status": status, "headers": []})
    await send({"type": "http.response.body", "body": b"{}"})


class Transport(asyncio.Transport):
    """What uvicorn's protocols call on a TCP transport; what they write is kept."""

    def __init__(self) -> None:
        super().__init__()
        self.written = bytearray()
        self.closing = False
        self.aborted = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"sockname": ("127.0.0.1", 8443), "peername": ("127.0.0.1", 50000)}.get(
            name, default
        )

    def write(self, data: Any) -> None:
        self.written += data

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True

    def abort(self) -> None:
        self.closing = self.aborted = True

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def get_write_buffer_size(self) -> int:
        return 0

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self.protocol = protocol


@pytest.fixture(params=["httptools", "h11"])
def protocol_class(request: pytest.FixtureRequest) -> type:
    if request.param == "httptools":
        pytest.importorskip("httptools")
        return _httptools_class()
    return _h11_class()


@pytest.fixture
def no_collection() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def config(limit: int = 1000) -> Config:
    made = Config(app=answer, limit_concurrency=limit, lifespan="off", ws="websockets-sansio")
    made.load()
    return made


async def settle() -> None:
    """The loop's pending callbacks (a task's end, `connection_lost`'s own) run."""
    for _ in range(5):
        await asyncio.sleep(0)


async def test_a_closed_connection_is_freed_at_once(protocol_class, no_collection) -> None:
    """Answered, kept alive, closed by the client: nothing of it stays."""
    state = ServerState()
    protocol = protocol_class(config(), state, {}, asyncio.get_running_loop())
    transport = Transport()
    protocol.connection_made(transport)
    protocol.data_received(REQUEST)
    await settle()
    assert bytes(transport.written).startswith(b"HTTP/1.1 200 OK\r\n")
    assert state.connections == {protocol}
    protocol.connection_lost(None)
    await settle()
    assert state.connections == set() and state.tasks == set()
    gone, kept = weakref.ref(protocol), weakref.ref(transport)
    del protocol, transport
    assert gone() is None
    assert kept() is None


async def test_a_refused_head_frees_its_buffers_and_stops_counting(
    protocol_class, no_collection
) -> None:
    """A head over the limit is answered 431; while the connection lingers (draining what
    the client still sends) it no longer counts against the connection limit, and the
    parser keeps nothing of the head. When it ends, it is freed at once."""
    state = ServerState()
    protocol = protocol_class(config(), state, {}, asyncio.get_running_loop())
    transport = Transport()
    protocol.connection_made(transport)
    protocol.data_received(BIG_HEAD)
    await settle()
    assert bytes(transport.written).startswith(b"HTTP/1.1 431 Request Header Fields Too Large")
    assert protocol.lingering in linger.LINGERING
    assert state.connections == set()  # answered: it lingers uncounted
    assert head_kept(protocol) == 0  # the 200 KB header line is dropped
    protocol.connection_lost(None)
    await settle()
    assert protocol.lingering not in linger.LINGERING
    gone, kept = weakref.ref(protocol), weakref.ref(transport)
    del protocol, transport
    assert gone() is None
    assert kept() is None


def head_kept(protocol: Any) -> int:
    """Bytes of the request head the protocol's parser still holds: h11 keeps what it has
    not parsed in its buffer; httptools keeps an unfinished header line inside its
    parser, which cannot be read from Python (so: all of it, while the parser is kept)."""
    if hasattr(protocol, "conn"):
        return len(protocol.conn.trailing_data[0])
    return 0 if protocol.parser is None else len(BIG_HEAD)


async def test_a_connection_handed_to_a_websocket_leaves_its_http_protocol_free(
    protocol_class, no_collection
) -> None:
    """After the upgrade, uvicorn's WebSocket protocol owns the connection and the HTTP
    protocol hears nothing more, not even `connection_lost`: it must not stay in a cycle
    (httptools' parser holds its callbacks) with the transport it holds."""
    state = ServerState()
    protocol = protocol_class(config(), state, {}, asyncio.get_running_loop())
    transport = Transport()
    protocol.connection_made(transport)
    protocol.data_received(UPGRADE)
    await settle()
    assert bytes(transport.written).startswith(b"HTTP/1.1 101 Switching Protocols\r\n")
    websocket = transport.protocol
    assert state.connections == {websocket}  # the WebSocket counts, as one connection
    gone = weakref.ref(protocol)
    del protocol
    assert gone() is None
    websocket.connection_lost(None)
    await settle()
    assert state.connections == set()


async def test_an_upgrade_over_the_limit_is_refused_before_the_handshake(
    protocol_class, no_collection
) -> None:
    """With the limit reached (one WebSocket open, a limit of one), an upgrade is answered
    503 through the app (which writes the API's JSON) and never becomes a WebSocket."""
    state = ServerState()
    loop = asyncio.get_running_loop()
    held = protocol_class(config(limit=1), state, {}, loop)
    held.connection_made(Transport())
    held.data_received(UPGRADE)
    await settle()
    protocol = protocol_class(config(limit=1), state, {}, loop)
    transport = Transport()
    protocol.connection_made(transport)
    protocol.data_received(UPGRADE)
    await settle()
    assert bytes(transport.written).startswith(b"HTTP/1.1 503 Service Unavailable\r\n")
    assert b"\r\nconnection: close\r\n" in bytes(transport.written)
    assert not hasattr(transport, "protocol")  # no WebSocket protocol took it over
    assert len(state.connections) == 1  # the open WebSocket; the refused one lingers
    protocol.connection_lost(None)
    await settle()
