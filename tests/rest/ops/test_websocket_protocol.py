"""`rest.ops.websocket_protocol.ClosingWebSockets`: once the server has closed a socket,
its client's reply is awaited a second, and a client that goes on writing is cut off
instead of being read and decrypted for 10 s (issue 45, point 4)."""

from __future__ import annotations

import asyncio

from uvicorn.config import Config
from uvicorn.server import ServerState

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
