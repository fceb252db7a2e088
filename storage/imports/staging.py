"""An import staged instead of written: the writer's operations kept in order, and cut into
batches that `storage.imports.switches` applies one transaction each.

The writer reads what it wrote before (a map's given locations, its units' new names, the
map itself for its GeoJSON). Staged, nothing is written yet, so the plan overlays the
documents its operations replace (by `_id`) on what the database returns, exactly as the
writer's transaction would see them. A collection written by other keys (level tags,
references, assignments) cannot be overlaid: reading it after writing it is an error here,
not a silent difference between the two paths.

Assignments are not kept as plain writes but as what the import wants (`Assign`,
`Exclusive`): `storage.imports.staged_assignments` applies them against what the
collection holds when their batch commits, and logs the changes they make then. So an
assignment written meanwhile through the API (E21 and E22 take no lease) never makes a
batch fail, and a unit's replaced attribute goes in the same transaction as its new one.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import bson
from bson.codec_options import CodecOptions
from pymongo import DeleteMany, ReplaceOne, UpdateMany, UpdateOne

from storage import collections as col
from storage.collections import Document
from storage.database import Store
from storage.limits import STAGED_BATCH_BYTES, STAGED_BATCH_OPERATIONS


@dataclass(frozen=True)
class Assign:
    """The import's assignment `doc` (group_id, attribute_id, asset_id, unit_id, exclusive):
    upserted by its three ids; with `exclusive`, the unit's other attributes of the group
    go first. `documents`: what it writes at most (itself and the attributes it replaces,
    as read when planned, and an event for each)."""

    doc: Document
    documents: int = 1


@dataclass(frozen=True)
class Exclusive:
    """Every assignment of the group gets `exclusive` (the import changes the group's rule)."""

    group_id: str
    exclusive: bool


Operation = ReplaceOne[Document] | UpdateOne | UpdateMany | DeleteMany | Assign | Exclusive


@dataclass
class Entry:
    """One operation, encoded: kind `k`, filter `f`, document or update `d`, upsert `u`
    (an `Assign`: `d` and `n`; an `Exclusive`: group `g` and flag `x`), with the
    documents it writes at most."""

    collection: str
    data: bytes
    documents: int


@dataclass
class Batch:
    """Operations of one collection that one transaction applies."""

    collection: str
    operations: list[bytes] = field(default_factory=list)
    documents: int = 0
    size: int = 0


def _encoded(operation: Any) -> tuple[Document, int]:
    """An operation as data, and the documents it writes at most. pymongo keeps its
    arguments in slots (`_filter`, `_doc`, `_upsert`); the writer uses these four kinds,
    and `Assign` and `Exclusive` for assignments."""
    if isinstance(operation, Assign):
        entry = {"k": "assign", "f": {}, "d": operation.doc, "n": operation.documents}
        return entry, operation.documents
    if isinstance(operation, Exclusive):
        # Counted as one: it flips the flag of a group's assignments, which the import of
        # that group's rule writes anyway.
        return {"k": "exclusive", "f": {}, "g": operation.group_id, "x": operation.exclusive}, 1
    if isinstance(operation, ReplaceOne | UpdateOne | UpdateMany):
        kind = {ReplaceOne: "replace", UpdateOne: "update_one", UpdateMany: "update_many"}
        data = {"f": operation._filter, "d": operation._doc, "u": bool(operation._upsert)}
        # An UpdateMany counts as one: kept for what the writer may plan (it stages none).
        return {"k": kind[type(operation)], **data}, 1
    if isinstance(operation, DeleteMany):
        ids = operation._filter.get("_id")
        named = ids.get("$in") if isinstance(ids, dict) else None
        return {"k": "delete_many", "f": operation._filter}, len(named) if named else 1
    raise TypeError(f"a staged import cannot keep {type(operation).__name__}")


def decoded(data: bytes, codec_options: CodecOptions[Document]) -> Operation:
    """An entry as the operation to run."""
    entry = bson.decode(data, codec_options)
    kind = entry["k"]
    if kind == "assign":
        return Assign(entry["d"], entry["n"])
    if kind == "exclusive":
        return Exclusive(entry["g"], entry["x"])
    if kind == "delete_many":
        return DeleteMany(entry["f"])
    if kind == "replace":
        return ReplaceOne(entry["f"], entry["d"], upsert=entry["u"])
    write: type[UpdateOne | UpdateMany] = {"update_one": UpdateOne, "update_many": UpdateMany}[kind]
    return write(entry["f"], entry["d"], upsert=entry["u"])


def _matches(doc: Document, name: str, wanted: set[Any]) -> bool:
    value = doc.get(name)
    if isinstance(value, list):  # a query on an array field matches any element
        return any(item in wanted for item in value if not isinstance(item, dict | list))
    return not isinstance(value, dict | list) and value in wanted


class StagedPlan:
    """The operations of one asset's import, in the order a transaction would run them,
    and the documents they leave, for the writer's later reads."""

    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self.last: list[Entry] = []  # deletes that wait for everything else (`add(last=True)`)
        self.late: defaultdict[str, set[Any]] = defaultdict(set)  # the ids they delete
        self.written: defaultdict[str, dict[Any, Document]] = defaultdict(dict)
        self.patched: defaultdict[str, dict[Any, Document]] = defaultdict(dict)
        self.dropped: defaultdict[str, set[Any]] = defaultdict(set)
        self.opaque: set[str] = set()  # written by other keys than `_id`: not overlaid
        self.assets: set[str] = set()  # what a reader's documents of this import carry
        self.maps: set[str] = set()

    def add(self, collection: str, operations: Iterable[Any], *, last: bool = False) -> int:
        """Keep the operations (after every other one, with `last`); return how many
        documents their deletes name (the writer read them, under the asset's lease)."""
        deleted = 0
        for operation in operations:
            entry, documents = _encoded(operation)
            self._overlay(collection, entry, last)
            kept = Entry(collection, bson.encode(entry), documents)
            (self.last if last else self.entries).append(kept)
            deleted += documents if entry["k"] == "delete_many" else 0
        return deleted

    def _overlay(self, collection: str, entry: Document, last: bool) -> None:
        """What the operation leaves, as the writer's later reads must see it."""
        id_ = entry["f"].get("_id")
        by_id = id_ is not None and not isinstance(id_, dict)
        kind = entry["k"]
        if by_id and id_ in self.late[collection]:
            raise AssertionError(f"{collection} {id_!r} is written after its delete kept for last")
        if kind == "replace" and by_id:
            self.written[collection][id_] = entry["d"]
            self.patched[collection].pop(id_, None)
            self.dropped[collection].discard(id_)
            self._note_keys(collection, entry["d"])
        elif kind == "update_one" and by_id and set(entry["d"]) == {"$set"}:
            target = self.written[collection].get(id_)
            if target is not None:
                target.update(entry["d"]["$set"])
            else:
                self.patched[collection].setdefault(id_, {}).update(entry["d"]["$set"])
        elif kind == "delete_many" and isinstance(id_, dict) and set(id_) == {"$in"}:
            for one in id_["$in"]:
                if last:
                    self.late[collection].add(one)
                self.written[collection].pop(one, None)
                self.patched[collection].pop(one, None)
                self.dropped[collection].add(one)
        else:
            self.opaque.add(collection)
            self._note_keys(collection, entry["d"] if kind in ("replace", "assign") else {})

    def _note_keys(self, collection: str, doc: Document) -> None:
        if collection == col.ASSETS:
            self.assets.add(doc["_id"])
        if collection == col.UNIT_MAPS:
            self.maps.add(doc["_id"])
        if isinstance(doc.get("asset_id"), str):
            self.assets.add(doc["asset_id"])
        if isinstance(doc.get("unit_map_id"), str):
            self.maps.add(doc["unit_map_id"])

    def overlaid(
        self, collection: str, name: str, values: Iterable[Any], found: list[Document]
    ) -> list[Document]:
        """`found` (documents whose `name` is one of `values`) as the writer's transaction
        would have read them, after the operations kept so far."""
        if collection in self.opaque:
            raise AssertionError(f"a staged import read {collection} after writing it")
        written, patched = self.written[collection], self.patched[collection]
        dropped = self.dropped[collection]
        if not (written or patched or dropped):
            return found
        wanted = set(values)
        result: dict[Any, Document] = {}
        for doc in found:
            id_ = doc["_id"]
            if id_ not in dropped and id_ not in written:
                result[id_] = {**doc, **patched.get(id_, {})}
        for id_, doc in written.items():
            if _matches(doc, name, wanted):
                result[id_] = dict(doc)
        return list(result.values())

    @property
    def collections(self) -> list[str]:
        """What the switch writes; assignment batches log their changes too."""
        written = {entry.collection for entry in [*self.entries, *self.last]}
        if col.ASSIGNMENTS in written:
            written.add(col.ATTRIBUTE_EVENTS)
        return sorted(written)

    def batches(self) -> list[Batch]:
        """The entries in order, cut where the collection changes or a batch would pass
        STAGED_BATCH_OPERATIONS operations or documents, or STAGED_BATCH_BYTES."""
        batches: list[Batch] = []
        for entry in [*self.entries, *self.last]:
            batch = batches[-1] if batches else None
            if (
                batch is None
                or batch.collection != entry.collection
                or len(batch.operations) >= STAGED_BATCH_OPERATIONS
                or batch.documents + entry.documents > STAGED_BATCH_OPERATIONS
                or batch.size + len(entry.data) > STAGED_BATCH_BYTES
            ):
                batch = Batch(entry.collection)
                batches.append(batch)
            batch.operations.append(entry.data)
            batch.documents += entry.documents
            batch.size += len(entry.data)
        return batches


async def stage(store: Store, token: str, asset_id: str, batches: list[Batch]) -> None:
    """Write the batches to `import_batches`, one document each; no live collection is
    touched. Batches of a token with no switch are garbage (`floorgate gc`)."""
    at = datetime.now(UTC)
    for seq, batch in enumerate(batches):
        await store[col.IMPORT_BATCHES].insert_one(
            {
                "_id": f"{token}:{seq}",
                "token": token,
                "asset_id": asset_id,
                "seq": seq,
                "collection": batch.collection,
                "operations": batch.operations,
                "documents": batch.documents,
                "created_at": at,
            }
        )
