"""The read cache's change stream goes away while the database stays up: `/readyz` answers
503 with the reason within 2 s, reads stay correct meanwhile (another client's write is
read back, the cache serving nothing), and `/readyz` is 200 again once the stream reopens
(docs/deploy.md, "Readiness and drain").

The stream is broken for real: the embedded server runs with `--enable-test-commands`,
and a `failCommand` failpoint scoped to the process's client (its `appName`) fails the
stream's `getMore` and every `aggregate` that would reopen it with 280
(ChangeStreamFatalError, not resumable), as a server that lost the stream's history
would. A write wakes the waiting getMore, so the next one meets the failpoint. The
test's own client, under another name, writes and lifts the failpoint."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from pymongo import AsyncMongoClient

from resolvers.auth.keys import create_key
from rest.app import create_app
from storage.database import connect
from storage.embedded.server import EmbeddedServer
from storage.settings import Settings
from tests.fixtures import load_fixture_data

pytestmark = [pytest.mark.e2e, pytest.mark.serial]
APP_NAME = "floorgate-stream-broken"  # the served process's client; the failpoint's scope
ASSET = "/v1/assets/asset-1"
WAKE = "stream_wake"  # a collection the stream watches: its insert ends the waiting getMore
DOWN = {"message": "Not ready: the read cache's change stream is down: OperationFailure 280"}


class FailPointServer(EmbeddedServer):
    """The embedded server with `configureFailPoint` enabled."""

    def _command(self, executable: str) -> list[str]:
        return [*super()._command(executable), "--enable-test-commands"]


async def fail_stream(admin: AsyncMongoClient[dict[str, Any]], mode: str) -> None:
    """Arm (`alwaysOn`) or lift (`off`) the failpoint on the served client's stream."""
    data = {"failCommands": ["aggregate", "getMore"], "errorCode": 280, "appName": APP_NAME}
    await admin.admin.command("configureFailPoint", "failCommand", mode=mode, data=data)


async def readyz_within(client: httpx.AsyncClient, status: int, seconds: float) -> httpx.Response:
    """The first `/readyz` answer with `status` within `seconds` (else the last one)."""
    deadline = time.monotonic() + seconds
    while True:
        answer = await client.get("/readyz")
        if answer.status_code == status or time.monotonic() > deadline:
            return answer
        await asyncio.sleep(0.02)


async def test_503_within_2_s_of_the_stream_breaking_reads_stay_true_then_200(
    tmp_path: Path, settings: Settings
) -> None:
    server = FailPointServer(tmp_path / "db")
    server.start()
    store = connect(server.uri, settings, appname=APP_NAME)
    other: AsyncMongoClient[dict[str, Any]] = AsyncMongoClient(server.uri)
    db = other[settings.database_name]
    try:
        await store.ensure_indexes()
        await load_fixture_data(store)
        headers = {"API-Key": (await create_key(store, "reader", [], None)).secret}
        store.watch_changes()  # as the app's start does
        transport = httpx.ASGITransport(app=create_app(settings, store))
        async with httpx.AsyncClient(transport=transport, base_url="https://t") as client:
            before = await readyz_within(client, 200, 10)
            await client.get(ASSET, headers=headers)
            hits = store.cache.answer_hits
            kept = await client.get(ASSET, headers=headers)
            served_kept = store.cache.answer_hits - hits

            await fail_stream(other, "alwaysOn")
            await db[WAKE].insert_one({"wake": 1})
            broken = time.monotonic()
            down = await readyz_within(client, 503, 5)
            answered = time.monotonic() - broken
            await db["assets"].update_one({"_id": "asset-1"}, {"$set": {"name": "Renamed"}})
            hits = store.cache.answer_hits
            renamed = await client.get(ASSET, headers=headers)
            twice = await client.get(ASSET, headers=headers)
            served_while_down = store.cache.answer_hits - hits
            await asyncio.sleep(1.0)  # the stream is asked for again meanwhile, and refused
            still_down = await client.get("/readyz")

            await fail_stream(other, "off")
            reopened = time.monotonic()
            after = await readyz_within(client, 200, 10)
            back = time.monotonic() - reopened
            again = await client.get(ASSET, headers=headers)
    finally:
        await store.close()
        await other.close()
        server.stop()
    assert (before.status_code, before.json()["read_cache"]["live"]) == (200, True)
    assert (kept.json()["name"], served_kept) == ("Harbor View", 1)  # the cache served
    assert (down.status_code, down.json(), down.headers["retry-after"]) == (503, DOWN, "5")
    assert answered < 2.0, answered
    assert (renamed.status_code, renamed.json()["name"]) == (200, "Renamed")
    assert (twice.json()["name"], served_while_down) == ("Renamed", 0)  # nothing kept
    assert (still_down.status_code, still_down.json()) == (503, DOWN)
    assert (after.status_code, after.json()["status"]) == (200, "ready")
    assert (after.json()["change_streams"], after.json()["read_cache"]["live"]) == (
        "available",
        True,
    )
    assert back < 3.0, back  # the stream is retried at most 2 s apart
    assert again.json()["name"] == "Renamed"
