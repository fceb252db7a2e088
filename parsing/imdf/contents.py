"""What stands in each unit (its occupants, amenities and anchors) and which of them are
the unit itself: one place, one location (issue 48, point 2; docs/imdf.md, "Places and
locations").

A unit that has a location (listed, or a way between levels) takes in, as one place:
its occupant when it holds exactly one; the amenities of its own kind (a restroom
amenity in a restroom), the amenity it is named after and the amenities that only name
it (`names_only_its_unit`: issue 65, point 3); the anchors no occupant names.
A unit holding several occupants (a food court) takes in none of them: each is a place
of its own at its anchor, and the unit is named by its own name, else by what else is
in it, else by its category. What a unit takes in keeps its id in the unit's location's
tags and its name as an alternative name (parsing/imdf/places.py).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from parsing.imdf.labels import label_texts
from parsing.imdf.read import Feature
from parsing.imdf.venue import Unit, Venue

# IMDF unit categories of the ways between levels (ramps too: a wheelchair's).
CONNECTOR_CATEGORIES = frozenset(
    {"elevator", "escalator", "stairs", "steps", "ramp", "movingwalkway"}
)
# IMDF amenity categories that say nothing a visitor searches for: such an amenity,
# alone in its unit's `unit_ids` and named as the unit (or not at all), is only a label.
SAYS_NOTHING = frozenset({"unspecified"})
MERGED_INTO_UNIT = "amenity merged into its unit"  # the import report's line


def has_location(unit: Unit) -> bool:
    """Listed units, and the elevators, stairs and escalators drawn but not listed (what
    "the nearest lift" looks for), are locations."""
    return unit.listed or kind_of(unit.category) in CONNECTOR_CATEGORIES


def kind_of(category: str) -> str:
    """A category's kind: its part before the first dot (`restroom.female` -> restroom)."""
    return category.strip().lower().partition(".")[0]


@dataclass
class Contents:
    """One unit's occupants, amenities and free anchors, the name it takes from them in
    every language (empty: its own, else its category's) and the ids of those it takes
    in."""

    occupants: list[Feature] = field(default_factory=list)
    amenities: list[Feature] = field(default_factory=list)
    anchors: list[Feature] = field(default_factory=list)  # no occupant names them
    names: dict[str, str] = field(default_factory=dict)  # from inside it (docs/imdf.md,
    # "Names", rules 1 and 3): by language, the venue's first
    occupant_first: bool = False  # its one occupant's name goes before its own
    merged: set[str] = field(default_factory=set)  # feature ids that are the unit itself
    more_names: dict[str, str] = field(default_factory=dict)  # languages its own name
    # lacks, from the amenities that only name it (the first of each language)


def unit_contents(venue: Venue) -> dict[str, Contents]:
    """Every unit's contents (units with nothing inside are left out). Names are read
    without remarks: parsing/imdf/places.py reads each once, with them."""
    found: dict[str, Contents] = defaultdict(Contents)
    occupied = set()
    for occupant in venue.archive.of("occupant"):
        occupied.add(str(occupant.properties.get("anchor_id")))
        for unit in venue.units_of(occupant)[:1]:
            found[unit.feature.id].occupants.append(occupant)
    for amenity in venue.archive.of("amenity"):
        for unit in venue.units_of(amenity)[:1]:  # placed on its first unit's level too
            found[unit.feature.id].amenities.append(amenity)
    for anchor_id, anchor in venue.anchors.items():
        for unit in venue.units_of(anchor)[:1] if anchor_id not in occupied else []:
            found[unit.feature.id].anchors.append(anchor)
    for unit_id, inside in found.items():
        _decide(venue, venue.units[unit_id], inside)
    return dict(found)


def _decide(venue: Venue, unit: Unit, inside: Contents) -> None:
    """The name the unit takes from inside it, and what it takes in."""

    def named(features: list[Feature]) -> list[tuple[str, str, dict[str, str]]]:
        """(text, id, every language) of those named, by the text in the venue's language."""
        found = [(f.id, label_texts(f.properties.get("name"), venue.languages)) for f in features]
        named = [(next(iter(texts.values())), id_, texts) for id_, texts in found if texts]
        return sorted(named, key=lambda entry: entry[:2])

    properties = unit.feature.properties
    own = label_texts(properties.get("name"), venue.languages) or label_texts(
        properties.get("alt_name"), venue.languages
    )
    own_kind = [a for a in inside.amenities if kind_of(a.category) == kind_of(unit.category)]
    others = [a for a in inside.amenities if a not in own_kind]
    if len(inside.occupants) == 1:
        inside.merged.add(inside.occupants[0].id)
        single = named(inside.occupants)
        if single:
            inside.names, inside.occupant_first = single[0][2], True
    # Several occupants name none of them: each is a place of its own (a food court).
    for candidates in (named(own_kind), named(others), named(inside.anchors)):
        if not inside.names and not own and candidates:
            inside.names = candidates[0][2]
            inside.merged.add(candidates[0][1])
    inside.merged.update(a.id for a in own_kind)
    inside.merged.update(a.id for a in inside.anchors)
    if not has_location(unit):
        inside.merged.clear()  # nothing to take them in: each keeps its own location
        return
    for amenity in others:
        texts = label_texts(amenity.properties.get("name"), venue.languages)
        if amenity.id not in inside.merged and names_only_its_unit(amenity, unit, own, texts):
            inside.merged.add(amenity.id)
            for tag, text in texts.items():
                if tag not in own:
                    inside.more_names.setdefault(tag, text)
            venue.report.add(MERGED_INTO_UNIT, amenity.id)


def names_only_its_unit(
    amenity: Feature, unit: Unit, own: dict[str, str], texts: dict[str, str]
) -> bool:
    """Whether an amenity says nothing its unit does not (issue 65, point 3; docs/imdf.md,
    "Places and locations"): its `unit_ids` is that one unit, its category is in
    SAYS_NOTHING, and it has no name, or the unit's own name (`own`: its `name`, else its
    `alt_name`, by language) in the first of the unit's languages it has, case and
    spacing aside. `texts`: the amenity's name by language. Its other languages then
    name the unit too (those the unit lacks) or are other names of it."""
    unit_ids = amenity.properties.get("unit_ids")
    if not isinstance(unit_ids, list) or [str(i) for i in unit_ids] != [unit.feature.id]:
        return False
    if kind_of(amenity.category) not in SAYS_NOTHING:
        return False
    if not texts:
        return True
    shared = next((tag for tag in own if tag in texts), None)
    return shared is not None and _folded(texts[shared]) == _folded(own[shared])


def _folded(text: str) -> str:
    return " ".join(text.casefold().split())
