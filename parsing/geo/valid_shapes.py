"""Geometry made valid where it is stored and where tiles cut it (issue 65, point 1):
GEOS's overlay refuses an invalid polygon ("TopologyException: side location conflict"),
and a polygon valid where it was drawn can become invalid when its coordinates are
rounded (a spike folded back onto itself, a hole meeting its shell at a crossing), so
validity is checked after the last rounding and repaired here, in one way for both."""

from __future__ import annotations

import shapely
from shapely.geometry import MultiPolygon, Polygon
from shapely.geometry.base import BaseGeometry

POLYGONAL = frozenset({"Polygon", "MultiPolygon"})
LINEAR = frozenset({"LineString", "MultiLineString"})
# A part smaller than a 10 cm square (m²): what a repair leaves of a fold or a spike
# (Westport's repaired walkways keep slivers of a few mm²); nobody stands there.
SLIVER_M2 = 0.01


def of_kind(shape: BaseGeometry, kind: str) -> BaseGeometry | None:
    """The parts of `shape` of the kind `kind` names (a polygon's polygons, a line's
    lines, a point's points), as one geometry; None when it has none with extent."""
    wanted = POLYGONAL if kind in POLYGONAL else LINEAR if kind in LINEAR else {kind}
    parts = [part for part in getattr(shape, "geoms", [shape]) if part.geom_type in wanted]
    parts = [part for part in parts if not part.is_empty]
    if kind in POLYGONAL:
        parts = [part for part in parts if part.area > 0]
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0]
    return shapely.union_all(parts) if kind in POLYGONAL else shapely.multilinestrings(parts)


def made_valid(shape: BaseGeometry, grid: float = 0.0) -> BaseGeometry | None:
    """`shape` valid and of its own kind: a self-crossing ring becomes the parts it
    encloses (a bow-tie two triangles), a collapsed part (a spike, a sliver with no
    area) goes; snapped to a grid of `grid` units when given, so that the coordinates
    written are those checked. None when nothing valid of its kind is left."""
    kind = shape.geom_type
    fixed = of_kind(shapely.make_valid(shape, method="structure", keep_collapsed=False), kind)
    if fixed is not None and grid > 0:
        fixed = of_kind(shapely.set_precision(fixed, grid), kind)
    if fixed is None or not fixed.is_valid:
        return None
    return fixed


def parts_of(shape: BaseGeometry, min_area: float = 0.0) -> list[Polygon]:
    """The polygons of a Polygon or MultiPolygon, largest first (equals in written
    order), without those smaller than `min_area` but for the largest; [] for another
    kind of shape or one with no area."""
    if isinstance(shape, Polygon):
        found = [shape]
    elif isinstance(shape, MultiPolygon):
        found = list(shape.geoms)
    else:
        return []
    found = sorted((part for part in found if part.area > 0), key=lambda part: -part.area)
    return found[:1] + [part for part in found[1:] if part.area >= min_area]


def reason(shape: BaseGeometry) -> str:
    """Why GEOS finds `shape` invalid, lower case, where (`self-intersection at 5.7327467
    45.1591568`: its coordinates to 7 decimals, a centimetre in degrees)."""
    text = str(shapely.is_valid_reason(shape))
    what, bracket, where = text.partition("[")
    what = what.strip().lower()
    if not bracket:
        return what
    try:
        at = " ".join(repr(round(float(value), 7)) for value in where.rstrip("]").split())
    except ValueError:
        at = where.rstrip("]")
    return f"{what} at {at}"
