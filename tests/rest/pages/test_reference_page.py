"""The API reference page at /v1/openapi: only same-origin files, a strict CSP, and in a
real headless Chromium it renders every route of the table, contacting no other host."""

from __future__ import annotations

import hashlib
import json
import re
import time
from html.parser import HTMLParser
from urllib.parse import urlsplit

import pytest

from rest.pages.reference_page import (
    CONTENT_SECURITY_POLICY,
    SWAGGER_UI_STATIC_DIR,
    SWAGGER_UI_STATIC_PREFIX,
)
from rest.v1.routes import ROUTES
from tests.chromium import CHROMIUM, MISSING, offline_browser
from tests.servers import serve_tls

TYPES = {".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml"}
BROWSER_SECONDS = 60  # the whole browser run, start to close


class _Refs(HTMLParser):
    """`src` of scripts and `href` of links: everything the page makes the browser load."""

    def __init__(self) -> None:
        super().__init__()
        self.refs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        wanted = {"script": "src", "link": "href"}.get(tag)
        self.refs += [value for name, value in attrs if name == wanted and value]


def refs_of(page: str) -> list[str]:
    parser = _Refs()
    parser.feed(page)
    return parser.refs


def directives(policy: str) -> dict[str, list[str]]:
    return {name: values for name, *values in (part.split() for part in policy.split(";"))}


async def test_page_is_same_origin_html_with_a_strict_policy(client):
    response = await client.get("/v1/openapi")  # no API key
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert "<title>floorgate API reference</title>" in response.text
    assert not re.search(r"https?://", response.text)
    assert response.headers["referrer-policy"] == "no-referrer"
    assert response.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    policy = directives(CONTENT_SECURITY_POLICY)
    assert policy["default-src"] == ["'self'"]
    assert policy["script-src"] == ["'self'"]  # no inline script, no eval
    assert policy["connect-src"] == ["'self'"]
    assert policy["img-src"] == ["'self'", "data:"]
    assert policy["style-src"] == ["'self'", "'unsafe-inline'"]


async def test_every_asset_of_the_page_is_served_from_this_origin(client):
    refs = refs_of((await client.get("/v1/openapi")).text)
    assert {
        f"{SWAGGER_UI_STATIC_PREFIX}/swagger-ui-bundle.js",
        f"{SWAGGER_UI_STATIC_PREFIX}/swagger-ui.css",
    } <= set(refs)
    for ref in refs:
        assert ref.startswith("/") and not ref.startswith("//"), ref
        response = await client.get(ref)
        assert response.status_code == 200, ref
        media_type = response.headers["content-type"].split(";")[0]
        assert media_type == TYPES["." + ref.rsplit(".", 1)[1]], (ref, media_type)
        assert response.headers["cache-control"] == "public, max-age=86400"
    bundle = await client.get(f"{SWAGGER_UI_STATIC_PREFIX}/swagger-ui-bundle.js")
    assert bundle.headers["content-encoding"] == "gzip"  # 1.7 MB as is


async def test_init_script_loads_the_same_origin_document_without_validator(client):
    script = (await client.get(f"{SWAGGER_UI_STATIC_PREFIX}/floorgate-init.js")).text
    assert 'url: "/v1/openapi.json"' in script
    assert "validatorUrl: null" in script
    assert "deepLinking: true" in script
    assert 'docExpansion: "list"' in script
    assert "tryItOutEnabled" not in script
    assert not re.search(r"https?://", script)
    document = await client.get("/v1/openapi.json")
    assert document.status_code == 200  # what the script loads, without a key


def test_vendored_files_match_their_readme_and_reference_no_source_map():
    readme = (SWAGGER_UI_STATIC_DIR / "README.md").read_text(encoding="utf-8")
    digests = dict(re.findall(r"^\| `([^`]+)` .*`([0-9a-f]{64})` \|$", readme, re.MULTILINE))
    assert {"swagger-ui-bundle.js", "swagger-ui.css", "LICENSE"} <= set(digests)
    for name, digest in digests.items():
        assert hashlib.sha256((SWAGGER_UI_STATIC_DIR / name).read_bytes()).hexdigest() == digest
    for path in [*SWAGGER_UI_STATIC_DIR.glob("*.js"), *SWAGGER_UI_STATIC_DIR.glob("*.css")]:
        text = path.read_text(encoding="utf-8")
        assert "sourceMappingURL" not in text, path.name
        if path.suffix == ".css":
            assert "@import" not in text
            for target in re.findall(r"url\(\s*['\"]?([^)'\"]*)", text):
                assert target.startswith("data:"), target[:80]


RENDERED_OPERATIONS = """JSON.stringify(Array.from(document.querySelectorAll(".opblock"), b => ({
  id: b.id,
  method: b.querySelector(".opblock-summary-method")?.textContent,
  path: b.querySelector(".opblock-summary-path")?.textContent,
})))"""


def problems(events: list[dict]) -> list[str]:
    """Script errors, and what the browser logs as an error (CSP violations, failed loads)."""
    found = []
    for event in events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            found.append(details.get("exception", {}).get("description") or details["text"])
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            found.append(params["entry"]["text"])
        elif method == "Runtime.consoleAPICalled" and params["type"] == "error":
            found.append(
                " ".join(str(arg.get("value", arg.get("description"))) for arg in params["args"])
            )
    return found


@pytest.mark.e2e
@pytest.mark.skipif(CHROMIUM is None, reason=MISSING)
def test_chromium_renders_every_route_offline(tmp_path, db_server, settings):
    """Other hosts do not resolve in this browser, so a page that needs one fails here."""
    deadline = time.monotonic() + BROWSER_SECONDS
    with serve_tls(tmp_path, db_server, settings) as served:
        browser = offline_browser(tmp_path / "profile", served.certs.cert, deadline)
        try:
            target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
            session = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})[
                "sessionId"
            ]
            for domain in ("Network", "Log", "Runtime", "Page"):
                browser.call(f"{domain}.enable", session=session)
            browser.call("Page.navigate", {"url": f"{served.base}/v1/openapi"}, session=session)
            operations: list[dict[str, str]] = []
            while len(operations) < len(ROUTES) and time.monotonic() < deadline - 10:
                if problems(browser.events):
                    break  # reported below; no point waiting for the rest
                browser.drain(0.2)
                result = browser.call(
                    "Runtime.evaluate", {"expression": RENDERED_OPERATIONS}, session=session
                )
                operations = json.loads(result["result"]["value"])
            browser.drain(1.0)  # anything the page still requests after rendering
            html = browser.call(
                "Runtime.evaluate",
                {"expression": "document.documentElement.outerHTML"},
                session=session,
            )["result"]["value"]
        finally:
            browser.close()
    assert time.monotonic() < deadline, "the browser run took too long"

    events = [event for event in browser.events if event.get("sessionId") == session]
    requested = [
        event["params"]["request"]["url"]
        for event in events
        if event["method"] == "Network.requestWillBeSent"
    ]
    origin = urlsplit(served.base)[:2]
    elsewhere = [
        url for url in requested if urlsplit(url)[:2] != origin and not url.startswith("data:")
    ]
    assert not elsewhere, f"the page contacted another host: {elsewhere}"
    assert not problems(events), "\n".join(problems(events))
    assert f"{served.base}/v1/openapi.json" in requested
    statuses = {
        event["params"]["response"]["url"]: event["params"]["response"]["status"]
        for event in events
        if event["method"] == "Network.responseReceived"
    }
    assert statuses and set(statuses.values()) == {200}, statuses
    failed = [event["params"] for event in events if event["method"] == "Network.loadingFailed"]
    assert not failed, failed

    for route in ROUTES:
        operation_id = re.escape(route.operation_id)
        assert re.search(f'id="operations-[^"]*-{operation_id}"', html), route.operation_id
        found = [
            (op["method"], op["path"])
            for op in operations
            if re.fullmatch(f"operations-.+-{operation_id}", op["id"])
        ]
        assert found == [(route.method, route.path)], (route.operation_id, operations)
