"""Entity tags: `If-None-Match` against a tag, one parser for every face that answers 304
(REST's GET routes and /files), so none of them can match a tag loosely; and the tag of a
REST answer's bytes."""

from __future__ import annotations

import xxhash
from starlette.requests import HTTPConnection

REVALIDATE = "private, no-cache"
"""`Cache-Control` of every REST GET answer: a client may keep it but must revalidate it
(the answer depends on the key, so no shared cache keeps it)."""


TILE_WITH_QUERY_KEY = "public, max-age=300, s-maxage=600"
TILE_WITH_HEADER_KEY = "private, max-age=300"


def tile_caching(request: HTTPConnection) -> str:
    """`Cache-Control` of a vector tile (docs/tiles.md, "Caching"): a tile is the same for
    every key of its asset, but only its address may tell a shared cache whose it is. With
    the key in the query (`?api-key=`), the address is the key's own: a CDN may keep it
    (10 minutes); with the key in a header, only the browser (5 minutes, then `ETag`)."""
    if request.query_params.get("api-key") and not request.headers.get("api-key"):
        return TILE_WITH_QUERY_KEY
    return TILE_WITH_HEADER_KEY


def body_etag(body: bytes) -> str:
    """The strong tag (unquoted) of exactly these response bytes: a hash, not a version or
    a counter, so every process and every restart gives the same tag for the same answer,
    and any change of the body (paging URLs included) changes it. XXH3-128: a tag needs
    no resistance to a forger (it decides only whether a client's own copy is current,
    and the copy is of an answer to its own key), and it is 2.5 us for the 156 KB of a
    page of 1,000 units, where SHA-256 took 86 (issue 36)."""
    return xxhash.xxh3_128_hexdigest(body)


def etag_matches(header: str | None, etag: str) -> bool:
    """`If-None-Match`: `*` or a list of (weak or strong) tags, compared weakly
    (RFC 9110, 13.1.2): a tag matches only whole, `"<etag>x"` or `W/"<etag>-y"` do not."""
    if header is None:
        return False
    if header.strip() == "*":
        return True
    tags = [tag.strip().removeprefix("W/") for tag in header.split(",")]
    return f'"{etag}"' in tags
