"""GeoJSON of a georeferenced map: exact coordinates, rings, order, ids, bbox and bytes."""

from __future__ import annotations

import math
from itertools import pairwise
from typing import Any

import orjson
import pytest
import shapely
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from parsing.geo.geojson import geojson_bytes, map_geojson
from parsing.geo.georeference import ControlPoint, Georeference, GeoreferenceError, fit_affine
from tests.examples import examples

# 1 px = 1e-5 degrees. NORTH_UP flips orientation (canvas y down, latitude up); MIRRORED keeps it.
NORTH_UP = Georeference((1e-5, 0.0, 13.4, 0.0, -1e-5, 52.5), 0.1234, 0.5678, 4)
MIRRORED = Georeference((1e-5, 0.0, 13.4, 0.0, 1e-5, 52.5), 0.0, 0.0, 3)


def unit(uid: str, unit_id: str, points: str) -> dict[str, Any]:
    return {
        "type": "Unit",
        "uid": uid,
        "id": unit_id,
        "shape": {"type": "Polygon", "fill": "#fff", "points": points},
    }


DOCUMENT: dict[str, Any] = {
    "version": "1.2",
    "type": "application/vnd.map+json",
    "width": 400,
    "height": 300,
    "elements": [
        {
            "type": "Level",
            "uid": "L1",
            "name": "Level 1",
            "tags": {"building": "b1", "floor": "f1"},
            "elements": [
                {
                    "type": "HitAreaLayer",
                    "uid": "e3",
                    "elements": [
                        {
                            "type": "HitArea",
                            "uid": "e4",
                            "target": {"id": "u-101", "type": "Unit"},
                            "shape": {"type": "Polygon", "points": "0,0 100,0 100,50 0,50"},
                        }
                    ],
                },
                {
                    "type": "Layer",
                    "uid": "furniture",
                    "name": "furniture",
                    "elements": [
                        {
                            "type": "UnitLayer",
                            "uid": "e6",
                            "elements": [unit("e7", "u-101", "10,10 110,10 110,90 10,90")],
                        }
                    ],
                },
                {
                    "type": "UnitLayer",
                    "uid": "e8",
                    "elements": [
                        unit("e9", "u-101", "120,10 200,10 200,90 120,90"),  # the id again
                        unit("e10", "u-line", "0,0 50,0 50,0 0,0"),
                    ],
                },
            ],
        },  # two distinct points
        {
            "type": "Level",
            "uid": "L2",
            "name": "Level 2",
            "tags": {},
            "elements": [
                {
                    "type": "Layer",
                    "uid": "walls",
                    "name": "walls",
                    "elements": [
                        {"type": "Line", "uid": "e14", "x1": "0", "y1": "0", "x2": "400", "y2": "0"}
                    ],
                }
            ],
        },
        {
            "type": "Level",
            "uid": "L3",
            "name": "Level 3",
            "tags": {"floor": "f3"},
            "elements": [
                {
                    "type": "UnitLayer",
                    "uid": "e16",
                    "elements": [
                        unit("e17", "u-301", "300,100 300,100 380,100 380,180 300,180 300,100")
                    ],
                }
            ],
        },
        {
            "type": "UnitLayer",
            "uid": "e18",
            "elements": [unit("e19", "u-lobby", "0,200 40,200 20,240")],
        },
    ],
}

LOCATIONS: list[dict[str, Any]] = [
    {
        "id": "loc-1",
        "asset_id": "b1",
        "unit_map_id": "m1",
        "name": "Pool",
        "x": 196.0,
        "y": 530.0,
        "floors": [{"id": "b1-f1"}, {"id": "b1-f2"}],
        "tags": [
            {
                "key": "svc:amenity",
                "value": "yes",
                "created_at": "2026-01-15T09:00:00+00:00",
                "updated_at": "2026-01-15T09:00:00+00:00",
            },
            {"key": "hours", "value": "6-22"},
        ],
    },
    {"id": "loc-2", "name": "Gym", "x": 0.5, "y": 0.25, "floors": [{"id": "b1-f1"}], "tags": []},
]


def features_by_id(collection: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {feature["id"]: feature for feature in collection["features"]}


def ring_of(feature: dict[str, Any]) -> list[list[float]]:
    assert feature["geometry"]["type"] == "Polygon"
    rings = feature["geometry"]["coordinates"]
    assert len(rings) == 1
    return rings[0]


def twice_area(ring: list[list[float]]) -> int:
    """Exact shoelace on the written 1e-7 degree grid; positive when counterclockwise."""
    grid = [(round(lon * 10**7), round(lat * 10**7)) for lon, lat in ring]
    return sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in pairwise(grid))


# --- the hand-made document -------------------------------------------------------------


def test_feature_order_and_ids() -> None:
    collection = map_geojson(DOCUMENT, NORTH_UP, LOCATIONS, map_id="m1")
    assert [feature["id"] for feature in collection["features"]] == [
        "level:L1",
        "level:L3",  # L2 has no units or hit areas
        "unit:u-101",
        "unit:u-101~2",
        "unit:u-301",
        "unit:u-lobby",  # u-line has no area
        "location:loc-1",
        "location:loc-2",
    ]
    assert all(feature["type"] == "Feature" for feature in collection["features"])


def test_top_level_members() -> None:
    collection = map_geojson(DOCUMENT, NORTH_UP, LOCATIONS, map_id="m1")
    assert list(collection) == ["type", "features", "bbox", "floorgate"]
    assert collection["type"] == "FeatureCollection"
    assert "crs" not in collection
    # west: x 0; south: the Pool at y 530; east: u-301 at x 380; north: y 0.
    assert collection["bbox"] == [13.4, 52.4947, 13.4038, 52.5]
    assert collection["floorgate"] == {
        "map_id": "m1",
        "rms_residual_m": 0.123,
        "max_residual_m": 0.568,
    }


def test_units_with_a_flipping_transform_are_reversed_to_counterclockwise() -> None:
    features = features_by_id(map_geojson(DOCUMENT, NORTH_UP, [], map_id="m1"))
    # Canvas order (10,10) (110,10) (110,90) (10,90) runs clockwise on the earth: reversed,
    # keeping the first point first.
    assert ring_of(features["unit:u-101"]) == [
        [13.4001, 52.4999],
        [13.4001, 52.4991],
        [13.4011, 52.4991],
        [13.4011, 52.4999],
        [13.4001, 52.4999],
    ]
    assert ring_of(features["unit:u-101~2"]) == [
        [13.4012, 52.4999],
        [13.4012, 52.4991],
        [13.402, 52.4991],
        [13.402, 52.4999],
        [13.4012, 52.4999],
    ]
    # Repeated point and the closing duplicate dropped, then reversed and closed again.
    assert ring_of(features["unit:u-301"]) == [
        [13.403, 52.499],
        [13.403, 52.4982],
        [13.4038, 52.4982],
        [13.4038, 52.499],
        [13.403, 52.499],
    ]
    assert ring_of(features["unit:u-lobby"]) == [
        [13.4, 52.498],
        [13.4002, 52.4976],
        [13.4004, 52.498],
        [13.4, 52.498],
    ]


def test_units_with_a_mirroring_transform_keep_their_order() -> None:
    features = features_by_id(map_geojson(DOCUMENT, MIRRORED, [], map_id="m1"))
    assert ring_of(features["unit:u-101"]) == [
        [13.4001, 52.5001],
        [13.4011, 52.5001],
        [13.4011, 52.5009],
        [13.4001, 52.5009],
        [13.4001, 52.5001],
    ]
    assert ring_of(features["unit:u-lobby"]) == [
        [13.4, 52.502],
        [13.4004, 52.502],
        [13.4002, 52.5024],
        [13.4, 52.502],
    ]


@pytest.mark.parametrize("georeference", [NORTH_UP, MIRRORED])
def test_every_ring_is_closed_and_counterclockwise(georeference: Georeference) -> None:
    collection = map_geojson(DOCUMENT, georeference, [], map_id="m1")
    for feature in collection["features"]:
        ring = ring_of(feature)
        assert ring[0] == ring[-1]
        assert twice_area(ring) > 0


def test_unit_properties() -> None:
    names = {"u-101": "Pool Hall", "u-lobby": "Lobby"}
    collection = map_geojson(DOCUMENT, NORTH_UP, [], map_id="m1", unit_names=names)
    features = features_by_id(collection)
    assert features["unit:u-101"]["properties"] == {
        "feature_type": "unit",
        "unit_id": "u-101",
        "uid": "e7",
        "level_uid": "L1",
        "level_name": "Level 1",
        "level_ordinal": 0,
        "floor_id": "f1",
        "level": "0",
        "name": "Pool Hall",
        "category": None,  # no imdf-<category> class
    }
    assert features["unit:u-101~2"]["properties"]["uid"] == "e9"
    assert features["unit:u-101~2"]["properties"]["name"] == "Pool Hall"
    assert features["unit:u-301"]["properties"]["level_uid"] == "L3"
    assert features["unit:u-301"]["properties"]["level_ordinal"] == 2
    assert features["unit:u-301"]["properties"]["name"] is None  # not in unit_names
    assert features["unit:u-lobby"]["properties"] == {
        "feature_type": "unit",
        "unit_id": "u-lobby",
        "uid": "e19",
        "level_uid": None,
        "level_name": None,
        "level_ordinal": None,
        "floor_id": None,
        "level": None,
        "name": "Lobby",
        "category": None,
    }


def test_levels_are_the_bounding_box_of_their_units_and_hit_areas() -> None:
    features = features_by_id(map_geojson(DOCUMENT, NORTH_UP, [], map_id="m1"))
    # L1: the hit area reaches (0, 0), the second u-101 x 200, the units y 90; the
    # degenerate u-line has no feature but its points still count.
    assert features["level:L1"]["geometry"] == {
        "type": "Polygon",
        "coordinates": [
            [
                [13.4, 52.4991],
                [13.402, 52.4991],
                [13.402, 52.5],
                [13.4, 52.5],
                [13.4, 52.4991],
            ]
        ],
    }
    assert features["level:L1"]["properties"] == {
        "feature_type": "level",
        "uid": "L1",
        "name": "Level 1",
        "tags": {"building": "b1", "floor": "f1"},
        "ordinal": 0,
        "level": "0",
    }
    assert ring_of(features["level:L3"]) == [
        [13.403, 52.4982],
        [13.4038, 52.4982],
        [13.4038, 52.499],
        [13.403, 52.499],
        [13.403, 52.4982],
    ]
    # The ordinal counts L2 although L2 has no feature.
    assert features["level:L3"]["properties"] == {
        "feature_type": "level",
        "uid": "L3",
        "name": "Level 3",
        "tags": {"floor": "f3"},
        "ordinal": 2,
        "level": "2",
    }


def test_level_bbox_with_a_mirroring_transform() -> None:
    features = features_by_id(map_geojson(DOCUMENT, MIRRORED, [], map_id="m1"))
    assert ring_of(features["level:L1"]) == [
        [13.4, 52.5],
        [13.402, 52.5],
        [13.402, 52.5009],
        [13.4, 52.5009],
        [13.4, 52.5],
    ]


def test_locations() -> None:
    features = features_by_id(map_geojson(DOCUMENT, NORTH_UP, LOCATIONS, map_id="m1"))
    assert features["location:loc-1"] == {
        "type": "Feature",
        "id": "location:loc-1",
        "geometry": {"type": "Point", "coordinates": [13.40196, 52.4947]},
        "properties": {
            "feature_type": "location",
            "location_id": "loc-1",
            "name": "Pool",
            "floor_ids": ["b1-f1", "b1-f2"],
            "level": None,  # neither floor is a level of this drawing
            "tags": {"svc:amenity": "yes", "hours": "6-22"},
        },
    }
    assert features["location:loc-2"]["geometry"] == {
        "type": "Point",
        "coordinates": [13.400005, 52.4999975],
    }
    assert features["location:loc-2"]["properties"]["tags"] == {}


def test_coordinates_are_rounded_to_seven_decimals_without_negative_zero() -> None:
    # lon = 1e-9*x - 4e-8 rounds to 0; lat = 1.23456789 + ... rounds to 7 decimals.
    georeference = Georeference((1e-9, 0.0, -4e-8, 0.0, -1e-9, 1.23456789), 0.0, 0.0, 3)
    collection = map_geojson({"elements": []}, georeference, [LOCATIONS[1]], map_id="m")
    lon, lat = collection["features"][0]["geometry"]["coordinates"]
    assert (lon, lat) == (0.0, 1.2345679)
    assert math.copysign(1.0, lon) == 1.0
    assert b'"coordinates":[0.0,1.2345679]' in geojson_bytes(collection)


def test_collection_from_a_fit() -> None:
    points = [
        ControlPoint(x, y, 13.4 + x * 1e-5, 52.5 - y * 1e-5)
        for x, y in [(0, 0), (400, 0), (400, 300), (0, 300)]
    ]
    fit = fit_affine(points)
    collection = map_geojson(DOCUMENT, fit, [], map_id="m1")
    assert collection["floorgate"] == {"map_id": "m1", "rms_residual_m": 0.0, "max_residual_m": 0.0}
    assert ring_of(features_by_id(collection)["unit:u-lobby"]) == [
        [13.4, 52.498],
        [13.4002, 52.4976],
        [13.4004, 52.498],
        [13.4, 52.498],
    ]


# --- edge cases ------------------------------------------------------------------------


def test_a_document_without_levels_or_features() -> None:
    collection = map_geojson({"elements": []}, NORTH_UP, [], map_id="empty")
    assert collection == {
        "type": "FeatureCollection",
        "features": [],
        "floorgate": {"map_id": "empty", "rms_residual_m": 0.123, "max_residual_m": 0.568},
    }


def test_units_outside_any_level_and_a_level_nested_in_a_layer() -> None:
    document = {
        "elements": [
            unit("e2", "u-1", "0,0 10,0 0,10"),
            {
                "type": "Layer",
                "uid": "e3",
                "name": "site",
                "elements": [
                    {
                        "type": "Level",
                        "uid": "G",
                        "name": "Ground",
                        "tags": {},
                        "elements": [
                            {
                                "type": "UnitLayer",
                                "uid": "e5",
                                "elements": [unit("e6", "u-2", "0,0 10,0 0,10")],
                            }
                        ],
                    }
                ],
            },
        ]
    }
    features = map_geojson(document, NORTH_UP, [], map_id="m")["features"]
    assert [feature["id"] for feature in features] == ["level:G", "unit:u-1", "unit:u-2"]
    assert features[1]["properties"]["level_uid"] is None
    assert features[2]["properties"]["level_uid"] == "G"
    assert features[0]["properties"]["ordinal"] == 0


def test_deep_nesting_needs_no_recursion() -> None:
    inner: dict[str, Any] = {
        "type": "UnitLayer",
        "uid": "units",
        "elements": [unit("u", "u-deep", "0,0 10,0 0,10")],
    }
    for depth in range(5000):
        inner = {"type": "Layer", "uid": f"g{depth}", "elements": [inner]}
    features = map_geojson({"elements": [inner]}, NORTH_UP, [], map_id="m")["features"]
    assert [feature["id"] for feature in features] == ["unit:u-deep"]


def test_unit_ids_stay_unique_when_a_suffix_is_taken() -> None:
    document = {
        "elements": [
            unit(f"e{n}", unit_id, "0,0 10,0 0,10")
            for n, unit_id in enumerate(["a", "a~2", "a", "a"])
        ]
    }
    features = map_geojson(document, NORTH_UP, [], map_id="m")["features"]
    assert [feature["id"] for feature in features] == ["unit:a", "unit:a~2", "unit:a~3", "unit:a~4"]


def test_shapes_that_collapse_on_the_grid_are_skipped() -> None:
    # 1e-4 px is 1e-9 degrees: all three points round to one grid point.
    document = {
        "elements": [
            unit("e1", "tiny", "0,0 0.0001,0 0,0.0001"),
            unit("e2", "flat", "0,0 10,0 20,0"),  # collinear: zero area
            unit("e3", "bare", ""),
        ]
    }
    assert map_geojson(document, NORTH_UP, [], map_id="m")["features"] == []


def test_malformed_points_name_the_element() -> None:
    document = {"elements": [unit("e7", "u-1", "0,0 10;0 0,10")]}
    with pytest.raises(ValueError, match=r"^Unit 'e7': malformed point '10;0' in shape points$"):
        map_geojson(document, NORTH_UP, [], map_id="m")


def test_a_transform_that_leaves_the_earth_is_refused() -> None:
    far = Georeference((1.0, 0.0, 170.0, 0.0, -1.0, 0.0), 0.0, 0.0, 3)
    document = {"elements": [unit("e7", "u-1", "0,0 5,0 11,0 0,10")]}
    with pytest.raises(GeoreferenceError) as caught:
        map_geojson(document, far, [], map_id="m")
    assert str(caught.value) == (
        "Unit 'e7' maps to lon 181, lat 0, outside WGS84 range: "
        "the georeference does not fit this map"
    )


# --- bytes -------------------------------------------------------------------------------


def test_bytes_are_sorted_compact_json() -> None:
    collection = map_geojson({"elements": []}, NORTH_UP, [LOCATIONS[1]], map_id="m1")
    assert geojson_bytes(collection) == (
        b'{"bbox":[13.400005,52.4999975,13.400005,52.4999975],"features":[{"geometry":'
        b'{"coordinates":[13.400005,52.4999975],"type":"Point"},"id":"location:loc-2",'
        b'"properties":{"feature_type":"location","floor_ids":["b1-f1"],"level":null,'
        b'"location_id":"loc-2","name":"Gym","tags":{}},"type":"Feature"}],"floorgate":{"map_id":"m1",'
        b'"max_residual_m":0.568,"rms_residual_m":0.123},"type":"FeatureCollection"}'
    )


def test_bytes_are_deterministic_and_round_trip() -> None:
    first = geojson_bytes(map_geojson(DOCUMENT, NORTH_UP, LOCATIONS, map_id="m1"))
    second = geojson_bytes(map_geojson(DOCUMENT, NORTH_UP, LOCATIONS, map_id="m1"))
    assert first == second
    assert orjson.loads(first) == map_geojson(DOCUMENT, NORTH_UP, LOCATIONS, map_id="m1")


# --- any polygon, any transform -----------------------------------------------------------


@st.composite
def transforms(draw: st.DrawFn) -> Georeference:
    """Rotation, scale, shear and either orientation, near an arbitrary place."""
    a, b, d, e = (draw(st.floats(-2e-5, 2e-5)) for _ in range(4))
    assume(abs(a * e - b * d) > 1e-12)
    c = draw(st.floats(-170, 170))
    f = draw(st.floats(-80, 80))
    return Georeference((a, b, c, d, e, f), 0.0, 0.0, 3)


canvas_point = st.tuples(st.integers(-2000, 2000), st.integers(-2000, 2000))
shapes = st.lists(st.lists(canvas_point, min_size=1, max_size=12), min_size=1, max_size=8)


@settings(max_examples=examples(300), deadline=None)
@given(transforms(), shapes)
def test_every_polygon_is_closed_and_counterclockwise(
    georeference: Georeference, polygons: list[list[tuple[int, int]]]
) -> None:
    document = {
        "elements": [
            {
                "type": "Level",
                "uid": "L",
                "name": "L",
                "tags": {},
                "elements": [
                    unit(f"e{n}", f"u{n}", " ".join(f"{x},{y}" for x, y in points))
                    for n, points in enumerate(polygons)
                ],
            }
        ]
    }
    collection = map_geojson(document, georeference, [], map_id="m")
    for feature in collection["features"]:
        geometry = feature["geometry"]
        # a self-crossing ring is repaired into the parts it encloses (issue 65)
        assert shapely.from_geojson(orjson.dumps(geometry)).is_valid
        parts = geometry["coordinates"]
        for polygon in [parts] if geometry["type"] == "Polygon" else parts:
            for n, ring in enumerate(polygon):
                assert len(ring) >= 4
                assert ring[0] == ring[-1]
                assert (twice_area(ring) > 0) is (n == 0)  # holes clockwise
                assert all(p != q for p, q in pairwise(ring))
                assert len({tuple(position) for position in ring}) >= 3
                for lon, lat in ring:
                    assert round(lon, 7) == lon and round(lat, 7) == lat
                    west, south, east, north = collection["bbox"]
                    assert west <= lon <= east and south <= lat <= north
    units = [f for f in collection["features"] if f["properties"]["feature_type"] == "unit"]
    assert len(units) <= len(polygons)
    repaired = collection["floorgate"].get("repaired", [])
    assert {r["id"] for r in repaired if r["action"] == "repaired"} <= {f["id"] for f in units}


def test_level_is_the_height_when_given_else_the_position_and_joined_for_locations() -> None:
    """`level` (docs/geojson.md): a Level's height where the stored map gives a whole one
    (`level_heights`, by uid: the drawing's `data-level-height`), else its position; a
    location on two floors drawn here gets both, `;`-joined in numeric order."""
    square = "0,0 10,0 10,10 0,10"
    document = {
        "elements": [
            {
                "type": "Level",
                "uid": f"L{n}",
                "name": f"Level {n}",
                "tags": {"floor": f"f{n}"},
                "elements": [
                    {"type": "Unit", "uid": f"e{n}", "id": f"u{n}", "shape": {"points": square}}
                ],
            }
            for n in range(3)
        ]
    }
    location = {"id": "stairs", "x": 5, "y": 5, "floors": [{"id": "f1"}, {"id": "f0"}]}
    heights: dict[str, Any] = {"L0": -1, "L2": True}  # a bool is no height: L2 by position
    collection = map_geojson(document, NORTH_UP, [location], map_id="m1", level_heights=heights)
    features = features_by_id(collection)
    assert [features[f"level:L{n}"]["properties"]["level"] for n in range(3)] == ["-1", "1", "2"]
    assert [features[f"unit:u{n}"]["properties"]["level"] for n in range(3)] == ["-1", "1", "2"]
    assert features["location:stairs"]["properties"]["level"] == "-1;1"
