"""The colours of an imported IMDF venue's drawing, in one place (issue 34): one calm
pastel fill per kind of space, as indoor map apps draw them (rooms warm paper, walkways
light grey, restrooms blue, stairs and lifts violet, non-public grey, shops and food
warm), dark grey walls, doors as a light gap in the wall with a thin teal line.

Every fill keeps labels in `TEXT` readable: a contrast ratio of at least 4.5:1 (WCAG 2.2
AA, normal text), tested in tests/storage/imdf/test_drawing.py. Categories are those of
the IMDF unit category list; a dotted one (`restroom.female.wheelchair`) takes its own
entry if the palette has one, else its first part's (`restroom`), else `DEFAULT`.
"""

from __future__ import annotations

TEXT = "#111827"  # labels: the viewer's ink

# Fills by kind of space, then the categories of each kind.
KINDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "room": (
        "#f7f1e6",
        ("room", "unspecified", "auditorium", "theater", "movietheater", "kitchen", "shell"),
    ),
    "work": (
        "#fdf6d3",
        (
            "office",
            "classroom",
            "conferenceroom",
            "huddleroom",
            "laboratory",
            "library",
            "phoneroom",
        ),
    ),
    "walkway": (
        "#eef0f3",
        ("walkway", "footbridge", "platform", "unenclosedarea", "terrace"),
    ),
    "lobby": ("#e4edf6", ("lobby", "waitingroom", "lounge", "privatelounge")),
    "restroom": ("#d6e8fb", ("restroom", "shower", "mothersroom")),
    "stairs": ("#e9e3fb", ("stairs", "steps", "escalator", "movingwalkway", "ramp")),
    "elevator": ("#dcdcf8", ("elevator",)),
    "nonpublic": ("#e3e4e8", ("nonpublic", "serverroom", "storage", "mailroom")),
    "retail": ("#fbe4ee", ("retail", "kiosk", "shop")),
    "food": ("#fde7d2", ("foodservice", "smokingarea")),
    "health": ("#fbe0e0", ("firstaid",)),
    "leisure": ("#dff3e6", ("fitnessroom", "recreation", "fieldofplay", "vegetation")),
    "parking": ("#e2e7ee", ("parking", "road", "railway")),
    "structure": (
        "#d7d4d0",
        ("structure", "column", "brick", "concrete", "drywall", "glass", "wood"),
    ),
    "opentobelow": ("#fbfbfa", ("opentobelow",)),
}
DEFAULT = KINDS["room"][0]

CATEGORY_FILL: dict[str, str] = {
    category: fill for fill, categories in KINDS.values() for category in categories
}

# The level's outline (the building's footprint): light, with a soft edge.
OUTLINE_FILL, OUTLINE_STROKE, OUTLINE_WIDTH = "#fafaf9", "#c9c6c1", 4
# Walls: every space's boundary, dark grey.
WALL_STROKE, WALL_WIDTH = "#4b5563", 3
# Openings: a light gap across the wall, then a thin teal line in it (a door).
GAP_STROKE, GAP_WIDTH = "#fafaf9", 7
DOOR_STROKE, DOOR_WIDTH = "#0f766e", 2
# Group defaults, for a shape written without its own fill.
SPACES_FILL, UNITS_FILL = KINDS["walkway"][0], DEFAULT


def fill_of(category: str) -> str:
    """The fill of a unit of this IMDF category (any case)."""
    key = category.strip().lower()
    fill = CATEGORY_FILL.get(key)
    if fill is None:
        fill = CATEGORY_FILL.get(key.partition(".")[0], DEFAULT)
    return fill


def fills() -> dict[str, str]:
    """Every fill labels may be drawn on, by name: the kinds, the outline and the
    defaults (what the contrast test checks)."""
    named = {kind: fill for kind, (fill, _) in KINDS.items()}
    return named | {"outline": OUTLINE_FILL, "spaces": SPACES_FILL, "units": UNITS_FILL}
