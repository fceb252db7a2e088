"""References (E5, E8): asset and unit ids in third-party systems, read under the
`references` flag and their read permission (checked by the field's permission class).

Only references whose asset the key may see are listed; filters by asset and by
reference key (the spec's pattern) narrow the list.
"""

from __future__ import annotations

from typing import Any

from resolvers.context import RequestContext
from resolvers.errors import FieldErrors
from resolvers.keys import Caller
from resolvers.paging import BY_ID, Sort, find_page, paged
from resolvers.validation import check_id, check_paging
from storage import collections as c
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
) -> dict[str, Any]:
    caller: Caller = await context.caller()
    errors = FieldErrors()
    page_no, size = check_paging(errors, page, per_page)
    check_id(errors, "assetId", asset_id)
    check_reference_key(errors, "key", key)
    errors.raise_if_any()
    query = caller.asset_filter(asset_id)
    if query is None:
        return paged([], page_no, size, False)
    if key is not None:
        query["key"] = key
    return await find_page(context.store, collection, query, page_no, size, sort, projection)


async def list_asset_references(
    context: RequestContext,
    page: int | None,
    per_page: int | None,
    asset_id: str | None,
    key: str | None,
) -> dict[str, Any]:
    return await _list(context, c.ASSET_REFERENCES, BY_ID, page, per_page, asset_id, key)


async def list_unit_references(
    context: RequestContext,
    page: int | None,
    per_page: int | None,
    asset_id: str | None,
    key: str | None,
) -> dict[str, Any]:
    return await _list(
        context, c.UNIT_REFERENCES, UNIT_REFERENCE_ORDER, page, per_page, asset_id, key, NO_ID
    )
