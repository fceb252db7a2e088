"""The database goes away and comes back: 503 with Retry-After, then recovery by itself."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from resolvers.auth.keys import create_key
from rest.app import create_app
from storage.database import connect
from storage.embedded.server import EmbeddedServer
from tests.fixtures import load_fixture_data

pytestmark = pytest.mark.e2e


async def test_503_while_database_is_down_then_recovers(tmp_path, settings):
    server = EmbeddedServer(tmp_path / "db")
    server.start()
    store = connect(server.uri, settings)
    try:
        await store.ensure_indexes()
        await load_fixture_data(store)
        cached = (await create_key(store, "cached", [], None)).secret
        fresh = (await create_key(store, "fresh", [], None)).secret
        app = create_app(settings, store)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="https://t") as client:
            before = await client.get("/v1/assets/asset-1", headers={"API-Key": cached})
            assert before.status_code == 200

            server.stop()
            for key in (cached, fresh):  # the first key is in the key cache, the second is not
                down = await client.get("/v1/assets/asset-1", headers={"API-Key": key})
                assert down.status_code == 503
                assert down.json() == {"message": "Service unavailable"}
                assert down.headers["retry-after"] == "5"
            graphql = await client.post(
                "/graphql", json={"query": "{ units { data { id } } }"}, headers={"API-Key": cached}
            )
            assert graphql.json()["errors"][0]["extensions"] == {
                "code": "SERVICE_UNAVAILABLE",
                "retryAfter": 5,
            }
            files = await client.get("/files/maps/map-1/source.svg")
            assert files.status_code == 503
            assert files.json() == {"message": "Service unavailable"}
            ready = await client.get("/readyz")
            assert ready.status_code == 503
            assert (await client.get("/healthz")).status_code == 200

            server.start()  # same port, same data
            after = await client.get("/v1/assets/asset-1", headers={"API-Key": fresh})
            assert after.status_code == 200
            assert after.json()["name"] == "Harbor View"
            # Ready once the change stream is back too (it retries within 2 s).
            async with asyncio.timeout(5):
                while (await client.get("/readyz")).status_code != 200:
                    await asyncio.sleep(0.1)
    finally:
        await store.close()
        server.stop()
