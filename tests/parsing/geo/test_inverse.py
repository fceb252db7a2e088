"""The exact inverse of a map's georeference (`parsing.geo.inverse`) and the levels'
outlines (`parsing.geo.level_outlines`): round trips canvas -> WGS84 -> canvas within
1e-6 canvas units on fits north-up, rotated, mirrored, sheared and least-squares."""

from __future__ import annotations

import math
import random

import pytest

from parsing.geo.georeference import ControlPoint, Georeference, fit_affine
from parsing.geo.inverse import inverse_of, metres_per_unit
from parsing.geo.level_outlines import LevelOutline, level_outlines, nearest_in_box

LON0, LAT0 = -122.3425, 47.6062
DEG = 1 / 111_320  # degrees of latitude per metre


def fitted(
    turn_deg: float, scale_m: float, mirror: bool = False, shear: float = 0.0
) -> Georeference:
    """A fit through four corners of a 1000 x 600 canvas: turned, scaled (metres per
    unit), optionally mirrored (canvas y up instead of down) and sheared."""
    turn = math.radians(turn_deg)
    points = []
    for x, y in ((0, 0), (1000, 0), (1000, 600), (0, 600)):
        v = -y if not mirror else y  # canvas y points down: north is -y
        u = x + shear * v
        east = scale_m * (u * math.cos(turn) - v * math.sin(turn))
        north = scale_m * (u * math.sin(turn) + v * math.cos(turn))
        lon = LON0 + east * DEG / math.cos(math.radians(LAT0))
        points.append(ControlPoint(x, y, lon, LAT0 + north * DEG))
    return fit_affine(points)


FITS = {
    "north-up": fitted(0, 0.0762),
    "rotated 20": fitted(20, 0.0762),
    "rotated 200": fitted(200, 0.3),
    "mirrored": fitted(35, 0.05, mirror=True),
    "sheared": fitted(-70, 0.1, shear=0.2),
}


@pytest.mark.parametrize("name", list(FITS))
def test_round_trip_within_a_millionth_of_a_unit(name):
    fit = FITS[name]
    back = inverse_of(fit)
    rng = random.Random(49)
    for _ in range(2000):
        x, y = rng.uniform(-500, 1500), rng.uniform(-400, 1000)
        bx, by = back.apply(*fit.apply(x, y))
        assert abs(bx - x) <= 1e-6 and abs(by - y) <= 1e-6, (name, x, y, bx, by)


def test_the_inverse_of_a_least_squares_fit_inverts_the_fit_not_the_points():
    """Four points that disagree by 30 cm: the inverse gives back the canvas point the fit
    put on the earth (exact), not the control point's own pixel."""
    points = [
        ControlPoint(0, 0, LON0, LAT0),
        ControlPoint(1000, 0, LON0 + 0.001, LAT0),
        ControlPoint(1000, 600, LON0 + 0.001, LAT0 - 0.0004),
        ControlPoint(0, 600, LON0 + 0.0000040, LAT0 - 0.0004),
    ]
    fit = fit_affine(points)
    assert fit.max_residual_m > 0.05
    back = inverse_of(fit)
    for point in points:
        x, y = back.apply(*fit.apply(point.x, point.y))
        assert (abs(x - point.x), abs(y - point.y)) < (1e-6, 1e-6)
        off = back.apply(point.lon, point.lat)
        assert math.dist(off, (point.x, point.y)) > 0.1  # the residual, in canvas units


def test_exact_values_on_a_dyadic_fit():
    """lon = 13.25 + x/65536, lat = 52.5 - y/65536: the inverse is exact in binary."""
    k = 2.0**-16
    fit = Georeference((k, 0.0, 13.25, 0.0, -k, 52.5), 0.0, 0.0, 3)
    back = inverse_of(fit)
    assert back.apply(13.25 + 256 * k, 52.5 - 512 * k) == (256.0, 512.0)
    assert back.apply(13.25, 52.5) == (0.0, 0.0)


def test_a_singular_transform_has_no_inverse():
    with pytest.raises(ValueError, match="singular"):
        inverse_of(Georeference((1.0, 2.0, 0.0, 2.0, 4.0, 0.0), 0.0, 0.0, 3))


def test_metres_per_unit_is_the_fits_scale():
    across, down = metres_per_unit(FITS["rotated 20"], LAT0)
    assert across == pytest.approx(0.0762, rel=1e-6)
    assert down == pytest.approx(0.0762, rel=1e-6)


DOCUMENT = {
    "elements": [
        {
            "type": "Level",
            "uid": "g",
            "elements": [
                {
                    "type": "Layer",
                    "elements": [
                        {"type": "Unit", "shape": {"points": "10,20 110,20 110,80 10,80"}},
                        {"type": "HitArea", "shape": {"points": "200,5 210,5 210,15"}},
                        {"type": "Path", "shape": {"points": "900,900 901,901"}},
                    ],
                }
            ],
        },
        {"type": "Level", "uid": "empty", "elements": []},
        {
            "type": "Level",
            "uid": "top",
            "elements": [{"type": "Unit", "shape": {"points": "0,0 50,0 bad 50,nan"}}],
        },
    ]
}


def test_level_outlines_are_the_boxes_of_units_and_hit_areas():
    assert level_outlines(DOCUMENT, {"g": -1}) == [
        LevelOutline("g", "-1", (10.0, 5.0, 210.0, 80.0)),
        LevelOutline("empty", "1", None),
        LevelOutline("top", "2", (0.0, 0.0, 50.0, 0.0)),
    ]


def test_without_heights_a_level_is_its_position():
    assert [outline.level for outline in level_outlines(DOCUMENT)] == ["0", "1", "2"]


def test_nearest_in_box():
    box = (0.0, 0.0, 10.0, 5.0)
    assert nearest_in_box(box, 3, 4) == (3, 4)
    assert nearest_in_box(box, -3, 7) == (0.0, 5.0)
    assert nearest_in_box(box, 12, 2) == (10.0, 2)
