"""Rooms drawn on their own (docs/osm.md, "Joining what the mapper drew apart"): real
data often draws a shop beside a corridor or a footway without touching it and without a
door. A room with no door drawn that meets no open space is joined to the nearest open space of
its level within LINK_REACH by a strip END_METRES wide, and then meets it by a derived
door (parsing/osm/openings.py). A room still without any opening is reported by name and
OSM element, with what a mapper can draw to open it. Data (c) OpenStreetMap
contributors, ODbL."""

from __future__ import annotations

from parsing.imdf.read import Report
from parsing.osm.convert import LINK_REACH, Marker, link, nearest_open
from parsing.osm.levels import level_text
from parsing.osm.openings import DOOR_REACH, GAP_METRES, NOT_WALKED, Opening, is_open
from parsing.osm.place import Place, Space

JOINED = f"room drawn on its own joined to an open space within {LINK_REACH:g} m"
DOORLESS = (
    f"room with no door and no corridor, area or footway within {LINK_REACH:g} m, "
    "unreachable: draw a door (door=*) on its edge, or the corridor or footway before it"
)


def join_lone_rooms(place: Place, doors: list[Marker], report: Report) -> None:
    """Each room that has no door node drawn and meets no open space within GAP_METRES,
    joined to the nearest open space within LINK_REACH (reported with the distance)."""
    for space in [s for s in place.spaces if _is_room(s)]:
        here = place.on_level(space.level)
        drawn = [d for d in doors if d.level == space.level]
        if any(space.shape.boundary.distance(d.point) <= DOOR_REACH for d in drawn):
            continue
        if any(is_open(s) and s.shape.distance(space.shape) <= GAP_METRES for s in here):
            continue
        linked = link(place, space.level, space.shape)
        if linked is not None:
            opened, distance = linked
            report.add(JOINED, f"{_named(space)} to {opened.id}, {distance:.1f} m")


def report_doorless(place: Place, openings: list[Opening], report: Report) -> None:
    """Each room no opening opens, by name and element, with the nearest open space."""
    opened = {unit for opening in openings for unit in opening.units}
    for space in place.spaces:
        if not _is_room(space) or space.id in opened:
            continue
        distance = nearest_open(place, space.level, space.shape)
        nearest = (
            "nothing walkable is drawn on its level"
            if distance is None
            else f"the nearest walkable space is {distance:.0f} m away"
        )
        report.add(DOORLESS, f"{_named(space)}: {nearest}")


def _is_room(space: Space) -> bool:
    """A closed unit people go into: no open space, no connector's foot, no column."""
    return not (is_open(space) or space.connector_end or space.category in NOT_WALKED)


def _named(space: Space) -> str:
    name = space.tags.get("name")
    where = f"{space.source} on level {level_text(space.level)}"
    return f"{name} ({where})" if name else where
