"""Read an IMDF archive's GeoJSON files as they are found in the wild (issue 19).

IMDF (OGC Community Standard 20-094, 1.0.0) is one GeoJSON FeatureCollection per
feature type (`unit.geojson`, `opening.geojson`, ...) plus `manifest.json`. Real archives
depart from it; what can be read is read and every departure is reported, grouped by
kind with a count and a few examples, never silently:

- files in sub-folders, upper case or plural names (`Units.geojson`), `.json`;
- a plain array of features, or one feature, in place of a FeatureCollection;
- 3-D coordinates (the third value is dropped);
- properties spelled in camelCase or with known misspellings (`levelId`, `displayPoint`);
- labels as a plain string, not a language map, or under keys of no language (issue 51:
  `parsing.imdf.labels`).

A venue also comes as one JSON document (issue 35): an object whose keys are the
collections (`{"unit": {...FeatureCollection}, "level": [...features]}`, at the top or
under one wrapper key such as `data`), or one FeatureCollection whose features carry
`feature_type` (`read_document`). Every form ends in the same `Archive`, which says the
form it was read as.

Pure: the caller hands in the files' bytes (`storage.imdf.files` reads zips and folders).
"""

from __future__ import annotations

import re
import reprlib
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
# Bounds on what is read from a document, beside the archive's (storage.imdf.files):
# arrays and objects nested deeper than any venue needs (about 12 levels) are refused
# before a feature is read, so nothing after recurses out of Python's stack; a label
# (`parsing.imdf.labels`) or a category is cut to a name's length; input quoted in a
# message or a report example is cut too.
MAX_NESTING = 64
MAX_LABEL_CHARS = 255
SHOWN_CHARS = 80  # an id, key or name quoted in a message
EXAMPLE_CHARS = 240  # one example of the report, with the file or key it names
# Feature types that IMDF gives a geometry and without which the map is wrong: a
# level, unit or opening without one is an error, not a skip (docs/imdf.md).
GEOMETRY_REQUIRED = ("level", "unit", "opening")
# Feature types the import reads (with the manifest): the asset, floors, units,
# drawings, walk paths and connectors, names and locations are made of them. A file (or
# a single document's collection) of one of them that cannot be read refuses the venue:
# skipped, it would import the venue without its units or doors, say, and replace the
# stored maps with maps of nothing (issue 45). Files of the other types (building,
# footprint, fixture, ...) are read by nothing of the import and are still skipped.
REQUIRED = (
    "venue",
    "level",
    "unit",
    "opening",
    "relationship",
    "amenity",
    "anchor",
    "occupant",
    "address",
)


class ImdfError(ValueError):
    """A venue that cannot be read at all: the message names the problem, for a person."""


@dataclass(frozen=True)
class Feature:
    id: str
    feature_type: str
    geometry: dict[str, Any] | None  # GeoJSON, 2-D coordinates
    properties: dict[str, Any]

    @property
    def category(self) -> str:
        """Its `category`, `unspecified` when it has none."""
        return str(self.properties.get("category") or "unspecified")


@dataclass
class Report:
    """Departures from the standard and what was done about them, grouped by kind."""

    counts: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)

    def add(self, kind: str, example: str) -> None:
        self.counts[kind] += 1
        kept = self.examples.setdefault(kind, [])
        if len(kept) < EXAMPLES_KEPT:
            kept.append(shown(example, EXAMPLE_CHARS))

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
    form: str = "IMDF files"  # the input form it was read as, for the report

    def of(self, feature_type: str) -> list[Feature]:
        return self.features.get(feature_type, [])

    def by_id(self, feature_type: str) -> dict[str, Feature]:
        return {feature.id: feature for feature in self.of(feature_type)}


def shown(text: str, limit: int = SHOWN_CHARS) -> str:
    """Text from the input as a message quotes it: at most `limit` characters."""
    return text if len(text) <= limit else f"{text[: limit - 3]}..."


def nested_deeper(document: Any, limit: int = MAX_NESTING) -> bool:
    """Whether arrays and objects nest more than `limit` levels (level by level, so
    that the check itself does not recurse)."""
    level = [document] if isinstance(document, list | dict) else []
    for _ in range(limit):
        level = [
            child
            for value in level
            for child in (value.values() if isinstance(value, dict) else value)
            if isinstance(child, list | dict)
        ]
    return bool(level)


def _base_name(name: str) -> str:
    """A file's name without its folders: `IMDF\\Units.json` -> `Units.json`."""
    return name.replace("\\", "/").rsplit("/", 1)[-1]


def is_manifest(name: str) -> bool:
    return _base_name(name).lower() == "manifest.json"


def feature_type_of(name: str) -> str | None:
    """`unit.geojson`, `IMDF/Units.json` -> `unit`; None for other files."""
    stem = re.sub(r"\.(geo)?json$", "", _base_name(name).lower())
    if stem in FEATURE_TYPES:
        return stem
    return PLURALS.get(stem)


def read_archive(files: Mapping[str, bytes], form: str = "IMDF files", source: str = "") -> Archive:
    """The features of every recognised file, and the report of what was departed from.
    The manifest or a file of a REQUIRED type that cannot be read is an ImdfError that
    names it (after `source`, the archive's path); any other file is skipped, and
    reported."""
    report = Report()
    features: dict[str, list[Feature]] = {}
    manifest: dict[str, Any] = {}
    seen: dict[str, str] = {}
    for name in sorted(files):
        base = _base_name(name)
        where = f"{source}: {shown(name)}" if source else shown(name)
        if is_manifest(name):
            found = parsed(files[name], where)
            if not isinstance(found, dict):
                raise ImdfError(f"{where}: JSON, but {_a(found)}, not the manifest's object")
            manifest = found
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
        if kind in REQUIRED:
            raws = _raw_features(parsed(files[name], where), name, report, where)
        else:
            raws = _raw_features(_json(files[name], name, report), name, report)
        for raw in raws:
            feature = _feature(raw, kind, name, report)
            if feature is not None:
                features.setdefault(kind, []).append(feature)
    _drop_repeated_ids(features, report)
    return Archive(features, manifest, report, form)


def parsed(data: bytes, name: str) -> Any:
    """The JSON document `name` (a single document, or a file the import needs), or an
    ImdfError naming it: not JSON, or nested past MAX_NESTING."""
    try:
        document = orjson.loads(data)
    except orjson.JSONDecodeError as error:
        raise ImdfError(f"{name}: not JSON ({error})") from None
    if nested_deeper(document):
        raise ImdfError(
            f"{name}: arrays and objects nested deeper than {MAX_NESTING} levels, "
            "far more than an IMDF venue needs"
        )
    return document


def _a(document: Any) -> str:
    """What a JSON value is, for a message: `a list`, `an int`."""
    kind = "null" if document is None else type(document).__name__
    return f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"


def _json(data: bytes, name: str, report: Report) -> Any:
    """A file no part of the import reads: None, and a remark, when it cannot be read."""
    try:
        document = orjson.loads(data)
    except orjson.JSONDecodeError as error:
        report.add("file is not JSON, skipped", f"{name}: {error}")
        return None
    if nested_deeper(document):
        report.add(f"file nested deeper than {MAX_NESTING} levels, skipped", name)
        return None
    return document


def _raw_features(
    document: Any, name: str, report: Report, required: str | None = None
) -> list[Any]:
    """The features of a file's document. A document that holds none is skipped with a
    remark, or, when the import needs it (`required`: the name to give), an ImdfError."""
    if isinstance(document, dict) and document.get("type") == "FeatureCollection":
        found = document.get("features")
        if isinstance(found, list):
            return found
        if required is not None:
            raise ImdfError(f"{required}: a FeatureCollection without a `features` array")
        return []
    if isinstance(document, list):
        report.add("array in place of a FeatureCollection", name)
        return document
    if isinstance(document, dict) and document.get("type") == "Feature":
        report.add("one Feature in place of a FeatureCollection", name)
        return [document]
    if required is not None:
        raise ImdfError(
            f"{required}: JSON, but {_a(document)} that is not a FeatureCollection, "
            "an array of features or one Feature"
        )
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
        report.add("feature without an id, skipped", f"{name}: {reprlib.repr(raw)[:80]}")
        return None
    declared = properties.pop("feature_type", None)
    declared = raw.get("feature_type") or declared
    if declared is not None and declared != kind:
        report.add(
            "feature_type disagrees with its file, file wins", f"{id_}: {declared} in {name}"
        )
    category = properties.get("category")
    if category is not None and len(str(category)) > MAX_LABEL_CHARS:  # it names units too
        report.add(f"category longer than {MAX_LABEL_CHARS} characters, cut", str(category))
        properties["category"] = str(category)[:MAX_LABEL_CHARS]
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


def require_geometry(archive: Archive, name: str) -> None:
    """Refuse a level, unit or opening without a geometry: skipping it would import a
    venue with a floor, a room or a door missing, and nobody would notice."""
    features = archive.features
    for kind in GEOMETRY_REQUIRED:
        missing = [f.id for f in features.get(kind, []) if f.geometry is None]
        if missing:
            examples = ", ".join(shown(id_) for id_ in missing[:EXAMPLES_KEPT])
            extra = len(missing) - EXAMPLES_KEPT
            more = f" and {extra} more" if extra > 0 else ""
            raise ImdfError(
                f"{name}: {len(missing)} {kind} feature(s) without a geometry "
                f"({examples}{more}): "
                f"IMDF gives every {kind} one"
            )


def read_document(data: bytes, name: str) -> Archive:
    """One JSON document holding a whole venue, in either single-document form:
    collections as keys (at the top or under one wrapper key), or one FeatureCollection
    (or bare array) whose features carry `feature_type`. Anything else is an ImdfError
    naming it."""
    document = parsed(data, name)
    report = Report()
    if isinstance(document, list) or (
        isinstance(document, dict) and document.get("type") == "FeatureCollection"
    ):
        features, form, manifest = _typed_document(document, name, report)
    elif isinstance(document, dict):
        features, form, manifest = _keyed_document(document, name, report)
    else:
        raise ImdfError(f"{name}: JSON, but a {type(document).__name__}, not an IMDF venue")
    _drop_repeated_ids(features, report)
    return Archive(features, manifest if isinstance(manifest, dict) else {}, report, form)


def _typed_document(
    document: list[Any] | dict[str, Any], name: str, report: Report
) -> tuple[dict[str, list[Feature]], str, Any]:
    """The features, form and manifest of one FeatureCollection or bare array whose
    features carry `feature_type`."""
    raws: object  # JSON: a list, or whatever the FeatureCollection holds (checked below)
    if isinstance(document, list):
        raws, form, manifest = document, "one array of features that carry feature_type", None
        holder = "array"
    else:
        raws, manifest = document.get("features"), document.get("manifest")
        form = "one FeatureCollection whose features carry feature_type"
        holder = "FeatureCollection"
        if not isinstance(raws, list):
            raise ImdfError(f"{name}: a FeatureCollection without a `features` array")
    features = _typed_features(raws, name, report)
    if not any(features.values()):
        article = "an" if holder == "array" else "a"
        raise ImdfError(
            f"{name}: {article} {holder}, but none of its {len(raws)} features carries an "
            f"IMDF feature_type (venue, level, unit, ...), as a venue in one {holder} must"
        )
    return features, form, manifest


def _keyed_document(
    document: dict[str, Any], name: str, report: Report
) -> tuple[dict[str, list[Feature]], str, Any]:
    """The features, form and manifest of one object whose keys are the collections, at
    the top or under one wrapper key."""
    holder, wrapper = _collections_holder(document, name, report)
    features = _collections(holder, name, report)
    where = f"under the wrapper key {shown(wrapper)!r}" if wrapper else "at the top"
    form = f"one JSON document with IMDF collections as keys, {where}"
    if not any(features.values()):
        raise ImdfError(f"{name}: {form}, but not one feature in it could be read")
    return features, form, holder.get("manifest", document.get("manifest"))


def _collections_holder(
    document: dict[str, Any], name: str, report: Report
) -> tuple[dict[str, Any], str | None]:
    """The object whose keys are the collections: the document, or the one value of it
    that is such an object (a wrapper like `data`). Two wrappers are ambiguous: refused."""
    if any(feature_type_of(str(key)) for key in document):
        return document, None
    wrappers = [
        str(key)
        for key, value in document.items()
        if isinstance(value, dict) and any(feature_type_of(str(k)) for k in value)
    ]
    if len(wrappers) > 1:
        keys = " and ".join(repr(shown(k)) for k in wrappers)
        raise ImdfError(
            f"{name}: two wrapper keys hold IMDF collections ({keys}); "
            "give a document with one venue"
        )
    if not wrappers:
        keys = ", ".join(repr(shown(str(k))) for k in list(document)[:6]) or "none"
        raise ImdfError(
            f"{name}: JSON, but not an IMDF venue: expected a FeatureCollection whose "
            "features carry feature_type, or an object whose keys are IMDF collections "
            f"(venue, level, unit, opening, ...); found an object with keys {keys}"
        )
    for key in document:
        if str(key) not in (wrappers[0], "manifest"):
            report.add("key beside the wrapper, skipped", f"{name}: {key}")
    return document[wrappers[0]], wrappers[0]


def _collections(holder: dict[str, Any], name: str, report: Report) -> dict[str, list[Feature]]:
    """The features of each collection key: a FeatureCollection or a bare array."""
    features: dict[str, list[Feature]] = {}
    seen: dict[str, str] = {}
    for key, value in holder.items():
        key = str(key)
        if key.lower() == "manifest":
            continue
        kind = feature_type_of(key)
        where = f"{name}#{key}"
        if kind is None:
            report.add("key not an IMDF collection, skipped", where)
            continue
        if kind in seen:
            report.add("feature type under two keys, both read", f"{seen[kind]} and {key}")
        seen[kind] = key
        if isinstance(value, dict) and value.get("type") == "FeatureCollection":
            raw = value.get("features")
            raws = raw if isinstance(raw, list) else []
            if not isinstance(raw, list) and kind in REQUIRED:
                raise ImdfError(f"{where}: a FeatureCollection without a `features` array")
        elif isinstance(value, list):
            raws = value  # a bare array: this form's usual way, not a departure
        elif kind in REQUIRED:  # as a file of a folder that cannot be read
            raise ImdfError(
                f"{where}: {_a(value)}, neither a FeatureCollection nor an array of features"
            )
        else:
            report.add("collection neither a FeatureCollection nor an array, skipped", where)
            continue
        for item in raws:
            feature = _feature(item, kind, where, report)
            if feature is not None:
                features.setdefault(kind, []).append(feature)
    return features


def _typed_features(raws: list[Any], name: str, report: Report) -> dict[str, list[Feature]]:
    """Features grouped by the `feature_type` each carries (a member, or a property)."""
    features: dict[str, list[Feature]] = {}
    for raw in raws:
        if not isinstance(raw, dict):
            report.add("feature is not an object, skipped", name)
            continue
        properties = raw.get("properties")
        declared = raw.get("feature_type")
        if declared is None and isinstance(properties, dict):
            declared = properties.get("feature_type", properties.get("featureType"))
        kind = feature_type_of(str(declared)) if declared is not None else None
        if kind is None:
            reason = "without feature_type" if declared is None else "of another feature_type"
            report.add(f"feature {reason}, skipped", f"{raw.get('id')}: {declared}")
            continue
        feature = _feature({**raw, "feature_type": kind}, kind, name, report)
        if feature is not None:
            features.setdefault(kind, []).append(feature)
    return features
