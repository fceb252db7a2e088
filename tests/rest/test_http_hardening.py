"""The HTTP layer answers every request in the API's JSON error format, bounds what a request
head may hold, keeps the access log small, and never puts the client's Host header in a
redirect (issue 30, findings 6, 7, 12 and 13).

The parser-level attacks run against `floorgate serve` as a real process over TLS, on the
fast path (uvloop, httptools) and the fallback (asyncio, h11), as tests/e2e/test_connections.py
does; RSS is read from the served process, so the test process's own heap does not count."""

from __future__ import annotations

import contextlib
import logging
import re
import ssl
import sys
import threading
import time
from collections.abc import Iterator

import httpx
import pytest

from resolvers.limits import MAX_TARGET_BYTES
from rest.ops.logs import MAX_LOG_LINE, MAX_LOGGED_FIELD, AccessLine, RedactKeys
from tests.e2e.test_connections import (
    client_context,
    open_tls,
    raised_fd_limit,
    read_response,
    seconds_until_closed,
    wait_until_ready,
)
from tests.raw_requests import answers_on_closing_connections
from tests.servers import Served, serve_tls

pytestmark = pytest.mark.security

MAX_HEADER_BYTES = 32 * 1024  # the default of FLOORGATE_MAX_HEADER_BYTES
ALLOW = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS"
IMPLEMENTATIONS = {
    "uvloop-httptools": {"FLOORGATE_LOOP": "uvloop", "FLOORGATE_HTTP": "httptools"},
    "asyncio-h11": {"FLOORGATE_LOOP": "asyncio", "FLOORGATE_HTTP": "h11"},
}
TOO_LONG = b'{"message":"Request target longer than 8192 bytes"}'
TOO_LARGE = b'{"message":"Request head larger than 32768 bytes"}'
INVALID = b'{"message":"Invalid HTTP request"}'
NOT_ALLOWED = b'{"message":"Method not allowed"}'


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


@pytest.fixture(scope="module", params=IMPLEMENTATIONS)
def served(
    request, tmp_path_factory, db_server, settings
) -> Iterator[tuple[Served, ssl.SSLContext]]:
    """`floorgate serve` with one HTTP implementation, shared by this module's tests."""
    if request.param == "uvloop-httptools":
        pytest.importorskip("uvloop")
        pytest.importorskip("httptools")
    with serve_tls(
        tmp_path_factory.mktemp("hardening"), db_server, settings, **IMPLEMENTATIONS[request.param]
    ) as served:
        context = client_context(served)
        wait_until_ready(served, context)
        yield served, context


def exchange(
    served: tuple[Served, ssl.SSLContext], raw: bytes
) -> tuple[int, dict[str, str], bytes]:
    """Send `raw` on a new TLS connection and read one answer; the server must then close."""
    server, context = served
    with open_tls(server, context) as sock:
        with contextlib.suppress(OSError):  # answered and closed before all of it was sent
            sock.sendall(raw)
        status, headers, body = read_response(sock)
        assert seconds_until_closed(sock, time.monotonic(), 5)[1] == b""
    return status, headers, body


def refused_as_json(answer: tuple[int, dict[str, str], bytes], status: int, body: bytes) -> None:
    got_status, headers, got_body = answer
    assert (got_status, got_body) == (status, body)
    assert headers["content-type"] == "application/json"
    assert headers["connection"] == "close"
    assert re.fullmatch(r"[0-9a-f]{16}", headers["x-request-id"])  # answered by Boundary


def request_with_head(target: bytes, extra: bytes = b"", method: bytes = b"GET") -> bytes:
    return method + b" " + target + b" HTTP/1.1\r\nHost: localhost\r\n" + extra + b"\r\n"


# -- finding 12: every answer of the HTTP layer is the API's JSON ------------------------------


def test_an_unknown_method_is_405_json_with_allow(served):
    status, headers, body = exchange(served, request_with_head(b"/healthz", method=b"FOO"))
    refused_as_json((status, headers, body), 405, NOT_ALLOWED)
    assert headers["allow"] == ALLOW


def test_content_length_with_transfer_encoding_is_refused(served):
    """The two framings of a smuggled request: 400 and closed, never run."""
    raw = (
        b"POST /v1/assets HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /healthz HTTP/1.1\r\n\r\n"
    )
    refused_as_json(exchange(served, raw), 400, INVALID)


def test_bytes_that_are_no_request_are_400_json(served):
    refused_as_json(exchange(served, b"\x00\x01\x02 garbage\r\n\r\n"), 400, INVALID)


def test_a_100_kb_url_is_414_json(served):
    raw = request_with_head(b"/healthz?q=" + b"a" * 100_000)
    refused_as_json(exchange(served, raw), 414, TOO_LONG)


def test_a_url_just_over_the_limit_is_414_and_one_at_it_is_served(served):
    over = b"/healthz?q=" + b"a" * (MAX_TARGET_BYTES - 10)
    refused_as_json(exchange(served, request_with_head(over)), 414, TOO_LONG)
    server, context = served
    with open_tls(server, context) as sock:
        sock.sendall(request_with_head(over[:-1], b"X-Pad: " + b"p" * 20_000 + b"\r\n"))
        assert read_response(sock)[::2] == (200, b'{"status":"ok"}')


def metrics_counts(served: tuple[Served, ssl.SSLContext]) -> dict[str, float]:
    server, context = served
    with httpx.Client(verify=context, base_url=server.base, timeout=10) as client:
        text = client.get("/metrics").text
    return {
        line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith("floorgate_requests_total{")
    }


def test_metrics_and_the_access_log_count_what_was_sent(served):
    """Each refusal is counted once under the status it was sent with; nothing is counted
    as a 500 (or as no answer at all)."""
    before = metrics_counts(served)
    exchange(served, request_with_head(b"/healthz", method=b"FOO"))
    exchange(served, b"\x00\x01\x02 garbage\r\n\r\n")
    exchange(served, request_with_head(b"/x?" + b"a" * 100_000))
    exchange(served, request_with_head(b"/healthz", b"X-Big: " + b"b" * 100_000 + b"\r\n"))
    after = metrics_counts(served)
    added = {
        name: after[name] - before.get(name, 0)
        for name in after
        if after[name] != before.get(name, 0) and "/metrics" not in name
    }
    assert sorted(added.values()) == [1, 1, 1, 1], added
    statuses = sorted(re.search(r'status="(\d+)"', name).group(1) for name in added)
    assert statuses == ["400", "405", "414", "431"], added
    time.sleep(0.3)
    log = served[0].log.read_text()
    assert "Traceback" not in log and "ERROR" not in log
    assert re.search(r"method=FOO path=\S* status=405 ", log)
    assert re.search(r"method=GET path=/x\?a{2000,}\.\.\.\[\d+ bytes\] status=414 ", log)


def test_a_request_that_got_no_answer_is_counted_as_none(served, keys):
    """Two requests whose apps ran but whose clients got nothing: a body that breaks off
    into bytes that are no chunk (closed at once, no 2xx), and one the client abandons.
    Starlette's 500 for the ClientDisconnect was never sent: they count as status 0."""
    server, context = served
    head = (
        b"POST /v1/maps/parse HTTP/1.1\r\nHost: localhost\r\nAPI-Key: "
        + keys.full.encode()
        + b"\r\nContent-Type: image/svg+xml\r\n"
    )
    before = metrics_counts(served)
    with open_tls(server, context) as sock:
        sock.sendall(head + b"Transfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n")
        assert seconds_until_closed(sock, time.monotonic(), 5)[1] == b""
    with open_tls(server, context) as sock:
        sock.sendall(head + b"Content-Length: 10\r\n\r\n<svg")
        time.sleep(0.3)
    time.sleep(0.5)
    after = metrics_counts(served)
    added = {
        name: after[name] - before.get(name, 0)
        for name in after
        if after[name] != before.get(name, 0) and "/metrics" not in name
    }
    assert added == {'floorgate_requests_total{method="POST",route="parseUnitMap",status="0"}': 2}
    lines = [line for line in server.log.read_text().splitlines() if "path=/v1/maps/parse " in line]
    assert [line.split(" ms=")[0].split("path=")[1] for line in lines[-2:]] == [
        "/v1/maps/parse status=-"
    ] * 2
    assert all(line.endswith(" cut=true") for line in lines[-2:])


# -- finding 7: request line and head are capped ---------------------------------------------


def test_an_8_mb_header_is_431_json(served):
    raw = request_with_head(b"/healthz", b"X-Big: " + b"b" * (8 * 1024 * 1024) + b"\r\n")
    refused_as_json(exchange(served, raw), 431, TOO_LARGE)


def test_many_small_headers_over_the_limit_are_431_json(served):
    line = b"X-Many: " + b"m" * 40 + b"\r\n"
    raw = request_with_head(b"/healthz", line * (MAX_HEADER_BYTES // len(line) + 50))
    refused_as_json(exchange(served, raw), 431, TOO_LARGE)


def test_40_connections_sending_1_mb_heads_grow_rss_less_than_100_mb(served):
    """Each connection sends its 1 MB header in pieces, all at once; each is refused and
    closed after about 32 KB of it, so the server never holds the rest."""
    server, context = served
    count, size, piece = 40, 1024 * 1024, 64 * 1024
    before = rss_mb(server.process.pid)
    answers: list[bytes] = []

    def attack() -> None:
        with open_tls(server, context) as sock:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: ")
            sent = 0
            try:
                while sent < size:
                    sock.sendall(b"b" * piece)
                    sent += piece
            except OSError:
                pass
            sock.settimeout(10)
            received = b""
            try:
                while chunk := sock.recv(65536):
                    received += chunk
            except OSError:
                pass
            answers.append(received)

    with raised_fd_limit(count + 100):
        threads = [threading.Thread(target=attack) for _ in range(count)]
        for thread in threads:
            thread.start()
        peak = before
        while any(thread.is_alive() for thread in threads):
            peak = max(peak, rss_mb(server.process.pid))
            time.sleep(0.02)
        for thread in threads:
            thread.join()
    peak = max(peak, rss_mb(server.process.pid))
    assert len(answers) == count
    assert all(
        answer.startswith(b"HTTP/1.1 431 ") and answer.endswith(TOO_LARGE) for answer in answers
    ), answers[:2]
    assert peak - before < 100, (before, peak)


# -- finding 6: the access log holds and writes bounded fields ---------------------------------


def test_1000_keyless_requests_with_64_kb_queries_hold_nothing(served):
    """The original attack: 1,000 keyless requests whose query strings are 64 KB. Each is
    refused (414) before routing, its access line shows at most MAX_LOGGED_FIELD
    characters of the target, no line of the output is over MAX_LOG_LINE, and RSS stays
    flat (the first 200 requests warm up the allocator and TLS buffers). Each request is
    bytes built once, on a connection of its own that resumes the TLS session of the one
    before (tests/raw_requests.py): the client's cost was most of the test's."""
    server, context = served
    target = b"/v1/assets?q=" + b"a" * (64 * 1024 - 200)  # as httpx sent them: up to 64 KiB
    requests = [request_with_head(target + b"%d" % number) for number in range(1000)]
    answers = answers_on_closing_connections(server, context, requests[:200])
    before = rss_mb(server.process.pid)
    answers += answers_on_closing_connections(server, context, requests[200:])
    after = rss_mb(server.process.pid)
    statuses = {int(answer.split(b" ", 2)[1]) for answer in answers}
    assert statuses == {414}
    assert after - before < 8, (before, after)
    time.sleep(0.3)
    lines = server.log.read_text().splitlines()
    assert max(len(line) for line in lines) <= MAX_LOG_LINE
    refused = [line for line in lines if " path=/v1/assets?q=aaa" in line and "status=414" in line]
    assert len(refused) >= 1000, lines[-3:]
    for line in refused:  # the target as read when refused, cut, with its size
        target = re.search(r" path=(.+?) status=414 ", line).group(1)
        assert re.fullmatch(
            rf"/v1/assets\?q=a{{{MAX_LOGGED_FIELD - 13}}}\.\.\.\[\d+ bytes\]", target
        ), target


def test_an_access_line_keeps_only_what_it_writes():
    """The line object (held by a log record until a handler writes it) keeps about
    MAX_LOGGED_FIELD bytes of a 64 KB query, and redacts a key cut at the edge."""
    query = (
        b"q="
        + b"a" * (MAX_LOGGED_FIELD - 40)
        + b"&api-key=fg_0123456789abcdefghijklmnop"
        + (b"b" * 64_000)
    )
    line = AccessLine("GET", b"/v1/assets", query, 401, 1.0, "10.0.0.1", "0" * 16)
    assert sys.getsizeof(line.query) < MAX_LOGGED_FIELD + 300
    text = str(line)
    assert "fg_0123" not in text and "api-key=[redacted]" in text
    assert text.endswith(
        f"...[{len(query) + 11} bytes] status=401 ms=1.0 client=10.0.0.1 id={'0' * 16}"
    )


def test_no_log_line_is_longer_than_16_kb():
    """A message with a huge argument, and a huge traceback, are cut (start and end kept)."""
    try:
        raise ValueError("x" * 100_000)
    except ValueError:
        record = logging.LogRecord(
            "floorgate", logging.ERROR, __file__, 1, "failed: %s", ("y" * 100_000,), sys.exc_info()
        )
    assert RedactKeys().filter(record)
    assert len(logging.Formatter().format(record)) <= 2 * MAX_LOG_LINE + 1
    assert len(record.getMessage()) <= MAX_LOG_LINE
    assert record.getMessage().startswith("failed: yyy") and record.getMessage().endswith("yyy")
    assert len(record.exc_text) <= MAX_LOG_LINE
    assert record.exc_text.startswith("Traceback") and "ValueError: " in record.exc_text
    assert "characters left out" in record.exc_text


# -- finding 13: redirects never name the Host header -------------------------------------------


@pytest.mark.parametrize(
    ("path", "location"),
    [
        ("/graphql/", "/graphql"),
        ("/healthz/", "/healthz"),
        ("/files", "/files/"),
        ("/static/graphiql", "/static/graphiql/"),
        ("/viewer/static/0123abcd", "/viewer/static/0123abcd/"),
        ("/graphql/?query=%7B__typename%7D", "/graphql?query=%7B__typename%7D"),
    ],
)
async def test_redirects_are_relative_whatever_the_host(client, path, location):
    response = await client.get(path, headers={"Host": "evil.example"})
    assert response.status_code == 307
    assert response.headers["location"] == location


async def test_a_redirect_with_repeated_slashes_stays_on_this_host(client):
    """A Location beginning `//` would name another host: trailing slashes all go."""
    response = await client.get("/healthz//", headers={"Host": "evil.example"})
    assert (response.status_code, response.headers["location"]) == (307, "/healthz")
