"""`prev_url`/`next_url`: absolute https addresses on the public base URL.

They keep every query parameter of the request except `api-key` (a secret must
not travel in links), under the spec's names (`asset_id` becomes `asset`), and set
`page` and `per-page`.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlencode

from rest.v1.routes import ROUTES
from rest.v1.routes.rows import SYNONYMS, RestRoute, Shape


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
    if paging.get("total_count", 0) is None:  # unknown without another scan: left out
        del paging["total_count"]
    return body


def graphql_page_url(
    public_url: str, field: str, arguments: dict[str, Any], page: int, per_page: int
) -> str | None:
    """The REST address of `page` of the GraphQL list `field(arguments)`: the paged GET
    route of the table that serves that field, its path and filters filled in (the
    GraphQL face's `Paging.prevUrl`/`nextUrl`); None for a list REST does not page."""
    given = {name for name, value in arguments.items() if value is not None}
    route = next(
        (
            route
            for route in PAGED_ROUTES.get(field, ())
            if given <= {param.variable for param in route.params}
        ),
        None,
    )
    if route is None:
        return None
    path, query = route.path, []
    for param in route.params:
        value = arguments.get(param.variable)
        if param.location == "path":
            path = path.replace(f"{{{param.name}}}", quote(str(value), safe=""))
        elif value is not None and param.name not in ("page", "per-page"):
            query.append((param.name, str(value)))
    return page_url(public_url, path, query, page, per_page)


# The paged GET routes of each field, flat ones first: a list names the first route that
# takes every argument it was given (with `market`, a vendor path).
PAGED_ROUTES: dict[str, list[RestRoute]] = {}
for _route in ROUTES:
    if _route.method == "GET" and _route.shape is Shape.PAGED:
        PAGED_ROUTES.setdefault(_route.graphql_field, []).append(_route)
