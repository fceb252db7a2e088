"""`{cdn_url}` = /files/...: stored files with their media type, an ETag and long caching."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import Response

from resolvers.context import Services
from resolvers.errors import ErrorCode
from rest.responses import error_of
from storage.files import get_file

IMMUTABLE = "public, max-age=31536000, immutable"  # content-addressed: bytes never change
SHORT = "public, max-age=300"  # a name that a re-import overwrites (the SVG source)


def files_endpoint(services: Services) -> Callable[[Request], Awaitable[Response]]:
    """The endpoint serving `services.store`'s files."""

    async def serve_file(request: Request) -> Response:
        raw_path = request.scope.get("raw_path", b"").decode("latin-1")
        name = raw_path.removeprefix("/files/")
        stored = await get_file(services.store, name)
        if stored is None:
            return error_of(ErrorCode.NOT_FOUND)
        etag = f'"{stored.etag}"'
        headers = {"ETag": etag, "Cache-Control": IMMUTABLE if stored.immutable else SHORT}
        if etag in request.headers.get("if-none-match", ""):
            return Response(status_code=304, headers=headers)
        return Response(stored.data, media_type=stored.content_type, headers=headers)

    return serve_file
