"""The search index alone (resolvers/search/index.py), on places made in the test: the
tiers, what finds what, and the bounds an adversarial text meets."""

from __future__ import annotations

import gc
from typing import Any

from resolvers.search.index import MAX_TERMS, Field, SearchIndex, Tier
from resolvers.search.places import collect

UNITS = [
    {"_id": "u-1", "name": "Conference Room A", "floor_id": "f-1"},
    {"_id": "u-2", "name": "Conference Room B", "floor_id": "f-1"},
    {"_id": "u-3", "name": "Room 204", "floor_id": "f-2"},
    {"_id": "u-4", "name": "Room 205", "floor_id": "f-2"},
    {"_id": "u-5", "name": "Jurassic Table", "floor_id": "f-2"},
]
LOCATIONS = [
    {
        "_id": "wc-1",
        "unit_map_id": "m",
        "name": "Ladies",
        "floors": [{"id": "f-1"}],
        "tags": [{"key": "imdf:category", "value": "restroom.female"}],
    },
    {
        "_id": "lift-1",
        "unit_map_id": "m",
        "name": "Lift A",
        "floors": [{"id": "f-1"}],
        "tags": [{"key": "highway", "value": "elevator"}],
    },
    {  # an occupant inside u-5: the same place
        "_id": "occ-1",
        "unit_map_id": "m",
        "name": "Jurassic Table",
        "floors": [{"id": "f-2"}],
        "tags": [{"key": "imdf:category", "value": "restaurant"}],
    },
]


def index() -> SearchIndex:
    return SearchIndex(collect("a", UNITS, LOCATIONS))


def found(query: str) -> list[tuple[str, Tier, Field]]:
    built = index()
    return sorted(
        (built.places[match.place].id, match.tier, match.matched) for match in built.find(query)
    )


def test_tiers_and_fields():
    assert found("room 204") == [("u-3", Tier.EXACT, Field.NAME)]
    assert found("conf") == [
        ("u-1", Tier.PREFIX, Field.NAME),
        ("u-2", Tier.PREFIX, Field.NAME),
    ]
    assert found("jurasic tabel") == [("u-5", Tier.NAME_TYPO, Field.NAME)]  # a swap is one
    assert found("jurasic") == [("u-5", Tier.FUZZY, Field.NAME)]  # a word's typo
    assert found("toilet") == [("wc-1", Tier.KIND, Field.CATEGORY)]  # a kind's word, whole
    assert found("elevator") == [("lift-1", Tier.KIND, Field.CATEGORY)]
    assert found("elevat") == [("lift-1", Tier.CATEGORY, Field.CATEGORY)]  # its beginning
    assert found("elevatr") == [("lift-1", Tier.CATEGORY, Field.CATEGORY)]  # a typo of it
    assert found("lift") == [("lift-1", Tier.PREFIX, Field.NAME)]  # its name first
    assert found("restaurant") == [("u-5", Tier.KIND, Field.CATEGORY)]  # the twin's kind
    assert found("u-4") == [("u-4", Tier.EXACT, Field.ID)]


def test_a_kind_s_word_typed_whole_comes_before_typos_of_names():
    """Issue 66, point 7: at a station "lift" listed "left luggage" and two gift shops (one
    typo each) before any lift, found only by its kind."""
    station = [
        {
            "_id": "s-1",
            "name": "Left Luggage",
            "tags": [{"key": "amenity", "value": "lockers"}],
        },
        {"_id": "s-2", "name": "Gift Shop", "tags": [{"key": "shop", "value": "gift"}]},
        {"_id": "s-3", "name": "Platform 2", "tags": [{"key": "highway", "value": "elevator"}]},
    ]
    places = [{**each, "unit_map_id": "m", "floors": [{"id": "f"}]} for each in station]
    built = SearchIndex(collect("a", [], places))
    matches = sorted(built.find("lift"), key=lambda match: match.tier)
    assert [(built.places[m.place].id, m.tier) for m in matches[:1]] == [("s-3", Tier.KIND)]
    assert sorted((built.places[m.place].id, m.tier) for m in matches[1:]) == [
        ("s-1", Tier.FUZZY),  # Left Luggage
        ("s-2", Tier.FUZZY),  # Gift Shop
    ]
    assert built.score(matches[0], len("lift")) > built.score(matches[1], len("lift"))


def test_numbers_are_never_typos():
    assert found("room 206") == []
    assert found("room 2041") == []


def searched(names: list[str], query: str) -> list[tuple[str, Tier]]:
    """(name, tier) of what `query` finds among units named `names`, best tier first."""
    units = [{"_id": f"u-{n}", "name": name, "floor_id": "f"} for n, name in enumerate(names)]
    built = SearchIndex(collect("a", units, []))
    return sorted(
        ((built.places[match.place].name or "", match.tier) for match in built.find(query)),
        key=lambda one: (one[1], one[0]),
    )


CODES = ["LL21D", "212D", "213D", "B12", "Unit 101", "2120"]


def test_a_code_forgives_one_missing_extra_or_swapped_character():
    """Issue 66, point 7: "LL1D" for "LL21D" and "t12D" for "212D" found nothing (their
    digits differ); one-character typos of 4-character codes find the code."""
    assert searched(CODES, "LL1D") == [("LL21D", Tier.FUZZY)]  # a digit left out
    assert searched(CODES, "LL211D") == [("LL21D", Tier.FUZZY)]  # one added
    assert searched(CODES, "LL12D") == [("LL21D", Tier.FUZZY)]  # two swapped
    assert searched(CODES, "t12D") == [("212D", Tier.FUZZY)]  # a digit typed as a letter
    assert searched(CODES, "2l2D") == [("212D", Tier.FUZZY)]
    assert searched(CODES, "21D") == [("212D", Tier.FUZZY), ("213D", Tier.FUZZY)]
    assert searched(CODES, "122D") == [("212D", Tier.FUZZY)]
    assert searched(CODES, "b112") == [("B12", Tier.FUZZY)]


def test_a_code_never_takes_one_digit_for_another():
    assert searched(CODES, "214D") == []  # another room, not a typo of 212D or 213D
    assert searched(CODES, "LL31D") == []
    assert searched(CODES, "213D") == [("213D", Tier.EXACT)]
    assert searched(CODES, "unit 102") == []  # numbers alone are not codes
    assert searched(CODES, "unit 1011") == []
    # two numbers are never typos of each other; a number a letter off a code may be
    assert searched(CODES, "2121") == [("212D", Tier.FUZZY)]
    assert searched(CODES, "2140") == []  # 214 is neither 212 nor 213
    assert searched(CODES, "212") == [("2120", Tier.PREFIX), ("212D", Tier.PREFIX)]


def test_a_whole_name_one_typo_off_comes_before_names_sharing_a_word():
    """Issue 66, point 7: "Restmoom 1" listed "Restroom (female) 1" and "(male) 1" before
    "Restroom 1" (a tier alike, then by name)."""
    names = ["Restroom (female) 1", "Restroom (male) 1", "Restroom 1", "Restroom 2"]
    assert searched(names, "Restmoom 1") == [
        ("Restroom 1", Tier.NAME_TYPO),
        ("Restroom (female) 1", Tier.FUZZY),
        ("Restroom (male) 1", Tier.FUZZY),
    ]


def test_a_repeated_term_counts_once_and_terms_past_the_limit_are_not_asked():
    assert found("room " * 50) == found("room")
    many = " ".join(f"room{'x' * n}" for n in range(MAX_TERMS))  # no place has these
    assert found(many) == []
    prefixes = ["conference"[:n] for n in range(1, 11)] + ["r", "ro"]
    assert len(prefixes) == MAX_TERMS
    assert (
        found(" ".join([*prefixes, "nowhere"]))
        == found(" ".join(prefixes))
        == [
            ("u-1", Tier.PREFIX, Field.NAME),
            ("u-2", Tier.PREFIX, Field.NAME),
        ]
    )


def documents(count: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """`count` units, each with its location (tagged with a kind and another name)."""
    units = [
        {"_id": f"u-{n:05d}", "name": f"Room {n}", "floor_id": f"f-{n % 7}"} for n in range(count)
    ]
    locations = [
        {
            "_id": f"loc-{n:05d}",
            "unit_map_id": f"m-{n % 7}",
            "name": f"Room {n}",
            "names": {"en": f"Room {n}", "fr": f"Salle {n}"},
            "floors": [{"id": f"f-{n % 7}"}],
            "tags": [
                {"key": "svc:id", "value": f"u-{n:05d}"},
                {"key": "amenity", "value": "cafe" if n % 2 else "toilets"},
                {"key": "alt_name", "value": f"Suite {n}"},
            ],
        }
        for n in range(count)
    ]
    return units, locations


def tracked_from(root: object) -> int:
    """How many objects the cyclic garbage collector tracks among `root` and what it
    holds (classes and their modules left out: they are not the index's)."""
    seen: dict[int, object] = {}
    stack = [root]
    while stack:
        found = stack.pop()
        if id(found) in seen or isinstance(found, type) or not gc.is_tracked(found):
            continue
        seen[id(found)] = found
        stack.extend(gc.get_referents(found))
    return len(seen)


def test_an_index_holds_a_few_objects_for_the_collector_whatever_its_size():
    """Issue 63, finding 5: an index of 10,000 places held 52,000 objects the collector
    tracked (each place's record, lists and tuples, an array per word), which it walked
    after every update, 30-100 ms pauses of a served process's loop during writes. Its
    places are now bytes in tuples, its postings bytes in dicts: after the first
    collection that sees them (CPython then stops tracking a tuple of atoms), as few
    for 2,000 places as for 10."""
    small = SearchIndex(collect("a", *documents(10)))
    large = SearchIndex(collect("a", *documents(2_000)))
    gc.collect()
    assert tracked_from(large) == tracked_from(small) <= 12
    assert [large.places[n].id for n in (0, 1_999)] == ["u-00000", "u-01999"]
    assert large.places[7] == (
        "unit",
        "u-00007",
        "Room 7",
        "a",
        "f-0",
        "cafe",
        (("m-0", "loc-00007"),),
        ("f-0",),
        (),
        "room 7",
        6,
    )
