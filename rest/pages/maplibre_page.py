"""The MapLibre page at `/viewer/maplibre/{asset}`: an asset's vector tiles drawn by
MapLibre GL JS from floorgate's own `style.json`, with a level switcher and a route drawn
from the route's GeoJSON (docs/viewer.md, "MapLibre page"). The proof that a frontend team
needs nothing but the API: the page's script is a worked example of it.

MapLibre GL JS is vendored in `rest/pages/static/maplibre/` (README there: version,
source, how to update); the page's own module is in `rest/pages/static/maplibre-page/`,
and its labels are placed with the viewer's collision grid (`map/placement.js` of the
viewer's files, named in the page's `data-placement`: one grid for both maps).
Both are served under an address of their release (`/static/<folder>/<digest>/...`), so
a browser may keep them for a year and never mixes two releases. Like the viewer, the
page needs no key to load (it holds nothing but the asset id); its script takes the key
from the URL fragment or asks for it, and sends it only in the `API-Key` header to this
server. The Content-Security-Policy lets it reach this server alone.
"""

from __future__ import annotations

import functools
from html import escape
from pathlib import Path

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.types import Receive, Scope, Send

from resolvers.errors import ErrorCode
from rest.browser_headers import page_headers
from rest.graphql_http.graphiql import GRAPHIQL_STATIC_PREFIX, GraphiQLStaticFiles
from rest.ops.metrics import ROUTE
from rest.pages.files import IMMUTABLE
from rest.pages.viewer import VIEWER_STATIC_PREFIX, assets_release, folder_digest, origin_of
from rest.responses import error_of
from storage.settings import Settings

__all__ = [
    "MAPLIBRE_PAGE_PATH",
    "maplibre_page_html",
    "maplibre_page_policy",
    "maplibre_page_routes",
]

MAPLIBRE_PAGE_PATH = "/viewer/maplibre/{asset_id:path}"  # an id may hold a slash (%2F)
STATIC = Path(__file__).resolve().parent / "static"
LIBRARY_DIR = STATIC / "maplibre"  # vendored MapLibre GL JS
PAGE_DIR = STATIC / "maplibre-page"  # our module and styles
LIBRARY_PREFIX = "/static/maplibre"
PAGE_PREFIX = "/static/maplibre-page"

BASE_POLICY = (
    "default-src 'none'",
    "script-src 'self'",  # our module and MapLibre's; nothing inline, no eval
    "worker-src 'self'",  # MapLibre's worker (a module file of its own release folder)
    "style-src 'self'",  # two stylesheets; MapLibre sets styles through the DOM only
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",  # the key form is handled by the script, never submitted
)


def maplibre_page_policy(settings: Settings) -> tuple[str, ...]:
    """The page's CSP directives but `frame-ancestors`. `style.json` names `tiles.json`,
    and that the tiles, under the public URL: `connect-src` names its origin beside
    'self' (the page may be opened at another address of the server) and nothing else."""
    return (*BASE_POLICY, f"connect-src 'self' {origin_of(settings.public_url)}")


@functools.cache
def releases() -> tuple[str, str]:
    """This release of MapLibre's files and of the page's (read on the first page)."""
    return folder_digest(LIBRARY_DIR), folder_digest(PAGE_DIR)


_PAGE = """<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="referrer" content="no-referrer">
    <title>@ASSET_ID@ · floorgate MapLibre page</title>
    <link rel="icon" type="image/svg+xml" href="@ICON@">
    <link rel="stylesheet" href="@LIBRARY@/maplibre-gl.css">
    <link rel="stylesheet" href="@PAGE@/page.css">
    <script type="module" src="@PAGE@/main.js"></script>
  </head>
  <body data-asset-id="@ASSET_ID@" data-library="@LIBRARY@/maplibre-gl.mjs"
        data-placement="@VIEWER@/map/placement.js" data-state="loading">
    <header class="bar">
      <h1 id="title">@ASSET_ID@</h1>
      <button type="button" id="forget-key" hidden>Forget key</button>
    </header>
    <main class="layout">
      <section class="stage" aria-label="Map">
        <nav id="levels" class="levels" aria-label="Levels"></nav>
        <div id="map" class="map"></div>
      </section>
      <aside class="side">
        <p id="status" role="status" aria-live="polite">Loading...</p>
        <section id="directions" class="card" aria-labelledby="directions-title"
                 data-state="idle">
          <h2 id="directions-title">Directions</h2>
          <p class="muted">Click a place on the map to start there, another to go there
          (or open this page with <code>?from=&lt;location id&gt;&amp;to=&lt;location
          id&gt;</code>).</p>
          <div class="waypoint"><span>From</span> <output id="from-name">not set</output></div>
          <div class="waypoint"><span>To</span> <output id="to-name">not set</output></div>
          <div class="row">
            <button type="button" id="clear-route">Clear</button>
          </div>
          <p id="route-summary"></p>
          <p id="route-problem" class="problem" hidden></p>
          <ol id="route-steps" class="steps" aria-label="Steps"></ol>
        </section>
      </aside>
    </main>
    <div id="key-dialog" class="overlay" hidden>
      <form id="key-form" class="card" aria-labelledby="key-title">
        <h2 id="key-title">API key</h2>
        <p>This page calls this server's API with your key. It is kept in this tab only
        (sessionStorage) and sent only in the <code>API-Key</code> header.</p>
        <p id="key-problem" class="problem" hidden></p>
        <label for="key-input">Key</label>
        <input type="password" id="key-input" autocomplete="off" spellcheck="false" required>
        <button type="submit">Open map</button>
      </form>
    </div>
  </body>
</html>
"""


@functools.cache
def _filled() -> str:
    """The page with its fixed parts filled once; only the asset id differs per request."""
    library, page = releases()
    return (
        _PAGE.replace("@LIBRARY@", f"{LIBRARY_PREFIX}/{library}")
        .replace("@PAGE@", f"{PAGE_PREFIX}/{page}")
        .replace("@ICON@", f"{GRAPHIQL_STATIC_PREFIX}/favicon.svg")
        .replace("@VIEWER@", f"{VIEWER_STATIC_PREFIX}/{assets_release()}")
    )


def maplibre_page_html(asset_id: str) -> str:
    """The page for `asset_id`, escaped wherever it appears (text and attribute)."""
    return _filled().replace("@ASSET_ID@", escape(asset_id, quote=True))


class _ReleaseFiles:
    """A folder's files under its release's address only (another is a 404: a page of
    another release asks for its own files, which this server does not have)."""

    def __init__(self, directory: Path, release: int) -> None:
        self.files = GraphiQLStaticFiles(directory=directory, cache_control=IMMUTABLE)
        self.release = release  # index in `releases()`

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("path_params", {}).get("release") != releases()[self.release]:
            await error_of(ErrorCode.NOT_FOUND)(scope, receive, send)
            return
        await self.files(scope, receive, send)


def maplibre_page_routes(settings: Settings) -> list[BaseRoute]:
    """The page, MapLibre's files and the page's (cached for a year under their release's
    address; compressed as every answer is, `rest/compression.py`)."""
    headers = {
        **page_headers(maplibre_page_policy(settings), settings.viewer_frame_ancestors),
        "Cache-Control": "no-cache",  # the page names its release's files
    }

    async def page(request: Request) -> Response:
        request.scope["state"][ROUTE] = "maplibre_page"  # for /metrics
        return HTMLResponse(maplibre_page_html(request.path_params["asset_id"]), headers=headers)

    return [
        Route(MAPLIBRE_PAGE_PATH, page, methods=["GET", "HEAD"]),
        Mount(LIBRARY_PREFIX + "/{release}", app=_ReleaseFiles(LIBRARY_DIR, 0)),
        Mount(PAGE_PREFIX + "/{release}", app=_ReleaseFiles(PAGE_DIR, 1)),
    ]
