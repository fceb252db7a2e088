"""What a vector tile draws, read from an asset's per-map GeoJSON (docs/tiles.md): each
feature's layer, its geometry in Web Mercator metres and the properties a tile carries.

An asset may draw one floor on several maps (an IMDF venue: one map per level and the
stack of all): each floor is taken from one map only, the one drawing the most levels
(ties: the first map id), so a unit is drawn once and every `level` of a tile comes from
one level order.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import orjson
import shapely
from shapely.geometry.base import BaseGeometry

EARTH_RADIUS = 6_378_137.0  # metres, EPSG:3857's sphere
MAX_LATITUDE = 85.0511287798  # Web Mercator's square world

# Source layers, bottom to top, and the properties each carries (TileJSON's `fields`).
LAYER_FIELDS: dict[str, dict[str, str]] = {
    "outline": {
        "id": "The level's uid in its drawing",
        "name": "The level's name",
        "floor_id": "The API's floor id",
        "level": "The level's ordinal, as a string (indoor=)",
    },
    "spaces": {
        "id": "The space's uid in its drawing",
        "category": "IMDF category (walkway, stairs, elevator...)",
        "floor_id": "The API's floor id",
        "level": "The level's ordinal, as a string (indoor=)",
    },
    "units": {
        "id": "The unit's id (the API's)",
        "name": "The unit's API name",
        "category": "IMDF category, when the drawing names one",
        "floor_id": "The API's floor id",
        "level": "The level's ordinal, as a string (indoor=)",
    },
    "openings": {
        "id": "The opening's uid in its drawing",
        "floor_id": "The API's floor id",
        "level": "The level's ordinal, as a string (indoor=)",
    },
    "locations": {
        "id": "The location's id (the API's)",
        "name": "The location's name",
        "category": "The location's `category` tag",
        "level": "The levels of its floors, `;`-joined (`0;1`)",
        "rank": (
            "How much a map wants its name: 0 a public place's own name, 1 a unit's "
            "number, 2 a generated name or a non-public place (named only zoomed in)"
        ),
    },
}
LAYERS = tuple(LAYER_FIELDS)
# How much a map wants a location's name, from its name and tags (`label_rank` of
# parsing/imdf, given by the caller: this wing is below the IMDF one).
RankOf = Callable[[str, Mapping[str, Any]], int]
_LAYER_OF = {"level": "outline", "space": "spaces", "unit": "units", "opening": "openings"}
_ID_OF = {"level": "uid", "space": "uid", "unit": "unit_id", "opening": "uid"}


@dataclass(frozen=True, slots=True)
class TileFeature:
    """A feature of one source layer: Web Mercator geometry, properties without nulls."""

    layer: str
    geometry: BaseGeometry
    properties: dict[str, str]


def mercator(lon_lat: np.ndarray) -> np.ndarray:
    """(lon, lat) degrees to EPSG:3857 metres, latitudes clamped to the square world."""
    lon = np.radians(lon_lat[:, 0])
    lat = np.radians(np.clip(lon_lat[:, 1], -MAX_LATITUDE, MAX_LATITUDE))
    return np.column_stack(
        (EARTH_RADIUS * lon, EARTH_RADIUS * np.log(np.tan(math.pi / 4 + lat / 2)))
    )


def owners(collections: Sequence[dict[str, Any]]) -> list[set[Any]]:
    """For each collection (in map id order), the floors it is the source of: each floor
    goes to the collection with the most level features among those drawing it. A
    collection with no floor-tagged level owns its untagged features (`None`)."""
    floors_of = [{_floor(f) for f in c["features"] if _kind(f) != "location"} for c in collections]
    levels = [sum(_kind(f) == "level" for f in c["features"]) for c in collections]
    owned: list[set[Any]] = [set() for _ in collections]
    for floor in set().union(*floors_of) - {None}:
        drawing = [i for i, floors in enumerate(floors_of) if floor in floors]
        owned[max(drawing, key=lambda i: (levels[i], -i))].add(floor)
    for i, floors in enumerate(floors_of):
        if floors <= {None}:
            owned[i].add(None)
    return owned


def tile_features(
    collections: Sequence[dict[str, Any]], rank: RankOf | None = None
) -> list[TileFeature]:
    """Every feature the tiles of these collections draw (each from its floor's source
    map, `owners`), in layer order; a feature without a `level` is left out (a style
    filters by level, so it could never be shown). A named location's `rank` is
    `rank(name, tags)` when given."""
    found: list[tuple[str, dict[str, Any], dict[str, str]]] = []
    for collection, owned in zip(collections, owners(collections), strict=True):
        found += _features_of(collection["features"], owned, rank)
    order = {layer: n for n, layer in enumerate(LAYERS)}
    found.sort(key=lambda row: order[row[0]])
    # Read by GEOS and projected all at once: per feature, Python's calls cost more than
    # the work (the same geometries as `shapely.geometry.shape` and a transform each). A
    # geometry GEOS cannot read (an unclosed ring) is empty: the index leaves it out.
    shapes = shapely.from_geojson([orjson.dumps(row[1]) for row in found], on_invalid="ignore")
    shapes[shapely.is_missing(shapes)] = shapely.Point()
    projected = shapely.transform(shapes, mercator)
    return [
        TileFeature(layer, shape, properties)
        for (layer, _, properties), shape in zip(found, projected, strict=True)
    ]


def _kind(feature: dict[str, Any]) -> str:
    return str((feature.get("properties") or {}).get("feature_type"))


def _floor(feature: dict[str, Any]) -> Any:
    """The floor a level, unit, space or opening is on (a level's own `floor` tag)."""
    properties = feature.get("properties") or {}
    if _kind(feature) == "level":
        return (properties.get("tags") or {}).get("floor")
    return properties.get("floor_id")


def _features_of(
    features: Iterable[dict[str, Any]], owned: set[Any], rank: RankOf | None
) -> list[tuple[str, dict[str, Any], dict[str, str]]]:
    """(layer, GeoJSON geometry, properties) of the features drawn from these."""
    kept = []
    for feature in features:
        properties = feature.get("properties") or {}
        geometry = feature.get("geometry")
        level = properties.get("level")
        if geometry is None or not isinstance(level, str):
            continue
        kind = _kind(feature)
        if kind == "location":
            floors = properties.get("floor_ids") or [None]
            if not owned.intersection(f for f in floors if isinstance(f, str) or f is None):
                continue
            tags = properties.get("tags") or {}
            name = properties.get("name")
            values = {
                "id": properties.get("location_id"),
                "name": name,
                "category": tags.get("category"),
                "level": level,
                "rank": int(rank(name, tags)) if rank and isinstance(name, str) else None,
            }
            layer = "locations"
        elif kind in _LAYER_OF:
            floor = _floor(feature)
            if floor not in owned:
                continue
            layer = _LAYER_OF[kind]
            values = {
                "id": properties.get(_ID_OF[kind]),
                "name": properties.get("name"),
                "category": properties.get("category"),
                "floor_id": floor,
                "level": level,
            }
        else:
            continue
        fields = LAYER_FIELDS[layer]
        kept.append(
            (
                layer,
                geometry,
                {k: str(v) for k, v in values.items() if k in fields and v is not None},
            )
        )
    return kept
