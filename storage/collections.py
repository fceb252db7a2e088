"""Every collection, its document shape and its indexes, declared in one place.

Documents keep the spec's snake_case field names so that a stored document is
already the API object; `_id` holds the resource id where the resource has one.
Timestamps are strings (see `storage.timestamps`).

| collection        | _id            | fields |
|-------------------|----------------|--------|
| assets            | asset id       | market, name, created_at, updated_at |
| floors            | floor id       | asset_id, name, label, short_label, sort, created_at, updated_at |
| units             | unit id        | asset_id, floor_id, name, created_at, updated_at |
| unit_maps         | map id         | asset_id, background_id, name, style, style_type, tags[], routing_tier, url, geojson_url, unit_ids[], source_file, created_at, updated_at |
| backgrounds       | background id  | unit_map_id, name, created_at, updated_at |
| level_tags        | generated      | unit_map_id, key, name, values[{name, value, created_at, updated_at}], created_at, updated_at |
| asset_references  | reference id   | asset_id, key, value, created_at, updated_at |
| unit_references   | generated      | group_id, asset_id, unit_id, key, value, created_at, updated_at |
| attribute_groups  | group id       | group_name, one_attribute_per_unit, attributes[{attribute_id, attribute_name, attribute_key}] |
| assignments       | generated      | group_id, attribute_id, asset_id, unit_id, exclusive (copy of the group's one_attribute_per_unit) |
| locations         | location id    | asset_id, unit_map_id, name, x, y, floors[{id}], tags[{key, value, created_at, updated_at}], created_at, updated_at |
| api_keys          | key id         | name, hash, permissions[], assets (list, or null for all), disabled, created_at |
| fs.files/chunks   | GridFS         | map SVG sources and derived files, by filename |

Ids are compared exactly (binary collation), so `Ab` and `ab` are different.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

ASSETS = "assets"
FLOORS = "floors"
UNITS = "units"
UNIT_MAPS = "unit_maps"
BACKGROUNDS = "backgrounds"
LEVEL_TAGS = "level_tags"
ASSET_REFERENCES = "asset_references"
UNIT_REFERENCES = "unit_references"
ATTRIBUTE_GROUPS = "attribute_groups"
ASSIGNMENTS = "assignments"
LOCATIONS = "locations"
API_KEYS = "api_keys"
FILES_BUCKET = "fs"


@dataclass(frozen=True)
class Index:
    keys: list[tuple[str, int]]
    unique: bool = False
    partial: dict[str, Any] | None = None
    name: str | None = None

    def options(self) -> dict[str, Any]:
        options: dict[str, Any] = {"unique": self.unique}
        if self.partial is not None:
            options["partialFilterExpression"] = self.partial
        if self.name is not None:
            options["name"] = self.name
        return options


@dataclass(frozen=True)
class Collection:
    name: str
    indexes: list[Index] = field(default_factory=list)


COLLECTIONS: tuple[Collection, ...] = (
    Collection(ASSETS),
    Collection(FLOORS, [Index([("asset_id", 1), ("sort", 1), ("_id", 1)])]),
    Collection(
        UNITS,
        [Index([("asset_id", 1), ("_id", 1)]), Index([("floor_id", 1), ("_id", 1)])],
    ),
    Collection(UNIT_MAPS, [Index([("asset_id", 1), ("_id", 1)]), Index([("tags", 1)])]),
    Collection(BACKGROUNDS, [Index([("unit_map_id", 1), ("_id", 1)])]),
    Collection(LEVEL_TAGS, [Index([("unit_map_id", 1), ("key", 1)], unique=True)]),
    Collection(
        ASSET_REFERENCES,
        [Index([("asset_id", 1), ("_id", 1)]), Index([("key", 1), ("_id", 1)])],
    ),
    Collection(
        UNIT_REFERENCES,
        [
            Index([("unit_id", 1), ("key", 1)], unique=True),
            Index([("asset_id", 1), ("unit_id", 1)]),
            Index([("key", 1), ("unit_id", 1)]),
        ],
    ),
    Collection(ATTRIBUTE_GROUPS),
    Collection(
        ASSIGNMENTS,
        [
            Index([("group_id", 1), ("unit_id", 1), ("attribute_id", 1)], unique=True),
            # one_attribute_per_unit is enforced by the database, not only in Python.
            Index(
                [("group_id", 1), ("unit_id", 1)],
                unique=True,
                partial={"exclusive": True},
                name="one_attribute_per_unit",
            ),
            Index([("group_id", 1), ("asset_id", 1), ("unit_id", 1)]),
        ],
    ),
    Collection(LOCATIONS, [Index([("unit_map_id", 1), ("_id", 1)])]),
    Collection(API_KEYS, [Index([("hash", 1)], unique=True)]),
)
