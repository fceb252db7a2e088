"""The interactive API reference at /v1/openapi: Swagger UI over /v1/openapi.json.

Swagger UI is vendored in ``rest/pages/static/swagger-ui/`` (see the README there) so the page
works on air-gapped deployments and tells no third party who reads the docs. The page
loads only same-origin files, and its Content-Security-Policy makes the browser refuse
anything else, including the online validator Swagger UI would otherwise call.
"""

from __future__ import annotations

from pathlib import Path

from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import BaseRoute, Mount, Route

from rest.graphql_http.graphiql import GRAPHIQL_STATIC_PREFIX, GraphiQLStaticFiles

__all__ = [
    "CONTENT_SECURITY_POLICY",
    "REFERENCE_PAGE_PATH",
    "SWAGGER_UI_STATIC_DIR",
    "SWAGGER_UI_STATIC_PREFIX",
    "reference_page_html",
    "reference_page_routes",
]

REFERENCE_PAGE_PATH = "/v1/openapi"
SWAGGER_UI_STATIC_PREFIX = "/static/swagger-ui"
SWAGGER_UI_STATIC_DIR = Path(__file__).resolve().parent / "static" / "swagger-ui"

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "img-src 'self' data:",  # the CSS draws its icons as data: URIs
        "style-src 'self' 'unsafe-inline'",  # Swagger UI's React components set style attributes
        "script-src 'self'",  # hence the init script is a file, not inline
        "connect-src 'self'",  # the document, and "Try it out" against this server only
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
"""Everything from this origin only: a stray remote URL fails loudly instead of leaking."""

_HTML = f"""<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>floorgate API reference</title>
    <link rel="icon" type="image/svg+xml" href="{GRAPHIQL_STATIC_PREFIX}/favicon.svg">
    <link rel="stylesheet" href="{SWAGGER_UI_STATIC_PREFIX}/swagger-ui.css">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="{SWAGGER_UI_STATIC_PREFIX}/swagger-ui-bundle.js"></script>
    <script src="{SWAGGER_UI_STATIC_PREFIX}/floorgate-init.js"></script>
  </body>
</html>
"""


def reference_page_html() -> str:
    """The page: a mount point, Swagger UI's bundle and our init script (all same-origin)."""
    return _HTML


async def _page(request: Request) -> HTMLResponse:
    """No API key needed: it is documentation, like the /v1/openapi.json it renders."""
    return HTMLResponse(
        _HTML,
        headers={
            "Content-Security-Policy": CONTENT_SECURITY_POLICY,
            "Referrer-Policy": "no-referrer",
            "X-Content-Type-Options": "nosniff",
        },
    )


def reference_page_routes() -> list[BaseRoute]:
    """The page and its assets; mount before the catch-all ``/v1/{rest:path}`` route.

    The assets are cached for a day like GraphiQL's and gzipped (the bundle is 1.7 MB,
    about 0.5 MB compressed).
    """
    assets = GraphiQLStaticFiles(directory=SWAGGER_UI_STATIC_DIR)
    return [
        Route(REFERENCE_PAGE_PATH, _page, methods=["GET"]),
        Mount(SWAGGER_UI_STATIC_PREFIX, app=GZipMiddleware(assets), name="swagger-ui-static"),
    ]
