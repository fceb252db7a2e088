"""429 with Retry-After once a key spends its burst; other keys are not affected."""

from __future__ import annotations

from dataclasses import replace

import httpx

from rest.app import create_app


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
        graphql = await client.post("/graphql", json={"query": "{ assets { data { id } } }"},
                                    headers={"API-Key": keys.full})
        assert graphql.json()["errors"][0]["extensions"] == {
            "code": "RATE_LIMITED", "retryAfter": 2
        }


async def test_a_rest_call_spends_units_by_its_cost(store, settings, keys):
    """A default page is one unit; per-page=10000 of units costs 120,001: 13 units."""
    limited = replace(settings, rate_limit_per_second=0.01, rate_limit_burst=14)
    app = create_app(limited, store)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="https://t") as client:
        headers = {"API-Key": keys.full}
        big = await client.get("/v1/units?per-page=10000", headers=headers)
        small = await client.get("/v1/units", headers=headers)
        refused = await client.get("/v1/units", headers=headers)
    assert (big.status_code, small.status_code, refused.status_code) == (200, 200, 429)


async def test_a_remembered_cost_spends_the_same_units(store, settings, keys):
    """REST prices a route once per page size: the second identical call, and one over
    the maximum page (clamped), spend 13 units each again, then one unit is left."""
    limited = replace(settings, rate_limit_per_second=0.01, rate_limit_burst=40)
    app = create_app(limited, store)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="https://t") as client:
        headers = {"API-Key": keys.full}
        statuses = [(await client.get(url, headers=headers)).status_code
                    for url in ("/v1/units?per-page=10000", "/v1/units?per-page=10000",
                                "/v1/units?per-page=20000", "/v1/units", "/v1/units")]  # fmt: skip
    assert statuses == [200, 200, 200, 200, 429]
