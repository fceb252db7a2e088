"""The structure phase of a dataset's validation (docs/dataset.md): what needs only the
file. Loading the JSON, field types, id lengths, duplicates, stamps, the SVG files and
their drawings, georeferences. The reference phase (`storage.datasets.validation`) resolves ids.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from parsing.errors import SvgError
from parsing.geo.georeference import GeoreferenceError, fit_affine
from parsing.language_tags import canonical_tag
from parsing.limits import SvgLimits
from parsing.svg import parse_unit_map
from storage import collections as col
from storage.datasets.fields import (
    SPECS,
    DatasetError,
    Problem,
    Problems,
    check_record,
    field_path,
    show,
    split_names,
    type_name,
)
from storage.datasets.map_drawings import (
    Drawing,
    control_points,
)
from storage.datasets.sections import ID_SECTIONS, SECTIONS
from storage.limits import DATASET_LANGUAGE

FORMAT_VERSION = 1


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
            [Problem("$", f"key {show(key)} appears twice in one object") for key in duplicates]
        )
    if not isinstance(data, dict):
        raise DatasetError([Problem("$", f"must be an object, not {type_name(data)}")])
    return data, path.parent.resolve()


# ---------------------------------------------------------------- structure phase


@dataclass
class Checked:
    """The file after the structure phase: clean records by section, and parsed drawings."""

    records: dict[str, list[tuple[int, dict[str, Any]]]]
    defined: dict[str, dict[str, dict[str, Any]]]
    drawings: dict[str, Drawing]
    problems: Problems


@dataclass(frozen=True)
class Inputs:
    """How drawings are read: the parser's limits, and SVG given in memory by map id
    (the `putUnitMap` mutation) for records without an `svg` path; and the assets a
    write through the API may see (None: every asset, as for `floorgate import`)."""

    limits: SvgLimits = field(default_factory=SvgLimits)
    sources: dict[str, str] = field(default_factory=dict)
    assets: frozenset[str] | None = None


def check_structure(data: Any, base_dir: Path, inputs: Inputs) -> Checked:
    out = Problems()
    records: dict[str, list[tuple[int, dict[str, Any]]]] = {s: [] for s in SECTIONS}
    defined: dict[str, dict[str, dict[str, Any]]] = {s: {} for s in ID_SECTIONS}
    checked = Checked(records, defined, {}, out)
    if not isinstance(data, dict):
        out.add("$", f"must be an object, not {type_name(data)}")
        return checked
    language = DATASET_LANGUAGE
    for key, value in data.items():
        if key == "version":
            if value != FORMAT_VERSION or isinstance(value, bool):
                out.add("$.version", f"must be {FORMAT_VERSION}")
        elif key == "language":
            tag = canonical_tag(value) if isinstance(value, str) else None
            if tag is None:
                out.add("$.language", f"{show(value)} is not a BCP 47 language tag")
            else:
                language = tag
        elif key not in SECTIONS:
            out.add(field_path("$", key), f"unknown section (known: {', '.join(SECTIONS)})")
        elif not isinstance(value, list):
            out.add(field_path("$", key), f"must be an array, not {type_name(value)}")
        else:
            for index, item in enumerate(value):
                record = check_record(item, SPECS[key], f"$.{key}[{index}]", out)
                if record is not None:
                    records[key].append((index, record))
    for listed in records.values():  # names given in several languages (issue 51)
        for _, record in listed:
            split_names(record, language)
    for section in ID_SECTIONS:
        first: dict[str, int] = {}
        for index, record in records[section]:
            if "id" not in record:
                continue
            id_ = record["id"]
            if id_ in first:
                also = f"$.{section}[{first[id_]}]"
                out.add(f"$.{section}[{index}].id", f"duplicate id {show(id_)} (also at {also})")
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


def _check_stamp_order(record: dict[str, Any], path: str, out: Problems) -> None:
    created, updated = record.get("created_at"), record.get("updated_at")
    if created and updated and created > updated:
        out.add(f"{path}.updated_at", f"is earlier than created_at {created}")


def _check_unique(
    items: list[tuple[int, dict[str, Any]]],
    name: str,
    path: str,
    out: Problems,
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
                f"duplicate {show(value)} (also at {path}[{first[seen]}])",
            )
        else:
            first[seen] = index


def _check_level_tags(tags: list[tuple[int, dict[str, Any]]], path: str, out: Problems) -> None:
    _check_unique(tags, "key", path, out)
    for index, tag in tags:
        _check_unique(tag.get("values", []), "value", f"{path}[{index}].values", out)
        for value_index, value in tag.get("values", []):
            _check_stamp_order(value, f"{path}[{index}].values[{value_index}]", out)


def _check_drawing(
    record: dict[str, Any], path: str, base_dir: Path, inputs: Inputs, checked: Checked
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
    record: dict[str, Any], path: str, has_svg: bool, drawing: Drawing | None, out: Problems
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
    name: str, base_dir: Path, path: str, out: Problems, limits: SvgLimits
) -> bytes | None:
    """Read a map's SVG file within the parser's byte limit."""
    if name == "":
        out.add(path, "must not be empty")
        return None
    file = base_dir / name
    try:
        if not file.is_file():
            out.add(path, f"file {show(name)} not found in {base_dir}")
            return None
        size = file.stat().st_size
        if size > limits.max_bytes:
            out.add(path, f"file {show(name)} has {size} bytes, more than {limits.max_bytes}")
            return None
        data = file.read_bytes()
    except OSError as error:
        out.add(path, f"cannot read {show(name)}: {error.strerror}")
        return None
    if len(data) > limits.max_bytes:  # grew since stat
        out.add(path, f"file {show(name)} is larger than {limits.max_bytes} bytes")
        return None
    return data
