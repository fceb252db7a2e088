"""The GraphQL schema as SDL at `/graphql/schema.graphql`, for people and code
generators. Public, as introspection is (docs/api.md, GraphQL); `docs/schema.graphql` is
the same text, committed, and `tests/rest/graphql_http/test_sdl.py` keeps it current."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from rest.etags import REVALIDATE, body_etag, etag_matches
from schema.lazy import LazySchema

SDL_PATH = "/graphql/schema.graphql"
MEDIA_TYPE = "text/plain; charset=utf-8"  # SDL has no media type of its own; browsers show this


def sdl_text(schema: object) -> str:
    """The SDL as strawberry prints it, ending in one newline (as the committed file)."""
    return str(schema).rstrip("\n") + "\n"


def sdl_routes(schemas: LazySchema) -> list[BaseRoute]:
    """GET and HEAD of the SDL, with an ETag: it changes only with a new release. Printed
    on the first request for it, not at start (3 ms of a cold start, and the schema)."""
    printed: list[tuple[bytes, str, dict[str, str]]] = []

    async def endpoint(request: Request) -> Response:
        if not printed:
            content = sdl_text(await schemas.get()).encode()
            etag = body_etag(content)
            printed.append((content, etag, {"ETag": f'"{etag}"', "Cache-Control": REVALIDATE}))
        content, etag, headers = printed[0]
        if etag_matches(request.headers.get("if-none-match"), etag):
            return Response(status_code=304, headers=headers)
        return Response(content, media_type=MEDIA_TYPE, headers=headers)

    return [Route(SDL_PATH, endpoint, methods=["GET", "HEAD"])]
