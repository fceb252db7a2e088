"""Interior rings of unit and hit-area paths (docs/svg-parsing.md, "Holes"): a courtyard
or a shaft drawn as a further subpath is kept as `shape.holes`, not dropped."""

from __future__ import annotations

from typing import Any

from shapely.geometry import Point, Polygon

from parsing.geometry.placement import label_point
from parsing.parsed_map import document_bytes
from parsing.svg import parse_unit_map

SVG = "http://www.w3.org/2000/svg"
OUTER = "M0,0 L100,0 L100,80 L0,80 Z"  # clockwise on screen (y down)
COURT = "M20,20 L50,20 L50,60 L20,60 Z"  # the same way round
COURT_AGAINST = "M20,20 L20,60 L50,60 L50,20 Z"  # wound the other way
SHAFT = "M70,30 L80,30 L80,40 L70,40 Z"


def parse(body: str) -> Any:
    return parse_unit_map(f'<svg xmlns="{SVG}" width="100" height="80">{body}</svg>')


def unit(d: str, extra: str = "") -> tuple[dict[str, Any], Any]:
    """The shape of one unit drawn as a path with `d`, and its UnitShape."""
    parsed = parse(f'<g data-layer="units"><path data-unit-id="u" d="{d}"{extra}/></g>')
    return parsed.document["elements"][0]["elements"][0]["elements"][0]["shape"], parsed.units[0]


def test_today_a_path_kept_its_largest_subpath_only_and_still_does_without_a_hole() -> None:
    # Two rooms side by side in one path: not a hole, the largest is the outline as before.
    shape, shape_of = unit("M0,0 h10 v10 h-10 z M20,0 h30 v30 h-30 z")
    assert shape == {"type": "Path", "points": "20,0 50,0 50,30 20,30"}
    assert shape_of.holes == ()


def test_evenodd_keeps_the_courtyard_and_the_shaft_in_written_order() -> None:
    shape, shape_of = unit(f"{OUTER} {SHAFT} {COURT}", ' fill-rule="evenodd"')
    assert shape == {
        "type": "Path",
        "fill-rule": "evenodd",
        "points": "0,0 100,0 100,80 0,80",
        "holes": ["70,30 80,30 80,40 70,40", "20,20 50,20 50,60 20,60"],
    }
    assert shape_of.points == ((0.0, 0.0), (100.0, 0.0), (100.0, 80.0), (0.0, 80.0))
    assert shape_of.holes == (
        ((70.0, 30.0), (80.0, 30.0), (80.0, 40.0), (70.0, 40.0)),
        ((20.0, 20.0), (50.0, 20.0), (50.0, 60.0), (20.0, 60.0)),
    )


def test_the_outline_may_come_after_its_holes() -> None:
    shape, _ = unit(f"{COURT} {OUTER}", ' style="fill-rule: evenodd"')
    assert shape["points"] == "0,0 100,0 100,80 0,80"
    assert shape["holes"] == ["20,20 50,20 50,60 20,60"]


def test_nonzero_leaves_a_hole_only_where_the_ring_winds_against_the_outline() -> None:
    against, _ = unit(f"{OUTER} {COURT_AGAINST}")
    assert against["holes"] == ["20,20 20,60 50,60 50,20"]
    same_way, shape_of = unit(f"{OUTER} {COURT}")  # filled twice over: no hole
    assert "holes" not in same_way
    assert shape_of.holes == ()
    explicit, _ = unit(f"{OUTER} {COURT}", ' fill-rule="nonzero"')
    assert "holes" not in explicit


def test_rings_outside_inside_a_hole_or_overlapping_one_are_not_holes() -> None:
    outside = "M120,0 L130,0 L130,10 L120,10 Z"
    island = "M30,30 L40,30 L40,40 L30,40 Z"  # inside the courtyard
    overlapping = "M45,25 L60,25 L60,35 L45,35 Z"  # crosses the courtyard's east wall
    crossing_outline = "M90,70 L110,70 L110,75 L90,75 Z"
    d = f"{OUTER} {outside} {COURT} {island} {overlapping} {crossing_outline}"
    shape, _ = unit(d, ' fill-rule="evenodd"')
    assert shape["holes"] == ["20,20 50,20 50,60 20,60"]


def test_a_hole_touching_the_outline_is_kept() -> None:
    notch = "M0,10 L10,10 L10,20 L0,20 Z"  # shares part of the west wall
    shape, _ = unit(f"{OUTER} {notch}", ' fill-rule="evenodd"')
    assert shape["holes"] == ["0,10 10,10 10,20 0,20"]


def test_holes_are_in_canvas_coordinates_after_every_transform() -> None:
    parsed = parse(
        '<g data-layer="units" transform="translate(5,1)">'
        f'<path data-unit-id="u" fill-rule="evenodd" transform="scale(0.5)" d="{OUTER} {SHAFT}"/>'
        "</g>"
    )
    shape = parsed.document["elements"][0]["elements"][0]["elements"][0]["shape"]
    assert shape["points"] == "5,1 55,1 55,41 5,41"
    assert shape["holes"] == ["40,16 45,16 45,21 40,21"]
    assert parsed.units[0].holes == (((40.0, 16.0), (45.0, 16.0), (45.0, 21.0), (40.0, 21.0)),)


def test_a_hit_area_keeps_its_holes_too() -> None:
    parsed = parse(
        '<g data-layer="hit-areas">'
        f'<path data-target-id="u" fill-rule="evenodd" d="{OUTER} {COURT}"/></g>'
    )
    hit_area = parsed.document["elements"][0]["elements"][0]["elements"][0]
    assert hit_area["type"] == "HitArea"
    assert hit_area["shape"]["holes"] == ["20,20 50,20 50,60 20,60"]


def test_a_written_holes_attribute_is_not_the_shape_s_holes() -> None:
    shape, shape_of = unit(OUTER, ' holes="1,1 2,2 3,1" fill="#eee"')
    assert shape == {"type": "Path", "fill": "#eee", "points": "0,0 100,0 100,80 0,80"}
    assert shape_of.holes == ()


def test_a_shape_without_holes_gives_the_same_bytes_as_before() -> None:
    # What the parser wrote for this drawing before holes were kept (one ring each).
    parsed = parse(
        '<g data-layer="units"><rect data-unit-id="a" x="0" y="0" width="10" height="10"/>'
        '<path data-unit-id="b" fill-rule="evenodd" d="M20,0 h10 v10 h-10 z M40,0 h1 v1 z"/>'
        "</g>"
    )
    assert document_bytes(parsed) == (
        b'{"version":"1.2","type":"application/vnd.map+json","width":100,"height":80,'
        b'"elements":[{"type":"Level","uid":"e1","name":"e1","tags":{},"elements":['
        b'{"type":"UnitLayer","uid":"e2","elements":['
        b'{"type":"Unit","uid":"e3","id":"a",'
        b'"shape":{"type":"Rect","points":"0,0 10,0 10,10 0,10"}},'
        b'{"type":"Unit","uid":"e4","id":"b","shape":{"type":"Path","fill-rule":"evenodd",'
        b'"points":"20,0 30,0 30,10 20,10"}}]}]}]}'
    )


def test_the_location_point_of_a_courtyard_building_is_not_in_the_courtyard() -> None:
    outline = [(0.0, 0.0), (90.0, 0.0), (90.0, 90.0), (0.0, 90.0)]
    court = [(30.0, 30.0), (60.0, 30.0), (60.0, 60.0), (30.0, 60.0)]
    assert label_point(outline) == (45.0, 45.0)  # the centroid, in the courtyard
    x, y = label_point(outline, [court])
    assert Polygon(outline, [court]).contains(Point(x, y))
    # The pole: in a corner, where the largest circle touches both outer walls and the
    # courtyard's corner: r = (30 - r) * sqrt(2), r = 17.574 from both walls.
    assert abs(min(x, 90 - x) - 17.574) < 0.1
    assert abs(min(y, 90 - y) - 17.574) < 0.1
