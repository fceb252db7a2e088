"""The write phase of an import: one ordered bulk write per collection and kind of
change, in dependency order, every read and write in the caller's session (so that, in a
transaction, readers see all of an import or none of it: storage/imports/importer.py).

Documents are built from validated records by `storage.imports.documents`; the files they
name were stored before (`store_drawing`), and `refresh_geojson` writes each touched
map's GeoJSON from what this session sees.

Given a `StagedPlan` (an asset too large for one transaction), the writer reads the live
state and writes nothing: its operations go to the plan, which a switch applies later
(`storage.imports.switches`), and its reads see what it wrote through the plan.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, cast

from pymongo import ReplaceOne, UpdateMany, UpdateOne

from parsing.geometry.placement import label_point
from storage import collections as col
from storage.attributes import events
from storage.database import Store
from storage.datasets.map_drawings import (
    Drawing,
    StoredDrawing,
    geojson_changes,
    named_level_tags,
    refresh_geojson,
)
from storage.datasets.sections import REPORTED
from storage.files import chunks, named_files
from storage.imports import documents
from storage.imports.connector_places import connector_places
from storage.imports.replaced import FIELDS, given_locations, removed, replaced_maps
from storage.imports.staging import Assign, Exclusive, StagedPlan
from storage.limits import IMPORT_BATCH_OPERATIONS, IN_CHUNK
from storage.transactions import Session


@dataclass
class CollectionCounts:
    inserted: int = 0
    updated: int = 0
    deleted: int = 0


@dataclass
class ImportReport:
    """What an import changed, per collection, plus the SVG files it stored."""

    counts: dict[str, CollectionCounts] = field(
        default_factory=lambda: {name: CollectionCounts() for name in REPORTED}
    )
    files_stored: int = 0
    files_unchanged: int = 0
    notes: list[str] = field(default_factory=list)  # per map: the georeference fit
    removed_locations: int = 0  # of those deleted: no longer in their map (`replace_locations`)

    def add(self, other: ImportReport) -> None:
        """Count `other` (one transaction of an import committed per asset) in this one."""
        for name, counts in other.counts.items():
            mine = self.counts[name]
            mine.inserted += counts.inserted
            mine.updated += counts.updated
            mine.deleted += counts.deleted
        self.files_stored += other.files_stored
        self.files_unchanged += other.files_unchanged
        self.notes.extend(other.notes)
        self.removed_locations += other.removed_locations

    def lines(self) -> list[str]:
        rows = [
            f"{name}: {c.inserted} inserted, {c.updated} updated"
            + (f", {c.deleted} deleted" if c.deleted else "")
            for name, c in self.counts.items()
            if c.inserted or c.updated or c.deleted
        ]
        rows.append(f"map files: {self.files_stored} stored, {self.files_unchanged} unchanged")
        rows.extend(self.notes)
        return rows


Records = dict[str, list[tuple[int, dict[str, Any]]]]  # section -> (index in file, record)


class Writer:
    """Writes validated records: one ordered bulk_write per collection, in dependency
    order, every read and write in `session` (a transaction's, or None on a standalone
    server, where the order and idempotent upserts are what repairs a failure half way).

    The files the maps name are stored already (`files`, by map id); `is_exclusive`
    tells a one-attribute-per-unit group by id (from the file, else the database).
    With `plan`, nothing is written: the operations are kept there (see the module).
    With `replace_locations`, the file's maps keep only the locations it gives them
    (and their derived ones: `storage.imports.replaced`).
    """

    def __init__(
        self,
        store: Store,
        records: Records,
        drawings: dict[str, Drawing],
        files: dict[str, StoredDrawing],
        is_exclusive: Callable[[str], bool],
        at: str,
        session: Session,
        plan: StagedPlan | None = None,
        replace_locations: bool = False,
        extra: dict[str, list[dict[str, Any]]] | None = None,
    ) -> None:
        self.store = store
        self.extra = extra or {}  # derived documents replaced by `_id` (import_data's `extra`)
        self.plan = plan
        self.replace_locations = replace_locations
        self.records = records
        self.drawings = drawings
        self.files = files
        self.is_exclusive = is_exclusive
        self.at = at
        self.session = session
        self.report = ImportReport()
        self.named_before: dict[str, set[str]] = {}  # files of the touched maps, before
        self.maps_of_renamed: list[str] = []  # maps drawing a renamed unit: GeoJSON names it

    async def run(self) -> ImportReport:
        # What the touched maps name now: the files to drop after the commit.
        self.named_before = await named_files(self.store, self.touched_maps(), self.session)
        await self._by_id(col.ASSETS, documents.asset)
        for collection, docs in sorted(self.extra.items()):  # derived from the assets' records
            await self._bulk(
                collection, [ReplaceOne({"_id": d["_id"]}, d, upsert=True) for d in docs]
            )
        await self._by_id(col.FLOORS, documents.floor)
        units_before = await self._by_id(col.UNITS, documents.unit, also_read=("name",))
        await self._maps_of_renamed(units_before)
        await self._by_id(col.BACKGROUNDS, documents.background)
        await self._by_id(
            col.UNIT_MAPS,
            lambda r, *_: documents.unit_map(
                r, self.drawings.get(r["id"]), self.files.get(r["id"])
            ),
        )
        await self._level_tags()
        await self._by_id(col.ASSET_REFERENCES, documents.asset_reference)
        await self._unit_references()
        await self._by_id(col.ATTRIBUTE_GROUPS, documents.group, stamped=False)
        await self._assignments()
        await self._by_id(col.LOCATIONS, documents.location)
        await self._unit_locations()
        await self._geojson()
        return self.report

    def touched_maps(self) -> list[str]:
        """The maps whose documents or GeoJSON this import rewrites."""
        map_ids = [record["id"] for record in self._unique(col.UNIT_MAPS)]
        map_ids += [record["unit_map_id"] for record in self._unique(col.LOCATIONS)]
        return list(dict.fromkeys(map_ids + self.maps_of_renamed))

    async def _maps_of_renamed(self, units_before: list[dict[str, Any]]) -> None:
        """The stored maps that draw a unit this import renames: their GeoJSON names the
        unit, so it is written again (`_geojson`), and its file before is dropped after
        the commit like that of any touched map."""
        names = {record["id"]: record["name"] for record in self._unique(col.UNITS)}
        renamed = {doc["_id"] for doc in units_before if doc.get("name") != names[doc["_id"]]}
        found = await self._stored(col.UNIT_MAPS, "unit_ids", renamed, ["_id"])
        known = set(self.touched_maps())
        self.maps_of_renamed = sorted({doc["_id"] for doc in found} - known)
        if self.maps_of_renamed:
            extra = await named_files(self.store, self.maps_of_renamed, self.session)
            self.named_before.update(extra)

    # -- helpers

    async def _stored(
        self,
        collection: str,
        query_field: str,
        values: Iterable[Any],
        fields: Iterable[str] | None,
    ) -> list[dict[str, Any]]:
        """Documents whose `query_field` is one of `values` (with `fields`; None: whole)."""
        projection = None if fields is None else {name: 1 for name in fields}
        values = set(values)
        found: list[dict[str, Any]] = []
        for chunk in chunks(values, IN_CHUNK):
            cursor = self.store[collection].find(
                {query_field: {"$in": chunk}}, projection, session=self.session
            )
            found.extend([doc async for doc in cursor])
        if self.plan is not None:
            return self.plan.overlaid(collection, query_field, values, found)
        return found

    async def _bulk(self, collection: str, operations: list[Any]) -> int:
        """Run the operations in order, in batches of IMPORT_BATCH_OPERATIONS; return
        how many documents they deleted. Staged: keep them in the plan."""
        if self.plan is not None:
            return self.plan.add(collection, operations)
        deleted = 0
        for start in range(0, len(operations), IMPORT_BATCH_OPERATIONS):
            batch = operations[start : start + IMPORT_BATCH_OPERATIONS]
            result = await self.store[collection].bulk_write(
                batch, ordered=True, session=self.session
            )
            deleted += result.deleted_count
        return deleted

    async def _drop_and_replace(
        self, collection: str, dropped: list[Any], replacements: list[Any]
    ) -> int:
        """Delete documents by `_id`, then replace others (never the same ones); return how
        many were deleted. Staged, the deletes go after every other operation: between
        two batches a reader then finds a list (a map's locations) whole in one version
        or the other, or with both, never with neither."""
        deletes = documents.deletes_by_id(dropped)
        if self.plan is None:
            return await self._bulk(collection, [*deletes, *replacements])
        self.plan.add(collection, replacements)
        return self.plan.add(collection, deletes, last=True)

    def _unique(self, section: str) -> list[dict[str, Any]]:
        # Validation rejected duplicates, so these are one record per key.
        return [record for _, record in self.records[section]]

    async def _by_id(
        self,
        section: str,
        build: documents.Build,
        stamped: bool = True,
        also_read: tuple[str, ...] = (),
    ) -> list[dict[str, Any]]:
        """Replace each record's document by id, keeping a stored created_at; return the
        stored documents as they were (their created_at and the fields `also_read`)."""
        records = self._unique(section)
        ids = [record["id"] for record in records]
        found = await self._stored(section, "_id", ids, ["created_at", *also_read])
        stored = {doc["_id"]: doc.get("created_at") for doc in found}
        operations = []
        for record in records:
            created, updated = documents.stamps(record, stored.get(record["id"]), self.at)
            doc = {"_id": record["id"], **build(record, created, updated)}
            if stamped:
                doc["created_at"], doc["updated_at"] = created, updated
            operations.append(ReplaceOne({"_id": record["id"]}, doc, upsert=True))
        await self._bulk(section, operations)
        counts = self.report.counts[section]
        counts.updated += sum(1 for id_ in ids if id_ in stored)
        counts.inserted += sum(1 for id_ in ids if id_ not in stored)
        return found

    # -- files, level tags, references, assignments

    async def _geojson(self) -> None:
        """GeoJSON of the maps in the file, and of the maps whose locations it changed;
        then each of those maps keeps only the files it names."""
        for map_id in self.touched_maps():
            drawing = self.drawings.get(map_id)
            document = drawing.parsed.document if drawing else None
            if self.plan is None:
                summary = await refresh_geojson(self.store, map_id, document, self.session)
            else:
                summary = await self._staged_geojson(map_id, document)
            if summary is not None:
                self.report.notes.append(f"{map_id}: {summary}")

    async def _staged_geojson(self, map_id: str, document: dict[str, Any] | None) -> str | None:
        """`refresh_geojson` on what the plan's transaction would see, its change kept."""
        found = await self._stored(col.UNIT_MAPS, "_id", [map_id], None)
        if not found:
            return None
        locations = await self._stored(col.LOCATIONS, "unit_map_id", [map_id], None)
        locations.sort(key=lambda doc: doc["_id"])

        async def names(ids: list[str]) -> dict[str, Any]:
            units = await self._stored(col.UNITS, "_id", ids, ["name"])
            return {doc["_id"]: doc.get("name") for doc in units}

        changes, summary = await geojson_changes(self.store, found[0], locations, document, names)
        if changes:
            await self._bulk(col.UNIT_MAPS, [UpdateOne({"_id": map_id}, {"$set": changes})])
        return summary

    async def _unit_locations(self) -> None:
        """Units of a drawing with walk paths (processed for pathfinding) become locations
        of its map (`derived: true`) unless the file or the database gives the map a
        location for them (`svc:id` = unit id). Derived locations of units that left
        the drawing, or are now given, go. With `replace_locations`, so do the stored
        locations of the file's maps that it does not give (`storage.imports.replaced`),
        in the same bulk, before the derived ones are chosen (one of them no longer
        stands for its unit). One query per collection and one bulk for every map of
        the file."""
        maps = [
            (unit_map, drawing)
            for unit_map in self._unique(col.UNIT_MAPS)
            if (drawing := self.drawings.get(unit_map["id"])) is not None
            and drawing.graph is not None
        ]
        replaced = replaced_maps(self.records) if self.replace_locations else set()
        if not maps and not replaced:
            return
        routed = {m["id"] for m, _ in maps}
        found = await self._stored(
            col.LOCATIONS, "unit_map_id", routed | replaced, [*FIELDS, "tags"]
        )
        gone = set(removed(found, replaced, given_locations(self.records)))
        given: dict[str, set[str]] = defaultdict(set)
        given_connectors: dict[str, set[str]] = defaultdict(set)
        derived: list[tuple[str, Any]] = []  # (map id, _id) of stored derived locations
        for doc in found:
            if doc["_id"] in gone or doc["unit_map_id"] not in routed:
                continue
            if doc.get("derived") is True:
                derived.append((doc["unit_map_id"], doc["_id"]))
                continue
            for tag in doc.get("tags", []):
                if tag.get("key") == col.UNIT_ID_TAG:
                    given[doc["unit_map_id"]].add(tag["value"])
                elif tag.get("key") == col.CONNECTOR_ID_TAG:
                    given_connectors[doc["unit_map_id"]].add(tag["value"])
        wanted = {
            unit_map["id"]: self._wanted_units(drawing, given[unit_map["id"]])
            for unit_map, drawing in maps
        }
        stops = {
            unit_map["id"]: connector_places(
                unit_map["id"], drawing.parsed, given_connectors[unit_map["id"]]
            )
            for unit_map, drawing in maps
        }
        drawn = {unit_id for shapes in wanted.values() for unit_id in shapes}
        units = {
            doc["_id"]: doc
            for doc in await self._stored(col.UNITS, "_id", drawn, ["name", "names", "floor_id"])
        }
        ids = [documents.derived_location_id(m, u) for m, shapes in wanted.items() for u in shapes]
        ids += [place.location_id for places in stops.values() for place in places]
        stored = {
            doc["_id"]: doc.get("created_at")
            for doc in await self._stored(col.LOCATIONS, "_id", ids, ["created_at"])
        }
        replacements: list[Any] = []
        keep: set[tuple[str, Any]] = set()
        for unit_map, drawing in maps:
            map_id = unit_map["id"]
            floors = {level.uid: level.tags.get("floor") for level in drawing.parsed.levels}
            for unit_id, shape in wanted[map_id].items():
                id_ = documents.derived_location_id(map_id, unit_id)
                keep.add((map_id, id_))
                x, y = label_point(shape.points, shape.holes)
                created = stored.get(id_) or self.at
                floor = floors.get(shape.level_uid or "") or units[unit_id].get("floor_id")
                unit = units[unit_id]
                where = {
                    "name": unit["name"],
                    **({"names": unit["names"]} if "names" in unit else {}),
                    "x": x,
                    "y": y,
                    "floors": [{"id": floor}],
                }
                tags = [(col.PLACE_TYPE_TAG, col.UNIT_PLACE), (col.UNIT_ID_TAG, unit_id)]
                doc = self._derived(unit_map, id_, where, tags, created)
                replacements.append(ReplaceOne({"_id": id_}, doc, upsert=True))
            for place in stops[map_id]:
                keep.add((map_id, place.location_id))
                created = stored.get(place.location_id) or self.at
                floor = floors.get(place.level_uid or "")
                where = {"name": place.name, "x": place.x, "y": place.y}
                where["floors"] = [{"id": floor}] if floor else []
                tags = [
                    (col.PLACE_TYPE_TAG, col.CONNECTOR_PLACE),
                    (col.CONNECTOR_ID_TAG, place.connector_id),
                    ("svc:category", place.kind),
                    col.GENERATED_NAME_TAG,
                ]
                doc = self._derived(unit_map, place.location_id, where, tags, created)
                replacements.append(ReplaceOne({"_id": place.location_id}, doc, upsert=True))
        dropped = [id_ for map_id, id_ in derived if (map_id, id_) not in keep]
        kept = {id_ for _, id_ in keep}  # a removed one a derived one replaces stays
        stale = [id_ for id_ in sorted(gone, key=repr) if id_ not in kept]
        self.report.removed_locations += len(stale)
        dropped += stale
        counts = self.report.counts[col.LOCATIONS]
        counts.inserted += sum(1 for _, id_ in keep if id_ not in stored)
        counts.updated += sum(1 for _, id_ in keep if id_ in stored)
        counts.deleted += await self._drop_and_replace(col.LOCATIONS, dropped, replacements)

    def _derived(
        self,
        unit_map: dict[str, Any],
        id_: str,
        where: dict[str, Any],
        tags: list[tuple[str, str]],
        created: Any,
    ) -> dict[str, Any]:
        """A derived location of `unit_map` (a unit's, a connector's on one level,
        `connector_places`): its name and place (`where`), its tags, stamped."""
        return {
            "_id": id_,
            "asset_id": unit_map["asset_id"],
            "unit_map_id": unit_map["id"],
            **where,
            "tags": [
                {"key": key, "value": value, "created_at": created, "updated_at": self.at}
                for key, value in tags
            ],
            "derived": True,
            "created_at": created,
            "updated_at": self.at,
        }

    @staticmethod
    def _wanted_units(drawing: Drawing, given: set[str]) -> dict[str, Any]:
        """The drawing's units (first shape of each) that no given location stands for."""
        shapes: dict[str, Any] = {}
        for shape in drawing.parsed.units:
            shapes.setdefault(shape.id, shape)
        return {unit_id: shape for unit_id, shape in shapes.items() if unit_id not in given}

    async def _level_tags(self) -> None:
        """A map in the file replaces all its level tags; tags it omits are deleted."""
        maps = self._unique(col.UNIT_MAPS)
        stored = {
            (doc["unit_map_id"], doc["key"]): doc
            for doc in await self._stored(
                col.LEVEL_TAGS,
                "unit_map_id",
                (m["id"] for m in maps),
                ["unit_map_id", "key", "created_at", "values"],
            )
        }
        replacements: list[Any] = []
        kept: set[tuple[str, str]] = set()
        counts = self.report.counts[col.LEVEL_TAGS]
        for unit_map in maps:
            given = unit_map.get("level_tags", [])
            drawing = self.drawings.get(unit_map["id"])
            named = named_level_tags(drawing.parsed, given) if drawing else given
            tags = [tag for _, tag in named]
            kept.update((unit_map["id"], tag["key"]) for tag in tags)
            for tag in tags:
                previous = stored.get((unit_map["id"], tag["key"]))
                # a stored document is never empty (it has its _id): None or its created_at
                created, updated = documents.stamps(
                    tag, cast("str | None", previous and previous.get("created_at")), self.at
                )
                values = documents.level_tag_values(tag, previous, created, updated)
                doc = {
                    "unit_map_id": unit_map["id"],
                    "key": tag["key"],
                    "name": tag["name"],
                    "values": values,
                    "created_at": created,
                    "updated_at": updated,
                }
                replacements.append(
                    ReplaceOne({"unit_map_id": unit_map["id"], "key": tag["key"]}, doc, upsert=True)
                )
                if previous is None:
                    counts.inserted += 1
                else:
                    counts.updated += 1
        # Tags a map no longer has go by `_id`, in one delete per chunk, before the rest.
        dropped = [doc["_id"] for key, doc in stored.items() if key not in kept]
        counts.deleted += await self._drop_and_replace(col.LEVEL_TAGS, dropped, replacements)

    async def _unit_references(self) -> None:
        """Unit references are keyed by (unit_id, key), the collection's unique index."""
        records = self._unique(col.UNIT_REFERENCES)
        stored = {
            (doc["unit_id"], doc["key"]): doc.get("created_at")
            for doc in await self._stored(
                col.UNIT_REFERENCES,
                "unit_id",
                (r["unit_id"] for r in records),
                ["unit_id", "key", "created_at"],
            )
        }
        operations = []
        counts = self.report.counts[col.UNIT_REFERENCES]
        for record in records:
            pair = (record["unit_id"], record["key"])
            created, updated = documents.stamps(record, stored.get(pair), self.at)
            doc = {
                "group_id": record.get("group_id", record["asset_id"]),
                "asset_id": record["asset_id"],
                "unit_id": record["unit_id"],
                "key": record["key"],
                "value": record["value"],
                "created_at": created,
                "updated_at": updated,
            }
            if record.get("group_name") is not None:
                doc["group_name"] = record["group_name"]
            operations.append(ReplaceOne({"unit_id": pair[0], "key": pair[1]}, doc, upsert=True))
            if pair in stored:
                counts.updated += 1
            else:
                counts.inserted += 1
        await self._bulk(col.UNIT_REFERENCES, operations)

    async def _assignments(self) -> None:
        """Add the file's assignments. In a one-attribute-per-unit group an assignment
        replaces the unit's other one (as E21 does); groups in the file set `exclusive`
        on their stored assignments, after those replacements so the index holds.

        The replaced assignments are found in the stored ones (read by group, indexed)
        and deleted by `_id` in one bulk: a delete per unit filtered on the attribute
        is not served by an index and scans the collection on some servers.

        The changes are logged per record, in the file's order: the unit's replaced
        attributes, then its new one. Staged, the plan keeps each record as an `Assign`
        and each group's rule as an `Exclusive`, which their batch applies and logs
        against what the database holds then (`storage.imports.staged_assignments`)."""
        records = self._unique(col.ASSIGNMENTS)
        groups = self._unique(col.ATTRIBUTE_GROUPS)
        found = await self._stored(
            col.ASSIGNMENTS,
            "group_id",
            {r["group_id"] for r in records},
            ["group_id", "unit_id", "attribute_id", "asset_id"],
        )
        stored = {(doc["group_id"], doc["unit_id"], doc["attribute_id"]) for doc in found}
        wanted = {
            (r["group_id"], r["unit_id"]): r["attribute_id"]
            for r in records
            if self.is_exclusive(r["group_id"])
        }
        replaced: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
        for doc in sorted(found, key=lambda doc: doc["_id"]):
            pair = (doc["group_id"], doc["unit_id"])
            if wanted.get(pair, doc["attribute_id"]) != doc["attribute_id"]:
                replaced[pair].append(doc)
        counts = self.report.counts[col.ASSIGNMENTS]
        counts.deleted += sum(len(docs) for docs in replaced.values())
        staged: list[Any] = []
        operations: list[Any] = []
        changes: list[dict[str, Any]] = []
        for record in records:
            key = (record["group_id"], record["unit_id"], record["attribute_id"])
            doc = {
                "group_id": key[0],
                "attribute_id": key[2],
                "asset_id": record["asset_id"],
                "unit_id": key[1],
                "exclusive": self.is_exclusive(key[0]),
            }
            gone = replaced.get(key[:2], [])
            staged.append(Assign(doc, 2 * (1 + len(gone))))  # and their events
            operations.append(
                ReplaceOne(
                    {"group_id": key[0], "unit_id": key[1], "attribute_id": key[2]},
                    doc,
                    upsert=True,
                )
            )
            changes += [events.change(events.UNASSIGNED, old) for old in gone]
            if key in stored:
                counts.updated += 1
            else:
                counts.inserted += 1
                changes.append(events.change(events.ASSIGNED, doc))
        rules = [(group["id"], group.get("one_attribute_per_unit", False)) for group in groups]
        if self.plan is not None:
            self.plan.add(col.ASSIGNMENTS, [*staged, *(Exclusive(g, x) for g, x in rules)])
            return
        dropped = [doc["_id"] for docs in replaced.values() for doc in docs]
        flags = [
            UpdateMany({"group_id": g, "exclusive": {"$ne": x}}, {"$set": {"exclusive": x}})
            for g, x in rules
        ]
        await self._bulk(col.ASSIGNMENTS, [*documents.deletes_by_id(dropped), *flags, *operations])
        await events.record(self.store, changes, self.session)
