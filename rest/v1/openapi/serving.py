"""`/v1/openapi.json` and `/v1/openapi.yaml`: no key needed (docs/contract.md, Paths).
The document (`rest.v1.openapi`) is made on the first request for it, not at start: it
needs the schema and parses every route's document (15 ms, and GraphQL's imports)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import orjson
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from rest.v1.routes import ROUTES
from storage.settings import Settings

if TYPE_CHECKING:
    from rest.v1.graphql_routes import GraphQLRoutes

CACHE = {"Cache-Control": "public, max-age=300"}


def openapi_routes(
    graphql: Callable[[], Awaitable[GraphQLRoutes]], settings: Settings
) -> list[BaseRoute]:
    """The two routes; `graphql` gives the table's routes over the schema once built."""
    made: dict[str, bytes] = {}

    async def rendered(kind: str) -> bytes:
        if kind not in made:
            routes = await graphql()
            from rest.v1.openapi.document import as_yaml, openapi_document

            requirements = {r.operation_id: routes.documents.requirement(r) for r in ROUTES}
            document = openapi_document(routes.schema, requirements, settings)
            made["json"] = orjson.dumps(document, option=orjson.OPT_INDENT_2)
            if kind == "yaml":  # tens of ms: only when asked for
                made["yaml"] = as_yaml(document)
        return made[kind]

    async def json_endpoint(request: Request) -> Response:
        return Response(await rendered("json"), media_type="application/json", headers=CACHE)

    async def yaml_endpoint(request: Request) -> Response:
        return Response(await rendered("yaml"), media_type="application/yaml", headers=CACHE)

    return [
        Route("/v1/openapi.json", json_endpoint, methods=["GET", "HEAD"]),
        Route("/v1/openapi.yaml", yaml_endpoint, methods=["GET", "HEAD"]),
    ]
