"""The map viewer at `/viewer/maps/{map id}`: one static page and its own script and
styles, a frontend of the GraphQL API like any other (docs/viewer.md).

The page needs no key to load: it holds nothing but the map id. Its script asks the
user for a key (or takes it from the URL fragment), keeps it in sessionStorage and
calls `/graphql` with it. It draws the map from the parsed document (`unitMap.url`),
never from the uploaded SVG, with DOM calls only, so nothing of a drawing can run here;
the Content-Security-Policy makes the browser refuse anything inline or from another
host besides. Who may frame the page is the setting `FLOORGATE_VIEWER_FRAME_ANCESTORS`.

The page's words are English; its script puts them in the visitor's language (`lang=` in
the URL, else the browser's), from tables of its own (`static/viewer/i18n/`), and sets
`<html lang dir>`: the page itself is the same for everyone, so no cache need tell
languages apart.

The script and styles are served under an address of their release,
`/viewer/static/<digest of every file>/...`: their modules import each other by relative
paths, so a browser never mixes two releases' modules, and may keep them for a year.
"""

from __future__ import annotations

import functools
import hashlib
from html import escape
from pathlib import Path
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.types import Receive, Scope, Send

from resolvers.errors import ErrorCode
from rest.browser_headers import page_headers
from rest.graphql_http.graphiql import GRAPHIQL_STATIC_PREFIX, GraphiQLStaticFiles
from rest.ops.metrics import ROUTE
from rest.pages.files import IMMUTABLE
from rest.responses import error_of
from storage.settings import Settings

__all__ = [
    "VIEWER_PATH",
    "VIEWER_STATIC_DIR",
    "VIEWER_STATIC_PREFIX",
    "assets_release",
    "folder_digest",
    "viewer_headers",
    "viewer_html",
    "viewer_policy",
    "viewer_routes",
]

VIEWER_PATH = "/viewer/maps/{map_id:path}"  # an id may hold a slash (%2F)
VIEWER_STATIC_PREFIX = "/viewer/static"
VIEWER_STATIC_DIR = Path(__file__).resolve().parent / "static" / "viewer"
VIEWER_SCRIPT = "main.js"
VIEWER_STYLES = "viewer.css"
DEMO_MAPS = (("map-b1", "Building 1"), ("map-b2", "Building 2"))
"""The demo's building maps (4 levels each), which the landing page and README link to."""

BASE_POLICY = (
    "default-src 'none'",
    "script-src 'self'",  # our module files; nothing inline, no eval
    "style-src 'self'",  # one stylesheet; the script sets no style attributes
    "img-src 'self' data:",
    "connect-src 'self'",  # /graphql, and the parsed document under /files
    "base-uri 'none'",
    "form-action 'none'",  # the key form is handled by the script, never submitted
)


def origin_of(url: str) -> str:
    """`scheme://host[:port]` of an absolute URL."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def viewer_policy(settings: Settings) -> tuple[str, ...]:
    """The page's CSP directives but `frame-ancestors`. Map documents are fetched from
    `{cdn_url}` (by default under the public URL), so `connect-src` names its origin
    beside 'self', and nothing else: the page may be opened at another address than the
    public URL's (`https://127.0.0.1:8443` beside `https://localhost:8443`), where 'self'
    is not the files' origin."""
    files_origin = origin_of(settings.files_url)
    return tuple(
        f"connect-src 'self' {files_origin}" if directive == "connect-src 'self'" else directive
        for directive in BASE_POLICY
    )


def viewer_headers(settings: Settings) -> dict[str, str]:
    """CSP with the framing setting, nosniff, no referrer (the key may sit in the URL
    fragment for a moment; a referrer never carries a fragment, but none is safer), and
    asked again each time: the page names its release's files."""
    headers = page_headers(viewer_policy(settings), settings.viewer_frame_ancestors)
    return {**headers, "Cache-Control": "no-cache"}


_PAGE = """<!doctype html>
<html lang="en" dir="ltr">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="referrer" content="no-referrer">
    <title>@MAP_ID@ · floorgate map viewer</title>
    <link rel="icon" type="image/svg+xml" href="@ICON@">
    <link rel="stylesheet" href="@STATIC@/@STYLES@">
    <script type="module" src="@STATIC@/@SCRIPT@"></script>
  </head>
  <body data-map-id="@MAP_ID@" data-state="loading">
    <header class="bar">
      <h1 id="map-title" dir="auto">@MAP_ID@</h1>
      <label class="map-pick"><span data-i18n="bar.map">Map</span>
        <select id="map-select" aria-label="Other maps of this key"
                data-i18n-aria-label="bar.otherMaps"></select>
      </label>
      <button type="button" id="forget-key" data-i18n="bar.forgetKey" hidden>Forget key</button>
    </header>
    <main class="layout">
      <section class="stage" aria-label="Map" data-i18n-aria-label="stage.label">
        <nav id="levels" class="levels" aria-label="Levels"
             data-i18n-aria-label="levels.label"></nav>
        <svg id="map" tabindex="0" role="application" aria-roledescription="floor plan"
             data-i18n-aria-roledescription="map.roleDescription" data-i18n-aria-label="map.label"
             aria-label="Floor plan. Drag to pan, wheel or pinch to zoom, plus and minus keys
 zoom. Tab and arrow keys move between units, Enter selects."></svg>
        <div class="tools" role="toolbar" aria-label="Map tools" data-i18n-aria-label="tools.label">
          <button type="button" id="zoom-in" aria-label="Zoom in"
                  data-i18n-aria-label="tools.zoomIn">+</button>
          <button type="button" id="zoom-out" aria-label="Zoom out"
                  data-i18n-aria-label="tools.zoomOut">&minus;</button>
          <button type="button" id="fit" aria-label="Fit to screen"
                  data-i18n-aria-label="tools.fitLabel" data-i18n="tools.fit">Fit</button>
          <label><input type="checkbox" id="show-paths">
            <span data-i18n="tools.paths">Paths</span></label>
          <label><input type="checkbox" id="show-labels" checked>
            <span data-i18n="tools.labels">Labels</span></label>
          <label><input type="checkbox" id="show-text">
            <span data-i18n="tools.drawingText">Drawing text</span></label>
        </div>
        <p id="pick-hint" class="hint" hidden></p>
      </section>
      <aside class="side">
        <p id="status" role="status" aria-live="polite" data-i18n="status.loading">Loading...</p>
        <section id="unit-panel" class="card" aria-labelledby="unit-name" hidden>
          <div class="card-head">
            <h2 id="unit-name" dir="auto"></h2>
            <button type="button" id="close-panel" aria-label="Close unit details"
                    data-i18n-aria-label="unit.close">&times;</button>
          </div>
          <dl>
            <dt data-i18n="unit.floor">Floor</dt><dd id="unit-floor" dir="auto"></dd>
            <dt data-i18n="unit.id">Unit id</dt><dd id="unit-id"></dd>
          </dl>
          <h3 data-i18n="unit.attributes">Attributes</h3>
          <div id="unit-attributes"></div>
          <h3 data-i18n="unit.references">References</h3>
          <div id="unit-references"></div>
          <div class="row">
            <button type="button" id="unit-from" data-i18n="unit.from">Directions from here</button>
            <button type="button" id="unit-to" data-i18n="unit.to">Directions to here</button>
            <button type="button" id="unit-stop" data-i18n="unit.stop">Add as stop</button>
          </div>
        </section>
        <section id="directions" class="card" aria-labelledby="directions-title"
                 data-state="idle">
          <h2 id="directions-title" data-i18n="directions.title">Directions</h2>
          <div class="waypoint">
            <span data-i18n="directions.from">From</span>
            <output id="from-name" dir="auto">not set</output>
            <button type="button" id="pick-from" data-i18n="directions.pick">Pick on map</button>
          </div>
          <ol id="route-stops" class="stops" aria-label="Stops"
              data-i18n-aria-label="directions.stops" hidden></ol>
          <p id="stops-full" class="muted" hidden></p>
          <div class="waypoint">
            <span data-i18n="directions.to">To</span>
            <output id="to-name" dir="auto">not set</output>
            <button type="button" id="pick-to" data-i18n="directions.pick">Pick on map</button>
          </div>
          <div id="nearest" class="nearest" role="group" aria-labelledby="nearest-title"
               data-state="loading" hidden>
            <span id="nearest-title" data-i18n="nearest.title">To the nearest</span>
            <span id="nearest-buttons" class="nearest-buttons"></span>
            <p id="nearest-hint" class="muted" data-i18n="nearest.hint">Set From first: the nearest
            is counted from there.</p>
          </div>
          <div class="row" role="group" aria-label="Route options"
               data-i18n-aria-label="shaping.label">
            <label><input type="checkbox" id="wheelchair">
              <span data-i18n="shaping.stepFree">Step-free</span></label>
            <label><input type="checkbox" id="avoid-stairs">
              <span data-i18n="shaping.avoidStairs">Avoid stairs</span></label>
            <label><input type="checkbox" id="avoid-escalators">
              <span data-i18n="shaping.avoidEscalators">Avoid escalators</span></label>
            <label hidden><input type="checkbox" id="optimize-stops">
              <span data-i18n="shaping.optimise">Optimise order</span></label>
          </div>
          <p id="stops-order" class="muted" role="status" hidden></p>
          <div class="row">
            <button type="button" id="swap-route" data-i18n="directions.swap">Swap</button>
            <button type="button" id="clear-route" data-i18n="directions.clear">Clear</button>
            <button type="button" id="route-units" class="small">ft</button>
          </div>
          <p id="route-summary"></p>
          <p id="route-reason" class="problem" hidden></p>
          <ul id="route-closures" class="closures" aria-label="Closed on the way"
              data-i18n-aria-label="directions.closures" hidden></ul>
          <ol id="route-legs" class="legs" aria-label="Legs"
              data-i18n-aria-label="directions.legs"></ol>
          <ol id="route-steps" class="steps" aria-label="Steps"
              data-i18n-aria-label="directions.steps"></ol>
        </section>
        <section id="legend" class="card" aria-labelledby="legend-title">
          <h2 id="legend-title" data-i18n="legend.title">Colour units by</h2>
          <select id="legend-group" aria-label="Attribute group"
                  data-i18n-aria-label="legend.group">
            <option value="" data-i18n="legend.noGroup">(none)</option>
          </select>
          <ul id="legend-items" class="legend-items"></ul>
        </section>
        <section id="locations" class="card" aria-labelledby="locations-title">
          <h2 id="locations-title" data-i18n="locations.title">Locations</h2>
          <label><span data-i18n="locations.tagFilter">Tag filter</span>
            <input type="text" id="tag-filter" spellcheck="false"
                 placeholder="svc:amenity==yes" autocomplete="off"></label>
          <label><span data-i18n="locations.search">Search</span>
            <input type="search" id="location-search" autocomplete="off"
                 maxlength="100" placeholder="Name, number or kind (restroom)"
                 data-i18n-placeholder="locations.searchPlaceholder"
                 aria-describedby="search-status"></label>
          <p id="search-status" class="muted" role="status" aria-live="polite"></p>
          <p id="search-problem" class="problem" hidden></p>
          <p id="locations-problem" class="problem" hidden></p>
          <ul id="location-list" class="location-list" aria-label="Locations"
              data-i18n-aria-label="locations.list"></ul>
        </section>
      </aside>
    </main>
    <div id="key-dialog" class="overlay" hidden>
      <form id="key-form" class="card" aria-labelledby="key-title">
        <h2 id="key-title" data-i18n="key.title">API key</h2>
        <p data-i18n="key.explain">The viewer calls this server's GraphQL API with your key. It
        is kept in this tab only (sessionStorage) and sent only in the
        <code data-i18n-part="header">API-Key</code> header. Running the demo? The key is in
        <code data-i18n-part="file">.floorgate/demo-key</code>.</p>
        <p id="key-problem" class="problem" hidden></p>
        <label for="key-input" data-i18n="key.label">Key</label>
        <input type="password" id="key-input" autocomplete="off" spellcheck="false" required>
        <button type="submit" data-i18n="key.open">Open map</button>
      </form>
    </div>
  </body>
</html>
"""


def folder_digest(folder: Path) -> str:
    """A digest of the files under `folder` (paths and bytes): another with any change."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        data = path.read_bytes()
        digest.update(f"{path.relative_to(folder).as_posix()}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()[:16]


@functools.cache
def assets_release() -> str:
    """This release of the viewer's files (worked out on the first page: the files are
    read once, not at every start)."""
    return folder_digest(VIEWER_STATIC_DIR)


@functools.cache
def _filled() -> str:
    """The page with its fixed parts filled once; only the map id differs per request."""
    return (
        _PAGE.replace("@STATIC@", f"{VIEWER_STATIC_PREFIX}/{assets_release()}")
        .replace("@SCRIPT@", VIEWER_SCRIPT)
        .replace("@STYLES@", VIEWER_STYLES)
        .replace("@ICON@", f"{GRAPHIQL_STATIC_PREFIX}/favicon.svg")
    )


def viewer_html(map_id: str) -> str:
    """The page for `map_id`, escaped wherever it appears (text and attribute)."""
    return _filled().replace("@MAP_ID@", escape(map_id, quote=True))


class _ReleaseFiles:
    """The viewer's files under this release's address only (another is a 404: a page of
    another release asks for its own files, which this server does not have)."""

    def __init__(self) -> None:
        self.files = GraphiQLStaticFiles(directory=VIEWER_STATIC_DIR, cache_control=IMMUTABLE)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("path_params", {}).get("release") != assets_release():
            await error_of(ErrorCode.NOT_FOUND)(scope, receive, send)
            return
        await self.files(scope, receive, send)


def viewer_routes(settings: Settings) -> list[BaseRoute]:
    """The page and its files (cached for a year under their release's address)."""
    headers = viewer_headers(settings)

    async def page(request: Request) -> Response:
        request.scope["state"][ROUTE] = "viewer"  # for /metrics
        return HTMLResponse(viewer_html(request.path_params["map_id"]), headers=headers)

    return [
        Route(VIEWER_PATH, page, methods=["GET", "HEAD"]),
        Mount(VIEWER_STATIC_PREFIX + "/{release}", app=_ReleaseFiles(), name="viewer-static"),
    ]
