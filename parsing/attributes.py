"""Reading SVG attributes the way drawing tools write them: names, `style=`, layer names.

Pure string functions; the tree walk (`parsing/svg.py`) decides where they apply.
"""

from __future__ import annotations

import re

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
INKSCAPE_NS = "http://www.inkscape.org/namespaces/inkscape"
XLINK_HREF = f"{{{XLINK_NS}}}href"
INKSCAPE_LABEL = f"{{{INKSCAPE_NS}}}label"

# Attributes that place an element, as opposed to styling it.
GEOMETRY = frozenset(
    [
        "x",
        "y",
        "width",
        "height",
        "x1",
        "y1",
        "x2",
        "y2",
        "cx",
        "cy",
        "r",
        "rx",
        "ry",
        "points",
        "d",
        "pathLength",
    ]
)
# Keys of the parsed document itself: an attribute of the same name cannot override them.
RESERVED_KEYS = frozenset(("type", "uid", "text"))
# Names a `style` declaration may not set: geometry, structure and the document's own keys.
_NOT_STYLE = GEOMETRY | RESERVED_KEYS | {"transform", "id", "class", "style", "href"}

_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
# `name: value` up to `;`, where the value may hold quoted strings or parentheses with `;`.
_DECLARATION = re.compile(
    r"""\s*([^:;\s][^:;]*?)\s*:\s*((?:[^;'"(]|'[^']*'|"[^"]*"|\([^)]*\))*)\s*(?:;|$)"""
)
_IMPORTANT = re.compile(r"\s*!\s*important\s*$", re.IGNORECASE)
_ILLUSTRATOR_ESCAPE = re.compile(r"_x([0-9A-Fa-f]{2,4})_")
_ILLUSTRATOR_REPEAT = re.compile(r"_[0-9]+_$")


def parse_style(text: str) -> tuple[tuple[str, str], ...]:
    """`style="fill:#fff;stroke:#000"` as (name, value) pairs, in written order.

    Property names are lower-cased (CSS is case-insensitive); `!important` is dropped;
    vendor properties (`-inkscape-font-specification`) and names that are not styling
    (geometry, `transform`, `id`, `class`, `data-*`) are ignored.
    """
    declarations: list[tuple[str, str]] = []
    for match in _DECLARATION.finditer(_CSS_COMMENT.sub(" ", text)):
        name = match.group(1).strip().lower()
        value = _IMPORTANT.sub("", match.group(2)).strip()
        if not value or name.startswith(("-", "data-")) or name in _NOT_STYLE:
            continue
        declarations.append((name, value))
    return tuple(declarations)


def decode_illustrator_id(value: str) -> str:
    """Illustrator writes a layer named "hit-areas" as `hit_x2D_areas`, a second layer of
    the same name as `units_1_`: undo both to get the name as the user typed it."""
    decoded = _ILLUSTRATOR_ESCAPE.sub(_unescape, value)
    return _ILLUSTRATOR_REPEAT.sub("", decoded) or decoded


def _unescape(match: re.Match[str]) -> str:
    code = int(match.group(1), 16)
    if code == 0 or 0xD800 <= code <= 0xDFFF:  # not a character: keep the escape as written
        return match.group(0)
    return chr(code)


def object_name(label: str | None, data_name: str | None, element_id: str | None) -> str | None:
    """The name a drawing tool shows for an object: Inkscape's label, Illustrator's
    `data-name`, else the `id` (Illustrator's escapes undone). Empty values do not count."""
    if label:
        return label
    if data_name:
        return data_name
    if element_id:
        return decode_illustrator_id(element_id)
    return None
