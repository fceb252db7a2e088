"""Issue 30, attacks 3 and 7, against `floorgate serve` over TLS: a refused upload still
gets its JSON answer, even from a client that writes everything before it reads, and a
flood of them costs the server a bounded share of a core (rest/ops/linger.py). Before,
a graceful TLS close decrypted all the client sent at full speed: 15 MB bodies refused
by their Content-Length cost the worker 30 ms of its event loop each, about 37 % of a
core for two clients at a time."""

from __future__ import annotations

import os
import socket
import ssl
import threading
import time
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import orjson
import pytest

from tests.e2e.test_connections import client_context, wait_until_ready
from tests.servers import Served, serve_tls

pytestmark = [pytest.mark.e2e, pytest.mark.security]

FLOOD_SECONDS = 4.0
# 8 MiB a second drained costs 2-6 ms of CPU a MiB (decrypting, dropping): 2-5 % of a
# core; the handshakes, heads and answers of the refused requests come on top.
# 8.5 % measured when the drain was written (0.41 s in 4.8 s, 2026-11-25); on
# 2026-11-26's machine 21-25 %, with the code of then as with today's (issue 45 changed
# nothing here): the bound sits between that and the 37 % of a graceful TLS close.
MAX_CPU_SHARE = 0.3


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.fixture(
    scope="module",
    params=[{}, {"FLOORGATE_LOOP": "asyncio", "FLOORGATE_HTTP": "h11"}],
    ids=["uvloop-httptools", "asyncio-h11"],
)
def served(
    request, tmp_path_factory, db_server, settings
) -> Iterator[tuple[Served, ssl.SSLContext]]:
    """Both event loops and parsers: each has its own TLS and its own protocol class."""
    folder = tmp_path_factory.mktemp("linger")
    with serve_tls(folder, db_server, settings, **request.param) as served:
        context = client_context(served)
        wait_until_ready(served, context)
        yield served, context


# serial: the server's CPU share over a wall-clock window, against an idle machine (in a
# parallel run, 1.6 s of 6.8 were measured: other tests' load slowed the window's work)
@pytest.mark.serial
def test_refused_15_mb_documents_are_answered_and_cost_little(served, keys):
    server, context = served
    document = orjson.dumps({"query": "#" + "x" * 15_000_000 + "\n{ assets { data { id } } }"})
    answers: list[tuple[int, bytes]] = []
    failures: list[BaseException] = []

    def upload() -> None:
        deadline = time.monotonic() + FLOOD_SECONDS
        # A key without the operator's permission: its /graphql body is refused by its
        # Content-Length (an operator's may carry 16 MiB, and is read).
        headers = {"API-Key": keys.plain, "Content-Type": "application/json"}
        try:
            with httpx.Client(verify=context, base_url=server.base, timeout=30) as client:
                while time.monotonic() < deadline:
                    response = client.post("/graphql", content=document, headers=headers)
                    answers.append((response.status_code, response.content))
        except BaseException as error:  # reported below
            failures.append(error)

    before = cpu_seconds(server.process.pid)
    started = time.monotonic()
    threads = [threading.Thread(target=upload) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    took = time.monotonic() - started
    used = cpu_seconds(server.process.pid) - before
    assert failures == [], failures
    assert len(answers) >= 2
    assert set(answers) == {(413, b'{"message":"Request body too large"}')}
    assert used < MAX_CPU_SHARE * took, (used, took, len(answers))


def test_a_1_mb_head_is_answered_431_after_it_was_sent_whole(served):
    """The client of attack 7 sends its whole head, then reads: the 431 waits for it."""
    server, context = served
    parts = urlsplit(server.base)
    with (
        socket.create_connection((parts.hostname, parts.port), timeout=20) as raw,
        context.wrap_socket(raw, server_hostname=parts.hostname) as sock,
    ):
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: ")
        for _ in range(16):
            sock.sendall(b"b" * 65536)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 431 Request Header Fields Too Large\r\n")
    assert b"\r\nconnection: close" in head.lower()
    assert body == b'{"message":"Request head larger than 32768 bytes"}'
