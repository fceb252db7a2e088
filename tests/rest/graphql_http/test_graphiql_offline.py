"""GraphiQL must work offline: the page and every asset it loads come from our own host."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from html.parser import HTMLParser

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from rest.graphql_http.graphiql import (
    GRAPHIQL_STATIC_DIR,
    GRAPHIQL_STATIC_PREFIX,
    graphiql_html,
    graphiql_routes,
)

CDN_MARKERS = ("https://unpkg.com", "cdn.jsdelivr", "fonts.googleapis")

EXPECTED_TYPES = {
    ".js": "javascript",
    ".css": "text/css",
    ".svg": "image/svg+xml",
}


class _AssetRefs(HTMLParser):
    """Collect every ``src``/``href`` attribute value in a page."""

    def __init__(self) -> None:
        super().__init__()
        self.refs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("src", "href") and value is not None:
                self.refs.append(value)


def _asset_refs(page: str) -> list[str]:
    parser = _AssetRefs()
    parser.feed(page)
    return parser.refs


async def _graphiql_page(request: Request) -> HTMLResponse:
    return HTMLResponse(graphiql_html())


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    app = Starlette(routes=[Route("/graphql", _graphiql_page), *graphiql_routes()])
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
        yield c


async def test_page_loads_only_local_assets(client: httpx.AsyncClient) -> None:
    resp = await client.get("/graphql")
    assert resp.status_code == 200
    assert resp.headers["content-type"].startswith("text/html")
    page = resp.text
    assert "<title>floorgate GraphiQL</title>" in page

    refs = _asset_refs(page)
    assert refs, "page references no assets"
    for ref in refs:
        assert ref.startswith(GRAPHIQL_STATIC_PREFIX + "/"), ref
    # The page itself names no absolute URL at all (there is no remote host to name).
    assert not re.search(r"https?://", page)
    for marker in CDN_MARKERS:
        assert marker not in page

    names = {ref.rsplit("/", 1)[1] for ref in refs}
    assert {
        "react.production.min.js",
        "react-dom.production.min.js",
        "graphiql.min.js",
        "graphiql.min.css",
    } <= names


async def test_every_asset_is_served_and_cdn_free(client: httpx.AsyncClient) -> None:
    page = (await client.get("/graphql")).text
    for ref in _asset_refs(page):
        resp = await client.get(ref)
        assert resp.status_code == 200, ref
        assert resp.content, ref
        suffix = "." + ref.rsplit(".", 1)[1]
        assert EXPECTED_TYPES[suffix] in resp.headers["content-type"], (ref, resp.headers)
        assert resp.headers["cache-control"] == "public, max-age=86400"
        body = resp.content.decode("utf-8")
        for marker in CDN_MARKERS:
            assert marker not in body, (ref, marker)


def test_no_vendored_file_mentions_a_cdn() -> None:
    """Covers files the page does not reference too (nothing in the dir may phone home)."""
    files = [p for p in GRAPHIQL_STATIC_DIR.iterdir() if p.suffix in (".js", ".css", ".svg")]
    assert len(files) >= 6
    for path in files:
        text = path.read_text(encoding="utf-8")
        for marker in CDN_MARKERS:
            assert marker not in text, (path.name, marker)
        if path.suffix == ".css":
            assert "@import" not in text, path.name
            for target in re.findall(r"url\(\s*['\"]?([^)'\"]*)", text):
                assert target.startswith("data:"), (path.name, target[:80])


async def test_headers_editor_prefilled_with_api_key(client: httpx.AsyncClient) -> None:
    page = (await client.get("/graphql")).text
    match = re.search(
        r'<script type="application/json" id="floorgate-graphiql-config">'
        r"(.*?)</script>",
        page,
    )
    assert match
    config = json.loads(match.group(1))
    assert json.loads(config["defaultHeaders"]) == {
        "API-Key": "",
        "Experimental-Flags": "references, unit-attributes-resource, distances, "
        "locations-resource, directions, search",
    }
    assert config["endpoint"] == "/graphql"
    script = (GRAPHIQL_STATIC_DIR / "floorgate-graphiql.js").read_text(encoding="utf-8")
    assert "defaultHeaders: config.defaultHeaders" in script
    assert "shouldPersistHeaders: false" in script  # the key never reaches localStorage


async def test_missing_asset_is_404(client: httpx.AsyncClient) -> None:
    resp = await client.get(f"{GRAPHIQL_STATIC_PREFIX}/nope.js")
    assert resp.status_code == 404


def test_endpoint_cannot_break_out_of_script() -> None:
    page = graphiql_html("/x</script><script>alert(1)</script>")
    assert "</script><script>alert(1)" not in page
    assert '"endpoint": "/x\\u003c/script\\u003e' in page
