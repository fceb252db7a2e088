"""The venue's locations: listed units, the units of elevators, stairs and escalators,
amenities, occupants at their anchors and anchors no occupant names, each placed on every
map of its level.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from shapely.geometry import Point

from parsing.imdf.projection import Canvas
from parsing.imdf.read import Feature
from storage.imdf.venue import Venue

# IMDF unit categories of the ways between levels (ramps too: a wheelchair's).
CONNECTOR_CATEGORIES = frozenset(
    {"elevator", "escalator", "stairs", "steps", "ramp", "movingwalkway"}
)


def _connector_tags(category: str) -> tuple[tuple[str, str], ...]:
    return (("imdf:feature", "unit"), ("imdf:category", category), ("svc:connector", "yes"))


@dataclass(frozen=True)
class Place:
    """A location to give every map of its level: a listed unit at its point, an
    amenity, an occupant at its anchor, or an anchor no occupant names."""

    id: str  # the feature's (for a unit: the unit's)
    name: str
    level: str
    point: tuple[float, float]
    tags: tuple[tuple[str, str], ...]
    unit: bool = False


def read_places(venue: Venue, unnamed: dict[str, str]) -> list[Place]:
    """Every location of the venue, read once for all its maps; `unnamed`: the names of
    amenities and occupants that have none (storage.imdf.names.name_units)."""
    found = [
        Place(
            unit_id,
            unit.name,
            unit.level,
            unit.point,
            (("svc:type", "unit"), ("svc:id", unit_id), ("imdf:category", unit.category)),
            unit=True,
        )
        for unit_id, unit in venue.units.items()
        if unit.listed
    ]
    # Elevators, stairs and escalators are drawn, not listed as units (venue.DRAWN_ONLY),
    # yet they are what "the nearest lift" looks for: each is a location.
    found += [
        Place(unit_id, unit.name, unit.level, unit.point, _connector_tags(unit.category))
        for unit_id, unit in venue.units.items()
        if not unit.listed and unit.category.partition(".")[0] in CONNECTOR_CATEGORIES
    ]
    for feature in venue.archive.of("amenity"):
        where = _amenity_place(venue, feature)
        if where is not None:
            tags: tuple[tuple[str, str], ...] = (
                ("svc:amenity", "yes"),
                ("imdf:feature", "amenity"),
                ("imdf:category", feature.category),
            )
            found.append(Place(feature.id, _name(venue, feature, unnamed), *where, tags))
    anchors = {}  # anchor id -> its unit and point, for those that have both
    for anchor_id, anchor in venue.anchors.items():
        point, units = venue.shape(anchor, (Point,)), venue.units_of(anchor)
        if point is not None and units:
            anchors[anchor_id] = (units[0], (point.x, point.y))
    used: set[str] = set()
    for feature in venue.archive.of("occupant"):
        anchor_id = str(feature.properties.get("anchor_id"))
        if anchor_id not in anchors:
            venue.report.add("occupant without a usable anchor, skipped", feature.id)
            continue
        used.add(anchor_id)
        unit, point = anchors[anchor_id]
        tags = (("imdf:feature", "occupant"), ("imdf:category", feature.category))
        found.append(Place(feature.id, _name(venue, feature, unnamed), unit.level, point, tags))
    for anchor_id, (unit, point) in anchors.items():
        if anchor_id not in used:
            found.append(
                Place(anchor_id, unit.name, unit.level, point, (("imdf:feature", "anchor"),))
            )
    return found


def _name(venue: Venue, feature: Feature, unnamed: dict[str, str]) -> str:
    """An amenity's or occupant's own name, else the one `name_units` gave it."""
    return venue.text(feature.properties.get("name")) or unnamed.get(feature.id, "")


def map_locations(
    venue: Venue,
    canvas: Canvas,
    places: list[Place],
    map_id: str,
    stack_id: str,
    levels: set[str],
) -> list[dict[str, Any]]:
    """The places on this map's levels as location records: a unit's id is
    `<map id>:<unit id>`; others keep their id on a level's map, `<id>@<map id>` on the
    stack."""
    suffix = f"@{map_id}" if map_id == stack_id else ""
    found = []
    for place in places:
        if place.level not in levels:
            continue
        x, y = canvas.xy(*place.point)
        found.append(
            {
                "id": f"{map_id}:{place.id}" if place.unit else place.id + suffix,
                "asset_id": venue.asset_id,
                "unit_map_id": map_id,
                "name": place.name,
                "x": round(x, 3),
                "y": round(y, 3),
                "floors": [{"id": place.level}],
                "tags": [{"key": k, "value": v} for k, v in place.tags],
            }
        )
    return found


def _amenity_place(venue: Venue, feature: Feature) -> tuple[str, tuple[float, float]] | None:
    point = venue.shape(feature, (Point,))
    levels = [unit.level for unit in venue.units_of(feature)]
    level = levels[0] if levels else str(feature.properties.get("level_id"))
    if point is None or level not in venue.levels:
        venue.report.add("amenity without a point or a level, skipped", feature.id)
        return None
    if len(set(levels)) > 1:
        venue.report.add("amenity in units of several levels, placed on the first", feature.id)
    return level, (point.x, point.y)
