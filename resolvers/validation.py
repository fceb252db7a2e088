"""Checks of single inputs that every operation shares: ids, filters, paging numbers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from resolvers.errors import FieldErrors
from resolvers.limits import (
    DEFAULT_PER_PAGE,
    INT32_MAX,
    MAX_FILTER_LENGTH,
    MAX_MATRIX_PAIRS,
    MAX_OPTIMIZED_VIA,
    MAX_PER_PAGE,
    MAX_VIA,
    MAX_WRITE_ITEMS,
)
from storage.limits import MAX_ID_LENGTH


def check_id(errors: FieldErrors, name: str, value: str | None) -> None:
    """Ids are opaque, case-sensitive strings of 1 to 255 characters."""
    if value is None:
        return
    if value == "":
        errors.add(name, "must not be empty")
    elif len(value) > MAX_ID_LENGTH:
        errors.add(name, f"must be at most {MAX_ID_LENGTH} characters")


def check_filter(errors: FieldErrors, name: str, value: str | None) -> bool:
    """Whether a filter string is within its length (else the problem is reported)."""
    if value is not None and len(value) > MAX_FILTER_LENGTH:
        errors.add(name, f"must be at most {MAX_FILTER_LENGTH} characters")
        return False
    return True


def check_paging(errors: FieldErrors, page: int | None, per_page: int | None) -> tuple[int, int]:
    """`page` from 1, `per-page` from 1; a `per-page` over the maximum is clamped."""
    page_value = 1 if page is None else page
    per_page_value = DEFAULT_PER_PAGE if per_page is None else per_page
    if page_value < 1:
        errors.add("page", "must be an integer of at least 1")
    elif page_value > INT32_MAX:
        errors.add("page", f"must be at most {INT32_MAX}")
    if per_page_value < 1:
        errors.add("perPage", "must be an integer of at least 1")
    return page_value, min(per_page_value, MAX_PER_PAGE)


def split_list(errors: FieldErrors, name: str, value: str | None) -> list[str]:
    """A comma-separated filter: spaces around items ignored, empty items rejected."""
    if value is None or value.strip() == "":
        return []
    items = [item.strip() for item in value.split(",")]
    if any(item == "" for item in items):
        errors.add(name, "must be a comma-separated list without empty items")
        return []
    return items


def oversized_lists(value: Any, limit: int, path: str = "") -> list[str]:
    """Paths (`data.3.tags`) of the lists in a JSON value longer than `limit`. An
    oversized list is not entered, so a huge one costs nothing to refuse."""
    found: list[str] = []
    stack: list[tuple[str, Any]] = [(path, value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, list):
            if len(item) > limit:
                found.append(where)
                continue
            stack.extend((f"{where}.{index}", child) for index, child in enumerate(item))
        elif isinstance(item, dict):
            stack.extend((f"{where}.{key}", child) for key, child in item.items())
    return sorted(found)


def item_count_problems(limit: int = MAX_WRITE_ITEMS) -> Callable[[Any], list[str]]:
    """A REST body's `counts` for a list of items: more than `limit` is refused from the
    list's length alone, before any item is read."""

    def problems(data: Any) -> list[str]:
        if isinstance(data, list) and len(data) > limit:
            return [f"must have at most {limit} items per request, not {len(data)}"]
        return []

    return problems


SIDES = ("sources", "targets")  # the two lists of a distance matrix's input (E18)


def pair_count_problems(data: Any) -> list[str]:
    """The pair limit, from the lengths of the two lists alone: REST checks it before
    any waypoint is validated, so 150,000 waypoints are refused without a walk."""
    if not isinstance(data, dict):
        return []
    sources, targets = (data.get(side) for side in SIDES)
    pairs = (len(sources) if isinstance(sources, list) else 0) * (
        len(targets) if isinstance(targets, list) else 0
    )
    if pairs <= MAX_MATRIX_PAIRS:
        return []
    return [
        f"at most {MAX_MATRIX_PAIRS} source-target pairs (sources x targets) per request, "
        f"not {pairs}"
    ]


def via_count_problems(stops: int, optimize: bool | None) -> list[str]:
    """MAX_VIA stops at most, MAX_OPTIMIZED_VIA with `optimize`: from the count alone."""
    if stops > MAX_VIA:
        return [f"must hold at most {MAX_VIA} waypoints, not {stops}"]
    if optimize and stops > MAX_OPTIMIZED_VIA:
        return [f"must hold at most {MAX_OPTIMIZED_VIA} waypoints with optimize, not {stops}"]
    return []


def route_body_problems(data: Any) -> list[str]:
    """A REST route body's stops, counted from the list's length before any is read (the
    body's `counts`), as `check_via` counts them: else 25 optimised stops cost their
    coercion (4 ms) before the resolver's refusal."""
    if not isinstance(data, dict) or not isinstance(data.get("via"), list):
        return []
    return via_count_problems(len(data["via"]), data.get("optimize") is True)
