"""REST names (the spec's snake_case) and GraphQL names (camelCase) of the same thing."""

from __future__ import annotations

import re
from typing import Any

CAMEL = re.compile(r"(?<=[a-z0-9])([A-Z])")


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def snake(name: str) -> str:
    return CAMEL.sub(lambda m: "_" + m.group(1).lower(), name)


def camelized(value: Any) -> Any:
    """Object keys in GraphQL's camelCase, at every depth (a JSON body as GraphQL input)."""
    if isinstance(value, dict):
        return {camel(key): camelized(item) for key, item in value.items()}
    if isinstance(value, list):
        return [camelized(item) for item in value]
    return value


def rest_name(name: str) -> str:
    """`data.3.unitId` -> `data.3.unit_id`: a place in GraphQL input, in REST words."""
    return ".".join(snake(part) for part in name.split("."))
