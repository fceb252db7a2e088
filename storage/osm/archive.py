"""An OSM place written as an IMDF archive in memory (venue, levels, units, openings,
relationships, amenities in WGS84), which the IMDF venue pipeline imports as it does a
venue read from files (storage/imdf/dataset.py venue_dataset; docs/osm.md). Data
(c) OpenStreetMap contributors, ODbL."""

from __future__ import annotations

from typing import Any

from shapely.geometry import Point
from shapely.ops import unary_union

from parsing.imdf.read import Archive, Feature
from parsing.osm.levels import level_text
from parsing.osm.model import ATTRIBUTION, OsmData
from storage.imdf.ids import ordinal_text
from storage.osm.convert import Sorted, as_geojson, sort_features
from storage.osm.openings import openings
from storage.osm.tags import point_category

# The language key of OSM's plain `name`, whose language OSM does not say (BCP 47
# "undetermined"): read first unless --language names one of the `name:xx` tags.
PLAIN_NAME = "und"
VENUE_TAGS = (("shop", "mall"), ("railway", "station"), ("public_transport", "station"))
FORM_NOTE = f"data {ATTRIBUTION}"


def osm_archive(data: OsmData, asset: str, fallback_name: str) -> Archive:
    """The IMDF archive of the OSM file's indoor place, its report being the file's."""
    found = sort_features(data, asset)
    place, plane = found.place, found.plane
    report = data.report
    doors = openings(place, found.doors, report)
    levels = {level: f"{asset}-level-{ordinal_text(level)}" for level in sorted(place.levels)}
    features: dict[str, list[Feature]] = {k: [] for k in ("venue", "level", "unit", "opening")}
    everything = unary_union([space.shape for space in place.spaces])
    features["venue"].append(
        Feature(
            asset,
            "venue",
            as_geojson(everything.convex_hull, plane),
            {
                "name": {PLAIN_NAME: _venue_name(data) or fallback_name},
                "category": "shoppingcenter",
                "display_point": as_geojson(everything.centroid, plane),
            },
        )
    )
    for level, level_id in levels.items():
        outline = unary_union([s.shape for s in place.on_level(level)])
        properties = {
            "ordinal": level,
            "name": {PLAIN_NAME: f"Level {level_text(level)}"},
            "short_name": {PLAIN_NAME: level_text(level)},
        }
        features["level"].append(Feature(level_id, "level", as_geojson(outline, plane), properties))
    for space in place.spaces:
        properties = {"category": space.category, "level_id": levels[space.level]}
        properties |= _labels(space.tags)
        features["unit"].append(
            Feature(space.id, "unit", as_geojson(space.shape, plane), properties)
        )
    for door in doors:
        properties = {**door.properties, "level_id": levels[door.level]}
        features["opening"].append(
            Feature(door.id, "opening", as_geojson(door.line, plane), properties)
        )
    features["relationship"] = [
        Feature(connector.id, "relationship", None, _relationship(connector.kind, connector.units))
        for connector in place.connectors
    ]
    features["amenity"] = _amenities(found, report)
    return Archive(features, {}, report, f"{data.form}, {FORM_NOTE}")


def _labels(tags: dict[str, str]) -> dict[str, Any]:
    """IMDF `name` from `name` and `name:xx`; `alt_name` from `ref` (a room number), else
    OSM's `alt_name` or `short_name`: a unit with only a `ref` is called by it."""
    found: dict[str, Any] = {}
    names = {PLAIN_NAME: tags["name"]} if tags.get("name") else {}
    names |= {key[5:]: value for key, value in tags.items() if key.startswith("name:") and value}
    if names:
        found["name"] = names
    alternative = tags.get("ref") or tags.get("alt_name") or tags.get("short_name")
    if alternative:
        found["alt_name"] = {PLAIN_NAME: alternative}
    return found


def _relationship(kind: str, units: list[str]) -> dict[str, Any]:
    ends = [{"id": unit, "feature_type": "unit"} for unit in units]
    return {
        "category": kind,
        "direction": "undirected",
        "origin": ends[0],
        "intermediary": ends[1:-1],
        "destination": ends[-1],
    }


def _venue_name(data: OsmData) -> str | None:
    """The name of the mall or station the file holds, if it tags one."""
    for key, value in VENUE_TAGS:
        for feature in data.features:
            if feature.tags.get(key) == value and feature.tags.get("name"):
                return feature.tags["name"]
    return None


def _amenities(found: Sorted, report: Any) -> list[Feature]:
    """Shops and amenities drawn as nodes: IMDF amenities in the units they stand in
    (which take their name when they have none); a node in no unit is skipped."""
    amenities = []
    for marker in found.points:
        inside = [
            space.id
            for space in found.place.on_level(marker.level)
            if not space.connector_end and space.shape.covers(marker.point)
        ]
        if not inside:
            report.add(
                "shop or amenity node in no unit, skipped",
                f"{marker.source} on level {level_text(marker.level)}",
            )
            continue
        properties: dict[str, Any] = {"category": point_category(marker.tags), "unit_ids": inside}
        properties |= _labels(marker.tags)
        geometry = as_geojson(Point(marker.point), found.plane)
        amenities.append(Feature(marker.id, "amenity", geometry, properties))
    return amenities
