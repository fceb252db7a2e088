"""The landing page at `/`: where a person who opens the server's address in a browser
finds the way on (GraphiQL, the API reference, the schema, the map viewer, health), and
the same index as JSON for `Accept: application/json`. No key needed: it names only
public pages. The HTML has no script and loads nothing, and its Content-Security-Policy
says so.

The page reads no data, so it cannot know which maps exist: it explains the viewer's
address for any map and links the demo's two building maps, which exist wherever the
demo is loaded (`make run`) and otherwise open on the viewer's "no map" message."""

from __future__ import annotations

from html import escape

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import BaseRoute, Route

from rest.browser_headers import page_headers
from rest.graphql_http.sdl import SDL_PATH
from rest.pages.reference_page import REFERENCE_PAGE_PATH
from rest.pages.viewer import DEMO_MAPS, VIEWER_PATH
from rest.responses import json_response
from storage.settings import Settings

# (key, path, what a person finds there), in the order shown.
LINKS = (
    (
        "graphiql",
        "/graphql",
        "GraphiQL: explore and run GraphQL in the browser (send your "
        "key in its Headers tab as API-Key)",
    ),
    ("graphql", "/graphql", "GraphQL endpoint (POST JSON, or GET with query)"),
    ("api_reference", REFERENCE_PAGE_PATH, "REST API reference (/v1), interactive"),
    ("openapi", "/v1/openapi.json", "OpenAPI 3.1 document of /v1 (also .yaml)"),
    ("graphql_schema", SDL_PATH, "GraphQL schema as SDL"),
    ("health", "/healthz", "liveness: the process answers"),
    ("ready", "/readyz", "readiness: the database answers (with read cache figures)"),
)
DOCS = (
    "The project's README and docs/ say the rest: graphql.md (a guide for frontend "
    "teams), viewer.md, api.md, dataset.md, routing.md, geojson.md."
)
PAGE_HEADERS = page_headers(
    ("default-src 'none'", "style-src 'unsafe-inline'", "base-uri 'none'", "form-action 'none'")
)
VIEWER_TEMPLATE = VIEWER_PATH.replace("{map_id:path}", "{map_id}")


def viewer_section() -> str:
    """The viewer: its address for any map, and the demo's building maps."""
    demo = ", ".join(
        f'<a href="{escape(VIEWER_TEMPLATE.format(map_id=map_id))}">{escape(name)}</a>'
        for map_id, name in DEMO_MAPS
    )
    return (
        f"<p>Map viewer: <code>{escape(VIEWER_TEMPLATE)}</code> shows any map with its "
        "levels, units, locations and directions (it asks for your key). The demo "
        f"property's building maps (<code>make run</code>): {demo}.</p>"
    )


def wants_json(request: Request) -> bool:
    """JSON when the client prefers it to HTML (curl's `*/*` gets HTML: it shows as text)."""
    accept = request.headers.get("accept", "")
    kinds = [part.split(";")[0].strip().lower() for part in accept.split(",")]
    return "application/json" in kinds and "text/html" not in kinds


def landing_routes(settings: Settings) -> list[BaseRoute]:
    base = settings.public_url.rstrip("/")
    index = {
        "name": "floorgate",
        "description": "Indoor maps and unit directory: GraphQL and the REST API /v1.",
        "links": {key: f"{base}{path}" for key, path, _ in LINKS},
        "viewer": f"{base}{VIEWER_TEMPLATE}",
    }
    items = "\n".join(
        f'      <li><a href="{escape(path)}">{escape(path)}</a>: {escape(text)}</li>'
        for _, path, text in LINKS
    )
    page = f"""<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>floorgate</title>
    <style>body {{ font: 16px/1.5 system-ui, sans-serif; max-width: 44rem; margin: 2rem auto;
      padding: 0 1rem; }} code {{ background: #eee; padding: 0 .2em; }}</style>
  </head>
  <body>
    <h1>floorgate</h1>
    <p>Indoor maps and unit directory: GraphQL and the REST API <code>/v1</code>.
    Every data request needs an API key, in the <code>API-Key</code> header.</p>
    <ul>
{items}
    </ul>
    {viewer_section()}
    <p>{escape(DOCS)}</p>
  </body>
</html>
"""

    async def landing(request: Request) -> Response:
        if wants_json(request):
            return json_response(index, headers={"Vary": "Accept"})
        return HTMLResponse(page, headers={**PAGE_HEADERS, "Vary": "Accept"})

    return [Route("/", landing, methods=["GET", "HEAD"])]
