"""Unit attributes (E19-E22): groups, assignments, assign and unassign.

Access (flag `unit-attributes-resource`, the read or write permission) was checked
by the field's permission class. Then input (422), then existence of the group (404),
then each item against the stored group and units (422). Every problem of every
item is reported at once, keyed `data.<index>.<field>`, and nothing is written.
"""

from __future__ import annotations

from typing import Any

from resolvers.auth.keys import Caller
from resolvers.context import RequestContext
from resolvers.errors import FieldErrors, not_found
from resolvers.paging import BY_ID, Page, Sort, find_all, find_page, paged, slice_list
from resolvers.validation import check_id, check_paging, item_count_problems
from storage import collections as c
from storage.attributes import assignments as writes
from storage.cache import cached_reads

ASSIGNMENT_ORDER: Sort = [("unit_id", 1), ("attribute_id", 1)]
ASSIGNMENT_FIELDS = {"_id": 0, "group_id": 1, "attribute_id": 1, "asset_id": 1, "unit_id": 1}
ITEM_FIELDS = (
    ("groupId", "group_id"),
    ("attributeId", "attribute_id"),
    ("assetId", "asset_id"),
    ("unitId", "unit_id"),
)
Item = dict[str, Any]


def as_group(document: dict[str, Any]) -> dict[str, Any]:
    """A stored group as the API object: its id is `group_id`."""
    document["group_id"] = document.pop("id")
    return document


async def list_groups(
    context: RequestContext, page: int | None, per_page: int | None
) -> list[dict[str, Any]]:
    """Unenveloped: every group with its attributes, or one slice when paging is given."""
    await context.caller()
    errors = FieldErrors()
    page_no, size = check_paging(errors, page, per_page)
    errors.raise_if_any()
    groups = [as_group(g) for g in await find_all(context.store, c.ATTRIBUTE_GROUPS, {}, BY_ID)]
    if page is None and per_page is None:
        return groups
    return slice_list(groups, page_no, size)


async def group_of(context: RequestContext, group_id: str, for_write: bool) -> dict[str, Any]:
    """The group, or 404; a write checks against the database itself, not the cache."""
    query = {"_id": group_id}
    group = await (
        context.store[c.ATTRIBUTE_GROUPS].find_one(query)
        if for_write
        else cached_reads.find_one(context.store, c.ATTRIBUTE_GROUPS, query)
    )
    if group is None:
        raise not_found()
    return group


async def list_assignments(
    context: RequestContext,
    group_id: str,
    page: int | None,
    per_page: int | None,
    asset_id: str | None,
) -> Page:
    """Assignments of a group whose asset the key may see, by unit then attribute."""
    caller = await context.caller()
    errors = FieldErrors()
    check_id(errors, "groupId", group_id)
    check_id(errors, "assetId", asset_id)
    page_no, size = check_paging(errors, page, per_page)
    errors.raise_if_any()
    await group_of(context, group_id, for_write=False)
    scope = caller.asset_filter(asset_id)
    if scope is None:
        return paged([], page_no, size, False)
    query = {"group_id": group_id, **scope}
    return await find_page(
        context, c.ASSIGNMENTS, query, page_no, size, ASSIGNMENT_ORDER, ASSIGNMENT_FIELDS
    )


def _check_shape(errors: FieldErrors, group_id: str, items: list[Item]) -> None:
    """Input alone: a non-empty array of items with valid ids, all of the path's group."""
    check_id(errors, "groupId", group_id)
    if not items:
        errors.add("data", "must be a non-empty array")
    too_many = item_count_problems()(items)  # REST refused these unread; GraphQL here
    if too_many:
        errors.add("data", too_many[0])
        return
    for index, item in enumerate(items):
        for name, key in ITEM_FIELDS:
            check_id(errors, f"data.{index}.{name}", item[key])
        if item["group_id"] != group_id:
            errors.add(f"data.{index}.groupId", f"must be the group of the path ({group_id!r})")


async def _check_items(
    context: RequestContext,
    caller: Caller,
    group: dict[str, Any],
    items: list[Item],
    one_per_unit: bool,
) -> None:
    """Each item against the stored group and units; a unit outside the key's scope
    reads as unknown, so the key learns nothing of it."""
    errors = FieldErrors()
    attribute_ids = {attribute["attribute_id"] for attribute in group.get("attributes", [])}
    unit_ids = sorted({item["unit_id"] for item in items})
    units = {
        doc["_id"]: doc.get("asset_id")
        for doc in await context.store[c.UNITS]
        .find({"_id": {"$in": unit_ids}}, {"asset_id": 1})
        .to_list()
    }
    first_of_unit: dict[str, int] = {}
    for index, item in enumerate(items):
        if item["attribute_id"] not in attribute_ids:
            errors.add(
                f"data.{index}.attributeId",
                f"is not an attribute of group {group['_id']!r}",
            )
        asset_id, unit_id = item["asset_id"], item["unit_id"]
        if units.get(unit_id) != asset_id or not caller.may_see(asset_id):
            errors.add(f"data.{index}.unitId", f"no unit {unit_id!r} in asset {asset_id!r}")
        if one_per_unit:
            first = first_of_unit.setdefault(unit_id, index)
            if first != index:
                errors.add(
                    f"data.{index}.unitId",
                    f"unit {unit_id!r} is already in data.{first}: the group allows one "
                    "attribute per unit",
                )
    errors.raise_if_any()


async def _validated(
    context: RequestContext, group_id: str, items: list[Item], *, assigning: bool
) -> dict[str, Any]:
    caller = await context.caller()
    errors = FieldErrors()
    _check_shape(errors, group_id, items)
    errors.raise_if_any()
    group = await group_of(context, group_id, for_write=True)
    exclusive = assigning and bool(group.get("one_attribute_per_unit"))
    await _check_items(context, caller, group, items, exclusive)
    return group


async def assign(context: RequestContext, group_id: str, items: list[Item]) -> list[Item]:
    """E21: all items or none. Echoes the assignments given."""
    group = await _validated(context, group_id, items, assigning=True)
    exclusive = bool(group.get("one_attribute_per_unit"))
    context.wrote(await writes.assign(context.store, group_id, exclusive, items))
    return items


async def unassign(context: RequestContext, group_id: str, items: list[Item]) -> list[Item]:
    """E22: removes what is assigned; returns what was removed (the rest is no error)."""
    await _validated(context, group_id, items, assigning=False)
    removed = await writes.unassign(context.store, group_id, items)
    context.wrote(removed.written)
    return removed.items
