"""Where a georeferenced map lies on the earth (issue 49): its fit, the fit's exact
inverse and its levels in level order, each with its indoor= `level` and outline (the
box around its units and hit areas, widened to its locations). What a WGS84 waypoint is
placed with and a route's GeoJSON is drawn with (`resolvers.wayfinding.world`). Pure.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from parsing.geo.georeference import ControlPoint, Georeference, distance_m, fit_affine
from parsing.geo.inverse import Inverse, inverse_of
from parsing.geo.level_outlines import Box, level_outlines, nearest_in_box

# What one frame holds besides its levels (a fit, its inverse, the dataclasses), and
# each level (uid, `level`, floor id, box): generous estimates for the cache's budget.
FRAME_BYTES = 2_000
FRAME_LEVEL_BYTES = 600


@dataclass(frozen=True)
class FrameLevel:
    """A level of the map in level order (its position is the walk graph's level)."""

    uid: str
    floor_id: str | None
    level: str | None  # indoor= `level`; None for a level the parsed document lacks
    box: Box | None


@dataclass(frozen=True)
class MapFrame:
    """Where a georeferenced map lies on the earth, and its levels."""

    fit: Georeference
    inverse: Inverse
    levels: tuple[FrameLevel, ...]

    @property
    def memory_bytes(self) -> int:
        return FRAME_BYTES + FRAME_LEVEL_BYTES * len(self.levels)

    def level_names(self) -> list[str]:
        """The distinct `level`s of the map, in numeric order, for a refusal to list."""
        names = {level.level for level in self.levels if level.level is not None}
        return sorted(names, key=lambda text: (_number(text), text))

    def metres_off(self, position: int, lon: float, lat: float) -> float:
        """Metres from (lon, lat) to the level's outline, 0 inside it or without one."""
        box = self.levels[position].box
        if box is None:
            return 0.0
        x, y = self.inverse.apply(lon, lat)
        near = nearest_in_box(box, x, y)
        if near == (x, y):
            return 0.0
        return distance_m(*self.fit.apply(*near), lon, lat)


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
    framed = []
    for uid, floor_id, _ in levels:
        outline = outlines.get(str(uid))
        drawn = [(x, y) for floor, x, y in locations if floor == floor_id and floor is not None]
        box = None if outline is None else outline.box
        framed.append(
            FrameLevel(
                str(uid),
                floor_id,
                None if outline is None else outline.level,
                widened(box, drawn),
            )
        )
    return MapFrame(fit, inverse_of(fit), tuple(framed))


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
