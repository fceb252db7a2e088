"""Canvas geometry checked by hand: transforms on shapes, flattening within the 0.25-unit
tolerance, arcs, rounded corners, and numbers as the document writes them."""

from __future__ import annotations

import math

import numpy as np
import pytest
from svgelements import Arc

from parsing.errors import SvgError
from parsing.geometry.numbers import format_number, format_points, round3
from parsing.geometry.path_data import TOLERANCE, arc_centre, parse_path
from parsing.geometry.transform import parse_transform
from parsing.svg import parse_unit_map

SVG = "http://www.w3.org/2000/svg"
ROUNDING = 0.0005 * math.sqrt(2)  # what 3-decimal output may move a point


def unit_points(shape: str, group: str = "") -> list[tuple[float, float]]:
    """The canvas outline of one shape drawn in a units layer (inside `group` if given)."""
    inner = f"{group}{shape}{'</g>' * group.count('<g')}"
    parsed = parse_unit_map(
        f'<svg xmlns="{SVG}" width="100" height="100"><g data-layer="units">{inner}</g></svg>'
    )
    return list(parsed.units[0].points)


def segment_distance(point: np.ndarray, polyline: np.ndarray) -> float:
    """Distance from `point` to the nearest segment of the (closed-or-not) `polyline`."""
    a, b = polyline[:-1], polyline[1:]
    ab = b - a
    length2 = np.maximum((ab**2).sum(axis=1), 1e-300)
    t = np.clip(((point - a) * ab).sum(axis=1) / length2, 0.0, 1.0)
    nearest = a + ab * t[:, None]
    return float(np.sqrt(((nearest - point) ** 2).sum(axis=1)).min())


def max_gap(curve: np.ndarray, polyline: list[tuple[float, float]], closed: bool) -> float:
    """How far the true curve (dense samples) strays from the flattened polyline."""
    poly = np.array(polyline + ([polyline[0]] if closed else []))
    return max(segment_distance(sample, poly) for sample in curve)


# ---------------------------------------------------------------- transforms on shapes


def test_rect_under_rotate_90() -> None:
    # (x, y) -> (-y, x): the rect 10..40 x 20..30 lands at -30..-20 x 10..40
    points = unit_points(
        '<rect data-unit-id="u" x="10" y="20" width="30" height="10" transform="rotate(90)"/>'
    )
    assert points == [(-20.0, 10.0), (-20.0, 40.0), (-30.0, 40.0), (-30.0, 10.0)]


def test_rect_under_scale_2_inside_a_translated_group() -> None:
    points = unit_points(
        '<rect data-unit-id="u" x="1" y="2" width="3" height="4" transform="scale(2)"/>',
        '<g transform="translate(100 50)">',
    )
    assert points == [(102.0, 54.0), (108.0, 54.0), (108.0, 62.0), (102.0, 62.0)]


def test_rotate_about_a_point_and_skew() -> None:
    assert unit_points(
        '<rect data-unit-id="u" x="0" y="0" width="10" height="10" transform="rotate(-90 5 5)"/>'
    ) == [(0.0, 10.0), (0.0, 0.0), (10.0, 0.0), (10.0, 10.0)]
    assert unit_points(
        '<rect data-unit-id="u" width="10" height="10" transform="skewX(45) skewY(45)"/>'
    ) == [(0.0, 0.0), (20.0, 10.0), (30.0, 20.0), (10.0, 10.0)]


def test_nested_group_order() -> None:
    """The outer group's transform applies last: translate(rotate(p)), not the reverse."""
    assert unit_points(
        '<rect data-unit-id="u" width="10" height="0"/>',
        '<g transform="translate(100 0)"><g transform="rotate(90)">',
    )[:2] == [(100.0, 0.0), (100.0, 10.0)]


# ---------------------------------------------------------------- circles and ellipses


@pytest.mark.parametrize(("radius", "scale"), [(1.0, 1.0), (15.0, 1.0), (40.0, 1.0), (4.0, 25.0)])
def test_circle_outline_within_tolerance(radius: float, scale: float) -> None:
    points = unit_points(
        f'<circle data-unit-id="u" cx="10" cy="20" r="{radius}" transform="scale({scale})"/>'
    )
    centre = np.array([10 * scale, 20 * scale])
    canvas_radius = radius * scale
    vertices = np.array(points)
    # every vertex lies on the circle (up to the 3-decimal rounding)
    assert np.abs(np.hypot(*(vertices - centre).T) - canvas_radius).max() <= ROUNDING
    # and no point of the circle is further than the tolerance from the outline
    angles = np.linspace(0, 2 * np.pi, 2000)
    circle = centre + canvas_radius * np.column_stack([np.cos(angles), np.sin(angles)])
    assert max_gap(circle, points, closed=True) <= TOLERANCE + ROUNDING
    assert len(points) >= 4
    assert points[0] == (10 * scale + canvas_radius, 20 * scale)  # starts at angle 0


def test_circle_point_count_follows_the_tolerance() -> None:
    # r = 15: n = ceil(2 pi / (2 acos(1 - 0.25 / 15))) = 18
    assert len(unit_points('<circle data-unit-id="u" r="15"/>')) == 18
    # ten times larger on the canvas, more points
    assert len(unit_points('<circle data-unit-id="u" r="15" transform="scale(10)"/>')) == 55


def test_ellipse_under_rotation() -> None:
    points = unit_points(
        '<ellipse data-unit-id="u" cx="0" cy="0" rx="30" ry="10" transform="rotate(30)"/>'
    )
    angles = np.linspace(0, 2 * np.pi, 3000)
    c, s = math.cos(math.radians(30)), math.sin(math.radians(30))
    local = np.column_stack([30 * np.cos(angles), 10 * np.sin(angles)])
    ellipse = local @ np.array([[c, s], [-s, c]])
    assert max_gap(ellipse, points, closed=True) <= TOLERANCE + ROUNDING
    assert points[0] == (round3(30 * c), round3(30 * s))


def test_rounded_rect_corners() -> None:
    points = unit_points('<rect data-unit-id="u" x="0" y="0" width="40" height="20" rx="5"/>')
    assert points[0] == (5.0, 0.0) and points[1] == (35.0, 0.0)
    assert (40.0, 5.0) in points and (40.0, 15.0) in points
    assert (35.0, 20.0) in points and (5.0, 20.0) in points
    assert (0.0, 15.0) in points and (0.0, 5.0) in points
    assert points[-1] != points[0]  # the closing point is not repeated
    corner = [(35 + 5 * math.cos(t), 5 + 5 * math.sin(t)) for t in np.linspace(-np.pi / 2, 0, 200)]
    assert max_gap(np.array(corner), points, closed=True) <= TOLERANCE + ROUNDING


def test_rounded_rect_radii_are_clamped_and_default_to_each_other() -> None:
    # ry alone: rx = ry = 50, clamped to half of each side: an ellipse 20 x 10
    points = unit_points('<rect data-unit-id="u" width="20" height="10" ry="50"/>')
    xs, ys = zip(*points, strict=True)
    assert (min(xs), max(xs), min(ys), max(ys)) == (0.0, 20.0, 0.0, 10.0)
    assert points[0] == (10.0, 0.0)


# ---------------------------------------------------------------- paths


def test_arc_end_points_are_exact() -> None:
    points = unit_points('<path data-unit-id="u" d="M10 20 A30 15 20 0 1 70 40 L70 60"/>')
    assert points[0] == (10.0, 20.0)
    assert (70.0, 40.0) in points
    assert points[-1] == (70.0, 60.0)


def test_arc_radius_too_small_is_scaled_up() -> None:
    # radius 1 cannot span 0..100: SVG scales it to 50, a half circle through (50, -50)
    points = unit_points('<path data-unit-id="u" d="M0 0 A1 1 0 0 1 100 0"/>')
    assert points[0] == (0.0, 0.0) and points[-1] == (100.0, 0.0)
    ys = [y for _, y in points]
    assert min(ys) == pytest.approx(-50.0, abs=ROUNDING)


def test_arc_flags_choose_the_four_arcs() -> None:
    """From (0,0) to (10,0) with r=10: small/large arc, either side."""
    expected_lowest = {  # (large, sweep) -> the arc's extreme y
        (0, 0): 1.34,  # small arc below (y down is "below" on screen)
        (0, 1): -1.34,
        (1, 0): 18.66,
        (1, 1): -18.66,
    }
    for (large, sweep), extreme in expected_lowest.items():
        points = unit_points(f'<path data-unit-id="u" d="M0 0 A10 10 0 {large} {sweep} 10 0"/>')
        ys = [y for _, y in points]
        reach = max(ys) if extreme > 0 else min(ys)
        assert reach == pytest.approx(extreme, abs=0.27), (large, sweep)


@pytest.mark.parametrize(
    ("start", "radii", "rotation", "large", "sweep", "end"),
    [
        ((0.0, 0.0), (10.0, 10.0), 0.0, False, True, (10.0, 0.0)),
        ((10.0, 20.0), (30.0, 15.0), 20.0, False, True, (70.0, 40.0)),
        ((5.0, 5.0), (20.0, 10.0), 30.0, True, False, (45.0, 5.0)),
        ((0.0, 0.0), (1.0, 1.0), 0.0, False, True, (100.0, 0.0)),
        ((3.0, -4.0), (50.0, 20.0), -60.0, True, True, (-20.0, 10.0)),
    ],
)
def test_arc_centre_agrees_with_svgelements(
    start: tuple[float, float],
    radii: tuple[float, float],
    rotation: float,
    large: bool,
    sweep: bool,
    end: tuple[float, float],
) -> None:
    mine = arc_centre(*start, *radii, rotation, large, sweep, *end)
    assert mine
    cx, cy, rx, ry, cos_phi, sin_phi, theta1, dtheta = mine
    theirs = Arc(start, radii[0], radii[1], rotation, large, sweep, end)
    # (svgelements leaves ~1e-7 of noise where the radii had to be scaled up)
    assert (cx, cy) == pytest.approx((theirs.center.x, theirs.center.y), abs=1e-6)
    assert dtheta == pytest.approx(theirs.sweep, abs=1e-6)
    # both ends lie where they should
    for t, point in ((theta1, start), (theta1 + dtheta, end)):
        x = cx + rx * math.cos(t) * cos_phi - ry * math.sin(t) * sin_phi
        y = cy + rx * math.cos(t) * sin_phi + ry * math.sin(t) * cos_phi
        assert (x, y) == pytest.approx(point, abs=1e-9)


def test_cubic_and_quadratic_within_tolerance() -> None:
    t = np.linspace(0, 1, 2000)[:, None]
    p0, p1, p2, p3 = (np.array(p, dtype=float) for p in ((0, 0), (30, -40), (70, 40), (100, 0)))
    cubic = (1 - t) ** 3 * p0 + 3 * (1 - t) ** 2 * t * p1 + 3 * (1 - t) * t**2 * p2 + t**3 * p3
    points = unit_points('<path data-unit-id="u" d="M0 0 C30 -40 70 40 100 0"/>')
    assert points[0] == (0.0, 0.0) and points[-1] == (100.0, 0.0)
    assert max_gap(cubic, points, closed=False) <= TOLERANCE + ROUNDING
    q0, q1, q2 = (np.array(p, dtype=float) for p in ((0, 0), (50, 80), (100, 0)))
    quad = (1 - t) ** 2 * q0 + 2 * (1 - t) * t * q1 + t**2 * q2
    points = unit_points('<path data-unit-id="u" d="M0 0 q50 80 100 0"/>')
    assert max_gap(quad, points, closed=False) <= TOLERANCE + ROUNDING


def test_smooth_curves_reflect_the_previous_control_point() -> None:
    explicit = unit_points(
        '<path data-unit-id="u" d="M0 0 C10 -10 20 -10 30 0 C40 10 50 10 60 0"/>'
    )
    smooth = unit_points('<path data-unit-id="u" d="M0 0 C10 -10 20 -10 30 0 S50 10 60 0"/>')
    assert smooth == explicit
    explicit_q = unit_points('<path data-unit-id="u" d="M0 0 Q15 -20 30 0 Q45 20 60 0"/>')
    smooth_q = unit_points('<path data-unit-id="u" d="M0 0 Q15 -20 30 0 T60 0"/>')
    assert smooth_q == explicit_q


def test_relative_and_absolute_commands_agree() -> None:
    absolute = unit_points(
        '<path data-unit-id="u" d="M10 10 L20 10 H30 V20 C30 30 20 30 10 20 Q5 15 10 10 Z"/>'
    )
    relative = unit_points(
        '<path data-unit-id="u" d="m10 10 l10 0 h10 v10 c0 10 -10 10 -20 0 q-5 -5 0 -10 z"/>'
    )
    assert relative == absolute


def test_largest_subpath_is_the_outline() -> None:
    points = unit_points('<path data-unit-id="u" d="M0 0 h1 v1 h-1 z M10 0 h5 v5 h-5 z"/>')
    assert points == [(10.0, 0.0), (15.0, 0.0), (15.0, 5.0), (10.0, 5.0)]


def test_commands_after_close_start_at_the_subpath_start() -> None:
    subpaths = parse_path("M10 10 h5 z l0 5")
    assert [(start_x, start_y, closed) for start_x, start_y, _, closed in subpaths] == [
        (10.0, 10.0, True),
        (10.0, 10.0, False),
    ]


@pytest.mark.parametrize(
    "d",
    ["L10 10", "M0 0 L5", "M0 0 X 5", "M0 0 A1 1 0 2 0 5 5", "M0 0 h", "M0 0 C1 1 2 2", "M0 0 z 5"],
)
def test_invalid_path_data(d: str) -> None:
    with pytest.raises(SvgError, match="path data"):
        parse_path(d)


# ---------------------------------------------------------------- transform lists


@pytest.mark.parametrize(
    "text",
    ["rotate(1,2)", "translate(1", "spin(3)", "none", "scale()", "matrix(1 2 3)", "translate(x)"],
)
def test_invalid_transforms(text: str) -> None:
    with pytest.raises(SvgError, match="transform"):
        parse_transform(text)


def test_transform_list_separators() -> None:
    expected = parse_transform("translate(10,-20) scale(0.5)")
    for text in (
        "translate(10-20)scale(.5)",
        " translate( 10 , -20 ) , scale(.5) ",
        "translate(10 -20)\n scale(5e-1)",
    ):
        assert parse_transform(text) == expected
    assert parse_transform("") == (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)


# ---------------------------------------------------------------- numbers


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1200.0, "1200"),
        (0.1 + 0.2, "0.3"),
        (-0.0, "0"),
        (-0.0004, "0"),
        (2.5, "2.5"),
        (1.23456, "1.235"),
        (-7.1004, "-7.1"),
        (123456789.0125, "123456789.012"),
        (1e-9, "0"),
    ],
)
def test_format_number(value: float, text: str) -> None:
    assert format_number(value) == text


def test_format_points_agrees_with_format_number() -> None:
    values = [0.0, 1.5, -2.25, 1234.567, -0.001, 99999.999]
    assert format_points([round3(v) for v in values]) == " ".join(
        f"{format_number(x)},{format_number(y)}"
        for x, y in zip(values[0::2], values[1::2], strict=True)
    )


@pytest.mark.parametrize(
    ("d", "expected"),
    [
        # implicit line-tos after M are absolute, after m relative
        ("M10 10 20 20 30 10", [(10.0, 10.0), (20.0, 20.0), (30.0, 10.0)]),
        ("m10 10 20 20 30 10", [(10.0, 10.0), (30.0, 30.0), (60.0, 40.0)]),
        ("m10,10 h5 V3 z", [(10.0, 10.0), (15.0, 10.0), (15.0, 3.0)]),
        ("M10-10h5v5z", [(10.0, -10.0), (15.0, -10.0), (15.0, -5.0)]),
        ("m.5.5 l1 0 z m 2 0 l1 1", [(0.5, 0.5), (1.5, 0.5)]),
    ],
)
def test_start_point_folding_keeps_the_meaning(d: str, expected: list) -> None:
    points = unit_points(f'<path data-unit-id="u" d="{d}"/>')
    assert points == expected
