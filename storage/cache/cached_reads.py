"""The reads of the API, through the read cache (`storage.cache.read_cache`) and the gate
of staged imports' switches (`storage.cache.switch_gate`).

Each function is the one driver call it names, keyed by everything that shapes its
answer. Documents come back as the driver gives them (`_id` included), fresh for every
caller, so a caller may change them; a record named in several languages with its
`name` in the language of the request (`storage.cache.names`, issue 51). Reads inside a
write (checks before a change) go to the database directly, never through these.

With no switch in progress (and a fresh poll of them) a read is the cache's read and
nothing else; otherwise its result is checked, and it may wait and read again.

A read whose filter names one asset, map or id is kept while that scope of its
collection is unchanged (`storage.cache.scopes`); an aggregation, while its collection is.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any, TypeVar

import orjson

from storage.cache.by_id import plain_id
from storage.cache.names import READ_LANGUAGE, localize, localize_all, with_names
from storage.cache.scopes import Scope, of_query
from storage.cache.switch_gate import SwitchGate
from storage.database import Store

Document = dict[str, Any]
Sort = list[tuple[str, int]]
T = TypeVar("T")


def _key(*parts: Any) -> bytes:
    """A fixed-size key: the digest of the call's parts (128 bits, never a collision)."""
    return hashlib.blake2b(orjson.dumps(parts, default=repr), digest_size=16).digest()


def _gate(store: Store) -> SwitchGate:
    """The store's gate, able to finish a switch whose importer stopped."""
    gate = store.switches
    if gate.settle is None:
        gate.settle = partial(_settle_abandoned, store)
    return gate


async def _settle_abandoned(store: Store, asset_id: str) -> str | None:
    """`storage.imports.switches.settle_abandoned`, imported with the first switch in
    progress that a poll finds, not with the first read (issue 36, cold start)."""
    from storage.imports.switches import settle_abandoned

    return await settle_abandoned(store, asset_id)


def _through_cache(
    store: Store,
    key: Callable[[], bytes],
    collection: str,
    load: Callable[..., Awaitable[T]],
    projection: Document | None = None,
    scope: Scope | None = None,
) -> Callable[[Document | None], Awaitable[T]]:
    """The read for the gate: through the cache, unless the gate widened the projection
    (then from the database: not the answer the key names)."""

    def read(fields: Document | None) -> Awaitable[T]:
        if fields is not projection:
            return load(fields)
        return store.cache.read(key, collection, load, scope)

    return read


async def find_one(
    store: Store, collection: str, query: Document, projection: Document | None = None
) -> Document | None:
    """The document `query` finds, its `name` in the read language (`storage.cache.names`)."""
    found = await _find_one(store, collection, query, with_names(projection))
    return found if found is None or READ_LANGUAGE.get() is None else localize(found)


async def _find_one(
    store: Store, collection: str, query: Document, projection: Document | None
) -> Document | None:
    await store.before_read()  # 503 at once while the database is away

    async def load(fields: Document | None = projection) -> Document | None:
        document_id = plain_id(query)
        if document_id is not None:  # with the other reads by id of this turn
            return await store.by_id.find_one(collection, document_id, fields)
        return await store[collection].find_one(query, fields)

    key = partial(_key, "one", collection, query, projection)
    scope = of_query(query)
    if store.switches.clear():  # no switch in progress: no check (and no extra frame)
        found = await store.cache.read(key, collection, load, scope)
        if store.switches.clear():
            return found
    read = _through_cache(store, key, collection, load, projection, scope)
    return await _gate(store).read(collection, query, read, projection)


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
    """The documents `query` finds, each `name` in the read language (`storage.cache.names`)."""
    found = await _find_list(
        store, collection, query, sort, skip, limit, with_names(projection), hint, batch_size
    )
    wanted = READ_LANGUAGE.get()
    if wanted is not None:
        localize_all(found, wanted)
    return found


async def _find_list(
    store: Store,
    collection: str,
    query: Document,
    sort: Sort,
    skip: int,
    limit: int,
    projection: Document | None,
    hint: str | None,
    batch_size: int | None,
) -> list[Document]:
    await store.before_read()  # 503 at once while the database is away

    async def load(fields: Document | None = projection) -> list[Document]:
        cursor = store[collection].find(query, fields).sort(sort)
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
    scope = of_query(query)
    if store.switches.clear():
        found = await store.cache.read(key, collection, load, scope)
        if store.switches.clear():
            return found
    read = _through_cache(store, key, collection, load, projection, scope)
    return await _gate(store).read(collection, query, read, projection)


async def count(store: Store, collection: str, query: Document, limit: int = 0) -> int:
    await store.before_read()  # 503 at once while the database is away

    async def load() -> int:
        options: dict[str, Any] = {"limit": limit} if limit else {}  # `limit=0` would be an error
        return await store[collection].count_documents(query, **options)

    key = partial(_key, "count", collection, query, limit)
    scope = of_query(query)
    if store.switches.clear():
        found = await store.cache.read(key, collection, load, scope)
        if store.switches.clear():
            return found
    read = _through_cache(store, key, collection, load, scope=scope)
    return await _gate(store).read(collection, query, read)


async def aggregate_collection(
    store: Store, collection: str, pipeline: list[Document]
) -> list[Document]:
    """An aggregation of one collection (`$match` first, so it uses the indexes)."""
    await store.before_read()  # 503 at once while the database is away

    async def load() -> list[Document]:
        cursor = await store[collection].aggregate(pipeline)
        return await cursor.to_list()

    key = partial(_key, "aggregate", collection, pipeline)
    if store.switches.clear():
        found = await store.cache.read(key, collection, load)
        if store.switches.clear():
            return found
    match = pipeline[0].get("$match") if pipeline else None
    read = _through_cache(store, key, collection, load)
    return await _gate(store).read(collection, match, read, nested=True)


async def aggregate_list(
    store: Store, collection: str, pipeline: list[Document], batch_size: int
) -> list[Document]:
    """A database-level aggregate (`$documents` first) that reads only `collection`;
    each `name` in the read language (`storage.cache.names`)."""
    found = await _aggregate_list(store, collection, pipeline, batch_size)
    wanted = READ_LANGUAGE.get()
    if wanted is not None:
        localize_all(found, wanted)
    return found


async def _aggregate_list(
    store: Store, collection: str, pipeline: list[Document], batch_size: int
) -> list[Document]:
    await store.before_read()  # 503 at once while the database is away

    async def load() -> list[Document]:
        cursor = await store.db.aggregate(pipeline, batchSize=batch_size)
        return await cursor.to_list()

    key = partial(_key, "aggregate", collection, pipeline)
    if store.switches.clear():
        found = await store.cache.read(key, collection, load)
        if store.switches.clear():
            return found
    read = _through_cache(store, key, collection, load)
    return await _gate(store).read(collection, None, read, nested=True)
