"""The demo property, Harbor View Residences, as an ordinary dataset (`floorgate demo`).

The demo is written to disk as `dataset.json` plus `maps/*.svg` and imported by
the same code as user data, so it exercises the real import path. It is
deterministic: the same seed gives byte-identical files (a `random.Random(seed)`
and fixed timestamps, never the clock or the global random).
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from parsing.demo.drawings import (
    BUILDINGS,
    FEET_PER_UNIT,
    FLOORS,
    NORTH,
    SOUTH,
    X0,
    X1,
    FloorPlan,
    Room,
    building_svg,
    floor_id,
    floor_plan,
    floor_plate_svg,
    level_name,
    stack_svg,
)
from parsing.measures import METRES_PER_FOOT
from storage.database import Store
from storage.imports.importer import import_dataset
from storage.imports.writer import ImportReport
from storage.timestamps import format_timestamp

ASSET_ID = "harbor-view"
ASSET_NAME = "Harbor View Residences"
STACK_MAP_ID = "map-stack"
BASE_TIME = datetime(2026, 1, 15, 9, 0, 0, tzinfo=UTC)
PMS_KEY = "acme-pms"  # a single-key provider
SPACE_KEY = "realpage"  # a provider with a unit-space key and a `-unit-ids` key
DATASET_FILE = "dataset.json"
# A made-up address on the demo's georeferenced site (its buildings stand east of it).
ASSET_ADDRESS = {
    "display_name": "Harbor View",
    "address_line1": "1200 Harbor Way",
    "address_line2": None,
    "address_city": "Seattle",
    "address_state": "WA",
    "address_postal_code": "98101",
    "address_country": "US",
    "latitude": 47.6062,
    "longitude": -122.3425,
    "tags": ["waterfront", "pet-friendly"],
}
REFERENCE_GROUP_NAME = "Harbor View property systems"

ROOM_TAGS: dict[str, list[tuple[str, str]]] = {
    "pool": [("svc:amenity", "yes"), ("leisure", "swimming_pool")],
    "gym": [("svc:amenity", "yes"), ("leisure", "fitness_centre"), ("indoor", "room")],
    "mail": [("svc:amenity", "yes"), ("amenity", "mailroom"), ("indoor", "room")],
    "trash": [("svc:amenity", "yes"), ("amenity", "waste_disposal"), ("indoor", "room")],
}
VIEW_ATTRIBUTES = (("city", "City"), ("courtyard", "Courtyard"), ("pool", "Pool"))
FEATURE_ATTRIBUTES = (
    ("balcony", "Balcony"),
    ("fireplace", "Fireplace"),
    ("washer-dryer", "Washer/Dryer"),
)


@dataclass(frozen=True)
class DemoDataset:
    """The dataset dict and the SVG texts, keyed by their path relative to the dataset."""

    data: dict[str, Any]
    svgs: dict[str, str]


def map_id(building: int, floor: int) -> str:
    return f"map-{floor_id(building, floor)}"


def demo_plans() -> list[FloorPlan]:
    return [floor_plan(b, f) for b in BUILDINGS for f in FLOORS]


class _Clock:
    """Fixed timestamps derived from the seed: records are created a minute apart."""

    def __init__(self, seed: int) -> None:
        self.start = BASE_TIME + timedelta(minutes=seed % 1440)

    def stamps(self, minute: int, updated_days: int = 0) -> dict[str, str]:
        created = self.start + timedelta(minutes=minute)
        return {
            "created_at": format_timestamp(created),
            "updated_at": format_timestamp(created + timedelta(days=updated_days)),
        }


def demo_dataset(seed: int = 7) -> DemoDataset:
    """Build the demo property: 2 buildings x 4 floors, 100 units, 11 maps."""
    rng = random.Random(seed)
    clock = _Clock(seed)
    plans = demo_plans()
    svgs: dict[str, str] = {}
    data: dict[str, Any] = {
        "version": 1,
        "assets": [
            {
                "id": ASSET_ID,
                "market": "multifamily",
                "name": ASSET_NAME,
                **ASSET_ADDRESS,
                **clock.stamps(0, 30),
            }
        ],
        "floors": [],
        "units": [],
        "unit_maps": [],
        "backgrounds": [],
        "asset_references": [],
        "unit_references": [],
        "attribute_groups": [],
        "assignments": [],
        "locations": [],
    }
    for sort, plan in enumerate(plans, start=1):
        data["floors"].append(
            {
                "id": plan.floor_id,
                "asset_id": ASSET_ID,
                "name": f"Floor {plan.floor}",
                "label": level_name(plan.building, plan.floor),
                "short_label": f"{plan.building}-{plan.floor}",
                "sort": sort,
                **clock.stamps(1),
            }
        )
        for room in plan.units:
            data["units"].append(
                {
                    "id": room.id,
                    "asset_id": ASSET_ID,
                    "floor_id": plan.floor_id,
                    "name": room.name,
                    **clock.stamps(2),
                }
            )
        _add_floor_map(data, svgs, plan, clock)
    for building in BUILDINGS:
        _add_building_map(data, svgs, [p for p in plans if p.building == building], clock)
    _add_stack_map(data, svgs, plans, clock)
    _add_references(data, plans, rng, clock)
    _add_attributes(data, plans, rng)
    return DemoDataset(data, svgs)


def _add_floor_map(
    data: dict[str, Any], svgs: dict[str, str], plan: FloorPlan, clock: _Clock
) -> None:
    """A floor-plate map, its backgrounds, and its locations (units and amenities)."""
    id_ = map_id(plan.building, plan.floor)
    svg_path = f"maps/{id_}.svg"
    svgs[svg_path] = floor_plate_svg(plan, ASSET_NAME)
    backgrounds = [(f"{id_}-plan", "Floor plan")]
    if plan.floor == 1:
        backgrounds.append((f"{id_}-site", "Site plan"))
    for background_id, name in backgrounds:
        data["backgrounds"].append(
            {"id": background_id, "unit_map_id": id_, "name": name, **clock.stamps(3)}
        )
    data["unit_maps"].append(
        {
            "id": id_,
            "asset_id": ASSET_ID,
            "background_id": backgrounds[0][0],
            "name": level_name(plan.building, plan.floor),
            "style": "a",
            "style_type": "floor_plate",
            # `pathfinding` is here because the drawing has a paths layer; map
            # processing derives the same tag from the SVG.
            "tags": ["ils", "mls", "pathfinding"],
            "routing_tier": "basic",
            "svg": svg_path,
            "georeference": _georeference(plan.building),
            "level_tags": [
                _level_tag(
                    "building",
                    "Building",
                    [(f"b{plan.building}", f"Building {plan.building}")],
                    clock,
                ),
                _level_tag(
                    "floor",
                    "Floor",
                    [(plan.floor_id, level_name(plan.building, plan.floor))],
                    clock,
                ),
            ],
            **clock.stamps(3, 2),
        }
    )
    for room in plan.amenities:
        data["locations"].append(
            _location(f"loc-{room.id}", room, plan, ROOM_TAGS[room.kind], clock)
        )
    for room in plan.units:
        tags = [
            ("svc:type", "unit"),
            ("svc:id", room.id),
            ("indoor", "room"),
            ("room", "apartment"),
        ]
        data["locations"].append(_location(f"loc-{room.id}", room, plan, tags, clock))


def building_map_id(building: int) -> str:
    return f"map-b{building}"


def _add_building_map(
    data: dict[str, Any], svgs: dict[str, str], plans: list[FloorPlan], clock: _Clock
) -> None:
    """All floors of a building as levels of one map, joined by its elevator and
    stairs. Its amenities are given as locations; its units are not, so processing the
    map for pathfinding makes them locations (`<map id>:<unit id>`)."""
    building = plans[0].building
    id_ = building_map_id(building)
    svg_path = f"maps/{id_}.svg"
    svgs[svg_path] = building_svg(plans, ASSET_NAME)
    data["unit_maps"].append(
        {
            "id": id_,
            "asset_id": ASSET_ID,
            "background_id": None,
            "name": f"Building {building}",
            "style": "a",
            "style_type": "building",
            "tags": ["ils"],  # processing adds `pathfinding`
            "routing_tier": "basic",
            "svg": svg_path,
            "georeference": _georeference(building),
            "level_tags": [
                _level_tag(
                    "building", "Building", [(f"b{building}", f"Building {building}")], clock
                ),
                _level_tag(
                    "floor",
                    "Floor",
                    [(p.floor_id, level_name(building, p.floor)) for p in plans],
                    clock,
                ),
            ],
            **clock.stamps(3, 2),
        }
    )
    for plan in plans:
        for room in plan.amenities:
            data["locations"].append(
                _location(f"loc-{room.id}@{id_}", room, plan, ROOM_TAGS[room.kind], clock, id_)
            )


def _georeference(building: int) -> dict[str, Any]:
    """Control points at the building's four corners, as a surveyor would give them:
    the buildings stand on the Seattle waterfront, turned 20 degrees from north, and
    one corner is measured 30 cm off (so the import reports a non-zero residual)."""
    metres = FEET_PER_UNIT * METRES_PER_FOOT
    turn = math.radians(20)
    lon0, lat0 = -122.3425 + 0.0016 * (building - 1), 47.6062
    points = []
    corners = [(X0, NORTH[0]), (X1, NORTH[0]), (X1, SOUTH[1]), (X0, SOUTH[1])]
    for index, (x, y) in enumerate(corners):
        east = metres * ((x - X0) * math.cos(turn) + (y - NORTH[0]) * math.sin(turn))
        north = metres * ((x - X0) * math.sin(turn) - (y - NORTH[0]) * math.cos(turn))
        east += 0.3 if index == 2 else 0.0
        lon = lon0 + east / (111_320 * math.cos(math.radians(lat0)))
        lat = lat0 + north / 111_320
        points.append({"x": x, "y": y, "lon": round(lon, 8), "lat": round(lat, 8)})
    return {"control_points": points}


def _level_tag(key: str, name: str, values: list[tuple[str, str]], clock: _Clock) -> dict[str, Any]:
    stamps = clock.stamps(3)
    return {
        "key": key,
        "name": name,
        "values": [{"name": label, "value": value, **stamps} for value, label in values],
        **stamps,
    }


def _location(
    id_: str,
    room: Room,
    plan: FloorPlan,
    tags: list[tuple[str, str]],
    clock: _Clock,
    unit_map_id: str | None = None,
) -> dict[str, Any]:
    """A location at the room's centre, the point the drawing's walk paths lead to."""
    x, y = room.rect.centre
    return {
        "id": id_,
        "asset_id": ASSET_ID,
        "unit_map_id": unit_map_id or map_id(plan.building, plan.floor),
        "name": room.name if room.kind != "unit" else f"Unit {room.name}",
        "x": x,
        "y": y,
        "floors": [{"id": plan.floor_id}],
        "tags": [{"key": key, "value": value} for key, value in tags],
        **clock.stamps(4),
    }


def _add_stack_map(
    data: dict[str, Any], svgs: dict[str, str], plans: list[FloorPlan], clock: _Clock
) -> None:
    """The stacking plan: every unit, one level per storey, both buildings."""
    svg_path = f"maps/{STACK_MAP_ID}.svg"
    svgs[svg_path] = stack_svg(plans, ASSET_NAME)
    background_id = f"{STACK_MAP_ID}-elevation"
    data["backgrounds"].append(
        {"id": background_id, "unit_map_id": STACK_MAP_ID, "name": "Elevation", **clock.stamps(3)}
    )
    data["unit_maps"].append(
        {
            "id": STACK_MAP_ID,
            "asset_id": ASSET_ID,
            "background_id": background_id,
            "name": "Stacking plan",
            "style": "a",
            "style_type": "stack",
            "tags": ["ils", "mls"],
            "routing_tier": "no_routing",
            "svg": svg_path,
            "level_tags": [
                # A stack level shows one storey of both buildings, so it is tagged
                # by storey rather than by a building or a single floor id.
                _level_tag("storey", "Storey", [(str(f), f"Floor {f}") for f in FLOORS], clock),
            ],
            **clock.stamps(3, 2),
        }
    )


def _add_references(
    data: dict[str, Any], plans: list[FloorPlan], rng: random.Random, clock: _Clock
) -> None:
    """Ids in two third-party systems. The unit-space provider's base key holds
    `<unit id>_<unit space id>`; its `-unit-ids` key holds the unit id alone."""
    pms_property = rng.randrange(100_000, 1_000_000)
    space_property = rng.randrange(1_000_000, 10_000_000)
    value: int | str  # a property number here, a reference's text below
    for key, value in ((PMS_KEY, pms_property), (SPACE_KEY, space_property)):
        data["asset_references"].append(
            {
                "id": f"{ASSET_ID}-{key}",
                "asset_id": ASSET_ID,
                "key": key,
                "value": str(value),
                **clock.stamps(5),
            }
        )
    pms_next = rng.randrange(10_000, 90_000)
    space_unit_next = rng.randrange(100_000, 900_000)
    space_next = rng.randrange(1_000_000, 9_000_000)
    for plan in plans:
        for room in plan.units:
            pms_next += rng.randint(1, 3)
            space_unit_next += rng.randint(1, 5)
            space_next += rng.randint(1, 5)
            for key, value in (
                (PMS_KEY, str(pms_next)),
                (SPACE_KEY, f"{space_unit_next}_{space_next}"),
                (f"{SPACE_KEY}-unit-ids", str(space_unit_next)),
            ):
                data["unit_references"].append(
                    {
                        "group_id": ASSET_ID,
                        "group_name": REFERENCE_GROUP_NAME,
                        "asset_id": ASSET_ID,
                        "unit_id": room.id,
                        "key": key,
                        "value": value,
                        **clock.stamps(5),
                    }
                )


def _add_attributes(data: dict[str, Any], plans: list[FloorPlan], rng: random.Random) -> None:
    """Views (one per unit, from where the unit faces) and features (any number)."""
    for group_id, name, exclusive, attributes in (
        ("view", "View", True, VIEW_ATTRIBUTES),
        ("features", "Features", False, FEATURE_ATTRIBUTES),
    ):
        data["attribute_groups"].append(
            {
                "id": group_id,
                "group_name": name,
                "one_attribute_per_unit": exclusive,
                "attributes": [
                    {
                        "attribute_id": f"{group_id}-{key}",
                        "attribute_name": label,
                        "attribute_key": key,
                    }
                    for key, label in attributes
                ],
            }
        )
    for plan in plans:
        for room in plan.units:
            # North units face the city; south units of building 1 face the pool.
            view = (
                "city" if room.row == "north" else ("pool" if plan.building == 1 else "courtyard")
            )
            if rng.random() < 0.9:
                data["assignments"].append(_assignment("view", view, room.id))
            features = []
            if plan.floor > 1 and rng.random() < 0.6:
                features.append("balcony")
            if plan.floor == FLOORS[-1] and rng.random() < 0.5:
                features.append("fireplace")
            if rng.random() < 0.7:
                features.append("washer-dryer")
            for feature in features:
                data["assignments"].append(_assignment("features", feature, room.id))


def _assignment(group_id: str, key: str, unit_id: str) -> dict[str, str]:
    return {
        "group_id": group_id,
        "attribute_id": f"{group_id}-{key}",
        "asset_id": ASSET_ID,
        "unit_id": unit_id,
    }


def write_demo(folder: Path, seed: int = 7) -> Path:
    """Write `dataset.json` and `maps/*.svg` into `folder`; return the dataset's path."""
    demo = demo_dataset(seed)
    folder.mkdir(parents=True, exist_ok=True)
    for relative, text in demo.svgs.items():
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text.encode("utf-8"))
    path = folder / DATASET_FILE
    text = json.dumps(demo.data, indent=2, ensure_ascii=False) + "\n"
    path.write_bytes(text.encode("utf-8"))
    return path


async def install_demo(store: Store, data_dir: Path, seed: int = 7) -> ImportReport:
    """`floorgate demo`: write the demo into `<data_dir>/demo/` and import it like user data."""
    return await import_dataset(store, write_demo(data_dir / "demo", seed))
