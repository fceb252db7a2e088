"""The venue's locations, one per place (issue 48, point 2; docs/imdf.md, "Places and
locations"): listed units and the units of elevators, stairs and escalators, each with
what it takes in (parsing/imdf/contents.py); the amenities, occupants and anchors that
are places of their own; each placed on every map of its level.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from shapely.geometry import Point

from parsing.imdf import categories as c
from parsing.imdf.contents import Contents, has_location
from parsing.imdf.ids import VenueIds
from parsing.imdf.labels import label
from parsing.imdf.names import Names, Naming, dataset_name
from parsing.imdf.projection import Canvas
from parsing.imdf.read import Feature
from parsing.imdf.venue import Unit, Venue

Tags = tuple[tuple[str, str], ...]
GENERATED: Tags = (c.GENERATED_NAME_TAG,)  # a name made of a category and a number
ALT_NAME = "alt_name"  # other names, `;`-separated as OpenStreetMap writes them
TAKEN_IN = (("occupant", "imdf:occupant"), ("amenity", "imdf:amenity"), ("anchor", "imdf:anchor"))


@dataclass(frozen=True)
class Place:
    """A location to give every map of its level: a unit at its point (with what it takes
    in), an amenity, an occupant at its anchor, or an anchor in a unit without one."""

    id: str  # the feature's (for a unit: the unit's)
    names: Names  # every language, the default first ({}: none)
    level: str
    point: tuple[float, float]
    tags: Tags
    unit: bool = False  # a listed unit: its location's id is `<map id>:<unit id>`


def read_places(venue: Venue, contents: dict[str, Contents], naming: Naming) -> list[Place]:
    """Every location of the venue, read once for all its maps. `contents`: what each
    unit takes in; `naming`: the names given to amenities and occupants that have none,
    and which names are generated (parsing.imdf.names.name_units)."""
    texts = {
        feature.id: venue.texts(feature.properties.get("name"))
        for kind in ("amenity", "occupant")
        for feature in venue.archive.of(kind)
    }
    merged = {key for inside in contents.values() for key in inside.merged}
    found = [
        _unit_place(venue, unit_id, unit, contents.get(unit_id, Contents()), texts, naming)
        for unit_id, unit in venue.units.items()
        if has_location(unit)
    ]
    for feature in venue.archive.of("amenity"):
        where = None if feature.id in merged else _amenity_place(venue, feature)
        if where is not None:
            tags: Tags = (
                ("svc:amenity", "yes"),
                ("imdf:feature", "amenity"),
                (c.IMDF_CATEGORY_TAG, feature.category),
            )
            names = texts[feature.id] or naming.places.get(feature.id, {})
            found.append(Place(feature.id, names, *where, _marked(tags, feature.id, naming)))
    found += _doorway_places(venue, naming)
    anchors = {}  # anchor id -> its unit and point, for those that have both
    for anchor_id, anchor in venue.anchors.items():
        point, units = venue.shape(anchor, (Point,)), venue.units_of(anchor)
        if point is not None and units:
            anchors[anchor_id] = (units[0], (point.x, point.y))
    used: set[str] = set()
    for feature in venue.archive.of("occupant"):
        anchor_id = str(feature.properties.get("anchor_id"))
        used.add(anchor_id)
        if feature.id in merged:
            continue
        if anchor_id not in anchors:
            venue.report.add("occupant without a usable anchor, skipped", feature.id)
            continue
        unit, point = anchors[anchor_id]
        tags = (("imdf:feature", "occupant"), (c.IMDF_CATEGORY_TAG, feature.category))
        names = texts[feature.id] or naming.places.get(feature.id, {})
        marked = _marked(tags, feature.id, naming)
        found.append(Place(feature.id, names, unit.level, point, marked))
    for anchor_id, (unit, point) in anchors.items():
        if anchor_id not in used and anchor_id not in merged:
            tags = (("imdf:feature", "anchor"), (c.IMDF_CATEGORY_TAG, unit.category))
            marked = _marked(tags, unit.feature.id, naming)
            found.append(Place(anchor_id, unit.names, unit.level, point, marked))
    return found


def _unit_place(
    venue: Venue,
    unit_id: str,
    unit: Unit,
    inside: Contents,
    texts: dict[str, Names],
    naming: Naming,
) -> Place:
    """A unit's location: its tags, the ids of what it takes in, and their names and its
    own as alternative names."""
    if unit.listed:
        tags: Tags = (
            ("svc:type", "unit"),
            ("svc:id", unit_id),
            (c.IMDF_CATEGORY_TAG, unit.category),
        )
    else:  # elevators, stairs, escalators: drawn, not listed, yet what "the lift" finds
        tags = (
            ("imdf:feature", "unit"),
            (c.IMDF_CATEGORY_TAG, unit.category),
            ("svc:connector", "yes"),
        )
    kinds = {
        "occupant": inside.occupants,
        "amenity": inside.amenities,
        "anchor": inside.anchors,
    }
    names: list[str | None] = []
    for kind, key in TAKEN_IN:
        taken = [f for f in kinds[kind] if f.id in inside.merged]
        if taken:
            tags += ((key, ";".join(f.id for f in taken)),)
            names += [_name_of(venue, f, texts) for f in taken]
            for feature in taken if kind == "amenity" else []:  # its every name finds it
                names += [*texts[feature.id].values()]
                names.append(label(feature.properties.get("alt_name"), venue.languages))
    occupant = [f for f in inside.occupants if f.id in inside.merged]
    if occupant and occupant[0].category != unit.category:
        tags += (("svc:category", occupant[0].category),)  # found as what it is: a cafe
    properties = unit.feature.properties
    names += [label(properties.get(key), venue.languages) for key in ("name", "alt_name")]
    others = _other_names(unit.names.values() or [unit.name], names)
    if others:
        tags += ((ALT_NAME, ";".join(others)),)
    return Place(
        unit_id, unit.names, unit.level, unit.point, _marked(tags, unit_id, naming), unit.listed
    )


def _name_of(venue: Venue, feature: Feature, texts: dict[str, Names]) -> str | None:
    """An amenity's or occupant's name (in the venue's language) as read once; an
    anchor's (not standard) read quietly."""
    if feature.id in texts:
        return next(iter(texts[feature.id].values()), None)
    return label(feature.properties.get("name"), venue.languages)


def _other_names(shown: Iterable[str], names: list[str | None]) -> list[str]:
    """The names that differ from those `shown` (the place's name in each language) and
    from each other (case and spacing aside), in the order found; `;` in a name (the
    separator) becomes `,`."""
    seen = {_folded(name) for name in shown}
    found = []
    for other in names:
        if other and _folded(other) not in seen:
            seen.add(_folded(other))
            found.append(other.replace(";", ","))
    return found


def _folded(text: str) -> str:
    return " ".join(text.casefold().split())


def _marked(tags: Tags, key: str, naming: Naming) -> Tags:
    """The tags, and `svc:name=generated` when the name of `key` is generated."""
    return tags + GENERATED if key in naming.generated else tags


def map_locations(
    venue: Venue,
    canvas: Canvas,
    places: list[Place],
    map_id: str,
    ids: VenueIds,
    levels: set[str],
    connectors: Mapping[str, str] | None = None,
) -> list[dict[str, Any]]:
    """The places on this map's levels as location records: a unit's id is
    `<map id>:<unit id>`; others keep their id on a level's map, `<id>@<map id>` on the
    stack. The place of a unit a connector stands in (`connectors`: unit id -> connector
    id) says which (`CONNECTOR_ID_TAG`)."""
    suffix = f"@{map_id}" if map_id == ids.stack else ""
    found = []
    for place in places:
        if place.level not in levels:
            continue
        x, y = canvas.xy(*place.point)
        found.append(
            {
                "id": f"{map_id}:{place.id}" if place.unit else place.id + suffix,
                "asset_id": ids.asset,
                "unit_map_id": map_id,
                "name": dataset_name(place.names),
                "x": round(x, 3),
                "y": round(y, 3),
                "floors": [{"id": ids.floor(place.level)}],
                "tags": [
                    {"key": k, "value": v}
                    for k, v in (*place.tags, *_connector_tag(place.id, connectors or {}))
                ],
            }
        )
    return found


def _doorway_places(venue: Venue, naming: Naming) -> list[Place]:
    """An entrance's or an emergency exit's place (`DOORWAYS`): the middle of its opening,
    by its name or a generated one ("Entrance 2")."""
    found = []
    for doorway in venue.doorways:
        feature = doorway.feature
        tags: Tags = (("imdf:feature", "opening"), (c.IMDF_CATEGORY_TAG, feature.category))
        tags += (doorway.tag,)
        names = venue.texts(feature.properties.get("name")) or naming.places.get(feature.id, {})
        marked = _marked(tags, feature.id, naming)
        found.append(Place(feature.id, names, doorway.level, doorway.point, marked))
    return found


def _connector_tag(place_id: str, connectors: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    connector = connectors.get(place_id)
    return () if connector is None else ((c.CONNECTOR_ID_TAG, connector),)


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
