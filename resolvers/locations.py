"""Locations of a unit map (E17), filtered by the tag grammar of `resolvers.tag_filter`.

The list carries an `etag`: a hash of the map document and of exactly the locations
returned, so it changes whenever the map or any of these locations changes (and
differs between filters). REST sends it as `ETag` and answers `If-None-Match` with 304.
"""

from __future__ import annotations

import hashlib
from typing import Any

import orjson

from resolvers.context import RequestContext
from resolvers.errors import FieldErrors
from resolvers.language import language_etag
from resolvers.markets import check_market
from resolvers.paging import BY_ID, find_all, slice_list
from resolvers.reads import visible_map
from resolvers.tag_filter import Term, matches, parse_filter
from resolvers.validation import check_id, check_paging
from storage import collections as c

Location = dict[str, Any]


def parse_tags(tags: str | None) -> list[Term]:
    errors = FieldErrors()
    terms = parse_filter(errors, "tags", tags)
    errors.raise_if_any()
    return terms


def filtered(locations: list[Location], terms: list[Term]) -> list[Location]:
    return [location for location in locations if matches(terms, location.get("tags", ()))]


def version_of(unit_map: dict[str, Any], locations: list[Location]) -> str:
    """A strong validator of the response: map document plus the locations served."""
    body = orjson.dumps([unit_map, locations], option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(body).hexdigest()[:32]


async def list_locations(
    context: RequestContext,
    map_id: str,
    tags: str | None,
    page: int | None,
    per_page: int | None,
    asset_id: str | None = None,
    market: str | None = None,
) -> dict[str, Any]:
    """Every location of the map that passes the filter, by id; sliced when paging is given."""
    caller = await context.caller()
    errors = FieldErrors()
    check_id(errors, "unitMapId", map_id)
    check_id(errors, "assetId", asset_id)
    check_id(errors, "market", market)
    terms = parse_filter(errors, "tags", tags)
    page_no, size = check_paging(errors, page, per_page)
    errors.raise_if_any()
    await check_market(context, caller, asset_id, market)
    unit_map = await visible_map(context, caller, map_id, asset_id)
    locations = await find_all(context.store, c.LOCATIONS, {"unit_map_id": map_id}, BY_ID)
    data = filtered(locations, terms)
    if page is not None or per_page is not None:
        data = slice_list(data, page_no, size)
    return {"etag": language_etag(version_of(unit_map, data), context.language), "data": data}
