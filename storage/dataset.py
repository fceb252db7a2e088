"""Validate a JSON dataset (`floorgate import PATH`) before anything is written.

The file format is documented in docs/dataset.md. Validation runs to the end
before the first write, so a bad file changes nothing and its author sees every
problem at once, each at a JSON path such as `$.units[3].floor_id`.

Validation has two phases. The *structure* phase needs only the file: field
types, id lengths, duplicates, SVG files. The *reference* phase resolves ids
against the file first and the database second; it runs once with a recorder
that learns which ids the file names but does not define, those are loaded in
one query per collection, and then it runs for real.
"""

from __future__ import annotations

import json
import math
import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from parsing.errors import SvgError
from parsing.georeference import GeoreferenceError, fit_affine
from parsing.limits import SvgLimits
from parsing.svg import parse_unit_map
from storage import collections as col
from storage.cpu import run_cpu
from storage.database import Store
from storage.files import chunks
from storage.limits import IN_CHUNK, MAX_ID_LENGTH, REFERENCE_KEY, REFERENCE_KEY_PATTERN
from storage.map_drawings import (
    Drawing,
    control_points,
    level_tag_values,
)
from storage.sections import ID_SECTIONS, SECTIONS
from storage.timestamps import normalize_timestamp

FORMAT_VERSION = 1

# Sections of the file, in the order they are validated, reported and written.


# ---------------------------------------------------------------- problems


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a dataset, at a JSON path like `$.units[3].floor_id`."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


class DatasetError(Exception):
    """A dataset that cannot be imported; nothing was written."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems: list[Problem] = list(problems)
        super().__init__(format_problems(self.problems))


def format_problems(problems: Iterable[Problem]) -> str:
    """One problem per line, for the command line."""
    return "\n".join(str(p) for p in problems)


_PATH_ORDER = re.compile(r"^\$\.(\w+)\[(\d+)\]")


def _order(problem: Problem) -> tuple[int, int]:
    """Sort problems by section and item so they read in file order, phases merged."""
    match = _PATH_ORDER.match(problem.path)
    if match is None:
        return (-1, -1)
    section = match.group(1)
    rank = SECTIONS.index(section) if section in SECTIONS else len(SECTIONS)
    return (rank, int(match.group(2)))


class _Problems:
    def __init__(self) -> None:
        self.items: list[Problem] = []

    def add(self, path: str, message: str) -> None:
        self.items.append(Problem(path, message))

    def sorted(self) -> list[Problem]:
        return sorted(self.items, key=_order)


def _show(value: Any) -> str:
    """A value quoted for a message, shortened so 255-character ids stay readable."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:76] + '..."'


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _at(path: str, name: str | int) -> str:
    if isinstance(name, int):
        return f"{path}[{name}]"
    if name.isidentifier():
        return f"{path}.{name}"
    return f"{path}[{json.dumps(name, ensure_ascii=False)}]"


# ---------------------------------------------------------------- field kinds

# A kind checks one value, reports at `path`, and returns the clean value or _INVALID.
_INVALID: Any = object()
Kind = Callable[[Any, str, _Problems], Any]


def _id(value: Any, path: str, out: _Problems) -> Any:
    if not isinstance(value, str):
        out.add(path, f"must be a string id, not {_type_name(value)}")
        return _INVALID
    if value == "":
        out.add(path, "must not be empty")
        return _INVALID
    if len(value) > MAX_ID_LENGTH:
        out.add(path, f"must be at most {MAX_ID_LENGTH} characters (has {len(value)})")
        return _INVALID
    return value


def _nullable_id(value: Any, path: str, out: _Problems) -> Any:
    return None if value is None else _id(value, path, out)


def _text(value: Any, path: str, out: _Problems) -> Any:
    if not isinstance(value, str):
        out.add(path, f"must be a string, not {_type_name(value)}")
        return _INVALID
    return value


def _short_text(value: Any, path: str, out: _Problems) -> Any:
    """Keys and values that clients filter on: non-empty, at most 255 characters."""
    return _id(value, path, out)


def _reference_key(value: Any, path: str, out: _Problems) -> Any:
    if _text(value, path, out) is _INVALID:
        return _INVALID
    if REFERENCE_KEY.fullmatch(value) is None:
        out.add(path, f"{_show(value)} does not match {REFERENCE_KEY_PATTERN}")
        return _INVALID
    return value


def _integer(value: Any, path: str, out: _Problems) -> Any:
    if isinstance(value, bool) or not isinstance(value, int):
        out.add(path, f"must be an integer, not {_type_name(value)}")
        return _INVALID
    return value


def _number(value: Any, path: str, out: _Problems) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float):
        out.add(path, f"must be a number, not {_type_name(value)}")
        return _INVALID
    if not math.isfinite(value):
        out.add(path, "must be a finite number")
        return _INVALID
    return value


def _positive_number(value: Any, path: str, out: _Problems) -> Any:
    value = _number(value, path, out)
    if value is not _INVALID and value <= 0:
        out.add(path, "must be a positive number")
        return _INVALID
    return value


def _boolean(value: Any, path: str, out: _Problems) -> Any:
    if not isinstance(value, bool):
        out.add(path, f"must be true or false, not {_type_name(value)}")
        return _INVALID
    return value


def _timestamp(value: Any, path: str, out: _Problems) -> Any:
    if _text(value, path, out) is _INVALID:
        return _INVALID
    try:
        return normalize_timestamp(value)
    except ValueError as error:
        out.add(path, f"{_show(value)} is not an ISO 8601 timestamp with offset ({error})")
        return _INVALID


def _list_of(item: Kind, *, unique: bool = False) -> Kind:
    """An array whose items all have kind `item`; invalid items are dropped."""

    def check(value: Any, path: str, out: _Problems) -> Any:
        if not isinstance(value, list):
            out.add(path, f"must be an array, not {_type_name(value)}")
            return _INVALID
        clean: list[Any] = []
        first: dict[Any, int] = {}
        for index, element in enumerate(value):
            checked = item(element, _at(path, index), out)
            if checked is _INVALID:
                continue
            if unique and isinstance(checked, str):
                if checked in first:
                    out.add(
                        _at(path, index),
                        f"duplicate {_show(checked)} (also at {_at(path, first[checked])})",
                    )
                    continue
                first[checked] = index
            clean.append(checked)
        return clean

    return check


def _map_tag(value: Any, path: str, out: _Problems) -> Any:
    if _short_text(value, path, out) is _INVALID:
        return _INVALID
    if "," in value:
        out.add(path, "must not contain a comma (the tags filter splits on commas)")
        return _INVALID
    return value


# A record spec: field name -> (kind, required). Optional fields may also be null.
Spec = dict[str, tuple[Kind, bool]]


def _record(value: Any, spec: Spec, path: str, out: _Problems) -> dict[str, Any] | None:
    """Check an object against `spec`; return its valid fields only, so later checks
    never trip over a value that was already reported."""
    if not isinstance(value, dict):
        out.add(path, f"must be an object, not {_type_name(value)}")
        return None
    clean: dict[str, Any] = {}
    for name, (kind, required) in spec.items():
        if name not in value or (value[name] is None and not required):
            if required:
                out.add(_at(path, name), "is required")
            continue
        checked = kind(value[name], _at(path, name), out)
        if checked is not _INVALID:
            clean[name] = checked
    for name in value:
        if name not in spec:
            out.add(_at(path, name), "unknown field")
    return clean


def _object(spec: Spec) -> Kind:
    """One nested object of `spec` (such as a map's georeference)."""

    def check(value: Any, path: str, out: _Problems) -> Any:
        record = _record(value, spec, path, out)
        return _INVALID if record is None else record

    return check


def _records(spec: Spec) -> Kind:
    """An array of objects of `spec` (nested records such as level tags)."""

    def check(value: Any, path: str, out: _Problems) -> Any:
        if not isinstance(value, list):
            out.add(path, f"must be an array, not {_type_name(value)}")
            return _INVALID
        clean = []
        for index, element in enumerate(value):
            record = _record(element, spec, _at(path, index), out)
            if record is not None:
                clean.append((index, record))
        return clean

    return check


_STAMPS: Spec = {"created_at": (_timestamp, False), "updated_at": (_timestamp, False)}

LEVEL_TAG_VALUE: Spec = {"name": (_text, True), "value": (_id, True), **_STAMPS}
LEVEL_TAG: Spec = {
    "key": (_short_text, True),
    "name": (_text, True),
    "values": (_records(LEVEL_TAG_VALUE), True),
    **_STAMPS,
}
ATTRIBUTE: Spec = {
    "attribute_id": (_id, True),
    "attribute_name": (_text, True),
    "attribute_key": (_short_text, True),
}
LOCATION_FLOOR: Spec = {"id": (_id, True)}
CONTROL_POINT: Spec = {
    "x": (_number, True),
    "y": (_number, True),
    "lon": (_number, True),
    "lat": (_number, True),
}
GEOREFERENCE: Spec = {"control_points": (_records(CONTROL_POINT), True)}
LOCATION_TAG: Spec = {"key": (_short_text, True), "value": (_text, True), **_STAMPS}

SPECS: dict[str, Spec] = {
    col.ASSETS: {"id": (_id, True), "market": (_text, True), "name": (_text, True), **_STAMPS},
    col.FLOORS: {
        "id": (_id, True),
        "asset_id": (_id, True),
        "name": (_text, True),
        "label": (_text, False),
        "short_label": (_text, False),
        "sort": (_integer, True),
        **_STAMPS,
    },
    col.UNITS: {
        "id": (_id, True),
        "asset_id": (_id, True),
        "floor_id": (_id, True),
        "name": (_text, True),
        **_STAMPS,
    },
    col.UNIT_MAPS: {
        "id": (_id, True),
        "asset_id": (_id, True),
        "background_id": (_nullable_id, False),
        "name": (_text, True),
        "style": (_text, False),
        "style_type": (_text, False),
        "tags": (_list_of(_map_tag, unique=True), False),
        "routing_tier": (_text, False),
        "svg": (_text, False),
        "unit_ids": (_list_of(_id, unique=True), False),
        "level_tags": (_records(LEVEL_TAG), False),
        "georeference": (_object(GEOREFERENCE), False),
        "floor_height_ft": (_positive_number, False),
        **_STAMPS,
    },
    col.BACKGROUNDS: {
        "id": (_id, True),
        "unit_map_id": (_id, True),
        "name": (_text, True),
        **_STAMPS,
    },
    col.ASSET_REFERENCES: {
        "id": (_id, True),
        "asset_id": (_id, True),
        "key": (_reference_key, True),
        "value": (_short_text, True),
        **_STAMPS,
    },
    col.UNIT_REFERENCES: {
        "group_id": (_id, False),
        "asset_id": (_id, True),
        "unit_id": (_id, True),
        "key": (_reference_key, True),
        "value": (_short_text, True),
        **_STAMPS,
    },
    col.ATTRIBUTE_GROUPS: {
        "id": (_id, True),
        "group_name": (_text, True),
        "one_attribute_per_unit": (_boolean, False),
        "attributes": (_records(ATTRIBUTE), True),
    },
    col.ASSIGNMENTS: {
        "group_id": (_id, True),
        "attribute_id": (_id, True),
        "asset_id": (_id, True),
        "unit_id": (_id, True),
    },
    col.LOCATIONS: {
        "id": (_id, True),
        "asset_id": (_id, True),
        "unit_map_id": (_id, True),
        "name": (_text, True),
        "x": (_number, True),
        "y": (_number, True),
        "floors": (_records(LOCATION_FLOOR), True),
        "tags": (_records(LOCATION_TAG), False),
        **_STAMPS,
    },
}


# ---------------------------------------------------------------- loading


def load_dataset(path: Path) -> tuple[dict[str, Any], Path]:
    """Read a dataset file; return its data and the folder its relative paths start from."""
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise DatasetError([Problem("$", f"cannot read {path}: {error.strerror}")]) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        message = f"not UTF-8 text (byte {error.start})"
        raise DatasetError([Problem("$", message)]) from None
    duplicates: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        # json keeps the last of repeated keys silently; a repeated key is a mistake.
        result: dict[str, Any] = {}
        for key, value in items:
            if key in result:
                duplicates.append(key)
            result[key] = value
        return result

    def constant(name: str) -> Any:
        raise ValueError(f"{name} is not allowed in JSON")

    try:
        data = json.loads(text, object_pairs_hook=pairs, parse_constant=constant)
    except json.JSONDecodeError as error:
        message = f"not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}"
        raise DatasetError([Problem("$", message)]) from None
    except ValueError as error:
        raise DatasetError([Problem("$", f"not valid JSON: {error}")]) from None
    if duplicates:
        raise DatasetError(
            [Problem("$", f"key {_show(key)} appears twice in one object") for key in duplicates]
        )
    if not isinstance(data, dict):
        raise DatasetError([Problem("$", f"must be an object, not {_type_name(data)}")])
    return data, path.parent.resolve()


# ---------------------------------------------------------------- structure phase


@dataclass
class _Checked:
    """The file after the structure phase: clean records by section, and parsed drawings."""

    records: dict[str, list[tuple[int, dict[str, Any]]]]
    defined: dict[str, dict[str, dict[str, Any]]]
    drawings: dict[str, Drawing]
    problems: _Problems


@dataclass(frozen=True)
class Inputs:
    """How drawings are read: the parser's limits, and SVG given in memory by map id
    (the `putUnitMap` mutation) for records without an `svg` path; and the assets a
    write through the API may see (None: every asset, as for `floorgate import`)."""

    limits: SvgLimits = field(default_factory=SvgLimits)
    sources: dict[str, str] = field(default_factory=dict)
    assets: frozenset[str] | None = None


def _check_structure(data: Any, base_dir: Path, inputs: Inputs) -> _Checked:
    out = _Problems()
    records: dict[str, list[tuple[int, dict[str, Any]]]] = {s: [] for s in SECTIONS}
    defined: dict[str, dict[str, dict[str, Any]]] = {s: {} for s in ID_SECTIONS}
    checked = _Checked(records, defined, {}, out)
    if not isinstance(data, dict):
        out.add("$", f"must be an object, not {_type_name(data)}")
        return checked
    for key, value in data.items():
        if key == "version":
            if value != FORMAT_VERSION or isinstance(value, bool):
                out.add("$.version", f"must be {FORMAT_VERSION}")
        elif key not in SECTIONS:
            out.add(_at("$", key), f"unknown section (known: {', '.join(SECTIONS)})")
        elif not isinstance(value, list):
            out.add(_at("$", key), f"must be an array, not {_type_name(value)}")
        else:
            for index, item in enumerate(value):
                record = _record(item, SPECS[key], f"$.{key}[{index}]", out)
                if record is not None:
                    records[key].append((index, record))
    for section in ID_SECTIONS:
        first: dict[str, int] = {}
        for index, record in records[section]:
            if "id" not in record:
                continue
            id_ = record["id"]
            if id_ in first:
                also = f"$.{section}[{first[id_]}]"
                out.add(f"$.{section}[{index}].id", f"duplicate id {_show(id_)} (also at {also})")
                continue
            first[id_] = index
            defined[section][id_] = record
    for section in SECTIONS:
        for index, record in records[section]:
            _check_stamp_order(record, f"$.{section}[{index}]", out)
    for index, record in records[col.UNIT_MAPS]:
        _check_drawing(record, f"$.unit_maps[{index}]", base_dir, inputs, checked)
    for index, record in records[col.ATTRIBUTE_GROUPS]:
        attributes = record.get("attributes", [])
        _check_unique(attributes, "attribute_id", f"$.attribute_groups[{index}].attributes", out)
        _check_unique(attributes, "attribute_key", f"$.attribute_groups[{index}].attributes", out)
    for index, record in records[col.LOCATIONS]:
        path = f"$.locations[{index}]"
        if "floors" in record and not record["floors"]:
            out.add(f"{path}.floors", "must name at least one floor")
        _check_unique(record.get("floors", []), "id", f"{path}.floors", out)
        # The E17 filter matches keys case-insensitively, so `A` and `a` would be one tag.
        _check_unique(record.get("tags", []), "key", f"{path}.tags", out, fold=True)
    return checked


def _check_stamp_order(record: dict[str, Any], path: str, out: _Problems) -> None:
    created, updated = record.get("created_at"), record.get("updated_at")
    if created and updated and created > updated:
        out.add(f"{path}.updated_at", f"is earlier than created_at {created}")


def _check_unique(
    items: list[tuple[int, dict[str, Any]]],
    name: str,
    path: str,
    out: _Problems,
    *,
    fold: bool = False,
) -> None:
    """Report the second and later items of a list that repeat the value of `name`
    (compared case-insensitively when `fold`)."""
    first: dict[Any, int] = {}
    for index, item in items:
        if name not in item:
            continue
        value = item[name]
        seen = value.casefold() if fold and isinstance(value, str) else value
        if seen in first:
            out.add(
                f"{path}[{index}].{name}",
                f"duplicate {_show(value)} (also at {path}[{first[seen]}])",
            )
        else:
            first[seen] = index


def _check_level_tags(tags: list[tuple[int, dict[str, Any]]], path: str, out: _Problems) -> None:
    _check_unique(tags, "key", path, out)
    for index, tag in tags:
        _check_unique(tag.get("values", []), "value", f"{path}[{index}].values", out)
        for value_index, value in tag.get("values", []):
            _check_stamp_order(value, f"{path}[{index}].values[{value_index}]", out)


def _check_drawing(
    record: dict[str, Any], path: str, base_dir: Path, inputs: Inputs, checked: _Checked
) -> None:
    """Read and parse a map's drawing and fit its georeference now, so the write
    phase cannot fail on them."""
    out = checked.problems
    _check_level_tags(record.get("level_tags", []), f"{path}.level_tags", out)
    map_id = record.get("id")
    source: bytes | str | None = None
    if "svg" in record:
        source = _read_svg(record["svg"], base_dir, f"{path}.svg", out, inputs.limits)
    elif map_id in inputs.sources:
        source = inputs.sources[map_id]  # text: parsed as UTF-8, stored as UTF-8
    has_svg = "svg" in record or map_id in inputs.sources
    if has_svg and "unit_ids" in record:
        out.add(f"{path}.unit_ids", "must be left out: the drawing's units layers list the units")
    drawing: Drawing | None = None
    if source is not None and map_id is not None:
        try:
            parsed = parse_unit_map(source, inputs.limits)
            data = source.encode() if isinstance(source, str) else source
            drawing = Drawing(data, parsed)
        except SvgError as error:
            out.add(f"{path}.svg", f"is not a usable unit map: {error}")
        else:
            checked.drawings[map_id] = drawing
    if "georeference" in record:
        _check_georeference(record, path, has_svg, drawing, out)


def _check_georeference(
    record: dict[str, Any], path: str, has_svg: bool, drawing: Drawing | None, out: _Problems
) -> None:
    """The control points must fit an affine transform that keeps the canvas on the earth."""
    if not has_svg:
        out.add(f"{path}.georeference", "needs a drawing (svg) to place on the earth")
        return
    if "control_points" not in record["georeference"]:
        return
    try:
        fit = fit_affine(control_points([p for _, p in record["georeference"]["control_points"]]))
    except GeoreferenceError as error:
        out.add(f"{path}.georeference" + (f".{error.path}" if error.path else ""), error.message)
        return
    if drawing is None:
        return
    width, height = drawing.parsed.document["width"], drawing.parsed.document["height"]
    for x, y in ((0, 0), (width, 0), (width, height), (0, height)):
        lon, lat = fit.apply(x, y)
        if not (-180 <= lon <= 180 and -90 <= lat <= 90):
            where = f"({lon:.6f}, {lat:.6f})"
            out.add(f"{path}.georeference", f"puts canvas corner ({x}, {y}) off the earth {where}")
            return


def _read_svg(
    name: str, base_dir: Path, path: str, out: _Problems, limits: SvgLimits
) -> bytes | None:
    """Read a map's SVG file within the parser's byte limit."""
    if name == "":
        out.add(path, "must not be empty")
        return None
    file = base_dir / name
    try:
        if not file.is_file():
            out.add(path, f"file {_show(name)} not found in {base_dir}")
            return None
        size = file.stat().st_size
        if size > limits.max_bytes:
            out.add(path, f"file {_show(name)} has {size} bytes, more than {limits.max_bytes}")
            return None
        data = file.read_bytes()
    except OSError as error:
        out.add(path, f"cannot read {_show(name)}: {error.strerror}")
        return None
    if len(data) > limits.max_bytes:  # grew since stat
        out.add(path, f"file {_show(name)} is larger than {limits.max_bytes} bytes")
        return None
    return data


# ---------------------------------------------------------------- reference phase


@dataclass
class Existing:
    """What the database holds that a dataset refers to but does not define.

    `docs[collection][id]` is a stored document with `id` in place of `_id`;
    `assignments` are the stored assignments of the groups the dataset defines.
    """

    docs: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    assignments: list[dict[str, Any]] = field(default_factory=list)


class _Lookup:
    """Resolve an id in the file first, then in `existing`; optionally record misses."""

    def __init__(self, checked: _Checked, existing: Existing | None, record: bool) -> None:
        self.checked = checked
        self.existing = existing or Existing()
        self.record = record
        self.wanted: dict[str, set[str]] = defaultdict(set)
        self.wanted_groups: set[str] = set()

    def get(self, collection: str, id_: Any) -> dict[str, Any] | None:
        if not isinstance(id_, str):
            return None
        found = self.checked.defined[collection].get(id_)
        if found is not None:
            return found
        if self.record:
            self.wanted[collection].add(id_)
        return self.existing.docs.get(collection, {}).get(id_)

    def stored_assignments(self, group_id: str) -> list[dict[str, Any]]:
        if self.record:
            self.wanted_groups.add(group_id)
        return [a for a in self.existing.assignments if a.get("group_id") == group_id]

    def group_is_exclusive(self, group_id: str) -> bool:
        group = self.get(col.ATTRIBUTE_GROUPS, group_id)
        return bool(group and group.get("one_attribute_per_unit", False))


def _check_references(checked: _Checked, lookup: _Lookup, out: _Problems) -> None:
    """Every id a record names must exist (in the file or the database) and fit."""
    records = checked.records

    def asset(record: dict[str, Any], path: str) -> bool:
        if "asset_id" in record and lookup.get(col.ASSETS, record["asset_id"]) is None:
            out.add(f"{path}.asset_id", f"unknown asset {_show(record['asset_id'])}")
            return False
        return "asset_id" in record

    def owned(
        record: dict[str, Any],
        collection: str,
        what: str,
        thing_id: str,
        path: str,
        known_asset: bool,
        prefix: str = "",
    ) -> None:
        """`thing_id` names a unit, floor or map that exists and is the record's asset's."""
        thing = lookup.get(collection, thing_id)
        if thing is None:
            out.add(path, f"{prefix}unknown {what} {_show(thing_id)}")
        elif known_asset and thing.get("asset_id") != record["asset_id"]:
            out.add(
                path,
                f"{prefix}{what} {_show(thing_id)} belongs to asset "
                f"{_show(thing.get('asset_id'))}, not {_show(record['asset_id'])}",
            )

    def unit_of(record: dict[str, Any], unit_id: str, path: str, known_asset: bool) -> None:
        owned(record, col.UNITS, "unit", unit_id, path, known_asset)

    for index, record in records[col.FLOORS]:
        asset(record, f"$.floors[{index}]")

    for index, record in records[col.UNITS]:
        path = f"$.units[{index}]"
        known = asset(record, path)
        if "floor_id" in record:
            owned(record, col.FLOORS, "floor", record["floor_id"], f"{path}.floor_id", known)

    for index, record in records[col.UNIT_MAPS]:
        path = f"$.unit_maps[{index}]"
        known = asset(record, path)
        background_id = record.get("background_id")
        if background_id is not None:
            background = lookup.get(col.BACKGROUNDS, background_id)
            if background is None:
                out.add(f"{path}.background_id", f"unknown background {_show(background_id)}")
            elif "id" in record and background.get("unit_map_id") != record["id"]:
                out.add(
                    f"{path}.background_id",
                    f"background {_show(background_id)} belongs to map "
                    f"{_show(background.get('unit_map_id'))}, not this map",
                )
        for unit_index, unit_id in enumerate(record.get("unit_ids", [])):
            owned(record, col.UNITS, "unit", unit_id, f"{path}.unit_ids[{unit_index}]", known)
        drawing = checked.drawings.get(record.get("id", ""))
        if drawing is None:
            # The `floor` level tag's values are floor ids of the asset (unit-map-svg.md).
            for tag_index, tag in record.get("level_tags", []):
                if tag.get("key") != "floor":
                    continue
                for value_index, value in tag.get("values", []):
                    if "value" in value:
                        where = f"{path}.level_tags[{tag_index}].values[{value_index}].value"
                        owned(record, col.FLOORS, "floor", value["value"], where, known)
            continue
        for unit in drawing.parsed.units:
            line = f"line {unit.line}: " if unit.line else ""
            owned(record, col.UNITS, "unit", unit.id, f"{path}.svg", known, line)
        for level in drawing.parsed.levels:
            if "floor" in level.tags:
                line = f"line {level.line}: " if level.line else ""
                prefix = f"{line}level {_show(level.name)}: "
                floor_id = level.tags["floor"]
                owned(record, col.FLOORS, "floor", floor_id, f"{path}.svg", known, prefix)
        _check_level_tag_names(record, drawing, path, out)

    for index, record in records[col.BACKGROUNDS]:
        if "unit_map_id" in record and lookup.get(col.UNIT_MAPS, record["unit_map_id"]) is None:
            out.add(
                f"$.backgrounds[{index}].unit_map_id",
                f"unknown unit map {_show(record['unit_map_id'])}",
            )

    for index, record in records[col.ASSET_REFERENCES]:
        asset(record, f"$.asset_references[{index}]")

    seen_references: dict[tuple[str, str], int] = {}
    for index, record in records[col.UNIT_REFERENCES]:
        path = f"$.unit_references[{index}]"
        known = asset(record, path)
        if "unit_id" in record:
            unit_of(record, record["unit_id"], f"{path}.unit_id", known)
            if "key" in record:
                pair = (record["unit_id"], record["key"])
                if pair in seen_references:
                    out.add(
                        path,
                        f"unit {_show(pair[0])} already has key {_show(pair[1])} "
                        f"(at $.unit_references[{seen_references[pair]}])",
                    )
                else:
                    seen_references[pair] = index

    _check_assignments(checked, lookup, out, asset, unit_of)

    for index, record in records[col.LOCATIONS]:
        path = f"$.locations[{index}]"
        known = asset(record, path)
        if "unit_map_id" in record:
            where = f"{path}.unit_map_id"
            owned(record, col.UNIT_MAPS, "unit map", record["unit_map_id"], where, known)
        for floor_index, floor_ref in record.get("floors", []):
            if "id" in floor_ref:
                where = f"{path}.floors[{floor_index}].id"
                owned(record, col.FLOORS, "floor", floor_ref["id"], where, known)


def _check_level_tag_names(
    record: dict[str, Any], drawing: Drawing, path: str, out: _Problems
) -> None:
    """`level_tags` of a map with a drawing only name what its Levels carry."""
    drawn = level_tag_values(drawing.parsed)
    for tag_index, tag in record.get("level_tags", []):
        tag_path = f"{path}.level_tags[{tag_index}]"
        key = tag.get("key")
        if key is not None and key not in drawn:
            out.add(f"{tag_path}.key", f"no level of the drawing has the tag {_show(key)}")
            continue
        for value_index, value in tag.get("values", []):
            if key is not None and "value" in value and value["value"] not in drawn[key]:
                out.add(
                    f"{tag_path}.values[{value_index}].value",
                    f"no level of the drawing has {key} = {_show(value['value'])}",
                )


def _check_assignments(
    checked: _Checked,
    lookup: _Lookup,
    out: _Problems,
    asset: Callable[[dict[str, Any], str], bool],
    unit_of: Callable[[dict[str, Any], str, str, bool], None],
) -> None:
    """Assignments name a real group, one of its attributes and a unit of the asset;
    an exclusive group gets at most one per unit, counting what the database keeps."""
    assigned: dict[tuple[str, str], list[tuple[int, str]]] = defaultdict(list)
    for index, record in checked.records[col.ASSIGNMENTS]:
        path = f"$.assignments[{index}]"
        known = asset(record, path)
        if "unit_id" in record:
            unit_of(record, record["unit_id"], f"{path}.unit_id", known)
        if "group_id" not in record:
            continue
        group = lookup.get(col.ATTRIBUTE_GROUPS, record["group_id"])
        if group is None:
            out.add(f"{path}.group_id", f"unknown attribute group {_show(record['group_id'])}")
            continue
        if "attribute_id" in record and record["attribute_id"] not in _attribute_ids(group):
            out.add(
                f"{path}.attribute_id",
                f"group {_show(record['group_id'])} has no attribute "
                f"{_show(record['attribute_id'])}",
            )
            continue
        if "unit_id" not in record or "attribute_id" not in record:
            continue
        earlier = assigned[(record["group_id"], record["unit_id"])]
        for earlier_index, attribute_id in earlier:
            if attribute_id == record["attribute_id"]:
                out.add(path, f"repeats $.assignments[{earlier_index}]")
                break
        else:
            if earlier and group.get("one_attribute_per_unit", False):
                out.add(
                    path,
                    f"group {_show(record['group_id'])} allows one attribute per unit, and unit "
                    f"{_show(record['unit_id'])} already gets one at "
                    f"$.assignments[{earlier[0][0]}]",
                )
            earlier.append((index, record["attribute_id"]))

    for index, group in checked.records[col.ATTRIBUTE_GROUPS]:
        if "id" not in group or checked.defined[col.ATTRIBUTE_GROUPS].get(group["id"]) is not group:
            continue
        stored = lookup.stored_assignments(group["id"])
        path = f"$.attribute_groups[{index}]"
        if "attributes" in group:
            kept = _attribute_ids(group)
            removed: dict[str, int] = defaultdict(int)
            for assignment in stored:
                if assignment["attribute_id"] not in kept:
                    removed[assignment["attribute_id"]] += 1
            for attribute_id, count in sorted(removed.items()):
                out.add(
                    f"{path}.attributes",
                    f"attribute {_show(attribute_id)} is missing but still assigned to "
                    f"{count} unit(s); unassign it first",
                )
        if group.get("one_attribute_per_unit", False):
            per_unit: dict[str, int] = defaultdict(int)
            for assignment in stored:
                per_unit[assignment["unit_id"]] += 1
            crowded = sorted(
                unit_id
                for unit_id, count in per_unit.items()
                if count > 1 and (group["id"], unit_id) not in assigned
            )
            if crowded:
                out.add(
                    f"{path}.one_attribute_per_unit",
                    f"{len(crowded)} unit(s) hold several attributes of this group "
                    f"(first {_show(crowded[0])}); assign each one attribute in this file",
                )


def _attribute_ids(group: dict[str, Any]) -> set[str]:
    attributes = group.get("attributes", [])
    # File records hold (index, attribute) pairs; stored documents hold attributes.
    return {
        (item[1] if isinstance(item, tuple) else item).get("attribute_id") for item in attributes
    }


# ---------------------------------------------------------------- validation entry points


@dataclass
class Validated:
    checked: _Checked
    lookup: _Lookup
    problems: list[Problem]


def validate_dataset(
    data: dict[str, Any],
    base_dir: Path,
    existing: Existing | None = None,
    *,
    limits: SvgLimits | None = None,
) -> list[Problem]:
    """Every problem of a dataset, resolving ids it does not define in `existing`.

    Without `existing` the file must be self-contained.
    """
    return _validate_with(data, base_dir, existing, Inputs(limits or SvgLimits())).problems


def _validate_with(
    data: Any, base_dir: Path, existing: Existing | None, inputs: Inputs
) -> Validated:
    checked = _check_structure(data, base_dir, inputs)
    lookup = _Lookup(checked, existing, record=False)
    _check_references(checked, lookup, checked.problems)
    return Validated(checked, lookup, checked.problems.sorted())


async def validate(
    store: Store, data: dict[str, Any], base_dir: Path, *, limits: SvgLimits | None = None
) -> list[Problem]:
    """Every problem of a dataset, resolving ids it does not define in the database."""
    inputs = Inputs(limits or SvgLimits())
    return (await validate_against(store, data, base_dir, inputs)).problems


async def validate_against(store: Store, data: Any, base_dir: Path, inputs: Inputs) -> Validated:
    # Parses drawings and fits georeferences: CPU work, off the event loop.
    checked = await run_cpu(_check_structure, data, base_dir, inputs)
    recorder = _Lookup(checked, None, record=True)
    _check_references(checked, recorder, _Problems())  # only learns which ids to load
    existing = await load_existing(store, recorder.wanted, recorder.wanted_groups,
                                   inputs.assets)  # fmt: skip
    lookup = _Lookup(checked, existing, record=False)
    _check_references(checked, lookup, checked.problems)
    return Validated(checked, lookup, checked.problems.sorted())


# Fields that reference checks read from stored documents.
_PROJECTIONS: dict[str, dict[str, int]] = {
    col.ASSETS: {"_id": 1},
    col.FLOORS: {"asset_id": 1},
    col.UNITS: {"asset_id": 1},
    col.UNIT_MAPS: {"asset_id": 1},
    col.BACKGROUNDS: {"unit_map_id": 1},
    col.ATTRIBUTE_GROUPS: {"one_attribute_per_unit": 1, "attributes": 1},
}


async def load_existing(
    store: Store,
    ids: dict[str, set[str]],
    groups: Iterable[str] = (),
    assets: frozenset[str] | None = None,
) -> Existing:
    """Load the stored documents with these ids, and the assignments of these groups.

    With `assets`, a record of another asset is not loaded: to a write through the API
    it does not exist, so it gets exactly the answer a missing one gets ("unknown map"),
    never "belongs to asset ..." naming what the key may not see."""
    existing = Existing()
    for collection, wanted in ids.items():
        found = existing.docs.setdefault(collection, {})
        for chunk in chunks(wanted, IN_CHUNK):
            cursor = store[collection].find({"_id": {"$in": chunk}}, _PROJECTIONS[collection])
            async for doc in cursor:
                doc["id"] = doc.pop("_id")
                found[doc["id"]] = doc
    if assets is not None:
        await _keep_visible(store, existing, assets)
    for chunk in chunks(groups, IN_CHUNK):
        cursor = store[col.ASSIGNMENTS].find(
            {"group_id": {"$in": chunk}}, {"_id": 0, "group_id": 1, "unit_id": 1, "attribute_id": 1}
        )
        existing.assignments.extend([doc async for doc in cursor])
    return existing


async def _keep_visible(store: Store, existing: Existing, assets: frozenset[str]) -> None:
    """Drop loaded records outside `assets` (a background belongs to its map's asset)."""
    docs = existing.docs
    for collection, found in docs.items():
        if collection == col.ASSETS:
            docs[collection] = {id_: d for id_, d in found.items() if id_ in assets}
        elif collection in (col.FLOORS, col.UNITS, col.UNIT_MAPS):
            docs[collection] = {id_: d for id_, d in found.items() if d.get("asset_id") in assets}
    backgrounds = docs.get(col.BACKGROUNDS, {})
    if backgrounds:
        map_ids = {d.get("unit_map_id") for d in backgrounds.values()}
        visible_maps = {
            doc["_id"]
            async for doc in store[col.UNIT_MAPS].find(
                {"_id": {"$in": sorted(m for m in map_ids if isinstance(m, str))},
                 "asset_id": {"$in": sorted(assets)}}, {"_id": 1})
        }  # fmt: skip
        docs[col.BACKGROUNDS] = {
            id_: d for id_, d in backgrounds.items() if d.get("unit_map_id") in visible_maps
        }
