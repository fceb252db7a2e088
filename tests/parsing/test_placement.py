"""Where a unit's derived location stands: the area centroid, or the pole of
inaccessibility when the centroid falls outside the outline (docs/unit-map-svg.md)."""

from __future__ import annotations

import math

import pytest
from shapely.geometry import Point, Polygon

from parsing.geometry.placement import label_point


def test_rectangle_takes_its_centroid():
    assert label_point([(10, 10), (110, 10), (110, 90), (10, 90)]) == (60.0, 50.0)


def test_triangle_takes_its_area_centroid_not_the_mean_of_a_closed_ring():
    # A closed ring repeats its first point; the area centroid ignores that.
    assert label_point([(0, 0), (30, 0), (0, 30), (0, 0)]) == (10.0, 10.0)


def test_u_shape_falls_back_to_the_pole_of_inaccessibility():
    u_shape = [(0, 0), (30, 0), (30, 30), (20, 30), (20, 10), (10, 10), (10, 30), (0, 30)]
    polygon = Polygon(u_shape)
    assert not polygon.contains(polygon.centroid)  # the centroid is in the notch
    x, y = label_point(u_shape)
    assert polygon.contains(Point(x, y))
    # The pole is the inside point farthest from the edges: in a corner where a leg meets the
    # base, the circle touching both outer edges and the inner corner (10, 10):
    # sqrt(2) * (10 - r) = r, so r = 10 * sqrt(2) / (1 + sqrt(2)).
    radius = 10 * math.sqrt(2) / (1 + math.sqrt(2))
    assert polygon.exterior.distance(Point(x, y)) == pytest.approx(radius, abs=0.1)


def test_self_crossing_outline_uses_its_largest_part():
    bow_tie = [(0, 0), (20, 20), (20, 0), (0, 20)]  # two triangles meeting at (10, 10)
    x, y = label_point(bow_tie)
    assert Polygon([(0, 0), (10, 10), (0, 20)]).contains(Point(x, y)) or Polygon(
        [(20, 0), (10, 10), (20, 20)]
    ).contains(Point(x, y))


def test_outline_without_area_takes_the_mean_of_its_points():
    assert label_point([(0, 0), (10, 0), (20, 0)]) == (10.0, 0.0)


def test_numbers_have_at_most_three_decimals():
    x, y = label_point([(0, 0), (1, 0), (1, 3), (0, 3.0001)])
    assert (round(x, 3), round(y, 3)) == (x, y)
