"""What the walk over a unit-map SVG knows of its elements: their kinds and type names,
which attributes style a shape, how a `use` reaches what it draws (`Via`) and where an
element stands (`At`), and small readers of text, titles, rings and level indexes."""

from __future__ import annotations

import re
from typing import Any

from lxml import etree

from parsing.attributes import (
    GEOMETRY,
    RESERVED_KEYS,
    SVG_NS,
)
from parsing.errors import SvgError
from parsing.geometry.numbers import (
    format_number,
)
from parsing.geometry.path_data import Polyline
from parsing.geometry.transform import Matrix
from parsing.uids import UidScope

DOCUMENT_VERSION = "1.2"
CONNECTOR_KINDS = ("stairs", "elevator", "ramp", "escalator", "door")

# Element kinds the walk knows, by tag (SVG namespace or none); anything else is skipped.
_KNOWN: tuple[str, ...]  # grows below
_KNOWN = ("g", "use", "symbol", "rect", "circle", "ellipse", "line", "polyline", "polygon")
_KNOWN += ("path", "text", "image")
KINDS: dict[str, str] = {tag: tag for tag in _KNOWN} | {f"{{{SVG_NS}}}{tag}": tag for tag in _KNOWN}
SHAPES = frozenset(("rect", "circle", "ellipse", "line", "polyline", "polygon", "path"))
WALKABLE = frozenset(("line", "polyline", "path"))
OPEN_RINGS = frozenset(("path", "polygon", "polyline"))  # may repeat their first point
TYPE_NAMES = {
    "rect": "Rect",
    "circle": "Circle",
    "ellipse": "Ellipse",
    "line": "Line",
    "polyline": "Polyline",
    "polygon": "Polygon",
    "path": "Path",
    "text": "Text",
    "image": "Image",
}

# Roles of a group's children: a units or hit-areas layer turns shapes into Units or
# HitAreas; a paths layer makes walk lines of its lines, polylines and paths.
UNITS, HIT_AREAS, PATHS = "units", "hit-areas", "paths"
LEVEL_PREFIX = "level-"

# Attributes a Unit's or HitArea's `shape` leaves out: its geometry is `points` (and
# `holes`), its transform is applied, its identity and data belong to the Unit/HitArea.
NOT_SHAPE_STYLE = GEOMETRY | RESERVED_KEYS | {"id", "transform", "href", "style", "holes"}
# Attributes a Level, Layer, UnitLayer or HitAreaLayer leaves out of its paint (the
# unit shape's rule, and the group's own keys and a symbol's viewport): what is left is
# what SVG inheritance gives its children, `fill`, `stroke`, `class`, ...
NOT_GROUP_STYLE = NOT_SHAPE_STYLE | {"name", "tags", "elements", "viewBox", "preserveAspectRatio"}
# Attributes a graphic element in a layer leaves out: `id` is its uid.
NOT_GRAPHIC = RESERVED_KEYS | {"id"}
# Attributes of a `use` that place or name the use itself: not passed to what it draws.
USE_OWN = frozenset(("x", "y", "width", "height", "href", "transform", "id"))
INTEGER = re.compile(r"\s*[-+]?[0-9]{1,18}\s*")
# A level's height in floors (`data-level-height`, docs/svg-parsing.md) is read within
# this many floors of 0: more is no building, and a connector's steps stay small numbers.
MAX_LEVEL_HEIGHT = 1000


class Via:
    """How a `use` reaches what it draws: the drawn copy takes the use's uid, the use's
    attributes fill in for it, and the use's placement leads its own transform."""

    __slots__ = (
        "attributes",
        "height",
        "instance",
        "outer",
        "transform",
        "uid",
        "width",
        "x",
        "y",
    )

    def __init__(
        self,
        uid: str,
        attributes: dict[str, str],
        element: etree._Element,
        transform: str | None,
        x: float,
        y: float,
        width: float | None,
        height: float | None,
        outer: Via | None,
    ) -> None:
        self.uid = uid
        self.attributes = attributes  # the use's written attributes minus its placement
        self.transform = transform  # the use's own transform attribute
        self.x, self.y = x, y
        self.width, self.height = width, height  # a symbol's viewport
        self.outer = outer  # the use that draws this use, if one does
        # The use written where the drawing appears (the outermost of a chain of uses):
        # it names the instance and gives the line of errors.
        self.instance: etree._Element = outer.instance if outer is not None else element

    def placement(self) -> str:
        """The use's transform and x/y as one transform text ("" if none), after those
        of the uses that draw this one."""
        parts = [self.outer.placement()] if self.outer is not None else []
        if self.transform and self.transform.strip():
            parts.append(self.transform.strip())
        if self.x or self.y:
            parts.append(f"translate({format_number(self.x)},{format_number(self.y)})")
        return " ".join(part for part in parts if part)


class At:
    """Where the walk is, shared by the children of one group: the list they go into,
    the canvas matrix, level, layer role, nesting depth and uid scope. `via` is the use
    that draws the element (only the target of a use has one: its children do not)."""

    __slots__ = ("depth", "level_uid", "m", "out", "role", "scope", "via")

    def __init__(
        self,
        out: list[dict[str, Any]],
        m: Matrix,
        level_uid: str | None,
        role: str | None,
        depth: int,
        scope: UidScope,
        via: Via | None,
    ) -> None:
        self.out = out
        self.m = m
        self.level_uid = level_uid
        self.role = role
        self.depth = depth
        self.scope = scope
        self.via = via


def merge(use_attributes: dict[str, str], own: dict[str, str]) -> dict[str, str]:
    """Attributes of what a `use` draws: its own win over the use's (inheritance, as
    in SVG), except `data-*`, which belong to the instance, the use."""
    merged = dict(use_attributes)
    merged.update(own)
    for key, value in use_attributes.items():
        if key.startswith("data-"):
            merged[key] = value
    return merged


def ring(polylines: list[Polyline], kind: str) -> list[float]:
    """A shape's outline: its only polyline, or the subpath enclosing the largest area
    (the first of equals). A path, polygon or polyline that ends where it started does
    not repeat that point (rects, circles and ellipses never do; a line keeps both ends)."""
    if len(polylines) == 1:
        flat = polylines[0][0]
    else:
        flat, best = [], -1.0
        for coords, _ in polylines:
            area = abs(ring_area(coords))
            if area > best:
                flat, best = coords, area
    if kind in OPEN_RINGS and len(flat) > 2 and flat[0] == flat[-2] and flat[1] == flat[-1]:
        flat = flat[:-2]
    return flat


def ring_area(flat: list[float]) -> float:
    xs, ys = flat[0::2], flat[1::2]
    n = len(xs)
    return 0.5 * sum(xs[i] * ys[(i + 1) % n] - xs[(i + 1) % n] * ys[i] for i in range(n))


def level_index(text: str | None) -> int | None:
    """`data-level-index`: a plain integer (at most 18 digits, blanks around it allowed),
    else None."""
    if text is None or INTEGER.fullmatch(text) is None:
        return None
    return int(text)


def level_height(text: str | None) -> int | None:
    """`data-level-height`: a plain integer within MAX_LEVEL_HEIGHT of 0, else None."""
    height = level_index(text)
    return height if height is not None and abs(height) <= MAX_LEVEL_HEIGHT else None


def text_content(el: etree._Element) -> str:
    """`"".join(el.itertext())`, without the iterator for the usual text: children that
    hold only text (a `<tspan>` each). The parser drops comments and PIs."""
    parts = [el.text or ""]
    for child in el:
        if len(child) or not isinstance(child.tag, str):
            return "".join(el.itertext())
        parts.append(child.text or "")
        parts.append(child.tail or "")
    return "".join(parts)


def title(root: etree._Element) -> str | None:
    for child in root:
        if child.tag in (f"{{{SVG_NS}}}title", "title"):
            return " ".join("".join(child.itertext()).split()) or None
    return None


def external(el: etree._Element, href: str) -> SvgError:
    name = etree.QName(el).localname
    return SvgError(
        f'<{name}> refers to "{href.strip()[:80]}" outside the SVG; '
        'only "#id" references and data: URIs are allowed',
        el.sourceline,
    )
