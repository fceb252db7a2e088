"""From IMDF's WGS84 to a map canvas and back (issue 19).

A venue is projected to a local transverse Mercator plane centred on it (pyproj, on
the WGS84 ellipsoid): over a building its scale error is below a millionth, so
distances in the plane are metres. The canvas is that plane scaled and flipped (y
down, SVG's way); the map's georeference is the canvas's corners and centre taken back
through the projection, which floorgate's affine fit (`parsing.geo.georeference`) then
reproduces to millimetres over a few hundred metres.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import shapely
from pyproj import Transformer
from shapely.geometry.base import BaseGeometry

from parsing.measures import METRES_PER_FOOT

METRES_PER_UNIT = 0.05  # canvas scale: walk-graph joins (0.5 units) are 2.5 cm
MARGIN_UNITS = 200  # empty canvas around the venue (10 m)


@dataclass(frozen=True)
class LocalPlane:
    """Metres east (x) and north (y) of (`lon0`, `lat0`)."""

    lon0: float
    lat0: float

    @cached_property
    def _forward(self) -> Transformer:
        return Transformer.from_crs("EPSG:4326", self._crs, always_xy=True)

    @cached_property
    def _inverse(self) -> Transformer:
        return Transformer.from_crs(self._crs, "EPSG:4326", always_xy=True)

    @property
    def _crs(self) -> str:
        return (
            f"+proj=tmerc +lat_0={self.lat0!r} +lon_0={self.lon0!r} +k=1 +x_0=0 +y_0=0 "
            "+ellps=WGS84 +units=m +no_defs"
        )

    def to_plane(self, geometry: dict[str, Any]) -> BaseGeometry:
        """A GeoJSON geometry (lon, lat) as a shapely geometry in metres."""
        shape = shapely.geometry.shape(geometry)
        return shapely.transform(shape, lambda xy: _stacked(self._forward.transform(*xy.T)))

    def point(self, lon: float, lat: float) -> tuple[float, float]:
        x, y = self._forward.transform(lon, lat)
        return (float(x), float(y))

    def lon_lat(self, x: float, y: float) -> tuple[float, float]:
        lon, lat = self._inverse.transform(x, y)
        return (float(lon), float(lat))


def _stacked(xy: tuple[Any, Any]) -> Any:
    import numpy as np

    return np.column_stack(xy)


def plane_for(geometries: Iterable[dict[str, Any]]) -> LocalPlane:
    """A plane centred on the bounding box of the geometries (lon, lat)."""
    bounds = shapely.total_bounds([shapely.geometry.shape(g) for g in geometries])
    return LocalPlane(float(bounds[0] + bounds[2]) / 2, float(bounds[1] + bounds[3]) / 2)


@dataclass(frozen=True)
class Canvas:
    """The plane (metres) as SVG canvas units: scaled, y down, with a margin."""

    min_x: float
    max_y: float
    width: int
    height: int
    metres_per_unit: float = METRES_PER_UNIT

    @classmethod
    def around(
        cls, bounds: tuple[float, float, float, float], metres_per_unit: float = METRES_PER_UNIT
    ) -> Canvas:
        min_x, min_y, max_x, max_y = bounds
        margin = MARGIN_UNITS * metres_per_unit
        width = int((max_x - min_x + 2 * margin) / metres_per_unit) + 1
        height = int((max_y - min_y + 2 * margin) / metres_per_unit) + 1
        return cls(min_x - margin, max_y + margin, width, height, metres_per_unit)

    @property
    def feet_per_unit(self) -> float:
        return self.metres_per_unit / METRES_PER_FOOT

    def xy(self, x: float, y: float) -> tuple[float, float]:
        return ((x - self.min_x) / self.metres_per_unit, (self.max_y - y) / self.metres_per_unit)

    def plane(self, u: float, v: float) -> tuple[float, float]:
        return (self.min_x + u * self.metres_per_unit, self.max_y - v * self.metres_per_unit)

    def control_points(self, plane: LocalPlane) -> list[dict[str, float]]:
        """The canvas's corners and centre with their WGS84 positions."""
        corners = [
            (0.0, 0.0),
            (self.width, 0.0),
            (self.width, self.height),
            (0.0, self.height),
            (self.width / 2, self.height / 2),
        ]
        points = []
        for u, v in corners:
            lon, lat = plane.lon_lat(*self.plane(u, v))
            points.append(
                {"x": float(u), "y": float(v), "lon": round(lon, 9), "lat": round(lat, 9)}
            )
        return points
