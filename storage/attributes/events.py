"""The log of assignment changes that subscriptions and the REST event stream deliver.

Every write of assignments (E21, E22, their GraphQL mutations, `floorgate import`)
records one event per assignment it adds ("assigned") or removes ("unassigned"), in the
same transaction as the write, so an event is in the log exactly when its change is in
the data. A replacement in a one-attribute-per-unit group is two events: the old
attribute's "unassigned", then the new one's "assigned".

Events are numbered by one counter (`seq`, the document's `_id`): a number every process
and machine agrees on. A subscriber resumes after the last number it saw, reading the
log, so nothing is lost or repeated across a disconnect, a worker or a database restart.
The log keeps each event for FLOORGATE_EVENT_RETENTION_SECONDS (a TTL index on
`expires_at`). Numbers have no gaps (the counter moves in the write's transaction), so a
cursor whose next event is no longer kept is known to have missed some: `resumable`
tells, and the subscription refuses it (410) instead of resuming with a hole
(docs/api.md, "Live changes").
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from pymongo import ReturnDocument

from storage import collections as c
from storage.database import Store
from storage.timestamps import format_timestamp
from storage.transactions import Session

ASSIGNED = "assigned"
UNASSIGNED = "unassigned"
CHANGES = (ASSIGNED, UNASSIGNED)
COUNTER_ID = "attribute_events"
EVENT_FIELDS = ("group_id", "attribute_id", "asset_id", "unit_id")

Event = dict[str, Any]  # _id (seq), change, at, group_id, attribute_id, asset_id, unit_id


def change(kind: str, assignment: dict[str, Any]) -> Event:
    """One change of an assignment, before it is numbered."""
    return {"change": kind, **{name: assignment[name] for name in EVENT_FIELDS}}


async def record(store: Store, changes: list[Event], session: Session) -> None:
    """Number `changes` (in their order) and add them to the log, in `session`'s
    transaction: one counter update and one insert, whatever their number."""
    if not changes:
        return
    counter = await store[c.COUNTERS].find_one_and_update(
        {"_id": COUNTER_ID},
        {"$inc": {"seq": len(changes)}},
        upsert=True,
        return_document=ReturnDocument.AFTER,
        session=session,
    )
    assert counter is not None  # upsert=True with ReturnDocument.AFTER: always the document
    first = counter["seq"] - len(changes) + 1
    moment = datetime.now(UTC)
    at = format_timestamp(moment)
    expires = moment + timedelta(seconds=store.event_retention_seconds)
    await store[c.ATTRIBUTE_EVENTS].insert_many(
        [
            {"_id": first + offset, "at": at, "expires_at": expires, **event}
            for offset, event in enumerate(changes)
        ],
        ordered=True,
        session=session,
    )


async def latest(store: Store) -> int:
    """The number of the last event recorded (0 before the first)."""
    counter = await store[c.COUNTERS].find_one({"_id": COUNTER_ID})
    return int(counter["seq"]) if counter else 0


async def between(store: Store, after: int, upto: int, group_id: str) -> list[Event]:
    """The group's events numbered above `after` and up to `upto`, oldest first: at most
    `upto - after` of them, however many the log holds. Read by the (group, number) index
    with both bounds: the embedded server sorts whatever a query matches before it
    limits it, and reads a range of `_id` alone by scanning the whole log (a batch of 500
    from cursor 0 took 0.6 s at 8,000 events and grew with them, issue 45), so a read is
    bounded by its numbers, never by a `limit`."""
    query = {"group_id": group_id, "_id": {"$gt": after, "$lte": upto}}
    return await store[c.ATTRIBUTE_EVENTS].find(query).sort("_id", 1).to_list()


async def resumable(store: Store, after: int) -> bool | None:
    """Whether a subscriber that saw every event up to number `after` can resume from the
    log: True when the next event is still kept (or not yet written), False when it has
    expired, None when `after` is past the last event recorded (no cursor of this
    database). Numbers have no gaps and the oldest expire first, so the next event alone
    tells (looked up by `_id`: finding the oldest sorted the whole log)."""
    last = await latest(store)
    if after > last:
        return None
    if after == last:
        return True
    found = await store[c.ATTRIBUTE_EVENTS].find_one({"_id": after + 1}, {"_id": 1})
    return found is not None
