"""An OSM place written as an IMDF archive in memory (venue, levels, units, openings,
relationships, amenities in WGS84), which the IMDF venue pipeline imports as it does a
venue read from files (storage/imdf/dataset.py venue_dataset; docs/osm.md). Data
(c) OpenStreetMap contributors, ODbL."""

from __future__ import annotations

from collections import Counter
from typing import Any

from shapely.errors import GEOSException
from shapely.geometry import Point
from shapely.ops import unary_union

from parsing.imdf.categories import CATEGORY_LANGUAGE
from parsing.imdf.ids import ordinal_text
from parsing.imdf.labels import name_language
from parsing.imdf.read import Archive, Feature, Report
from parsing.language_tags import UNSAID_LANGUAGE
from parsing.osm.convert import Sorted, as_geojson, sort_features
from parsing.osm.levels import level_text
from parsing.osm.lone_rooms import join_lone_rooms, report_doorless
from parsing.osm.model import ATTRIBUTION, OsmData, OsmError, OsmFeature
from parsing.osm.openings import openings
from parsing.osm.tags import point_category

VENUE_TAGS = (("shop", "mall"), ("railway", "station"), ("public_transport", "station"))
FORM_NOTE = f"data {ATTRIBUTION}"


def osm_archive(
    data: OsmData, asset: str, fallback_name: str, languages: tuple[str, ...] = ()
) -> Archive:
    """The IMDF archive of the OSM file's indoor place, its report being the file's; its
    manifest's `language` is that of the plain `name` tags (`venue_language`). A shape
    GEOS cannot build is an OsmError: the readers check every shape, so it is a fault
    of ours, said as such."""
    try:
        return _archive(data, asset, fallback_name, languages)
    except GEOSException:
        raise OsmError("a shape of the place could not be built (please report)") from None


def _archive(data: OsmData, asset: str, fallback_name: str, languages: tuple[str, ...]) -> Archive:
    found = sort_features(data, asset)
    place, plane = found.place, found.plane
    report = data.report
    language = venue_language(data, languages)
    holder = _venue_feature(data)
    venue_names = _labels(holder.tags, language, report, holder.id)["name"] if holder else None
    join_lone_rooms(place, found.doors, report)
    doors = openings(place, found.doors, report)
    report_doorless(place, doors, report)
    levels = {level: f"{asset}-level-{ordinal_text(level)}" for level in sorted(place.levels)}
    features: dict[str, list[Feature]] = {k: [] for k in ("venue", "level", "unit", "opening")}
    everything = unary_union([space.shape for space in place.spaces])
    features["venue"].append(
        Feature(
            asset,
            "venue",
            as_geojson(everything.convex_hull, plane),
            {
                "name": venue_names or {language: fallback_name},
                "category": "shoppingcenter",
                "display_point": as_geojson(everything.centroid, plane),
            },
        )
    )
    for level, level_id in levels.items():
        outline = unary_union([s.shape for s in place.on_level(level)])
        properties = {
            "ordinal": level,
            "name": {CATEGORY_LANGUAGE: f"Level {level_text(level)}"},  # English words
            "short_name": {language: level_text(level)},
        }
        features["level"].append(Feature(level_id, "level", as_geojson(outline, plane), properties))
    for space in place.spaces:
        properties = {"category": space.category, "level_id": levels[space.level]}
        properties |= _labels(space.tags, language, report, space.source)
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
    features["amenity"] = _amenities(found, language, report)
    return Archive(features, {"language": language}, report, f"{data.form}, {FORM_NOTE}")


def venue_language(data: OsmData, languages: tuple[str, ...]) -> str:
    """The language of the file's plain `name` tags: the first `--language`, else the `xx`
    whose `name:xx` equals `name` on the most features (ties: the first in alphabetical
    order), else UNSAID_LANGUAGE."""
    given = next(filter(None, map(name_language, languages)), None)
    if given is not None:
        return given
    counts: Counter[str] = Counter()
    for feature in data.features:
        name = feature.tags.get("name")
        for key, value in feature.tags.items() if name else ():
            tag = name_language(key[5:]) if key.startswith("name:") and value == name else None
            if tag is not None:
                counts[tag] += 1
    return min(counts, key=lambda tag: (-counts[tag], tag)) if counts else UNSAID_LANGUAGE


def _labels(tags: dict[str, str], language: str, report: Report, source: str) -> dict[str, Any]:
    """IMDF `name` from `name:xx` (every `xx` that is a language tag) and `name`, which is
    the text in `language` unless `name:<language>` gives one; `alt_name` from `ref` (a
    room number), else OSM's `alt_name` or `short_name`: a unit with only a `ref` is
    called by it. A `name:` key that is no language (`name:etymology`) is reported."""
    found: dict[str, Any] = {}
    names: dict[str, str] = {}
    for key, value in tags.items():
        if not key.startswith("name:") or not value:
            continue
        tag = name_language(key[5:])
        if tag is None:
            report.add("name: key that is no language tag, not read", f"{source}: {key}")
        else:
            names.setdefault(tag, value)
    if tags.get("name"):
        own = names.get(language)
        if own is not None and own != tags["name"]:
            report.add(
                f"name and name:{language} differ, name:{language} read",
                f"{source}: {tags['name']} / {own}",
            )
        names = {language: own or tags["name"], **names}
    if names:
        found["name"] = names
    alternative = tags.get("ref") or tags.get("alt_name") or tags.get("short_name")
    if alternative:
        found["alt_name"] = {language: alternative}
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


def _venue_feature(data: OsmData) -> OsmFeature | None:
    """The mall or station the file holds, if it tags one with a name."""
    for key, value in VENUE_TAGS:
        for feature in data.features:
            if feature.tags.get(key) == value and feature.tags.get("name"):
                return feature
    return None


def _amenities(found: Sorted, language: str, report: Report) -> list[Feature]:
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
        properties |= _labels(marker.tags, language, report, marker.source)
        geometry = as_geojson(Point(marker.point), found.plane)
        amenities.append(Feature(marker.id, "amenity", geometry, properties))
    return amenities
