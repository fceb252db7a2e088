"""/files cannot hurt: a map's uploaded drawing has no address derivable from the map
id, every answer says `nosniff`, an SVG is a sandboxed attachment, and `If-None-Match`
matches whole tags only. The last test opens a hostile drawing in headless Chromium
from `floorgate serve` over TLS and shows that nothing in it runs.

Maps are stored through `putUnitMap`, on a database of the test's own.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import re
import ssl
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
import pytest_asyncio

from resolvers.auth.keys import create_key
from resolvers.auth.permissions import ADMIN, ALL_PERMISSIONS
from rest.app import create_app
from rest.etags import etag_matches
from rest.pages.files import SANDBOX_POLICY, attachment, renders_as_document
from storage import collections as col
from storage.database import connect
from storage.files import content_name, put_file
from storage.imports.importer import import_data
from storage.settings import Settings
from tests._dbserver import fresh_store
from tests.chromium import (
    CHROMIUM,
    MISSING,
    Chromium,
    console_messages,
    local_storage,
    offline_browser,
    open_tab,
    start_navigation,
    wait_for_event,
)
from tests.servers import serve_tls

PUBLIC = "https://maps.floorgate.test"
IMMUTABLE = "public, max-age=31536000, immutable"
BROWSER_SECONDS = 90  # the whole browser run, start to close

UNITS = '<rect data-unit-id="u1" x="0" y="0" width="100" height="100"/>'


def drawing(units: str = UNITS, extra: str = "", root_attributes: str = "") -> str:
    """A one-level unit map; `extra` goes before the level, `root_attributes` on <svg>."""
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="400" height="200"{root_attributes}>\n'
        f"{extra}"
        '<g id="L1" data-level="Level 1" data-tag-floor="f1" data-level-index="1">\n'
        f'<g data-layer="units">{units}</g>\n'
        "</g>\n"
        "</svg>\n"
    )


def base_data() -> dict[str, Any]:
    """An asset with a floor and units, and no maps: maps come through `putUnitMap`."""
    return {
        "assets": [{"id": "a1", "market": "multifamily", "name": "Alpha"}],
        "floors": [{"id": "f1", "asset_id": "a1", "name": "Floor 1", "sort": 1}],
        "units": [
            {"id": f"u{n}", "asset_id": "a1", "floor_id": "f1", "name": str(n)} for n in (1, 2)
        ],
    }


PUT = """mutation ($input: UnitMapInput!, $svg: String!) {
  putUnitMap(input: $input, svg: $svg) { id url }
}"""


def put_body(map_id: str, svg: str) -> dict[str, Any]:
    return {
        "query": PUT,
        "variables": {"input": {"id": map_id, "assetId": "a1", "name": "M"}, "svg": svg},
    }


@pytest_asyncio.fixture(loop_scope="session")
async def store(db_server):
    async with fresh_store(db_server) as store:
        await import_data(store, base_data(), Path("."))
        yield store


@pytest_asyncio.fixture(loop_scope="session")
async def client(store, tmp_path):
    settings = Settings(data_dir=tmp_path, public_url=PUBLIC, rate_limit_per_second=0)
    transport = httpx.ASGITransport(app=create_app(settings, store))
    async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as client:
        client.headers["API-Key"] = (await create_key(store, "ops", [ADMIN], None)).secret
        yield client


async def put_map(client, store, svg: str, map_id: str = "m1") -> dict[str, Any]:
    """Store a map with this drawing through the API; its stored record."""
    response = await client.post("/graphql", json=put_body(map_id, svg))
    assert response.status_code == 200
    assert "errors" not in response.json(), response.json()
    return await store[col.UNIT_MAPS].find_one({"_id": map_id})


async def stored_names(store) -> list[str]:
    return sorted(f.filename for f in await store.files.find({}).to_list())


# ---------------------------------------------------------------- addresses


async def test_the_source_drawing_has_a_content_address_not_the_map_id(client, store):
    unit_map = await put_map(client, store, drawing())
    source = unit_map["source_file"]
    assert source == content_name("m1", drawing().encode(), ".source.svg")
    assert re.fullmatch(r"maps/m1/[0-9a-f]{20}\.source\.svg", source)

    served = await client.get(f"/files/{source}")
    assert served.status_code == 200
    assert served.content == drawing().encode()
    old_address = await client.get("/files/maps/m1/source.svg")
    assert old_address.status_code == 404
    assert old_address.json() == {"message": "Not found"}
    # The API publishes the parsed document's address, never the drawing's.
    read = await client.get("/v1/maps/m1")
    assert read.status_code == 200
    assert source not in read.text
    assert read.json()["url"] == f"{PUBLIC}/files/{unit_map['parsed_file']}"


async def test_a_reimport_leaves_only_the_new_source(client, store):
    first = await put_map(client, store, drawing())
    # A database from before content addresses: its drawing sits at the guessable name.
    await put_file(store, "maps/m1/source.svg", drawing().encode(), "image/svg+xml")
    two_units = UNITS + '<rect data-unit-id="u2" x="100" y="0" width="100" height="100"/>'
    second = await put_map(client, store, drawing(two_units))
    assert second["source_file"] == content_name("m1", drawing(two_units).encode(), ".source.svg")
    assert second["source_file"] != first["source_file"]
    assert await stored_names(store) == sorted([second["source_file"], second["parsed_file"]])
    for gone in (first["source_file"], first["parsed_file"], "maps/m1/source.svg"):
        assert (await client.get(f"/files/{gone}")).status_code == 404, gone
    assert (await client.get(f"/files/{second['source_file']}")).content == (
        drawing(two_units).encode()
    )


async def test_a_plain_javascript_link_is_refused_at_upload(client, store):
    """Why the browser test below sets its link through an animation."""
    link = '<a href="javascript:alert(1)"><rect x="0" y="0" width="9" height="9"/></a>\n'
    response = await client.post("/graphql", json=put_body("m1", drawing(extra=link)))
    error = response.json()["errors"][0]
    assert error["extensions"]["code"] == "BAD_USER_INPUT"
    assert error["extensions"]["fields"] == {
        "svg": [
            'is not a usable unit map: <a> refers to "javascript:alert(1)" outside the SVG; '
            'only "#id" references and data: URIs are allowed (line 2)'
        ]
    }
    assert await stored_names(store) == []


# ---------------------------------------------------------------- headers


async def test_every_answer_carries_nosniff_and_only_svg_is_sandboxed(client, store):
    unit_map = await put_map(client, store, drawing())
    document = await client.get(f"/files/{unit_map['parsed_file']}")
    assert document.status_code == 200
    assert document.headers["content-type"] == "application/vnd.map+json"
    assert document.headers["x-content-type-options"] == "nosniff"
    assert document.headers["cache-control"] == IMMUTABLE
    assert "content-security-policy" not in document.headers
    assert "content-disposition" not in document.headers

    again = await client.get(
        f"/files/{unit_map['parsed_file']}", headers={"If-None-Match": document.headers["etag"]}
    )
    assert again.status_code == 304
    assert again.content == b""
    assert again.headers["x-content-type-options"] == "nosniff"
    assert again.headers["etag"] == document.headers["etag"]

    missing = await client.get("/files/maps/m1/0123456789abcdef0123.source.svg")
    assert missing.status_code == 404
    assert missing.headers["x-content-type-options"] == "nosniff"
    assert missing.json() == {"message": "Not found"}


async def test_an_svg_is_a_sandboxed_attachment_on_200_and_304(client, store):
    unit_map = await put_map(client, store, drawing())
    address = f"/files/{unit_map['source_file']}"
    served = await client.get(address)
    expected = {
        "content-type": "image/svg+xml",
        "x-content-type-options": "nosniff",
        "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; sandbox",
        "content-disposition": 'attachment; filename="m1.source.svg"',
        "cache-control": IMMUTABLE,
    }
    assert served.status_code == 200
    assert {name: served.headers.get(name) for name in expected} == expected
    assert expected["content-security-policy"] == SANDBOX_POLICY

    again = await client.get(address, headers={"If-None-Match": served.headers["etag"]})
    assert again.status_code == 304
    del expected["content-type"]
    assert {name: again.headers.get(name) for name in expected} == expected


async def test_an_old_guessable_source_is_still_sandboxed_until_replaced(client, store):
    await put_file(store, "maps/m9/source.svg", b"<svg/>", "image/svg+xml")
    served = await client.get("/files/maps/m9/source.svg")
    assert served.status_code == 200
    assert served.headers["cache-control"] == "public, max-age=300"
    assert served.headers["content-security-policy"] == SANDBOX_POLICY
    assert served.headers["content-disposition"] == 'attachment; filename="m9.source.svg"'
    assert served.headers["x-content-type-options"] == "nosniff"


async def test_a_map_id_any_characters_gives_a_safe_download_name(client, store):
    map_id = 'Harbor View/棟 "1"'
    unit_map = await put_map(client, store, drawing(), map_id)
    assert unit_map["source_file"].startswith("maps/Harbor%20View%2F%E6%A3%9F%20%221%22/")
    served = await client.get(f"/files/{unit_map['source_file']}")
    assert served.status_code == 200
    assert served.headers["content-disposition"] == (
        'attachment; filename="Harbor_View____1_.source.svg"; '
        "filename*=UTF-8''Harbor%20View%2F%E6%A3%9F%20%221%22.source.svg"
    )


def test_attachment_names_files_by_map_and_kind():
    assert attachment("maps/m1/0123456789abcdef0123.source.svg") == (
        'attachment; filename="m1.source.svg"'
    )
    assert attachment("maps/m1/source.svg") == 'attachment; filename="m1.source.svg"'
    assert attachment("other/plan.svg") == 'attachment; filename="plan.svg"'


@pytest.mark.parametrize(
    ("media_type", "document"),
    [
        ("image/svg+xml", True),
        ("IMAGE/SVG+XML; charset=utf-8", True),
        ("text/xml", True),
        ("application/xml", True),
        ("application/rss+xml", True),
        ("text/html", True),
        ("application/xhtml+xml", True),
        ("application/vnd.map+json", False),
        ("application/geo+json", False),
        ("application/vnd.floorgate.walk-graph+npz", False),
        ("application/octet-stream", False),
    ],
)
def test_which_media_types_render_as_documents(media_type, document):
    assert renders_as_document(media_type) is document


# ---------------------------------------------------------------- If-None-Match

IF_NONE_MATCH = [
    ('"{etag}"', 304),
    ('W/"{etag}"', 304),
    ('"other", W/"{etag}"', 304),
    ('"other",W/"{etag}" , "more"', 304),
    ("*", 304),
    (" * ", 304),
    ('W/"{etag}-garbage"', 200),
    ('W/"{etag}"-garbage', 200),
    ('"{etag}"garbage', 200),
    ('garbage"{etag}"', 200),
    ('"{etag}x"', 200),
    ('"x{etag}"', 200),
    ("{etag}", 200),  # unquoted
    ('"{etag}', 200),  # unterminated
    ('"other"', 200),
    ("", 200),
]


@pytest.mark.parametrize(("header", "status"), IF_NONE_MATCH)
async def test_if_none_match_matches_whole_tags_only(client, store, header, status):
    unit_map = await put_map(client, store, drawing())
    address = f"/files/{unit_map['parsed_file']}"
    etag = (await client.get(address)).headers["etag"].strip('"')
    response = await client.get(address, headers={"If-None-Match": header.format(etag=etag)})
    assert response.status_code == status
    assert response.headers["etag"] == f'"{etag}"'
    assert response.headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize(("header", "status"), IF_NONE_MATCH)
def test_etag_matches_is_the_same_rule(header, status):
    assert etag_matches(header.format(etag="abc"), "abc") is (status == 304)
    assert etag_matches(None, "abc") is False


# ---------------------------------------------------------------- in a browser

MARK = "floorgate-pwned"
HOSTILE = drawing(
    root_attributes=(
        f" onload=\"document.title='{MARK}-onload'; localStorage.setItem('{MARK}', 'onload');"
        f" fetch('/{MARK}/onload')\""
    ),
    extra=(
        f"<script>document.title = '{MARK}-script'; localStorage.setItem('{MARK}-script',"
        f" 'script'); fetch('/{MARK}/script');</script>\n"
        # The parser refuses href="javascript:..."; an animation sets it anyway.
        f'<a><set attributeName="href" to="javascript:document.title=\'{MARK}-link\';'
        f"fetch('/{MARK}/link')\"/>"
        '<rect x="200" y="0" width="200" height="200" fill="red"/></a>\n'
    ),
)


async def _prepare(uri: str, settings: Settings) -> str:
    """The served database: an asset to put the map on, and an admin key."""
    store = connect(uri, settings)
    try:
        await store.ensure_indexes()
        await import_data(store, base_data(), Path("."))
        return (await create_key(store, "ops", list(ALL_PERMISSIONS), None)).secret
    finally:
        await store.close()


async def _source_file(uri: str, settings: Settings, map_id: str) -> str:
    store = connect(uri, settings)
    try:
        return (await store[col.UNIT_MAPS].find_one({"_id": map_id}))["source_file"]
    finally:
        await store.close()


async def _drop(uri: str, settings: Settings) -> None:
    store = connect(uri, settings)
    try:
        await store.client.drop_database(settings.database_name)
    finally:
        await store.close()


def visit(browser: Chromium, url: str, strip: tuple[str, ...]) -> list[dict[str, Any]]:
    """Open `url` in a new tab with the response headers named in `strip` taken out of
    what the server sent (bytes and every other header stay as served), then click the
    drawing's link. The tab's events, and its title last (`Target.getTargetInfo` reads it
    without running script in the page)."""
    session = open_tab(browser, ("Network", "Log", "Runtime", "Page", "Fetch"))
    browser.call(
        "Fetch.enable",
        {"patterns": [{"urlPattern": "*/files/*", "requestStage": "Response"}]},
        session=session,
    )
    start_navigation(browser, session, url)
    paused = wait_for_event(browser, session, "Fetch.requestPaused", 10)
    assert paused is not None, "the file was not requested"
    params = paused["params"]
    body = browser.call(
        "Fetch.getResponseBody", {"requestId": params["requestId"]}, session=session
    )
    assert body["base64Encoded"] or body["body"].startswith("<svg")
    data = body["body"] if body["base64Encoded"] else base64.b64encode(body["body"].encode())
    browser.call(
        "Fetch.fulfillRequest",
        {
            "requestId": params["requestId"],
            "responseCode": params["responseStatusCode"],
            "responseHeaders": [
                h for h in params["responseHeaders"] if h["name"].lower() not in strip
            ],
            "body": data if isinstance(data, str) else data.decode(),
        },
        session=session,
    )
    browser.drain(1.5)
    for kind in ("mousePressed", "mouseReleased"):  # the red link fills x 200..400
        browser.call(
            "Input.dispatchMouseEvent",
            {"type": kind, "x": 300, "y": 100, "button": "left", "clickCount": 1},
            session=session,
        )
    browser.drain(1.5)
    title = browser.call("Target.getTargetInfo", session=session)["targetInfo"]["title"]
    return [*(e for e in browser.events if e.get("sessionId") == session), {"title": title}]


def requested(events: list[dict[str, Any]]) -> list[str]:
    return [
        urlsplit(event["params"]["request"]["url"]).path
        for event in events
        if event.get("method") == "Network.requestWillBeSent"
    ]


def ran(events: list[dict[str, Any]], log: str) -> dict[str, Any]:
    """Every trace the drawing's scripts would leave: the tab's title, the origin's
    localStorage is read apart, and requests to /floorgate-pwned/* seen by the browser
    and by the server (its access log since the visit began)."""
    return {
        "title": events[-1]["title"],
        "browser requests": [path for path in requested(events) if MARK in path],
        "server requests": re.findall(rf"method=GET path=(/{MARK}/\w+) ", log),
    }


@pytest.mark.e2e
@pytest.mark.skipif(CHROMIUM is None, reason=MISSING)
def test_a_hostile_drawing_runs_nothing_in_chromium(tmp_path, db_server, settings):
    """The drawing has a <script>, an `onload` and a link to a `javascript:` URL (set by
    an animation: the parser refuses a plain one). Served as is, the browser saves it
    instead of showing it. Shown anyway (the test drops `Content-Disposition`), the CSP
    blocks all three, which Chromium reports. The control drops the CSP too, and every
    one of them runs in the API's origin: so the checks above would see it if it did."""
    own = dataclasses.replace(settings, database_name=f"t_{uuid.uuid4().hex[:12]}")
    deadline = time.monotonic() + BROWSER_SECONDS
    key = asyncio.run(_prepare(db_server.uri, own))
    outcomes: dict[str, dict[str, Any]] = {}
    try:
        with serve_tls(tmp_path, db_server, own) as served:
            trusted = ssl.create_default_context(cafile=str(served.certs.ca_cert))
            with httpx.Client(verify=trusted, base_url=served.base, timeout=20) as http:
                put = http.post(
                    "/graphql", json=put_body("evil", HOSTILE), headers={"API-Key": key}
                )
            assert put.status_code == 200 and "errors" not in put.json(), put.text
            source = asyncio.run(_source_file(db_server.uri, own, "evil"))
            log = tmp_path / "serve.log"
            browser = offline_browser(tmp_path / "profile", served.certs.cert, deadline)
            try:
                browser.call(
                    "Browser.setDownloadBehavior", {"behavior": "deny", "eventsEnabled": True}
                )
                for mode, strip in [
                    ("served", ()),
                    ("shown", ("content-disposition",)),
                    ("control", ("content-disposition", "content-security-policy")),
                ]:
                    log_start = len(log.read_text())
                    events = visit(browser, f"{served.base}/files/{source}", strip)
                    outcomes[mode] = {
                        **ran(events, log.read_text()[log_start:]),
                        # /healthz runs no script of its own
                        "storage": local_storage(browser, f"{served.base}/healthz"),
                        "console": [text for _, text in console_messages(events)],
                    }
                downloads = [
                    event["params"]
                    for event in browser.events
                    if event.get("method") == "Browser.downloadWillBegin"
                ]
            finally:
                browser.close()
    finally:
        asyncio.run(_drop(db_server.uri, own))
    assert time.monotonic() < deadline, "the browser run took too long"
    address = f"{served.base}/files/{source}"

    served_ = outcomes["served"]  # the browser saves it (denied here), showing nothing
    assert [(d["url"], d["suggestedFilename"]) for d in downloads] == [(address, "evil.source.svg")]
    assert served_["title"] == "about:blank"
    assert served_["browser requests"] == served_["server requests"] == []
    assert served_["storage"] == {}
    assert served_["console"] == []

    shown = outcomes["shown"]  # rendered in the origin's address, under the CSP
    assert shown["title"] == address.removeprefix("https://")  # no <title> was set
    assert shown["browser requests"] == shown["server requests"] == []
    assert shown["storage"] == {}
    blocked = (
        f"Blocked script execution in '{address}' because the document's frame is "
        "sandboxed and the 'allow-scripts' permission is not set."
    )
    assert shown["console"][:2] == [blocked, blocked]  # the <script> and the onload
    assert shown["console"][2].startswith(  # the link
        "Running the JavaScript URL violates the following Content Security Policy "
        "directive 'default-src 'none''."
    )
    assert len(shown["console"]) == 3

    control = outcomes["control"]  # the same bytes without the CSP: everything runs
    assert control["title"] == f"{MARK}-link"
    assert (
        sorted(control["browser requests"])
        == sorted(control["server requests"])
        == [f"/{MARK}/link", f"/{MARK}/onload", f"/{MARK}/script"]
    )
    assert control["storage"] == {MARK: "onload", f"{MARK}-script": "script"}
