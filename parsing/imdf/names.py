"""Names a person can read for the venue's units (issues 35 and 48, docs/imdf.md "Names"),
in every language the venue gives them (issue 51).

A unit is named, in this order: the name of its one occupant; its own `name`, else its
`alt_name`; else the name of an amenity or anchor inside it (parsing/imdf/contents.py);
else a category label with a number unique on its floor ("Restroom 2": the floor is no
part of a name, which is shown on its floor's map; such a name is marked generated).
The source is chosen once; the unit is named in each language that source has. Names
repeated on one floor are numbered ("Shop 1", "Shop 2"; "商店 1", "商店 2"), language by
language in the same reading order, so no two units of a floor share a name in any
language and no name is ever made of an id. In a venue named in several languages,
generated names exist in each language of directions (`category_words.LANGUAGES`:
"Restroom 2", "洗手間 2", "Toilettes 2"; issue 66, point 3: a Chinese route on a Hong
Kong clinic said "在Elevator 1左轉"), numbered language by language in the same reading
order, English first; a venue in one language keeps them in English, as every other
name of it is in one language (and it stores no `names`, as before issue 51).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Set
from dataclasses import dataclass, field

from parsing.imdf.categories import CATEGORY_LANGUAGE, category_label
from parsing.imdf.category_words import LANGUAGES
from parsing.imdf.contents import Contents
from parsing.imdf.labels import label
from parsing.imdf.venue import Venue, level_names

XY = tuple[float, float]
Names = dict[str, str]  # BCP 47 tag -> the name in it, the default language's first
Named = tuple[str, Names, str]  # (key, the source's names or {} when none, category)


@dataclass
class Naming:
    """The names `name_units` gives besides the units': those of the amenities and
    occupants that have none and are places of their own, and which names (of units and
    of those) are generated from a category, not given by the venue."""

    places: dict[str, Names] = field(default_factory=dict)  # by feature id
    generated: set[str] = field(default_factory=set)  # unit and feature ids


def name_units(venue: Venue, contents: dict[str, Contents]) -> Naming:
    """Give every unit its names (the order in the module's docstring), unique on its
    floor in every language; name the amenities and occupants that have none and are
    places of their own, numbered together with the unnamed units ("Restroom 3"), so
    that no two labels of a floor meet. An amenity or occupant that is its unit's place
    (`contents`) takes the unit's name."""
    by_level: dict[str, list[Named]] = defaultdict(list)
    points: dict[str, XY] = {}
    for unit_id, unit in venue.units.items():
        properties = unit.feature.properties
        own = venue.texts(properties.get("name")) or venue.texts(properties.get("alt_name"))
        inside = contents.get(unit_id, Contents())
        if inside.occupant_first or not own:
            names = inside.names or own
        else:  # an amenity that only names the unit gives it the languages it lacks
            names = own | {k: v for k, v in inside.more_names.items() if k not in own}
        by_level[unit.level].append((unit_id, names, unit.category))
        centre = unit.shape.centroid  # the reading order: a room's middle, not its label
        points[unit_id] = (centre.x, centre.y)
    merged = {key for inside in contents.values() for key in inside.merged}
    for key, level, point, category in _unnamed_places(venue, merged):
        by_level[level].append((key, {}, category))
        points[key] = point
    naming = Naming()
    several = any(len(given) > 1 for found in by_level.values() for _, given, _ in found)
    for floor_level in venue.levels.values():
        if several and floor_level.generated:  # "Level 2" in every language, as units' names
            floor_level.names = level_names(floor_level.ordinal, LANGUAGES)
    for found in by_level.values():
        floor, generated = floor_names(found, points, LANGUAGES if several else ())
        naming.generated |= {k if k in venue.units else k.split(":", 1)[1] for k in generated}
        for key, given in floor.items():
            if key in venue.units:
                venue.units[key].names = given
                venue.units[key].name = next(iter(given.values()))
            else:
                naming.places[key.split(":", 1)[1]] = given
    return naming


def _unnamed_places(venue: Venue, merged: set[str]) -> list[tuple[str, str, XY, str]]:
    """(key, level, point, category) of each amenity and occupant without a name that is
    a place of its own (not in `merged`), and each entrance or exit without one
    (`Venue.doorways`); the point is its unit's middle, an opening's own (for the reading
    order only)."""
    found = []
    for doorway in venue.doorways:
        if not label(doorway.feature.properties.get("name"), venue.languages):
            key = f"opening:{doorway.feature.id}"
            found.append((key, doorway.level, doorway.point, doorway.word))
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


def floor_names(
    found: list[Named], points: dict[str, XY], made_in: Iterable[str] = ()
) -> tuple[dict[str, Names], set[str]]:
    """The names of one floor's units and places in every language, and the keys whose
    name is generated. Each is first named in its default language (its source's first,
    `unique_names`: the unnamed get a category label, in CATEGORY_LANGUAGE only); then,
    language by language, those whose source has that language besides its default are
    numbered among themselves in the same reading order, skipping the names the others
    show a reader of it (their default, which they keep). The generated names are made
    in each language of `made_in` too."""
    default, generated = unique_names(
        ((key, next(iter(given.values()), None), category) for key, given, category in found),
        points,
    )
    result = {key: {next(iter(given), CATEGORY_LANGUAGE): default[key]} for key, given, _ in found}
    languages = dict.fromkeys(tag for _, given, _ in found for tag in list(given)[1:])
    for language in languages:
        wanted = {key for key, given, _ in found if language in list(given)[1:]}
        shown = {default[key] for key, _, _ in found if key not in wanted}
        named = [(key, given[language], "") for key, given, _ in found if key in wanted]
        for key, name in unique_names(named, points, shown)[0].items():
            result[key][language] = name
    # the generated names in the other languages of directions, each numbered among
    # themselves, skipping what the others show a reader of that language
    made = [(key, None, category) for key, given, category in found if not given]
    others = [(key, names) for key, names in result.items() if key not in generated]
    for language in made_in if made else ():
        if language == CATEGORY_LANGUAGE:
            continue
        shown = {names.get(language, default[key]) for key, names in others}
        for key, name in unique_names(made, points, shown, language)[0].items():
            result[key][language] = name
    return result, generated


def unique_names(
    found: Iterable[tuple[str, str | None, str]],
    points: dict[str, XY],
    reserved: Set[str] = frozenset(),
    language: str = CATEGORY_LANGUAGE,
) -> tuple[dict[str, str], set[str]]:
    """Names for (id, name or None, category) on one floor, and the ids whose name is
    generated: the unnamed get "<category label> <n>" (the label in `language`),
    repeated names get " <n>";
    numbers run in reading order (north to south, then west to east) and skip any name
    already taken or `reserved` (a name given elsewhere that these must not meet: one
    named so is numbered too). The floor is no part of a name: a name is shown on its
    floor."""
    groups: dict[tuple[str, bool], list[str]] = defaultdict(list)
    for key, name, category in found:
        groups[(name, True) if name else (category_label(category, language), False)].append(key)
    kept = {
        name
        for (name, named), keys in groups.items()
        if named and len(keys) == 1 and name not in reserved
    }
    taken = kept | set(reserved)
    result: dict[str, str] = {}
    generated: set[str] = set()
    for (base, named), keys in sorted(groups.items()):
        if named and base in kept:
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


def dataset_name(names: Names) -> str | dict[str, str]:
    """A record's `name` in the dataset (docs/dataset.md): the plain text when it is in one
    language (a venue in one language imports as it did before issue 51, and stores no
    `names`), else the object of its languages, the default first."""
    if len(names) > 1:
        return dict(names)
    return next(iter(names.values()), "")
