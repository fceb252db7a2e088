"""The sections of a dataset file, in the order they are validated, reported and
written, and the defaults of a map record's optional fields (docs/dataset.md)."""

from __future__ import annotations

from typing import Any

from storage import collections as col

SECTIONS: tuple[str, ...] = (
    col.ASSETS,
    col.FLOORS,
    col.UNITS,
    col.UNIT_MAPS,
    col.BACKGROUNDS,
    col.ASSET_REFERENCES,
    col.UNIT_REFERENCES,
    col.ATTRIBUTE_GROUPS,
    col.ASSIGNMENTS,
    col.LOCATIONS,
)
# Sections whose items carry an `id` (the others are keyed by a combination of fields).
ID_SECTIONS: tuple[str, ...] = tuple(
    s for s in SECTIONS if s not in (col.UNIT_REFERENCES, col.ASSIGNMENTS)
)
# Collections the report counts: every section plus the level tags that maps carry.
REPORTED: tuple[str, ...] = (*SECTIONS[:4], col.LEVEL_TAGS, *SECTIONS[4:])

# Defaults of optional fields (documented in docs/dataset.md). Labels default to the name.
MAP_DEFAULTS: dict[str, Any] = {
    "background_id": None,
    "style": "a",
    "style_type": "floor_plate",
    "tags": [],
    "routing_tier": "no_routing",
    "unit_ids": [],
    "level_tags": [],
}
