"""The levels of a parsed unit map as a WGS84 waypoint finds them (issue 49): each
level's uid, its indoor= `level` (as the map's GeoJSON and tiles carry it) and its
outline, the canvas box around its units and hit areas (the box the GeoJSON's level
feature draws: docs/geojson.md).

A `{lon, lat, level}` waypoint names a level by that string; a map may have two levels
of one `level` (an IMDF venue's levels sharing an ordinal), and the point tells them
apart by their outlines. Pure: the parsed document in, plain values out.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from parsing.geo.indoor_levels import level_value

Box = tuple[float, float, float, float]  # x0, y0, x1, y1, canvas units
XY = tuple[float, float]
OUTLINED = ("Unit", "HitArea")
# Layers no footprint is made of: the level's own outline (parsing/imdf/drawing.py draws
# an IMDF level's polygon in `<g id="outline">`).
FOOTPRINT_LEFT_OUT = frozenset({"outline"})


@dataclass(frozen=True)
class LevelOutline:
    """One Level of the document, in document order."""

    uid: str
    level: str  # the indoor= `level` (`indoor_levels.level_value`)
    box: Box | None  # None for a level without units or hit areas


def level_outlines(
    document: dict[str, Any], heights: Mapping[str, int] | None = None
) -> list[LevelOutline]:
    """Every Level of the document with its `level` and outline, in document order; a
    unit belongs to its innermost enclosing Level, as in the GeoJSON. `heights`: the
    stored map's level heights by uid, as the GeoJSON is given them."""
    found: list[LevelOutline] = []
    for level in _levels(document.get("elements") or []):
        uid = str(level.get("uid"))
        value = level_value((heights or {}).get(uid), len(found))
        found.append(LevelOutline(uid, value, _box(_points(level))))
    return found


def nearest_in_box(box: Box, x: float, y: float) -> tuple[float, float]:
    """The point of `box` nearest to (x, y): (x, y) itself when inside."""
    x0, y0, x1, y1 = box
    return min(max(x, x0), x1), min(max(y, y0), y1)


def _levels(elements: list[Any]) -> Iterator[dict[str, Any]]:
    """Every Level element, in document order (a Level inside a Level included)."""
    stack = [iter(elements)]
    while stack:
        element = next(stack[-1], None)
        if element is None:
            stack.pop()
            continue
        if not isinstance(element, dict):
            continue
        if element.get("type") == "Level":
            yield element
        nested = element.get("elements")
        if isinstance(nested, list):
            stack.append(iter(nested))


def level_shapes(document: dict[str, Any]) -> list[tuple[str, str, list[list[XY]]]]:
    """Every Level of the document, in document order, as (uid, name, the point lists of
    the areas drawn on it): its own units and hit areas, and the polygons drawn in its
    layers (an IMDF drawing's walkways, stairs and lifts that are only drawn), not the
    level's outline (FOOTPRINT_LEFT_OUT: an outdoor level's outline may take in the
    building), nor a polygon moved by a `transform`. What `parsing.geo.map_frame` makes
    a level's footprint of (issue 65: two levels of one `level` told apart by it)."""
    return [
        (str(level.get("uid")), str(level.get("name") or ""), list(_areas(level)))
        for level in _levels(document.get("elements") or [])
    ]


def _areas(level: dict[str, Any]) -> Iterator[list[XY]]:
    """The points of each area drawn on the level (`level_shapes`), not a nested Level's."""
    for element in _own_elements(level, FOOTPRINT_LEFT_OUT):
        shape = element.get("shape")
        if element.get("type") in OUTLINED and isinstance(shape, dict):
            yield list(parsed_points(shape.get("points")))
        elif element.get("type") == "Polygon" and "transform" not in element:
            yield list(parsed_points(element.get("points")))


def _points(level: dict[str, Any]) -> Iterator[tuple[float, float]]:
    """The shape points of the level's own units and hit areas (not a nested Level's)."""
    for element in _own_elements(level):
        shape = element.get("shape")
        if element.get("type") in OUTLINED and isinstance(shape, dict):
            yield from parsed_points(shape.get("points"))


def _own_elements(
    level: dict[str, Any], left_out: frozenset[str] = frozenset()
) -> Iterator[dict[str, Any]]:
    """Every element drawn on the level, depth first, without a nested Level's nor those
    inside a Layer named in `left_out` (iterative: a deep document recurses no stack)."""
    stack = [iter(level.get("elements") or [])]
    while stack:
        element = next(stack[-1], None)
        if element is None:
            stack.pop()
            continue
        if not isinstance(element, dict) or element.get("type") == "Level":
            continue
        if element.get("type") == "Layer" and element.get("name") in left_out:
            continue
        yield element
        nested = element.get("elements")
        if isinstance(nested, list):
            stack.append(iter(nested))


def parsed_points(points: Any) -> Iterator[tuple[float, float]]:
    """`x,y x,y ...` as the parser writes it; a malformed or non-finite pair is skipped
    (the GeoJSON refuses such a document: it never gets a georeference)."""
    if not isinstance(points, str):
        return
    for pair in points.split():
        x, comma, y = pair.partition(",")
        try:
            xy = float(x), float(y)
        except ValueError:
            continue
        if comma and math.isfinite(xy[0]) and math.isfinite(xy[1]):
            yield xy


def _box(points: Iterator[tuple[float, float]]) -> Box | None:
    xs: list[float] = []
    ys: list[float] = []
    for x, y in points:
        xs.append(x)
        ys.append(y)
    if not xs:
        return None
    return min(xs), min(ys), max(xs), max(ys)
