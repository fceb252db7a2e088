"""/metrics: scraped after traffic it finds the counters; loopback needs no key,
anyone else a key with service.admin; labels stay within bounded sets."""

from __future__ import annotations

from dataclasses import replace

import httpx
import pytest

from rest.app import create_app


def scrape_lines(text: str) -> dict[str, float]:
    """`name{labels}` -> value of every sample line."""
    samples = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            samples[name] = float(value)
    return samples


def client_of(app, host: str = "127.0.0.1", scheme: str = "https") -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=(host, 40000))
    return httpx.AsyncClient(transport=transport, base_url=f"{scheme}://t")


@pytest.fixture
def fresh_app(store, settings):
    return create_app(replace(settings, rate_limit_per_second=0.01, rate_limit_burst=6), store)


async def test_metrics_count_the_traffic(fresh_app, keys):
    key = {"API-Key": keys.full}
    async with client_of(fresh_app) as client:
        for _ in range(2):
            assert (await client.get("/v1/units?per-page=5", headers=key)).status_code == 200
        assert (await client.get("/v1/units/no-such", headers=key)).status_code == 404
        query = {"query": "{ units(perPage: 3) { data { id } } }"}
        assert (await client.post("/graphql", json=query, headers=key)).status_code == 200
        for _ in range(3):  # one unit each: the burst of 6 is spent by the second, a 429
            await client.get("/v1/assets", headers=key)
        await client.request("BREW", "/no/such/path/9f3a")  # bounded labels
        await client.get("/v1/no-such-route", headers=key)
        scraped = await client.get("/metrics")
    assert scraped.status_code == 200
    assert scraped.headers["content-type"] == "text/plain; version=1.0.0; charset=utf-8"
    samples = scrape_lines(scraped.text)
    def requests(route: str, method: str, status: str) -> str:
        return f'floorgate_requests_total{{method="{method}",route="{route}",status="{status}"}}'

    assert samples[requests("listUnits", "GET", "200")] == 2
    assert samples[requests("getUnit", "GET", "404")] == 1
    assert samples[requests("graphql", "POST", "200")] == 1
    assert samples[requests("listAssets", "GET", "200")] == 2
    assert samples[requests("listAssets", "GET", "429")] == 1
    assert samples[requests("other", "other", "404")] == 1
    assert samples[requests("other", "GET", "404")] == 1
    assert not any("9f3a" in name or "BREW" in name for name in samples)
    assert samples['floorgate_request_duration_seconds_count{route="listUnits"}'] == 2
    assert samples['floorgate_request_duration_seconds_bucket{le="+Inf",route="listUnits"}'] == 2
    assert samples["floorgate_graphql_cost_count"] == 6  # every request charged (not the 429)
    assert samples['floorgate_rate_limited_total{limit="key"}'] == 1
    assert samples['floorgate_db_command_duration_seconds_count{command="find"}'] >= 1
    for name in ("floorgate_read_cache_hits_total", "floorgate_read_cache_bytes",
                 "floorgate_read_cache_live"):  # fmt: skip
        assert name in samples


async def test_who_may_scrape(store, settings, keys):
    app = create_app(settings, store)
    async with client_of(app, "10.0.0.9") as remote:
        assert (await remote.get("/metrics")).status_code == 401
        plain = await remote.get("/metrics", headers={"API-Key": keys.plain})
        assert (plain.status_code, plain.json()["message"]) == (
            403, "Access denied: missing permission service.admin")  # fmt: skip
        scoped = await remote.get("/metrics", headers={"API-Key": keys.scoped})
        assert scoped.status_code == 403  # a key of another asset, without service.admin
        admin = await remote.get("/metrics", headers={"API-Key": keys.full})
        assert admin.status_code == 200 and "floorgate_requests_total" in admin.text
    async with client_of(app, "127.0.0.1", scheme="http") as local_http:
        assert (await local_http.get("/metrics")).status_code == 200  # a scraper beside it
        assert (await local_http.get("/v1/assets")).status_code == 403  # HTTPS still required
    async with client_of(app, "10.0.0.9", scheme="http") as remote_http:
        refused = await remote_http.get("/metrics", headers={"API-Key": keys.full})
        assert refused.status_code == 403 and refused.json()["message"] == "HTTPS is required"
    off = create_app(replace(settings, metrics=False), store)
    async with client_of(off) as client:
        missing = await client.get("/metrics")
        assert (missing.status_code, missing.json()) == (404, {"message": "Not found"})
