"""Names a person can read, made without a database (issue 35, point 3; issue 48,
point 3): a drawn-only unit is named too, a category reads as words, generated numbers
skip names taken and follow reading order, and a label is read in every form. The
names as imported and served are tested in tests/storage/imdf/test_names.py."""

from __future__ import annotations

from parsing.imdf.categories import category_label
from parsing.imdf.contents import unit_contents
from parsing.imdf.labels import label_texts
from parsing.imdf.names import name_units, unique_names
from parsing.imdf.read import Report, read_document
from parsing.imdf.venue import ImdfOptions, Venue
from tests.venues.old_market import collections, dumps, old_market


def test_drawn_only_units_are_named_too():
    venue, units = old_market()
    built = Venue(read_document(dumps(collections(venue)), "v.json"), ImdfOptions())
    naming = name_units(built, unit_contents(built))
    assert naming.places == {}  # the unnamed restroom amenity is its restroom
    assert built.units[units["gallery"]].name == "Walkway 1"
    assert units["gallery"] in naming.generated


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


def test_label_texts_in_every_form():
    report = Report()
    assert label_texts("Lobby", ("zh-Hant", "en"), report) == {"zh-Hant": "Lobby"}
    assert label_texts({"EN-us": " Lobby ", "zh-HK": "大堂", "fr": " "}, ("zh-Hant",)) == {
        "zh-HK": "大堂",  # zh-HK is written in Hant: it suits a reader of zh-Hant
        "en-US": "Lobby",
    }
    assert label_texts({"zh-Hans": "大堂", "en": "Lobby"}, ("zh-Hant", "en")) == {
        "en": "Lobby",  # another script suits no reader of zh-Hant
        "zh-Hans": "大堂",
    }
    assert label_texts({"english": "Lobby"}, ("fr", "en"), report) == {"fr": "Lobby"}
    assert label_texts(None, ("en",)) == label_texts({"en": ""}, ("en",)) == {}
    assert report.lines() == [
        "label is a plain string, not a language map: 1 (e.g. Lobby)",
        "label key that is no language tag, read as the venue's language: 1 (e.g. english: Lobby)",
    ]
