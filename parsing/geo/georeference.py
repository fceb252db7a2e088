"""Georeference of a unit map: an affine fit from canvas pixels to WGS84 lon/lat.

Pure Python on purpose (no numpy at runtime): at most a few dozen control points,
and the fit must give the same numbers wherever the import runs.

Residuals are in metres with a local equirectangular approximation: one degree of
latitude is 111 320 m and one degree of longitude 111 320 m x cos(latitude), taken
at the mean latitude of the two positions compared. For the metre-scale distances
of a control-point residual this differs from haversine by far less than a
millimetre.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

METRES_PER_DEGREE = 111_320.0
# The smaller principal spread of the canvas points (and of the fitted transform,
# in metres) must be at least this fraction of the larger one. Three points on a
# 1000 px baseline then need a third point at least ~9 px off the line: below
# that, a pixel of clicking error moves the map's scale across the line by >10 %.
MIN_SPREAD_RATIO = 1e-2
MIN_POINTS = 3

Transform = tuple[float, float, float, float, float, float]


class GeoreferenceError(ValueError):
    """Control points that give no usable fit.

    `path` (such as `control_points[2].lat`) is relative to the georeference
    object, so the import can prefix the JSON path of its map record.
    """

    def __init__(self, message: str, path: str | None = None) -> None:
        self.message = message
        self.path = path
        super().__init__(str(self))

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


@dataclass(frozen=True)
class ControlPoint:
    """One canvas pixel (x right, y down) and where it is on Earth."""

    x: float
    y: float
    lon: float
    lat: float


@dataclass(frozen=True)
class Georeference:
    """lon = a*x + b*y + c, lat = d*x + e*y + f, with the fit's residuals for the report."""

    transform: Transform
    rms_residual_m: float
    max_residual_m: float
    points: int

    def apply(self, x: float, y: float) -> tuple[float, float]:
        """Canvas (x, y) to (lon, lat)."""
        a, b, c, d, e, f = self.transform
        return a * x + b * y + c, d * x + e * y + f

    def summary(self) -> str:
        """The import report's line, so an operator sees how well the points agree."""
        return (
            f"georeference: affine fit of {self.points} control points, "
            f"residual RMS {self.rms_residual_m:.2f} m, max {self.max_residual_m:.2f} m"
        )


def fit_affine(points: Sequence[ControlPoint]) -> Georeference:
    """Least-squares affine transform through the control points.

    Raises GeoreferenceError when the points cannot determine a sensible fit.
    """
    if len(points) < MIN_POINTS:
        raise GeoreferenceError(
            f"at least {MIN_POINTS} control points are needed, got {len(points)}",
            "control_points",
        )
    clean = [_checked(point, index) for index, point in enumerate(points)]
    _check_distinct(clean)
    _check_longitude_span(clean)
    _check_spread(clean)
    transform = _solve(clean)
    _check_transform(transform, clean)
    residuals = [_residual_m(transform, point) for point in clean]
    rms = math.sqrt(math.fsum(r * r for r in residuals) / len(residuals))
    return Georeference(transform, rms, max(residuals), len(clean))


def distance_m(lon1: float, lat1: float, lon2: float, lat2: float) -> float:
    """Equirectangular distance in metres, accurate for the short distances compared here."""
    east = (lon2 - lon1) * METRES_PER_DEGREE * math.cos(math.radians((lat1 + lat2) / 2))
    return math.hypot(east, (lat2 - lat1) * METRES_PER_DEGREE)


def _checked(point: ControlPoint, index: int) -> ControlPoint:
    """A copy with plain floats, or the first problem of this point."""
    values = {}
    for field in ("x", "y", "lon", "lat"):
        value = getattr(point, field)
        path = f"control_points[{index}].{field}"
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise GeoreferenceError(f"must be a number, not {type(value).__name__}", path)
        if not math.isfinite(value):
            raise GeoreferenceError(f"must be a finite number, not {value}", path)
        values[field] = float(value)
    if not -180.0 <= values["lon"] <= 180.0:
        raise GeoreferenceError(
            f"longitude {values['lon']} is outside [-180, 180]", f"control_points[{index}].lon"
        )
    if not -90.0 <= values["lat"] <= 90.0:
        raise GeoreferenceError(
            f"latitude {values['lat']} is outside [-90, 90]", f"control_points[{index}].lat"
        )
    return ControlPoint(**values)


def _check_distinct(points: list[ControlPoint]) -> None:
    """Two control points on one pixel say nothing new, or contradict each other."""
    seen: dict[tuple[float, float], int] = {}
    for index, point in enumerate(points):
        first = seen.setdefault((point.x, point.y), index)
        if first != index:
            raise GeoreferenceError(
                f"canvas point ({point.x:g}, {point.y:g}) is the same as control_points[{first}]",
                f"control_points[{index}]",
            )


def _check_longitude_span(points: list[ControlPoint]) -> None:
    """An affine in longitude cannot cross the antimeridian; a map never spans 180 degrees."""
    west = min(point.lon for point in points)
    east = max(point.lon for point in points)
    if east - west > 180.0:
        raise GeoreferenceError(
            f"control points span longitudes {west} to {east}, more than 180 degrees; "
            "a map across the antimeridian (longitude 180) is not supported",
            "control_points",
        )


def _centred(points: list[ControlPoint]) -> tuple[float, float, list[tuple[float, float]]]:
    """Centroid and canvas offsets from it: centring keeps the normal equations well scaled."""
    mx = math.fsum(p.x for p in points) / len(points)
    my = math.fsum(p.y for p in points) / len(points)
    return mx, my, [(p.x - mx, p.y - my) for p in points]


def _moments(offsets: list[tuple[float, float]]) -> tuple[float, float, float]:
    """Sxx, Syy, Sxy of the centred canvas points."""
    sxx = math.fsum(u * u for u, _ in offsets)
    syy = math.fsum(v * v for _, v in offsets)
    sxy = math.fsum(u * v for u, v in offsets)
    return sxx, syy, sxy


def _singular_ratio(m11: float, m12: float, m21: float, m22: float) -> float:
    """Smaller over larger singular value of [[m11, m12], [m21, m22]]; 0 for the zero matrix.

    Scale-free, so one threshold serves pixels, degrees and metres alike.
    """
    scale = max(abs(m11), abs(m12), abs(m21), abs(m22))
    if scale == 0.0:
        return 0.0
    m11, m12, m21, m22 = m11 / scale, m12 / scale, m21 / scale, m22 / scale
    squares = m11 * m11 + m12 * m12 + m21 * m21 + m22 * m22  # sigma1^2 + sigma2^2
    det = abs(m11 * m22 - m12 * m21)  # sigma1 * sigma2
    larger2 = (squares + math.sqrt(max(squares * squares - 4 * det * det, 0.0))) / 2
    return det / larger2


def _check_spread(points: list[ControlPoint]) -> None:
    """Refuse canvas points on (or nearly on) one line: the fit across it would be a guess."""
    _, _, offsets = _centred(points)
    sxx, syy, sxy = _moments(offsets)
    # The principal spreads are the square roots of the scatter matrix's eigenvalues.
    if math.sqrt(_singular_ratio(sxx, sxy, sxy, syy)) < MIN_SPREAD_RATIO:
        raise GeoreferenceError(
            "the canvas points are collinear or nearly so: their spread across the line "
            f"through them is below {MIN_SPREAD_RATIO:g} of their spread along it",
            "control_points",
        )


def _solve(points: list[ControlPoint]) -> Transform:
    """Normal equations on centred coordinates, one 2x2 system per output coordinate."""
    mx, my, offsets = _centred(points)
    sxx, syy, sxy = _moments(offsets)
    det = sxx * syy - sxy * sxy
    coefficients: list[float] = []
    for target in ([p.lon for p in points], [p.lat for p in points]):
        mean = math.fsum(target) / len(target)
        sxt = math.fsum(u * (t - mean) for (u, _), t in zip(offsets, target, strict=True))
        syt = math.fsum(v * (t - mean) for (_, v), t in zip(offsets, target, strict=True))
        a = (syy * sxt - sxy * syt) / det
        b = (sxx * syt - sxy * sxt) / det
        coefficients += [a, b, mean - a * mx - b * my]
    a, b, c, d, e, f = coefficients
    return a, b, c, d, e, f


def _check_transform(transform: Transform, points: list[ControlPoint]) -> None:
    """Refuse a fit that squashes the map onto a line or a point (lon/lat collinear or equal)."""
    a, b, _, d, e, _ = transform
    mean_lat = math.fsum(p.lat for p in points) / len(points)
    kx = METRES_PER_DEGREE * math.cos(math.radians(mean_lat))
    ky = METRES_PER_DEGREE
    if _singular_ratio(a * kx, b * kx, d * ky, e * ky) < MIN_SPREAD_RATIO:
        raise GeoreferenceError(
            "the fitted transform is degenerate (determinant ~0): the control points' "
            "lon/lat are equal or collinear, so the map would collapse onto a line or a point",
            "control_points",
        )


def _residual_m(transform: Transform, point: ControlPoint) -> float:
    """Metres between where the fit puts a control point and where the operator put it."""
    a, b, c, d, e, f = transform
    lon = a * point.x + b * point.y + c
    lat = d * point.x + e * point.y + f
    return distance_m(lon, lat, point.lon, point.lat)
