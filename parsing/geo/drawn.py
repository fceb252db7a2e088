"""Canvas geometry of the graphic elements the GeoJSON gives back besides units: the
drawn spaces (walkways, stairs, structure...) and the openings of an IMDF drawing
(docs/geojson.md, docs/imdf.md). The parsed document keeps these as written (their
`points` or `d`), so they are outlined here as the parser outlines unit shapes."""

from __future__ import annotations

from typing import Any

from parsing.errors import SvgError
from parsing.geometry.holes import holes_of
from parsing.geometry.outline import Outliner
from parsing.geometry.path_data import PointBudget, Polyline
from parsing.geometry.transform import IDENTITY, parse_transform
from parsing.limits import SvgLimits
from parsing.svg_elements import ring

XY = tuple[float, float]
CATEGORY_PREFIX = "imdf-"  # the class the IMDF drawings give a unit or space of a category
OPENINGS = "openings"  # the layer of door gaps in the IMDF drawings
AREAS = {"Polygon": "polygon", "Path": "path", "Rect": "rect"}
LINES = {"Polyline": "polyline", "Line": "line"}


def category_of(attributes: dict[str, Any]) -> str | None:
    """The IMDF category a `class` names (`imdf-walkway` -> `walkway`), else None."""
    classes = attributes.get("class")
    if not isinstance(classes, str):
        return None
    for token in classes.split():
        if token.startswith(CATEGORY_PREFIX) and len(token) > len(CATEGORY_PREFIX):
            return token[len(CATEGORY_PREFIX) :]
    return None


def _pairs(flat: list[float]) -> list[XY]:
    return list(zip(flat[0::2], flat[1::2], strict=True))


class DrawnReader:
    """Outlines graphic elements within one point budget (the parser's default limit)."""

    def __init__(self, max_points: int = SvgLimits().max_points) -> None:
        self._outliner = Outliner(PointBudget(max_points))

    def _polylines(self, element: dict[str, Any], kind: str) -> list[Polyline] | None:
        """The element's canvas polylines after its own `transform`; None when its
        geometry cannot be read (graphic elements are stored as written, unchecked)."""
        attributes = {key: value for key, value in element.items() if isinstance(value, str)}
        transform = attributes.get("transform")
        try:
            m = parse_transform(transform) if transform else IDENTITY
            return self._outliner.outlines(kind, attributes, m)
        except SvgError:
            return None

    def area(self, element: dict[str, Any]) -> tuple[list[XY], list[list[XY]]] | None:
        """A space's outline and holes, by the rules of unit shapes (docs/svg-parsing.md,
        "Holes"); None for another kind of element or unreadable geometry."""
        kind = AREAS.get(element.get("type"))  # type: ignore[arg-type]  # None: no kind
        polylines = self._polylines(element, kind) if kind is not None else None
        if not polylines:
            return None
        flat = ring(polylines, kind)  # type: ignore[arg-type]  # polylines: kind is known
        fill_rule = element.get("fill-rule")
        holes = holes_of(polylines, flat, fill_rule if isinstance(fill_rule, str) else None)
        return _pairs(flat), [_pairs(hole) for hole in holes]

    def line(self, element: dict[str, Any]) -> list[XY] | None:
        """An opening's line (a polyline or line element), else None."""
        kind = LINES.get(element.get("type"))  # type: ignore[arg-type]  # None: no kind
        polylines = self._polylines(element, kind) if kind is not None else None
        if not polylines:
            return None
        return _pairs(polylines[0][0])
