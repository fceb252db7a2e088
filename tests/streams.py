"""Clients of the app's endless answers, in the test's own event loop: a WebSocket (httpx
has none) for GraphQL subscriptions, and a Server-Sent Events reader (httpx's ASGI
transport waits for the whole body, which an event stream never ends); and an app of a
test's own that is started and stopped like a served one (`running_app`)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import orjson

from rest.app import create_app
from storage.database import Store, connect
from storage.settings import Settings


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
            text = message.get("text")  # a binary frame: browsers' JSON.parse refuses it
            self.incoming.put_nowait({"type": "__binary__"} if text is None else orjson.loads(text))
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


class EventStream:
    """One GET to the app whose answer is read as it comes; `close` disconnects."""

    def __init__(self, app: Any, path: str, headers: dict[str, str]) -> None:
        self.status: int | None = None
        self.headers: dict[str, str] = {}
        self.started = asyncio.Event()
        self.chunks: asyncio.Queue[bytes] = asyncio.Queue()
        self.disconnect = asyncio.Event()
        self.buffer = b""
        target, _, query = path.partition("?")
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "https",
            "path": target,
            "raw_path": target.encode(),
            "query_string": query.encode(),
            "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
            "client": ("127.0.0.1", 50000),
            "server": ("testserver", 443),
        }
        self.task = asyncio.create_task(app(scope, self._receive, self._send))

    async def _receive(self) -> dict[str, Any]:
        if not hasattr(self, "_sent_request"):
            self._sent_request = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await self.disconnect.wait()
        return {"type": "http.disconnect"}

    async def _send(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
            self.headers = {k.decode(): v.decode() for k, v in message["headers"]}
            self.started.set()
        elif message["type"] == "http.response.body":
            self.chunks.put_nowait(message.get("body", b""))

    async def body(self, timeout: float = 5.0) -> bytes:
        """The whole answer of a request refused before its stream."""
        await asyncio.wait_for(self.task, timeout)
        parts = []
        while not self.chunks.empty():
            parts.append(self.chunks.get_nowait())
        return b"".join(parts)

    async def event(self, timeout: float = 5.0) -> bytes:
        """The next block up to a blank line (an event, a comment, the retry advice)."""
        while b"\n\n" not in self.buffer:
            self.buffer += await asyncio.wait_for(self.chunks.get(), timeout)
        block, _, self.buffer = self.buffer.partition(b"\n\n")
        return block

    async def close(self) -> None:
        self.disconnect.set()
        with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError, Exception):
            await asyncio.wait_for(self.task, 5)


@contextlib.asynccontextmanager
async def event_stream(
    app: Any, path: str, headers: dict[str, str] | None = None
) -> AsyncIterator[EventStream]:
    stream = EventStream(app, path, headers or {})
    try:
        await asyncio.wait_for(stream.started.wait(), 5)
        yield stream
    finally:
        await stream.close()


@contextlib.asynccontextmanager
async def running_app(uri: str, settings: Settings) -> AsyncIterator[Any]:
    """An app on a client of its own, as one worker of a served process: started, then
    stopped with its change streams and its client closed. Left open, each app's streams
    keep polling the test's database server for the rest of the session, and the server
    grows slower with every one."""
    store: Store = connect(uri, settings)
    app = create_app(settings, store)
    inner = app
    while not hasattr(inner, "router"):  # under the middleware, the Starlette app
        inner = inner.app
    try:
        async with inner.router.lifespan_context(inner):
            yield app
    finally:
        await store.close()
