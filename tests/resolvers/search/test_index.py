"""The search index alone (resolvers/search/index.py), on places made in the test: the
tiers, what finds what, and the bounds an adversarial text meets."""

from __future__ import annotations

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
    assert found("jurasic tabel") == [("u-5", Tier.FUZZY, Field.NAME)]  # a swap is one typo
    assert found("toilet") == [("wc-1", Tier.CATEGORY, Field.CATEGORY)]
    assert found("elevator") == [("lift-1", Tier.CATEGORY, Field.CATEGORY)]
    assert found("lift") == [("lift-1", Tier.PREFIX, Field.NAME)]  # its name first
    assert found("restaurant") == [("u-5", Tier.CATEGORY, Field.CATEGORY)]  # the twin's kind
    assert found("u-4") == [("u-4", Tier.EXACT, Field.ID)]


def test_numbers_are_never_typos():
    assert found("room 206") == []
    assert found("room 2041") == []


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
