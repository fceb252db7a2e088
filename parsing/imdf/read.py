"""Read an IMDF archive's GeoJSON files as they are found in the wild (issue 19).

IMDF (OGC Community Standard 20-094, 1.0.0) is one GeoJSON FeatureCollection per
feature type (`unit.geojson`, `opening.geojson`, ...) plus `manifest.json`. Real archives
depart from it; what can be read is read and every departure is reported, grouped by
kind with a count and a few examples, never silently:

- files in sub-folders, upper case or plural names (`Units.geojson`), `.json`;
- a plain array of features, or one feature, in place of a FeatureCollection;
- 3-D coordinates (the third value is dropped);
- properties spelled in camelCase or with known misspellings (`levelId`, `displayPoint`);
- labels given as a plain string in place of a language map.

Pure: the caller hands in the files' bytes (`storage.imdf.venue` reads zips and folders).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

FEATURE_TYPES = (
    "address",
    "amenity",
    "anchor",
    "building",
    "detail",
    "fixture",
    "footprint",
    "geofence",
    "kiosk",
    "level",
    "occupant",
    "opening",
    "relationship",
    "section",
    "unit",
    "venue",
)
PLURALS = {f"{name}s": name for name in FEATURE_TYPES} | {
    "amenities": "amenity",
    "addresses": "address",
}
# Spellings seen in real archives, after camelCase became snake_case.
ALIASES = {
    "level": "level_id",
    "levelid": "level_id",
    "unit": "unit_id",
    "unitid": "unit_id",
    "units": "unit_ids",
    "unitids": "unit_ids",
    "displaypoint": "display_point",
    "shortname": "short_name",
    "altname": "alt_name",
    "anchor": "anchor_id",
    "anchorid": "anchor_id",
    "accesscontrol": "access_control",
    "buildingids": "building_ids",
    "address": "address_id",
    "addressid": "address_id",
    "featuretype": "feature_type",
}
# Names that are a feature type's own properties (IMDF's address has `address` and
# `unit`), never read as the aliases above.
OWN_PROPERTIES = {"address": frozenset({"address", "unit"})}
EXAMPLES_KEPT = 3


@dataclass(frozen=True)
class Feature:
    id: str
    feature_type: str
    geometry: dict[str, Any] | None  # GeoJSON, 2-D coordinates
    properties: dict[str, Any]


@dataclass
class Report:
    """Departures from the standard and what was done about them, grouped by kind."""

    counts: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)

    def add(self, kind: str, example: str) -> None:
        self.counts[kind] += 1
        kept = self.examples.setdefault(kind, [])
        if len(kept) < EXAMPLES_KEPT:
            kept.append(example)

    def lines(self) -> list[str]:
        """One line per kind, most frequent first: `kind: N (e.g. a; b)`."""
        ordered = sorted(self.counts.items(), key=lambda kv: (-kv[1], kv[0]))
        return [
            f"{kind}: {count} (e.g. {'; '.join(self.examples[kind])})" for kind, count in ordered
        ]


@dataclass
class Archive:
    features: dict[str, list[Feature]]  # by feature type, in file order
    manifest: dict[str, Any]
    report: Report

    def of(self, feature_type: str) -> list[Feature]:
        return self.features.get(feature_type, [])

    def by_id(self, feature_type: str) -> dict[str, Feature]:
        return {feature.id: feature for feature in self.of(feature_type)}


def feature_type_of(name: str) -> str | None:
    """`unit.geojson`, `IMDF/Units.json` -> `unit`; None for other files."""
    stem = re.sub(r"\.(geo)?json$", "", name.replace("\\", "/").rsplit("/", 1)[-1].lower())
    if stem in FEATURE_TYPES:
        return stem
    return PLURALS.get(stem)


def read_archive(files: Mapping[str, bytes]) -> Archive:
    """The features of every recognised file, and the report of what was departed from."""
    report = Report()
    features: dict[str, list[Feature]] = {}
    manifest: dict[str, Any] = {}
    seen: dict[str, str] = {}
    for name in sorted(files):
        base = name.replace("\\", "/").rsplit("/", 1)[-1]
        if base.lower() == "manifest.json":
            found = _json(files[name], name, report)
            manifest = found if isinstance(found, dict) else {}
            continue
        kind = feature_type_of(name)
        if kind is None:
            if base.lower().endswith((".json", ".geojson")):
                report.add("file not an IMDF feature type, skipped", name)
            continue
        if base != f"{kind}.geojson":
            report.add("file name not as the standard writes it", f"{name} read as {kind}")
        if kind in seen:
            report.add("feature type in two files, both read", f"{seen[kind]} and {name}")
        seen[kind] = name
        document = _json(files[name], name, report)
        for raw in _raw_features(document, name, report):
            feature = _feature(raw, kind, name, report)
            if feature is not None:
                features.setdefault(kind, []).append(feature)
    _drop_repeated_ids(features, report)
    return Archive(features, manifest, report)


def _json(data: bytes, name: str, report: Report) -> Any:
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as error:
        report.add("file is not JSON, skipped", f"{name}: {error}")
        return None


def _raw_features(document: Any, name: str, report: Report) -> list[Any]:
    if isinstance(document, dict) and document.get("type") == "FeatureCollection":
        found = document.get("features")
        return found if isinstance(found, list) else []
    if isinstance(document, list):
        report.add("array in place of a FeatureCollection", name)
        return document
    if isinstance(document, dict) and document.get("type") == "Feature":
        report.add("one Feature in place of a FeatureCollection", name)
        return [document]
    if document is not None:
        report.add("file is not a FeatureCollection, skipped", name)
    return []


def _feature(raw: Any, kind: str, name: str, report: Report) -> Feature | None:
    if not isinstance(raw, dict):
        report.add("feature is not an object, skipped", name)
        return None
    properties = _properties(raw.get("properties"), report, kind)
    id_ = raw.get("id", properties.pop("id", None))
    if not isinstance(id_, str | int) or isinstance(id_, bool) or str(id_) == "":
        report.add("feature without an id, skipped", f"{name}: {str(raw)[:80]}")
        return None
    declared = raw.get("feature_type") or properties.pop("feature_type", None)
    if declared is not None and declared != kind:
        report.add(
            "feature_type disagrees with its file, file wins", f"{id_}: {declared} in {name}"
        )
    geometry = raw.get("geometry")
    if geometry is not None:
        geometry = _flat(geometry, str(id_), report)
    return Feature(str(id_), kind, geometry, properties)


def _properties(raw: Any, report: Report, kind: str = "") -> dict[str, Any]:
    if not isinstance(raw, dict):
        return {}
    own = OWN_PROPERTIES.get(kind, frozenset())
    found: dict[str, Any] = {}
    for key, value in raw.items():
        snake = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", str(key)).lower()
        name = snake if snake in own else ALIASES.get(snake.replace("_", ""), snake)
        if name != key:
            report.add("property spelled otherwise, read", f"{key} as {name}")
        if name not in found or found[name] is None:
            found[name] = value
    return found


def _flat(geometry: Any, id_: str, report: Report) -> dict[str, Any] | None:
    """The geometry with 2-D positions (a third value, altitude, is dropped)."""
    if not isinstance(geometry, dict) or "coordinates" not in geometry:
        if isinstance(geometry, dict) and geometry.get("type") == "GeometryCollection":
            report.add("GeometryCollection, skipped", id_)
        return None
    dropped = [False]

    def flat(value: Any) -> Any:
        if isinstance(value, list) and value and all(isinstance(v, int | float) for v in value):
            if len(value) > 2:
                dropped[0] = True
            return [float(value[0]), float(value[1])] if len(value) >= 2 else value
        if isinstance(value, list):
            return [flat(item) for item in value]
        return value

    coordinates = flat(geometry["coordinates"])
    if dropped[0]:
        report.add("3-D coordinates, altitude dropped", id_)
    return {"type": geometry.get("type"), "coordinates": coordinates}


def _drop_repeated_ids(features: dict[str, list[Feature]], report: Report) -> None:
    for kind, found in features.items():
        seen: set[str] = set()
        kept = []
        for feature in found:
            if feature.id in seen:
                report.add("repeated id, later feature skipped", f"{kind} {feature.id}")
                continue
            seen.add(feature.id)
            kept.append(feature)
        features[kind] = kept


def label(value: Any, languages: tuple[str, ...], report: Report | None = None) -> str | None:
    """An IMDF label (`{"en": "Lobby"}`) in the first of `languages` it has, else its
    first language; a plain string is taken as it is (and reported)."""
    if value is None:
        return None
    if isinstance(value, str):
        if report is not None:
            report.add("label is a plain string, not a language map", value[:40])
        return value or None
    if not isinstance(value, dict) or not value:
        return None
    lowered = {str(key).lower(): text for key, text in value.items() if isinstance(text, str)}
    for language in languages:
        language = language.lower()
        if lowered.get(language):
            return lowered[language]
        for key, text in lowered.items():  # `en` finds `en-US`
            if key.split("-")[0] == language.split("-")[0] and text:
                return text
    return next((text for text in lowered.values() if text), None)
