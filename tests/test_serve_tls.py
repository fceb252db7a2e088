"""End to end: `floorgate serve` as a real process over real TLS, and the key CLI."""

from __future__ import annotations

import signal
import ssl
import subprocess

import httpx
import pytest

from rest.tls import ensure_local_certificates
from tests.servers import FLOORGATE, cli_env, free_port, wait_for_port

pytestmark = pytest.mark.e2e


def test_serve_over_tls(tmp_path, db_server, settings, keys, store):
    certs = ensure_local_certificates(tmp_path)
    port = free_port()
    process = subprocess.Popen(
        [FLOORGATE, "serve", "--cert", str(certs.cert), "--key", str(certs.key),
         "--port", str(port), "--public-url", f"https://localhost:{port}"],
        env=cli_env(db_server, settings, tmp_path),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        wait_for_port(port, process)
        base = f"https://localhost:{port}"
        trusted = ssl.create_default_context(cafile=str(certs.ca_cert))
        with httpx.Client(verify=trusted, base_url=base, timeout=10) as client:
            response = client.get("/v1/assets?per-page=2", headers={"API-Key": keys.full})
            assert response.status_code == 200
            body = response.json()
            assert [item["id"] for item in body["data"]] == ["asset-1", "asset-2"]
            assert body["paging"]["next_url"] == f"{base}/v1/assets?page=2&per-page=2"
            assert client.get("/v1/assets").status_code == 401
            assert client.get("/healthz").json() == {"status": "ok"}
        with pytest.raises(httpx.ConnectError):  # an untrusted CA is refused
            httpx.get(f"{base}/healthz", timeout=5)
        with pytest.raises(httpx.RemoteProtocolError):  # plain HTTP gets no answer
            httpx.get(f"http://localhost:{port}/healthz", timeout=5)
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=20)
    assert process.returncode == 0


def test_serve_refuses_plain_http(tmp_path, db_server, settings):
    result = subprocess.run(
        [FLOORGATE, "serve", "--port", str(free_port())],
        env=cli_env(db_server, settings, tmp_path), capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 2
    assert "HTTP is not served" in result.stderr


def run_cli(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([FLOORGATE, *args], env=env, capture_output=True, text=True, timeout=60)


def test_keys_cli(tmp_path, db_server, settings, client, store):
    env = cli_env(db_server, settings, tmp_path)
    created = run_cli(["keys", "create", "--name", "partner", "--asset", "asset-3",
                       "--permission", "service.unit-maps.parse"], env)  # fmt: skip
    assert created.returncode == 0, created.stderr
    key_id = created.stdout.split()[2]
    secret = created.stdout.strip().splitlines()[-1]
    assert secret.startswith("fg_")
    assert len(secret) >= 43

    listed = run_cli(["keys", "list"], env)
    line = next(row for row in listed.stdout.splitlines() if row.startswith(key_id))
    assert line.split() == [key_id, "partner", "enabled", "asset-3", "service.unit-maps.parse"]
    assert secret not in listed.stdout

    disabled = run_cli(["keys", "disable", key_id], env)
    assert disabled.returncode == 0
    assert disabled.stdout.strip() == f"Disabled key {key_id}."
    relisted = run_cli(["keys", "list"], env)
    row = next(row for row in relisted.stdout.splitlines() if row.startswith(key_id))
    assert row.split()[:3] == [key_id, "partner", "disabled"]
    unknown = run_cli(["keys", "disable", "nope"], env)
    assert unknown.returncode == 1
    assert unknown.stderr.strip() == "No key with id nope."


async def test_created_key_works_and_disabled_key_stops(tmp_path, db_server, settings, client):
    env = cli_env(db_server, settings, tmp_path)
    created = run_cli(["keys", "create", "--name", "scoped", "--asset", "asset-3"], env)
    secret = created.stdout.strip().splitlines()[-1]
    key_id = created.stdout.split()[2]
    response = await client.get("/v1/assets", headers={"API-Key": secret})
    assert [item["id"] for item in response.json()["data"]] == ["asset-3"]
    run_cli(["keys", "disable", key_id], env)
    # Lookups are cached for a few seconds by design; a disabled key stops after that.
    client._transport.app.services.key_cache.clear()
    after = await client.get("/v1/assets", headers={"API-Key": secret})
    assert after.status_code == 403
