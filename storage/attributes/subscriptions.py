"""Open subscriptions per key, counted in the database, so that every worker and machine
shares one count (FLOORGATE_MAX_SUBSCRIPTIONS_PER_KEY).

Each open subscription holds a slot: a document naming its key that expires SLOT_SECONDS
after it was last renewed. A process renews the slots of its live subscriptions in one
write every RENEW_SECONDS, so the slots of a process that dies, or of a subscription
dropped without being closed, are free again within SLOT_SECONDS. Taking a slot inserts
it and then counts the key's live slots: when two processes race for the last one, both
may be refused; never are both admitted.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from datetime import UTC, datetime, timedelta

from bson import ObjectId
from pymongo.errors import PyMongoError

from storage import collections as c
from storage.database import Store

log = logging.getLogger("floorgate.events")

SLOT_SECONDS = 60.0
RENEW_SECONDS = 20.0


class Slots:
    """The subscription slots of one process."""

    def __init__(self, store: Store) -> None:
        self.store = store
        # A slot is renewed while what holds it lives: one dropped unclosed expires.
        self.held: weakref.WeakValueDictionary[ObjectId, object] = weakref.WeakValueDictionary()
        self._renewal: asyncio.Task[None] | None = None
        self._freeing: set[asyncio.Task[None]] = set()

    async def take(self, key_id: str, limit: int) -> ObjectId | None:
        """A slot for one more subscription of `key_id`, or None when it holds `limit`."""
        collection = self.store[c.SUBSCRIPTIONS]
        now = datetime.now(UTC)
        slot = ObjectId()
        expires = now + timedelta(seconds=SLOT_SECONDS)
        await collection.insert_one({"_id": slot, "key": key_id, "expires_at": expires})
        count = await collection.count_documents(
            {"key": key_id, "expires_at": {"$gt": now}}, limit=limit + 1
        )
        if count > limit:
            await collection.delete_one({"_id": slot})
            return None
        return slot

    def hold(self, slot: ObjectId, holder: object) -> None:
        """Keep `slot` renewed for as long as `holder` lives (or until `free`)."""
        self.held[slot] = holder
        if self._renewal is None or self._renewal.done():
            self._renewal = asyncio.get_running_loop().create_task(self._renew())

    def free(self, slot: ObjectId) -> None:
        """Give the slot back now, without waiting for the database: usable in a
        `finally` of a cancelled task. If the delete fails the slot expires."""
        self.held.pop(slot, None)
        task = asyncio.get_running_loop().create_task(self._delete(slot))
        self._freeing.add(task)
        task.add_done_callback(self._freeing.discard)

    async def _delete(self, slot: ObjectId) -> None:
        with contextlib.suppress(PyMongoError):
            await self.store[c.SUBSCRIPTIONS].delete_one({"_id": slot})

    async def _renew(self) -> None:
        while self.held:
            await asyncio.sleep(RENEW_SECONDS)
            slots = list(self.held.keys())
            if not slots:
                continue
            expires = datetime.now(UTC) + timedelta(seconds=SLOT_SECONDS)
            try:
                await self.store[c.SUBSCRIPTIONS].update_many(
                    {"_id": {"$in": slots}}, {"$set": {"expires_at": expires}}
                )
            except PyMongoError as error:  # the next round tries again
                log.warning("subscription slots not renewed: %s", type(error).__name__)

    async def close(self) -> None:
        """Stop renewing; the slots still held are given back (best effort)."""
        if self._renewal is not None:
            self._renewal.cancel()
        for slot in list(self.held.keys()):
            self.free(slot)
        if self._freeing:
            await asyncio.wait(set(self._freeing), timeout=2.0)
