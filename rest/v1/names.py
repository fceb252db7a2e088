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


class SameField(ValueError):
    """Two keys of one object name the same field (`floor_id` and `floorId`)."""


def camelized(value: Any) -> Any:
    """Object keys in GraphQL's camelCase, at every depth (a JSON body as GraphQL input);
    the camelCase spelling is accepted too, but not both at once."""
    if isinstance(value, dict):
        result = {}
        for key, item in value.items():
            name = camel(key)
            if name in result:
                raise SameField(f"{snake(name)!r} and {name!r} name the same field")
            result[name] = camelized(item)
        return result
    if isinstance(value, list):
        return [camelized(item) for item in value]
    return value


def rest_name(name: str) -> str:
    """`data.3.unitId` -> `data.3.unit_id`: a place in GraphQL input, in REST words."""
    return ".".join(snake(part) for part in name.split("."))
