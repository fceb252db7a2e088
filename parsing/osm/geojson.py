"""An OSM extract as GeoJSON (overpass-turbo, osmtogeojson, JOSM's export): a
FeatureCollection whose features carry OSM tags as properties and an `id` such as
`way/123` (docs/osm.md). Data (c) OpenStreetMap contributors, ODbL."""

from __future__ import annotations

import math
from typing import Any

import orjson

from parsing.imdf.read import MAX_NESTING, nested_deeper, shown
from parsing.osm.limits import (
    MAX_OSM_FEATURES,
    MAX_OSM_GEOJSON_BYTES,
    MAX_OSM_POSITIONS,
    MAX_OSM_TAG_CHARS,
    MAX_OSM_TAGS,
)
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
    OsmError naming `name` and the problem. Read whole, JSON takes about 12 times its
    bytes, hence a byte bound of its own (MAX_OSM_GEOJSON_BYTES) below the file's."""
    if len(data) > MAX_OSM_GEOJSON_BYTES:
        raise OsmError(f"{name}: {len(data)} bytes of GeoJSON, at most {MAX_OSM_GEOJSON_BYTES}")
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
    seen: set[str] = set()
    for index, raw in enumerate(raws):
        feature = _feature(raw, index, result, name)
        if feature is not None:
            if feature.id in seen:
                raise OsmError(
                    f"{name}: feature {shown(feature.id[:60])}: appears twice in the file "
                    "(each element once)"
                )
            seen.add(feature.id)
            result.features.append(feature)
    return result


def _feature(raw: Any, index: int, result: OsmData, name: str) -> OsmFeature | None:
    if not isinstance(raw, dict) or raw.get("type") != "Feature":
        result.report.add("not a GeoJSON Feature, skipped", f"feature {index}")
        return None
    properties = raw.get("properties")
    properties = properties if isinstance(properties, dict) else {}
    given = raw.get("id", properties.get("id", properties.get("@id")))
    id_ = str(given) if isinstance(given, str | int) and str(given) else f"feature/{index}"
    where = f"{name}: feature {shown(id_[:60])}"
    if len(properties) > MAX_OSM_TAGS + len(NOT_TAGS):
        raise OsmError(f"{where}: more than {MAX_OSM_TAGS} tags")
    tags = {
        str(key): _tag_value(value)
        for key, value in properties.items()
        if key not in NOT_TAGS and value is not None and not isinstance(value, dict | list)
    }
    if len(tags) > MAX_OSM_TAGS:
        raise OsmError(f"{where}: more than {MAX_OSM_TAGS} tags")
    for key, value in tags.items():
        if len(key) > MAX_OSM_TAG_CHARS or len(value) > MAX_OSM_TAG_CHARS:
            raise OsmError(
                f"{where}: tag {shown(key[:40])!r} longer than {MAX_OSM_TAG_CHARS} "
                "characters (key or value)"
            )
    geometry = raw.get("geometry")
    if not isinstance(geometry, dict) or geometry.get("type") not in GEOMETRY_TYPES:
        result.report.add("feature without a geometry, skipped", shown(id_))
        return None
    if _positions(geometry.get("coordinates"), MAX_OSM_POSITIONS) > MAX_OSM_POSITIONS:
        raise OsmError(f"{where}: more than {MAX_OSM_POSITIONS} positions")
    problem = _shape_problem(geometry["type"], geometry.get("coordinates"))
    if problem is not None:
        raise OsmError(f"{where}: its {geometry['type']} {problem}")
    return OsmFeature(id_, tags, {"type": geometry["type"], "coordinates": geometry["coordinates"]})


def _tag_value(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _positions(value: Any, limit: int) -> int:
    """How many positions nested lists end in, counted up to one past `limit`."""
    if not isinstance(value, list) or not value or not isinstance(value[0], list):
        return 1
    total = 0
    for item in value:
        total += _positions(item, limit - total)
        if total > limit:
            break
    return total


def _shape_problem(kind: str, value: Any) -> str | None:
    """What keeps coordinates from being a geometry of `kind` (GeoJSON, RFC 7946), in
    words; None when they are one. Checked here so that no shape library ever sees them."""
    if kind == "Point":
        return _position_problem(value)
    if kind in ("LineString", "MultiPoint"):
        least = 2 if kind == "LineString" else 1
        return _list_problem(value, least, _position_problem, "positions")
    if kind == "Polygon":
        return _list_problem(value, 1, _ring_problem, "rings")
    part = "LineString" if kind == "MultiLineString" else "Polygon"
    return _list_problem(value, 1, lambda item: _shape_problem(part, item), "parts")


def _list_problem(value: Any, least: int, check: Any, what: str) -> str | None:
    if not isinstance(value, list) or len(value) < least:
        return f"has fewer than {least} {what}"
    return next(filter(None, map(check, value)), None)


def _ring_problem(value: Any) -> str | None:
    problem = _list_problem(value, 4, _position_problem, "positions in a ring")
    if problem is None and value[0][:2] != value[-1][:2]:
        return "has a ring that is not closed (its first and last positions differ)"
    return problem


def _position_problem(value: Any) -> str | None:
    """Why `value` is no WGS84 position: a list of finite numbers, longitude within
    +-180 and latitude within +-90."""
    if not isinstance(value, list) or len(value) < 2:
        return "has a position that is not a list of two numbers"
    numbers = value[:2]
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in numbers):
        return "has a position that is not a list of two numbers"
    lon, lat = (float(v) for v in numbers)
    if not (math.isfinite(lon) and abs(lon) <= 180 and math.isfinite(lat) and abs(lat) <= 90):
        return (
            f"has a position {shown(str(value[:2]))} outside longitude -180..180, latitude -90..90"
        )
    return None
