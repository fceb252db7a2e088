"""Open subscriptions and WebSockets per key, counted in the database, so that every
worker and machine shares one count (FLOORGATE_MAX_SUBSCRIPTIONS_PER_KEY,
FLOORGATE_MAX_SOCKETS_PER_KEY).

Each open subscription, and each acknowledged WebSocket, holds a slot of its kind: a
document naming its key that expires SLOT_SECONDS after it was last renewed. A process
renews the slots it holds in one write every RENEW_SECONDS until they are freed, and
whoever takes a slot frees it when what it is for ends, however that ends: a stream read
to its end or closed, a subscription completed before or after its resolver returned, a
socket closed, a task cancelled (even while it takes the slot). Nothing waits for the
garbage collector: a slot renewed while an object lived was renewed for as long as a
dropped subscription's objects sat uncollected in a reference cycle (10-13 minutes were
seen, issue 45). The slots of a process that dies are free again within SLOT_SECONDS.

Taking a slot inserts it and then counts the key's live slots of its kind: when two
processes race for the last one, both may be refused; never are both admitted.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import UTC, datetime, timedelta

from bson import ObjectId
from pymongo.errors import PyMongoError

from storage import collections as c
from storage.database import Store

log = logging.getLogger("floorgate.events")

SLOT_SECONDS = 60.0
RENEW_SECONDS = 20.0
SUBSCRIPTION = "subscription"  # a GraphQL subscription or a REST event stream
SOCKET = "socket"  # an acknowledged WebSocket at /graphql


class Slots:
    """The slots of one process: what it holds, renewed until freed."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.held: set[ObjectId] = set()
        self._renewal: asyncio.Task[None] | None = None
        self._freeing: set[asyncio.Task[None]] = set()

    async def take(self, key_id: str, limit: int, kind: str = SUBSCRIPTION) -> ObjectId | None:
        """A slot of `kind` for `key_id`, or None when the key holds `limit` of them. A
        caller cancelled meanwhile (a subscription completed at once) does not cancel the
        write: a cancelled insert may still land on the server after the delete meant to
        undo it, and the slot would stay for SLOT_SECONDS (churn left 5 that way). The
        slot is given back as soon as its insert is acknowledged."""
        taking = asyncio.ensure_future(self._take(key_id, limit, kind))
        try:
            return await asyncio.shield(taking)
        except asyncio.CancelledError:
            taking.add_done_callback(self._taken_for_nobody)
            raise

    def _taken_for_nobody(self, taking: asyncio.Future[ObjectId | None]) -> None:
        if not taking.cancelled() and taking.exception() is None:
            slot = taking.result()
            if slot is not None:
                self.free(slot)

    async def _take(self, key_id: str, limit: int, kind: str) -> ObjectId | None:
        collection = self.store[c.SUBSCRIPTIONS]
        now = datetime.now(UTC)
        slot = ObjectId()
        self._hold(slot)  # before the insert: whatever happens next, `free` covers it
        try:
            expires = now + timedelta(seconds=SLOT_SECONDS)
            await collection.insert_one(
                {"_id": slot, "key": key_id, "kind": kind, "expires_at": expires}
            )
            count = await collection.count_documents(
                {"key": key_id, "kind": kind, "expires_at": {"$gt": now}}, limit=limit + 1
            )
        except BaseException:
            self.free(slot)
            raise
        if count > limit:
            self.free(slot)
            return None
        return slot

    def _hold(self, slot: ObjectId) -> None:
        self.held.add(slot)
        if self._renewal is None or self._renewal.done():
            self._renewal = asyncio.get_running_loop().create_task(self._renew())

    def free(self, slot: ObjectId) -> None:
        """Give the slot back now, without waiting for the database: usable in a
        `finally` of a cancelled task, and more than once (only the first call does
        anything). If the delete fails the slot expires."""
        if slot not in self.held:
            return
        self.held.discard(slot)
        task = asyncio.get_running_loop().create_task(self._delete(slot))
        self._freeing.add(task)
        task.add_done_callback(self._freeing.discard)

    async def _delete(self, slot: ObjectId) -> None:
        with contextlib.suppress(PyMongoError):
            await self.store[c.SUBSCRIPTIONS].delete_one({"_id": slot})

    async def _renew(self) -> None:
        while self.held:
            await asyncio.sleep(RENEW_SECONDS)
            slots = list(self.held)
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
        for slot in list(self.held):
            self.free(slot)
        if self._freeing:
            await asyncio.wait(set(self._freeing), timeout=2.0)
