"""A WebSocket client that speaks to the ASGI app in the test's own event loop (httpx has
none), for GraphQL subscriptions over graphql-transport-ws."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import orjson


class Socket:
    """One WebSocket to the app: what the app sent, and a way to send it messages."""

    def __init__(self, app: Any, path: str, headers: dict[str, str], protocol: str) -> None:
        self.incoming: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.outgoing: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.closed: tuple[int, str] | None = None
        self.accepted = asyncio.Event()
        raw = [(b"sec-websocket-protocol", protocol.encode())]
        raw += [(k.lower().encode(), v.encode()) for k, v in headers.items()]
        scope = {
            "type": "websocket",
            "asgi": {"version": "3.0"},
            "scheme": "wss",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "headers": raw,
            "subprotocols": [protocol],
            "client": ("127.0.0.1", 50000),
            "server": ("testserver", 443),
        }
        self.outgoing.put_nowait({"type": "websocket.connect"})
        self.task = asyncio.create_task(app(scope, self.outgoing.get, self._send))

    async def _send(self, message: dict[str, Any]) -> None:
        if message["type"] == "websocket.accept":
            self.accepted.set()
        elif message["type"] == "websocket.send":
            self.incoming.put_nowait(orjson.loads(message.get("text") or message["bytes"]))
        elif message["type"] == "websocket.close":
            self.closed = (message.get("code", 1000), message.get("reason", ""))
            self.incoming.put_nowait({"type": "__closed__", "code": self.closed[0]})

    async def send(self, message: dict[str, Any]) -> None:
        await self.outgoing.put(
            {"type": "websocket.receive", "text": orjson.dumps(message).decode()}
        )

    async def receive(self, timeout: float = 5.0) -> dict[str, Any]:
        return await asyncio.wait_for(self.incoming.get(), timeout)

    async def close(self) -> None:
        await self.outgoing.put({"type": "websocket.disconnect", "code": 1000})
        with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError, Exception):
            await asyncio.wait_for(self.task, 5)


@contextlib.asynccontextmanager
async def websocket(
    app: Any,
    path: str = "/graphql",
    headers: dict[str, str] | None = None,
    protocol: str = "graphql-transport-ws",
) -> AsyncIterator[Socket]:
    socket = Socket(app, path, headers or {}, protocol)
    try:
        yield socket
    finally:
        await socket.close()
