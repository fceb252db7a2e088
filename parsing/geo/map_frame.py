"""Where a georeferenced map lies on the earth (issue 49): its fit, the fit's exact
inverse and its levels in level order, each with its indoor= `level`, its name, its
outline (the box around its units and hit areas, widened to its locations) and its
footprint. What a WGS84 waypoint is placed with and a route's GeoJSON is drawn with
(`resolvers.wayfinding.world`). Pure.

Two levels sharing a `level` (an IMDF venue's levels of one ordinal: "Concourse" and
"Concourse Outdoor") lie in each other's boxes, so a box cannot tell them apart; their
footprints can (issue 65, point 5): the union of the areas drawn on the level
(`parsing.geo.level_outlines.level_shapes`) and its locations' points (a place drawn
outside every area is still on its level).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from parsing.geo.georeference import ControlPoint, Georeference, distance_m, fit_affine
from parsing.geo.inverse import Inverse, inverse_of
from parsing.geo.level_outlines import Box, level_outlines, level_shapes, nearest_in_box

if TYPE_CHECKING:  # shapely: loaded by the first WGS84 waypoint, not by a cold start
    from shapely.geometry.base import BaseGeometry

# What one frame holds besides its levels (a fit, its inverse, the dataclasses), each
# level (uid, `level`, name, floor id, box) and each point of a footprint (a coordinate
# in GEOS and its share of the geometry): generous estimates for the cache's budget.
FRAME_BYTES = 2_000
FRAME_LEVEL_BYTES = 800
FOOTPRINT_POINT_BYTES = 40
# A point this close to a level's footprint is on it, and two levels whose distances
# differ by less are as near: the fit's round trip (canvas -> WGS84 -> canvas) moves a
# location's own point by far less.
HELD_WITHIN_M = 0.01


@dataclass(frozen=True)
class FrameLevel:
    """A level of the map in level order (its position is the walk graph's level)."""

    uid: str
    floor_id: str | None
    level: str | None  # indoor= `level`; None for a level the parsed document lacks
    box: Box | None
    name: str = ""  # the drawing's name of the level ("Sun Terrace")
    footprint: BaseGeometry | None = None  # its shapes' union and its locations' points


@dataclass(frozen=True)
class MapFrame:
    """Where a georeferenced map lies on the earth, and its levels."""

    fit: Georeference
    inverse: Inverse
    levels: tuple[FrameLevel, ...]

    @property
    def memory_bytes(self) -> int:
        import shapely

        points = sum(
            int(shapely.get_num_coordinates(level.footprint))
            for level in self.levels
            if level.footprint is not None
        )
        return FRAME_BYTES + FRAME_LEVEL_BYTES * len(self.levels) + FOOTPRINT_POINT_BYTES * points

    def level_names(self) -> list[str]:
        """The distinct `level`s of the map, in numeric order, for a refusal to list."""
        names = {level.level for level in self.levels if level.level is not None}
        return sorted(names, key=lambda text: (_number(text), text))

    def metres_off(self, position: int, lon: float, lat: float) -> float:
        """Metres from (lon, lat) to the level's outline box, 0 inside it or without one."""
        box = self.levels[position].box
        if box is None:
            return 0.0
        x, y = self.inverse.apply(lon, lat)
        near = nearest_in_box(box, x, y)
        if near == (x, y):
            return 0.0
        return distance_m(*self.fit.apply(*near), lon, lat)

    def metres_off_footprint(self, position: int, lon: float, lat: float) -> float:
        """Metres from (lon, lat) to the level's footprint, 0 on it; its box's without one."""
        found = self.levels[position].footprint
        if found is None:
            return self.metres_off(position, lon, lat)
        import shapely

        x, y = self.inverse.apply(lon, lat)
        point = shapely.Point(x, y)
        if found.covers(point):
            return 0.0
        near = shapely.shortest_line(found, point).coords[0]
        return distance_m(*self.fit.apply(near[0], near[1]), lon, lat)


def frame_of(
    document: dict[str, Any],
    points: tuple[tuple[float, float, float, float], ...],
    levels: tuple[tuple[str | None, str | None, int | None], ...],
    locations: Sequence[tuple[str | None, float, float]] = (),
) -> MapFrame:
    """The frame from the parsed document, the control points, the stored levels (uid,
    floor id, height: the heights make the `level`s as the GeoJSON's) and the map's
    locations (floor id, x, y: each widens the outline of its floor's level)."""
    fit = fit_affine([ControlPoint(*point) for point in points])
    heights = {str(uid): height for uid, _, height in levels if isinstance(height, int)}
    outlines = {outline.uid: outline for outline in level_outlines(document, heights)}
    shapes = {uid: (name, found) for uid, name, found in level_shapes(document)}
    framed = []
    for uid, floor_id, _ in levels:
        outline = outlines.get(str(uid))
        drawn = [(x, y) for floor, x, y in locations if floor == floor_id and floor is not None]
        box = None if outline is None else outline.box
        name, own = shapes.get(str(uid), ("", []))
        framed.append(
            FrameLevel(
                str(uid),
                floor_id,
                None if outline is None else outline.level,
                widened(box, drawn),
                name,
                footprint(own, drawn),
            )
        )
    return MapFrame(fit, inverse_of(fit), tuple(framed))


def footprint(
    shapes: Sequence[Sequence[tuple[float, float]]], points: Sequence[tuple[float, float]]
) -> BaseGeometry | None:
    """The union of the shapes (each made valid as stored geometry is, `made_valid`: a bow
    tie still holds its area; fewer than three points, or no area, hold none) and the
    points; None when there are neither."""
    import shapely

    from parsing.geo.valid_shapes import made_valid  # with shapely: not at a cold start

    areas = (made_valid(shapely.Polygon(shape)) for shape in shapes if len(shape) >= 3)
    parts: list[BaseGeometry] = [area for area in areas if area is not None]
    parts += [shapely.Point(x, y) for x, y in points]
    if not parts:
        return None
    union = shapely.union_all(parts)
    shapely.prepare(union)  # covered and measured at every waypoint placed on it
    return union


def widened(box: Box | None, points: Sequence[tuple[float, float]]) -> Box | None:
    """The box around `box` and the points (a place drawn outside every unit, such as a
    pool or a terrace, is still on its level)."""
    xs = [x for x, _ in points] + ([box[0], box[2]] if box else [])
    ys = [y for _, y in points] + ([box[1], box[3]] if box else [])
    return (min(xs), min(ys), max(xs), max(ys)) if xs else None


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        return math.inf
    return value if math.isfinite(value) else math.inf
