"""Issue 15, item 3: the fast HTTP path. uvloop and httptools where installed (asyncio and
h11 otherwise, or as chosen), our structured access line instead of uvicorn's (off by a
setting, never holding a key), and the collector settled after start-up.

The connection guards on both paths are tested in tests/e2e/test_connections.py."""

from __future__ import annotations

import json
import logging
import os
import re
import ssl
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import httpx
import pytest

from rest.app import SERVING_GC_THRESHOLDS
from rest.ops import logs as rest_logs
from rest.ops import server
from rest.ops.logs import REDACTED, AccessLine, RedactKeys, log_config
from rest.ops.server import implementations, uvicorn_options
from rest.ops.tls import ensure_local_certificates
from storage.settings import Settings
from tests.servers import FLOORGATE, free_port, serve_tls

FAST = {"loop": "uvloop", "http": "httptools"}
FALLBACK = {"loop": "asyncio", "http": "h11"}
LINE = re.compile(
    r"method=(\S+) path=(\S+) status=(\S+) ms=(\d+\.\d) client=(\S+) "
    r"id=([0-9a-f]{16})"
)


def fast_path_installed() -> bool:
    return all(server.installed(module) for module in ("uvloop", "httptools"))


needs_fast_path = pytest.mark.skipif(
    not fast_path_installed(), reason="uvloop or httptools is not installed"
)


# -- settings and the choice -------------------------------------------------------------


def test_settings_read_the_loop_the_parser_and_the_access_log(monkeypatch):
    assert (Settings().event_loop, Settings().http_parser, Settings().access_log) == (
        "auto",
        "auto",
        True,
    )
    monkeypatch.setenv("FLOORGATE_LOOP", "AsyncIO")
    monkeypatch.setenv("FLOORGATE_HTTP", "h11")
    monkeypatch.setenv("FLOORGATE_ACCESS_LOG", "off")
    settings = Settings.from_env()
    assert (settings.event_loop, settings.http_parser, settings.access_log) == (
        "asyncio",
        "h11",
        False,
    )
    monkeypatch.setenv("FLOORGATE_ACCESS_LOG", "on")
    assert Settings.from_env().access_log is True


@needs_fast_path
def test_auto_takes_the_fast_path_where_installed():
    assert implementations(Settings()) == FAST
    options = uvicorn_options(Settings(max_connections=7, keepalive_timeout_seconds=3))
    assert options == {
        "http": "rest.ops.server:GuardedHttpToolsProtocol",
        "loop": "rest.ops.server:new_uvloop",
        "timeout_keep_alive": 3,
        "limit_concurrency": 7,
        "access_log": False,
        "h11_max_incomplete_event_size": 32 * 1024,
        "ws_max_size": 1024 * 1024 + 256 * 1024,  # a document and its variables
        "ws": "rest.ops.websocket_protocol:ClosingWebSockets",
    }


def test_auto_falls_back_without_uvloop_and_httptools(monkeypatch):
    monkeypatch.setattr(server, "installed", lambda module: module not in ("uvloop", "httptools"))
    assert implementations(Settings()) == FALLBACK
    assert uvicorn_options(Settings())["http"] == "rest.ops.server:GuardedH11Protocol"
    assert uvicorn_options(Settings())["loop"] == "rest.ops.server:new_asyncio_loop"
    with pytest.raises(ValueError) as refused:
        implementations(Settings(http_parser="httptools"))
    assert str(refused.value) == "FLOORGATE_HTTP=httptools, but httptools is not installed"


def test_an_unknown_choice_is_refused():
    with pytest.raises(ValueError) as refused:
        implementations(Settings(event_loop="tokio"))
    assert str(refused.value) == "FLOORGATE_LOOP must be auto, uvloop or asyncio, not 'tokio'"
    with pytest.raises(ValueError) as refused:
        implementations(Settings(http_parser="zttp"))
    assert str(refused.value) == "FLOORGATE_HTTP must be auto, httptools or h11, not 'zttp'"


def test_both_protocols_carry_the_guards():
    """Each is made on first use (the fast path never imports h11), from the same mixin."""
    for name in ("GuardedHttpToolsProtocol", "GuardedH11Protocol"):
        protocol = getattr(server, name)
        assert protocol.__name__ == name
        assert protocol.__mro__[1] is server.ConnectionGuards
    with pytest.raises(AttributeError):
        server.NoSuchProtocol  # noqa: B018


def test_serve_refuses_a_choice_that_cannot_run_in_one_line(tmp_path):
    """Before the database starts (the URI points nowhere) and before any worker."""
    certs = ensure_local_certificates(tmp_path)
    result = subprocess.run(
        [
            FLOORGATE,
            "serve",
            "--cert",
            str(certs.cert),
            "--key",
            str(certs.key),
            "--port",
            str(free_port()),
        ],
        env={
            "PATH": "/usr/bin:/bin",
            "FLOORGATE_DATA_DIR": str(tmp_path),
            "FLOORGATE_MONGODB_URI": "mongodb://127.0.0.1:9/",
            "FLOORGATE_LOOP": "tokio",
            **({"PYTHONPATH": p} if (p := _pythonpath()) else {}),
        },
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        "floorgate serve: FLOORGATE_LOOP must be auto, uvloop or asyncio, not 'tokio'\n"
    )


def _pythonpath() -> str | None:
    return os.environ.get("PYTHONPATH")


# -- floorgate serve on each path ----------------------------------------------------------


def mapped_libraries(pid: int) -> str:
    """The shared objects a process has loaded (uvloop and httptools are C extensions)."""
    return Path(f"/proc/{pid}/maps").read_text()


@pytest.mark.e2e
@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs /proc")
@pytest.mark.parametrize(
    "path",
    [
        pytest.param(
            {"FLOORGATE_LOOP": "uvloop", "FLOORGATE_HTTP": "httptools"},
            id="fast",
            marks=needs_fast_path,
        ),
        pytest.param({"FLOORGATE_LOOP": "asyncio", "FLOORGATE_HTTP": "h11"}, id="fallback"),
    ],
)
def test_serve_runs_the_chosen_loop_and_parser_and_logs_each_request(
    tmp_path, db_server, settings, path
):
    with serve_tls(tmp_path, db_server, settings, **path) as served:
        context = ssl.create_default_context(cafile=str(served.certs.ca_cert))
        with httpx.Client(verify=context, base_url=served.base, timeout=10) as client:
            response = client.get("/healthz")
            assert (response.status_code, response.content) == (200, b'{"status":"ok"}')
            request_id = response.headers["x-request-id"]
            libraries = mapped_libraries(served.process.pid)
    fast = path["FLOORGATE_LOOP"] == "uvloop"
    assert ("/uvloop/loop." in libraries) is fast
    assert ("/httptools/parser/parser." in libraries) is fast
    output = (tmp_path / "serve.log").read_text()
    lines = [line for line in output.splitlines() if "method=" in line]
    assert len(lines) == 1, output
    match = LINE.search(lines[0])
    assert match is not None, lines[0]
    assert match.group(1, 2, 3, 5, 6) == ("GET", "/healthz", "200", "127.0.0.1", request_id)
    assert '"GET /healthz HTTP/1.1" 200' not in output  # uvicorn's own line is off


@pytest.mark.e2e
def test_serve_without_the_access_log(tmp_path, db_server, settings):
    with serve_tls(tmp_path, db_server, settings, FLOORGATE_ACCESS_LOG="off") as served:
        context = ssl.create_default_context(cafile=str(served.certs.ca_cert))
        with httpx.Client(verify=context, base_url=served.base, timeout=10) as client:
            for _ in range(3):
                assert client.get("/healthz").status_code == 200
    output = (tmp_path / "serve.log").read_text()
    assert "Application startup complete" in output
    assert "method=" not in output and "/healthz" not in output


# -- the access line -------------------------------------------------------------------------


@pytest.fixture
def access_lines() -> Iterator[list[str]]:
    """The lines `floorgate.access` writes, through the filter and format `floorgate
    serve` configures (rest/ops/logs.py), for the duration of a test."""
    lines: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(self.format(record))

    handler = Collect()
    handler.addFilter(RedactKeys())
    logger = logging.getLogger("floorgate.access")
    level, propagate = logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    try:
        yield lines
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
        logger.propagate = propagate


def fields(line: str) -> tuple[str, ...]:
    match = LINE.fullmatch(line)
    assert match is not None, line
    return match.groups()


async def test_one_structured_line_per_request(client, keys, access_lines):
    response = await client.get("/v1/assets?per-page=1", headers={"API-Key": keys.full})
    assert response.status_code == 200
    method, path, status, ms, peer, request_id = fields(access_lines[0])
    assert (method, path, status, peer) == ("GET", "/v1/assets?per-page=1", "200", "127.0.0.1")
    assert request_id == response.headers["x-request-id"]
    assert float(ms) > 0
    response = await client.post("/graphql", json={"query": "{ __typename }"})
    assert len(access_lines) == 2
    assert fields(access_lines[1])[:3] == ("POST", "/graphql", str(response.status_code))


async def test_no_key_in_an_access_line(client, keys, access_lines):
    """In the query (any case), percent-encoded (the app decodes it: still a key), and in
    the path. (A key as the method: `test_an_access_line_escapes_...`; httpx would
    upper-case it.)"""
    encoded = "%" + format(ord(keys.full[0]), "02X") + keys.full[1:]
    targets = [
        f"/v1/assets?api-key={keys.full}",
        f"/v1/assets?page=1&API-KEY={keys.scoped}",
        f"/v1/assets?api-key={encoded}",
        f"/v1/units/{keys.plain}",
    ]
    statuses = [(await client.get(target)).status_code for target in targets]
    # The encoded key was a key to the app; `API-KEY` is not its parameter (yet redacted).
    assert statuses == [200, 401, 200, 401]
    text = "\n".join(access_lines)
    for secret in (keys.full, keys.scoped, keys.plain, encoded):
        assert secret[3:] not in text
    paths = [fields(line)[1] for line in access_lines]
    assert paths[:4] == [
        f"/v1/assets?api-key={REDACTED}",
        f"/v1/assets?page=1&API-KEY={REDACTED}",
        f"/v1/assets?api-key={REDACTED}",
        f"/v1/units/fg_{REDACTED}",
    ]
    assert [fields(line)[2] for line in access_lines] == [str(s) for s in statuses]


async def test_a_target_without_a_key_is_not_searched_with_a_regex(
    client, access_lines, monkeypatch
):
    """The cheap line: `redact` (two regular expressions) runs only on what may hold a key."""

    def refuse(text: str) -> str:
        raise AssertionError(f"redact ran on {text!r}")

    monkeypatch.setattr(rest_logs, "redact", refuse)
    await client.get("/v1/openapi.json?x=%41&y=2")
    await client.get("/healthz")
    assert [fields(line)[1] for line in access_lines] == ["/v1/openapi.json?x=%41&y=2", "/healthz"]


def test_an_access_line_escapes_what_is_not_printable_and_redacts_any_part():
    line = AccessLine("GET", b"/v1/units", b"tags=a%0Ab", 200, 1.25, "10.0.0.1", "0" * 16)
    assert str(line) == (
        "method=GET path=/v1/units?tags=a%0Ab status=200 ms=1.2 client=10.0.0.1 id=0000000000000000"
    )
    hidden = AccessLine("GET", b"/v1/x", b"api-key=%0Afg_0123456789ab", None, 0.04, "-", "1" * 16)
    assert str(hidden) == (
        f"method=GET path=/v1/x?api-key={REDACTED}\\nfg_{REDACTED} status=- "
        "ms=0.0 client=- id=1111111111111111"
    )
    method = AccessLine("fg_0123456789abcdef", b"/healthz", b"", 405, 1.0, "-", "2" * 16)
    assert str(method).startswith(f"method=fg_{REDACTED} path=/healthz status=405 ")


def test_log_config_turns_only_the_access_log_off():
    on, off = log_config(), log_config(access_log=False)
    assert on["loggers"]["floorgate.access"]["level"] == "INFO"
    assert off["loggers"]["floorgate.access"]["level"] == "WARNING"
    assert on["handlers"]["access_lines"]["stream"] == "ext://sys.stdout"
    assert on["handlers"]["access_lines"]["filters"] == ["redact_keys"]
    assert off["loggers"]["floorgate"] == on["loggers"]["floorgate"]


async def test_without_the_setting_no_line_is_made(store, settings, access_lines):
    from rest.app import create_app

    app = create_app(replace(settings, access_log=False), store)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="https://testserver"
    ) as quiet:
        assert (await quiet.get("/healthz")).status_code == 200
    assert access_lines == []


# -- the collector after start-up ------------------------------------------------------------


def test_each_worker_freezes_what_start_up_made(db_server, settings):
    """In a fresh process, as a worker starts (`app_from_env`): start-up's objects are
    frozen (out of every later collection) and the serving thresholds are set."""
    script = (
        "import gc, json\n"
        "gc.set_threshold(700, 10, 1_000_000)\n"  # as `floorgate serve` starts
        "from rest.app import app_from_env\n"
        "before = gc.get_freeze_count()\n"
        "app_from_env()\n"
        "print(json.dumps([before, gc.get_freeze_count(), gc.get_threshold()]))\n"
    )
    env = {
        "PATH": "/usr/bin:/bin",
        "FLOORGATE_MONGODB_URI": db_server.uri,
        "FLOORGATE_DATABASE": settings.database_name,
        **({"PYTHONPATH": p} if (p := _pythonpath()) else {}),
    }
    result = subprocess.run(
        [sys.executable, "-c", script],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    before, frozen, thresholds = json.loads(result.stdout)
    assert before == 0
    assert frozen > 20_000  # the modules, schema, documents and routes
    assert tuple(thresholds) == SERVING_GC_THRESHOLDS
