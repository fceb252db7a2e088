"""GraphQL inputs as the plain records the resolvers take."""

from __future__ import annotations

import dataclasses
from typing import Any


def as_record(value: Any) -> Any:
    """An input as a dataset record: plain dicts and lists, unset fields left out."""
    if dataclasses.is_dataclass(value):
        return {
            f.name: as_record(getattr(value, f.name))
            for f in dataclasses.fields(value)
            if getattr(value, f.name) is not None
        }
    if isinstance(value, list):
        return [as_record(item) for item in value]
    return value
