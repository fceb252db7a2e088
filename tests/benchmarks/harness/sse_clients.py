"""Server-Sent Events subscribers for `live_changes`: a program of its own, so that the
subscribers' CPU is not the benchmark process's and several can share the cores.

    python -m tests.benchmarks.harness.sse_clients URL CA_FILE COUNT

The key comes from the environment (KEY_VARIABLE), never the command line. It opens
COUNT connections to URL over TLS (raw asyncio protocols on uvloop when installed: an
httpx stream per subscriber would cost more CPU than the server's fan-out it measures)
and sends one GET each, with the key and the `unit-attributes-resource` flag. A
connection counts as subscribed once its `retry:` line arrived. Then it prints one line,
`subscribed OK FAILED FIRST_ERROR`, and waits for a line on stdin; every event's arrival
is noted meanwhile with `time.monotonic()` (CLOCK_MONOTONIC: the same clock in every
process of the machine, so the writer's times compare). At the line it closes
everything and prints one JSON line: per connection the `[id, event, seconds]` of each
event (and its text, with TEXT_VARIABLE set), the connections the server closed, and
this process's CPU seconds.

It imports nothing from floorgate.
"""

from __future__ import annotations

import asyncio
import json
import os
import ssl
import sys
import time
from typing import Any
from urllib.parse import urlsplit

KEY_VARIABLE = "SSE_CLIENTS_KEY"
TEXT_VARIABLE = "SSE_CLIENTS_TEXT"  # set: each arrival also has its event's text
FLAGS = "unit-attributes-resource"
OPENING_AT_ONCE = 64  # handshakes in flight: the server's accept queue stays short
SUBSCRIBE_SECONDS = 60.0

Arrival = tuple[int, str, float] | tuple[int, str, float, str]
KEEP_TEXT = bool(os.environ.get(TEXT_VARIABLE))


class Subscriber(asyncio.Protocol):
    """One event stream: the answer's head, then its chunked body as SSE blocks."""

    def __init__(self, request: bytes, subscribed: asyncio.Future[None]) -> None:
        self.request = request
        self.subscribed = subscribed
        self.transport: Any = None  # uvloop's TLS transport is no asyncio.Transport
        self.head = bytearray()
        self.in_body = False
        self.chunked = False
        self.raw = bytearray()  # body bytes not yet de-chunked
        self.need = 0  # bytes of the current chunk still to come, its CRLF included
        self.text = bytearray()  # SSE text not yet split into blocks
        self.arrivals: list[Arrival] = []
        self.closed_by_server = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport
        self.transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        now = time.monotonic()
        if not self.in_body:
            self.head += data
            end = self.head.find(b"\r\n\r\n")
            if end < 0:
                return
            head, rest = bytes(self.head[:end]), bytes(self.head[end + 4 :])
            self.in_body = True
            status = head[9:12]
            if status != b"200":
                self.fail(f"status {status.decode(errors='replace')}: {rest[:200]!r}")
                return
            self.chunked = b"transfer-encoding: chunked" in head.lower()
            data = rest
        if self.chunked:
            self.raw += data
            self.dechunk()
        else:
            self.text += data
        self.blocks(now)

    def dechunk(self) -> None:
        while True:
            if self.need == 0:
                end = self.raw.find(b"\r\n")
                if end < 0:
                    return
                size = int(bytes(self.raw[:end]).split(b";")[0], 16)
                del self.raw[: end + 2]
                if size == 0:
                    return
                self.need = size + 2
            if len(self.raw) < self.need:
                return
            self.text += self.raw[: self.need - 2]
            del self.raw[: self.need]
            self.need = 0

    def blocks(self, now: float) -> None:
        while (end := self.text.find(b"\n\n")) >= 0:
            block = bytes(self.text[:end])
            del self.text[: end + 2]
            event_id, event = None, ""
            for line in block.split(b"\n"):
                name, _, value = line.partition(b":")
                if name == b"retry" and not self.subscribed.done():
                    self.subscribed.set_result(None)
                elif name == b"id":
                    event_id = int(value)
                elif name == b"event":
                    event = value.strip().decode()
            if event_id is not None:
                if KEEP_TEXT:
                    self.arrivals.append((event_id, event, now, block.decode()))
                else:
                    self.arrivals.append((event_id, event, now))

    def fail(self, reason: str) -> None:
        if not self.subscribed.done():
            self.subscribed.set_exception(RuntimeError(reason))
        if self.transport is not None:
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed_by_server = True
        if not self.subscribed.done():
            self.subscribed.set_exception(RuntimeError(f"closed before subscribed: {exc!r}"))


async def subscribe_all(url: str, ca_file: str, count: int, key: str) -> None:
    target = urlsplit(url)
    host, port = target.hostname or "127.0.0.1", target.port or 443
    path = target.path + (f"?{target.query}" if target.query else "")
    request = (
        f"GET {path} HTTP/1.1\r\nHost: {target.netloc}\r\nAPI-Key: {key}\r\n"
        f"Experimental-Flags: {FLAGS}\r\nAccept: text/event-stream\r\n\r\n"
    ).encode()
    tls = ssl.create_default_context(cafile=ca_file)
    loop = asyncio.get_running_loop()
    gate = asyncio.Semaphore(OPENING_AT_ONCE)
    subscribers: list[Subscriber] = []
    errors: list[str] = []

    async def open_one() -> None:
        async with gate:
            subscribed: asyncio.Future[None] = loop.create_future()
            try:
                _, protocol = await loop.create_connection(
                    lambda: Subscriber(request, subscribed), host, port, ssl=tls
                )
                await asyncio.wait_for(subscribed, SUBSCRIBE_SECONDS)
            except Exception as error:  # counted and reported, not raised
                errors.append(f"{type(error).__name__}: {error}")
                return
            subscribers.append(protocol)

    await asyncio.gather(*(open_one() for _ in range(count)))
    first = errors[0].replace("\n", " ") if errors else "-"
    print(f"subscribed {len(subscribers)} {len(errors)} {first}", flush=True)
    for protocol in subscribers:
        protocol.closed_by_server = False  # from here on, a close is the server's
    await loop.run_in_executor(None, sys.stdin.readline)
    closed = sum(protocol.closed_by_server for protocol in subscribers)
    for protocol in subscribers:
        if protocol.transport is not None:
            protocol.transport.abort()
    print(
        json.dumps(
            {
                "arrivals": [protocol.arrivals for protocol in subscribers],
                "closed": closed,
                "cpu": time.process_time(),
            }
        ),
        flush=True,
    )


def main() -> None:
    url, ca_file, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    coroutine = subscribe_all(url, ca_file, count, os.environ[KEY_VARIABLE])
    try:
        import uvloop
    except ImportError:
        asyncio.run(coroutine)
    else:
        uvloop.run(coroutine)


if __name__ == "__main__":
    main()
