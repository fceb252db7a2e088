"""The earth for the tests of WGS84 waypoints and routes: lengths (one helper,
haversine) and what a georeferenced map stores (its fit, its locations' `level`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

import orjson

from parsing.geo.georeference import ControlPoint, Georeference, fit_affine
from storage import collections as col
from storage.files import get_file

EARTH_RADIUS_M = 6_371_008.8  # the mean radius (IUGG)
METRES_PER_FOOT = 0.3048


def haversine_m(a: Sequence[float], b: Sequence[float]) -> float:
    """Metres between two [lon, lat] positions on a sphere of the earth's mean radius."""
    lon1, lat1, lon2, lat2 = map(math.radians, (a[0], a[1], b[0], b[1]))
    h = (
        math.sin((lat2 - lat1) / 2) ** 2
        + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    )
    return 2 * EARTH_RADIUS_M * math.asin(math.sqrt(h))


def line_length_m(coordinates: Sequence[Sequence[float]]) -> float:
    """A LineString's length in metres."""
    return sum(haversine_m(a, b) for a, b in pairwise(coordinates))


async def fit_of(store: Any, map_id: str) -> Georeference:
    """The map's georeference, fitted from its stored control points."""
    unit_map = await store[col.UNIT_MAPS].find_one({"_id": map_id})
    points = unit_map["georeference"]["control_points"]
    return fit_affine([ControlPoint(p["x"], p["y"], p["lon"], p["lat"]) for p in points])


async def location_levels(store: Any, map_id: str) -> dict[str, str]:
    """Each location's `level` as the map's stored GeoJSON carries it, by location id."""
    unit_map = await store[col.UNIT_MAPS].find_one({"_id": map_id})
    stored = await get_file(store, unit_map["geojson_file"])
    assert stored is not None
    features = orjson.loads(stored.data)["features"]
    return {
        f["properties"]["location_id"]: f["properties"]["level"]
        for f in features
        if f["properties"]["feature_type"] == "location"
    }
