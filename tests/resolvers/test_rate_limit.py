"""429 with Retry-After once a key spends its burst; other keys are not affected; a key
pays for what its answer cost."""

from __future__ import annotations

from dataclasses import replace

import httpx
import pytest
import pytest_asyncio

from resolvers.auth.keys import create_key
from rest.app import create_app
from storage.collections import RATE_BUDGETS, UNIT_MAPS


@pytest_asyncio.fixture(autouse=True, loop_scope="session")
async def full_buckets(store):
    """Buckets live in the database, shared by every app on it: each test starts full."""
    await store[RATE_BUDGETS].delete_many({})


async def test_rate_limit_per_key(store, settings, keys):
    limited = replace(settings, rate_limit_per_second=0.5, rate_limit_burst=3)
    app = create_app(limited, store)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="https://t") as client:
        statuses = [
            (await client.get("/v1/assets", headers={"API-Key": keys.full})).status_code
            for _ in range(4)
        ]
        assert statuses == [200, 200, 200, 429]
        refused = await client.get("/v1/assets", headers={"API-Key": keys.full})
        assert refused.status_code == 429
        assert refused.json() == {"message": "API rate limit exceeded"}
        assert refused.headers["retry-after"] == "2"
        other = await client.get("/v1/assets", headers={"API-Key": keys.plain})
        assert other.status_code == 200
        graphql = await client.post(
            "/graphql", json={"query": "{ assets { data { id } } }"}, headers={"API-Key": keys.full}
        )
        assert graphql.json()["errors"][0]["extensions"] == {
            "code": "RATE_LIMITED",
            "retryAfter": 2,
        }


async def test_a_rest_call_is_charged_before_it_runs(store, settings, keys):
    """A default page is one unit; per-page=10000 of units costs 130,001: 14 units, all
    of them needed before it runs (what it did not cost comes back after)."""
    limited = replace(settings, rate_limit_per_second=0.01, rate_limit_burst=15)
    app = create_app(limited, store)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="https://t") as client:
        headers = {"API-Key": keys.full}
        small = [await client.get("/v1/units", headers=headers) for _ in range(2)]
        big = await client.get("/v1/units?per-page=10000", headers=headers)  # 13 left
    assert [answer.status_code for answer in small] == [200, 200]
    assert (big.status_code, big.headers["retry-after"]) == (429, "100")


@pytest.mark.security
async def test_a_short_page_is_charged_what_it_holds(store, settings, keys):
    """Issue 30, finding 10: `per-page=10000` answering 16 units was charged 13 units. It
    costs what a page of 16 costs (one unit), kept answers too; a page left past the end
    (no items) costs one. Each still needs its 14 units before it runs."""
    limited = replace(settings, rate_limit_per_second=0.01, rate_limit_burst=20)
    app = create_app(limited, store)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="https://t") as client:
        headers = {"API-Key": keys.full}
        answers = [
            await client.get(url, headers=headers)
            for url in (
                "/v1/units?per-page=10000",
                "/v1/units?per-page=10000",
                "/v1/units?per-page=20000",
                "/v1/units?page=9&per-page=10000",
            )
        ]
    assert [answer.status_code for answer in answers] == [200] * 4
    assert [answer.headers["ratelimit-remaining"] for answer in answers] == ["19", "18", "17", "16"]
    assert answers[3].json()["data"] == []


@pytest.mark.security
async def test_thirty_big_pages_of_twelve_maps_on_a_burst_of_60(demo):
    """Issue 30, finding 10, as measured: a key with burst 60 got 27 of 30
    `GET /v1/maps?per-page=10000` (the demo's dozen maps each) refused, each charged 13
    units; each now costs one."""
    limit = (1.0, 60)
    key = (await create_key(demo.store, "burst 60", [], None, limit)).secret
    await demo.store[RATE_BUDGETS].delete_many({})
    app = create_app(replace(demo.settings, rate_limit_per_second=200), demo.store)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="https://t") as client:
        answers = [
            await client.get("/v1/maps?per-page=10000", headers={"API-Key": key}) for _ in range(30)
        ]
    assert [answer.status_code for answer in answers] == [200] * 30
    assert len(answers[0].json()["data"]) == await demo.store[UNIT_MAPS].count_documents({})
    assert int(answers[-1].headers["ratelimit-remaining"]) >= 60 - 30


@pytest.mark.security
async def test_a_short_graphql_page_is_charged_what_it_holds(store, settings, keys):
    """Finding 10 over `/graphql`: `units(perPage: 10000)` is priced 13 units before it
    runs and charged what its answer holds (a dozen units of 3 fields: one unit), kept answers
    too; the REST route and the document agree. Before, it kept the whole estimate."""
    limited = replace(settings, rate_limit_per_second=0.01, rate_limit_burst=20)
    app = create_app(limited, store)
    transport = httpx.ASGITransport(app=app)
    query = "{ units(perPage: 10000) { data { id name floorId } } }"
    async with httpx.AsyncClient(transport=transport, base_url="https://t") as client:
        headers = {"API-Key": keys.full}
        answers = [
            await client.post("/graphql", json={"query": query}, headers=headers) for _ in range(3)
        ]
        big = "{ assets { data { id units { id name floorId references { key value } } } } }"
        deep = await client.post("/graphql", json={"query": big}, headers=headers)
    assert [answer.status_code for answer in answers] == [200] * 3
    units = await store["units"].count_documents({})
    assert [len(answer.json()["data"]["units"]["data"]) for answer in answers] == [units] * 3
    assert [answer.headers["ratelimit-remaining"] for answer in answers] == ["19", "18", "17"]
    # Priced at a default page of assets of 200 units each with 3 references: 2 units
    # (the first of them with the key's lookup); the answer holds fewer fields.
    assert deep.status_code == 200
    assert deep.headers["ratelimit-remaining"] == "16"


@pytest.mark.security
async def test_a_scoped_key_pays_for_its_own_asset_only(store, settings, keys):
    """The same `/graphql` page with a key scoped to asset-2: it holds asset-2's units
    only, none of another asset's, and the key pays for what it holds (one unit), not
    for the page of every asset that a full key's answer would have been."""
    limited = replace(settings, rate_limit_per_second=0.01, rate_limit_burst=20)
    app = create_app(limited, store)
    transport = httpx.ASGITransport(app=app)
    query = "{ units(perPage: 10000) { data { id assetId } } }"
    async with httpx.AsyncClient(transport=transport, base_url="https://t") as client:
        answer = await client.post(
            "/graphql", json={"query": query}, headers={"API-Key": keys.scoped}
        )
    assert answer.status_code == 200
    units = answer.json()["data"]["units"]["data"]
    assert len(units) == await store["units"].count_documents({"asset_id": "asset-2"}) > 0
    assert {unit["assetId"] for unit in units} == {"asset-2"}
    assert answer.headers["ratelimit-remaining"] == "19"


def rate_headers(response: httpx.Response) -> tuple[str | None, ...]:
    return tuple(
        response.headers.get(f"ratelimit-{name}") for name in ("limit", "remaining", "reset")
    )


async def test_keyed_answers_carry_ratelimit_headers(store, settings, keys):
    """The IETF httpapi draft's headers on every answer to a valid key, REST and GraphQL,
    errors and kept answers alike: limit = the burst, remaining = whole tokens left,
    reset = seconds until the bucket is full. Keyless answers carry none."""
    limited = replace(settings, rate_limit_per_second=0.5, rate_limit_burst=4)
    app = create_app(limited, store)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="https://t") as client:
        key = {"API-Key": keys.full}
        first = await client.get("/v1/assets", headers=key)
        assert rate_headers(first) == ("4", "3", "2")  # one token spent: 2 s to refill it
        missing = await client.get("/v1/units/no-such-unit", headers=key)
        assert missing.status_code == 404 and rate_headers(missing) == ("4", "2", "4")
        graphql = await client.post(
            "/graphql", json={"query": "{ assets { data { id } } }"}, headers=key
        )
        assert graphql.status_code == 200 and rate_headers(graphql) == ("4", "1", "6")
        last = await client.get("/v1/assets", headers=key)
        assert rate_headers(last) == ("4", "0", "8")
        refused = await client.get("/v1/assets", headers=key)
        assert refused.status_code == 429
        assert refused.headers["retry-after"] == "2"
        assert rate_headers(refused) == ("4", "0", "8")
        other = await client.get("/v1/assets", headers={"API-Key": keys.plain})
        assert rate_headers(other) == ("4", "3", "2")  # every key its own bucket
        for keyless in (
            await client.get("/v1/assets"),
            await client.get("/healthz"),
            await client.get("/v1/assets", headers={"API-Key": "fg_nope"}),
        ):
            assert rate_headers(keyless) == (None, None, None)
    unlimited = create_app(replace(settings, rate_limit_per_second=0), store)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=unlimited), base_url="https://t"
    ) as client:
        answer = await client.get("/v1/assets", headers={"API-Key": keys.full})
        assert answer.status_code == 200 and rate_headers(answer) == (None, None, None)


def test_the_default_lets_a_batch_client_of_150_per_second_through(monkeypatch):
    """Issue 17: a browser explorer sends 150 requests/s in batches; with the default
    bucket none is refused over a minute, while twice that rate is."""
    from resolvers.auth import ratelimit
    from storage.settings import Settings

    clock = [1000.0]
    monkeypatch.setattr(ratelimit.time, "monotonic", lambda: clock[0])
    defaults = Settings()

    def refusals(per_second: int) -> int:
        limiter = ratelimit.RateLimiter(defaults.rate_limit_per_second, defaults.rate_limit_burst)
        refused = 0
        for _ in range(60):  # a minute, in bursts of a second's requests at once
            refused += sum(limiter.take("explorer") is not None for _ in range(per_second))
            clock[0] += 1.0
        return refused

    assert refusals(150) == 0
    assert refusals(400) > 0
