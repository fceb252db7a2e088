"""No log line holds a key: `floorgate serve` runs, keys travel in the query (valid,
invalid, repeated, in a failing request), a client drops its connection mid-body, and
the server's whole output is read afterwards."""

from __future__ import annotations

import logging
import socket
import ssl
import time

import httpx
import pytest

from rest.ops.logs import REDACTED, RedactKeys, redact
from tests.servers import serve_tls

pytestmark = pytest.mark.e2e


def test_redact():
    assert redact("GET /v1/assets?page=2&api-key=fg_abcdefghijkl&x=1") == (
        f"GET /v1/assets?page=2&api-key={REDACTED}&x=1"
    )
    assert redact("/graphql?API-KEY=whatever") == f"/graphql?API-KEY={REDACTED}"
    assert redact("the key fg_0123456789abcdef_-XY leaked") == f"the key fg_{REDACTED} leaked"
    assert redact("fg_short and flags") == "fg_short and flags"  # too short to be a key


def test_the_filter_rewrites_arguments_and_tracebacks():
    try:
        raise ValueError("bad key fg_0123456789abcdefghij")
    except ValueError:
        record = logging.LogRecord(
            "x",
            logging.ERROR,
            __file__,
            1,
            "%s - %s",
            ("1.2.3.4", "/v1/units?api-key=fg_0123456789abcdefghij"),
            exc_info=True,
        )
        import sys

        record.exc_info = sys.exc_info()
    assert RedactKeys().filter(record) is True
    text = logging.Formatter().format(record)
    assert "fg_0123456789" not in text
    assert f"api-key={REDACTED}" in text and f"bad key fg_{REDACTED}" in text


def drop_mid_body(port: int, ca: str, key: str) -> None:
    """Send a head promising 100 KB and 10 bytes of it, then go away."""
    context = ssl.create_default_context(cafile=ca)
    with (
        socket.create_connection(("127.0.0.1", port), timeout=5) as raw,
        context.wrap_socket(raw, server_hostname="localhost") as tls,
    ):
        tls.sendall(
            b"POST /v1/maps/parse HTTP/1.1\r\nHost: localhost\r\n"
            b"Content-Type: image/svg+xml\r\nAPI-Key: " + key.encode() + b"\r\n"
            b"Content-Length: 100000\r\n\r\n<svg>12345"
        )
        time.sleep(0.3)


def test_no_key_reaches_the_log(tmp_path, db_server, settings, keys):
    with serve_tls(tmp_path, db_server, settings) as served:
        ca = str(served.certs.ca_cert)
        with httpx.Client(
            verify=ssl.create_default_context(cafile=ca), base_url=served.base, timeout=10
        ) as client:
            assert client.get(f"/v1/assets?api-key={keys.full}").status_code == 200
            assert client.get(f"/v1/units?page=1&api-key={keys.scoped}").status_code == 200
            assert client.get("/v1/assets?api-key=fg_invented_0123456789").status_code == 403
            assert (
                client.get(f"/v1/assets?api-key={keys.plain}&api-key={keys.full}").status_code
                == 422
            )
            assert client.get(f"/v1/nowhere?api-key={keys.full}").status_code == 404
            assert (
                client.post(
                    f"/graphql?api-key={keys.full}", json={"query": "{ assets { data { id } } }"}
                ).status_code
                == 200
            )
            assert client.get(f"/v1/assets?api-key={keys.disabled}").status_code == 403
        drop_mid_body(served.port, ca, keys.full)
        time.sleep(0.5)
    output = (tmp_path / "serve.log").read_text()
    for secret in (keys.full, keys.scoped, keys.plain, keys.disabled, "fg_invented_0123456789"):
        assert secret not in output
    assert output.count(f"api-key={REDACTED}") >= 7
    assert "Traceback" not in output
    assert "ERROR" not in output
    assert "client disconnected before sending its body" in output


def test_json_lines_name_the_route_and_the_key_id_never_the_key(
    tmp_path, db_server, settings, keys
):
    """`FLOORGATE_LOG_FORMAT=json`: every line of the output is one JSON object; an access
    line has the request id, route template, status, duration and key id."""
    import asyncio
    import json

    from resolvers.auth.keys import hash_key

    key_id = asyncio.run(_key_id(db_server, settings, hash_key(keys.full)))
    with serve_tls(tmp_path, db_server, settings, FLOORGATE_LOG_FORMAT="json") as served:
        ca = str(served.certs.ca_cert)
        with httpx.Client(
            verify=ssl.create_default_context(cafile=ca), base_url=served.base, timeout=10
        ) as client:
            answer = client.get(f"/v1/units?per-page=2&api-key={keys.full}")
            assert answer.status_code == 200
            assert client.get("/v1/assets").status_code == 401
        time.sleep(0.3)
    lines = [
        json.loads(line)
        for line in (tmp_path / "serve.log").read_text().splitlines()
        if line.strip()
    ]
    assert keys.full not in (tmp_path / "serve.log").read_text()
    assert all({"time", "level", "logger"} <= set(line) for line in lines)
    access = [line for line in lines if line["logger"] == "floorgate.access"]
    units = next(line for line in access if line["route"] == "listUnits")
    assert units["request_id"] == answer.headers["x-request-id"]
    assert (units["method"], units["status"], units["key_id"]) == ("GET", 200, key_id)
    assert units["cut"] is False  # read whole (tests/e2e/test_connections.py: a cut one)
    assert units["path"] == f"/v1/units?per-page=2&api-key={REDACTED}"
    assert isinstance(units["ms"], float) and units["time"].endswith("Z")
    keyless = next(line for line in access if line["path"] == "/v1/assets")
    assert (keyless["status"], keyless["key_id"], keyless["route"]) == (401, None, "listAssets")
    assert any(line["logger"] == "uvicorn.error" and "message" in line for line in lines)


async def _key_id(db_server, settings, key_hash: str) -> str:
    from storage.database import connect

    store = connect(db_server.uri, settings)
    try:
        return (await store["api_keys"].find_one({"hash": key_hash}))["_id"]
    finally:
        await store.close()
