"""What the viewer's browser tests share: `floorgate serve` over TLS on a demo database
of the module's own, one headless Chromium (Debian's, over the DevTools pipe, every host
but localhost unresolvable), and the small steps they take on the page."""

from __future__ import annotations

import contextlib
import json
import ssl
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
import pytest_asyncio

from tests.chromium import (
    Chromium,
    console_messages,
    evaluate,
    offline_browser,
    open_tab,
    wait_until,
)
from tests.servers import own_demo_database, serve_tls

BROWSER_SECONDS = 240  # the whole module's browser, start to close
MAP = "map-b1"
FLAGS = "references, unit-attributes-resource, locations-resource, distances, directions"
SCREENSHOTS = Path(__file__).resolve().parents[3] / "docs" / "screenshots"
DESKTOP = (1280, 800)
PHONE = (375, 667)


class Site:
    """The running server, its demo key, an API client and one browser."""

    def __init__(self, base: str, key: str, api: httpx.Client, browser: Chromium) -> None:
        self.base = base
        self.key = key
        self.api = api
        self.browser = browser

    def graphql(self, query: str, **variables: Any) -> dict[str, Any]:
        answer = self.api.post("/graphql", json={"query": query, "variables": variables})
        body = answer.json()
        assert "errors" not in body, body
        return body["data"]


ASSIGNMENTS = """query($group: ID!, $asset: ID) {
  unitAttributeAssignments(groupId: $group, assetId: $asset, perPage: 10000) {
    data { unitId attributeId } } }"""


def demo_site(name: str, then: Callable[[Any, Any, Path], Awaitable[None]] | None = None):
    """The module's `demo_key` (a demo database of its own, `floorgate_<name>`) and `site`
    fixtures: `demo_key, site = demo_site("viewer-live")` in a test module; `then(db_server,
    settings, folder)` adds what the module needs to the demo before the site starts."""

    @pytest_asyncio.fixture(scope="module", loop_scope="session")
    async def demo_key(db_server, tmp_path_factory):
        folder = Path(tmp_path_factory.mktemp(name))
        async with own_demo_database(
            db_server, folder, "floorgate_" + name.replace("-", "_")
        ) as demo:
            if then is not None:
                await then(db_server, demo[0], folder)
            yield demo

    @pytest.fixture(scope="module")
    def site(db_server, demo_key, tmp_path_factory) -> Iterator[Site]:
        settings, key = demo_key
        with running_site(db_server, settings, key, tmp_path_factory) as running:
            yield running

    return demo_key, site


def shared_demo_site():
    """A module's `site` fixture on the plain demo site its worker shares with the other
    read-only modules (tests/e2e/viewer/conftest.py): `site = shared_demo_site()`. Its
    browser gets the module's BROWSER_SECONDS afresh; the tabs a test opened are closed
    after it (each viewer tab holds a live-changes socket to the server)."""

    @pytest.fixture(scope="module")
    def site(shared_site: Site) -> Iterator[Site]:
        with module_on(shared_site):
            yield shared_site

    @pytest.fixture(autouse=True)
    def _close_its_tabs(site: Site) -> Iterator[None]:
        before = set(page_targets(site.browser))
        yield
        close_pages(site.browser, before)

    return site, _close_its_tabs


@contextlib.contextmanager
def module_on(shared: Site) -> Iterator[Site]:
    """A module's time on a site shared by the worker's modules: the browser's
    BROWSER_SECONDS start afresh, its events are the module's, and the tabs the module
    left open are closed when it is done."""
    shared.browser.deadline = time.monotonic() + BROWSER_SECONDS
    shared.browser.events.clear()
    before = set(page_targets(shared.browser))
    try:
        yield shared
    finally:
        close_pages(shared.browser, before)
        shared.browser.events.clear()


def close_pages(browser: Chromium, but: set[str]) -> None:
    """Close the browser's tabs but those in `but` (one closed a moment ago may still be
    listed: it is gone by the time it would be closed again)."""
    for target in page_targets(browser):
        if target not in but:
            try:
                browser.call("Target.closeTarget", {"targetId": target})
            except RuntimeError as error:
                if "No target with given id" not in str(error):
                    raise


def page_targets(browser: Chromium) -> list[str]:
    """The ids of the browser's open pages (tabs)."""
    targets = browser.call("Target.getTargets")["targetInfos"]
    return [target["targetId"] for target in targets if target["type"] == "page"]


@contextlib.contextmanager
def running_site(db_server, settings, key: str, tmp_path_factory) -> Iterator[Site]:
    """`floorgate serve` over TLS on the demo database of `settings`, and one browser
    (also for tests/e2e/viewer/test_viewer_live.py)."""
    deadline = time.monotonic() + BROWSER_SECONDS
    with serve_tls(
        settings.data_dir, db_server, settings, FLOORGATE_RATE_LIMIT_PER_SECOND="0"
    ) as served:
        headers = {"API-Key": key, "Experimental-Flags": FLAGS}
        trust = ssl.create_default_context(cafile=served.certs.ca_cert)
        with httpx.Client(base_url=served.base, verify=trust, headers=headers, timeout=30) as api:
            profile = tmp_path_factory.mktemp("chromium") / "profile"
            # 127.0.0.1 too: the server's address, beside its public URL's localhost.
            browser = offline_browser(profile, served.certs.cert, deadline, "127.0.0.1")
            try:
                yield Site(served.base, key, api, browser)
            finally:
                browser.close()


def open_viewer(
    site: Site,
    query: str = "",
    size: tuple[int, int] = DESKTOP,
    key: bool = True,
    map_id: str = MAP,
    base: str | None = None,
    language: str | None = None,
) -> str:
    """A new tab of `size` on the viewer of MAP (the key in the fragment), at the
    server's public URL unless `base` says another; its session once the map is drawn.
    `language` (tags, most wanted first: "de-DE,de"; no `;q=`, which Chromium would keep
    in navigator.languages) is the tab's browser language: navigator.language(s), Intl's
    default locale and the Accept-Language its requests send."""
    session = open_tab(site.browser)
    width, height = size
    site.browser.call(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600},
        session=session,
    )
    if language:
        first = language.split(",")[0].strip()
        site.browser.call("Emulation.setLocaleOverride", {"locale": first}, session=session)
        user_agent = evaluate(site.browser, session, "navigator.userAgent")
        site.browser.call(
            "Emulation.setUserAgentOverride",
            {"userAgent": user_agent, "acceptLanguage": language},
            session=session,
        )
    fragment = f"#key={quote(site.key)}" if key else ""
    url = f"{base or site.base}/viewer/maps/{map_id}{query}{fragment}"
    site.browser.call("Page.navigate", {"url": url}, session=session)
    if key:
        state = wait_until(
            site.browser,
            session,
            "document.body && ['ready', 'error', "
            "'missing', 'key'].includes(document.body.dataset.state) && "
            "document.body.dataset.state",
            20,
        )
        assert state == "ready", (
            state,
            evaluate(site.browser, session, "document.getElementById('status').textContent"),
        )
    return session


def module_page(site: Site, map_id: str = MAP) -> str:
    """A tab on the viewer's page opened without a key: its scripts and styles loaded,
    no map asked for nor drawn (for checks that import the viewer's modules: a fraction
    of a drawn viewer's cost)."""
    session = open_viewer(site, map_id=map_id, key=False)
    wait_for(site, session, "document.body && document.body.dataset.state === 'key'")
    return session


def page_events(site: Site, session: str) -> list[dict[str, Any]]:
    return [event for event in site.browser.events if event.get("sessionId") == session]


def problems(site: Site, session: str) -> list[tuple[str, str]]:
    return [
        (level, text)
        for level, text in console_messages(page_events(site, session))
        if level in ("error", "exception", "assert") or "Content Security Policy" in text
    ]


def js(site: Site, session: str, expression: str) -> Any:
    return evaluate(site.browser, session, expression)


def click_at(site: Site, session: str, selector: str) -> None:
    """A real mouse click (pointer events and all) at the middle of what `selector` finds."""
    box = js(
        site,
        session,
        f"""(() => {{ const r = document.querySelector({json.dumps(selector)})
        .getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; }})()""",
    )
    for kind in ("mousePressed", "mouseReleased"):
        site.browser.call(
            "Input.dispatchMouseEvent",
            {"type": kind, "x": box[0], "y": box[1], "button": "left", "clickCount": 1},
            session=session,
        )


def click(site: Site, session: str, selector: str) -> None:
    js(site, session, f"document.querySelector({json.dumps(selector)}).click()")


def wait_for(site: Site, session: str, expression: str, seconds: float = 15) -> Any:
    value = wait_until(site.browser, session, expression, seconds)
    assert value, f"never true: {expression}"
    return value


def shown_level(site: Site, session: str) -> list[str]:
    return js(
        site,
        session,
        """Array.from(document.querySelectorAll('#map .level'))
        .filter(g => getComputedStyle(g).display !== 'none').map(g => g.dataset.levelUid)""",
    )


VIEWBOX = "document.getElementById('map').getAttribute('viewBox')"


def view_box(site: Site, session: str) -> list[float]:
    return [float(value) for value in js(site, session, VIEWBOX).split()]
