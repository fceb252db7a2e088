"""`floorgate gc` and `floorgate check`: what a killed import or a hand edit leaves behind.

An import writes a map's files (content-addressed, harmless until named) before the
documents that name them, and a killed upload can leave GridFS chunks without their
files document. `collect_garbage` removes stored files that no document names, once
they are older than a grace period (an import in progress may not have named them
yet), and chunks without a files document. `find_dangling` reports documents that
name something missing. Both read each collection once (ids and the fields that name
other records) and compare sets, so their cost does not grow with per-record queries.

A killed staged import (`storage.imports.switches`) leaves a switch or staged batches:
gc finishes a switch whose importer has stopped (cancels it when announced, rolls it
forward when applying) and removes batches of no switch older than the grace period;
check reports both, apart from the dangling references (`CheckReport.leftovers`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from bson import ObjectId

from storage import collections as col
from storage.database import Store
from storage.files import FILE_FIELDS, chunks  # FILE_FIELDS: every field naming a file
from storage.imports import switches
from storage.limits import GC_GRACE

DELETE_CHUNK = 1000  # ids per `$in`
FILES = f"{col.FILES_BUCKET}.files"
CHUNKS = f"{col.FILES_BUCKET}.chunks"


# ---------------------------------------------------------------- gc


@dataclass
class GcReport:
    """What gc removed (or, in a dry run, would remove)."""

    dry_run: bool
    files: list[str] = field(default_factory=list)  # names of the unnamed file versions
    chunks: int = 0  # chunks whose files document is missing
    recent: list[str] = field(default_factory=list)  # unnamed but inside the grace period
    # Every switch, and what was (would be) done with it: None, left to its running import.
    switches: list[switches.Settled] = field(default_factory=list)
    batches: dict[str, int] = field(default_factory=dict)  # staged batches of no switch, by token


async def _named_files(store: Store) -> set[str]:
    projection = {name: 1 for name in FILE_FIELDS}
    named: set[str] = set()
    async for doc in store[col.UNIT_MAPS].find({}, projection):
        named.update(doc[name] for name in FILE_FIELDS if isinstance(doc.get(name), str))
    return named


def _older(value: Any, cutoff: datetime) -> bool:
    """Whether an upload started before `cutoff`; a files id that is not an ObjectId
    (floorgate never writes one) carries no time and counts as old."""
    if isinstance(value, ObjectId):
        return value.generation_time < cutoff
    return True


async def collect_garbage(
    store: Store,
    older_than: timedelta = GC_GRACE,
    *,
    dry_run: bool = False,
    now: datetime | None = None,
) -> GcReport:
    """Remove file versions that no document names and that were uploaded before
    `now - older_than`, then chunks whose files document is missing (their upload
    started before the cutoff too: an upload writes its chunks first)."""
    cutoff = (now or datetime.now(UTC)) - older_than
    report = GcReport(dry_run=dry_run)
    report.switches = await switches.settle_all(store, dry_run=dry_run)
    report.batches = await switches.orphan_batches(store, cutoff)
    if not dry_run:
        await switches.remove_batches(store, list(report.batches))
    named = await _named_files(store)
    unnamed: list[Any] = []
    file_ids: set[Any] = set()
    async for doc in store[FILES].find({}, {"filename": 1, "uploadDate": 1}).sort("filename"):
        file_ids.add(doc["_id"])
        if doc.get("filename") in named:
            continue
        uploaded = doc.get("uploadDate")
        if uploaded is not None and uploaded.tzinfo is None:
            uploaded = uploaded.replace(tzinfo=UTC)
        if uploaded is not None and uploaded >= cutoff:
            report.recent.append(doc.get("filename", ""))
            continue
        unnamed.append(doc["_id"])
        report.files.append(doc.get("filename", ""))
    owners = [
        doc["_id"]
        async for doc in await store[CHUNKS].aggregate([{"$group": {"_id": "$files_id"}}])
        if doc["_id"] not in file_ids and _older(doc["_id"], cutoff)
    ]
    if dry_run:
        for chunk in chunks(owners, DELETE_CHUNK):
            report.chunks += await store[CHUNKS].count_documents({"files_id": {"$in": chunk}})
        return report
    # The files document goes first, as GridFS deletes: a kill in between leaves
    # orphan chunks, which the next run removes.
    for chunk in chunks(unnamed, DELETE_CHUNK):
        await store[FILES].delete_many({"_id": {"$in": chunk}})
        await store[CHUNKS].delete_many({"files_id": {"$in": chunk}})
    for chunk in chunks(owners, DELETE_CHUNK):
        result = await store[CHUNKS].delete_many({"files_id": {"$in": chunk}})
        report.chunks += result.deleted_count
    return report


# ---------------------------------------------------------------- check


@dataclass(frozen=True)
class Dangling:
    """A document naming something that does not exist."""

    collection: str
    id: str  # the document's id, or its key for keyed collections (`unit/key`)
    field: str
    value: str
    missing: str  # what is missing: a collection name, "file", "level of its map", ...

    def __str__(self) -> str:
        return f"{self.collection} {self.id}: {self.field} {self.value!r}: no such {self.missing}"


@dataclass(frozen=True)
class Leftover:
    """A switch in progress (or left by a stopped import), or staged batches of no switch."""

    kind: str  # "switch" or "staged batches"
    id: str  # the switch's asset, or the batches' token
    note: str

    def __str__(self) -> str:
        return f"{self.kind} {self.id}: {self.note}"


@dataclass
class CheckReport:
    dangling: list[Dangling] = field(default_factory=list)
    leftovers: list[Leftover] = field(default_factory=list)  # of staged imports

    @property
    def clean(self) -> bool:
        return not self.dangling and not self.leftovers


async def _ids(store: Store, collection: str) -> set[Any]:
    return {doc["_id"] async for doc in store[collection].find({}, {"_id": 1})}


async def _docs(store: Store, collection: str, fields: Iterable[str]) -> list[dict[str, Any]]:
    projection = {name: 1 for name in fields}
    return await store[collection].find({}, projection).sort("_id").to_list()


def _key(doc: dict[str, Any], fields: tuple[str, ...]) -> str:
    return "/".join(str(doc.get(name)) for name in fields)


async def _staged_leftovers(store: Store, out: list[Leftover]) -> None:
    """Switches in progress (or left by a killed import) and staged batches of no switch."""
    async for doc in store[col.SWITCHES].find({}).sort("_id"):
        state, applied, batches = doc.get("state"), doc.get("applied"), doc.get("batches")
        since = doc.get("since")
        since = since.isoformat(timespec="seconds") if isinstance(since, datetime) else since
        note = (
            f"a staged import {state}, {applied} of {batches} batches applied, since "
            f"{since}, token {doc.get('token')} (`floorgate gc` finishes it if its import "
            "has stopped)"
        )
        out.append(Leftover("switch", str(doc["_id"]), note))
    orphans = await switches.orphan_batches(store, datetime.now(UTC))
    for token, count in sorted(orphans.items()):
        note = f"{count} of no switch (`floorgate gc` removes them once older than --older-than)"
        out.append(Leftover("staged batches", token, note))


async def find_dangling(store: Store) -> CheckReport:
    """Every reference of the stored documents to a missing record or file, in the
    order of the collections (storage/collections.py), then by id; and, apart, what
    staged imports in progress or stopped left."""
    assets = await _ids(store, col.ASSETS)
    floors = await _ids(store, col.FLOORS)
    units = await _ids(store, col.UNITS)
    backgrounds = await _ids(store, col.BACKGROUNDS)
    files = set(await store[FILES].distinct("filename"))
    groups = {
        doc["_id"]: {a.get("attribute_id") for a in doc.get("attributes", [])}
        for doc in await _docs(store, col.ATTRIBUTE_GROUPS, ["attributes.attribute_id"])
    }
    maps = {
        doc["_id"]: doc
        for doc in await _docs(
            store, col.UNIT_MAPS, ["asset_id", "background_id", "unit_ids", "levels", *FILE_FIELDS]
        )
    }
    report = CheckReport()
    out = report.dangling

    def need(collection: str, id_: str, name: str, value: Any, known: Any, what: str) -> None:
        if value not in known:
            out.append(Dangling(collection, str(id_), name, str(value), what))

    for doc in await _docs(store, col.FLOORS, ["asset_id"]):
        need(col.FLOORS, doc["_id"], "asset_id", doc.get("asset_id"), assets, "asset")
    for doc in await _docs(store, col.UNITS, ["asset_id", "floor_id"]):
        need(col.UNITS, doc["_id"], "asset_id", doc.get("asset_id"), assets, "asset")
        need(col.UNITS, doc["_id"], "floor_id", doc.get("floor_id"), floors, "floor")
    for map_id, doc in maps.items():
        need(col.UNIT_MAPS, map_id, "asset_id", doc.get("asset_id"), assets, "asset")
        if doc.get("background_id") is not None:
            need(
                col.UNIT_MAPS,
                map_id,
                "background_id",
                doc["background_id"],
                backgrounds,
                "background",
            )
        for name in FILE_FIELDS:
            if doc.get(name) is not None:
                need(col.UNIT_MAPS, map_id, name, doc[name], files, "file")
        for unit_id in doc.get("unit_ids") or []:
            need(col.UNIT_MAPS, map_id, "unit_ids", unit_id, units, "unit")
    for doc in await _docs(store, col.BACKGROUNDS, ["unit_map_id"]):
        need(col.BACKGROUNDS, doc["_id"], "unit_map_id", doc.get("unit_map_id"), maps, "map")
    key: tuple[str, ...] = ("unit_map_id", "key")
    for doc in await _docs(store, col.LEVEL_TAGS, key):
        need(col.LEVEL_TAGS, _key(doc, key), "unit_map_id", doc.get("unit_map_id"), maps, "map")
    for doc in await _docs(store, col.ASSET_REFERENCES, ["asset_id"]):
        need(col.ASSET_REFERENCES, doc["_id"], "asset_id", doc.get("asset_id"), assets, "asset")
    key = ("unit_id", "key")
    for doc in sorted(
        await _docs(store, col.UNIT_REFERENCES, ["asset_id", *key]), key=lambda d: _key(d, key)
    ):
        need(col.UNIT_REFERENCES, _key(doc, key), "asset_id", doc.get("asset_id"), assets, "asset")
        need(col.UNIT_REFERENCES, _key(doc, key), "unit_id", doc.get("unit_id"), units, "unit")
    key = ("group_id", "unit_id", "attribute_id")
    for doc in sorted(await _docs(store, col.ASSIGNMENTS, key), key=lambda d: _key(d, key)):
        id_ = _key(doc, key)
        need(col.ASSIGNMENTS, id_, "group_id", doc.get("group_id"), groups, "attribute group")
        need(col.ASSIGNMENTS, id_, "unit_id", doc.get("unit_id"), units, "unit")
        if doc.get("group_id") in groups:
            need(
                col.ASSIGNMENTS,
                id_,
                "attribute_id",
                doc.get("attribute_id"),
                groups[doc["group_id"]],
                "attribute of its group",
            )
    for doc in await _docs(store, col.LOCATIONS, ["asset_id", "unit_map_id", "floors"]):
        id_ = doc["_id"]
        need(col.LOCATIONS, id_, "asset_id", doc.get("asset_id"), assets, "asset")
        need(col.LOCATIONS, id_, "unit_map_id", doc.get("unit_map_id"), maps, "map")
        unit_map = maps.get(doc.get("unit_map_id"))
        # A map with a drawing places its locations on its levels' floors.
        levels = {level.get("floor_id") for level in (unit_map or {}).get("levels") or []}
        levels.discard(None)
        for floor in doc.get("floors") or []:
            floor_id = floor.get("id")
            need(col.LOCATIONS, id_, "floors.id", floor_id, floors, "floor")
            if levels and floor_id in floors:
                need(col.LOCATIONS, id_, "floors.id", floor_id, levels, "level of its map")
    # A closure outlives a drawing that lost its target (it can still be reopened), but
    # not its map or asset: imports never delete a map, so this finds a hand-made mess.
    key = ("unit_map_id", "kind", "target_id")
    for doc in sorted(
        await _docs(store, col.CLOSURES, ["asset_id", *key]), key=lambda d: _key(d, key)
    ):
        id_ = _key(doc, key)
        need(col.CLOSURES, id_, "asset_id", doc.get("asset_id"), assets, "asset")
        need(col.CLOSURES, id_, "unit_map_id", doc.get("unit_map_id"), maps, "map")
    await _staged_leftovers(store, report.leftovers)
    return report
