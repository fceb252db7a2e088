"""`service.metrics`: a scraper's key reads /metrics from any address over HTTPS, and
nothing else (403 in the API's format on every other keyed route, GraphQL included);
held with other permissions it only adds /metrics to them."""

from __future__ import annotations

import httpx
import pytest

from resolvers.auth.keys import create_key
from resolvers.auth.permissions import METRICS, UNIT_MAPS_PARSE
from rest.app import create_app

REFUSED = {
    "message": "Access denied: missing permission to read data "
    "(this key holds service.metrics only: it reads /metrics)"
}


def remote(app, scheme: str = "https") -> httpx.AsyncClient:
    """A client at an address that is not loopback (a scraping pod's)."""
    transport = httpx.ASGITransport(app=app, client=("10.20.30.40", 40000))
    return httpx.AsyncClient(transport=transport, base_url=f"{scheme}://t")


@pytest.fixture
def metrics_app(store, settings):
    return create_app(settings, store)


async def test_a_metrics_key_reads_metrics_and_nothing_else(metrics_app, store):
    # Even with a scope of every asset: the permission alone decides.
    secret = (await create_key(store, "prometheus", [METRICS], None)).secret
    key = {"API-Key": secret}
    async with remote(metrics_app) as client:
        scraped = await client.get("/metrics", headers=key)
        by_query = await client.get(f"/metrics?api-key={secret}")
        refused = {
            "assets": await client.get("/v1/assets", headers=key),
            "units": await client.get("/v1/units?per-page=5", headers=key),
            "unit maps": await client.get("/v1/maps", headers=key),
            "references": await client.get(
                "/v1/units/references?key=realpage",
                headers={**key, "Experimental-Flags": "references"},
            ),
            "graphql post": await client.post(
                "/graphql", json={"query": "{ assets { data { id } } }"}, headers=key
            ),
            "graphql get": await client.get(
                "/graphql", params={"query": "{ units(perPage: 1) { data { id } } }"}, headers=key
            ),
            "graphql introspection": await client.post(
                "/graphql", json={"query": "{ __typename }"}, headers=key
            ),
        }
    assert scraped.status_code == 200
    assert scraped.headers["content-type"] == "text/plain; version=1.0.0; charset=utf-8"
    assert "floorgate_requests_total" in scraped.text
    assert by_query.status_code == 200
    for route, answer in refused.items():
        assert answer.headers["content-type"] == "application/json", route
        if route.startswith("graphql"):  # /graphql's form of a refused key: 200, no data
            assert (route, answer.status_code) == (route, 200)
            assert answer.json() == {
                "data": None,
                "errors": [{**REFUSED, "extensions": {"code": "FORBIDDEN"}}],
            }, route
        else:
            assert (route, answer.status_code, answer.json()) == (route, 403, REFUSED)


async def test_metrics_over_plain_http_from_afar_is_refused(metrics_app, store):
    secret = (await create_key(store, "prometheus http", [METRICS], None)).secret
    async with remote(metrics_app, scheme="http") as client:
        answer = await client.get("/metrics", headers={"API-Key": secret})
    assert (answer.status_code, answer.json()) == (403, {"message": "HTTPS is required"})


async def test_with_other_permissions_it_adds_metrics(metrics_app, store, keys):
    both = (await create_key(store, "parser and scraper", [METRICS, UNIT_MAPS_PARSE], None)).secret
    async with remote(metrics_app) as client:
        assets = await client.get("/v1/assets", headers={"API-Key": both})
        scraped = await client.get("/metrics", headers={"API-Key": both})
        admin = await client.get("/metrics", headers={"API-Key": keys.full})
        plain = await client.get("/metrics", headers={"API-Key": keys.plain})
        keyless = await client.get("/metrics")
    assert assets.status_code == 200 and assets.json()["data"]
    assert scraped.status_code == admin.status_code == 200
    assert (plain.status_code, plain.json()) == (
        403,
        {"message": "Access denied: missing permission service.metrics"},
    )
    assert keyless.status_code == 401
    assert keyless.json() == {"message": "No API key found in request"}
