"""GraphiQL keeps no key: the page runs no inline script under a strict CSP, headers are
never persisted, and in headless Chromium (real server, TLS) a query with a typed key
works while the origin's localStorage ends up without any key, an old stored one too."""

from __future__ import annotations

import json
import re
import time
from html.parser import HTMLParser
from urllib.parse import urlsplit

import pytest

from resolvers.auth.permissions import ALL_FLAGS
from rest.graphql_http.graphiql import (
    CONFIG_ELEMENT_ID,
    CONTENT_SECURITY_POLICY,
    GRAPHIQL_SCRIPT,
    GRAPHIQL_STATIC_DIR,
    GRAPHIQL_STATIC_PREFIX,
    graphiql_html,
)
from tests.chromium import (
    CHROMIUM,
    MISSING,
    Chromium,
    console_messages,
    evaluate,
    local_storage,
    offline_browser,
    open_tab,
    wait_until,
)
from tests.servers import serve_tls

BROWSER_SECONDS = 90  # the whole browser run, start to close
DEFAULT_HEADERS = {"API-Key": "", "Experimental-Flags": ", ".join(ALL_FLAGS)}


class _Scripts(HTMLParser):
    """Every <script>: its attributes and its text."""

    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self._open = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script":
            self.scripts.append((dict(attrs), ""))
            self._open = True

    def handle_endtag(self, tag: str) -> None:
        self._open = False if tag == "script" else self._open

    def handle_data(self, data: str) -> None:
        if self._open:
            attributes, text = self.scripts[-1]
            self.scripts[-1] = (attributes, text + data)


def scripts_of(page: str) -> list[tuple[dict[str, str | None], str]]:
    parser = _Scripts()
    parser.feed(page)
    return parser.scripts


def config_of(page: str) -> dict[str, str]:
    blocks = [
        text for attributes, text in scripts_of(page) if attributes.get("id") == CONFIG_ELEMENT_ID
    ]
    assert len(blocks) == 1
    return json.loads(blocks[0])


def directives(policy: str) -> dict[str, list[str]]:
    return {name: values for name, *values in (part.split() for part in policy.split(";"))}


async def test_page_has_a_strict_policy_and_nosniff(client):
    response = await client.get("/graphql", headers={"Accept": "text/html"})  # no key
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] == "no-referrer"
    assert response.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert directives(CONTENT_SECURITY_POLICY) == {
        "default-src": ["'self'"],
        "script-src": ["'self'"],  # no inline script, no eval
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
        "form-action": ["'none'"],
        "frame-ancestors": ["'none'"],
    }


async def test_page_runs_no_inline_script(client):
    page = (await client.get("/graphql", headers={"Accept": "text/html"})).text
    scripts = scripts_of(page)
    sources = [attributes["src"] for attributes, _ in scripts if "src" in attributes]
    assert sources == [
        f"{GRAPHIQL_STATIC_PREFIX}/{name}"
        for name in (
            "react.production.min.js",
            "react-dom.production.min.js",
            "graphiql.min.js",
            "plugin-explorer.umd.js",
            GRAPHIQL_SCRIPT,
        )
    ]
    inline = [(attributes, text) for attributes, text in scripts if "src" not in attributes]
    assert [attributes for attributes, _ in inline] == [
        {"type": "application/json", "id": CONFIG_ELEMENT_ID}  # data: never executed
    ]
    assert all(text == "" for attributes, text in scripts if "src" in attributes)
    assert "<style" not in page  # styles come from files too
    assert " on" not in re.sub(r"<script[^>]*>.*?</script>", "", page, flags=re.DOTALL).lower()


async def test_headers_are_not_persisted_and_start_from_the_template(client):
    page = (await client.get("/graphql", headers={"Accept": "text/html"})).text
    config = config_of(page)
    assert config["endpoint"] == "/graphql"
    assert json.loads(config["defaultHeaders"]) == DEFAULT_HEADERS
    assert config["defaultHeaders"] == json.dumps(DEFAULT_HEADERS, indent=2)
    assert ".floorgate/demo-key" in config["keyHelp"]
    assert "`floorgate keys create`" in config["keyHelp"]
    assert ".floorgate/demo-key" in config["welcomeQuery"]
    assert "floorgate keys create" in config["welcomeQuery"]
    assert "/viewer/maps/map-b1" in config["welcomeQuery"]  # the demo's map viewer
    script = await client.get(f"{GRAPHIQL_STATIC_PREFIX}/{GRAPHIQL_SCRIPT}")
    assert script.status_code == 200
    assert script.headers["content-type"].startswith("text/javascript")
    assert script.headers["x-content-type-options"] == "nosniff"
    assert script.text == (GRAPHIQL_STATIC_DIR / GRAPHIQL_SCRIPT).read_text(encoding="utf-8")
    assert re.findall(r"shouldPersistHeaders: *(\w+)", script.text) == ["false"]
    assert "defaultHeaders: config.defaultHeaders" in script.text
    for text in (page, script.text):  # introspection needs no key: nothing to re-fetch
        assert not re.search(r"re-?fetch", text, re.IGNORECASE)
        assert not re.search(r"https?://", text)


def test_config_cannot_break_out_of_its_block():
    endpoint = "/x</script><script>alert(1)</script><!--"
    page = graphiql_html(endpoint)
    assert "</script><script>alert(1)" not in page
    assert "<!--" not in page
    assert config_of(page)["endpoint"] == endpoint


INTROSPECTION = "{ __schema { queryType { name } } }"
QUERY = '{ asset(id: "asset-1") { id name } }'


async def test_the_unedited_template_loads_the_schema_and_asks_for_a_key(client):
    """What GraphiQL sends before anyone pastes a key: the schema comes, a query is told
    that a key is missing. A placeholder value would have been an INVALID_KEY, even for
    the schema (hence the empty value)."""
    schema = await client.post("/graphql", json={"query": INTROSPECTION}, headers=DEFAULT_HEADERS)
    assert schema.json() == {"data": {"__schema": {"queryType": {"name": "Query"}}}}
    query = await client.post("/graphql", json={"query": QUERY}, headers=DEFAULT_HEADERS)
    assert query.json()["data"] is None
    assert [(e["message"], e["extensions"]["code"]) for e in query.json()["errors"]] == [
        ("No API key found in request", "UNAUTHENTICATED")
    ]
    placeholder = {**DEFAULT_HEADERS, "API-Key": "<paste the key from .floorgate/demo-key>"}
    refused = await client.post("/graphql", json={"query": INTROSPECTION}, headers=placeholder)
    assert [(e["message"], e["extensions"]["code"]) for e in refused.json()["errors"]] == [
        ("Invalid authentication credentials", "INVALID_KEY")
    ]


# ---------------------------------------------------------------- in a browser

OLD_KEY = "fg_stored_by_an_earlier_version"
SEED_OLD_STORAGE = f"""(() => {{
  localStorage.setItem("graphiql:headers", JSON.stringify({{"API-Key": "{OLD_KEY}"}}));
  localStorage.setItem("graphiql:shouldPersistHeaders", "true");
  localStorage.setItem("graphiql:tabState", JSON.stringify({{activeTabIndex: 0, tabs: [{{
    id: "t1", hash: null, title: "old", query: "{{ __typename }}", variables: null,
    headers: JSON.stringify({{"API-Key": "{OLD_KEY}"}}), operationName: null,
    response: null}}]}}));
  localStorage.setItem("graphiql:queries", JSON.stringify({{queries: [{{
    query: "{{ __typename }}", variables: "", headers: JSON.stringify({{"API-Key": "{OLD_KEY}"}})
  }}]}}));
  return localStorage.length;
}})()"""
HEADERS_EDITOR = "document.querySelectorAll('.graphiql-editor-tool .graphiql-editor')[1]"
EDITOR_VALUE = "{editor}.querySelector('.CodeMirror').CodeMirror.getValue()"
RESULT = "document.querySelector('.result-window .CodeMirror').CodeMirror.getValue()"


def type_into(browser: Chromium, session: str, editor: str, text: str) -> str:
    """Select all of a CodeMirror editor and type `text` over it (as keyboard input, not
    through the editor's API); the editor's value after."""
    codemirror = f"{editor}.querySelector('.CodeMirror').CodeMirror"
    evaluate(browser, session, f"{codemirror}.focus(); {codemirror}.execCommand('selectAll')")
    browser.call("Input.insertText", {"text": text}, session=session)
    browser.drain(0.3)
    return evaluate(browser, session, EDITOR_VALUE.format(editor=editor))


@pytest.mark.e2e
@pytest.mark.skipif(CHROMIUM is None, reason=MISSING)
def test_chromium_runs_a_query_and_keeps_no_key(tmp_path, db_server, settings, keys, store):
    deadline = time.monotonic() + BROWSER_SECONDS
    with serve_tls(tmp_path, db_server, settings) as served:
        browser = offline_browser(tmp_path / "profile", served.certs.cert, deadline)
        try:
            session = open_tab(browser)
            # What an earlier version of the page left behind in this browser.
            browser.call("Page.navigate", {"url": f"{served.base}/healthz"}, session=session)
            assert wait_until(browser, session, "document.readyState === 'complete'", 10)
            assert evaluate(browser, session, SEED_OLD_STORAGE) == 4

            browser.drain(0.5)
            start = len(browser.events)  # from here on, the events of the GraphiQL page
            browser.call("Page.navigate", {"url": f"{served.base}/graphql"}, session=session)
            assert wait_until(
                browser,
                session,
                "!!document.querySelector('.graphiql-query-editor .CodeMirror')",
                20,
            )
            assert wait_until(
                browser,
                session,
                "!!document.querySelector("
                "'.graphiql-doc-explorer-root, [aria-label=\"Show Documentation "
                "Explorer\"]:not([disabled])')",
                20,
            )
            browser.drain(1.0)  # the schema fetch
            shown_headers = evaluate(browser, session, EDITOR_VALUE.format(editor=HEADERS_EDITOR))
            footer = evaluate(
                browser, session, "document.querySelector('.graphiql-footer').textContent"
            )

            typed = json.dumps({**DEFAULT_HEADERS, "API-Key": keys.full})
            headers_value = type_into(browser, session, HEADERS_EDITOR, typed)
            query_value = type_into(
                browser, session, "document.querySelector('.graphiql-query-editor')", QUERY
            )
            evaluate(browser, session, "document.querySelector('.graphiql-execute-button').click()")
            result = wait_until(browser, session, f"{RESULT}.includes('asset-1') && {RESULT}", 20)

            # Settings: no "persist headers" switch, and its dialog adds a <style> element
            # (allowed by the page's style-src; a violation would show below).
            evaluate(
                browser,
                session,
                "document.querySelector('[aria-label=\"Open settings dialog\"]').click()",
            )
            settings_text = wait_until(
                browser, session, "document.querySelector('.graphiql-dialog')?.textContent", 10
            )
            browser.drain(1.0)
            events = [
                event for event in browser.events[start:] if event.get("sessionId") == session
            ]
            storage = local_storage(browser, f"{served.base}/healthz")
        finally:
            browser.close()
    assert time.monotonic() < deadline, "the browser run took too long"

    assert json.loads(shown_headers) == DEFAULT_HEADERS  # the old stored key is not shown
    assert "floorgate keys create" in footer and ".floorgate/demo-key" in footer
    assert headers_value == typed
    assert query_value == QUERY
    assert json.loads(result) == {"data": {"asset": {"id": "asset-1", "name": "Harbor View"}}}
    assert "Persist headers" not in settings_text

    requests = {
        event["params"]["requestId"]: event["params"]["request"]
        for event in events
        if event["method"] == "Network.requestWillBeSent"
    }
    origin = urlsplit(served.base)[:2]
    elsewhere = [
        url
        for url in (r["url"] for r in requests.values())
        if urlsplit(url)[:2] != origin and not url.startswith("data:")
    ]
    assert elsewhere == []
    posts = [json.loads(r["postData"])["query"] for r in requests.values() if r["method"] == "POST"]
    assert "IntrospectionQuery" in posts[0]
    assert posts[-1] == QUERY
    statuses = {
        urlsplit(event["params"]["response"]["url"]).path: event["params"]["response"]["status"]
        for event in events
        if event["method"] == "Network.responseReceived"
    }
    assert set(statuses.values()) == {200}, statuses

    problems = [
        (level, text)
        for level, text in console_messages(events)
        if level in ("error", "exception", "assert") or "Content Security Policy" in text
    ]
    assert problems == []

    stored = json.dumps(storage)
    assert keys.full not in stored
    assert OLD_KEY not in stored
    assert "graphiql:headers" not in storage
    template = json.dumps(DEFAULT_HEADERS, indent=2)
    tabs = json.loads(storage["graphiql:tabState"])["tabs"]
    assert [tab["query"] for tab in tabs] == ["{ __typename }", QUERY]
    assert {tab["headers"] for tab in tabs} <= {None, template}
    history = json.loads(storage["graphiql:queries"])["queries"]
    assert [(item["query"], item["headers"]) for item in history] == [
        ("{ __typename }", template),
        (QUERY, template),
    ]
