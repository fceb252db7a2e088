"""The parts of a repaired polygon (`parsing.geo.valid_shapes.parts_of`): largest first,
slivers a repair leaves dropped but never the only part."""

from __future__ import annotations

import shapely
from shapely.geometry import MultiPolygon, Point, Polygon, box

from parsing.geo.valid_shapes import SLIVER_M2, made_valid, parts_of


def test_a_bowtie_is_made_two_triangles_largest_first() -> None:
    bowtie = Polygon([(0, 0), (10, 10), (10, 0), (0, 10)])
    fixed = made_valid(bowtie)
    assert fixed is not None
    parts = parts_of(fixed)
    assert [part.area for part in parts] == [25.0, 25.0]
    uneven = made_valid(Polygon([(0, 0), (10, 10), (10, 0), (0, 14)]))
    assert uneven is not None
    areas = [part.area for part in parts_of(uneven)]
    assert areas == sorted(areas, reverse=True) and len(areas) == 2


def test_slivers_are_dropped_but_never_the_only_part() -> None:
    room, sliver = box(0, 0, 4, 4), box(5, 0, 5.001, 1)  # 0.001 m²
    assert sliver.area < SLIVER_M2
    assert parts_of(MultiPolygon([sliver, room]), SLIVER_M2) == [room]
    assert parts_of(sliver, SLIVER_M2) == [sliver]
    assert parts_of(MultiPolygon([sliver, room])) == [room, sliver]


def test_other_kinds_have_no_parts() -> None:
    assert parts_of(Point(0, 0)) == []
    assert parts_of(shapely.LineString([(0, 0), (1, 1)])) == []
    assert parts_of(Polygon()) == []
