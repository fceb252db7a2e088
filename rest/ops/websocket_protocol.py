"""uvicorn's WebSocket protocol (websockets' sans-I/O one), except for what follows the
server's close.

Once the server has sent its close frame (a socket over its message rate, its key
revoked, a refusal), uvicorn keeps reading for the client's reply for 10 s, decrypting
and parsing every frame the client still sends and throwing it away: a client that
ignores the close and keeps writing costs the process as much as before it was closed
(issue 45, point 4: subscribe/complete churn kept a quarter of the server's CPU in TLS
reads). Here the reply is awaited CLOSE_REPLY_SECONDS, and a client that sends more than
AFTER_CLOSE_BYTES after the close is cut off at once (the connection reset, what it
still sends never read)."""

from __future__ import annotations

from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

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
