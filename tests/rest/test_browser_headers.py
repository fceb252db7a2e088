"""Headers for browsers: CORS on /v1, /graphql and /files (any origin by default, a list
when `FLOORGATE_CORS_ORIGINS` is set, never credentials), preflights answered 204, and
HSTS and nosniff on every HTTPS answer. A real Chromium calls the API from another
origin with an `API-Key` header and reads the JSON."""

from __future__ import annotations

import json
import time
from dataclasses import replace

import httpx
import pytest

from rest.app import create_app
from tests.chromium import CHROMIUM, MISSING, offline_browser
from tests.servers import serve_tls

ORIGIN = "https://explorer.example"
EXPOSED = "ETag, Retry-After, X-Request-Id, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset"
PREFLIGHT = {
    "Origin": ORIGIN,
    "Access-Control-Request-Method": "GET",
    "Access-Control-Request-Headers": "api-key, experimental-flags",
}


@pytest.mark.parametrize(
    "path",
    ["/v1/assets", "/v1/maps/map-1/distance-matrix", "/graphql", "/files/maps/map-1/x.map.json"],
)
async def test_preflight_is_204_without_a_key(client, path):
    response = await client.options(path, headers=PREFLIGHT)
    assert response.status_code == 204
    assert response.content == b""
    assert response.headers["access-control-allow-origin"] == "*"
    assert response.headers["access-control-allow-methods"] == "GET, HEAD, POST, PUT, OPTIONS"
    assert response.headers["access-control-allow-headers"] == (
        "API-Key, Experimental-Flags, Content-Type, If-None-Match"
    )
    assert response.headers["access-control-max-age"] == "86400"
    assert "access-control-allow-credentials" not in response.headers
    assert response.headers["x-content-type-options"] == "nosniff"


async def test_options_that_is_no_preflight_is_still_405(client):
    response = await client.options("/v1/assets")
    assert response.status_code == 405
    assert response.headers["allow"] == "GET, HEAD"


async def test_answers_carry_cors_and_expose_headers(client, keys):
    ok = await client.get("/v1/assets", headers={"Origin": ORIGIN, "API-Key": keys.full})
    refused = await client.get("/v1/assets", headers={"Origin": ORIGIN})
    graphql = await client.post(
        "/graphql", json={"query": "{ __typename }"}, headers={"Origin": ORIGIN}
    )
    for response in (ok, refused, graphql):
        assert response.headers["access-control-allow-origin"] == "*"
        assert response.headers["access-control-expose-headers"] == EXPOSED
        assert "access-control-allow-credentials" not in response.headers
    assert (ok.status_code, refused.status_code, graphql.status_code) == (200, 401, 200)


@pytest.mark.parametrize(
    "path",
    ["/v1/assets", "/v1/nowhere", "/graphql", "/healthz", "/v1/openapi.json", "/files/nothing"],
)
async def test_every_https_answer_has_hsts_and_nosniff(client, path):
    response = await client.get(path)
    assert response.headers["strict-transport-security"] == "max-age=31536000"
    assert response.headers["x-content-type-options"] == "nosniff"
    assert len(response.headers.get_list("x-content-type-options")) == 1


async def test_plain_http_health_has_no_hsts(app):
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://probe") as client:
        response = await client.get("/healthz")
    assert response.status_code == 200
    assert "strict-transport-security" not in response.headers
    assert response.headers["x-content-type-options"] == "nosniff"


async def test_narrowed_origins(store, settings, keys):
    app = create_app(replace(settings, cors_origins=(ORIGIN,), hsts_seconds=0), store)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="https://t") as client:
        allowed = await client.get("/v1/assets", headers={"Origin": ORIGIN, "API-Key": keys.full})
        other = await client.get(
            "/v1/assets", headers={"Origin": "https://evil.example", "API-Key": keys.full}
        )
        preflight = await client.options(
            "/v1/assets", headers={**PREFLIGHT, "Origin": "https://evil.example"}
        )
    assert allowed.headers["access-control-allow-origin"] == ORIGIN
    assert "Origin" in allowed.headers.get_list("vary")
    assert "access-control-allow-origin" not in other.headers
    assert other.status_code == 200  # not a browser's business here: CORS is no access check
    assert preflight.status_code == 204
    assert "access-control-allow-origin" not in preflight.headers
    assert "access-control-allow-methods" not in preflight.headers
    assert "strict-transport-security" not in allowed.headers  # hsts_seconds=0


CROSS_ORIGIN_FETCH = """fetch(%s, {headers: {"API-Key": %s, "Experimental-Flags": "references"}})
  .then(async r => JSON.stringify({status: r.status, etag: r.headers.get("x-request-id") !== null,
                                   body: await r.json()}))
  .catch(e => "failed: " + e)"""


def fetch_from_another_origin(served, key: str, tmp_path) -> str:
    """Open a page of https://127.0.0.1:<port> and fetch https://localhost:<port>/v1/assets
    from it: another origin (another host), the same server."""
    deadline = time.monotonic() + 60
    browser = offline_browser(tmp_path / "profile", served.certs.cert, deadline, "127.0.0.1")
    try:
        target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        browser.call("Page.enable", session=session)
        page = f"https://127.0.0.1:{served.port}/healthz"
        browser.call("Page.navigate", {"url": page}, session=session)
        browser.drain(1.0)
        expression = CROSS_ORIGIN_FETCH % (json.dumps(f"{served.base}/v1/assets"), json.dumps(key))
        result = browser.call(
            "Runtime.evaluate", {"expression": expression, "awaitPromise": True}, session=session
        )
        return result["result"]["value"]
    finally:
        browser.close()


@pytest.mark.e2e
@pytest.mark.skipif(CHROMIUM is None, reason=MISSING)
def test_a_page_of_another_origin_reads_the_api(tmp_path, db_server, settings, keys):
    with serve_tls(tmp_path, db_server, settings) as served:
        value = fetch_from_another_origin(served, keys.full, tmp_path)
    answer = json.loads(value)
    assert answer["status"] == 200
    assert answer["etag"] is True  # an exposed header is readable from the page
    assert [asset["id"] for asset in answer["body"]["data"]] == ["asset-1", "asset-2", "asset-3"]


@pytest.mark.e2e
@pytest.mark.skipif(CHROMIUM is None, reason=MISSING)
def test_an_origin_not_listed_cannot_read_it(tmp_path, db_server, settings, keys):
    with serve_tls(
        tmp_path, db_server, settings, FLOORGATE_CORS_ORIGINS="https://explorer.example"
    ) as served:
        value = fetch_from_another_origin(served, keys.full, tmp_path)
    assert value.startswith("failed: TypeError"), value
