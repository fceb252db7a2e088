"""GraphiQL page and its vendored assets, served without touching any other host.

Strawberry's built-in GraphiQL template pulls React, GraphiQL and the explorer plugin
from unpkg.com, which breaks on air-gapped deployments and leaks every page view to a
third party. We serve the byte-identical files from ``rest/graphql_http/static/graphiql/`` instead
(see the README there for provenance and how to update them).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from starlette.responses import Response
from starlette.routing import BaseRoute, Mount
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

from resolvers.auth.permissions import ALL_FLAGS

__all__ = [
    "CONTENT_SECURITY_POLICY",
    "GRAPHIQL_STATIC_DIR",
    "GRAPHIQL_STATIC_PREFIX",
    "PAGE_HEADERS",
    "GraphiQLStaticFiles",
    "graphiql_html",
    "graphiql_routes",
]

GRAPHIQL_STATIC_PREFIX = "/static/graphiql"
"""URL path under which the vendored GraphiQL assets are mounted."""

GRAPHIQL_STATIC_DIR = Path(__file__).resolve().parent / "static" / "graphiql"
"""Package directory holding the vendored assets (shipped via setuptools package-data)."""

STATIC_CACHE_CONTROL = "public, max-age=86400"
"""Assets are pinned to exact versions, so browsers may keep them for a day."""

GRAPHIQL_SCRIPT = "floorgate-graphiql.js"
"""Our start-up script (not vendored), in the static folder: the page has no inline script."""

CONFIG_ELEMENT_ID = "floorgate-graphiql-config"
"""The `<script type="application/json">` block the start-up script reads its settings from:
data, never executed, so `script-src 'self'` allows it."""

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",  # the vendored bundles and our start-up script; nothing inline
        "style-src 'self' 'unsafe-inline'",  # GraphiQL's dialogs add a <style> element
        "img-src 'self' data:",  # a few images in GraphiQL's CSS are data: URIs
        "font-src 'self' data:",  # Roboto and Fira Code are embedded in the CSS as data: URIs
        "connect-src 'self'",  # queries go to this server only
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",  # nobody frames the page to click through it
    ]
)
"""Everything from this origin and nothing inline: a hostile file served by this origin
cannot inject script into the page that holds an API key."""

PAGE_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
"""Headers of the GraphiQL page (`rest/graphql_http/view.py`)."""

KEY_HELP = (
    'API key: put it into the Headers tab as "API-Key". Running the demo? It is in the '
    "file .floorgate/demo-key. Otherwise an operator creates one with `floorgate keys "
    "create`. Headers are not saved in this browser: reloading the page forgets the key."
)
"""Shown under the editors (GraphiQL's footer), so the hint stays while queries change."""

WELCOME_QUERY = """# Welcome to floorgate GraphiQL
#
# Every query needs an API key. Put it into the
# "Headers" tab below: {"API-Key": "fg_..."}
# - the demo: the key is in .floorgate/demo-key
# - otherwise: floorgate keys create
# The docs (book icon) need no key.
# Experimental-Flags turns on experimental
# fields; remove flags you do not want.
# Headers are not saved: a reload forgets them.
#
# To see a map rather than its data, open the
# map viewer: /viewer/maps/<map id>, for the
# demo /viewer/maps/map-b1 and /viewer/maps/map-b2
# (docs/viewer.md).
#
#     Run query:  Ctrl-Enter
# Auto complete:  Ctrl-Space
#
"""

_HTML_TEMPLATE = """<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="referrer" content="no-referrer" />
    <title>floorgate GraphiQL</title>
    <link rel="icon" type="image/svg+xml" href="@PREFIX@/favicon.svg" />
    <link rel="stylesheet" href="@PREFIX@/graphiql.min.css" />
    <link rel="stylesheet" href="@PREFIX@/plugin-explorer.css" />
    <link rel="stylesheet" href="@PREFIX@/floorgate-graphiql.css" />
    <script src="@PREFIX@/react.production.min.js"></script>
    <script src="@PREFIX@/react-dom.production.min.js"></script>
  </head>

  <body>
    <div id="graphiql" class="graphiql-container">Loading...</div>
    <script type="application/json" id="@CONFIG_ID@">@CONFIG_JSON@</script>
    <script src="@PREFIX@/graphiql.min.js"></script>
    <script src="@PREFIX@/plugin-explorer.umd.js"></script>
    <script src="@PREFIX@/@SCRIPT@"></script>
  </body>
</html>
"""


def _json_in_html(value: object) -> str:
    """JSON-encode ``value`` so it is safe inside a ``<script>`` data block.

    Escaping ``<``, ``>`` and ``&`` stops a hostile endpoint string from closing the
    script element (``</script>``) or opening an HTML comment.
    """
    return json.dumps(value).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def default_headers() -> str:
    """The Headers editor's start: an empty `API-Key` and every experimental flag.

    JSON has no comments, and a placeholder key would be sent as a key: every request,
    GraphiQL's own schema fetch on load too, would fail with INVALID_KEY and the docs
    would stay empty. An empty value the server reads as no key (`api_key_of`), so the
    schema loads without one and a query answers UNAUTHENTICATED, "No API key found in
    request". Where a key comes from is said outside the editor: `KEY_HELP`, and the
    welcome text of the query editor (`WELCOME_QUERY`).
    """
    return json.dumps({"API-Key": "", "Experimental-Flags": ", ".join(ALL_FLAGS)}, indent=2)


def graphiql_config(endpoint: str = "/graphql") -> dict[str, object]:
    """What the start-up script needs from the server."""
    return {
        "endpoint": endpoint,
        "defaultHeaders": default_headers(),
        "welcomeQuery": WELCOME_QUERY,
        "keyHelp": KEY_HELP,
    }


def graphiql_html(endpoint: str = "/graphql") -> str:
    """Return the GraphiQL page; it loads assets only from ``GRAPHIQL_STATIC_PREFIX``.

    Headers are never persisted: they hold the API key, and localStorage is readable by
    any script that ever runs in this origin. The start-up script says
    ``shouldPersistHeaders: false`` and gives GraphiQL a storage that replaces any
    headers it stores by the key-less template (its query history saves them anyway).
    ``endpoint`` is resolved against the page URL, so the fetcher stays same-origin for
    a path like ``/graphql``.
    """
    return (
        _HTML_TEMPLATE.replace("@PREFIX@", GRAPHIQL_STATIC_PREFIX)
        .replace("@SCRIPT@", GRAPHIQL_SCRIPT)
        .replace("@CONFIG_ID@", CONFIG_ELEMENT_ID)
        .replace("@CONFIG_JSON@", _json_in_html(graphiql_config(endpoint)))
    )


class GraphiQLStaticFiles(StaticFiles):
    """StaticFiles that lets browsers cache the pinned GraphiQL assets for a day (or as
    `cache_control` says: the viewer's files, under an address per release, for a year).

    The main bundle is ~3.5 MB; without ``Cache-Control`` every page load would at
    best revalidate it.
    """

    def __init__(self, *, cache_control: str = STATIC_CACHE_CONTROL, **options: Any) -> None:
        super().__init__(**options)
        self.cache_control = cache_control

    def file_response(
        self,
        full_path: str | os.PathLike[str],
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        """Serve the file (or a 304) with ``Cache-Control`` and ``nosniff`` added (the
        page's scripts and styles must be what their type says)."""
        response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers["Cache-Control"] = self.cache_control
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response


def graphiql_routes() -> list[BaseRoute]:
    """Routes serving the vendored GraphiQL assets; mount next to the ``/graphql`` route."""
    return [
        Mount(
            GRAPHIQL_STATIC_PREFIX,
            app=GraphiQLStaticFiles(directory=GRAPHIQL_STATIC_DIR),
            name="graphiql-static",
        )
    ]
