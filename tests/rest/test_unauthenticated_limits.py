"""Requests without a valid key are limited per client address, and invented keys are
remembered briefly: a flood of them neither reaches the database per request nor pushes
real keys out of the cache."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Iterator
from dataclasses import replace

import httpx
import pytest
from pymongo import monitoring

from resolvers.auth.keys import create_key
from rest.app import create_app
from storage.database import connect

MISSING = {"message": "No API key found in request"}
INVALID = {"message": "Invalid authentication credentials"}
LIMITED = {"message": "API rate limit exceeded"}


class KeyLookups(monitoring.CommandListener):
    def __init__(self) -> None:
        self.count = 0

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        if event.command_name == "find" and event.command.get("find") == "api_keys":
            self.count += 1

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        pass

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        pass


def limited_app(db_server, settings, per_second: float) -> tuple[object, KeyLookups]:
    """An app with rate limits on, 5 refusals per address at once then `per_second`, and a
    store of its own that counts key lookups."""
    lookups = KeyLookups()
    tuned = replace(
        settings,
        rate_limit_per_second=100,
        unauthenticated_rate_per_second=per_second,
        unauthenticated_burst=5,
    )
    own_store = connect(db_server.uri, tuned, event_listeners=[lookups])
    return create_app(tuned, own_store), lookups


@pytest.fixture
def limited(db_server, settings, store, keys) -> Iterator[tuple[object, KeyLookups]]:
    """Refusals refill at 1 a second."""
    yield limited_app(db_server, settings, 1)


@pytest.fixture
def limited_slowly(db_server, settings, store, keys) -> Iterator[tuple[object, KeyLookups]]:
    """Refusals refill once a minute: a test that sleeps between requests on a busy machine
    still sees the address's refusals spent."""
    yield limited_app(db_server, settings, 1 / 60)


def client_of(app, address: str = "198.51.100.7") -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=(address, 4242))
    return httpx.AsyncClient(transport=transport, base_url="https://t")


async def test_requests_without_a_key_are_limited_per_address(limited):
    app, _ = limited
    async with client_of(app) as client:
        answers = [await client.get("/v1/assets") for _ in range(8)]
        other = await client_of(app, "198.51.100.8").get("/v1/assets")
    assert [answer.status_code for answer in answers] == [401] * 5 + [429] * 3
    assert answers[0].json() == MISSING
    assert answers[5].json() == LIMITED
    assert answers[5].headers["retry-after"] == "1"
    assert (other.status_code, other.json()) == (401, MISSING)


def invented() -> str:
    """A key of the right form that no one issued."""
    return "fg_" + secrets.token_urlsafe(32)


async def live(app) -> None:
    """Until the app's change stream is up: key lookups are then kept by version."""
    await client_of(app, "192.0.2.1").get("/v1/assets", headers={"API-Key": "fg_warm-up"})
    for _ in range(100):
        if app.services.store.cache.live:
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the change stream did not come up")


async def test_a_flood_of_invented_keys(limited_slowly, keys):
    """1,000 requests take a second or more on a busy machine: refusals refill once a
    minute here, so no refill lets an invented key through to a lookup."""
    app, lookups = limited_slowly
    await live(app)
    async with client_of(app) as client:
        real = await client.get("/v1/assets", headers={"API-Key": keys.full})
        assert real.status_code == 200
        before = lookups.count
        answers = [
            await client.get("/v1/assets", headers={"API-Key": f"fg_invented{n}"})
            for n in range(1000)
        ]
        flood_lookups = lookups.count - before
        still = await client.get("/v1/assets", headers={"API-Key": keys.full})
    statuses = [answer.status_code for answer in answers]
    assert statuses[:5] == [403] * 5
    assert statuses.count(429) >= 990
    assert answers[-1].json() == LIMITED
    # The first five, the enabled keys' hashes once, and perhaps one refilled token.
    assert flood_lookups <= 7
    assert still.status_code == 200  # the real key is served as before...
    assert lookups.count - before == flood_lookups  # ...from the cache, untouched by the flood


@pytest.mark.security
async def test_invalid_keys_never_lock_out_valid_ones_from_the_same_address(
    limited_slowly, keys, store
):
    """Issue 30, finding 8: an office behind one NAT address. After 300 random invalid keys
    from it (429 once its failures are spent), its valid keys are served: one the process
    has not seen yet, and one created after the flood. The flood's keys are still refused
    without a lookup each."""
    app, lookups = limited_slowly
    await live(app)
    async with client_of(app, "203.0.113.30") as client:
        before = lookups.count
        flood = [
            await client.get("/v1/assets", headers={"API-Key": invented()}) for _ in range(300)
        ]
        flood_lookups = lookups.count - before
        valid = await client.get("/v1/assets", headers={"API-Key": keys.plain})
        created = (await create_key(store, "after the flood", [], None)).secret
        await asyncio.sleep(0.3)  # the change stream brings the new key (10-50 ms)
        new = await client.get("/v1/assets", headers={"API-Key": created})
        again = await client.get("/v1/assets", headers={"API-Key": "fg_still-invented"})
    assert [answer.status_code for answer in flood[:5]] == [403] * 5
    assert [answer.status_code for answer in flood[5:]].count(429) >= 290
    assert flood_lookups <= 7
    assert (valid.status_code, new.status_code) == (200, 200)
    assert [item["id"] for item in valid.json()["data"]][:1] == ["asset-1"]
    assert (again.status_code, again.json()) == (429, LIMITED)


async def test_the_same_invented_key_is_looked_up_once(limited):
    app, lookups = limited
    await live(app)  # a lookup made before the stream is up is made again once it is
    async with client_of(app, "198.51.100.9") as client:
        before = lookups.count
        answers = [
            await client.get("/v1/assets", headers={"API-Key": "fg_again"}) for _ in range(3)
        ]
    assert [answer.status_code for answer in answers] == [403, 403, 403]
    assert lookups.count - before == 1


async def test_graphql_shares_the_limit(limited_slowly):
    """(Refilled once a minute: the first /graphql request builds the schema, and on a
    loaded machine the six took over a second, a refusal refilled: CI-like run,
    2026-11-30.)"""
    app, _ = limited_slowly
    async with client_of(app, "198.51.100.10") as client:
        answers = [
            await client.post("/graphql", json={"query": "{ assets { data { id } } }"})
            for _ in range(6)
        ]
    codes = [answer.json()["errors"][0]["extensions"]["code"] for answer in answers]
    assert codes == ["UNAUTHENTICATED"] * 5 + ["RATE_LIMITED"]


async def test_rate_limit_zero_turns_the_address_limit_off(store, settings):
    app = create_app(replace(settings, rate_limit_per_second=0, unauthenticated_burst=1), store)
    async with client_of(app, "198.51.100.11") as client:
        answers = [await client.get("/v1/assets") for _ in range(5)]
    assert [answer.status_code for answer in answers] == [401] * 5


async def test_keyless_introspection_spends_the_address_limit(limited):
    app, _ = limited
    async with client_of(app, "198.51.100.12") as client:
        answers = [
            await client.post("/graphql", json={"query": "{ __typename }"}) for _ in range(6)
        ]
    assert [answer.json().get("data") for answer in answers[:5]] == [{"__typename": "Query"}] * 5
    assert answers[5].json()["errors"][0]["extensions"] == {"code": "RATE_LIMITED", "retryAfter": 1}
    assert answers[5].headers["retry-after"] == "1"
