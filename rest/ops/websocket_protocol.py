"""uvicorn's WebSocket protocol (websockets' sans-I/O one), except for what follows the
server's close.

Once the server has sent its close frame (a socket over its message rate, its key
revoked, a refusal), uvicorn keeps reading for the client's reply for 10 s, decrypting
and parsing every frame the client still sends and throwing it away: a client that
ignores the close and keeps writing costs the process as much as before it was closed
(issue 45, point 4: subscribe/complete churn kept a quarter of the server's CPU in TLS
reads). Here the reply is awaited CLOSE_REPLY_SECONDS, and a client that sends more than
AFTER_CLOSE_BYTES after the close is cut off at once (the connection reset, what it
still sends never read).

A server stopping while a client is closing (its close frame in and answered, the TLS
close not done yet) would send a close again from uvicorn's `shutdown`: websockets raises
`InvalidState`, the server's shutdown ends in a traceback, and asyncio cancels every
request still running. Here such a socket is only let go."""

from __future__ import annotations

from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import State

CLOSE_REPLY_SECONDS = 1.0
AFTER_CLOSE_BYTES = 64 * 1024


class ClosingWebSockets(WebSocketsSansIOProtocol):
    """A WebSocket connection that stops costing anything soon after the server closed
    it. `floorgate serve` gives it to uvicorn (`ws=`) for every upgrade."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.close_timeout = CLOSE_REPLY_SECONDS
        self.after_close = 0  # bytes received since the server's close

    def data_received(self, data: bytes) -> None:
        if self.close_sent and self.handshake_complete:
            self.after_close += len(data)
            if self.after_close > AFTER_CLOSE_BYTES:
                self.transport.abort()  # a graceful TLS close would read it all again
                return
        super().data_received(data)

    def shutdown(self) -> None:
        """The server stops: close what is open; a socket whose client closed it first
        (answered already by `handle_close`) has nothing left to send."""
        if self.handshake_complete and not self.close_sent and self.conn.state is not State.OPEN:
            self.stop_keepalive()
            self.transport.close()
            return
        super().shutdown()
