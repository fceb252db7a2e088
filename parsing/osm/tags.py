"""The one table of how Simple Indoor Tagging maps onto the IMDF model floorgate imports
(docs/osm.md, "Mapping"): which features are units and of what category, which are
walls, doors, connectors between levels or points of interest. Data read with it is
OpenStreetMap's: (c) OpenStreetMap contributors, ODbL."""

from __future__ import annotations

import re

SPACE_INDOOR = frozenset({"room", "area", "corridor"})
LEFT_OUT_INDOOR = frozenset({"wall", "level"})  # drawn by the units around them
WALKWAY_HIGHWAYS = frozenset({"footway", "pedestrian", "corridor", "path"})
LIFT_HIGHWAYS = frozenset({"elevator"})
# Walkable space drawn outside rooms (docs/osm.md, "Walkways"): lines buffered into
# walkways, and areas taken as walkways, when they carry a `level`.
WALKWAY_AREA_HIGHWAYS = WALKWAY_HIGHWAYS | {"platform"}
PLATFORM_KEYS = ("public_transport", "railway")  # `...=platform`: where people wait
CONVEYING = frozenset({"yes", "forward", "backward", "reversible"})
# Categories of units through which people walk freely: two of them that meet are one
# open floor, joined along all of their shared edge; a room meets them by a door.
OPEN_CATEGORIES = frozenset({"walkway", "unenclosedarea", "stairs", "escalator", "ramp"})
ROOM_VALUES = {
    "toilets": "restroom",
    "toilet": "restroom",
    "waiting": "waitingroom",
    "office": "office",
    "yes": "room",
    "shop": "shop",
    "restaurant": "foodservice",
    "stairs": "stairs",
    "elevator": "elevator",
    "storage": "storage",
    "technical": "nonpublic",
    "kitchen": "kitchen",
    "class": "classroom",
    "auditorium": "auditorium",
}
AMENITY_VALUES = {"toilets": "restroom", "parking": "parking"}
SHOP_NOT_A_ROOM = frozenset({"mall", "department_store"})  # the building, not a unit in it


def word(value: str) -> str:
    """A tag value as a category word: lower case, runs of other characters as `_`
    (`Distributeur Alimentaire` -> `distributeur_alimentaire`)."""
    return re.sub(r"[^0-9a-z]+", "_", value.strip().lower()).strip("_") or "yes"


def connector_kind(tags: dict[str, str]) -> str | None:
    """The kind of connector between levels a feature is (`elevator`, `escalator`,
    `stairs`, `ramp`), by its tags alone; None for anything else."""
    if tags.get("highway") in LIFT_HIGHWAYS or tags.get("elevator") == "yes":
        return "elevator"
    if tags.get("room") == "elevator":
        return "elevator"
    if tags.get("conveying") in CONVEYING:
        return "escalator"
    if (
        tags.get("highway") == "steps"
        or tags.get("stairs") == "yes"
        or tags.get("room") == "stairs"
    ):
        return "stairs"
    if tags.get("highway") in WALKWAY_HIGHWAYS or tags.get("ramp") == "yes":
        return "ramp"  # a footway that climbs from one level to another
    return None


def is_space(tags: dict[str, str]) -> bool:
    """Whether an area is an indoor unit: `indoor=room|area|corridor|column`, an
    `indoor=yes` footway area, or (older tagging) an area on a `level` with `room=*` or
    a `shop=*` that is no mall."""
    indoor = tags.get("indoor")
    if indoor in SPACE_INDOOR or indoor == "column":
        return True
    if indoor == "yes":
        return tags.get("highway") in WALKWAY_HIGHWAYS or "room" in tags or "shop" in tags
    if indoor is None and "level" in tags:
        return "room" in tags or ("shop" in tags and tags["shop"] not in SHOP_NOT_A_ROOM)
    return False


def is_walkway_line(tags: dict[str, str]) -> bool:
    """A line people walk along on one level: `highway=footway|pedestrian|corridor|path`
    (steps are no walkway: they climb, and are stairs only between levels)."""
    return tags.get("highway") in WALKWAY_HIGHWAYS and tags.get("indoor") != "wall"


def is_walkway_area(tags: dict[str, str]) -> bool:
    """An area people walk on that is no indoor unit: `highway=pedestrian|footway|
    platform` (and `corridor`, `path`), `area:highway` of those, or a
    `public_transport|railway=platform`."""
    if is_space(tags) or tags.get("indoor") in LEFT_OUT_INDOOR:
        return False
    if tags.get("highway") in WALKWAY_AREA_HIGHWAYS:
        return True
    if tags.get("area:highway") in WALKWAY_AREA_HIGHWAYS:
        return True
    return any(tags.get(key) == "platform" for key in PLATFORM_KEYS)


def unit_category(tags: dict[str, str]) -> str:
    """The unit's category, first found: a connector (`stairs=yes` ...), a column,
    `shop`, `amenity`, `room`, then by `indoor`: `area` an unenclosed area, `corridor`
    (and footway areas) a walkway, `room` a room."""
    indoor = tags.get("indoor")
    if indoor == "column":
        return "column"
    kind = connector_kind(tags)
    if kind is not None and not (kind == "ramp" and indoor != "corridor"):
        return kind
    if "shop" in tags and tags["shop"] not in ("no", "vacant"):
        return f"shop.{word(tags['shop'])}"
    if "amenity" in tags:
        found = word(tags["amenity"])
        return AMENITY_VALUES.get(found, f"amenity.{found}")
    if "room" in tags:
        found = word(tags["room"])
        return ROOM_VALUES.get(found, f"room.{found}")
    if indoor == "area":
        return "unenclosedarea"
    if indoor == "corridor" or tags.get("highway") in WALKWAY_HIGHWAYS:
        return "walkway"
    return "room"


def is_door(tags: dict[str, str]) -> bool:
    """A node that is a way through a wall: `door=*` (`door=no` is an opening without a
    door leaf, still a way through) or `entrance=*`."""
    return "door" in tags or ("entrance" in tags and tags["entrance"] != "no")


def is_point_of_interest(tags: dict[str, str]) -> bool:
    """A node that is a place inside a unit: a shop or an amenity (not a parking
    entrance, which is a way in for cars)."""
    if "shop" in tags:
        return True
    return "amenity" in tags and tags["amenity"] != "parking_entrance"


def point_category(tags: dict[str, str]) -> str:
    if "shop" in tags:
        return f"shop.{word(tags['shop'])}"
    return AMENITY_VALUES.get(word(tags["amenity"]), word(tags["amenity"]))


def door_properties(tags: dict[str, str]) -> dict[str, object]:
    """The IMDF opening properties of a door node: `entrance=service` and `access=no`
    or `private` are closed to visitors; a revolving door is no way for a wheelchair."""
    closed = tags.get("entrance") == "service" or tags.get("access") in ("no", "private")
    properties: dict[str, object] = {"category": "service" if closed else "pedestrian"}
    if tags.get("door") in ("revolving", "turnstile"):
        properties["door"] = {"type": tags["door"]}
    return properties
