"""Reads of one document by its id that arrive together go to the database together.

Under load many requests reach their read at once (`GET /v1/assets/{id}` from 32
connections): each `find_one` costs the driver a few hundred microseconds of CPU, about
as much as the rest of the request. The reads of one collection by plain id (a string
or an integer; the API's ids are strings) made in the same turn of the event loop are
sent as one `find` with `$in` (at most `storage.limits.IN_CHUNK` ids: the embedded
server's `$in` is quadratic in its length), and each caller gets its own document. The
first read of a turn leads: it lets the turn end (one yield to the event loop), then
sends the query for everyone who joined; a read made alone goes alone, a turn later.

The answer is the one each `find_one` would give at that moment: the same filter by id
on the same collection, the same projection, read a turn later. A failure of the query
is every caller's failure; a caller cancelled meanwhile leaves the others their answer
(a cancelled leader hands its batch to a task of its own).
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Hashable

from storage.cache.background import retrieved
from storage.collections import Database, Document
from storage.limits import IN_CHUNK

Waiting = list[tuple[str | int, asyncio.Future[Document | None]]]


def plain_id(query: Document) -> str | int | None:
    """The id of a query that is exactly `{"_id": <string or integer>}`, else None."""
    if len(query) != 1:
        return None
    value = query.get("_id")
    return value if type(value) in (str, int) else None


class ReadsById:
    """The process's coalesced reads by id, on one database."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.batches: dict[Hashable, Waiting] = {}  # open for joining until the turn ends
        self.queries = 0  # sent to the database (tests, docs/performance-history.md)

    async def find_one(
        self, collection: str, document_id: str | int, projection: Document | None = None
    ) -> Document | None:
        """`find_one({"_id": document_id}, projection)`, with the reads made meanwhile."""
        key = (collection, None if projection is None else tuple(projection.items()))
        joined = self.batches.get(key)
        if joined is not None and len(joined) < IN_CHUNK:
            waiter: asyncio.Future[Document | None] = asyncio.get_running_loop().create_future()
            joined.append((document_id, waiter))
            return await waiter
        waiting: Waiting = []
        self.batches[key] = waiting
        try:
            try:
                await asyncio.sleep(0)  # the turn ends: every read made in it has joined
            finally:
                if self.batches.get(key) is waiting:
                    del self.batches[key]
            ids = [document_id, *(joined_id for joined_id, _ in waiting)]
            documents = await self._query(collection, ids, projection)
        except asyncio.CancelledError:
            if waiting:  # the others still want their answers
                task = asyncio.get_running_loop().create_task(
                    self._answer(collection, waiting, projection)
                )
                task.add_done_callback(retrieved)
            raise
        except BaseException as error:
            _fail(waiting, error)
            raise
        return _deal(documents, document_id, waiting)

    async def _query(
        self, collection: str, ids: list[str | int], projection: Document | None
    ) -> dict[str | int, Document]:
        unique = list(dict.fromkeys(ids))
        self.queries += 1
        if len(unique) == 1:
            found = await self.db[collection].find_one({"_id": unique[0]}, projection)
            return {} if found is None else {found["_id"]: found}
        cursor = self.db[collection].find({"_id": {"$in": unique}}, projection)
        return {document["_id"]: document for document in await cursor.to_list()}

    async def _answer(self, collection: str, waiting: Waiting, projection: Document | None) -> None:
        """A cancelled leader's batch, read for the others."""
        ids = [joined_id for joined_id, _ in waiting]
        try:
            documents = await self._query(collection, ids, projection)
        except BaseException as error:
            _fail(waiting, error)
            raise
        _deal(documents, None, waiting)


def _deal(
    documents: dict[str | int, Document], own_id: str | int | None, waiting: Waiting
) -> Document | None:
    """The leader's document (of `own_id`); the others' set on their futures. Each
    caller may change its document: one asked for twice is copied."""
    given: set[str | int] = set() if own_id is None else {own_id}
    own = None if own_id is None else documents.get(own_id)
    for joined_id, waiter in waiting:
        if waiter.done():  # its caller was cancelled
            continue
        document = documents.get(joined_id)
        if document is not None and joined_id in given:
            document = copy.deepcopy(document)
        given.add(joined_id)
        waiter.set_result(document)
    return own


def _fail(waiting: Waiting, error: BaseException) -> None:
    for _, waiter in waiting:
        if waiter.done():
            continue
        if isinstance(error, asyncio.CancelledError):
            waiter.cancel()
        else:
            waiter.set_exception(error)
            waiter.exception()  # retrieved here: a caller cancelled meanwhile raises nothing
