"""Which locations may name a turn (resolvers/wayfinding/landmarks.py, issue 48 point 3):
public places only, and whether a name is generated, so that a generated one is named
only where no other place is within reach (routing.maneuvers ranks them).

Locations are written as the database keeps them (tags as key/value documents), as the
IMDF import and the SVG import write them.
"""

from __future__ import annotations

from typing import Any

import pytest

from parsing.imdf.label_rank import is_generated
from resolvers.wayfinding.landmarks import places_of
from routing.maneuvers import LANDMARK_FT, Place
from storage.collections import GENERATED_NAME_TAG as GENERATED_TAG


def location(id_: str, name: str, *tags: tuple[str, str], floor: str = "f-1") -> dict[str, Any]:
    return {
        "_id": id_,
        "name": name,
        "x": 10.0,
        "y": 20.0,
        "floors": [{"id": floor}],
        "tags": [{"key": key, "value": value} for key, value in tags],
    }


def test_a_non_public_area_is_never_a_landmark():
    """IMDF `nonpublic` (and any category under it) is left out; other places stay, a
    unit with its unit id, on the level its floor names."""
    found = places_of(
        [
            location("a", "Plant Room", ("imdf:category", "nonpublic")),
            location("b", "Back office", ("imdf:category", "nonpublic.staff")),
            location("c", "Pharmacy", ("imdf:category", "retail"), ("svc:id", "u-c")),
            location("d", "Storage 3", ("imdf:category", "storage"), floor="f-2"),
        ],
        ["f-1", "f-2"],
        2.0,
    )
    assert found.cell == LANDMARK_FT / 2.0
    listed = sorted((p for cell in found.cells.values() for p in cell), key=lambda p: p.name)
    assert listed == [
        Place("c", "u-c", "Pharmacy", 0, 10.0, 20.0),
        Place("d", None, "Storage 3", 1, 10.0, 20.0),
    ]


@pytest.mark.parametrize(
    ("name", "tags", "made_up"),
    [
        # tagged by the IMDF import (issue 48): whatever the name
        ("Restroom 2", [GENERATED_TAG, ("imdf:category", "restroom")], True),
        ("Restroom 2", [("imdf:category", "restroom")], False),  # a venue's own "Restroom"s
        # as the import named them before the tag: "<category label> <n>, <floor>"
        ("Restroom (female) 1, Ground Floor", [("imdf:category", "restroom.female")], True),
        ("Space 16, Concourse", [("imdf:category", "unspecified")], True),
        ("Room 12, Level 1", [("imdf:category", "room")], True),
        ("Meeting Room 3, Level 1", [("imdf:category", "room")], False),
        ("Restroom 2, Level 1", [("imdf:category", "retail")], False),
        # a kind and a number alone, as a drawing's units are when nobody named them
        ("Unit 12", [], True),
        ("Area 3", [("svc:type", "unit")], True),
        ("Room 7", [], True),
        ("Space 1", [], True),
        ("Unit 12A", [], False),
        ("Fitness Center", [], False),
        ("B1.24", [("imdf:category", "room")], False),
        ("301", [("svc:type", "unit")], False),
    ],
)
def test_which_names_are_generated(name, tags, made_up):
    assert is_generated(name, dict(tags)) is made_up
    found = places_of([location("x", name, *tags)], ["f-1"], 1.0)
    (place,) = (p for cell in found.cells.values() for p in cell)
    assert place.generated is made_up
