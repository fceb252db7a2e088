"""The reads of the API, through the read cache (`storage.cache.read_cache`).

Each function is the one driver call it names, keyed by everything that shapes its
answer. Documents come back as the driver gives them (`_id` included), fresh for every
caller, so a caller may change them. Reads inside a write (checks before a change)
go to the database directly, never through these.
"""

from __future__ import annotations

import hashlib
from functools import partial
from typing import Any

import orjson

from storage.cache.by_id import plain_id
from storage.database import Store

Document = dict[str, Any]
Sort = list[tuple[str, int]]


def _key(*parts: Any) -> bytes:
    """A fixed-size key: the digest of the call's parts (128 bits, never a collision)."""
    return hashlib.blake2b(orjson.dumps(parts, default=repr), digest_size=16).digest()


async def find_one(
    store: Store, collection: str, query: Document, projection: Document | None = None
) -> Document | None:
    store.watch_changes()

    async def load() -> Document | None:
        document_id = plain_id(query)
        if document_id is not None:  # with the other reads by id of this turn
            return await store.by_id.find_one(collection, document_id, projection)
        return await store[collection].find_one(query, projection)

    return await store.cache.read(
        partial(_key, "one", collection, query, projection), collection, load
    )


async def find_list(
    store: Store,
    collection: str,
    query: Document,
    sort: Sort,
    *,
    skip: int = 0,
    limit: int = 0,
    projection: Document | None = None,
    hint: str | None = None,
    batch_size: int | None = None,
) -> list[Document]:
    store.watch_changes()

    async def load() -> list[Document]:
        cursor = store[collection].find(query, projection).sort(sort)
        if skip:
            cursor = cursor.skip(skip)
        if limit:
            cursor = cursor.limit(limit)
        if hint is not None:
            cursor = cursor.hint(hint)
        if batch_size is not None:
            cursor = cursor.batch_size(batch_size)
        return await cursor.to_list()

    key = partial(_key, "find", collection, query, sort, skip, limit, projection, hint)
    return await store.cache.read(key, collection, load)


async def count(store: Store, collection: str, query: Document, limit: int = 0) -> int:
    store.watch_changes()

    async def load() -> int:
        options = {"limit": limit} if limit else {}  # `limit=0` would be an error
        return await store[collection].count_documents(query, **options)

    return await store.cache.read(
        partial(_key, "count", collection, query, limit), collection, load
    )


async def aggregate_collection(
    store: Store, collection: str, pipeline: list[Document]
) -> list[Document]:
    """An aggregation of one collection (`$match` first, so it uses the indexes)."""
    store.watch_changes()

    async def load() -> list[Document]:
        cursor = await store[collection].aggregate(pipeline)
        return await cursor.to_list()

    return await store.cache.read(
        partial(_key, "aggregate", collection, pipeline), collection, load
    )


async def aggregate_list(
    store: Store, collection: str, pipeline: list[Document], batch_size: int
) -> list[Document]:
    """A database-level aggregate (`$documents` first) that reads only `collection`."""
    store.watch_changes()

    async def load() -> list[Document]:
        cursor = await store.db.aggregate(pipeline, batchSize=batch_size)
        return await cursor.to_list()

    return await store.cache.read(
        partial(_key, "aggregate", collection, pipeline), collection, load
    )
