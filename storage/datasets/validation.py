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

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from parsing.limits import SvgLimits
from storage import collections as col
from storage.cpu import run_cpu
from storage.database import Store
from storage.datasets.fields import (
    Problem,
    Problems,
    show,
)
from storage.datasets.map_drawings import (
    Drawing,
    level_tag_values,
)
from storage.datasets.structure import Checked, Inputs, check_structure
from storage.files import chunks
from storage.limits import IN_CHUNK

# Sections of the file, in the order they are validated, reported and written.


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

    def __init__(self, checked: Checked, existing: Existing | None, record: bool) -> None:
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


def _check_references(checked: Checked, lookup: _Lookup, out: Problems) -> None:
    """Every id a record names must exist (in the file or the database) and fit."""
    records = checked.records

    def asset(record: dict[str, Any], path: str) -> bool:
        if "asset_id" in record and lookup.get(col.ASSETS, record["asset_id"]) is None:
            out.add(f"{path}.asset_id", f"unknown asset {show(record['asset_id'])}")
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
            out.add(path, f"{prefix}unknown {what} {show(thing_id)}")
        elif known_asset and thing.get("asset_id") != record["asset_id"]:
            out.add(
                path,
                f"{prefix}{what} {show(thing_id)} belongs to asset "
                f"{show(thing.get('asset_id'))}, not {show(record['asset_id'])}",
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
                out.add(f"{path}.background_id", f"unknown background {show(background_id)}")
            elif "id" in record and background.get("unit_map_id") != record["id"]:
                out.add(
                    f"{path}.background_id",
                    f"background {show(background_id)} belongs to map "
                    f"{show(background.get('unit_map_id'))}, not this map",
                )
        for unit_index, unit_id in enumerate(record.get("unit_ids", [])):
            owned(record, col.UNITS, "unit", unit_id, f"{path}.unit_ids[{unit_index}]", known)
        drawing = checked.drawings.get(record.get("id", ""))
        if drawing is None:
            # The `floor` level tag's values are floor ids of the asset (docs/unit-map-svg.md).
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
                prefix = f"{line}level {show(level.name)}: "
                floor_id = level.tags["floor"]
                owned(record, col.FLOORS, "floor", floor_id, f"{path}.svg", known, prefix)
        _check_level_tag_names(record, drawing, path, out)

    for index, record in records[col.BACKGROUNDS]:
        if "unit_map_id" in record and lookup.get(col.UNIT_MAPS, record["unit_map_id"]) is None:
            out.add(
                f"$.backgrounds[{index}].unit_map_id",
                f"unknown unit map {show(record['unit_map_id'])}",
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
                        f"unit {show(pair[0])} already has key {show(pair[1])} "
                        f"(at $.unit_references[{seen_references[pair]}])",
                    )
                else:
                    seen_references[pair] = index

    _check_assignments(checked, lookup, out, asset, unit_of)

    def levels_of(record: dict[str, Any], known_asset: bool) -> set[str]:
        """The floors the levels of the record's map are on, when the map is the record's
        asset's (a map without levels on floors places its locations on any floor)."""
        map_id = record.get("unit_map_id")
        unit_map = lookup.get(col.UNIT_MAPS, map_id)
        if unit_map is None or (known_asset and unit_map.get("asset_id") != record["asset_id"]):
            return set()
        if map_id in checked.defined[col.UNIT_MAPS]:  # its levels are those it is given now
            drawing = checked.drawings.get(map_id)
            levels = drawing.parsed.levels if drawing is not None else []
            floors = {level.tags["floor"] for level in levels if "floor" in level.tags}
            # A level on an unknown floor is the drawing's own problem, reported once.
            if any(lookup.get(col.FLOORS, floor) is None for floor in floors):
                return set()
            return floors
        return {level.get("floor_id") for level in unit_map.get("levels") or []} - {None}

    for index, record in records[col.LOCATIONS]:
        path = f"$.locations[{index}]"
        known = asset(record, path)
        if "unit_map_id" in record:
            where = f"{path}.unit_map_id"
            owned(record, col.UNIT_MAPS, "unit map", record["unit_map_id"], where, known)
        levels = levels_of(record, known)
        for floor_index, floor_ref in record.get("floors", []):
            if "id" in floor_ref:
                where = f"{path}.floors[{floor_index}].id"
                owned(record, col.FLOORS, "floor", floor_ref["id"], where, known)
                floor = lookup.get(col.FLOORS, floor_ref["id"])
                ours = floor is not None and (
                    not known or floor.get("asset_id") == record["asset_id"]
                )
                # `floorgate check` holds a location to its map's levels, as routes do.
                if levels and ours and floor_ref["id"] not in levels:
                    out.add(where, not_a_level(floor_ref["id"], record["unit_map_id"], levels))


LEVELS_NAMED = 10  # the levels a refusal names, at most


def not_a_level(floor_id: str, map_id: str, levels: set[str]) -> str:
    """A location's floor that no level of its map is on, and the floors they are on."""
    named = sorted(levels)
    shown = ", ".join(show(level) for level in named[:LEVELS_NAMED])
    more = f" and {len(named) - LEVELS_NAMED} more" if len(named) > LEVELS_NAMED else ""
    return (
        f"floor {show(floor_id)} is not a level of unit map {show(map_id)} "
        f"(its levels are on {shown}{more})"
    )


def _check_level_tag_names(
    record: dict[str, Any], drawing: Drawing, path: str, out: Problems
) -> None:
    """`level_tags` of a map with a drawing only name what its Levels carry."""
    drawn = level_tag_values(drawing.parsed)
    for tag_index, tag in record.get("level_tags", []):
        tag_path = f"{path}.level_tags[{tag_index}]"
        key = tag.get("key")
        if key is not None and key not in drawn:
            out.add(f"{tag_path}.key", f"no level of the drawing has the tag {show(key)}")
            continue
        for value_index, value in tag.get("values", []):
            if key is not None and "value" in value and value["value"] not in drawn[key]:
                out.add(
                    f"{tag_path}.values[{value_index}].value",
                    f"no level of the drawing has {key} = {show(value['value'])}",
                )


def _check_assignments(
    checked: Checked,
    lookup: _Lookup,
    out: Problems,
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
            out.add(f"{path}.group_id", f"unknown attribute group {show(record['group_id'])}")
            continue
        if "attribute_id" in record and record["attribute_id"] not in _attribute_ids(group):
            out.add(
                f"{path}.attribute_id",
                f"group {show(record['group_id'])} has no attribute {show(record['attribute_id'])}",
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
                    f"group {show(record['group_id'])} allows one attribute per unit, and unit "
                    f"{show(record['unit_id'])} already gets one at "
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
                    f"attribute {show(attribute_id)} is missing but still assigned to "
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
                    f"(first {show(crowded[0])}); assign each one attribute in this file",
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
    checked: Checked
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
    checked = check_structure(data, base_dir, inputs)
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
    checked = await run_cpu(check_structure, data, base_dir, inputs)
    recorder = _Lookup(checked, None, record=True)
    _check_references(checked, recorder, Problems())  # only learns which ids to load
    existing = await load_existing(store, recorder.wanted, recorder.wanted_groups, inputs.assets)
    lookup = _Lookup(checked, existing, record=False)
    _check_references(checked, lookup, checked.problems)
    return Validated(checked, lookup, checked.problems.sorted())


# Fields that reference checks read from stored documents.
_PROJECTIONS: dict[str, dict[str, int]] = {
    col.ASSETS: {"_id": 1},
    col.FLOORS: {"asset_id": 1},
    col.UNITS: {"asset_id": 1},
    col.UNIT_MAPS: {"asset_id": 1, "levels.floor_id": 1},
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
                {
                    "_id": {"$in": sorted(m for m in map_ids if isinstance(m, str))},
                    "asset_id": {"$in": sorted(assets)},
                },
                {"_id": 1},
            )
        }
        docs[col.BACKGROUNDS] = {
            id_: d for id_, d in backgrounds.items() if d.get("unit_map_id") in visible_maps
        }
