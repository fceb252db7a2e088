"""A small dataset with exact, known values, written straight to the database.

Core API tests assert on these values; the importer has its own tests.
"""

from __future__ import annotations

from typing import Any

from storage import collections as c
from storage.database import Store

T0 = "2026-01-15T09:00:00+00:00"
T1 = "2026-02-01T12:30:00+00:00"
LONG_ID = ("unit " + "ü:" * 200)[:255]  # spaces, unicode and ':' at exactly 255 characters


def stamp(document: dict[str, Any]) -> dict[str, Any]:
    return {**document, "created_at": T0, "updated_at": T1}


ASSETS = [
    stamp({"_id": "asset-1", "market": "multifamily", "name": "Harbor View"}),
    stamp({"_id": "asset-2", "market": "multifamily", "name": "Elm Court"}),
    stamp({"_id": "asset-3", "market": "student", "name": "Campus Row"}),
]

FLOORS = [
    stamp(
        {
            "_id": "f-2",
            "asset_id": "asset-1",
            "name": "2",
            "label": "Floor 2",
            "short_label": "2",
            "sort": 2,
        }
    ),
    stamp(
        {
            "_id": "f-1",
            "asset_id": "asset-1",
            "name": "1",
            "label": "Floor 1",
            "short_label": "1",
            "sort": 1,
        }
    ),
    stamp(
        {
            "_id": "e-1",
            "asset_id": "asset-2",
            "name": "1",
            "label": "Ground",
            "short_label": "G",
            "sort": 1,
        }
    ),
]

UNITS = [
    stamp(
        {
            "_id": f"u-{n:03d}",
            "asset_id": "asset-1",
            "floor_id": "f-1" if n < 6 else "f-2",
            "name": str(100 + n),
        }
    )
    for n in range(1, 11)
] + [
    stamp({"_id": "Ab", "asset_id": "asset-2", "floor_id": "e-1", "name": "Upper"}),
    stamp({"_id": "ab", "asset_id": "asset-2", "floor_id": "e-1", "name": "Lower"}),
    stamp({"_id": LONG_ID, "asset_id": "asset-2", "floor_id": "e-1", "name": "Long"}),
    stamp({"_id": "a/b c", "asset_id": "asset-2", "floor_id": "e-1", "name": "Slash"}),
]

UNIT_MAPS = [
    stamp(
        {
            "_id": "map-1",
            "asset_id": "asset-1",
            "background_id": "bg-1",
            "name": "Floor 1",
            "style": "a",
            "style_type": "floor_plate",
            "tags": ["ils", "pathfinding"],
            "routing_tier": "basic",
            "source_file": "maps/map-1/source.svg",
            "parsed_file": "maps/map-1/0123456789abcdef0123.map.json",
            "unit_ids": ["u-003", "u-001", "u-002", "u-004", "u-005", "missing"],
        }
    ),
    stamp(
        {
            "_id": "map-2",
            "asset_id": "asset-1",
            "background_id": None,
            "name": "Stack",
            "style": "b",
            "style_type": "stack",
            "tags": ["mls"],
            "routing_tier": "no_routing",
            "unit_ids": [f"u-{n:03d}" for n in range(1, 11)],
        }
    ),
    stamp(
        {
            "_id": "map-3",
            "asset_id": "asset-2",
            "background_id": None,
            "name": "Elm",
            "style": "a",
            "style_type": "floor_plate",
            "tags": ["ils", "mls", "pathfinding"],
            "routing_tier": "no_routing",
            "unit_ids": ["Ab", "ab"],
        }
    ),
]

BACKGROUNDS = [
    stamp({"_id": "bg-1", "unit_map_id": "map-1", "name": "Base"}),
    stamp({"_id": "bg-2", "unit_map_id": "map-1", "name": "Satellite"}),
    stamp({"_id": "bg-9", "unit_map_id": "map-3", "name": "Elm base"}),
]

LEVEL_TAGS = [
    stamp(
        {
            "unit_map_id": "map-1",
            "key": "floor",
            "name": "Floor",
            "values": [{"name": "Floor 1", "value": "f-1", "created_at": T0, "updated_at": T1}],
        }
    ),
    stamp(
        {
            "unit_map_id": "map-1",
            "key": "building",
            "name": "Building",
            "values": [{"name": "Main", "value": "b-1", "created_at": T0, "updated_at": T1}],
        }
    ),
]


ASSET_REFERENCES = [
    stamp({"_id": "ar-1", "asset_id": "asset-1", "key": "acme-pms", "value": "40071"}),
    stamp({"_id": "ar-2", "asset_id": "asset-1", "key": "realpage", "value": "5501"}),
    stamp({"_id": "ar-3", "asset_id": "asset-2", "key": "acme-pms", "value": "40072"}),
]

UNIT_REFERENCES = [
    stamp(
        {
            "group_id": "asset-1",
            "asset_id": "asset-1",
            "unit_id": "u-001",
            "key": "realpage",
            "value": "5501_90017",
        }
    ),
    stamp(
        {
            "group_id": "asset-1",
            "asset_id": "asset-1",
            "unit_id": "u-001",
            "key": "realpage-unit-ids",
            "value": "90017",
        }
    ),
    stamp(
        {
            "group_id": "asset-1",
            "asset_id": "asset-1",
            "unit_id": "u-002",
            "key": "realpage",
            "value": "5501_90018",
        }
    ),
    stamp(
        {
            "group_id": "asset-2",
            "asset_id": "asset-2",
            "unit_id": "Ab",
            "key": "acme-pms",
            "value": "A-1",
        }
    ),
]


def group(group_id: str, name: str, exclusive: bool, keys: list[str]) -> dict[str, Any]:
    return {
        "_id": group_id,
        "group_name": name,
        "one_attribute_per_unit": exclusive,
        "attributes": [
            {
                "attribute_id": f"{group_id}-{key}",
                "attribute_name": key.title(),
                "attribute_key": key,
            }
            for key in keys
        ],
    }


# `view` and `features` are read by the tests; the `w-` groups are theirs to write.
ATTRIBUTE_GROUPS = [
    group("features", "Features", False, ["balcony", "fireplace"]),
    group("view", "View", True, ["city", "pool"]),
    group("w-features", "Writable features", False, ["balcony", "fireplace", "patio"]),
    group("w-many", "Fifty views", True, [f"v{n:02d}" for n in range(50)]),
    group("w-view", "Writable view", True, ["city", "pool", "park"]),
]


def assignment(group_id: str, key: str, asset_id: str, unit_id: str) -> dict[str, Any]:
    exclusive = group_id in ("view", "w-view", "w-many")
    return {
        "group_id": group_id,
        "attribute_id": f"{group_id}-{key}",
        "asset_id": asset_id,
        "unit_id": unit_id,
        "exclusive": exclusive,
    }


ASSIGNMENTS = [
    assignment("features", "balcony", "asset-1", "u-002"),
    assignment("features", "fireplace", "asset-1", "u-002"),
    assignment("features", "balcony", "asset-2", "Ab"),
    assignment("features", "balcony", "asset-1", "u-001"),
    assignment("view", "city", "asset-1", "u-001"),
]


def location(id_: str, map_id: str, asset_id: str, floor: str, tags: dict[str, str]) -> dict:
    return stamp(
        {
            "_id": id_,
            "asset_id": asset_id,
            "unit_map_id": map_id,
            "name": id_.title(),
            "x": 10.5,
            "y": 20,
            "floors": [{"id": floor}],
            "tags": [
                {"key": k, "value": v, "created_at": T0, "updated_at": T1} for k, v in tags.items()
            ],
        }
    )


LOCATIONS = [
    location(
        "loc-101",
        "map-1",
        "asset-1",
        "f-1",
        {"svc:type": "unit", "svc:id": "u-001", "indoor": "room", "room": "apartment"},
    ),
    location(
        "loc-gym",
        "map-1",
        "asset-1",
        "f-1",
        {"svc:amenity": "Yes", "leisure": "fitness_centre", "amenity": "gym"},
    ),
    location("loc-mail", "map-1", "asset-1", "f-1", {"svc:amenity": "no", "amenity": "mailroom"}),
    location(
        "loc-pool", "map-1", "asset-1", "f-1", {"svc:amenity": "yes", "leisure": "swimming_pool"}
    ),
    location("loc-elm", "map-3", "asset-2", "e-1", {"svc:type": "unit", "svc:id": "Ab"}),
]


async def load_fixture_data(store: Store) -> None:
    for name, documents in (
        (c.ASSETS, ASSETS),
        (c.FLOORS, FLOORS),
        (c.UNITS, UNITS),
        (c.UNIT_MAPS, UNIT_MAPS),
        (c.BACKGROUNDS, BACKGROUNDS),
        (c.LEVEL_TAGS, LEVEL_TAGS),
        (c.ASSET_REFERENCES, ASSET_REFERENCES),
        (c.UNIT_REFERENCES, UNIT_REFERENCES),
        (c.ATTRIBUTE_GROUPS, ATTRIBUTE_GROUPS),
        (c.ASSIGNMENTS, ASSIGNMENTS),
        (c.LOCATIONS, LOCATIONS),
    ):
        await store[name].insert_many([dict(document) for document in documents])
