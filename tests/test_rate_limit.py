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


def rate_headers(response: httpx.Response) -> tuple[str | None, ...]:
    return tuple(response.headers.get(f"ratelimit-{name}") for name in ("limit", "remaining",
                                                                         "reset"))  # fmt: skip


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
        graphql = await client.post("/graphql", json={"query": "{ assets { data { id } } }"},
                                    headers=key)  # fmt: skip
        assert graphql.status_code == 200 and rate_headers(graphql) == ("4", "1", "6")
        last = await client.get("/v1/assets", headers=key)
        assert rate_headers(last) == ("4", "0", "8")
        refused = await client.get("/v1/assets", headers=key)
        assert refused.status_code == 429
        assert refused.headers["retry-after"] == "2"
        assert rate_headers(refused) == ("4", "0", "8")
        other = await client.get("/v1/assets", headers={"API-Key": keys.plain})
        assert rate_headers(other) == ("4", "3", "2")  # every key its own bucket
        for keyless in (await client.get("/v1/assets"), await client.get("/healthz"),
                        await client.get("/v1/assets", headers={"API-Key": "fg_nope"})):
            assert rate_headers(keyless) == (None, None, None)
    unlimited = create_app(replace(settings, rate_limit_per_second=0), store)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=unlimited),
                                 base_url="https://t") as client:  # fmt: skip
        answer = await client.get("/v1/assets", headers={"API-Key": keys.full})
        assert answer.status_code == 200 and rate_headers(answer) == (None, None, None)


def test_the_default_lets_a_batch_client_of_150_per_second_through(monkeypatch):
    """Issue 17: a browser explorer sends 150 requests/s in batches; with the default
    bucket none is refused over a minute, while twice that rate is."""
    from resolvers import ratelimit
    from storage.settings import Settings

    clock = [1000.0]
    monkeypatch.setattr(ratelimit.time, "monotonic", lambda: clock[0])
    defaults = Settings()

    def refusals(per_second: int) -> int:
        limiter = ratelimit.RateLimiter(defaults.rate_limit_per_second,
                                        defaults.rate_limit_burst)  # fmt: skip
        refused = 0
        for _ in range(60):  # a minute, in bursts of a second's requests at once
            refused += sum(limiter.take("explorer") is not None for _ in range(per_second))
            clock[0] += 1.0
        return refused

    assert refusals(150) == 0
    assert refusals(400) > 0


def test_a_share_splits_every_limit():
    """`serve --workers 2`: each worker keeps half of the rate and of the burst, so the
    two together never allow more than the setting."""
    from resolvers.ratelimit import RateLimiter

    limiter = RateLimiter(100, 400, share=2)
    assert limiter.status("k") == (200, 200, 0)
    assert [limiter.take("k") for _ in range(201)][-2:] == [None, 1]
    assert limiter.status("own", (10, 20)) == (10, 10, 0)
    assert RateLimiter(1, 1, share=4).status("k") == (1, 1, 0)  # never below one token


def test_serve_with_two_workers_splits_the_limit(tmp_path, db_server, settings, keys):
    import ssl

    from tests.servers import serve_tls_with_args

    with serve_tls_with_args(tmp_path, db_server, settings, ("--workers", "2"),
                             FLOORGATE_RATE_LIMIT_PER_SECOND="1",
                             FLOORGATE_RATE_LIMIT_BURST="6") as served:  # fmt: skip
        tls = ssl.create_default_context(cafile=str(served.certs.ca_cert))
        answer = httpx.get(f"{served.base}/v1/assets", headers={"API-Key": keys.full},
                           verify=tls, timeout=10)  # fmt: skip
    assert answer.status_code == 200
    assert answer.headers["ratelimit-limit"] == "3"
