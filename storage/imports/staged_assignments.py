"""A staged import's assignments, applied in their batch's transaction against what the
collection holds then (`storage.imports.staging` keeps them as `Assign` and `Exclusive`).

E21 and E22 take no lease: between the plan of a staged import and its switch, an
assignment may be written or removed through the API. Were the import's writes applied
as planned, one giving a unit another attribute of a one-attribute-per-unit group would
make the batch fail on the unique index `one_attribute_per_unit` (storage/collections.py)
and leave the switch "applying" for good, its readers waiting. Making those writes wait
instead would refuse them (503) for the whole of a staged import (its plan, its staging
and the request budget its switch waits), and a wait that starts at the announcement
would still miss the writes made while the import was planned. So the import wins, as if
it had committed after them:

- an `Assign` of an exclusive group removes whatever other attributes of its group the
  unit holds when the batch commits (the one the import replaces, or one written
  meanwhile), in the same transaction as the new one: a reader of the unit's
  assignments finds the old attribute before that batch and the new one after, never
  neither;
- an `Exclusive` that makes a group exclusive first keeps one assignment per unit, the
  one assigned first (the one the import validated; the order is the events log's),
  and removes those assigned to the unit meanwhile;
- the changes are logged (`storage.attributes.events`) as they happen, in the batch's
  transaction, exactly as E21 does: what is removed is "unassigned", an assignment the
  upsert inserts is "assigned". So the log follows the data whatever was written
  meanwhile, and, with nothing written meanwhile, equals one transaction's log (the
  writer logs per record too: the unit's replaced attributes, then its new one).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, cast

from pymongo import DeleteMany, ReplaceOne

from storage import collections as col
from storage.attributes import events
from storage.database import Store
from storage.files import chunks
from storage.imports.staging import Assign, Exclusive
from storage.limits import IN_CHUNK
from storage.transactions import Session

Document = dict[str, Any]
Pair = tuple[str, str]  # (group id, unit id)


def _deletes(ids: list[Any]) -> list[DeleteMany]:
    """Deletes by `_id`, a chunk each (as `documents.deletes_by_id`, which pulls in the
    drawings' modules: this one is imported by every process that reads)."""
    return [DeleteMany({"_id": {"$in": chunk}}) for chunk in chunks(ids, IN_CHUNK)]


async def apply(store: Store, operations: list[Any], session: Session) -> None:
    """Apply a batch of `Assign` and `Exclusive` in their order, and log their changes."""
    changes: list[events.Event] = []
    pending: list[Assign] = []
    for operation in operations:
        if isinstance(operation, Assign):
            pending.append(operation)
            continue
        if not isinstance(operation, Exclusive):
            raise TypeError(f"not an assignment of a staged import: {operation!r}")
        changes += await _assign(store, pending, session)
        pending = []
        changes += await _exclusive(store, operation, session)
    changes += await _assign(store, pending, session)
    await events.record(store, changes, session)


async def _others(
    store: Store, wanted: dict[Pair, str], session: Session
) -> dict[Pair, list[Document]]:
    """The assignments of these units in these groups whose attribute is not the wanted
    one, by (group, unit), oldest first."""
    found: dict[Pair, list[Document]] = defaultdict(list)
    if not wanted:
        return found
    groups = sorted({group for group, _ in wanted})
    for chunk in chunks({unit for _, unit in wanted}, IN_CHUNK):
        query = {"group_id": {"$in": groups}, "unit_id": {"$in": chunk}}
        async for doc in store[col.ASSIGNMENTS].find(query, session=session):
            pair = (doc["group_id"], doc["unit_id"])
            if pair in wanted and doc["attribute_id"] != wanted[pair]:
                found[pair].append(doc)
    for docs in found.values():
        docs.sort(key=lambda doc: doc["_id"])
    return found


async def _assign(store: Store, assigns: list[Assign], session: Session) -> list[events.Event]:
    """Upsert the assignments, each exclusive one after removing the unit's others in its
    group, in one ordered bulk; their changes, per assignment."""
    if not assigns:
        return []
    wanted = {
        (a.doc["group_id"], a.doc["unit_id"]): a.doc["attribute_id"]
        for a in assigns
        if a.doc.get("exclusive")
    }
    others = await _others(store, wanted, session)
    deletes = _deletes([doc["_id"] for docs in others.values() for doc in docs])
    upserts = [
        ReplaceOne(
            {key: a.doc[key] for key in ("group_id", "unit_id", "attribute_id")},
            a.doc,
            upsert=True,
        )
        for a in assigns
    ]
    result = await store[col.ASSIGNMENTS].bulk_write(
        [*deletes, *upserts], ordered=True, session=session
    )
    # an acknowledged bulk's result is never empty, so its upserted_ids is never None
    upserted = cast("dict[int, Any]", result.upserted_ids)
    inserted = {index - len(deletes) for index in upserted}
    changes: list[events.Event] = []
    for index, assign in enumerate(assigns):
        if assign.doc.get("exclusive"):
            pair = (assign.doc["group_id"], assign.doc["unit_id"])
            changes += [events.change(events.UNASSIGNED, doc) for doc in others.get(pair, [])]
        if index in inserted:
            changes.append(events.change(events.ASSIGNED, assign.doc))
    return changes


async def _later(
    store: Store, group_id: str, crowded: dict[str, list[Document]], session: Session
) -> list[Document]:
    """Of each unit's assignments in the group, all but the one assigned first: the log
    is read newest first, and only until each unit has one assignment not seen in it
    (assigned before the writes of meanwhile; a unit whose assignments the log no longer
    holds keeps the first by `_id`)."""
    left = {unit: {doc["attribute_id"]: doc for doc in docs} for unit, docs in crowded.items()}
    later: list[Document] = []
    query = {"group_id": group_id, "unit_id": {"$in": sorted(left)}, "change": events.ASSIGNED}
    fields = {"unit_id": 1, "attribute_id": 1}
    if left:
        newest = store[col.ATTRIBUTE_EVENTS].find(query, fields, session=session).sort("_id", -1)
        async for event in newest:
            docs = left.get(event["unit_id"])
            if docs is None or event["attribute_id"] not in docs:
                continue
            later.append(docs.pop(event["attribute_id"]))
            if len(docs) == 1:
                del left[event["unit_id"]]
                if not left:
                    break
        await newest.close()
    for docs in left.values():
        later += sorted(docs.values(), key=lambda doc: doc["_id"])[1:]
    return sorted(later, key=lambda doc: (doc["unit_id"], doc["_id"]))


async def _exclusive(store: Store, operation: Exclusive, session: Session) -> list[events.Event]:
    """Set the group's flag on its assignments; made exclusive, a unit holding several of
    its attributes (some written meanwhile) keeps one first."""
    assignments = store[col.ASSIGNMENTS]
    group_id, exclusive = operation.group_id, operation.exclusive
    changes: list[events.Event] = []
    if exclusive:
        flipped = {"group_id": group_id, "exclusive": {"$ne": True}}
        units = {
            doc["unit_id"]
            async for doc in assignments.find(flipped, {"unit_id": 1}, session=session)
        }
        held: dict[str, list[Document]] = defaultdict(list)
        for chunk in chunks(units, IN_CHUNK):
            query = {"group_id": group_id, "unit_id": {"$in": chunk}}
            async for doc in assignments.find(query, session=session):
                held[doc["unit_id"]].append(doc)
        crowded = {unit: docs for unit, docs in held.items() if len(docs) > 1}
        dropped = await _later(store, group_id, crowded, session)
        if dropped:
            for delete in _deletes([doc["_id"] for doc in dropped]):
                await assignments.bulk_write([delete], session=session)
            changes = [events.change(events.UNASSIGNED, doc) for doc in dropped]
    await assignments.update_many(
        {"group_id": group_id, "exclusive": {"$ne": exclusive}},
        {"$set": {"exclusive": exclusive}},
        session=session,
    )
    return changes
