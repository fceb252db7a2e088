"""Names a person can read (issue 35, point 3; issue 48, point 3): its one occupant's
name, its own name or alt_name in the venue's language, then what is inside the unit,
then "<category> <n>" (the floor is no part of a name, and the name is marked
generated); never an id; unique on a floor."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from parsing.imdf.read import read_document
from storage.imdf.categories import category_label
from storage.imdf.contents import unit_contents
from storage.imdf.dataset import ImdfDataset, venue_dataset
from storage.imdf.names import name_units, unique_names
from storage.imdf.venue import ImdfOptions, Venue
from tests.storage.imdf.old_market import collections, dumps, manifest, old_market
from tests.venues.imdf_venues import stable_id

GROUND_EN = {
    "hall": "Hall",
    "S1": "Bakery",  # its occupant
    "S2": "Retail 1",  # two occupants: each a place of its own, the unit by its category
    "S3": "Cash Point",  # its amenity
    "S4": "Info Desk",  # its anchor's name
    "S5": "Back Room",  # its alt_name
    "R1": "Restroom 1",  # the unnamed restroom amenity inside is R1 itself
    "R2": "Restroom 2",
    "R3": "Restroom (female) 1",
    "N1": "Non-public area 1",
    "N2": "Non-public area 2",  # open plan, no door: named all the same
    "D1": "Shop 1",  # two rooms named "Shop", west to east
    "D2": "Shop 2",
    "R1@1": "Restroom 1",  # the floor is no part of a name: unique per floor
}
GENERATED = {"S2", "R1", "R2", "R3", "N1", "N2", "R1@1"}


def dataset(
    venue_name: dict[str, str] | None = None,
    language: str | None = "en",
    options: ImdfOptions | None = None,
) -> tuple[ImdfDataset, dict[str, str]]:
    venue, units = old_market(venue_name)
    document: dict[str, Any] = collections(venue)
    if language:
        document["manifest"] = manifest(language)
    found = venue_dataset(read_document(dumps(document), "v.json"), options or ImdfOptions())
    return found, units


def unit_names(found: ImdfDataset, units: dict[str, str]) -> dict[str, str]:
    by_id = {unit["id"]: unit["name"] for unit in found.data["units"]}
    return {key: by_id[unit_id] for key, unit_id in units.items() if unit_id in by_id}


def test_names_in_order_of_what_the_venue_gives():
    found, units = dataset()
    assert unit_names(found, units) == GROUND_EN
    # Both amenities are their units (the ATM names its shop, the restroom is of its
    # room's kind): no location of their own.
    assert not [
        loc["name"]
        for loc in found.data["locations"]
        if {"key": "imdf:feature", "value": "amenity"} in loc["tags"]
    ]
    generated = {
        loc["tags"][1]["value"]
        for loc in found.data["locations"]
        if {"key": "svc:name", "value": "generated"} in loc["tags"]
    }
    assert generated == {units[key] for key in GENERATED}


def test_never_an_id_and_unique_on_a_floor():
    found, units = dataset()
    names = [loc["name"] for loc in found.data["locations"]]
    names += [unit["name"] for unit in found.data["units"]]
    fragments = {unit_id[:8] for unit_id in units.values()}
    assert not [n for n in names if any(f in n for f in fragments)]
    assert not [n for n in names if re.search(r"[0-9a-f]{8}", n)]
    floors = Counter((u["floor_id"], u["name"]) for u in found.data["units"])
    assert max(floors.values()) == 1


def test_drawn_only_units_are_named_too():
    venue, units = old_market()
    built = Venue(read_document(dumps(collections(venue)), "v.json"), ImdfOptions())
    naming = name_units(built, unit_contents(built))
    assert naming.places == {}  # the unnamed restroom amenity is its restroom
    assert built.units[units["gallery"]].name == "Walkway 1"
    assert units["gallery"] in naming.generated


def test_the_venue_language_then_the_first_language_present():
    # No manifest language: the first language present (the venue's name: French).
    french, units = dataset(language=None)
    assert unit_names(french, units)["hall"] == "Halle"
    assert unit_names(french, units)["R1"] == "Restroom 1"
    # The manifest's language wins over the first present.
    assert unit_names(dataset(language="en")[0], units)["hall"] == "Hall"
    assert unit_names(dataset({"en": "Old Market"}, language="fr")[0], units)["hall"] == "Halle"
    # --language wins over both.
    chosen = dataset(language="fr", options=ImdfOptions(languages=("en",)))[0]
    assert unit_names(chosen, units)["hall"] == "Hall"
    assert [f["name"] for f in chosen.data["floors"]] == ["Ground Floor", "Level 1"]


def test_category_labels():
    assert [
        category_label(c)
        for c in ("restroom.female", "nonpublic", "unspecified", "foodservice", "room", "")
    ] == ["Restroom (female)", "Non-public area", "Space", "Food service", "Room", "Space"]


def test_numbers_skip_names_taken_and_follow_reading_order():
    points = {"a": (0.0, 0.0), "b": (5.0, 0.0), "c": (0.0, 9.0), "d": (0.0, 0.0)}
    found = [
        ("a", None, "restroom"),
        ("b", None, "restroom"),
        ("c", None, "restroom"),
        ("d", "Restroom 2", "room"),
    ]
    assert unique_names(found, points) == (
        {
            "c": "Restroom 1",  # north first
            "a": "Restroom 3",  # 2 is taken by a unit named so
            "b": "Restroom 4",
            "d": "Restroom 2",  # given by the venue: not generated
        },
        {"a", "b", "c"},
    )


def test_a_unit_named_by_a_number_is_found_as_places_find_it():
    """An id written as a number (`12`, read as "12") names its unit for the amenity
    inside, which is that unit's place (its id kept in the unit's location's tags)."""
    venue, units = old_market()
    document: dict[str, Any] = collections(venue)
    for unit in document["unit"]["features"]:
        if unit["id"] == units["S3"]:
            unit["id"] = 12
    (cash,) = [a for a in document["amenity"]["features"] if a["id"] == stable_id("amenity:cash")]
    cash["properties"]["unit_ids"] = [12]
    found = venue_dataset(read_document(dumps(document), "v.json"), ImdfOptions())
    assert {u["id"]: u["name"] for u in found.data["units"]}["12"] == "Cash Point"
    level = venue.features["level"][0]["id"]
    location = next(loc for loc in found.data["locations"] if loc["id"] == f"{level}:12")
    assert {"key": "imdf:amenity", "value": cash["id"]} in location["tags"]
    assert (location["name"], location["floors"]) == ("Cash Point", [{"id": level}])
    assert not [loc for loc in found.data["locations"] if loc["id"] == cash["id"]]


def test_a_name_of_spaces_is_no_name():
    """Spaces around a label are dropped; a label of spaces alone is none, for a unit
    as for an amenity (which then gets a label like any unnamed one), and a language
    whose text is spaces gives way to the next."""
    venue, units = old_market()
    document: dict[str, Any] = collections(venue)
    document["manifest"] = manifest("en")
    by_id = {f["id"]: f for f in document["unit"]["features"]}
    by_id[units["D1"]]["properties"]["name"] = {"en": "  Deli "}
    by_id[units["D2"]]["properties"]["name"] = {"en": " ", "fr": "Épicerie"}
    by_id[units["hall"]]["properties"]["name"] = {"en": "\t"}
    (cash,) = [a for a in document["amenity"]["features"] if a["id"] == stable_id("amenity:cash")]
    cash["properties"]["name"] = {"en": "   "}
    found = venue_dataset(read_document(dumps(document), "v.json"), ImdfOptions())
    names = unit_names(found, units)
    assert (names["D1"], names["D2"], names["hall"]) == (
        "Deli",
        "Épicerie",
        "Lobby 1",
    )
    assert names["S3"] == "Retail 2"  # its amenity has no name now (S2 is Retail 1)
    location = next(loc for loc in found.data["locations"] if loc["id"] == cash["id"])
    assert location["name"] == "ATM 1"  # another kind than its shop: a place of its own
