"""The field kinds of a dataset file and the problems they report (docs/dataset.md):
each kind checks one value at its JSON path and returns the clean value, or records a
problem; `SPECS` gives every section's fields. Used by `storage.datasets.validation`."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from parsing.language_tags import canonical_tag
from parsing.limits import MAX_NAME_LANGUAGES
from storage import collections as col
from storage.datasets.sections import SECTIONS
from storage.limits import MAX_ID_LENGTH, REFERENCE_KEY, REFERENCE_KEY_PATTERN
from storage.timestamps import normalize_timestamp

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


class Problems:
    def __init__(self) -> None:
        self.items: list[Problem] = []

    def add(self, path: str, message: str) -> None:
        self.items.append(Problem(path, message))

    def sorted(self) -> list[Problem]:
        return sorted(self.items, key=_order)


def show(value: Any) -> str:
    """A value quoted for a message, shortened so 255-character ids stay readable."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:76] + '..."'


def type_name(value: Any) -> str:
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


def field_path(path: str, name: str | int) -> str:
    if isinstance(name, int):
        return f"{path}[{name}]"
    if name.isidentifier():
        return f"{path}.{name}"
    return f"{path}[{json.dumps(name, ensure_ascii=False)}]"


# ---------------------------------------------------------------- field kinds

# A kind checks one value, reports at `path`, and returns the clean value or _INVALID.
_INVALID: Any = object()
Kind = Callable[[Any, str, Problems], Any]


def _id(value: Any, path: str, out: Problems) -> Any:
    if not isinstance(value, str):
        out.add(path, f"must be a string id, not {type_name(value)}")
        return _INVALID
    if value == "":
        out.add(path, "must not be empty")
        return _INVALID
    if len(value) > MAX_ID_LENGTH:
        out.add(path, f"must be at most {MAX_ID_LENGTH} characters (has {len(value)})")
        return _INVALID
    return value


def _nullable_id(value: Any, path: str, out: Problems) -> Any:
    return None if value is None else _id(value, path, out)


def _text(value: Any, path: str, out: Problems) -> Any:
    if not isinstance(value, str):
        out.add(path, f"must be a string, not {type_name(value)}")
        return _INVALID
    return value


def _name(value: Any, path: str, out: Problems) -> Any:
    """A name: a string (in the dataset's `language`), or an object of BCP 47 tags and
    the name in each (issue 51), its tags in canonical case (`zh-hant` -> `zh-Hant`).
    `split_names` makes a record's stored `name` and `names` of it."""
    if isinstance(value, str):
        return value
    if not isinstance(value, dict):
        out.add(path, f"must be a string or an object of language tags, not {type_name(value)}")
        return _INVALID
    if not value:
        out.add(path, "must name at least one language")
        return _INVALID
    if len(value) > MAX_NAME_LANGUAGES:
        out.add(path, f"must have at most {MAX_NAME_LANGUAGES} languages (has {len(value)})")
        return _INVALID
    clean: dict[str, str] = {}
    for tag, text in value.items():
        canonical = canonical_tag(tag)
        if canonical is None:
            out.add(field_path(path, tag), f"{show(tag)} is not a BCP 47 language tag")
        elif canonical in clean:
            out.add(field_path(path, tag), f"repeats the language {show(canonical)}")
        elif not isinstance(text, str):
            out.add(field_path(path, tag), f"must be a string, not {type_name(text)}")
        else:
            clean[canonical] = text
    return clean if len(clean) == len(value) else _INVALID


def split_names(record: dict[str, Any], language: str) -> None:
    """A record whose `name` is an object of languages: `name` becomes the text in
    `language` (the dataset's), else in its first language; `names` all of them, that
    one first (in place)."""
    given = record.get("name")
    if not isinstance(given, dict):
        return
    first = language if language in given else next(iter(given))
    record["name"] = given[first]
    record["names"] = {first: given[first], **given}


def _short_text(value: Any, path: str, out: Problems) -> Any:
    """Keys and values that clients filter on: non-empty, at most 255 characters."""
    return _id(value, path, out)


def _reference_key(value: Any, path: str, out: Problems) -> Any:
    if _text(value, path, out) is _INVALID:
        return _INVALID
    if REFERENCE_KEY.fullmatch(value) is None:
        out.add(path, f"{show(value)} does not match {REFERENCE_KEY_PATTERN}")
        return _INVALID
    return value


def _integer(value: Any, path: str, out: Problems) -> Any:
    if isinstance(value, bool) or not isinstance(value, int):
        out.add(path, f"must be an integer, not {type_name(value)}")
        return _INVALID
    return value


def _number(value: Any, path: str, out: Problems) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float):
        out.add(path, f"must be a number, not {type_name(value)}")
        return _INVALID
    if not math.isfinite(value):
        out.add(path, "must be a finite number")
        return _INVALID
    return value


def _positive_number(value: Any, path: str, out: Problems) -> Any:
    value = _number(value, path, out)
    if value is not _INVALID and value <= 0:
        out.add(path, "must be a positive number")
        return _INVALID
    return value


def _bounded_number(low: float, high: float) -> Kind:
    """A number from `low` to `high`, such as a latitude."""

    def check(value: Any, path: str, out: Problems) -> Any:
        value = _number(value, path, out)
        if value is not _INVALID and not low <= value <= high:
            out.add(path, f"must be from {low:g} to {high:g}")
            return _INVALID
        return value

    return check


def _boolean(value: Any, path: str, out: Problems) -> Any:
    if not isinstance(value, bool):
        out.add(path, f"must be true or false, not {type_name(value)}")
        return _INVALID
    return value


def _timestamp(value: Any, path: str, out: Problems) -> Any:
    if _text(value, path, out) is _INVALID:
        return _INVALID
    try:
        return normalize_timestamp(value)
    except ValueError as error:
        out.add(path, f"{show(value)} is not an ISO 8601 timestamp with offset ({error})")
        return _INVALID


def _list_of(item: Kind, *, unique: bool = False) -> Kind:
    """An array whose items all have kind `item`; invalid items are dropped."""

    def check(value: Any, path: str, out: Problems) -> Any:
        if not isinstance(value, list):
            out.add(path, f"must be an array, not {type_name(value)}")
            return _INVALID
        clean: list[Any] = []
        first: dict[Any, int] = {}
        for index, element in enumerate(value):
            checked = item(element, field_path(path, index), out)
            if checked is _INVALID:
                continue
            if unique and isinstance(checked, str):
                if checked in first:
                    out.add(
                        field_path(path, index),
                        f"duplicate {show(checked)} (also at {field_path(path, first[checked])})",
                    )
                    continue
                first[checked] = index
            clean.append(checked)
        return clean

    return check


def _map_tag(value: Any, path: str, out: Problems) -> Any:
    if _short_text(value, path, out) is _INVALID:
        return _INVALID
    if "," in value:
        out.add(path, "must not contain a comma (the tags filter splits on commas)")
        return _INVALID
    return value


# A record spec: field name -> (kind, required). Optional fields may also be null.
Spec = dict[str, tuple[Kind, bool]]


def check_record(value: Any, spec: Spec, path: str, out: Problems) -> dict[str, Any] | None:
    """Check an object against `spec`; return its valid fields only, so later checks
    never trip over a value that was already reported."""
    if not isinstance(value, dict):
        out.add(path, f"must be an object, not {type_name(value)}")
        return None
    clean: dict[str, Any] = {}
    for name, (kind, required) in spec.items():
        if name not in value or (value[name] is None and not required):
            if required:
                out.add(field_path(path, name), "is required")
            continue
        checked = kind(value[name], field_path(path, name), out)
        if checked is not _INVALID:
            clean[name] = checked
    for name in value:
        if name not in spec:
            out.add(field_path(path, name), "unknown field")
    return clean


def _object(spec: Spec) -> Kind:
    """One nested object of `spec` (such as a map's georeference)."""

    def check(value: Any, path: str, out: Problems) -> Any:
        record = check_record(value, spec, path, out)
        return _INVALID if record is None else record

    return check


def _records(spec: Spec) -> Kind:
    """An array of objects of `spec` (nested records such as level tags)."""

    def check(value: Any, path: str, out: Problems) -> Any:
        if not isinstance(value, list):
            out.add(path, f"must be an array, not {type_name(value)}")
            return _INVALID
        clean = []
        for index, element in enumerate(value):
            record = check_record(element, spec, field_path(path, index), out)
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

# What clients of the vendor's API read of an asset (docs/api.md, Vendor paths): all
# optional, null when not given, never made up.
ASSET_DETAILS: Spec = {
    "display_name": (_text, False),
    "address_line1": (_text, False),
    "address_line2": (_text, False),
    "address_city": (_text, False),
    "address_state": (_text, False),
    "address_postal_code": (_text, False),
    "address_country": (_text, False),
    "latitude": (_bounded_number(-90, 90), False),
    "longitude": (_bounded_number(-180, 180), False),
    "tags": (_list_of(_map_tag, unique=True), False),
}

SPECS: dict[str, Spec] = {
    col.ASSETS: {
        "id": (_id, True),
        "market": (_short_text, True),
        "name": (_name, True),
        **ASSET_DETAILS,
        **_STAMPS,
    },
    col.FLOORS: {
        "id": (_id, True),
        "asset_id": (_id, True),
        "name": (_name, True),
        "label": (_text, False),
        "short_label": (_text, False),
        "sort": (_integer, True),
        **_STAMPS,
    },
    col.UNITS: {
        "id": (_id, True),
        "asset_id": (_id, True),
        "floor_id": (_id, True),
        "name": (_name, True),
        **_STAMPS,
    },
    col.UNIT_MAPS: {
        "id": (_id, True),
        "asset_id": (_id, True),
        "background_id": (_nullable_id, False),
        "name": (_name, True),
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
        "name": (_name, True),
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
        "group_name": (_text, False),
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
        "name": (_name, True),
        "x": (_number, True),
        "y": (_number, True),
        "floors": (_records(LOCATION_FLOOR), True),
        "tags": (_records(LOCATION_TAG), False),
        **_STAMPS,
    },
}
