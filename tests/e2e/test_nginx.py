"""docs/deploy.md's nginx configuration in front of `floorgate serve --behind-proxy`:
the demo over TLS through nginx, links on the public URL, the client's address passed
on, live changes through it (an event stream, and a subscription over WebSocket), and
floorgate still refusing plain HTTP that did not come through the proxy, and a parsed map
document compressed through it.

The configuration is copied out of docs/deploy.md (only ports, paths and the server
name are replaced), so the documented one is the tested one. `make test` installs
Debian's nginx when it runs as root; elsewhere this test is skipped with a message."""

from __future__ import annotations

import asyncio
import gzip
import os
import re
import shutil
import signal
import ssl
import subprocess
import time
from pathlib import Path
from typing import Any

import brotli
import httpx
import orjson
import pytest
from websockets.asyncio.client import connect as websocket_connect

from rest.ops.tls import ensure_local_certificates
from tests.servers import FLOORGATE, cli_env, free_port, own_demo_database, wait_for_port

pytestmark = pytest.mark.e2e
GUIDE = Path(__file__).parents[2] / "docs" / "deploy.md"
FLAG = "unit-attributes-resource"
FEATURES = "/v1/units/attribute-groups/features/units"
BALCONY = {
    "data": [
        {
            "group_id": "features",
            "attribute_id": "features-balcony",
            "asset_id": "harbor-view",
            "unit_id": "b1-101",
        }
    ]
}
SUBSCRIPTION = 'subscription { unitAttributeAssignmentChanges(groupId: "features") { change } }'
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)


def documented_config(proxy_port: int, floorgate_port: int, cert: Path, key: Path) -> str:
    text = re.search(r"```nginx\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)
    assert text, "docs/deploy.md has no nginx block"
    config = text.group(1)
    for old, new in (
        ("listen 443 ssl;", f"listen 127.0.0.1:{proxy_port} ssl;"),
        ("server_name api.example.com;", "server_name localhost;"),
        ("127.0.0.1:8000", f"127.0.0.1:{floorgate_port}"),
        ("/etc/ssl/floorgate/fullchain.pem", str(cert)),
        ("/etc/ssl/floorgate/privkey.pem", str(key)),
    ):
        assert old in config, old
        config = config.replace(old, new)
    return config


def nginx_main(prefix: Path, server: str) -> str:
    """The documented server block inside a minimal main configuration of our own."""
    user = "user root;\n" if os.geteuid() == 0 else ""
    return (
        f"{user}worker_processes 1;\npid {prefix}/nginx.pid;\n"
        f"error_log {prefix}/error.log warn;\nevents {{ worker_connections 64; }}\n"
        f"http {{\n  access_log {prefix}/access.log;\n"
        + "".join(
            f"  {kind}_temp_path {prefix}/{kind};\n"
            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        + f"{server}\n}}\n"
    )


@pytest.fixture
async def demo_database(db_server, tmp_path_factory):
    async with own_demo_database(
        db_server, tmp_path_factory.mktemp("nginx-demo"), "floorgate_nginx_test"
    ) as demo:
        yield demo


@pytest.mark.skipif(
    NGINX is None,
    reason="nginx not installed: run `make test` as root on "
    "Debian (installs it) or apt-get install nginx",
)
def test_the_documented_nginx_config_serves_the_demo(tmp_path, db_server, demo_database):
    settings, key = demo_database
    certs = ensure_local_certificates(tmp_path / "tls")
    proxy_port, floorgate_port = free_port(), free_port()
    public = f"https://localhost:{proxy_port}"
    env = {
        **cli_env(db_server, settings, tmp_path),
        "FLOORGATE_DATABASE": settings.database_name,
        "FLOORGATE_PUBLIC_URL": public,
    }
    prefix = tmp_path / "nginx"
    prefix.mkdir()
    (prefix / "nginx.conf").write_text(
        nginx_main(prefix, documented_config(proxy_port, floorgate_port, certs.cert, certs.key))
    )
    floorgate_log = (tmp_path / "serve.log").open("w")
    floorgate = subprocess.Popen(
        [
            FLOORGATE,
            "serve",
            "--behind-proxy",
            "--proxy-address",
            "127.0.0.1",
            "--host",
            "127.0.0.1",
            "--port",
            str(floorgate_port),
        ],
        env=env,
        stdout=floorgate_log,
        stderr=subprocess.STDOUT,
    )
    nginx = subprocess.Popen(
        [NGINX, "-p", str(prefix), "-c", str(prefix / "nginx.conf"), "-g", "daemon off;"],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for_port(floorgate_port, floorgate, log=tmp_path / "serve.log")
        deadline = time.monotonic() + 10
        tls = ssl.create_default_context(cafile=str(certs.ca_cert))
        with httpx.Client(
            base_url=public, verify=tls, timeout=10, headers={"API-Key": key}
        ) as client:
            while True:  # nginx starts in a moment
                try:
                    units = client.get("/v1/units?per-page=2")
                    break
                except httpx.TransportError:
                    assert nginx.poll() is None, nginx.stderr.read() if nginx.stderr else ""
                    assert time.monotonic() < deadline, "nginx did not listen"
                    time.sleep(0.1)
            assert units.status_code == 200, units.text
            body = units.json()
            assert len(body["data"]) == 2
            assert body["paging"]["next_url"] == f"{public}/v1/units?page=2&per-page=2"
            assert units.headers["strict-transport-security"].startswith("max-age=")
            assert units.headers["x-request-id"]
            graphql = client.post("/graphql", json={"query": "{ assets { data { id } } }"})
            assert graphql.json() == {"data": {"assets": {"data": [{"id": "harbor-view"}]}}}
            assert client.get("/metrics").status_code == 404  # not through the proxy
            map_json_arrives_compressed(client, public)
            live_changes_pass_through(public, tls, key)
        # Straight to floorgate, not through nginx: no X-Forwarded-Proto, plain HTTP.
        direct = httpx.get(
            f"http://127.0.0.1:{floorgate_port}/v1/assets", headers={"API-Key": key}, timeout=10
        )
        assert (direct.status_code, direct.json()) == (403, {"message": "HTTPS is required"})
        ready = httpx.get(f"http://127.0.0.1:{floorgate_port}/readyz", timeout=10)
        assert ready.status_code == 200 and ready.json()["status"] == "ready"
    finally:
        nginx.send_signal(signal.SIGQUIT)
        floorgate.send_signal(signal.SIGINT)
        nginx.wait(timeout=20)
        floorgate.wait(timeout=20)
        floorgate_log.close()
    access = (tmp_path / "serve.log").read_text()
    assert "path=/v1/units?per-page=2 status=200" in access
    assert "client=127.0.0.1" in access  # the X-Forwarded-For of the test client
    assert key not in access


def map_json_arrives_compressed(client: httpx.Client, public: str) -> None:
    """A parsed map document through nginx: br as a browser asks, gzip when only that is
    asked for, both decoding to the stored bytes; the br tag revalidates (docs/deploy.md,
    "Compression passes through")."""
    path = client.get("/v1/maps").json()["data"][0]["url"].removeprefix(public)
    plain = client.get(path, headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers and len(plain.content) > 10_000
    for accept, coding in (("gzip, deflate, br, zstd", "br"), ("gzip", "gzip")):
        with client.stream("GET", path, headers={"Accept-Encoding": accept}) as answer:
            wire = b"".join(answer.iter_raw())
        assert answer.headers["content-encoding"] == coding
        assert answer.headers["vary"] == "Accept-Encoding"
        assert answer.headers["etag"] == plain.headers["etag"][:-1] + f'-{coding}"'
        decode = brotli.decompress if coding == "br" else gzip.decompress
        assert decode(wire) == plain.content and len(wire) < len(plain.content) / 5
    tag = plain.headers["etag"][:-1] + '-br"'
    again = client.get(path, headers={"Accept-Encoding": "br", "If-None-Match": tag})
    assert (again.status_code, again.headers["etag"]) == (304, tag)


def live_changes_pass_through(public: str, tls: ssl.SSLContext, key: str) -> None:
    """One write of E21 reaches an event stream and a WebSocket subscription, both
    through nginx (its upgrade and its unbuffered answers). With websockets' asyncio
    client: its threaded one reads in a thread while the test writes on the same TLS
    socket, which Python's ssl does not allow (it lost upgrades in the flood test)."""
    event, message = asyncio.run(_live_changes(public, tls, key))
    identifier, kind, data = event
    assert (identifier[:4], kind, data[:6]) == ("id: ", "event: assigned", "data: ")
    assert orjson.loads(data[6:]) == {**BALCONY["data"][0], "at": orjson.loads(data[6:])["at"]}
    assert message == {
        "id": "1",
        "type": "next",
        "payload": {"data": {"unitAttributeAssignmentChanges": {"change": "assigned"}}},
    }


async def _live_changes(
    public: str, tls: ssl.SSLContext, key: str
) -> tuple[list[str], dict[str, Any]]:
    """The event stream's lines of one write, and the socket's message of it."""
    flagged = {"Experimental-Flags": FLAG}
    async with httpx.AsyncClient(
        base_url=public, verify=tls, timeout=10, headers={"API-Key": key}
    ) as client:
        removed = await client.put(f"{FEATURES}/remove", json=BALCONY, headers=flagged)
        assert removed.status_code == 204
        async with websocket_connect(
            public.replace("https://", "wss://") + "/graphql",
            ssl=tls,
            subprotocols=["graphql-transport-ws"],  # type: ignore[list-item]
        ) as socket:
            init = {"type": "connection_init", "payload": {"API-Key": key, **flagged}}
            await socket.send(orjson.dumps(init).decode())
            acked = orjson.loads(await asyncio.wait_for(socket.recv(), 5))
            assert acked == {"type": "connection_ack"}
            subscribe = {"id": "1", "type": "subscribe", "payload": {"query": SUBSCRIPTION}}
            await socket.send(orjson.dumps(subscribe).decode())
            async with client.stream(
                "GET", f"{FEATURES}/changes", headers=flagged, timeout=5
            ) as stream:
                assert stream.status_code == 200
                lines = stream.aiter_lines()
                assert await anext(lines) == "retry: 2000"
                await asyncio.sleep(0.3)  # both subscriptions are in place
                written = await client.put(FEATURES, json=BALCONY, headers=flagged)
                assert written.status_code == 200
                event = [await anext(lines) for _ in range(4)][1:]  # the blank line first
            message = orjson.loads(await asyncio.wait_for(socket.recv(), 5))
    return event, message
