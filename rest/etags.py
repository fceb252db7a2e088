"""`If-None-Match` against an entity tag, one parser for every face that answers 304
(REST's versioned routes and /files), so none of them can match a tag loosely."""

from __future__ import annotations


def etag_matches(header: str | None, etag: str) -> bool:
    """`If-None-Match`: `*` or a list of (weak or strong) tags, compared weakly
    (RFC 9110, 13.1.2): a tag matches only whole, `"<etag>x"` or `W/"<etag>-y"` do not."""
    if header is None:
        return False
    if header.strip() == "*":
        return True
    tags = [tag.strip().removeprefix("W/") for tag in header.split(",")]
    return f'"{etag}"' in tags
