"""An OSM extract as GeoJSON (overpass-turbo, osmtogeojson, JOSM's export): a
FeatureCollection whose features carry OSM tags as properties and an `id` such as
`way/123` (docs/osm.md). Data (c) OpenStreetMap contributors, ODbL."""

from __future__ import annotations

from typing import Any

import orjson

from parsing.imdf.read import MAX_NESTING, nested_deeper, shown
from parsing.osm.limits import MAX_OSM_FEATURES
from parsing.osm.model import OsmData, OsmError, OsmFeature

# Properties that are an OSM element's metadata or a renderer's style, not its tags.
NOT_TAGS = frozenset(
    {
        "id",
        "@id",
        "@relations",
        "timestamp",
        "version",
        "changeset",
        "user",
        "uid",
        "fill",
        "fill-opacity",
        "stroke",
        "stroke-opacity",
        "stroke-width",
    }
)
GEOMETRY_TYPES = frozenset(
    {"Point", "LineString", "Polygon", "MultiPoint", "MultiLineString", "MultiPolygon"}
)
FORM = "OSM GeoJSON (Simple Indoor Tagging)"


def read_osm_geojson(data: bytes, name: str) -> OsmData:
    """The features of one GeoJSON FeatureCollection (or array of features), or an
    OsmError naming `name` and the problem."""
    try:
        document = orjson.loads(data)
    except orjson.JSONDecodeError as error:
        raise OsmError(f"{name}: not JSON ({error})") from None
    if nested_deeper(document):
        raise OsmError(f"{name}: arrays and objects nested deeper than {MAX_NESTING} levels")
    raws: Any = document
    if isinstance(document, dict) and document.get("type") == "FeatureCollection":
        raws = document.get("features")
    if not isinstance(raws, list):
        found = type(document).__name__
        raise OsmError(f"{name}: JSON, but a {found}, not a GeoJSON FeatureCollection")
    if len(raws) > MAX_OSM_FEATURES:
        raise OsmError(f"{name}: {len(raws)} features, at most {MAX_OSM_FEATURES}")
    result = OsmData([], FORM)
    for index, raw in enumerate(raws):
        feature = _feature(raw, index, result)
        if feature is not None:
            result.features.append(feature)
    return result


def _feature(raw: Any, index: int, result: OsmData) -> OsmFeature | None:
    if not isinstance(raw, dict) or raw.get("type") != "Feature":
        result.report.add("not a GeoJSON Feature, skipped", f"feature {index}")
        return None
    properties = raw.get("properties")
    properties = properties if isinstance(properties, dict) else {}
    given = raw.get("id", properties.get("id", properties.get("@id")))
    id_ = str(given) if isinstance(given, str | int) and str(given) else f"feature/{index}"
    tags = {
        str(key): _tag_value(value)
        for key, value in properties.items()
        if key not in NOT_TAGS and value is not None and not isinstance(value, dict | list)
    }
    geometry = raw.get("geometry")
    if not isinstance(geometry, dict) or geometry.get("type") not in GEOMETRY_TYPES:
        result.report.add("feature without a geometry, skipped", shown(id_))
        return None
    if not _positions_ok(geometry.get("coordinates")):
        result.report.add("geometry with positions that are not numbers, skipped", shown(id_))
        return None
    return OsmFeature(id_, tags, {"type": geometry["type"], "coordinates": geometry["coordinates"]})


def _tag_value(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _positions_ok(value: Any) -> bool:
    """Whether nested lists end in positions of at least two finite numbers."""
    if isinstance(value, list) and value and all(isinstance(v, int | float) for v in value):
        return len(value) >= 2 and all(abs(float(v)) <= 360 for v in value[:2])
    return isinstance(value, list) and bool(value) and all(_positions_ok(v) for v in value)
