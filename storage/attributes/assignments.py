"""Writes of unit-to-attribute assignments, each request in one transaction.

`one_attribute_per_unit` is held by the database: assignments of such a group carry
`exclusive: true`, and a partial unique index on (group_id, unit_id) refuses a second
one (`storage.collections`). A transaction that loses a race to it is run again, and
then sees, and replaces, the winner's assignment (`storage.transactions`).

Each write records its changes in the events log (`storage.attributes.events`), in the
same transaction: what subscribers of the group are told.

A request reads the group's assignments of its units once, by index, and writes only
what changes, in batches (one insert, one bulk of updates or deletes by `_id`): item by
item, a body of 10,000 items took 8.5 s, and its removal's `$or` of 10,000 pairs over
20 s (issue 30). No query carries a list as long as the body: a large `$in` or `$or` is
matched value by value on some servers.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from pymongo import DeleteOne, UpdateOne

from storage import collections as c
from storage.attributes import events
from storage.database import Store
from storage.transactions import Session, atomically

Assignment = dict[str, Any]  # group_id, attribute_id, asset_id, unit_id
Pair = tuple[str, str]  # (unit id, attribute id)


class Removed(NamedTuple):
    """What an E22 removed (as the API shows it) and the documents it wrote."""

    items: list[Assignment]
    written: int


def _distinct(items: list[Assignment]) -> dict[Pair, Assignment]:
    """The items by (unit, attribute): a body may repeat one, which counts once."""
    return {(item["unit_id"], item["attribute_id"]): item for item in items}


async def _stored(
    store: Store, group_id: str, pairs: dict[Pair, Any], session: Session
) -> list[Assignment]:
    """The group's stored assignments of the units that `pairs` name."""
    units = sorted({unit_id for unit_id, _ in pairs})
    query = {"group_id": group_id, "unit_id": {"$in": units}}
    return await store[c.ASSIGNMENTS].find(query, session=session).to_list()


async def assign(store: Store, group_id: str, exclusive: bool, items: list[Assignment]) -> int:
    """Add the assignments; in an exclusive group each replaces the unit's other one
    (the items name each unit once there: `resolvers.attributes.assignments`). Assigning what is
    assigned already changes nothing. Returns the documents written (assignments and
    events): what the write is charged by."""
    assignments = store[c.ASSIGNMENTS]
    wanted = _distinct(items)

    async def work(session: Session) -> int:
        stored = await _stored(store, group_id, wanted, session)
        present = {(doc["unit_id"], doc["attribute_id"]): doc for doc in stored}
        changes: list[DeleteOne | UpdateOne] = [
            DeleteOne({"_id": doc["_id"]})
            for pair, doc in present.items()
            if exclusive and pair not in wanted
        ]
        changes += [
            UpdateOne(
                {"_id": doc["_id"]},
                {"$set": {"asset_id": wanted[pair]["asset_id"], "exclusive": exclusive}},
            )
            for pair, doc in present.items()
            if pair in wanted
            and (doc.get("asset_id"), doc.get("exclusive")) != (wanted[pair]["asset_id"], exclusive)
        ]
        if changes:  # deletes first: the unit's other attribute goes before its new one
            await assignments.bulk_write(changes, session=session)
        replaced = [
            events.change(events.UNASSIGNED, doc)
            for pair, doc in present.items()
            if exclusive and pair not in wanted
        ]
        new = [
            {
                "group_id": group_id,
                "attribute_id": attribute_id,
                "asset_id": item["asset_id"],
                "unit_id": unit_id,
                "exclusive": exclusive,
            }
            for (unit_id, attribute_id), item in wanted.items()
            if (unit_id, attribute_id) not in present
        ]
        if new:
            await assignments.insert_many(new, session=session)
        added = [events.change(events.ASSIGNED, doc) for doc in new]
        await events.record(store, replaced + added, session)
        return len(changes) + len(new) + len(replaced) + len(added)

    written: int = await atomically(store, work)
    return written


async def unassign(store: Store, group_id: str, items: list[Assignment]) -> Removed:
    """Remove the assignments; returns those that were assigned (the others are no error)
    and the documents written (each removal and its event)."""
    assignments = store[c.ASSIGNMENTS]
    wanted = _distinct(items)

    async def work(session: Session) -> list[Assignment]:
        found = [
            doc
            for doc in await _stored(store, group_id, wanted, session)
            if (doc["unit_id"], doc["attribute_id"]) in wanted
        ]
        if found:
            await assignments.bulk_write(
                [DeleteOne({"_id": doc["_id"]}) for doc in found], session=session
            )
            await events.record(
                store, [events.change(events.UNASSIGNED, doc) for doc in found], session
            )
        return found

    removed: list[Assignment] = await atomically(store, work)
    fields = ("group_id", "attribute_id", "asset_id", "unit_id")
    shown = sorted(
        ({name: doc[name] for name in fields} for doc in removed),
        key=lambda doc: (doc["unit_id"], doc["attribute_id"]),
    )
    return Removed(shown, 2 * len(removed))
