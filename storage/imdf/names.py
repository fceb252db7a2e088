"""Names a person can read for the venue's units (issue 35, docs/imdf.md "Names").

A unit is named, in this order: its own `name`, else its `alt_name` (in the venue's
language); else the name of an occupant, amenity or anchor inside it; else a category
label with a number unique on its floor and the floor's name ("Restroom 2, Level 1").
Names repeated on one floor are numbered ("Shop 1", "Shop 2"), so no two units of a
floor share a name and no name is ever made of an id.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from parsing.imdf.read import label
from storage.imdf.venue import Venue

# Category words IMDF writes run together, as a person writes them.
CATEGORY_WORDS = {
    "nonpublic": "Non-public area",
    "opentobelow": "Open to below",
    "movingwalkway": "Moving walkway",
    "foodservice": "Food service",
    "firstaid": "First aid",
    "mothersroom": "Mothers' room",
    "lostandfound": "Lost and found",
    "unspecified": "Space",
    "fieldofplay": "Field of play",
    "privatelounge": "Private lounge",
    "checkin": "Check-in",
    "baggageclaim": "Baggage claim",
    "unenclosedarea": "Unenclosed area",
    "atm": "ATM",
}
XY = tuple[float, float]


def category_label(category: str) -> str:
    """`restroom.female` -> "Restroom (female)", `nonpublic` -> "Non-public area"."""
    head, _, rest = category.strip().lower().partition(".")
    word = CATEGORY_WORDS.get(head, head.replace("_", " ").replace("-", " ").capitalize())
    detail = rest.replace(".", " ").replace("_", " ")
    return f"{word or 'Space'} ({detail})" if detail else word or "Space"


def name_units(venue: Venue) -> dict[str, str]:
    """Give every unit its name (the order in the module's docstring), unique on its floor;
    return the names of the amenities and occupants that have none, numbered together
    with the unnamed units ("Restroom 3, Level 1"), so that no two labels of a floor meet."""
    inside = _names_inside(venue)
    by_level: dict[str, list[tuple[str, str | None, str]]] = defaultdict(list)
    points: dict[str, XY] = {}
    for unit_id, unit in venue.units.items():
        properties = unit.feature.properties
        own = venue.text(properties.get("name")) or venue.text(properties.get("alt_name"))
        by_level[unit.level].append((unit_id, own or inside.get(unit_id), unit.category))
        centre = unit.shape.centroid  # the reading order: a room's middle, not its label
        points[unit_id] = (centre.x, centre.y)
    for key, level, point, category in _unnamed_places(venue):
        by_level[level].append((key, None, category))
        points[key] = point
    places: dict[str, str] = {}
    for level_id, found in by_level.items():
        names = unique_names(found, points, venue.levels[level_id].name)
        for key, name in names.items():
            if key in venue.units:
                venue.units[key].name = name
            else:
                places[key.split(":", 1)[1]] = name
    return places


def _unnamed_places(venue: Venue) -> list[tuple[str, str, XY, str]]:
    """(key, level, point, category) of each amenity and occupant without a name; the
    point is its unit's middle (for the reading order only)."""
    found = []
    for kind in ("amenity", "occupant"):
        for feature in venue.archive.of(kind):
            if label(feature.properties.get("name"), venue.languages):
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
    found: Iterable[tuple[str, str | None, str]], points: dict[str, XY], floor: str
) -> dict[str, str]:
    """Names for (id, name or None, category) on one floor: the unnamed get "<category
    label> <n>, <floor>", repeated names get " <n>"; numbers run in reading order (north
    to south, then west to east) and skip any name already taken."""
    groups: dict[tuple[str, bool], list[str]] = defaultdict(list)
    for key, name, category in found:
        groups[(name, True) if name else (category_label(category), False)].append(key)
    taken = {name for (name, named), keys in groups.items() if named and len(keys) == 1}
    result: dict[str, str] = {}
    for (base, named), keys in sorted(groups.items()):
        if named and len(keys) == 1:
            result[keys[0]] = base
            continue
        number = 0
        for key in sorted(keys, key=lambda k: (-round(points[k][1]), points[k][0], k)):
            while True:
                number += 1
                name = f"{base} {number}" if named else f"{base} {number}, {floor}"
                if name not in taken:
                    break
            taken.add(name)
            result[key] = name
    return result


def _names_inside(venue: Venue) -> dict[str, str]:
    """For each unit, the first (alphabetically) name of its occupants, else of its
    amenities, else of its anchors; read without remarks (places.py reads them again)."""
    found: dict[str, dict[int, set[str]]] = defaultdict(lambda: defaultdict(set))
    for rank, kind in enumerate(("occupant", "amenity", "anchor")):
        for feature in venue.archive.of(kind):
            name = label(feature.properties.get("name"), venue.languages)
            for unit in venue.units_of(feature) if name else []:
                assert name is not None  # the loop runs only for a name
                found[unit.feature.id][rank].add(name)
    return {unit_id: min(ranks[min(ranks)]) for unit_id, ranks in found.items()}
