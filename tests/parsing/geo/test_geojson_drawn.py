"""GeoJSON of what an IMDF drawing holds besides plain units: units with holes, their
name and category, drawn spaces (walkways, stairs) and openings (docs/geojson.md)."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest

from parsing.geo.geojson import map_geojson
from parsing.geo.georeference import Georeference

# 1 px = 1e-5 degrees. NORTH_UP flips orientation (canvas y down, latitude up); MIRRORED keeps it.
NORTH_UP = Georeference((1e-5, 0.0, 13.4, 0.0, -1e-5, 52.5), 0.0, 0.0, 3)
MIRRORED = Georeference((1e-5, 0.0, 13.4, 0.0, 1e-5, 52.5), 0.0, 0.0, 3)

COURT = {
    "type": "Unit",
    "uid": "e5",
    "id": "u-court",
    "shape": {
        "type": "Path",
        "class": "imdf-room",
        "fill": "#fff",
        "fill-rule": "evenodd",
        "points": "0,0 100,0 100,80 0,80",
        "holes": ["20,20 50,20 50,60 20,60", "70,30 70,40 80,40 80,30"],  # both windings
    },
}
DOCUMENT: dict[str, Any] = {
    "version": "1.2",
    "type": "application/vnd.map+json",
    "width": 300,
    "height": 200,
    "elements": [
        {
            "type": "Level",
            "uid": "level-G",
            "name": "Ground",
            "tags": {"floor": "G"},
            "elements": [
                {
                    "type": "Layer",
                    "uid": "spaces",
                    "name": "spaces",
                    "fill": "#eee",
                    "elements": [
                        {
                            "type": "Polygon",
                            "uid": "e3",
                            "class": "imdf-walkway",
                            "points": "100,0 200,0 200,20 100,20",
                        },
                        {
                            "type": "Path",
                            "uid": "e4",
                            "class": "imdf-stairs",
                            "fill-rule": "evenodd",
                            "d": "M200,0 L240,0 L240,40 L200,40 Z "
                            "M210,10 L220,10 L220,20 L210,20 Z",
                        },
                        {
                            "type": "Polygon",
                            "uid": "e4b",
                            "class": "decor",
                            "points": "0,0 5,0 5,5",
                        },
                        {"type": "Path", "uid": "e4c", "class": "imdf-room", "d": "M0,0 L oops"},
                    ],
                },
                {"type": "UnitLayer", "uid": "e6", "elements": [COURT]},
                {
                    "type": "Layer",
                    "uid": "openings",
                    "name": "openings",
                    "elements": [
                        {"type": "Polyline", "uid": "e8", "points": "100,5 100,15"},
                        {"type": "Polyline", "uid": "e9", "points": "150,20 150,20"},
                        {
                            "type": "Line",
                            "uid": "e10",
                            "x1": "240",
                            "y1": "10",
                            "x2": "260",
                            "y2": "10",
                        },
                    ],
                },
                {
                    "type": "Layer",
                    "uid": "doors",
                    "name": "doors",
                    "elements": [{"type": "Polyline", "uid": "e12", "points": "100,5 100,15"}],
                },
            ],
        }
    ],
}


def twice_area(ring: list[list[float]]) -> int:
    """Exact shoelace on the written 1e-7 degree grid; positive when counterclockwise."""
    grid = [(round(lon * 10**7), round(lat * 10**7)) for lon, lat in ring]
    return sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in pairwise(grid))


def features(georeference: Georeference = NORTH_UP) -> dict[str, dict[str, Any]]:
    names = {"u-court": "Cloister"}
    collection = map_geojson(DOCUMENT, georeference, [], map_id="m", unit_names=names)
    return {feature["id"]: feature for feature in collection["features"]}


def test_order_units_then_spaces_then_openings() -> None:
    assert list(features()) == [
        "level:level-G",
        "unit:u-court",
        "space:e3",
        "space:e4",  # e4b is no IMDF space; e4c's path data cannot be read
        "opening:e8",  # e9 has one distinct position; the doors layer repeats e8
        "opening:e10",
    ]


def test_a_unit_keeps_its_holes_as_clockwise_interior_rings() -> None:
    geometry = features()["unit:u-court"]["geometry"]
    assert geometry == {
        "type": "Polygon",
        "coordinates": [
            [[13.4, 52.5], [13.4, 52.4992], [13.401, 52.4992], [13.401, 52.5], [13.4, 52.5]],
            [
                [13.4002, 52.4998],
                [13.4005, 52.4998],
                [13.4005, 52.4994],
                [13.4002, 52.4994],
                [13.4002, 52.4998],
            ],
            [
                [13.4007, 52.4997],
                [13.4008, 52.4997],
                [13.4008, 52.4996],
                [13.4007, 52.4996],
                [13.4007, 52.4997],
            ],
        ],
    }


@pytest.mark.parametrize("georeference", [NORTH_UP, MIRRORED])
def test_rings_are_oriented_whatever_the_transform(georeference: Georeference) -> None:
    for feature in features(georeference).values():
        if feature["geometry"]["type"] != "Polygon":
            continue
        exterior, *holes = feature["geometry"]["coordinates"]
        assert twice_area(exterior) > 0
        assert all(twice_area(hole) < 0 for hole in holes)
        assert all(ring[0] == ring[-1] for ring in (exterior, *holes))


def test_unit_name_category_and_level() -> None:
    assert features()["unit:u-court"]["properties"] == {
        "feature_type": "unit",
        "unit_id": "u-court",
        "uid": "e5",
        "level_uid": "level-G",
        "level_name": "Ground",
        "level_ordinal": 0,
        "floor_id": "G",
        "level": "0",
        "name": "Cloister",
        "category": "room",
    }


def test_spaces_are_polygons_with_their_category_and_holes() -> None:
    found = features()
    assert found["space:e3"]["geometry"]["coordinates"] == [
        [[13.401, 52.5], [13.401, 52.4998], [13.402, 52.4998], [13.402, 52.5], [13.401, 52.5]]
    ]
    assert found["space:e3"]["properties"] == {
        "feature_type": "space",
        "uid": "e3",
        "level_uid": "level-G",
        "level_name": "Ground",
        "level_ordinal": 0,
        "floor_id": "G",
        "level": "0",
        "category": "walkway",
    }
    stairs = found["space:e4"]
    assert stairs["properties"]["category"] == "stairs"
    assert stairs["geometry"]["coordinates"][1] == [
        [13.4021, 52.4999],
        [13.4022, 52.4999],
        [13.4022, 52.4998],
        [13.4021, 52.4998],
        [13.4021, 52.4999],
    ]


def test_openings_are_lines_and_count_in_the_bbox() -> None:
    found = features()
    assert found["opening:e8"]["geometry"] == {
        "type": "LineString",
        "coordinates": [[13.401, 52.49995], [13.401, 52.49985]],
    }
    assert found["opening:e8"]["properties"] == {
        "feature_type": "opening",
        "uid": "e8",
        "level_uid": "level-G",
        "level_name": "Ground",
        "level_ordinal": 0,
        "floor_id": "G",
        "level": "0",
    }
    assert found["opening:e10"]["geometry"]["coordinates"] == [
        [13.4024, 52.4999],
        [13.4026, 52.4999],
    ]
    collection = map_geojson(DOCUMENT, NORTH_UP, [], map_id="m")
    assert collection["bbox"] == [13.4, 52.4992, 13.4026, 52.5]  # east: the opening e10


def test_a_map_without_spaces_openings_or_holes_gives_only_what_it_gave() -> None:
    plain = {
        "elements": [
            {
                "type": "Level",
                "uid": "L",
                "name": "L",
                "tags": {},
                "elements": [
                    {
                        "type": "UnitLayer",
                        "uid": "e2",
                        "elements": [
                            {
                                "type": "Unit",
                                "uid": "e3",
                                "id": "u",
                                "shape": {"type": "Rect", "points": "0,0 10,0 10,10 0,10"},
                            }
                        ],
                    }
                ],
            }
        ]
    }
    found = map_geojson(plain, NORTH_UP, [], map_id="m")["features"]
    assert [feature["id"] for feature in found] == ["level:L", "unit:u"]
    assert len(found[1]["geometry"]["coordinates"]) == 1
