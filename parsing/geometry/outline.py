"""Shapes to canvas polylines: rects (rounded too), circles, ellipses, lines, polylines,
polygons and paths (their data read and flattened by `parsing.geometry.path_data`).

Coordinates travel as flat lists `[x0, y0, x1, y1, ...]` of floats: no per-point objects.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from parsing.errors import SvgError
from parsing.geometry.numbers import (
    parse_length,
    parse_number_list,
    round_all,
    transform_round,
    translate_round,
)
from parsing.geometry.path_data import (
    TAU,
    PointBudget,
    Polyline,
    Subpath,
    arc_points,
    flatten,
    moved_to_origin,
    parse_path,
)
from parsing.geometry.transform import Matrix, multiply, translation

# ---------------------------------------------------------------- basic shapes


def parse_points(text: str, budget: PointBudget) -> list[float]:
    """A `points` attribute (polygon, polyline) as a flat list, in its own coordinates."""
    coords = parse_number_list(text, "points")
    if len(coords) % 2:
        raise SvgError("points has an odd number of coordinates")
    budget.take(len(coords) // 2)
    return coords


def rect_outline(
    x: float,
    y: float,
    width: float,
    height: float,
    rx: float,
    ry: float,
    m: Matrix,
    budget: PointBudget,
) -> list[float]:
    """A rect with rounded corners (rx, ry > 0, no side of length 0; `Outliner` writes
    the plain ones itself) clockwise on screen from (x + rx, y), the corners flattened,
    rx/ry clamped to half the side as SVG says. In the document's numbers."""
    rx, ry = min(rx, width / 2), min(ry, height / 2)
    right, bottom = x + width, y + height
    a, b, c, d, e, f = m
    half = math.pi / 2
    # Per corner: where its arc starts, its centre, its start angle, where it ends.
    corners = (
        (right - rx, y, right - rx, y + ry, -half, right, y + ry),
        (right, bottom - ry, right - rx, bottom - ry, 0.0, right - rx, bottom),
        (x + rx, bottom, x + rx, bottom - ry, half, x, bottom - ry),
        (x, y + ry, x + rx, y + ry, math.pi, x + rx, y),
    )
    current_x, current_y = x + rx, y
    out = [a * current_x + c * current_y + e, b * current_x + d * current_y + f]
    for index, (sx, sy, cx, cy, angle, ex, ey) in enumerate(corners):
        if sx != current_x or sy != current_y:  # the straight edge before the corner
            out.append(a * sx + c * sy + e)
            out.append(b * sx + d * sy + f)
        arc_points(out, m, cx, cy, rx, ry, 1.0, 0.0, angle, half, budget, 0)
        if index < 3:  # the last corner ends where the outline started
            out.append(a * ex + c * ey + e)
            out.append(b * ex + d * ey + f)
        current_x, current_y = ex, ey
    budget.take(len(out) // 2)
    return round_all(out)


def ellipse_outline(
    cx: float, cy: float, rx: float, ry: float, m: Matrix, budget: PointBudget
) -> list[float]:
    """A circle or ellipse from angle 0 (cx + rx, cy), clockwise on screen (y down), in
    the document's numbers."""
    out: list[float] = []
    arc_points(out, m, cx, cy, rx, ry, 1.0, 0.0, 0.0, TAU, budget, 0, full=True)
    budget.take(len(out) // 2)
    return round_all(out)


# ---------------------------------------------------------------- elements


class Outliner:
    """An element's geometry as canvas polylines, with the caches of one document."""

    def __init__(self, budget: PointBudget) -> None:
        self.budget = budget
        self._paths: dict[str, list[Subpath]] = {}
        # (d, linear part of the matrix) -> flattened polylines and their point count
        self._flattened: dict[tuple[str, float, float, float, float], tuple[list[Polyline], int]]
        self._flattened = {}
        # d -> moved_to_origin(d)
        self._moved: dict[str, tuple[str, float | None, float | None]] = {}

    def outlines(self, kind: str, attributes: dict[str, str], m: Matrix) -> list[Polyline]:
        """Polylines of a shape, image (its box) or text (its anchor, the first x/y),
        `m` applied, in the document's numbers (3 decimals, range-checked); a path may
        give several, one per subpath."""
        get = attributes.get
        budget = self.budget
        if kind == "path":
            return self._path(get("d") or "", m)
        if kind == "polygon" or kind == "polyline":
            coords = parse_points(get("points") or "", budget)
            return [(transform_round(coords, m), kind == "polygon")]
        if kind == "line":
            coords = [
                parse_length(get("x1"), "x1"),
                parse_length(get("y1"), "y1"),
                parse_length(get("x2"), "x2"),
                parse_length(get("y2"), "y2"),
            ]
            budget.take(2)
            return [(transform_round(coords, m), False)]
        if kind == "text":
            xs = parse_number_list(get("x") or "0", "x")
            ys = parse_number_list(get("y") or "0", "y")
            budget.take(1)
            return [(transform_round([xs[0] if xs else 0.0, ys[0] if ys else 0.0], m), False)]
        if kind == "rect" or kind == "image":
            width = _non_negative(get("width"), "width")
            height = _non_negative(get("height"), "height")
            rx, ry = _radii(get) if kind == "rect" else (0.0, 0.0)
            x, y = parse_length(get("x"), "x"), parse_length(get("y"), "y")
            if rx <= 0 or ry <= 0 or width == 0 or height == 0:
                budget.take(4)
                right, bottom = x + width, y + height
                return [(transform_round([x, y, right, y, right, bottom, x, bottom], m), True)]
            return [(rect_outline(x, y, width, height, rx, ry, m, budget), True)]
        # circle, ellipse
        if kind == "circle":
            rx = ry = _non_negative(get("r"), "r")
        else:
            rx, ry = _radii(get)
        cx, cy = parse_length(get("cx"), "cx"), parse_length(get("cy"), "cy")
        return [(ellipse_outline(cx, cy, rx, ry, m, budget), True)]

    def _path(self, d: str, m: Matrix) -> list[Polyline]:
        """Parsed once per shape, flattened once per (shape, linear part of `m`), then
        only moved: maps draw the same unit outline many times, placed by translations.
        (Always flattening without the translation keeps the numbers identical whether
        the cache hits or not.)

        A path whose only absolute command is its first moveto (as Inkscape writes
        them: `m 120.5,80 h 160 v 140 ...`) is the same shape wherever it starts: it
        is parsed from the origin and its start joins the matrix."""
        moved = self._moved.get(d)
        if moved is None:
            moved = self._moved[d] = moved_to_origin(d)
        shape, tx, ty = moved
        if tx is not None and ty is not None:
            m = multiply(m, translation(tx, ty))
        a, b, c, d_, e, f = m
        key = (shape, a, b, c, d_)
        cached = self._flattened.get(key)
        if cached is None:
            subpaths = self._paths.get(shape)
            if subpaths is None:
                try:
                    subpaths = parse_path(shape)
                except SvgError:
                    parse_path(d)  # the message (and character position) of what was written
                    raise
                self._paths[shape] = subpaths
            polylines = flatten(subpaths, (a, b, c, d_, 0.0, 0.0), self.budget)
            cached = (polylines, sum(len(coords) for coords, _ in polylines) // 2)
            self._flattened[key] = cached
        polylines, count = cached
        self.budget.take(count)
        if len(polylines) == 1:
            coords, closed = polylines[0]
            return [(translate_round(coords, e, f), closed)]
        return [(translate_round(coords, e, f), closed) for coords, closed in polylines]


def _radii(get: Callable[[str], str | None]) -> tuple[float, float]:
    """A rect's or ellipse's rx, ry: either one alone stands for both (SVG's `auto`)."""
    rx_text, ry_text = get("rx"), get("ry")
    rx = _non_negative(rx_text if rx_text is not None else ry_text, "rx")
    ry = _non_negative(ry_text if ry_text is not None else rx_text, "ry")
    return rx, ry


def _non_negative(text: str | None, what: str) -> float:
    value = parse_length(text, what)
    if value < 0:
        raise SvgError(f"{what} must not be negative")
    return value
