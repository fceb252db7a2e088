"""GraphiQL page and its vendored assets, served without touching any other host.

Strawberry's built-in GraphiQL template pulls React, GraphiQL and the explorer plugin
from unpkg.com, which breaks on air-gapped deployments and leaks every page view to a
third party. We serve the byte-identical files from ``rest/static/graphiql/`` instead
(see the README there for provenance and how to update them).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from starlette.responses import Response
from starlette.routing import BaseRoute, Mount
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

__all__ = [
    "GRAPHIQL_STATIC_DIR",
    "GRAPHIQL_STATIC_PREFIX",
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

_HTML_TEMPLATE = """<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="referrer" content="no-referrer" />
    <title>floorgate GraphiQL</title>
    <link rel="icon" type="image/svg+xml" href="@PREFIX@/favicon.svg" />
    <style>
      body {
        height: 100%;
        margin: 0;
        width: 100%;
        overflow: hidden;
      }

      #graphiql {
        height: 100vh;
        display: flex;
      }

      .docExplorerHide {
        display: none;
      }

      .doc-explorer-contents {
        overflow-y: hidden !important;
      }

      .docExplorerWrap {
        width: unset !important;
        min-width: unset !important;
      }

      .graphiql-explorer-actions select {
        margin-left: 4px;
      }
    </style>
    <link rel="stylesheet" href="@PREFIX@/graphiql.min.css" />
    <link rel="stylesheet" href="@PREFIX@/plugin-explorer.css" />
    <script src="@PREFIX@/react.production.min.js"></script>
    <script src="@PREFIX@/react-dom.production.min.js"></script>
  </head>

  <body>
    <div id="graphiql" class="graphiql-container">Loading...</div>
    <script src="@PREFIX@/graphiql.min.js"></script>
    <script src="@PREFIX@/plugin-explorer.umd.js"></script>
    <script>
      const ENDPOINT = @ENDPOINT_JSON@;
      const DEFAULT_HEADERS = @DEFAULT_HEADERS_JSON@;
      const EXAMPLE_QUERY = `# Welcome to floorgate GraphiQL
#
# Put your API key into the "Headers" tab:
#   {"API-Key": "..."}
# then press the re-fetch schema button
# (bottom left) to load the docs.
# Headers persist in this browser's local
# storage; turn that off in settings.
#
#     Run query:  Ctrl-Enter
# Auto complete:  Ctrl-Space
#
`;

      // Query and variables can be shared through the URL. Headers deliberately
      // cannot: they carry the API key, which must not end up in links or history.
      const parameters = {};

      for (const entry of window.location.search.slice(1).split("&")) {
        const eq = entry.indexOf("=");
        if (eq >= 0) {
          parameters[decodeURIComponent(entry.slice(0, eq))] =
            decodeURIComponent(entry.slice(eq + 1));
        }
      }

      function updateURL(data) {
        Object.assign(parameters, data);

        const newSearch =
          "?" +
          Object.keys(parameters)
            .filter(function (key) {
              return key !== "headers" && Boolean(parameters[key]);
            })
            .map(function (key) {
              return (
                encodeURIComponent(key) +
                "=" +
                encodeURIComponent(parameters[key])
              );
            })
            .join("&");
        history.replaceState(null, null, newSearch);
      }

      // POST JSON to the same-origin endpoint; headers come from the Headers editor.
      const fetcher = GraphiQL.createFetcher({
        url: new URL(ENDPOINT, window.location.href).toString(),
      });

      function FloorgateGraphiQL() {
        const [query, setQuery] = React.useState(
          parameters.q || EXAMPLE_QUERY,
        );
        const [variables, setVariables] = React.useState(
          parameters.variables,
        );

        function onEditQuery(newQuery) {
          setQuery(newQuery);
          updateURL({ q: newQuery });
        }

        function onEditVariables(newVariables) {
          setVariables(newVariables);
          updateURL({ variables: newVariables });
        }

        const explorerPlugin = GraphiQLPluginExplorer.explorerPlugin();

        return React.createElement(GraphiQL, {
          fetcher: fetcher,
          defaultEditorToolsVisibility: "headers",
          plugins: [explorerPlugin],
          query: query,
          variables: variables,
          defaultHeaders: DEFAULT_HEADERS,
          onEditQuery: onEditQuery,
          onEditVariables: onEditVariables,
          inputValueDeprecation: true,
          isHeadersEditorEnabled: true,
          shouldPersistHeaders: true,
        });
      }

      const root = ReactDOM.createRoot(document.getElementById("graphiql"));
      root.render(React.createElement(FloorgateGraphiQL));
    </script>
  </body>
</html>
"""


def _js_literal(value: object) -> str:
    """JSON-encode ``value`` so it is safe to paste inside an inline ``<script>``.

    Escaping ``<``, ``>`` and ``&`` stops a hostile endpoint string from closing the
    script element (``</script>``) or opening an HTML comment.
    """
    return json.dumps(value).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def graphiql_html(endpoint: str = "/graphql") -> str:
    """Return the GraphiQL page; it loads assets only from ``GRAPHIQL_STATIC_PREFIX``.

    The Headers editor starts as ``{"API-Key": ""}`` because every floorgate request is
    authenticated by API key, and headers persist in localStorage so users paste the key
    once. ``endpoint`` is resolved against the page URL, so the fetcher stays same-origin
    for a path like ``/graphql``.
    """
    default_headers = json.dumps({"API-Key": ""}, indent=2)
    return (
        _HTML_TEMPLATE.replace("@PREFIX@", GRAPHIQL_STATIC_PREFIX)
        .replace("@ENDPOINT_JSON@", _js_literal(endpoint))
        .replace("@DEFAULT_HEADERS_JSON@", _js_literal(default_headers))
    )


class GraphiQLStaticFiles(StaticFiles):
    """StaticFiles that lets browsers cache the pinned GraphiQL assets for a day.

    The main bundle is ~3.5 MB; without ``Cache-Control`` every page load would at
    best revalidate it.
    """

    def file_response(
        self,
        full_path: str | os.PathLike[str],
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        """Serve the file (or a 304) with ``Cache-Control`` added."""
        response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers["Cache-Control"] = STATIC_CACHE_CONTROL
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
