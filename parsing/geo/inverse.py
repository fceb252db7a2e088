"""WGS84 back to the canvas: the exact inverse of a map's georeference (issue 49).

The stored fit is affine (`georeference.Georeference`: lon = a*x + b*y + c,
lat = d*x + e*y + f), so its inverse is affine too and exact: subtract the offset, then
multiply by the inverse of the 2x2 matrix. The offset is subtracted first, in degrees,
and only then scaled, so no large constant term cancels: the round trip canvas ->
WGS84 -> canvas agrees to about 1e-8 canvas units on building-sized maps.

A fit is never degenerate (`fit_affine` refuses one that squashes the map), so the
determinant is never zero for a stored georeference. Pure: no I/O, no numpy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from parsing.geo.georeference import METRES_PER_DEGREE, Georeference, Transform


@dataclass(frozen=True)
class Inverse:
    """(lon, lat) to canvas (x, y) for one georeference."""

    transform: Transform  # the forward fit, whose inverse this applies
    det: float  # a*e - b*d of the forward matrix

    def apply(self, lon: float, lat: float) -> tuple[float, float]:
        """Canvas (x, y) of a WGS84 position."""
        a, b, c, d, e, f = self.transform
        east, north = lon - c, lat - f
        return (e * east - b * north) / self.det, (a * north - d * east) / self.det


def inverse_of(georeference: Georeference) -> Inverse:
    """The inverse of the fit; ValueError for a singular matrix (never a stored fit)."""
    a, b, _, d, e, _ = georeference.transform
    det = a * e - b * d
    if det == 0.0 or not math.isfinite(det):
        raise ValueError("the georeference is singular: it has no inverse")
    return Inverse(georeference.transform, det)


def metres_per_unit(georeference: Georeference, lat: float) -> tuple[float, float]:
    """The metres one canvas unit spans along x and along y at latitude `lat` (local
    equirectangular, as the residuals): the fit's own scale, to compare with a map's
    `feet_per_unit`."""
    a, b, _, d, e, _ = georeference.transform
    kx = METRES_PER_DEGREE * math.cos(math.radians(lat))
    return math.hypot(a * kx, d * METRES_PER_DEGREE), math.hypot(b * kx, e * METRES_PER_DEGREE)
