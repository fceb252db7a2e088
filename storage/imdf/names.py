"""Names a person can read for the venue's units (issues 35 and 48, docs/imdf.md "Names").

A unit is named, in this order: the name of its one occupant; its own `name`, else its
`alt_name` (in the venue's language); else the name of an amenity or anchor inside it
(storage/imdf/contents.py); else a category label with a number unique on its floor
("Restroom 2": the floor is no part of a name, which is shown on its floor's map; such
a name is marked generated). Names repeated on one floor are numbered ("Shop 1",
"Shop 2"), so no two units of a floor share a name and no name is ever made of an id.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from parsing.imdf.read import label
from storage.imdf.categories import category_label
from storage.imdf.contents import Contents
from storage.imdf.venue import Venue

XY = tuple[float, float]


@dataclass
class Naming:
    """The names `name_units` gives besides the units': those of the amenities and
    occupants that have none and are places of their own, and which names (of units and
    of those) are generated from a category, not given by the venue."""

    places: dict[str, str] = field(default_factory=dict)  # by feature id
    generated: set[str] = field(default_factory=set)  # unit and feature ids


def name_units(venue: Venue, contents: dict[str, Contents]) -> Naming:
    """Give every unit its name (the order in the module's docstring), unique on its floor;
    name the amenities and occupants that have none and are places of their own,
    numbered together with the unnamed units ("Restroom 3"), so that no two labels of a
    floor meet. An amenity or occupant that is its unit's place (`contents`) takes the
    unit's name."""
    by_level: dict[str, list[tuple[str, str | None, str]]] = defaultdict(list)
    points: dict[str, XY] = {}
    for unit_id, unit in venue.units.items():
        properties = unit.feature.properties
        own = venue.text(properties.get("name")) or venue.text(properties.get("alt_name"))
        inside = contents.get(unit_id, Contents())
        name = inside.name if inside.occupant_first else own or inside.name
        by_level[unit.level].append((unit_id, name, unit.category))
        centre = unit.shape.centroid  # the reading order: a room's middle, not its label
        points[unit_id] = (centre.x, centre.y)
    merged = {key for inside in contents.values() for key in inside.merged}
    for key, level, point, category in _unnamed_places(venue, merged):
        by_level[level].append((key, None, category))
        points[key] = point
    naming = Naming()
    for found in by_level.values():
        names, generated = unique_names(found, points)
        naming.generated |= {k if k in venue.units else k.split(":", 1)[1] for k in generated}
        for key, name in names.items():
            if key in venue.units:
                venue.units[key].name = name
            else:
                naming.places[key.split(":", 1)[1]] = name
    return naming


def _unnamed_places(venue: Venue, merged: set[str]) -> list[tuple[str, str, XY, str]]:
    """(key, level, point, category) of each amenity and occupant without a name that is
    a place of its own (not in `merged`); the point is its unit's middle (for the
    reading order only)."""
    found = []
    for kind in ("amenity", "occupant"):
        for feature in venue.archive.of(kind):
            if feature.id in merged or label(feature.properties.get("name"), venue.languages):
                continue
            units = venue.units_of(feature)
            level = units[0].level if units else str(feature.properties.get("level_id"))
            if level not in venue.levels:
                continue  # placed nowhere: places.py reports it
            centre = units[0].shape.centroid if units else None
            point = (centre.x, centre.y) if centre is not None else (0.0, 0.0)
            found.append((f"{kind}:{feature.id}", level, point, feature.category))
    return found


def unique_names(
    found: Iterable[tuple[str, str | None, str]], points: dict[str, XY]
) -> tuple[dict[str, str], set[str]]:
    """Names for (id, name or None, category) on one floor, and the ids whose name is
    generated: the unnamed get "<category label> <n>", repeated names get " <n>";
    numbers run in reading order (north to south, then west to east) and skip any name
    already taken. The floor is no part of a name: a name is shown on its floor."""
    groups: dict[tuple[str, bool], list[str]] = defaultdict(list)
    for key, name, category in found:
        groups[(name, True) if name else (category_label(category), False)].append(key)
    taken = {name for (name, named), keys in groups.items() if named and len(keys) == 1}
    result: dict[str, str] = {}
    generated: set[str] = set()
    for (base, named), keys in sorted(groups.items()):
        if named and len(keys) == 1:
            result[keys[0]] = base
            continue
        number = 0
        for key in sorted(keys, key=lambda k: (-round(points[k][1]), points[k][0], k)):
            while True:
                number += 1
                name = f"{base} {number}"
                if name not in taken:
                    break
            taken.add(name)
            result[key] = name
            if not named:
                generated.add(key)
    return result, generated
