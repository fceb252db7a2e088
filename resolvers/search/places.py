"""An asset's places from its stored units and locations: one place per thing a visitor
means (issue 47, "one result per place").

- A unit is a place; every location that stands for it (tag `svc:id`, the unit's id:
  a drawing's unit, an IMDF unit on each map of its level) is one of its locations.
- A location that stands for no unit is a place of its own; its copies on other maps of
  the same level (`<id>@<map id>`, IMDF's stacked maps) are the same place.
- A location that shares its floor and its name with exactly one unit place is that
  unit's twin (an IMDF occupant or anchor inside it): the unit's location.
- A place's name in every language the data has is its name (issue 51): each finds it.
- A place's other names (a twin's, a location's that differs from its unit's, tags
  `alt_name`, `short_name`, `name:<lang>`..., each value split at `;` as OpenStreetMap
  separates several) find it as alternative names.
- A place of several kinds (an IMDF unit whose occupant is a cafe: `imdf:category`
  `retail`, `svc:category` `restaurant`) is found by the words of each; its category is
  the first (`resolvers/search/categories.py`).

Venues imported from IMDF before issue 48 hold twins (an occupant's location beside
its unit's); an import never deletes a location, so the twins are still joined here.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from resolvers.search.categories import (
    CATEGORIES,
    CATEGORY_KEYS,
    NOT_A_KIND,
    VALUE_KIND,
    category_of,
    category_rows,
)
from resolvers.search.index import Field, Place
from resolvers.search.text import phrase
from storage.collections import UNIT_ID_TAG

# Tags whose value is another name of the place.
NAME_KEYS = frozenset(
    {"alt_name", "short_name", "old_name", "official_name", "loc_name", "svc:alt_name"}
)
# Tags that say nothing a visitor types (ours, IMDF's bookkeeping, layout words).
QUIET_KEYS = frozenset({"indoor", "level", "repeat_on", "access", "door", "svc:type"})
REF_KEY = "ref"  # a unit's number, found as an id
LOWER_CATEGORY_KEYS = frozenset(key.lower() for key in CATEGORY_KEYS)


STEP = 64  # places or documents between two pauses of `collecting`


def collect(
    asset_id: str, units: list[dict[str, Any]], locations: list[dict[str, Any]]
) -> list[Place]:
    """The asset's places, in a stable order (units, then locations, each by id)."""
    places: list[Place] = []
    for _ in collecting(asset_id, units, locations, places):
        pass
    return places


def collecting(
    asset_id: str,
    units: list[dict[str, Any]],
    locations: list[dict[str, Any]],
    out: list[Place],
) -> Iterator[None]:
    """`collect` into `out`, pausing every STEP documents or places: an index made on the
    event loop in slices (issue 63, finding 5) lets other requests run between them."""
    places: dict[tuple[str, str], Place] = {}
    tags_of: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    for count, unit in enumerate(units):
        if count % STEP == 0:
            yield
        key = ("unit", str(unit["_id"]))
        place = Place(
            "unit", key[1], unit.get("name") or None, asset_id, unit.get("floor_id"), None
        )
        place.names = dict(unit.get("names") or {})
        if place.floor_id:
            place.floors = (place.floor_id,)
        places[key] = place
    loose: list[tuple[tuple[str, str], dict[str, Any]]] = []
    for count, location in enumerate(locations):
        if count % STEP == 0:
            yield
        tags = [
            (str(t.get("key", "")), str(t.get("value", ""))) for t in location.get("tags") or ()
        ]
        unit_id = next((value for key, value in tags if key == UNIT_ID_TAG), None)
        if unit_id is not None and ("unit", unit_id) in places:
            key = ("unit", unit_id)
        else:
            key = ("location", _base_id(location))
            loose.append((key, location))
        if key not in places:
            places[key] = Place("location", key[1], None, asset_id, None, None)
        _add_location(places[key], location)
        tags_of[key].extend(tags)
    yield from _join_twins(places, tags_of, loose)
    for count, (key, place) in enumerate(places.items()):
        if count % STEP == 0:
            yield
        _describe(place, tags_of.get(key, []))
    out.extend(places.values())


def _base_id(location: dict[str, Any]) -> str:
    """A location's id without the `@<map id>` of a copy on a stacked map."""
    location_id = str(location["_id"])
    suffix = f"@{location.get('unit_map_id')}"
    return location_id[: -len(suffix)] if location_id.endswith(suffix) else location_id


def _add_location(place: Place, location: dict[str, Any]) -> None:
    map_id = location.get("unit_map_id")
    if map_id is not None:
        place.locations.append((str(map_id), str(location["_id"])))
        place.locations.sort()
    floors = [str(floor["id"]) for floor in location.get("floors") or () if floor.get("id")]
    place.floors = tuple(dict.fromkeys((*place.floors, *floors)))
    if place.floor_id is None and floors:
        place.floor_id = floors[0]
    name = location.get("name")
    if name:
        if place.name is None:
            place.name = str(name)
            place.names = dict(location.get("names") or {})
        elif phrase(str(name)) != phrase(place.name):
            place.texts.append((Field.ALT_NAME, str(name)))


def _join_twins(
    places: dict[tuple[str, str], Place],
    tags_of: dict[tuple[str, str], list[tuple[str, str]]],
    loose: list[tuple[tuple[str, str], dict[str, Any]]],
) -> Iterator[None]:
    """Each location place that shares its floor and name with exactly one unit place
    becomes that unit's location (an IMDF occupant or anchor and its unit)."""
    units: dict[tuple[str, str], list[Place]] = defaultdict(list)
    for count, place in enumerate(places.values()):
        if count % STEP == 0:
            yield
        if place.kind == "unit" and place.name and place.floor_id:
            units[(place.floor_id, phrase(place.name))].append(place)
    for count, key in enumerate(dict.fromkeys(key for key, _ in loose)):
        if count % STEP == 0:
            yield
        place = places[key]
        if place.name is None or place.floor_id is None:
            continue
        twins = units.get((place.floor_id, phrase(place.name)), [])
        if len(twins) != 1:
            continue
        unit = twins[0]
        unit.locations = sorted({*unit.locations, *place.locations})
        unit.floors = tuple(dict.fromkeys((*unit.floors, *place.floors)))
        unit.texts.extend(text for text in place.texts if text[0] is Field.ALT_NAME)
        tags_of[("unit", unit.id)].extend(tags_of.pop(key, []))
        del places[key]


def _other_kinds(tags: list[tuple[str, str]], found: tuple[str, str]) -> list[tuple[str, str]]:
    """The kinds a place's other category tags name, besides its category `found`."""
    own = found[0].lower()
    return [
        (key, value.strip())
        for key, value in tags
        if (lowered := key.lower()) in LOWER_CATEGORY_KEYS
        and lowered != own
        and value.strip().lower() not in NOT_A_KIND
    ]


def named_kinds(name: str) -> tuple[str, ...]:
    """The kinds an untagged place's name says it is: a name that is a category's word,
    less its numbers ("WC", "Toilets 2", "Lift B" is not), as drawings name them."""
    said = " ".join(word for word in phrase(name).split() if not word.isdigit())
    return tuple(row.name for row in CATEGORIES if said in row.words)


def _describe(place: Place, tags: list[tuple[str, str]]) -> None:
    """The place's category, the kinds it is of, and every other text that finds it,
    its name first."""
    found = category_of(tags)
    own: list[tuple[Field, str]] = []
    if place.name:
        own.append((Field.NAME, place.name))
    own += [(Field.NAME, text) for text in place.names.values() if text and text != place.name]
    own.append((Field.ID, place.id))
    own.extend(place.texts)
    place.texts = own
    if found is not None:
        key, value = found
        place.category = value
        kinds: list[str] = []
        for other_key, other in [found, *_other_kinds(tags, found)]:
            rows = category_rows(other_key, other)
            kinds += [VALUE_KIND + other.lower(), *(row.name for row in rows)]
        place.kinds = tuple(dict.fromkeys(kinds))
    elif place.name:
        place.kinds = named_kinds(place.name)
    for key, value in dict.fromkeys(tags):
        lowered = key.lower()
        if lowered in NAME_KEYS or lowered.startswith("name:"):
            place.texts += [(Field.ALT_NAME, n.strip()) for n in value.split(";") if n.strip()]
        elif lowered == REF_KEY:
            place.texts.append((Field.ID, value))
        elif (
            value.lower() not in ("yes", "no", "")
            and lowered not in QUIET_KEYS
            and ":" not in lowered
            and (found is None or lowered != found[0])
        ):
            place.texts.append((Field.TAG, value.replace("_", " ")))
    place.texts = list(dict.fromkeys(place.texts))
