"""Connections that hang are closed, and many of them do not slow anyone else down:
`floorgate serve` as a real process over real TLS, spoken to with raw sockets. Each
guard is tested on the fast path (uvloop, httptools) and on the fallback (asyncio, h11).

Timings are measured from just before the client connects; the server's clock starts
at accept, a little later, so "closed at" is never early by more than a few ms."""

from __future__ import annotations

import contextlib
import resource
import socket
import ssl
import statistics
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.servers import Served, serve_tls, serve_tls_with_args

# serial: timeouts are asserted to a few ms and latency medians to 20 ms, which other
# tests' load on the same cores would break.
pytestmark = [pytest.mark.e2e, pytest.mark.serial]

HEADER_TIMEOUT = 1.5
KEEPALIVE_TIMEOUT = 0.7
SEND_TIMEOUT = 1.0
BIG_FILE = "/static/graphiql/graphiql.min.js"  # 3.5 MB, public: far more than any buffer
SMALL_FILE = "/static/graphiql/graphiql.min.css"  # 425 KB
PARTIAL_HEAD = b"GET /healthz HTTP/1.1\r\nHost: x\r\n"  # no blank line: the head goes on
FULL_REQUEST = b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n"
HEALTHY = b'{"status":"ok"}'


# -- raw clients ---------------------------------------------------------------------


def client_context(served: Served) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=str(served.certs.ca_cert))


def open_tcp(served: Served) -> socket.socket:
    return socket.create_connection(("127.0.0.1", served.port), timeout=5)


def open_tls(served: Served, context: ssl.SSLContext) -> ssl.SSLSocket:
    raw = open_tcp(served)
    try:
        return context.wrap_socket(raw, server_hostname="localhost")
    except BaseException:
        raw.close()
        raise


def is_open(sock: socket.socket) -> bool:
    """Without waiting: True while the server has neither closed nor reset `sock`."""
    sock.settimeout(0)
    try:
        data = sock.recv(1)
    except (BlockingIOError, ssl.SSLWantReadError):
        return True
    except (ConnectionError, ssl.SSLError):
        return False
    return data != b""  # b"": closed; anything else would be an unexpected answer


def seconds_until_closed(
    sock: socket.socket, started: float, limit: float, dribble: bytes = b""
) -> tuple[float, bytes]:
    """Wait until the server closes `sock` (at most `limit` s after `started`); the seconds
    it took and what the server sent meanwhile. With `dribble`, send one byte of it every
    0.25 s while waiting, as a slow client would."""
    received = b""
    while True:
        remaining = started + limit - time.monotonic()
        if remaining <= 0:
            raise AssertionError(f"still open after {limit} s")
        sock.settimeout(min(remaining, 0.25) if dribble else remaining)
        try:
            data = sock.recv(4096)
        except TimeoutError:
            if dribble:
                with contextlib.suppress(OSError):
                    sock.sendall(dribble[:1])
                dribble = dribble[1:] or dribble
            continue
        except (ConnectionError, ssl.SSLError):
            data = b""
        if not data:
            return time.monotonic() - started, received
        received += data


def read_head(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """A response head: status, headers (names in lower case), and the bytes of the body
    that came with it."""
    buffer = b""
    while b"\r\n\r\n" not in buffer:
        chunk = sock.recv(65536)
        assert chunk, f"closed before a response head: {buffer!r}"
        buffer += chunk
    head, _, body = buffer.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(status_line.split()[1]), headers, body


def read_response(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """One HTTP/1.1 response with a Content-Length body: status, headers, body."""
    sock.settimeout(10)
    status, headers, body = read_head(sock)
    length = int(headers["content-length"])
    while len(body) < length:
        chunk = sock.recv(65536)
        assert chunk, "closed inside a response body"
        body += chunk
    assert len(body) == length
    return status, headers, body


def wait_until_ready(served: Served, context: ssl.SSLContext, timeout: float = 30) -> None:
    """The port listens before every worker has built the app; wait for an answer."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with httpx.Client(verify=context, base_url=served.base, timeout=5) as client:
                if client.get("/healthz").status_code == 200:
                    return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise AssertionError("floorgate serve did not answer in time")
        time.sleep(0.2)


@contextlib.contextmanager
def raised_fd_limit(needed: int) -> Iterator[None]:
    """Raise this process's soft limit of open files to `needed` (if the hard limit lets)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= needed:
        yield
        return
    if hard != resource.RLIM_INFINITY and hard < needed:
        pytest.skip(f"needs {needed} open files, the hard limit is {hard}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


# -- servers -------------------------------------------------------------------------

IMPLEMENTATIONS = {
    "uvloop-httptools": {"FLOORGATE_LOOP": "uvloop", "FLOORGATE_HTTP": "httptools"},
    "asyncio-h11": {"FLOORGATE_LOOP": "asyncio", "FLOORGATE_HTTP": "h11"},
}


@pytest.fixture(scope="module", params=IMPLEMENTATIONS)
def implementation(request) -> dict[str, str]:
    """The environment that picks the event loop and HTTP parser (rest/ops/server.py)."""
    if request.param == "uvloop-httptools":
        pytest.importorskip("uvloop")
        pytest.importorskip("httptools")
    return IMPLEMENTATIONS[request.param]


@pytest.fixture(scope="module")
def timed(
    tmp_path_factory, db_server, settings, implementation
) -> Iterator[tuple[Served, ssl.SSLContext]]:
    """Short timeouts, so that each test waits about a second."""
    env = {
        "FLOORGATE_HEADER_TIMEOUT_SECONDS": str(HEADER_TIMEOUT),
        "FLOORGATE_KEEPALIVE_TIMEOUT_SECONDS": str(KEEPALIVE_TIMEOUT),
        "FLOORGATE_SEND_TIMEOUT_SECONDS": str(SEND_TIMEOUT),
        **implementation,
    }
    with serve_tls(tmp_path_factory.mktemp("timed"), db_server, settings, **env) as served:
        context = client_context(served)
        wait_until_ready(served, context)
        yield served, context


# -- the head timeout, the handshake included ------------------------------------------


def test_tcp_without_tls_is_closed_at_the_header_timeout(timed):
    served, _ = timed
    started = time.monotonic()
    with open_tcp(served) as sock:
        sock.settimeout(0.3)
        with pytest.raises(TimeoutError):  # not closed early: still open at 0.3 s
            sock.recv(1)
        elapsed, sent = seconds_until_closed(sock, started, HEADER_TIMEOUT + 1)
    assert sent == b""
    assert HEADER_TIMEOUT - 0.05 <= elapsed <= HEADER_TIMEOUT + 0.8


def test_tls_without_a_request_is_closed_at_the_header_timeout(timed):
    served, context = timed
    started = time.monotonic()
    with open_tls(served, context) as sock:
        assert is_open(sock)
        elapsed, sent = seconds_until_closed(sock, started, HEADER_TIMEOUT + 1)
    assert sent == b""
    assert HEADER_TIMEOUT - 0.05 <= elapsed <= HEADER_TIMEOUT + 0.8


def test_partial_head_is_closed_at_the_header_timeout(timed):
    served, context = timed
    started = time.monotonic()
    with open_tls(served, context) as sock:
        sock.sendall(PARTIAL_HEAD)
        sock.settimeout(0.3)
        with pytest.raises(TimeoutError):
            sock.recv(1)
        elapsed, sent = seconds_until_closed(sock, started, HEADER_TIMEOUT + 1)
    assert sent == b""  # no answer: there is no request to answer
    assert HEADER_TIMEOUT - 0.05 <= elapsed <= HEADER_TIMEOUT + 0.8


def test_a_head_sent_slowly_is_closed_at_the_header_timeout_not_per_byte(timed):
    """A byte every 0.25 s (slowloris) does not reset the head timer."""
    served, context = timed
    started = time.monotonic()
    with open_tls(served, context) as sock:
        sock.sendall(PARTIAL_HEAD)
        elapsed, sent = seconds_until_closed(
            sock, started, HEADER_TIMEOUT + 1, dribble=b"X-Slow: abcdefghijklmnop"
        )
    assert sent == b""
    assert HEADER_TIMEOUT - 0.05 <= elapsed <= HEADER_TIMEOUT + 0.8


# -- keep-alive ------------------------------------------------------------------------


def test_idle_keep_alive_is_closed_at_the_keepalive_timeout(timed):
    served, context = timed
    with open_tls(served, context) as sock:
        sock.sendall(FULL_REQUEST)
        status, headers, body = read_response(sock)
        answered = time.monotonic()
        assert (status, body) == (200, HEALTHY)
        assert "close" not in headers.get("connection", "")  # kept alive
        elapsed, sent = seconds_until_closed(sock, answered, KEEPALIVE_TIMEOUT + 1)
    assert sent == b""
    # The keep-alive timer (0.7 s), not the head timer (1.5 s), closed it.
    assert KEEPALIVE_TIMEOUT - 0.05 <= elapsed <= KEEPALIVE_TIMEOUT + 0.6


def test_keep_alive_serves_requests_past_the_first_head_deadline(timed):
    """Each request that comes within the keep-alive timeout is served, for longer than
    the header timeout in all: a complete head stops its timer."""
    served, context = timed
    started = time.monotonic()
    with open_tls(served, context) as sock:
        for _ in range(5):
            sock.sendall(FULL_REQUEST)
            assert read_response(sock)[::2] == (200, HEALTHY)
            time.sleep(KEEPALIVE_TIMEOUT - 0.2)
        sock.sendall(FULL_REQUEST)
        assert read_response(sock)[::2] == (200, HEALTHY)
    assert time.monotonic() - started > HEADER_TIMEOUT + 0.5


def test_a_slow_second_head_on_keep_alive_is_closed_at_the_header_timeout(timed):
    """The head timer starts again at the first byte of the next request: the connection
    is closed neither by the keep-alive timer (which that byte stops) nor by the first
    request's deadline, but a full header timeout after that byte, slow bytes or not."""
    served, context = timed
    with open_tls(served, context) as sock:
        sock.sendall(FULL_REQUEST)
        assert read_response(sock)[::2] == (200, HEALTHY)
        time.sleep(KEEPALIVE_TIMEOUT / 2)
        second = time.monotonic()
        sock.sendall(PARTIAL_HEAD)
        elapsed, sent = seconds_until_closed(
            sock, second, HEADER_TIMEOUT + 1, dribble=b"X-Slow: abcdefghijklmnop"
        )
    assert sent == b""
    assert HEADER_TIMEOUT - 0.05 <= elapsed <= HEADER_TIMEOUT + 0.8


# -- the send timeout: an answer the client stops reading ------------------------------


def open_narrow_tls(served: Served, context: ssl.SSLContext) -> ssl.SSLSocket:
    """A TLS connection whose receive window is small (set before connecting), so that
    what the client does not read stays in the server's buffers, not in the kernel's."""
    raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
    raw.settimeout(5)
    raw.connect(("127.0.0.1", served.port))
    return context.wrap_socket(raw, server_hostname="localhost")


def get_heads(sock: ssl.SSLSocket, path: str, count: int = 1) -> tuple[int, int, bytes]:
    """Send `count` pipelined `GET path` and read the first head: its status, its
    Content-Length, and the bytes after the head so far."""
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n".encode() * count)
    status, headers, body = read_head(sock)
    return status, int(headers["content-length"]), body


def read_at_most(sock: ssl.SSLSocket, wanted: int, seconds: float) -> tuple[bytes, bool]:
    """Read until `wanted` bytes came, the server closed (True), or `seconds` passed."""
    received = b""
    deadline = time.monotonic() + seconds
    while len(received) < wanted and time.monotonic() < deadline:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            break
        except (ConnectionError, ssl.SSLError):
            return received, True
        if not chunk:
            return received, True
        received += chunk
    return received, False


def kernel_send_buffer() -> int:
    """The most a TCP socket's send buffer grows to here (Linux autotuning): an answer
    smaller than this can sit in the kernel whole, and the server never waits."""
    try:
        return int(Path("/proc/sys/net/ipv4/tcp_wmem").read_text().split()[2])
    except (OSError, IndexError, ValueError):
        return 4 * 1024 * 1024


def test_an_answer_not_read_is_cut_off_at_the_send_timeout(timed):
    """A client that asks for large answers and stops reading (a slow-read attack) holds
    them in the server's memory only until the send timeout: then the connection is
    dropped, with most of the answers never sent. Pipelined requests of a 3.5 MB file
    add up to twice what the kernel may buffer, so the server itself has to wait."""
    served, context = timed
    size = 3_513_580
    count = 2 * kernel_send_buffer() // size + 2
    with open_narrow_tls(served, context) as sock:
        status, length, body = get_heads(sock, BIG_FILE, count)
        assert (status, length) == (200, size)
        time.sleep(SEND_TIMEOUT + 1.0)  # reads nothing: the server's buffers fill up
        rest, closed = read_at_most(sock, count * size, 10.0)
    received = len(body) + len(rest)
    assert closed, f"the connection was still open after {received} of {count * size} bytes"
    assert received < count * size // 2, (received, count * size)
    assert latency(served, context, "/healthz", {}, HEALTHY) < 5  # the server goes on
    cut = access_lines(served, f"path={BIG_FILE} status=200 ", " cut=true")
    assert len(cut) == 1, cut  # the answer under way; the pipelined ones never started


def access_lines(served: Served, part: str, end: str, seconds: float = 5.0) -> list[str]:
    """The server's access lines holding `part` and ending in `end` (waited for: a line
    is written when its request's task ends)."""
    deadline = time.monotonic() + seconds
    while True:
        found = [
            line
            for line in served.log.read_text().splitlines()
            if part in line and line.endswith(end)
        ]
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def test_a_slow_reader_that_keeps_reading_gets_the_whole_answer(timed):
    """The timeout is on progress, not on the whole answer: a client reading 32 KB every
    0.1 s (far slower than it could) takes longer than the send timeout in all and gets
    every byte."""
    served, context = timed
    started = time.monotonic()
    with open_narrow_tls(served, context) as sock:
        status, length, body = get_heads(sock, SMALL_FILE)
        assert status == 200 and length > 400_000
        while len(body) < length:
            chunk, closed = read_at_most(sock, min(32768, length - len(body)), 2.0)
            assert not closed and chunk, f"cut off after {len(body)} of {length} bytes"
            body += chunk
            time.sleep(0.1)
    assert len(body) == length
    assert time.monotonic() - started > SEND_TIMEOUT
    lines = access_lines(served, f"path={SMALL_FILE} status=200 ", "")
    assert lines and not [line for line in lines if "cut=" in line], lines


# -- many hanging connections ------------------------------------------------------------


def latency(
    served: Served, context: ssl.SSLContext, path: str, headers: dict[str, str], body: bytes
) -> float:
    """Seconds for one request on a new connection (TCP, TLS, request, answer)."""
    started = time.monotonic()
    with httpx.Client(verify=context, base_url=served.base, timeout=10) as client:
        response = client.get(path, headers=headers)
    elapsed = time.monotonic() - started
    assert response.status_code == 200
    assert body in response.content
    return elapsed


def test_a_flood_of_hanging_connections_does_not_slow_requests(
    tmp_path, db_server, settings, keys, capsys
):
    """1,000 connections that never start TLS and 300 that stop inside their request
    head, held at once, while normal requests are timed (the flood stays open meanwhile:
    the default header timeout of 15 s is far longer than the test)."""
    tcp_count, tls_count, samples = 1000, 300, 7
    with (
        raised_fd_limit(tcp_count + tls_count + 200),
        serve_tls(tmp_path, db_server, settings, FLOORGATE_HEADER_TIMEOUT_SECONDS="15") as served,
    ):
        context = client_context(served)
        wait_until_ready(served, context)
        probes = {
            "/healthz": ({}, HEALTHY),
            "/v1/assets?per-page=1": ({"API-Key": keys.full}, b'"data":[{"id":"asset-1",'),
        }

        def measure() -> dict[str, list[float]]:
            return {
                path: [latency(served, context, path, headers, body) for _ in range(samples)]
                for path, (headers, body) in probes.items()
            }

        measure()  # warm up (first requests build caches)
        before = measure()
        flood: list[socket.socket] = []
        try:
            flood_started = time.monotonic()
            for _ in range(tcp_count):
                flood.append(open_tcp(served))
            for _ in range(tls_count):
                sock = open_tls(served, context)
                flood.append(sock)
                sock.sendall(PARTIAL_HEAD)
            opened = time.monotonic() - flood_started
            during = measure()
            assert sum(is_open(sock) for sock in flood) == tcp_count + tls_count  # still held
            assert time.monotonic() - flood_started < 15  # inside the header timeout
        finally:
            for sock in flood:
                sock.close()
    for path in probes:
        usual, loaded = statistics.median(before[path]), statistics.median(during[path])
        with capsys.disabled():
            print(
                f"\n{path}: before median {usual * 1000:.1f} ms max "
                f"{max(before[path]) * 1000:.1f} ms; during median {loaded * 1000:.1f} ms "
                f"max {max(during[path]) * 1000:.1f} ms; flood opened in {opened:.2f} s"
            )
        assert loaded < 5 * usual + 0.2, (path, before[path], during[path])


# -- the connection limit ---------------------------------------------------------------------


def test_over_max_connections_answers_json_503(tmp_path, db_server, settings, implementation):
    """Five connections are served; a sixth gets the API's 503 and is closed; once one of
    the five goes, a new one is served again."""
    with serve_tls(
        tmp_path,
        db_server,
        settings,
        FLOORGATE_MAX_CONNECTIONS="5",
        FLOORGATE_KEEPALIVE_TIMEOUT_SECONDS="30",
        **implementation,
    ) as served:
        context = client_context(served)
        wait_until_ready(served, context)
        held: list[ssl.SSLSocket] = []
        try:
            for _ in range(5):  # each answered, then kept alive: the server counts it
                sock = open_tls(served, context)
                held.append(sock)
                sock.sendall(FULL_REQUEST)
                assert read_response(sock)[::2] == (200, HEALTHY)
            with open_tls(served, context) as extra:
                extra.sendall(FULL_REQUEST)
                status, headers, body = read_response(extra)
                assert status == 503
                assert body == b'{"message":"Service unavailable"}'
                assert headers["content-type"] == "application/json"
                assert headers["retry-after"] == "5"
                assert headers["connection"] == "close"
                assert seconds_until_closed(extra, time.monotonic(), 2)[1] == b""
            held.pop().close()
            deadline = time.monotonic() + 3
            while True:  # until the server has seen the close
                with open_tls(served, context) as again:
                    again.sendall(FULL_REQUEST)
                    status = read_response(again)[0]
                if status == 200 or time.monotonic() > deadline:
                    break
                time.sleep(0.05)
            assert status == 200
        finally:
            for sock in held:
                sock.close()


# -- several workers ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def two_workers(
    tmp_path_factory, db_server, settings, implementation
) -> Iterator[tuple[Served, ssl.SSLContext]]:
    """`floorgate serve --workers 2` with the short head timeout, shared by the tests of
    several workers (each start of two workers costs seconds)."""
    env = {"FLOORGATE_HEADER_TIMEOUT_SECONDS": str(HEADER_TIMEOUT), **implementation}
    folder = tmp_path_factory.mktemp("workers")
    with serve_tls_with_args(folder, db_server, settings, ("--workers", "2"), **env) as served:
        context = client_context(served)
        wait_until_ready(served, context, timeout=60)
        yield served, context


def test_timeouts_hold_with_several_workers(two_workers):
    """`--workers 2` spawns processes that import the protocol and loop by name."""
    served, context = two_workers
    started = time.monotonic()
    with open_tcp(served) as bare, open_tls(served, context) as partial:
        partial.sendall(PARTIAL_HEAD)
        for sock in (bare, partial):
            elapsed, sent = seconds_until_closed(sock, started, HEADER_TIMEOUT + 1)
            assert sent == b""
            assert HEADER_TIMEOUT - 0.05 <= elapsed <= HEADER_TIMEOUT + 0.8
    with open_tls(served, context) as sock:
        sock.sendall(FULL_REQUEST)
        assert read_response(sock)[::2] == (200, HEALTHY)


def test_keep_alive_answers_are_not_held_back_with_several_workers(two_workers):
    """With `--workers`, uvicorn hands each worker a listening socket asyncio does not
    know as TCP, so it never set TCP_NODELAY: each answer's second segment waited for
    the client's delayed ACK, about 40 ms a request (issue 15). Now under 20 ms."""
    served, context = two_workers
    with open_tls(served, context) as sock:
        sock.sendall(FULL_REQUEST)
        assert read_response(sock)[::2] == (200, HEALTHY)
        times = []
        for _ in range(20):
            started = time.perf_counter()
            sock.sendall(FULL_REQUEST)
            assert read_response(sock)[::2] == (200, HEALTHY)
            times.append(time.perf_counter() - started)
    assert statistics.median(times) < 0.020, sorted(times)
