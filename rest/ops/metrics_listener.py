"""The metrics port (`FLOORGATE_METRICS_PORT`): `/metrics` over plain HTTP, without a
key, on an address and port of its own, for a cluster's Prometheus (docs/deploy.md,
"Metrics in a cluster").

It runs in the `floorgate serve` process itself (uvicorn's supervisor with `--workers
N`), in a thread, apart from the workers and their event loops: it answers while a worker
restarts, and a scrape costs no worker anything but the write of its figures each second.
What it shows is what `/metrics` shows, read from the folder every worker writes its
figures to (`rest.ops.metrics_folder`): the sum over every worker, each worker's at most
`WRITE_SECONDS` old. It serves `GET /metrics` (and `HEAD`) alone: any other path is our
JSON 404, any other method 405, one request per connection; a client that takes longer
than `FLOORGATE_HEADER_TIMEOUT_SECONDS` is dropped, and at most `MAX_SCRAPES` are
answered at once (more are closed unanswered).

Its safety is where it is bound: loopback by default (`FLOORGATE_METRICS_HOST`); a pod's
or a private network's address for a scraper elsewhere. Anyone who reaches it reads the
figures (no data, no key: route templates, counts, durations).
"""

from __future__ import annotations

import contextlib
import socket
import sys
import threading
from collections.abc import Iterator
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import orjson

from resolvers.errors import ERRORS, ErrorCode
from rest.ops.figures import Figures
from rest.ops.metrics import METRICS_PATH, render
from rest.ops.metrics_folder import MetricsFolder
from storage.settings import Settings, SettingsError

MAX_SCRAPES = 8  # answered at once; a scraper asks every few seconds
NO_WORKER = 0  # no process has id 0: every worker's file counts (`MetricsFolder.others`)
ERROR_CODES = {404: ErrorCode.NOT_FOUND, 405: ErrorCode.METHOD_NOT_ALLOWED}


def every_worker(folder: Path) -> Figures:
    """The figures of every worker of the run, as their files hold them."""
    figures = Figures()
    MetricsFolder(folder, worker=NO_WORKER).add_others(figures)
    return figures


def listener_problem(settings: Settings) -> str | None:
    """Why the metrics port cannot be served as set (one line for `floorgate serve`,
    said before anything starts), or None."""
    port = settings.metrics_port
    if port is None:
        return None
    if not settings.metrics:
        return "FLOORGATE_METRICS_PORT serves /metrics, which FLOORGATE_METRICS=off turns off"
    if port == settings.port:
        return (
            f"FLOORGATE_METRICS_PORT {port} is the API's port too (FLOORGATE_PORT): choose another"
        )
    return None


class _Handler(BaseHTTPRequestHandler):
    """GET /metrics; our JSON errors for anything else."""

    server: _Server
    protocol_version = "HTTP/1.1"
    error_content_type = "application/json"

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.timeout_seconds)  # each read and write

    def do_GET(self) -> None:
        self.answer(send_body=True)

    def do_HEAD(self) -> None:
        self.answer(send_body=False)

    def answer(self, send_body: bool) -> None:
        if self.path.split("?", 1)[0] != METRICS_PATH:
            self.send_error(404)
            return
        body, media_type = render(every_worker(self.server.folder))
        self.send_response(200)
        self.send_header("Content-Type", media_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "close")
        self.end_headers()
        if send_body:
            self.wfile.write(body)
        self.close_connection = True

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The API's error body (`{"message": ...}`), not http.server's HTML page; every
        method but GET and HEAD is 405 (http.server says 501)."""
        if code == 501:
            code = 405
        known = ERROR_CODES.get(code)
        text = ERRORS[known].message if known else HTTPStatus(code).phrase
        body = orjson.dumps({"message": text})
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        if code == 405:
            self.send_header("Allow", "GET, HEAD")
        self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
        self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:
        """No line per scrape (one every few seconds, for ever)."""


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], folder: Path, timeout_seconds: float) -> None:
        self.address_family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        self.folder = folder
        self.timeout_seconds = timeout_seconds
        self.slots = threading.BoundedSemaphore(MAX_SCRAPES)
        super().__init__(address, _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self.slots.acquire(blocking=False):
            self.shutdown_request(request)  # too many at once: closed unanswered
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()


@contextlib.contextmanager
def metrics_listener(settings: Settings, folder: Path | None) -> Iterator[None]:
    """The metrics port while the block runs, when `FLOORGATE_METRICS_PORT` is set. A port
    that cannot be bound is a SettingsError (one line, exit status 2)."""
    port = settings.metrics_port
    if port is None:
        yield
        return
    if folder is None:  # no folder could be made (said already): nothing to read
        print("floorgate serve: the metrics port is not served", file=sys.stderr)
        yield
        return
    address = (settings.metrics_host, port)
    try:
        server = _Server(address, folder, settings.header_timeout_seconds)
    except OSError as error:
        raise SettingsError(
            f"FLOORGATE_METRICS_PORT: cannot listen on {settings.metrics_host} port {port}: "
            f"{error.strerror or error}"
        ) from None
    thread = threading.Thread(target=server.serve_forever, name="metrics-port", daemon=True)
    thread.start()
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()
