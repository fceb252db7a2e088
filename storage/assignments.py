"""Writes of unit-to-attribute assignments, each request in one transaction.

`one_attribute_per_unit` is held by the database: assignments of such a group carry
`exclusive: true`, and a partial unique index on (group_id, unit_id) refuses a second
one (`storage.collections`). A transaction that loses a race to it is run again, and
then sees, and replaces, the winner's assignment (`storage.transactions`).
"""

from __future__ import annotations

from typing import Any

from storage import collections as c
from storage.database import Store
from storage.transactions import Session, atomically

Assignment = dict[str, Any]  # group_id, attribute_id, asset_id, unit_id


async def assign(store: Store, group_id: str, exclusive: bool, items: list[Assignment]) -> None:
    """Add the assignments; in an exclusive group each replaces the unit's other one.
    Assigning what is assigned already changes nothing."""
    assignments = store[c.ASSIGNMENTS]

    async def work(session: Session) -> None:
        for item in items:
            key = {"group_id": group_id, "unit_id": item["unit_id"]}
            if exclusive:
                await assignments.delete_many(
                    {**key, "attribute_id": {"$ne": item["attribute_id"]}}, session=session
                )
            await assignments.update_one(
                {**key, "attribute_id": item["attribute_id"]},
                {"$set": {"asset_id": item["asset_id"], "exclusive": exclusive}},
                upsert=True,
                session=session,
            )

    await atomically(store, work)


async def unassign(store: Store, group_id: str, items: list[Assignment]) -> list[Assignment]:
    """Remove the assignments; returns those that were assigned (the others are no error)."""
    assignments = store[c.ASSIGNMENTS]
    wanted = [{"unit_id": item["unit_id"], "attribute_id": item["attribute_id"]} for item in items]
    query = {"group_id": group_id, "$or": wanted}
    projection = {"_id": 0, "exclusive": 0}

    async def work(session: Session) -> list[Assignment]:
        found = await assignments.find(query, projection, session=session).to_list()
        if found:
            await assignments.delete_many(query, session=session)
        return found

    removed: list[Assignment] = await atomically(store, work)
    return sorted(removed, key=lambda doc: (doc["unit_id"], doc["attribute_id"]))
