"""How much a map wants to name a place (issue 66, point 1): a visitor looks for shops,
named rooms and amenities, then for a unit's number; a name floorgate made up ("Restroom
2", "Unit 12") or a place a visitor does not enter ("Plant Room", "Non-public area 3")
is named only when the map is zoomed in on it, and is a landmark only where nothing
else is near. One rule for the vector tiles' labels (parsing/geo/tile_features.py) and
the routes' landmarks (resolvers/wayfinding/landmarks.py); the SVG viewer's map says
the same in JavaScript (rest/pages/static/viewer/map/labels.js: `GENERATED`, `NON_PUBLIC`,
`item.quiet`), since it reads the locations' tags, not the tiles."""

from __future__ import annotations

import re
from collections.abc import Mapping
from enum import IntEnum
from typing import Any

from parsing.imdf.categories import (
    GENERATED_NAME_TAG,
    IMDF_CATEGORY_TAG,
    category_label,
    is_public,
)

# A name that says only what a place is and its number, as a drawing's units are named
# when nobody named them: "Unit 12", "Area 3", "Room 7".
NUMBERED = re.compile(r"(?:Unit|Area|Room|Space) \d+")
# A unit's number or code alone ("212D", "G.03", "LL21"): one word holding a digit.
CODE = re.compile(r"[^\s]*\d[^\s]*")


class LabelRank(IntEnum):
    """First named first; `QUIET` only when zoomed in on it (or chosen)."""

    NAMED = 0  # a public place's given name: "Atrium", "Café Nero", "Meeting Room"
    CODE = 1  # a unit's number: "212D"
    QUIET = 2  # a generated name or a non-public place


def is_generated(name: str, tags: Mapping[Any, Any]) -> bool:
    """Whether a location's name was made up for it rather than given: tagged so by the
    IMDF import (`GENERATED_NAME_TAG`), in the form the import wrote before that tag ("<category
    label> <n>, <floor>", parsing/imdf/names.py), or a kind and a number alone
    ("Unit 12", `NUMBERED`)."""
    key, value = GENERATED_NAME_TAG
    if tags.get(key) == value or NUMBERED.fullmatch(name):
        return True
    category = tags.get(IMDF_CATEGORY_TAG)
    if not isinstance(category, str) or ", " not in name:
        return False
    # the form an IMDF import wrote before the tag: "<category label> <n>, <floor>"
    return re.fullmatch(rf"{re.escape(category_label(category))} \d+, .+", name) is not None


def label_rank(name: str, tags: Mapping[Any, Any]) -> LabelRank:
    """How much a map wants `name`, the name of a location with these tags."""
    if not is_public(tags.get(IMDF_CATEGORY_TAG)) or is_generated(name, tags):
        return LabelRank.QUIET
    return LabelRank.CODE if CODE.fullmatch(name.strip()) else LabelRank.NAMED
