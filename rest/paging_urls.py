"""`prev_url`/`next_url`: absolute https addresses on the public base URL.

They keep every query parameter of the request except `api-key` (a secret must
not travel in links), under the spec's names (`asset_id` becomes `asset`), and set
`page` and `per-page`.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from rest.routes import SYNONYMS


def page_url(
    public_url: str, raw_path: str, query: list[tuple[str, str]], page: int, per_page: int
) -> str:
    named = [(SYNONYMS.get(k, k), v) for k, v in query]
    kept = [(k, v) for k, v in named if k not in ("api-key", "page", "per-page")]
    kept += [("page", str(page)), ("per-page", str(per_page))]
    return f"{public_url}{raw_path}?{urlencode(kept)}"


def with_urls(
    body: dict[str, Any], public_url: str, raw_path: str, query: list[tuple[str, str]]
) -> dict[str, Any]:
    """Replace the page numbers of a GraphQL paging object with the REST URLs."""
    paging = body["paging"]
    per_page = paging["per_page"]
    prev_page = paging.pop("prev_page")
    next_page = paging.pop("next_page")
    paging["prev_url"] = (
        None if prev_page is None else page_url(public_url, raw_path, query, prev_page, per_page)
    )
    paging["next_url"] = (
        None if next_page is None else page_url(public_url, raw_path, query, next_page, per_page)
    )
    return body
