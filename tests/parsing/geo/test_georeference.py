"""The affine fit: exact values on dyadic inputs, numpy's lstsq as the reference, every refusal."""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from parsing.geo.georeference import (
    ControlPoint,
    Georeference,
    GeoreferenceError,
    distance_m,
    fit_affine,
)
from tests.examples import examples

K = 2.0**-16  # degrees per pixel: dyadic, so the fit below is exact in binary floating point


def north_up(x: float, y: float) -> ControlPoint:
    """A north-up plan: lon grows with x, lat falls as y grows (canvas y points down)."""
    return ControlPoint(x, y, 13.25 + x * K, 52.5 - y * K)


SQUARE = [north_up(0, 0), north_up(256, 0), north_up(256, 256), north_up(0, 256)]


def refused(points: list[ControlPoint]) -> GeoreferenceError:
    with pytest.raises(GeoreferenceError) as caught:
        fit_affine(points)
    return caught.value


# --- exact fits ------------------------------------------------------------------------


def test_three_points_fit_exactly_with_zero_residual() -> None:
    points = [north_up(0, 0), north_up(300, 0), north_up(0, 300)]
    fit = fit_affine(points)
    assert fit == Georeference((K, 0.0, 13.25, 0.0, -K, 52.5), 0.0, 0.0, 3)
    for point in points:
        assert fit.apply(point.x, point.y) == (point.lon, point.lat)


def test_integers_are_accepted_and_become_floats() -> None:
    fit = fit_affine(
        [ControlPoint(0, 0, 13, 52), ControlPoint(1, 0, 14, 52), ControlPoint(0, 1, 13, 51)]
    )
    assert fit.transform == (1.0, 0.0, 13.0, 0.0, -1.0, 52.0)


def test_four_points_one_noisy_spreads_a_quarter_of_the_error_to_each_point() -> None:
    """Corners of a square: the only residual pattern an affine cannot absorb is (+,-,+,-),
    so noise delta on one corner leaves delta/4 at every corner."""
    delta = 2.0**-20  # degrees of latitude, about 10.6 cm
    noisy = ControlPoint(256, 256, SQUARE[2].lon, SQUARE[2].lat + delta)
    fit = fit_affine([SQUARE[0], SQUARE[1], noisy, SQUARE[3]])
    # lat = d*x + e*y + f fits the corner values 0, 0, delta, 0 as -d/4, d/4, 3d/4, d/4.
    assert fit.transform == (K, 0.0, 13.25, delta / 512, -K + delta / 512, 52.5 - delta / 4)
    expected = 111_320 * delta / 4  # metres of latitude; no longitude error
    assert expected == 0.026540756225585938
    assert fit.rms_residual_m == expected
    assert fit.max_residual_m == expected
    assert fit.points == 4
    assert fit.summary() == (
        "georeference: affine fit of 4 control points, residual RMS 0.03 m, max 0.03 m"
    )


def reference_fit(points: list[ControlPoint]) -> tuple[np.ndarray, np.ndarray]:
    """numpy's least squares: the coefficients (a, b, c, d, e, f) and residuals in metres.

    Centred like the fit itself: on raw [x, y, 1] columns lstsq loses about 1e-7 of the
    relative precision of the linear part to the large constant lon/lat (checked against
    exact rational arithmetic in test_fit_is_close_to_exact_arithmetic).
    """
    xy = np.array([[p.x, p.y] for p in points])
    target = np.array([[p.lon, p.lat] for p in points])
    centre, mean = xy.mean(axis=0), target.mean(axis=0)
    linear = np.linalg.lstsq(xy - centre, target - mean, rcond=None)[0]  # [[a, d], [b, e]]
    constant = mean - centre @ linear
    solution = np.vstack([linear, constant])  # columns: (a, b, c), (d, e, f)
    fitted = (xy - centre) @ linear + mean
    mean_lat = np.radians((fitted[:, 1] + target[:, 1]) / 2)
    east = (fitted[:, 0] - target[:, 0]) * 111_320 * np.cos(mean_lat)
    north = (fitted[:, 1] - target[:, 1]) * 111_320
    return np.concatenate([solution[:, 0], solution[:, 1]]), np.hypot(east, north)


def test_noise_in_longitude_and_latitude_matches_numpy() -> None:
    points = [
        ControlPoint(12, 40, 2.3522100, 48.8566100),
        ControlPoint(980, 35, 2.3547300, 48.8566900),
        ControlPoint(1010, 760, 2.3548100, 48.8548800),
        ControlPoint(30, 790, 2.3521400, 48.8547300),
        ControlPoint(505, 400, 2.3534900, 48.8557400),
    ]
    fit = fit_affine(points)
    coefficients, residuals = reference_fit(points)
    assert fit.transform == pytest.approx(tuple(coefficients), rel=1e-12, abs=1e-20)
    assert fit.rms_residual_m == pytest.approx(float(np.sqrt(np.mean(residuals**2))), rel=1e-9)
    assert fit.max_residual_m == pytest.approx(float(residuals.max()), rel=1e-9)
    assert round(fit.rms_residual_m, 6) == 2.047013
    assert round(fit.max_residual_m, 6) == 2.546672


def test_distance_is_equirectangular_at_the_mean_latitude() -> None:
    assert distance_m(0.0, 0.0, 0.0, 1.0) == 111_320.0
    assert distance_m(10.0, 60.0, 11.0, 60.0) == pytest.approx(55_660.0, rel=1e-12)
    assert distance_m(10.0, 59.0, 10.0, 61.0) == 222_640.0


def test_summary_rounds_to_centimetres() -> None:
    fit = Georeference((1.0, 0.0, 0.0, 0.0, 1.0, 0.0), 0.4249, 0.805, 7)
    assert fit.summary() == (
        "georeference: affine fit of 7 control points, residual RMS 0.42 m, max 0.81 m"
    )


def test_a_mirrored_plan_is_a_valid_fit() -> None:
    """Canvas y down mapped to lat up is the usual case; y down to lat down is allowed too."""
    points = [
        ControlPoint(x, y, 13.25 + x * K, 52.5 + y * K) for x, y in [(0, 0), (64, 0), (0, 64)]
    ]
    assert fit_affine(points).transform == (K, 0.0, 13.25, 0.0, K, 52.5)


def test_boundary_coordinates_are_accepted() -> None:
    points = [
        ControlPoint(0, 0, 179.999, -60.0),
        ControlPoint(100, 0, 180.0, -60.0),
        ControlPoint(0, 100, 179.999, -60.0005),
    ]
    fit = fit_affine(points)
    assert fit.apply(100, 0) == pytest.approx((180.0, -60.0), abs=1e-12)


# --- numpy as the reference ------------------------------------------------------------

coordinate = st.floats(0, 4000, allow_nan=False)


@st.composite
def control_points(draw: st.DrawFn) -> list[ControlPoint]:
    """A similarity (in metres) of random scale, rotation and mirroring, plus noise."""
    n = draw(st.integers(3, 9))
    canvas = draw(st.lists(st.tuples(coordinate, coordinate), min_size=n, max_size=n))
    offsets = np.array(canvas) - np.mean(canvas, axis=0)
    singular = np.linalg.svd(offsets, compute_uv=False)
    assume(len(set(canvas)) == n)
    assume(singular[-1] > 0.1 * singular[0])  # well conditioned
    lon0 = draw(st.floats(-179, 179))
    lat0 = draw(st.floats(-80, 80))
    scale = draw(st.floats(1e-7, 1e-5))  # degrees of latitude per pixel
    angle = draw(st.floats(0, 2 * math.pi))
    mirror = draw(st.sampled_from([1.0, -1.0]))
    noise = st.floats(-2e-6, 2e-6)
    points = []
    for x, y in canvas:
        east = scale * (math.cos(angle) * x - math.sin(angle) * y)
        north = scale * mirror * (math.sin(angle) * x + math.cos(angle) * y)
        lon = lon0 + east / math.cos(math.radians(lat0)) + draw(noise)
        lat = lat0 + north + draw(noise)
        points.append(ControlPoint(x, y, lon, lat))
    return points


@settings(max_examples=examples(300), deadline=None)
@given(control_points())
def test_fit_matches_numpy_lstsq(points: list[ControlPoint]) -> None:
    fit = fit_affine(points)
    coefficients, residuals = reference_fit(points)
    a, b, c, d, e, f = fit.transform
    linear = [a, b, d, e]
    scale = max(map(abs, linear))
    assert np.allclose(linear, coefficients[[0, 1, 3, 4]], rtol=0, atol=1e-9 * scale)
    assert np.allclose([c, f], coefficients[[2, 5]], rtol=0, atol=1e-12)
    # Where it matters: the positions the two fits give the control points (1e-12 deg ~ 0.1 um).
    for point in points:
        ours = np.array(fit.apply(point.x, point.y))
        theirs = np.array([point.x, point.y, 1.0]) @ coefficients.reshape(2, 3).T
        assert np.allclose(ours, theirs, rtol=0, atol=1e-12)
    assert fit.rms_residual_m == pytest.approx(float(np.sqrt(np.mean(residuals**2))), abs=1e-6)
    assert fit.max_residual_m == pytest.approx(float(residuals.max()), abs=1e-6)
    assert fit.points == len(points)


@settings(max_examples=100, deadline=None)
@given(control_points())
def test_points_without_noise_are_reproduced(points: list[ControlPoint]) -> None:
    exact = fit_affine(points)
    again = [ControlPoint(p.x, p.y, *exact.apply(p.x, p.y)) for p in points]
    refit = fit_affine(again)
    assert refit.max_residual_m < 1e-6
    assert refit.transform == pytest.approx(exact.transform, rel=1e-9, abs=1e-15)


def exact_transform(points: list[ControlPoint]) -> list[float]:
    """The least-squares transform in rational arithmetic, rounded once at the end."""
    n = len(points)
    mx, my = sum(F(p.x) for p in points) / n, sum(F(p.y) for p in points) / n
    u, v = [F(p.x) - mx for p in points], [F(p.y) - my for p in points]
    sxx, syy = sum(a * a for a in u), sum(b * b for b in v)
    sxy = sum(a * b for a, b in zip(u, v, strict=True))
    det = sxx * syy - sxy * sxy
    out: list[float] = []
    for target in ([F(p.lon) for p in points], [F(p.lat) for p in points]):
        mean = sum(target) / n
        sxt = sum(a * (t - mean) for a, t in zip(u, target, strict=True))
        syt = sum(b * (t - mean) for b, t in zip(v, target, strict=True))
        a, b = (syy * sxt - sxy * syt) / det, (sxx * syt - sxy * sxt) / det
        out += [float(a), float(b), float(mean - a * mx - b * my)]
    return out


@settings(max_examples=examples(100), deadline=None)
@given(control_points())
def test_fit_is_close_to_exact_arithmetic(points: list[ControlPoint]) -> None:
    """Canvas spreads of at least 1:10 bound the 2x2 system's condition number by 100."""
    exact = exact_transform(points)
    fit = fit_affine(points).transform
    scale = max(abs(value) for value in exact[:2] + exact[3:5])
    for ours, truth in zip(fit, exact, strict=True):
        assert ours == pytest.approx(truth, rel=1e-11, abs=1e-10 * scale)


# --- refusals ----------------------------------------------------------------------------


@pytest.mark.parametrize("count", [0, 1, 2])
def test_fewer_than_three_points(count: int) -> None:
    error = refused(SQUARE[:count])
    assert str(error) == f"control_points: at least 3 control points are needed, got {count}"
    assert isinstance(error, ValueError)
    assert error.path == "control_points"
    assert error.message == f"at least 3 control points are needed, got {count}"


def test_collinear_canvas_points() -> None:
    error = refused([north_up(0, 0), north_up(100, 100), north_up(250, 250)])
    assert str(error) == (
        "control_points: the canvas points are collinear or nearly so: their spread across "
        "the line through them is below 0.01 of their spread along it"
    )


@pytest.mark.parametrize("unit", [1e-3, 1.0, 1e3])
def test_nearly_collinear_is_judged_relative_to_the_spread(unit: float) -> None:
    """A third point 5 px off a 1000 px baseline is too close; 10 px is enough, at any scale."""

    def triangle(height: float) -> list[ControlPoint]:
        corners = [(0, 0), (1000, 0), (500, height)]
        return [ControlPoint(x * unit, y * unit, 13 + x * 1e-6, 52 - y * 1e-6) for x, y in corners]

    assert "collinear or nearly so" in str(refused(triangle(5)))
    assert fit_affine(triangle(10)).points == 3


def test_duplicate_canvas_point() -> None:
    error = refused(
        [north_up(0, 0), north_up(10, 0), ControlPoint(0.0, 0.0, 13.5, 52.0), north_up(0, 10)]
    )
    assert str(error) == "control_points[2]: canvas point (0, 0) is the same as control_points[0]"
    assert error.path == "control_points[2]"


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("lon", 180.5, "longitude 180.5 is outside [-180, 180]"),
        ("lon", -181.0, "longitude -181.0 is outside [-180, 180]"),
        ("lat", 90.25, "latitude 90.25 is outside [-90, 90]"),
        ("lat", -90.5, "latitude -90.5 is outside [-90, 90]"),
        ("x", math.nan, "must be a finite number, not nan"),
        ("y", math.inf, "must be a finite number, not inf"),
        ("lat", -math.inf, "must be a finite number, not -inf"),
        ("lon", "13.4", "must be a number, not str"),
        ("x", True, "must be a number, not bool"),
        ("y", None, "must be a number, not NoneType"),
    ],
)
def test_bad_coordinate(field: str, value: object, message: str) -> None:
    values = {"x": 5.0, "y": 5.0, "lon": 13.4, "lat": 52.5} | {field: value}
    error = refused([SQUARE[0], ControlPoint(**values), SQUARE[2]])  # type: ignore[arg-type]
    assert str(error) == f"control_points[1].{field}: {message}"
    assert error.path == f"control_points[1].{field}"


def test_points_across_the_antimeridian() -> None:
    points = [
        ControlPoint(0, 0, 179.9999, -17.0),
        ControlPoint(100, 0, -179.9999, -17.0),
        ControlPoint(0, 100, 179.9999, -17.0001),
    ]
    assert str(refused(points)) == (
        "control_points: control points span longitudes -179.9999 to 179.9999, more than 180 "
        "degrees; a map across the antimeridian (longitude 180) is not supported"
    )


DEGENERATE = (
    "control_points: the fitted transform is degenerate (determinant ~0): the control points' "
    "lon/lat are equal or collinear, so the map would collapse onto a line or a point"
)


def test_all_control_points_at_one_place() -> None:
    points = [ControlPoint(x, y, 13.4, 52.5) for x, y in [(0, 0), (100, 0), (0, 100)]]
    assert str(refused(points)) == DEGENERATE


def test_lon_lat_on_one_line() -> None:
    points = [
        ControlPoint(x, y, 13.4 + (x + y) * 1e-6, 52.5)
        for x, y in [(0, 0), (100, 0), (0, 100), (100, 100)]
    ]
    assert str(refused(points)) == DEGENERATE


def test_lon_lat_nearly_on_one_line_in_metres() -> None:
    """At 60 degrees north a degree of longitude is half a degree of latitude in metres:
    the test runs in metres, so this 200:1 squash is refused although its degrees are 100:1."""
    corners = [(0, 0), (100, 0), (0, 100)]
    points = [ControlPoint(x, y, 13.4 + x * 1e-7, 60.0 - y * 1e-5) for x, y in corners]
    assert str(refused(points)) == DEGENERATE
    squashed_50 = [ControlPoint(x, y, 13.4 + x * 4e-7, 60.0 - y * 1e-5) for x, y in corners]
    assert fit_affine(squashed_50).points == 3


def test_first_problem_in_point_order_is_reported() -> None:
    points = [north_up(0, 0), ControlPoint(1, 1, 200.0, 95.0), ControlPoint(0, 0, 0.0, 0.0)]
    assert str(refused(points)) == "control_points[1].lon: longitude 200.0 is outside [-180, 180]"
