"""Request bodies of REST routes: media type (415), size (413) and text decoding (422)."""

from __future__ import annotations

import codecs
import re

from starlette.requests import Request

from resolvers.errors import ApiError, ErrorCode, invalid
from rest.v1.routes.rows import Body
from storage.isolated import known_utf8
from storage.settings import Settings

# The encoding an XML declaration names, within the first bytes of the document.
XML_ENCODING = re.compile(rb"""^\s*<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")


def media_type_of(header: str | None) -> tuple[str, dict[str, str]]:
    """`type/subtype; name=value` -> ("type/subtype", {name: value}), lower-cased."""
    if not header:
        return "", {}
    kind, _, rest = header.partition(";")
    params: dict[str, str] = {}
    for part in rest.split(";"):
        name, _, value = part.partition("=")
        if name.strip():
            params[name.strip().lower()] = value.strip().strip('"')
    return kind.strip().lower(), params


async def read_body_bytes(
    body: Body, request: Request, settings: Settings
) -> tuple[bytearray, dict[str, str]]:
    """The raw body and its media-type parameters, or an ApiError: 415 for another
    media type, 413 over the route's limit (else the global one)."""
    kind, params = media_type_of(request.headers.get("content-type"))
    if kind not in body.media_types:
        raise ApiError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, content_type=body.media_types[0])
    limit = body.max_bytes(settings) if body.max_bytes else settings.max_body_bytes
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:  # refused before a byte is read
        raise ApiError(ErrorCode.PAYLOAD_TOO_LARGE)
    # One buffer grown as chunks arrive: joining 8 MB of chunks at the end held the
    # event loop 5 ms (fresh pages faulted in at once); here a few at each chunk.
    buffer = bytearray()
    async for chunk in request.stream():  # counted as it arrives: chunked bodies too
        if len(buffer) + len(chunk) > limit:
            raise ApiError(ErrorCode.PAYLOAD_TOO_LARGE)
        buffer += chunk
    return buffer, params


async def read_text_body(body: Body, request: Request, settings: Settings) -> str:
    """The body as text, or an ApiError: 415, 413 (`read_body_bytes`), 422 for bytes
    that are not text in their declared encoding."""
    data, params = await read_body_bytes(body, request, settings)
    declared = XML_ENCODING.match(data[:256])
    encoding = params.get("charset") or (declared.group(1).decode() if declared else "utf-8")
    try:
        text = data.decode(encoding)
    except LookupError:
        raise invalid({body.name: [f"unknown character encoding {encoding!r}"]}) from None
    except UnicodeDecodeError as error:
        message = f"is not valid {encoding} text (byte {error.start})"
        raise invalid({body.name: [message]}) from None
    if codecs.lookup(encoding).name in ("utf-8", "ascii"):
        known_utf8(text, data)  # a parse worker gets these bytes, not the text encoded again
    return text
