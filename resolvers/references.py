"""References (E5, E8): asset and unit ids in third-party systems, read under the
`references` flag and their read permission (checked by the field's permission class).

Only references whose asset the key may see are listed; filters by asset, by
reference key (the spec's pattern) and by unit-reference group narrow the list. The
groups of an asset's unit references (the vendor's `units/reference-groups`) are
listed from the references themselves: a group is its `group_id`, named by the
references' `group_name`, dated by its earliest and latest reference.
"""

from __future__ import annotations

from typing import Any

from resolvers.context import RequestContext
from resolvers.errors import FieldErrors, not_found
from resolvers.paging import BY_ID, Page, Sort, empty_page, end_count, find_page, paged
from resolvers.reads import begin
from storage import collections as c
from storage.cache import cached_reads
from storage.limits import REFERENCE_KEY, REFERENCE_KEY_PATTERN

# Unit references have no id of their own: (unit_id, key) is unique and orders them.
UNIT_REFERENCE_ORDER: Sort = [("unit_id", 1), ("key", 1)]
NO_ID = {"_id": 0}


def check_reference_key(errors: FieldErrors, name: str, value: str | None) -> None:
    if value is not None and REFERENCE_KEY.fullmatch(value) is None:
        errors.add(name, f"must match {REFERENCE_KEY_PATTERN}")


async def _list(
    context: RequestContext,
    collection: str,
    sort: Sort,
    page: int | None,
    per_page: int | None,
    asset_id: str | None,
    key: str | None,
    projection: dict[str, Any] | None = None,
    market: str | None = None,
    group_id: str | None = None,
) -> Page:
    errors = FieldErrors()
    check_reference_key(errors, "key", key)
    caller, page_no, size = await begin(
        context, (page, per_page), market, errors, assetId=asset_id, groupId=group_id
    )
    query = caller.asset_filter(asset_id)
    if query is None:
        return empty_page(page_no, size)
    if group_id is not None:
        query["group_id"] = group_id
        # A group in the path must be there: it has references the key may see (of the
        # asset, when one is named), else 404 as for any unknown id.
        if await cached_reads.count(context.store, collection, query, limit=1) == 0:
            raise not_found()
    if key is not None:
        query["key"] = key
    return await find_page(context, collection, query, page_no, size, sort, projection)


async def list_asset_references(
    context: RequestContext,
    page: int | None,
    per_page: int | None,
    asset_id: str | None,
    key: str | None,
    market: str | None = None,
) -> Page:
    return await _list(
        context, c.ASSET_REFERENCES, BY_ID, page, per_page, asset_id, key, market=market
    )


async def list_unit_references(
    context: RequestContext,
    page: int | None,
    per_page: int | None,
    asset_id: str | None,
    key: str | None,
    market: str | None = None,
    group_id: str | None = None,
) -> Page:
    return await _list(
        context,
        c.UNIT_REFERENCES,
        UNIT_REFERENCE_ORDER,
        page,
        per_page,
        asset_id,
        key,
        NO_ID,
        market,
        group_id,
    )


async def list_unit_reference_groups(
    context: RequestContext,
    page: int | None,
    per_page: int | None,
    asset_id: str | None,
    market: str | None = None,
) -> Page:
    """The groups of the unit references the key may see (of one asset when given), by id."""
    caller, page_no, size = await begin(context, (page, per_page), market, assetId=asset_id)
    query = caller.asset_filter(asset_id)
    if query is None:
        return empty_page(page_no, size)
    pipeline: list[dict[str, Any]] = [
        {"$match": query},
        {
            "$group": {
                "_id": {"id": "$group_id", "asset_id": "$asset_id"},
                "name": {"$max": "$group_name"},
                "created_at": {"$min": "$created_at"},
                "updated_at": {"$max": "$updated_at"},
            }
        },
        {"$sort": {"_id.id": 1, "_id.asset_id": 1}},
        {"$skip": (page_no - 1) * size},
        {"$limit": size + 1},
    ]
    found = await cached_reads.aggregate_collection(context.store, c.UNIT_REFERENCES, pipeline)
    groups = [{**group.pop("_id"), **group} for group in found[:size]]
    has_next = len(found) > size
    return paged(groups, page_no, size, has_next, end_count(groups, page_no, size, has_next))
