"""A level's footprint (`parsing.geo.map_frame`, issue 65 point 5), without a database:
what it is made of (`level_shapes`: units, hit areas and drawn polygons, not the level's
outline nor a transformed polygon), and how far a point is from it, where the box
around the level cannot tell two levels of one `level` apart."""

from __future__ import annotations

import pytest
import shapely

from parsing.geo.level_outlines import level_shapes
from parsing.geo.map_frame import footprint, frame_of

# One metre a canvas unit, north-up: 0.00001 degrees of latitude is 1.11 m.
POINTS = ((0.0, 0.0, 0.0, 0.0), (1000.0, 0.0, 0.009, 0.0), (0.0, 1000.0, 0.0, -0.009))


def unit(points: str) -> dict[str, object]:
    return {"type": "Unit", "uid": points, "id": points, "shape": {"points": points}}


# Two levels of one height: the Concourse, an L of two units along the west and north
# (and a walkway south of it); the Outdoor in its notch, its box inside the Concourse's.
DOCUMENT = {
    "elements": [
        {
            "type": "Level",
            "uid": "c",
            "name": "Concourse",
            "elements": [
                {
                    "type": "Layer",
                    "name": "outline",
                    "elements": [{"type": "Polygon", "points": "0,0 100,0 100,100 0,100"}],
                },
                {
                    "type": "UnitLayer",
                    "elements": [unit("0,0 30,0 30,100 0,100"), unit("30,0 100,0 100,30 30,30")],
                },
                {
                    "type": "Layer",
                    "name": "spaces",
                    "elements": [
                        {"type": "Polygon", "points": "0,100 30,100 30,110 0,110"},
                        {"type": "Polygon", "points": "0,0 9,0 9,9", "transform": "scale(50)"},
                    ],
                },
            ],
        },
        {
            "type": "Level",
            "uid": "o",
            "name": "Concourse Outdoor",
            "elements": [
                {"type": "UnitLayer", "elements": [unit("40,40 90,40 90,90 40,90")]},
                {
                    "type": "Layer",
                    "name": "spaces",
                    "elements": [
                        # a bow tie: its two triangles still hold their area
                        {"type": "Polygon", "points": "40,90 90,95 90,90 40,95"},
                    ],
                },
            ],
        },
    ]
}
LEVELS = (("c", "f-c", 1), ("o", "f-o", 1))


def test_a_footprint_is_the_areas_drawn_on_the_level():
    shapes = {uid: (name, found) for uid, name, found in level_shapes(DOCUMENT)}
    assert shapes["c"][0] == "Concourse"
    assert [len(found) for found in shapes["c"][1]] == [4, 4, 4]  # no outline, no transform
    made = footprint(shapes["c"][1], [(200.0, 200.0)])  # and a location drawn far out
    assert made is not None and made.area == pytest.approx(30 * 100 + 70 * 30 + 30 * 10)
    assert made.covers(shapely.Point(200, 200))
    assert footprint([[(0.0, 0.0), (1.0, 1.0)]], []) is None  # two points hold no area
    bow = footprint(shapes["o"][1], [])
    assert bow is not None and bow.is_valid and bow.area > 50 * 50
    assert footprint([], []) is None


def test_the_boxes_of_two_levels_meet_where_their_footprints_do_not():
    frame = frame_of(DOCUMENT, tuple(POINTS), LEVELS)
    assert [level.name for level in frame.levels] == ["Concourse", "Concourse Outdoor"]
    lon, lat = frame.fit.apply(60, 60)  # in the Outdoor's unit
    assert [frame.metres_off(p, lon, lat) for p in (0, 1)] == [0.0, 0.0]  # both boxes
    assert frame.metres_off_footprint(1, lon, lat) == 0.0
    assert frame.metres_off_footprint(0, lon, lat) == pytest.approx(30, rel=1e-2)
    lon, lat = frame.fit.apply(35, 60)  # in the notch, outside both footprints
    assert frame.metres_off_footprint(0, lon, lat) == pytest.approx(5, rel=1e-2)
    assert frame.metres_off_footprint(1, lon, lat) == pytest.approx(5, rel=1e-2)
    assert frame.memory_bytes > frame_of({"elements": []}, tuple(POINTS), LEVELS).memory_bytes
