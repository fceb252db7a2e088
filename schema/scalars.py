"""The custom scalars every type module shares."""

from __future__ import annotations

from typing import TYPE_CHECKING, NewType

import strawberry

if TYPE_CHECKING:
    from strawberry.types.scalar import ScalarDefinition

Timestamp = NewType("Timestamp", str)

SCALARS: dict[object, ScalarDefinition] = {
    Timestamp: strawberry.scalar(
        name="Timestamp",
        description="ISO 8601 timestamp in the form YYYY-MM-DDTHH:MM:SS+00:00.",
        serialize=str,
        parse_value=str,
    )
}
