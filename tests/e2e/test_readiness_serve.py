"""`/readyz` of `floorgate serve` means ready: 503 within 2 s of the database going away
(and of its change stream with it), 200 again after; during the drain after SIGTERM, 503
while everything else is still served; then live streams get their `retry:` advice and
end, and the process exits (docs/deploy.md, "Readiness and drain")."""

from __future__ import annotations

import asyncio
import signal
import ssl
import time
from pathlib import Path

import httpx
import pytest

from storage.embedded.server import EmbeddedServer
from storage.settings import Settings
from tests.servers import own_demo_database, serve_tls

pytestmark = [pytest.mark.e2e, pytest.mark.serial]
STREAM = "/v1/units/attribute-groups/view/units/changes"
FLAG = "unit-attributes-resource"
# The product's database timeout, not the session's longer one: the 2 s it is measured to.
PRODUCT_TIMEOUT = {"FLOORGATE_DB_TIMEOUT_MS": str(Settings().db_timeout_ms)}


async def ready_within(client: httpx.AsyncClient, seconds: float) -> httpx.Response:
    """The first 200 of `/readyz` within `seconds` (the stream reopens after a restart)."""
    deadline = time.monotonic() + seconds
    while True:
        answer = await client.get("/readyz")
        if answer.status_code == 200 or time.monotonic() > deadline:
            return answer
        await asyncio.sleep(0.1)


async def test_503_within_2_s_of_the_database_going_away_then_200(tmp_path: Path, settings) -> None:
    database = EmbeddedServer(tmp_path / "db")
    database.start()
    try:
        with serve_tls(tmp_path, database, settings, **PRODUCT_TIMEOUT) as served:
            context = ssl.create_default_context(cafile=str(served.certs.ca_cert))
            async with httpx.AsyncClient(
                verify=context, base_url=served.base, timeout=10
            ) as client:
                before = await ready_within(client, 10)
                database.stop()
                stopped = time.monotonic()
                down = await client.get("/readyz")
                answered = time.monotonic() - stopped
                health = await client.get("/healthz")
                database.start()  # same port, same data
                after = await ready_within(client, 15)
    finally:
        database.stop()
    assert (before.status_code, before.json()["change_streams"]) == (200, "available")
    assert before.json()["read_cache"]["live"] is True
    assert (down.status_code, down.json(), down.headers["retry-after"]) == (
        503,
        {"message": "Not ready: the database does not answer"},
        "5",
    )
    assert answered < 2.0, answered
    assert health.status_code == 200  # alive: nothing to restart for
    assert (after.status_code, after.json()["status"]) == (200, "ready")
    assert after.json()["read_cache"]["live"] is True


async def test_the_drain_answers_503_then_streams_get_their_retry_advice(
    db_server, tmp_path: Path
) -> None:
    async with own_demo_database(db_server, tmp_path, "floorgate_drain") as (settings, key):
        with serve_tls(
            settings.data_dir, db_server, settings, FLOORGATE_DRAIN_SECONDS="2"
        ) as served:
            context = ssl.create_default_context(cafile=str(served.certs.ca_cert))
            headers = {"API-Key": key, "Experimental-Flags": FLAG}
            async with (
                httpx.AsyncClient(verify=context, base_url=served.base, timeout=10) as client,
                httpx.AsyncClient(verify=context, base_url=served.base, timeout=10) as other,
            ):
                before = await ready_within(client, 10)
                async with client.stream("GET", STREAM, headers=headers) as stream:
                    lines = stream.aiter_lines()
                    first = await anext(lines)
                    served.process.send_signal(signal.SIGTERM)
                    signalled = time.monotonic()
                    await asyncio.sleep(0.3)
                    draining = await other.get("/readyz")
                    served_meanwhile = await other.get("/v1/assets", headers={"API-Key": key})
                    rest = [line async for line in lines]
                    ended = time.monotonic() - signalled
            code = await asyncio.to_thread(served.process.wait, 10)
    assert (before.status_code, first) == (200, "retry: 2000")
    assert (draining.status_code, draining.json(), draining.headers["retry-after"]) == (
        503,
        {"message": "Not ready: the server is stopping"},
        "5",
    )
    assert served_meanwhile.status_code == 200
    assert rest == ["", "retry: 2000", ""]
    assert 2.0 <= ended < 4.0, ended
    assert code == -signal.SIGTERM
