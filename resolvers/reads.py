"""Reads of the core resources: scope, validation, paging, and existence in the contract's order.

Access (key, flag, permission) is checked first by the field's permission class
(`schema.permissions` -> `resolvers.auth.access`); every function here then checks
input, then existence; lists leave out what the caller's scope does not cover and single
reads answer 404 for it, so a key never learns what exists outside its scope.
"""

from __future__ import annotations

from typing import Any

from resolvers.auth.keys import Caller
from resolvers.auth.scope import in_scope
from resolvers.context import RequestContext
from resolvers.errors import FieldErrors, not_found
from resolvers.markets import check_market, check_owner
from resolvers.paging import (
    BY_ID,
    Page,
    as_resource,
    empty_page,
    find_all,
    find_page,
    slice_list,
)
from resolvers.validation import check_filter, check_id, check_paging, split_list
from storage import collections as c
from storage.cache import cached_reads

FLOOR_ORDER = [("sort", 1), ("_id", 1)]


async def _one(context: RequestContext, name: str, query: dict[str, Any]) -> dict[str, Any]:
    """The document `query` finds, or 404. A read by id of a resource of any asset names
    the caller's scope in `query` (`in_scope`): a document out of scope is never read, so
    a key of another asset neither waits for that asset's switch in progress
    (`storage.cache.switch_gate`) nor learns from the time whether the id exists."""
    document = await cached_reads.find_one(context.store, name, query)
    if document is None:
        raise not_found()
    return as_resource(document)


async def begin(
    context: RequestContext,
    paging: tuple[int | None, int | None] | None = None,
    market: str | None = None,
    errors: FieldErrors | None = None,
    **ids: str | None,
) -> tuple[Caller, int, int]:
    """The caller (access was checked by the field's permission class), then the input:
    ids, the market and paging numbers, with the problems a caller found in `errors` of
    its own inputs, every problem reported at once; then a vendor path's market
    (`resolvers.markets`), the market of `ids["assetId"]`."""
    caller = await context.caller()
    errors = FieldErrors() if errors is None else errors
    for name, value in {**ids, "market": market}.items():
        check_id(errors, name, value)
    page_no, size = check_paging(errors, *paging) if paging else (1, 0)
    errors.raise_if_any()
    await check_market(context, caller, ids.get("assetId"), market)
    return caller, page_no, size


async def visible_map(
    context: RequestContext, caller: Caller, map_id: str, asset_id: str | None = None
) -> dict[str, Any]:
    """A unit map the caller may see (of `asset_id`, when one is named), or 404."""
    unit_map = await _one(context, c.UNIT_MAPS, in_scope(caller, {"_id": map_id}))
    return check_owner(unit_map, asset_id)


# Assets (E1, E2)


async def list_assets(context: RequestContext, page: int | None, per_page: int | None) -> Page:
    caller, page_no, size = await begin(context, (page, per_page))
    query = {} if caller.assets is None else {"_id": {"$in": sorted(caller.assets)}}
    return await find_page(context, c.ASSETS, query, page_no, size)


async def get_asset(context: RequestContext, asset_id: str) -> dict[str, Any]:
    caller, _, _ = await begin(context, id=asset_id)
    if not caller.may_see(asset_id):
        raise not_found()
    return await _one(context, c.ASSETS, {"_id": asset_id})


# Floors (E3, E4)


async def list_floors(
    context: RequestContext,
    asset_id: str,
    page: int | None,
    per_page: int | None,
    market: str | None = None,
) -> Page:
    caller, page_no, size = await begin(context, (page, per_page), market, assetId=asset_id)
    if not caller.may_see(asset_id):
        raise not_found()
    if await cached_reads.count(context.store, c.ASSETS, {"_id": asset_id}, limit=1) == 0:
        raise not_found()
    query = {"asset_id": asset_id}
    return await find_page(context, c.FLOORS, query, page_no, size, FLOOR_ORDER)


async def get_floor(
    context: RequestContext, asset_id: str, floor_id: str, market: str | None = None
) -> dict[str, Any]:
    caller, _, _ = await begin(context, None, market, assetId=asset_id, id=floor_id)
    if not caller.may_see(asset_id):
        raise not_found()
    return await _one(context, c.FLOORS, {"_id": floor_id, "asset_id": asset_id})


# Units (E6, E7)


async def list_units(
    context: RequestContext,
    page: int | None,
    per_page: int | None,
    asset_id: str | None = None,
    market: str | None = None,
) -> Page:
    """Units the key may see, of one asset when `asset_id` is given."""
    caller, page_no, size = await begin(context, (page, per_page), market, assetId=asset_id)
    query = caller.asset_filter(asset_id)
    if query is None:
        return empty_page(page_no, size)
    return await find_page(context, c.UNITS, query, page_no, size)


async def get_unit(
    context: RequestContext, unit_id: str, asset_id: str | None = None, market: str | None = None
) -> dict[str, Any]:
    caller, _, _ = await begin(context, None, market, assetId=asset_id, id=unit_id)
    return check_owner(await _one(context, c.UNITS, in_scope(caller, {"_id": unit_id})), asset_id)


# Unit maps (E9, E11)


async def list_unit_maps(
    context: RequestContext,
    page: int | None,
    per_page: int | None,
    tags: str | None,
    asset_id: str | None,
    market: str | None = None,
) -> Page:
    """Maps the key may see; `tags` keeps maps carrying every listed tag (AND)."""
    errors = FieldErrors()
    check_filter(errors, "tags", tags)
    wanted_tags = split_list(errors, "tags", tags) if not errors.fields.get("tags") else []
    caller, page_no, size = await begin(context, (page, per_page), market, errors, assetId=asset_id)
    query = caller.asset_filter(asset_id)
    if query is None:
        return empty_page(page_no, size)
    if wanted_tags:
        query["tags"] = {"$all": wanted_tags}
    return await find_page(context, c.UNIT_MAPS, query, page_no, size)


async def get_unit_map(
    context: RequestContext, map_id: str, asset_id: str | None = None, market: str | None = None
) -> dict[str, Any]:
    caller, _, _ = await begin(context, None, market, assetId=asset_id, id=map_id)
    return await visible_map(context, caller, map_id, asset_id)


# Map sub-resources (E12-E16)


async def list_backgrounds(
    context: RequestContext,
    map_id: str,
    page: int | None,
    per_page: int | None,
    asset_id: str | None = None,
    market: str | None = None,
) -> Page:
    caller, page_no, size = await begin(
        context, (page, per_page), market, assetId=asset_id, unitMapId=map_id
    )
    await visible_map(context, caller, map_id, asset_id)
    query = {"unit_map_id": map_id}
    return await find_page(context, c.BACKGROUNDS, query, page_no, size)


async def get_background(
    context: RequestContext,
    map_id: str,
    background_id: str,
    asset_id: str | None = None,
    market: str | None = None,
) -> dict[str, Any]:
    caller, _, _ = await begin(
        context, None, market, assetId=asset_id, unitMapId=map_id, id=background_id
    )
    await visible_map(context, caller, map_id, asset_id)
    return await _one(context, c.BACKGROUNDS, {"_id": background_id, "unit_map_id": map_id})


async def list_level_tags(
    context: RequestContext,
    map_id: str,
    page: int | None,
    per_page: int | None,
    asset_id: str | None = None,
    market: str | None = None,
) -> list[dict[str, Any]]:
    """Unenveloped: all level tags, or one slice when paging arguments are given."""
    caller, page_no, size = await begin(
        context, (page, per_page), market, assetId=asset_id, unitMapId=map_id
    )
    await visible_map(context, caller, map_id, asset_id)
    tags = await find_all(context.store, c.LEVEL_TAGS, {"unit_map_id": map_id}, [("key", 1)])
    if page is None and per_page is None:
        return tags
    return slice_list(tags, page_no, size)


async def list_map_units(
    context: RequestContext,
    map_id: str,
    page: int | None,
    per_page: int | None,
    asset_id: str | None = None,
    market: str | None = None,
) -> Page:
    caller, page_no, size = await begin(
        context, (page, per_page), market, assetId=asset_id, unitMapId=map_id
    )
    unit_map = await visible_map(context, caller, map_id, asset_id)
    query = {"_id": {"$in": unit_map.get("unit_ids", [])}, "asset_id": unit_map["asset_id"]}
    return await find_page(context, c.UNITS, query, page_no, size, BY_ID)


async def get_map_unit(
    context: RequestContext,
    map_id: str,
    unit_id: str,
    asset_id: str | None = None,
    market: str | None = None,
) -> dict[str, Any]:
    caller, _, _ = await begin(
        context, None, market, assetId=asset_id, unitMapId=map_id, id=unit_id
    )
    unit_map = await visible_map(context, caller, map_id, asset_id)
    if unit_id not in unit_map.get("unit_ids", []):
        raise not_found()
    return await _one(context, c.UNITS, {"_id": unit_id, "asset_id": unit_map["asset_id"]})
