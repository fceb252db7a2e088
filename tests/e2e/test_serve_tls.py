"""End to end: `floorgate serve` as a real process over real TLS, and the key CLI."""

from __future__ import annotations

import signal
import ssl
import subprocess

import httpx
import pytest

from rest.ops.tls import ensure_local_certificates
from tests.servers import FLOORGATE, cli_env, free_port, wait_for_port

pytestmark = pytest.mark.e2e


def test_serve_over_tls(tmp_path, db_server, settings, keys, store):
    certs = ensure_local_certificates(tmp_path)
    port = free_port()
    process = subprocess.Popen(
        [
            FLOORGATE,
            "serve",
            "--cert",
            str(certs.cert),
            "--key",
            str(certs.key),
            "--port",
            str(port),
            "--public-url",
            f"https://localhost:{port}",
        ],
        env=cli_env(db_server, settings, tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
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
        env=cli_env(db_server, settings, tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "HTTP is not served" in result.stderr


def run_cli(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([FLOORGATE, *args], env=env, capture_output=True, text=True, timeout=60)


def test_keys_cli(tmp_path, db_server, settings, client, store):
    env = cli_env(db_server, settings, tmp_path)
    created = run_cli(
        [
            "keys",
            "create",
            "--name",
            "partner",
            "--asset",
            "asset-3",
            "--permission",
            "service.unit-maps.parse",
        ],
        env,
    )
    assert created.returncode == 0, created.stderr
    key_id = created.stdout.split()[2]
    secret = created.stdout.strip().splitlines()[-1]
    assert secret.startswith("fg_")
    assert len(secret) >= 43

    listed = run_cli(["keys", "list"], env)
    line = next(row for row in listed.stdout.splitlines() if row.startswith(key_id))
    assert line.split() == [
        key_id,
        "partner",
        "enabled",
        "default",
        "asset-3",
        "service.unit-maps.parse",
    ]
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


async def test_a_key_with_its_own_rate_limit(tmp_path, db_server, settings, store):
    """`keys create --rate-limit --burst` gives a key its own bucket (its headers and its
    429s follow it); `keys update` changes or drops it; bad values are refused."""
    from dataclasses import replace

    from rest.app import create_app

    env = cli_env(db_server, settings, tmp_path)
    created = run_cli(
        ["keys", "create", "--name", "slow", "--all-assets", "--rate-limit", "0.5", "--burst", "2"],
        env,
    )
    assert created.returncode == 0, created.stderr
    key_id, secret = created.stdout.split()[2], created.stdout.strip().splitlines()[-1]
    row = next(
        r for r in run_cli(["keys", "list"], env).stdout.splitlines() if r.startswith(key_id)
    )
    assert "0.5/s, burst 2" in row

    async def statuses() -> list[tuple[int, str | None]]:
        limited = create_app(
            replace(settings, rate_limit_per_second=100, rate_limit_burst=200), store
        )
        transport = httpx.ASGITransport(app=limited)
        async with httpx.AsyncClient(transport=transport, base_url="https://t") as client:
            answers = [
                await client.get("/v1/assets", headers={"API-Key": secret}) for _ in range(3)
            ]
        return [(a.status_code, a.headers.get("ratelimit-limit")) for a in answers]

    assert await statuses() == [(200, "2"), (200, "2"), (429, "2")]
    updated = run_cli(["keys", "update", key_id, "--rate-limit", "50"], env)
    assert updated.returncode == 0, updated.stderr
    assert updated.stdout == (
        f"Key {key_id} now has the rate limit 50/s, burst 100 (every "
        "worker within a few seconds).\n"
    )
    assert await statuses() == [(200, "100")] * 3
    reset = run_cli(["keys", "update", key_id, "--default-rate-limit"], env)
    assert reset.returncode == 0 and "the rate limit the default" in reset.stdout
    assert await statuses() == [(200, "200")] * 3

    for args, message in (
        (
            ["create", "--name", "x", "--all-assets", "--burst", "5"],
            "floorgate keys create: --burst goes with --rate-limit",
        ),
        (
            ["create", "--name", "x", "--all-assets", "--rate-limit", "0"],
            "floorgate keys create: --rate-limit must be above 0 and at most 1e+06 per second",
        ),
        (
            ["update", key_id, "--rate-limit", "5", "--burst", "0"],
            "floorgate keys update: --burst must be from 1 to 10000000",
        ),
        (
            ["update", key_id],
            "floorgate keys update: give --rate-limit (and --burst) or --default-rate-limit",
        ),
    ):
        refused = run_cli(["keys", *args], env)
        assert (refused.returncode, refused.stderr.strip()) == (2, message), args
    missing = run_cli(["keys", "update", "no-such-key", "--rate-limit", "5"], env)
    assert (missing.returncode, missing.stderr.strip()) == (1, "No key with id no-such-key.")
