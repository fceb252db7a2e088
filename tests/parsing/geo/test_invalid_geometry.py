"""Invalid polygons never fail a tile, and none is stored (issue 65, point 1): GEOS
refuses to clip an invalid polygon ("side location conflict"), which answered 500 on
Grand'Place. Pure: a drawing through `map_geojson` (what an import stores), and stored
GeoJSON files as an older import wrote them through `tile_features`, `build_index` and
`encode_tile`, every tile z14-18 over their bounds."""

from __future__ import annotations

import math
from typing import Any

import mapbox_vector_tile
import orjson
import pytest
import shapely
from shapely import STRtree

from parsing.geo.geojson import map_geojson, repairs_summary
from parsing.geo.georeference import Georeference
from parsing.geo.tile_features import tile_features
from parsing.geo.tiles import TileIndex, build_index, encode_tile

# canvas unit = 1e-5 degree (about a metre); the GeoJSON grid, 1e-7 degree, is 0.01 unit
NORTH_UP = Georeference((1e-5, 0.0, 4.35, 0.0, -1e-5, 50.85), 0.0, 0.0, 4)
SQUARE = [(0, 0), (10, 0), (10, 10), (0, 10)]

# polygons as a drawing gives them (canvas units), by unit id
DRAWN: dict[str, tuple[list[tuple[float, float]], list[list[tuple[float, float]]]]] = {
    "room": (SQUARE, []),
    "bowtie": ([(20, 0), (30, 10), (30, 0), (20, 10)], []),  # crossing itself, equal halves
    "bowtie-uneven": ([(40, 0), (52, 10), (52, 0), (40, 14)], []),
    # a spike 0.008 units wide: valid as drawn, folded onto itself once on the grid
    "rounded-spike": (
        [(60, 0), (70, 0), (70, 10), (65.004, 10), (65, 20), (64.996, 10), (60, 10)],
        [],
    ),
    "hole-across-shell": ([(80, 0), (90, 0), (90, 10), (80, 10)], [[(78, 5), (85, 4), (85, 6)]]),
    "duplicate-points": ([(100, 0), (100, 0), (110, 0), (110, 10), (110, 10), (100, 10)], []),
    "collinear": ([(120, 0), (125, 0), (130, 0)], []),
    "sliver": ([(140, 0), (150, 0), (150, 0.02)], []),  # 2 grid steps high: valid, kept
}


def points(ring: list[tuple[float, float]]) -> str:
    return " ".join(f"{x},{y}" for x, y in ring)


def drawing() -> dict[str, Any]:
    units = [
        {
            "type": "Unit",
            "uid": f"e{n}",
            "id": unit_id,
            "shape": {
                "type": "Polygon",
                "points": points(ring),
                "holes": [points(h) for h in holes],
            },
        }
        for n, (unit_id, (ring, holes)) in enumerate(DRAWN.items())
    ]
    level = {"type": "Level", "uid": "L0", "name": "Ground", "tags": {"floor": "f0"}}
    return {"elements": [{**level, "elements": units}]}


def test_the_stored_geojson_is_valid_and_names_what_was_repaired_or_left_out() -> None:
    collection = map_geojson(drawing(), NORTH_UP, [], map_id="m")
    units = {
        f["properties"]["unit_id"]: f["geometry"]
        for f in collection["features"]
        if f["properties"]["feature_type"] == "unit"
    }
    for geometry in units.values():
        assert shapely.from_geojson(orjson.dumps(geometry)).is_valid
    assert sorted(units) == sorted(set(DRAWN) - {"collinear"})
    assert {name: geometry["type"] for name, geometry in units.items()} == {
        "room": "Polygon",
        "bowtie": "MultiPolygon",  # its two triangles
        "bowtie-uneven": "MultiPolygon",
        "rounded-spike": "Polygon",  # the square, the spike gone
        "hole-across-shell": "Polygon",
        "duplicate-points": "Polygon",
        "sliver": "Polygon",
    }
    area = {n: shapely.from_geojson(orjson.dumps(g)).area / 1e-10 for n, g in units.items()}
    assert area["bowtie"] == pytest.approx(50)  # two triangles of 25
    assert area["bowtie-uneven"] == pytest.approx(74)
    assert area["rounded-spike"] == pytest.approx(100)
    # the square less the part of the triangle (area 7) inside it: 7 - 4/7
    assert area["hole-across-shell"] == pytest.approx(100 - (7 - 4 / 7), rel=1e-3)
    assert area["sliver"] == pytest.approx(0.1)
    assert repairs_summary(collection) == (
        "geometry: 4 invalid polygons repaired ("
        "unit:bowtie: self-intersection at 4.35025 50.84995; "
        "unit:bowtie-uneven: self-intersection at 4.35047 50.8499417; "
        "unit:rounded-spike: ring self-intersection at 4.35065 50.8499; "
        "unit:hole-across-shell: self-intersection at 4.3508 50.8499471), "
        "1 invalid polygon left out: no area once made valid ("
        "unit:collinear: self-intersection at 4.35125 50.85)"
    )


def test_a_valid_drawing_is_written_as_before_and_reports_nothing() -> None:
    square = {
        "elements": [
            {
                "type": "Level",
                "uid": "L",
                "name": "L",
                "tags": {},
                "elements": [
                    {"type": "Unit", "uid": "e0", "id": "u0", "shape": {"points": points(SQUARE)}}
                ],
            }
        ]
    }
    collection = map_geojson(square, NORTH_UP, [], map_id="m")
    assert "repaired" not in collection["floorgate"]
    assert repairs_summary(collection) is None


def stored(features: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """A stored GeoJSON file of units, as an import before issue 65 could write it."""
    return {
        "type": "FeatureCollection",
        "features": [
            {
                "type": "Feature",
                "id": f"unit:{unit_id}",
                "geometry": geometry,
                "properties": {
                    "feature_type": "unit",
                    "unit_id": unit_id,
                    "floor_id": "f0",
                    "level": "0",
                },
            }
            for unit_id, geometry in features
        ],
    }


# polygons as an older import could store them (degrees), by unit id
D = 1e-5


def ring(*xy: tuple[float, float]) -> list[list[float]]:
    return [[4.35 + x * D, 50.85 + y * D] for x, y in [*xy, xy[0]]]


STORED: list[tuple[str, dict[str, Any]]] = [
    ("room", {"type": "Polygon", "coordinates": [ring((0, 0), (10, 0), (10, 10), (0, 10))]}),
    ("bowtie", {"type": "Polygon", "coordinates": [ring((20, 0), (30, 10), (30, 0), (20, 10))]}),
    (
        "spike",
        {
            "type": "Polygon",
            "coordinates": [
                ring((40, 0), (50, 0), (50, 10), (45, 10), (45, 20), (45, 10), (40, 10))
            ],
        },
    ),
    (
        "hole-across-shell",
        {
            "type": "Polygon",
            "coordinates": [
                ring((60, 0), (70, 0), (70, 10), (60, 10)),
                ring((58, 5), (65, 6), (65, 4)),
            ],
        },
    ),
    ("zero-area", {"type": "Polygon", "coordinates": [ring((80, 0), (85, 0), (90, 0))]}),
    ("collapsed", {"type": "Polygon", "coordinates": [ring((95, 0), (95, 0), (95, 0))]}),
    ("unclosed", {"type": "Polygon", "coordinates": [ring((100, 0), (110, 0), (110, 10))[:-1]]}),
    (
        "duplicate-points",
        {
            "type": "Polygon",
            "coordinates": [ring((120, 0), (120, 0), (130, 0), (130, 10), (120, 10))],
        },
    ),
    ("sliver", {"type": "Polygon", "coordinates": [ring((140, 0), (150, 0), (150, 0.01))]}),
]
KEPT = {"room", "bowtie", "spike", "hole-across-shell", "duplicate-points", "sliver"}


def tile_of(lon: float, lat: float, z: int) -> tuple[int, int]:
    n = 1 << z
    x = int((lon + 180) / 360 * n)
    y = int((1 - math.asinh(math.tan(math.radians(lat))) / math.pi) / 2 * n)
    return x, y


def every_tile(index: TileIndex) -> list[tuple[int, int, int]]:
    assert index.bounds is not None
    west, south, east, north = index.bounds
    found = []
    for z in range(14, 19):
        (x0, y0), (x1, y1) = tile_of(west, north, z), tile_of(east, south, z)
        found += [(z, x, y) for x in range(x0, x1 + 1) for y in range(y0, y1 + 1)]
    return found


def drawn_units(data: bytes) -> set[str]:
    layers = mapbox_vector_tile.decode(data)
    return {f["properties"]["id"] for f in layers.get("units", {}).get("features", [])}


def test_the_index_repairs_or_leaves_out_each_invalid_feature_once() -> None:
    index = build_index(tile_features([stored(STORED)]))
    assert index.repaired == ("units:bowtie", "units:spike", "units:hole-across-shell")
    assert index.left_out == ("units:zero-area", "units:collapsed", "units:unclosed")
    assert {f.properties["id"] for f in index.features} == KEPT
    assert all(f.geometry.is_valid for f in index.features)
    tiles = every_tile(index)
    assert len(tiles) == 10  # 2 at each zoom: lon 4.35 is near a tile edge at z14-18
    seen: set[str] = set()
    for z, x, y in tiles:
        tile = encode_tile(index, z, x, y, 20_000, 2 << 20)
        assert tile.left_out == 0
        seen |= drawn_units(tile.data)
    assert seen == KEPT


def test_a_tile_clips_a_feature_geos_refuses_after_making_it_valid() -> None:
    """An index built before its features were checked (here: by hand): the vectorised
    clip raises, each feature is clipped alone and the invalid ones made valid first."""
    features = [f for f in tile_features([stored(STORED)]) if not f.geometry.is_empty]
    bounds = build_index(features).bounds
    index = TileIndex(tuple(features), STRtree([f.geometry for f in features]), bounds, ("0",))
    with pytest.raises(shapely.errors.GEOSException):
        shapely.intersection([f.geometry for f in features], shapely.box(0, 0, 1e8, 1e8))
    seen: set[str] = set()
    for z, x, y in every_tile(index):
        tile = encode_tile(index, z, x, y, 20_000, 2 << 20)
        assert tile.left_out == 0
        seen |= drawn_units(tile.data)
    assert seen == KEPT  # the zero-area one clips to a line: no polygon left to draw
