"""The venue's locations: listed units, amenities, occupants at their anchors and
anchors no occupant names, each placed on every map of its level.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from shapely.geometry import Point

from parsing.imdf.projection import Canvas
from parsing.imdf.read import Feature
from storage.imdf.venue import Venue


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
    for feature in venue.archive.of("amenity"):
        where = _amenity_place(venue, feature)
        if where is not None:
            category = str(feature.properties.get("category") or "unspecified")
            name = venue.text(feature.properties.get("name")) or ""
            found.append(
                Place(
                    feature.id,
                    name,
                    *where,
                    (
                        ("svc:amenity", "yes"),
                        ("imdf:feature", "amenity"),
                        ("imdf:category", category),
                    ),
                )
            )
    anchors = {
        anchor_id: _anchor_place(venue, anchor)
        for anchor_id, anchor in venue.archive.by_id("anchor").items()
    }
    used: set[str] = set()
    for feature in venue.archive.of("occupant"):
        anchor_id = str(feature.properties.get("anchor_id"))
        where = anchors.get(anchor_id)
        if where is None:
            venue.report.add("occupant without a usable anchor, skipped", feature.id)
            continue
        used.add(anchor_id)
        category = str(feature.properties.get("category") or "unspecified")
        name = venue.text(feature.properties.get("name")) or ""
        tags = (("imdf:feature", "occupant"), ("imdf:category", category))
        found.append(Place(feature.id, name, *where, tags))
    anchor_units = {
        a.id: venue.units.get(str(a.properties.get("unit_id"))) for a in venue.archive.of("anchor")
    }
    for anchor_id, where in anchors.items():
        if anchor_id not in used and where is not None:
            unit = anchor_units[anchor_id]
            found.append(
                Place(
                    anchor_id,
                    unit.name if unit else "Anchor",
                    *where,
                    (("imdf:feature", "anchor"),),
                )
            )
    return [replace(p, name=unnamed.get(p.id, p.name)) if not p.name else p for p in found]


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
    unit_ids = feature.properties.get("unit_ids")
    unit_ids = [str(u) for u in unit_ids] if isinstance(unit_ids, list) else []
    levels = [venue.units[u].level for u in unit_ids if u in venue.units]
    level = levels[0] if levels else str(feature.properties.get("level_id"))
    if point is None or level not in venue.levels:
        venue.report.add("amenity without a point or a level, skipped", feature.id)
        return None
    if len(set(levels)) > 1:
        venue.report.add("amenity in units of several levels, placed on the first", feature.id)
    return level, (point.x, point.y)


def _anchor_place(venue: Venue, anchor: Feature) -> tuple[str, tuple[float, float]] | None:
    point = venue.shape(anchor, (Point,))
    unit = venue.units.get(str(anchor.properties.get("unit_id")))
    if point is None or unit is None:
        return None
    return unit.level, (point.x, point.y)
