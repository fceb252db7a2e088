"""What the planned routes' answers complete to (`schema.execution.shapes`)."""

# Written by `make generate`: do not edit.

from __future__ import annotations

from schema.execution.shapes import Leaf, ListOf, Member, Obj

PAGING = Obj(
    "Paging",
    (
        Member("per_page", "per_page", Leaf("int", False)),
        Member("current_page", "current_page", Leaf("int", False)),
        Member("prev_page", "prev_page", Leaf("int", True)),
        Member("next_page", "next_page", Leaf("int", True)),
        Member("total_count", "total_count", Leaf("int", True)),
    ),
    False,
)
ASSET = Obj(
    "Asset",
    (
        Member("id", "id", Leaf("str", False)),
        Member("market", "market", Leaf("str", False)),
        Member("name", "name", Leaf("str", False)),
        Member("display_name", "display_name", Leaf("str", True)),
        Member("address_line1", "address_line1", Leaf("str", True)),
        Member("address_line2", "address_line2", Leaf("str", True)),
        Member("address_city", "address_city", Leaf("str", True)),
        Member("address_state", "address_state", Leaf("str", True)),
        Member("address_postal_code", "address_postal_code", Leaf("str", True)),
        Member("address_country", "address_country", Leaf("str", True)),
        Member("latitude", "latitude", Leaf("float", True)),
        Member("longitude", "longitude", Leaf("float", True)),
        Member("tags", "tags", ListOf(Leaf("str", False), True)),
        Member("created_at", "created_at", Leaf("str", False)),
        Member("updated_at", "updated_at", Leaf("str", False)),
    ),
    False,
)
ASSET_PAGE = Obj(
    "AssetPage",
    (
        Member("paging", "paging", PAGING),
        Member("data", "data", ListOf(ASSET, False)),
    ),
    False,
)
ASSET_OR_NULL = Obj(
    "Asset",
    (
        Member("id", "id", Leaf("str", False)),
        Member("market", "market", Leaf("str", False)),
        Member("name", "name", Leaf("str", False)),
        Member("display_name", "display_name", Leaf("str", True)),
        Member("address_line1", "address_line1", Leaf("str", True)),
        Member("address_line2", "address_line2", Leaf("str", True)),
        Member("address_city", "address_city", Leaf("str", True)),
        Member("address_state", "address_state", Leaf("str", True)),
        Member("address_postal_code", "address_postal_code", Leaf("str", True)),
        Member("address_country", "address_country", Leaf("str", True)),
        Member("latitude", "latitude", Leaf("float", True)),
        Member("longitude", "longitude", Leaf("float", True)),
        Member("tags", "tags", ListOf(Leaf("str", False), True)),
        Member("created_at", "created_at", Leaf("str", False)),
        Member("updated_at", "updated_at", Leaf("str", False)),
    ),
    True,
)
FLOOR = Obj(
    "Floor",
    (
        Member("id", "id", Leaf("str", False)),
        Member("asset_id", "asset_id", Leaf("str", False)),
        Member("name", "name", Leaf("str", False)),
        Member("label", "label", Leaf("str", False)),
        Member("short_label", "short_label", Leaf("str", False)),
        Member("sort", "sort", Leaf("int", False)),
        Member("created_at", "created_at", Leaf("str", False)),
        Member("updated_at", "updated_at", Leaf("str", False)),
    ),
    False,
)
FLOOR_PAGE = Obj(
    "FloorPage",
    (
        Member("paging", "paging", PAGING),
        Member("data", "data", ListOf(FLOOR, False)),
    ),
    False,
)
FLOOR_OR_NULL = Obj(
    "Floor",
    (
        Member("id", "id", Leaf("str", False)),
        Member("asset_id", "asset_id", Leaf("str", False)),
        Member("name", "name", Leaf("str", False)),
        Member("label", "label", Leaf("str", False)),
        Member("short_label", "short_label", Leaf("str", False)),
        Member("sort", "sort", Leaf("int", False)),
        Member("created_at", "created_at", Leaf("str", False)),
        Member("updated_at", "updated_at", Leaf("str", False)),
    ),
    True,
)
UNIT = Obj(
    "Unit",
    (
        Member("id", "id", Leaf("str", False)),
        Member("asset_id", "asset_id", Leaf("str", False)),
        Member("floor_id", "floor_id", Leaf("str", False)),
        Member("name", "name", Leaf("str", False)),
        Member("created_at", "created_at", Leaf("str", False)),
        Member("updated_at", "updated_at", Leaf("str", False)),
    ),
    False,
)
UNIT_PAGE = Obj(
    "UnitPage",
    (
        Member("paging", "paging", PAGING),
        Member("data", "data", ListOf(UNIT, False)),
    ),
    False,
)
UNIT_OR_NULL = Obj(
    "Unit",
    (
        Member("id", "id", Leaf("str", False)),
        Member("asset_id", "asset_id", Leaf("str", False)),
        Member("floor_id", "floor_id", Leaf("str", False)),
        Member("name", "name", Leaf("str", False)),
        Member("created_at", "created_at", Leaf("str", False)),
        Member("updated_at", "updated_at", Leaf("str", False)),
    ),
    True,
)
BACKGROUND = Obj(
    "Background",
    (
        Member("id", "id", Leaf("str", False)),
        Member("unit_map_id", "unit_map_id", Leaf("str", False)),
        Member("name", "name", Leaf("str", False)),
        Member("created_at", "created_at", Leaf("str", False)),
        Member("updated_at", "updated_at", Leaf("str", False)),
    ),
    False,
)
BACKGROUND_PAGE = Obj(
    "BackgroundPage",
    (
        Member("paging", "paging", PAGING),
        Member("data", "data", ListOf(BACKGROUND, False)),
    ),
    False,
)
BACKGROUND_OR_NULL = Obj(
    "Background",
    (
        Member("id", "id", Leaf("str", False)),
        Member("unit_map_id", "unit_map_id", Leaf("str", False)),
        Member("name", "name", Leaf("str", False)),
        Member("created_at", "created_at", Leaf("str", False)),
        Member("updated_at", "updated_at", Leaf("str", False)),
    ),
    True,
)
LEVEL_TAG_VALUE = Obj(
    "LevelTagValue",
    (
        Member("name", "name", Leaf("str", False)),
        Member("value", "value", Leaf("str", False)),
        Member("created_at", "created_at", Leaf("str", False)),
        Member("updated_at", "updated_at", Leaf("str", False)),
    ),
    False,
)
LEVEL_TAG = Obj(
    "LevelTag",
    (
        Member("name", "name", Leaf("str", False)),
        Member("key", "key", Leaf("str", False)),
        Member("created_at", "created_at", Leaf("str", False)),
        Member("updated_at", "updated_at", Leaf("str", False)),
        Member("values", "values", ListOf(LEVEL_TAG_VALUE, False)),
    ),
    False,
)
UNIT_2 = Obj(
    "Unit",
    (
        Member("id", "id", Leaf("str", False)),
        Member("name", "name", Leaf("str", False)),
        Member("created_at", "created_at", Leaf("str", False)),
        Member("updated_at", "updated_at", Leaf("str", False)),
    ),
    False,
)
UNIT_PAGE_2 = Obj(
    "UnitPage",
    (
        Member("paging", "paging", PAGING),
        Member("data", "data", ListOf(UNIT_2, False)),
    ),
    False,
)
UNIT_OR_NULL_2 = Obj(
    "Unit",
    (
        Member("id", "id", Leaf("str", False)),
        Member("name", "name", Leaf("str", False)),
        Member("created_at", "created_at", Leaf("str", False)),
        Member("updated_at", "updated_at", Leaf("str", False)),
    ),
    True,
)
ASSET_REFERENCE = Obj(
    "AssetReference",
    (
        Member("id", "id", Leaf("str", False)),
        Member("asset_id", "asset_id", Leaf("str", False)),
        Member("key", "key", Leaf("str", False)),
        Member("value", "value", Leaf("str", False)),
        Member("created_at", "created_at", Leaf("str", False)),
        Member("updated_at", "updated_at", Leaf("str", False)),
    ),
    False,
)
ASSET_REFERENCE_PAGE = Obj(
    "AssetReferencePage",
    (
        Member("paging", "paging", PAGING),
        Member("data", "data", ListOf(ASSET_REFERENCE, False)),
    ),
    False,
)
UNIT_REFERENCE = Obj(
    "UnitReference",
    (
        Member("group_id", "group_id", Leaf("str", False)),
        Member("asset_id", "asset_id", Leaf("str", False)),
        Member("unit_id", "unit_id", Leaf("str", False)),
        Member("key", "key", Leaf("str", False)),
        Member("value", "value", Leaf("str", False)),
        Member("created_at", "created_at", Leaf("str", False)),
        Member("updated_at", "updated_at", Leaf("str", False)),
    ),
    False,
)
UNIT_REFERENCE_PAGE = Obj(
    "UnitReferencePage",
    (
        Member("paging", "paging", PAGING),
        Member("data", "data", ListOf(UNIT_REFERENCE, False)),
    ),
    False,
)
UNIT_REFERENCE_GROUP = Obj(
    "UnitReferenceGroup",
    (
        Member("id", "id", Leaf("str", False)),
        Member("asset_id", "asset_id", Leaf("str", False)),
        Member("name", "name", Leaf("str", True)),
        Member("created_at", "created_at", Leaf("str", False)),
        Member("updated_at", "updated_at", Leaf("str", False)),
    ),
    False,
)
UNIT_REFERENCE_GROUP_PAGE = Obj(
    "UnitReferenceGroupPage",
    (
        Member("paging", "paging", PAGING),
        Member("data", "data", ListOf(UNIT_REFERENCE_GROUP, False)),
    ),
    False,
)
CLOSURE = Obj(
    "Closure",
    (
        Member("unit_map_id", "unit_map_id", Leaf("str", False)),
        Member("kind", "kind", Leaf("str", False)),
        Member("connector_id", "connector_id", Leaf("str", True)),
        Member("unit_id", "unit_id", Leaf("str", True)),
        Member("connector_kind", "connector_kind", Leaf("str", True)),
        Member("name", "name", Leaf("str", True)),
        Member("until", "until", Leaf("str", True)),
        Member("reason", "reason", Leaf("str", True)),
    ),
    False,
)
UNIT_ATTRIBUTE = Obj(
    "UnitAttribute",
    (
        Member("attribute_id", "attribute_id", Leaf("str", False)),
        Member("attribute_name", "attribute_name", Leaf("str", False)),
        Member("attribute_key", "attribute_key", Leaf("str", False)),
    ),
    False,
)
UNIT_ATTRIBUTE_GROUP = Obj(
    "UnitAttributeGroup",
    (
        Member("group_id", "group_id", Leaf("str", False)),
        Member("group_name", "group_name", Leaf("str", False)),
        Member("one_attribute_per_unit", "one_attribute_per_unit", Leaf("bool", False)),
        Member("attributes", "attributes", ListOf(UNIT_ATTRIBUTE, False)),
    ),
    False,
)
UNIT_ATTRIBUTE_ASSIGNMENT = Obj(
    "UnitAttributeAssignment",
    (
        Member("group_id", "group_id", Leaf("str", False)),
        Member("attribute_id", "attribute_id", Leaf("str", False)),
        Member("asset_id", "asset_id", Leaf("str", False)),
        Member("unit_id", "unit_id", Leaf("str", False)),
    ),
    False,
)
UNIT_ATTRIBUTE_ASSIGNMENT_PAGE = Obj(
    "UnitAttributeAssignmentPage",
    (
        Member("paging", "paging", PAGING),
        Member("data", "data", ListOf(UNIT_ATTRIBUTE_ASSIGNMENT, False)),
    ),
    False,
)
