"""The root's canvas: its integer size, its scale (feet per unit) and viewBox mappings."""

from __future__ import annotations

import math
import re

from lxml import etree

from parsing.errors import SvgError
from parsing.geometry.numbers import (
    COORDINATE_LIMIT,
    NUMBER,
    parse_length,
    parse_number,
    parse_number_list,
)
from parsing.geometry.transform import IDENTITY, Matrix, translation

_DIMENSION = re.compile(rf"\s*({NUMBER})[a-zA-Z]*\s*")
_ASPECT = re.compile(
    r"\s*(?:defer\s+)?(none|x(?:Min|Mid|Max)Y(?:Min|Mid|Max))(?:\s+(meet|slice))?\s*"
)


def canvas_size(root: etree._Element) -> tuple[int, int]:
    """Integer width/height: the root's width/height with any unit stripped ("1200px" is
    1200), else the viewBox's; "100%" and "auto" fall back to the viewBox too. Halves
    round up."""
    width = _dimension(root, "width")
    height = _dimension(root, "height")
    if width is None or height is None:
        viewbox = root.get("viewBox")
        if viewbox is None:
            raise SvgError("the <svg> needs width and height, or a viewBox", root.sourceline)
        try:
            values = parse_viewbox(viewbox)
        except SvgError as error:
            raise SvgError(error.message, root.sourceline) from None
        width = values[2] if width is None else width
        height = values[3] if height is None else height
    return math.floor(width + 0.5), math.floor(height + 0.5)


def _dimension(root: etree._Element, what: str) -> float | None:
    text = root.get(what)
    if text is None:
        return None
    stripped = text.strip()
    if stripped in ("", "auto") or stripped.endswith("%"):
        return None
    match = _DIMENSION.fullmatch(text)
    if match is None:
        raise SvgError(f'the <svg> {what} is not a length: "{text[:40]}"', root.sourceline)
    value = float(match.group(1))
    if not 0 <= value < COORDINATE_LIMIT:
        raise SvgError(f"the <svg> {what} is out of range", root.sourceline)
    return value


def feet_per_unit(root: etree._Element) -> float:
    """`data-feet-per-unit` on the root (default 1): positive and finite."""
    text = root.get("data-feet-per-unit")
    if text is None:
        return 1.0
    try:
        value = parse_number(text, "data-feet-per-unit")
    except SvgError as error:
        raise SvgError(error.message, root.sourceline) from None
    if value <= 0:
        raise SvgError("data-feet-per-unit must be positive", root.sourceline)
    return value


def parse_viewbox(text: str) -> list[float]:
    values = parse_number_list(text, "viewBox")
    if len(values) != 4 or values[2] < 0 or values[3] < 0:
        raise SvgError(f'viewBox must be "min-x min-y width height": "{text[:60]}"')
    if max(abs(value) for value in values) >= COORDINATE_LIMIT:
        raise SvgError("viewBox is out of range")
    return values


def viewbox_matrix(
    viewbox: str | None,
    aspect: str | None,
    width: str | float | None,
    height: str | float | None,
) -> Matrix:
    """A `symbol`'s viewBox onto the viewport a `use` gives it (preserveAspectRatio,
    default "xMidYMid meet"). Without a viewport size the viewBox only moves the origin."""
    if viewbox is None:
        return IDENTITY
    min_x, min_y, box_w, box_h = parse_viewbox(viewbox)
    if isinstance(width, str):
        width = parse_length(width, "width")
    if isinstance(height, str):
        height = parse_length(height, "height")
    if width is None or height is None or box_w == 0 or box_h == 0:
        return translation(-min_x, -min_y)
    sx, sy = width / box_w, height / box_h
    match = _ASPECT.fullmatch(aspect or "xMidYMid meet")
    align, slice_ = (match.group(1), match.group(2) == "slice") if match else ("xMidYMid", False)
    if align != "none":
        sx = sy = max(sx, sy) if slice_ else min(sx, sy)
    tx, ty = -min_x * sx, -min_y * sy
    if align != "none":
        if "xMid" in align:
            tx += (width - box_w * sx) / 2
        elif "xMax" in align:
            tx += width - box_w * sx
        if "YMid" in align:
            ty += (height - box_h * sy) / 2
        elif "YMax" in align:
            ty += height - box_h * sy
    return (sx, 0.0, 0.0, sy, tx, ty)
