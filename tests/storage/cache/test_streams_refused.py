"""A database that refuses change streams (a standalone server: `secantusd-py
--standalone` answers `$changeStream` with 40573, as mongod does): reads stay correct with
the read cache off, `/readyz` is ready and says why streams are unavailable, and the live
routes (SSE, subscriptions) answer 503 with the reason instead of a stream that would
deliver nothing."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
import pytest_asyncio

from resolvers.auth.keys import create_key
from resolvers.auth.permissions import ALL_PERMISSIONS
from rest.app import create_app
from storage import collections as c
from storage.database import Store, connect
from storage.embedded.server import EmbeddedServer
from storage.settings import Settings
from tests.fixtures import load_fixture_data
from tests.streams import websocket

pytestmark = pytest.mark.e2e
GROUP = "refused-view"
FLAG = "unit-attributes-resource"
REASON = "The $changeStream stage is only supported on replica sets (code 40573)"
SUBSCRIPTION = 'subscription { unitAttributeAssignmentChanges(groupId: "refused-view") { cursor } }'


class StandaloneServer(EmbeddedServer):
    """The embedded server as a standalone MongoDB: no replica set, so no change stream."""

    def _command(self, executable: str) -> list[str]:
        return [*super()._command(executable), "--standalone"]


@pytest.fixture(scope="module")
def standalone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedServer]:
    with StandaloneServer(tmp_path_factory.mktemp("standalone")) as server:
        yield server


@pytest_asyncio.fixture(loop_scope="session")
async def refused(
    standalone: EmbeddedServer, settings: Settings
) -> AsyncIterator[tuple[Store, httpx.AsyncClient, str]]:
    store = connect(standalone.uri, settings)
    await store.client.drop_database(settings.database_name)
    await store.ensure_indexes()
    await load_fixture_data(store)
    await store[c.ATTRIBUTE_GROUPS].insert_one(
        {
            "_id": GROUP,
            "group_name": "Refused view",
            "one_attribute_per_unit": True,
            "attributes": [
                {"attribute_id": f"{GROUP}-a", "attribute_name": "a", "attribute_key": "a"}
            ],
            "created_at": "2026-01-01T00:00:00+00:00",
            "updated_at": "2026-01-01T00:00:00+00:00",
        }
    )
    key = (await create_key(store, "full", list(ALL_PERMISSIONS), None)).secret
    store.watch_changes()  # as the app's start does
    async with asyncio.timeout(5):
        while store.streams.refused is None:
            await asyncio.sleep(0.02)
    app = create_app(settings, store)
    transport = httpx.ASGITransport(app=app)
    try:
        async with httpx.AsyncClient(transport=transport, base_url="https://t") as client:
            yield store, client, key
    finally:
        await store.close()


async def test_reads_stay_correct_with_the_cache_off(refused) -> None:
    store, client, key = refused
    headers = {"API-Key": key}
    first = await client.get("/v1/assets/asset-1", headers=headers)
    await store["assets"].update_one({"_id": "asset-1"}, {"$set": {"name": "Renamed"}})
    second = await client.get("/v1/assets/asset-1", headers=headers)
    stats = store.cache.stats()
    assert (first.status_code, first.json()["name"]) == (200, "Harbor View")
    assert (second.status_code, second.json()["name"]) == (200, "Renamed")
    assert (stats.live, stats.stream, stats.hits) == (
        False,
        f"down: change streams unavailable: {REASON}",
        0,
    )
    assert stats.bypassed >= 2


async def test_readiness_is_ready_and_says_why_streams_are_off(refused) -> None:
    _, client, _ = refused
    ready = await client.get("/readyz")
    assert ready.status_code == 200
    assert (ready.json()["status"], ready.json()["change_streams"]) == (
        "ready",
        f"unavailable: {REASON}",
    )


async def test_the_event_stream_answers_503_with_the_reason(refused) -> None:
    _, client, key = refused
    headers = {"API-Key": key, "Experimental-Flags": FLAG}
    answer = await client.get(f"/v1/units/attribute-groups/{GROUP}/units/changes", headers=headers)
    assert (answer.status_code, answer.json(), answer.headers["retry-after"]) == (
        503,
        {"message": f"Live changes are unavailable: {REASON}"},
        "5",
    )


async def test_a_subscription_is_refused_with_the_reason(refused) -> None:
    _, client, key = refused
    app = client._transport.app  # the fixture's ASGI app
    async with websocket(app) as socket:
        payload = {"API-Key": key, "Experimental-Flags": FLAG}
        await socket.send({"type": "connection_init", "payload": payload})
        assert await socket.receive() == {"type": "connection_ack"}
        await socket.send({"id": "1", "type": "subscribe", "payload": {"query": SUBSCRIPTION}})
        message = await socket.receive()
    assert message == {
        "id": "1",
        "type": "error",
        "payload": [
            {
                "message": f"Live changes are unavailable: {REASON}",
                "locations": [{"line": 1, "column": 16}],
                "path": ["unitAttributeAssignmentChanges"],
                "extensions": {"code": "LIVE_UNAVAILABLE", "retryAfter": 5},
            }
        ],
    }
