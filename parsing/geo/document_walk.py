"""Walking the parsed document: every element with its innermost enclosing Level and
Layer, without recursion (a document nested deep is walked in constant stack). The
GeoJSON writer and the closures' unit outlines read a drawing this way."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

_END = object()
Parent = dict[str, Any] | None  # the enclosing Level or Layer element, if any


def walk_levels(elements: list[Any]) -> Iterator[tuple[dict[str, Any], Parent, Parent]]:
    """Every element in document order with its innermost enclosing Level and Layer
    (a Layer inside that Level; no recursion)."""
    stack: list[tuple[Iterator[Any], Parent, Parent]] = [(iter(elements), None, None)]
    while stack:
        children, level, layer = stack[-1]
        element = next(children, _END)
        if element is _END:
            stack.pop()
            continue
        if not isinstance(element, dict):
            continue
        yield element, level, layer
        nested = element.get("elements")
        if isinstance(nested, list) and nested:
            kind = element.get("type")
            if kind == "Level":
                stack.append((iter(nested), element, None))
            else:
                stack.append((iter(nested), level, element if kind == "Layer" else layer))
