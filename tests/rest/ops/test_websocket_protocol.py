"""`rest.ops.websocket_protocol.ClosingWebSockets`: once the server has closed a socket,
its client's reply is awaited a second, and a client that goes on writing is cut off
instead of being read and decrypted for 10 s (issue 45, point 4)."""

from __future__ import annotations

import asyncio

from uvicorn.config import Config
from uvicorn.server import ServerState
from websockets.frames import Close, Frame, Opcode
from websockets.protocol import State

from rest.ops.server import uvicorn_options
from rest.ops.websocket_protocol import (
    AFTER_CLOSE_BYTES,
    CLOSE_REPLY_SECONDS,
    ClosingWebSockets,
)
from storage.settings import Settings


class Transport(asyncio.Transport):
    """What the protocol writes to, and how it was ended."""

    def __init__(self) -> None:
        super().__init__()
        self.aborted = False

    def abort(self) -> None:
        self.aborted = True

    def is_closing(self) -> bool:
        return self.aborted


async def app(scope, receive, send) -> None:  # never called: no handshake happens here
    raise AssertionError("no request reaches the app")


def closed_socket() -> tuple[ClosingWebSockets, Transport, list[bytes]]:
    """A socket whose server has sent its close frame, and what its parser was fed."""
    config = Config(app=app)
    config.load()
    protocol = ClosingWebSockets(config=config, server_state=ServerState(), app_state={})
    transport = Transport()
    protocol.transport = transport
    protocol.close_sent = protocol.handshake_complete = True
    parsed: list[bytes] = []
    protocol.conn.receive_data = parsed.append  # type: ignore[method-assign]
    protocol.handle_events = lambda: None  # type: ignore[method-assign]
    return protocol, transport, parsed


async def test_the_reply_to_a_close_is_awaited_a_second():
    protocol, _, _ = closed_socket()
    assert protocol.close_timeout == CLOSE_REPLY_SECONDS == 1.0


async def test_what_follows_a_close_is_read_up_to_a_bound_then_the_socket_is_cut():
    protocol, transport, parsed = closed_socket()
    chunk = b"x" * 16_384
    for _ in range(AFTER_CLOSE_BYTES // len(chunk)):  # a close reply, data in flight
        protocol.data_received(chunk)
    assert (len(parsed), transport.aborted) == (AFTER_CLOSE_BYTES // len(chunk), False)
    protocol.data_received(b"y")  # one byte more: cut off, never parsed
    assert (len(parsed), transport.aborted) == (AFTER_CLOSE_BYTES // len(chunk), True)


async def test_an_open_socket_is_read_without_a_bound():
    protocol, transport, parsed = closed_socket()
    protocol.close_sent = False
    for _ in range(2 * AFTER_CLOSE_BYTES // 16_384):
        protocol.data_received(b"x" * 16_384)
    assert (len(parsed), transport.aborted) == (2 * AFTER_CLOSE_BYTES // 16_384, False)


def test_serve_gives_uvicorn_this_protocol():
    options = uvicorn_options(Settings())
    assert options["ws"] == "rest.ops.websocket_protocol:ClosingWebSockets"
    config = Config(app=app, **options)
    config.load()
    assert config.ws_protocol_class is ClosingWebSockets


class Recording(Transport):
    """A transport that records what is written and whether it was closed."""

    def __init__(self) -> None:
        super().__init__()
        self.written: list[bytes] = []
        self.closed = False

    def get_extra_info(self, name: str, default: object = None) -> object:
        return default

    def write(self, data: bytes) -> None:
        self.written.append(data)

    def close(self) -> None:
        self.closed = True


async def accepting(scope, receive, send) -> None:
    """An app that accepts the socket and waits for its end."""
    assert (await receive())["type"] == "websocket.connect"
    await send({"type": "websocket.accept"})
    while (await receive())["type"] != "websocket.disconnect":
        pass


async def open_socket() -> tuple[ClosingWebSockets, Recording]:
    """A socket after its handshake, nothing closed yet."""
    config = Config(app=accepting, **uvicorn_options(Settings()))
    config.load()
    protocol = ClosingWebSockets(config=config, server_state=ServerState(), app_state={})
    transport = Recording()
    protocol.connection_made(transport)
    protocol.data_received(
        b"GET /graphql HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    for _ in range(100):
        if protocol.handshake_complete:
            break
        await asyncio.sleep(0.01)
    assert protocol.conn.state is State.OPEN and transport.written[0].startswith(b"HTTP/1.1 101")
    return protocol, transport


async def test_a_server_stopping_as_its_client_closes_lets_the_socket_go():
    """The CI race (test_churn): the client's close is in and answered, the TLS close not
    done, the server stops. uvicorn's own shutdown raised `InvalidState` here."""
    protocol, transport = await open_socket()
    close = Frame(Opcode.CLOSE, Close(1000, "bye").serialize())
    protocol.data_received(close.serialize(mask=True))
    assert protocol.conn.state is State.CLOSING and transport.closed
    answered = len(transport.written)
    protocol.shutdown()  # raised InvalidState in uvicorn's
    assert len(transport.written) == answered  # nothing sent again


async def test_a_server_stopping_closes_an_open_socket_with_1012():
    protocol, transport = await open_socket()
    shaken = len(transport.written)
    protocol.shutdown()
    assert transport.closed and protocol.conn.state is State.CLOSING
    assert transport.written[shaken][:4] == b"\x88\x02\x03\xf4"  # close, 2 bytes, 1012
