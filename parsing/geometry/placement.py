"""Where a unit's location stands (docs/unit-map-svg.md): the area centroid of its shape,
or, where that falls outside the shape, its pole of inaccessibility."""

from __future__ import annotations

from collections.abc import Sequence

import shapely
from shapely.geometry import MultiPolygon, Polygon
from shapely.ops import polylabel

from parsing.geometry.numbers import round3

POLE_TOLERANCE = 0.1  # canvas units
XY = tuple[float, float]


def _area(points: Sequence[XY], holes: Sequence[Sequence[XY]] = ()) -> Polygon | None:
    """The shape as one valid polygon (the largest part of a self-crossing one)."""
    if len(points) < 3:
        return None
    polygon = Polygon(points, [hole for hole in holes if len(hole) >= 3])
    if not polygon.is_valid:
        fixed = shapely.make_valid(polygon)
        parts = [g for g in getattr(fixed, "geoms", [fixed]) if isinstance(g, Polygon)]
        parts += [p for g in parts if isinstance(g, MultiPolygon) for p in g.geoms]
        polygon = max(parts, key=lambda part: part.area, default=None)
    return polygon if polygon is not None and polygon.area > 0 else None


def label_point(points: Sequence[XY], holes: Sequence[Sequence[XY]] = ()) -> XY:
    """The location point of a unit outline less its holes (docs/svg-parsing.md,
    "Holes"; canvas coordinates, 3 decimals): a courtyard's centre is no place in it."""
    polygon = _area(points, holes)
    if polygon is None:  # no area: the mean of its points
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        return round3(sum(xs) / len(xs)), round3(sum(ys) / len(ys))
    centroid = polygon.centroid
    if not polygon.contains(centroid):
        centroid = polylabel(polygon, tolerance=POLE_TOLERANCE)
    return round3(centroid.x), round3(centroid.y)
