"""`{cdn_url}` = /files/...: stored files with their media type, an ETag and long caching.

The files share the API's origin, and one of them is a drawing someone uploaded: no
answer may let a browser run it there. `safety_headers` is the one table of how.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response

from resolvers.context import Services
from resolvers.errors import ErrorCode
from rest.etags import etag_matches
from rest.ops.metrics import ROUTE
from rest.responses import error_of
from storage.files import download_name, get_file

IMMUTABLE = "public, max-age=31536000, immutable"  # content-addressed: bytes never change
SHORT = "public, max-age=300"  # a name a re-import overwrites (a pre-content-addressed source)

NOSNIFF = {"X-Content-Type-Options": "nosniff"}
SANDBOX_POLICY = "default-src 'none'; style-src 'unsafe-inline'; sandbox"
"""For a file a browser would render as a document: no script, no requests, and an
opaque origin (`sandbox`), so it can neither run nor reach this origin's storage."""

DOCUMENT_TYPES = frozenset(
    {
        "image/svg+xml",
        "text/xml",
        "application/xml",
        "text/html",
        "application/xhtml+xml",
        "text/xsl",
    }
)


def renders_as_document(media_type: str) -> bool:
    """SVG, XML and HTML: types in which a browser runs scripts and follows links."""
    essence = media_type.split(";")[0].strip().lower()
    return essence in DOCUMENT_TYPES or essence.endswith("+xml")


def attachment(filename: str) -> str:
    """`Content-Disposition: attachment` with an ASCII name and, when that had to change
    the name, the exact one (RFC 6266, `filename*`)."""
    download = download_name(filename)
    plain = re.sub(r"[^A-Za-z0-9._-]", "_", download)
    header = f'attachment; filename="{plain}"'
    return header if plain == download else f"{header}; filename*=UTF-8''{quote(download, safe='')}"


def safety_headers(filename: str | None, media_type: str | None) -> dict[str, str]:
    """The one table of what a /files answer carries beyond ETag and caching:

    - every answer (200, 304, 404): `X-Content-Type-Options: nosniff`, so a browser
      never guesses a runnable type from the bytes;
    - a file of an SVG/XML/HTML type: `Content-Security-Policy: SANDBOX_POLICY` and
      `Content-Disposition: attachment`. The only such files stored are uploaded source
      drawings: a browser saves them rather than render them, and one rendered anyway
      runs nothing in this origin.
    """
    headers = dict(NOSNIFF)
    if filename is not None and media_type is not None and renders_as_document(media_type):
        headers["Content-Security-Policy"] = SANDBOX_POLICY
        headers["Content-Disposition"] = attachment(filename)
    return headers


def files_endpoint(services: Services) -> Callable[[Request], Awaitable[Response]]:
    """The endpoint serving `services.store`'s files."""

    async def serve_file(request: Request) -> Response:
        request.scope["state"][ROUTE] = "files"  # for /metrics
        raw_path = request.scope.get("raw_path", b"").decode("latin-1")
        name = raw_path.removeprefix("/files/")
        stored = await get_file(services.store, name)
        if stored is None:
            return error_of(ErrorCode.NOT_FOUND, headers=safety_headers(None, None))
        headers = {
            "ETag": f'"{stored.etag}"',
            "Cache-Control": IMMUTABLE if stored.immutable else SHORT,
            **safety_headers(stored.filename, stored.content_type),
        }
        if etag_matches(request.headers.get("if-none-match"), stored.etag):
            return Response(status_code=304, headers=headers)
        return Response(stored.data, media_type=stored.content_type, headers=headers)

    return serve_file
