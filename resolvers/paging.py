"""Paging over a sorted query: one extra document tells whether a next page exists.

`total_count` comes without a count query: the page that reaches the list's end knows
it; other pages leave it out (docs/api.md, Paging).

Pages are numbered (the spec's `page`), but on MongoDB a list in id order is not read
by offset when it need not be: page N starts after the last id of the nearest page
before it that this process served while the data is unchanged
(`storage.cache.page_bounds`, issue 67), so walking every page costs each page alike.
The embedded server scans the collection for any query in id order, offset or range, so
there pages are read by offset (`Store.seeks_id_ranges`)."""

from __future__ import annotations

from typing import Any, NotRequired, Protocol, TypedDict

from storage.cache import cached_reads
from storage.cache.page_bounds import Start
from storage.cache.read_cache import kept_key
from storage.cache.scopes import of_query
from storage.database import Store

Sort = list[tuple[str, int]]


class PageReader(Protocol):
    """What `find_page` needs of the request's context (`RequestContext`)."""

    @property
    def store(self) -> Store: ...

    @property
    def stored_ids(self) -> bool: ...


BY_ID: Sort = [("_id", 1)]
ID_INDEX = "_id_"


def as_resource(document: dict[str, Any]) -> dict[str, Any]:
    """A stored document as an API object: `_id` becomes `id` (when it was selected)."""
    if "_id" in document:
        document["id"] = document.pop("_id")
    return document


async def find_all(
    store: Store,
    collection: str,
    query: dict[str, Any],
    sort: Sort = BY_ID,
    projection: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    documents = await cached_reads.find_list(store, collection, query, sort, projection=projection)
    return [as_resource(document) for document in documents]


async def find_page(
    context: PageReader,
    collection: str,
    query: dict[str, Any],
    page: int,
    per_page: int,
    sort: Sort = BY_ID,
    projection: dict[str, Any] | None = None,
) -> Page:
    """One page and its paging object (`prev_page`/`next_page` are numbers or None).
    Its items are API objects (`id`), or as stored (`_id`) while the context reads
    pages so (`context.stored_ids`: a direct plan's completer renames each item as it
    builds it, a pass less over a page of 10,000)."""
    # An unfiltered list in id order walks the _id index. MongoDB's planner picks it
    # anyway; the embedded server would otherwise scan and sort the whole collection
    # (see docs/performance-history.md).
    hint = ID_INDEX if not query and sort == BY_ID else None
    bounds = _bounds(context.store, collection, query, sort, per_page, projection)
    start = Start(None, (page - 1) * per_page)
    if bounds is not None:
        start = context.store.cache.page_bounds.start(*bounds, page, per_page)
    documents = await cached_reads.find_list(
        context.store,
        collection,
        query if start.after is None else {**query, "_id": {"$gt": start.after}},
        sort,
        skip=start.skip,
        limit=per_page + 1,
        projection=projection,
        hint=hint,
    )
    if bounds is not None and documents and "_id" in documents[-1]:
        last = documents[min(per_page, len(documents)) - 1]["_id"]
        context.store.cache.page_bounds.keep(*bounds, page, last)
    has_next = len(documents) > per_page
    if has_next:
        del documents[per_page:]  # the one extra document only said there is more
    if not context.stored_ids:
        for document in documents:  # as_resource, inline: a page may hold 10,000
            if "_id" in document:
                document["id"] = document.pop("_id")
    return paged(
        documents, page, per_page, has_next, end_count(documents, page, per_page, has_next)
    )


def _bounds(
    store: Store,
    collection: str,
    query: dict[str, Any],
    sort: Sort,
    per_page: int,
    projection: dict[str, Any] | None,
) -> tuple[bytes, Any] | None:
    """The key of the list's page ends and the version they hold for, taken before the
    read; None for a list not in id order, one that names ids itself, while the read
    cache does not serve (no version vouches for an end), and on a server that scans the
    collection for an id range (`Store.seeks_id_ranges`: there an offset costs less)."""
    cache = store.cache
    usable = cache.live and cache.enabled and store.seeks_id_ranges
    if sort != BY_ID or "_id" in query or not usable:
        return None
    try:
        key = kept_key("pages", collection, query, projection, per_page)
    except TypeError:  # a filter value JSON does not write: paged by offset
        return None
    return key, cache.version(collection, of_query(query))


def end_count(data: list[Any], page: int, per_page: int, has_next: bool) -> int | None:
    """How many items the list holds, when this page holds its end (an empty first page
    too); None elsewhere, and past the end, where the end is not seen."""
    if has_next or (not data and page > 1):
        return None
    return (page - 1) * per_page + len(data)


class Paging(TypedDict):
    """A page's numbers (the spec's `paging`; REST turns the page numbers into URLs)."""

    per_page: int
    current_page: int
    prev_page: int | None
    next_page: int | None
    total_count: int | None
    list: NotRequired[tuple[str, dict[str, Any]]]  # told by `tell_list`, for those URLs


class Page(TypedDict):
    """A page of a list: its numbers and its items."""

    paging: Paging
    data: list[Any]


def paged(
    data: list[Any], page: int, per_page: int, has_next: bool, total: int | None = None
) -> Page:
    return {
        "paging": {
            "per_page": per_page,
            "current_page": page,
            "prev_page": page - 1 if page > 1 else None,
            "next_page": page + 1 if has_next else None,
            "total_count": total,
        },
        "data": data,
    }


def tell_list(page: Page, field: str, filters: dict[str, Any]) -> Page:
    """The page, its paging told which list it is (the GraphQL root field and its
    filters), so that `Paging.prevUrl`/`nextUrl` can name the same list's pages on REST."""
    page["paging"]["list"] = (field, filters)
    return page


def empty_page(page: int, per_page: int) -> Page:
    """A list that nothing can fill (an `asset` filter out of the key's scope): no items,
    a count of 0, as for any filter that matches nothing."""
    return paged([], page, per_page, False, total=0)


def slice_list(items: list[Any], page: int, per_page: int) -> list[Any]:
    """One slice of an unenveloped list (validated `page`/`per-page`)."""
    start = (page - 1) * per_page
    return items[start : start + per_page]
