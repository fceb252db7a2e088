"""IMDF categories as a person reads them ("Non-public area", "Restroom (female)"): the
words of generated names (parsing/imdf/names.py), also read where a route names its
landmarks, so this module imports nothing heavy (no shapely, no pyproj)."""

from __future__ import annotations

from parsing.imdf.category_words import DETAILS, LANGUAGES, WORDS, word_in

# The language of the words below, and so of every name made of them ("Restroom 2",
# "Level 1"): such a name exists in this language only (issue 51; docs/imdf.md, "Names").
CATEGORY_LANGUAGE = "en"
# The tag of a location whose name floorgate made of a category and a number ("Restroom
# 2"): an IMDF import writes it, maneuvers name such a place only when no other is near.
GENERATED_NAME_TAG = ("svc:name", "generated")
# The tag of an IMDF import's location saying its unit's, amenity's or occupant's category.
IMDF_CATEGORY_TAG = "imdf:category"
# The tag of the location of a unit a connector stands in (a lift's, stairs'): its value is
# the connector's id in the walk graph, so a closure of the connector closes the place
# and is named by it (issue 66).
CONNECTOR_ID_TAG = "svc:connector-id"
# The categories of places a visitor does not enter (`nonpublic`, and its subcategories):
# never a landmark, listed after public places by `near` and `nearest`.
NON_PUBLIC = "nonpublic"


# Openings that are places a visitor looks for (issue 66, point 5: "entrance" found
# nothing on a venue of 12 principal entrances): IMDF category -> the word its generated
# name is made of (`category_words`) and the tag that makes it an entrance or an exit to a
# search (`entrance=main`, OpenStreetMap's, is both; an emergency exit is an exit only).
DOORWAYS = {
    "pedestrian.principal": ("entrance", ("entrance", "main")),
    "emergencyexit": ("emergencyexit", ("svc:category", "emergency_exit")),
}


def is_public(category: object) -> bool:
    """Whether a place of this IMDF category (or none) is one a visitor may enter."""
    return not (isinstance(category, str) and category.startswith(NON_PUBLIC))


# Unit categories of solid matter or a void: drawn, never walked nor listed.
SOLID = frozenset(
    {
        "structure",
        "column",
        "opentobelow",
        "brick",
        "concrete",
        "drywall",
        "glass",
        "wood",
        "vegetation",
    }
)


def category_label(category: str, language: str = CATEGORY_LANGUAGE) -> str:
    """`restroom.female` -> "Restroom (female)" ("洗手間 (女)" in `zh-Hant`), `nonpublic`
    -> "Non-public area": the category's word in `language` (`category_words`), else
    the English word, written by rule for a category without one ("lounge_bar" ->
    "Lounge bar")."""
    head, _, rest = category.strip().lower().partition(".")
    row = WORDS.get(head)
    english = head.replace("_", " ").replace("-", " ").capitalize() or "Space"
    shown = language if language in LANGUAGES else CATEGORY_LANGUAGE
    word = english if row is None else word_in(row, shown)
    details = [part.replace("_", " ") for part in rest.split(".") if part]
    said = [word_in(DETAILS[part], shown) if part in DETAILS else part for part in details]
    return f"{word} ({' '.join(said)})" if said else word
