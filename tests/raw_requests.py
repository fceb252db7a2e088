"""A lean HTTP/1.1 client for tests that send thousands of requests to `floorgate serve`:
pre-built request bytes on raw TLS connections, answers read as far as the test needs.

httpx builds, validates and parses every request and answer (its URL parser alone spends
milliseconds on a 64 KB query); a test that counts requests, not clients, pays that
thousands of times, on the two cores the whole suite shares. Here a request is bytes
built once, several go down a keep-alive connection at once (pipelined: the server
answers them in order) and an answer is its status and body, framed by Content-Length or
chunks. A connection the server closes after each answer resumes the TLS session of the
one before, so neither side redoes the certificate's signature and its check."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
from collections.abc import Iterable, Sequence

from tests.servers import Served


def request_bytes(
    target: str | bytes, headers: dict[str, str] | None = None, method: str = "GET"
) -> bytes:
    """One request head (no body), ready to send."""
    path = target if isinstance(target, bytes) else target.encode()
    lines = b"".join(f"{name}: {value}\r\n".encode() for name, value in (headers or {}).items())
    return method.encode() + b" " + path + b" HTTP/1.1\r\nHost: localhost\r\n" + lines + b"\r\n"


async def read_answer(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """One answer's status and body (Content-Length or chunked)."""
    head = await reader.readuntil(b"\r\n\r\n")
    status_line, _, rest = head.partition(b"\r\n")
    status = int(status_line.split(b" ", 2)[1])
    length, chunked = None, False
    for line in rest.split(b"\r\n"):
        name, _, value = line.partition(b":")
        name = name.strip().lower()
        if name == b"content-length":
            length = int(value)
        elif name == b"transfer-encoding" and b"chunked" in value.lower():
            chunked = True
    if chunked:
        body = b""
        while size := int((await reader.readuntil(b"\r\n")).split(b";")[0], 16):
            body += (await reader.readexactly(size + 2))[:-2]
        await reader.readuntil(b"\r\n")  # the last chunk's end (no trailers sent)
        return status, body
    return status, await reader.readexactly(length or 0)


async def keep_alive_answers(
    served: Served,
    context: ssl.SSLContext,
    requests: Sequence[bytes],
    connections: int = 8,
    depth: int = 25,
) -> list[tuple[int, bytes]]:
    """Every request's status and body, in the order of `requests`: sent over
    `connections` keep-alive TLS connections at once, each writing `depth` requests
    before it reads their answers."""
    answers: list[tuple[int, bytes]] = [(0, b"")] * len(requests)

    async def one_connection(numbers: range) -> None:
        reader, writer = await asyncio.open_connection(
            "127.0.0.1", served.port, ssl=context, server_hostname="localhost"
        )
        try:
            for start in range(0, len(numbers), depth):
                batch = numbers[start : start + depth]
                writer.write(b"".join(requests[number] for number in batch))
                for number in batch:
                    answers[number] = await asyncio.wait_for(read_answer(reader), 30)
        finally:
            writer.close()

    share = -(-len(requests) // connections)
    await asyncio.gather(
        *(
            one_connection(range(start, min(start + share, len(requests))))
            for start in range(0, len(requests), share)
        )
    )
    return answers


def answers_on_closing_connections(
    served: Served, context: ssl.SSLContext, requests: Iterable[bytes]
) -> list[bytes]:
    """What the server sent for each request (its answer, read to the end of its body),
    each on a new TLS connection that the server closes after its answer; each connection
    resumes the TLS session of the one before."""
    answers, session = [], None
    for request in requests:
        with (
            socket.create_connection(("127.0.0.1", served.port), timeout=10) as raw,
            context.wrap_socket(raw, server_hostname="localhost", session=session) as sock,
        ):
            with contextlib.suppress(OSError):  # answered and closed before all was sent
                sock.sendall(request)
            received = b""
            with contextlib.suppress(ConnectionResetError):
                while not whole_answer(received) and (chunk := sock.recv(65536)):
                    received += chunk
            session = sock.session  # a TLS 1.3 ticket comes after the handshake
        answers.append(received)  # and closed: the server lingers until the client does
    return answers


def whole_answer(received: bytes) -> bool:
    """Whether `received` holds an answer's head and its Content-Length body."""
    head, found, body = received.partition(b"\r\n\r\n")
    if not found:
        return False
    for line in head.lower().split(b"\r\n"):
        if line.startswith(b"content-length:"):
            return len(body) >= int(line.split(b":", 1)[1])
    return False  # framed by the end of the connection: read to it
