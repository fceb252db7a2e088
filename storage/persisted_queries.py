"""The store of persisted GraphQL documents, shared by every process (docs/graphql.md,
"Persisted queries"): one document per SHA-256 hash of its text.

Two kinds live here: documents a client registered automatically (Apollo's APQ: the
hash and the text in one request), and documents the operator put on the safelist
(`floorgate persisted-queries add`). The store is bounded in count and bytes (each
document counts its text's UTF-8 bytes and its hash); registering into a full store
evicts the least recently used automatic documents, never safelisted ones, and a
document that still does not fit is not stored. `last_used` is a database date (to the
millisecond, so eviction follows use, not the second it happened in); processes move it
when they read a document, at most once per `PERSISTED_QUERY_RECHECK_SECONDS` each.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pymongo import ASCENDING, ReturnDocument
from pymongo.asynchronous.collection import AsyncCollection
from pymongo.errors import DuplicateKeyError

HASH_CHARS = 64  # SHA-256 in lowercase hex


def document_hash(text: str) -> str:
    """SHA-256 of the text's UTF-8 bytes, lowercase hex: the hash Apollo clients send."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def stored_bytes(text: str) -> int:
    """What a document counts against the store's budget: its text and its key."""
    return len(text.encode("utf-8", "surrogatepass")) + HASH_CHARS


@dataclass(frozen=True)
class Bounds:
    """The store's budget over every process (FLOORGATE_PERSISTED_QUERIES_MAX_*)."""

    max_count: int
    max_bytes: int


async def find(collection: AsyncCollection, sha: str) -> dict[str, Any] | None:
    """The document under `sha` (its `last_used` moved to now), or None."""
    return await collection.find_one_and_update(
        {"_id": sha},
        {"$set": {"last_used": datetime.now(UTC)}},
        projection={"document": 1, "safelisted": 1},
        return_document=ReturnDocument.AFTER,
    )


async def totals(collection: AsyncCollection) -> tuple[int, int]:
    """Documents and bytes held now, over both kinds."""
    rows = await (
        await collection.aggregate(
            [{"$group": {"_id": None, "n": {"$sum": 1}, "b": {"$sum": "$bytes"}}}]
        )
    ).to_list()
    return (rows[0]["n"], rows[0]["b"]) if rows else (0, 0)


async def make_room(collection: AsyncCollection, size: int, bounds: Bounds) -> bool:
    """Evict least recently used automatic documents until one more of `size` bytes fits;
    False (nothing evicted) when even evicting every one of them would not do."""
    count, held = await totals(collection)
    if count + 1 <= bounds.max_count and held + size <= bounds.max_bytes:
        return True
    automatic = collection.find(
        {"safelisted": False},
        projection={"bytes": 1},
        sort=[("last_used", ASCENDING), ("_id", ASCENDING)],
    )
    victims: list[str] = []
    async for row in automatic:
        if count + 1 <= bounds.max_count and held + size <= bounds.max_bytes:
            break
        victims.append(row["_id"])
        count -= 1
        held -= row["bytes"]
    if count + 1 > bounds.max_count or held + size > bounds.max_bytes:
        return False
    if victims:
        await collection.delete_many({"_id": {"$in": victims}, "safelisted": False})
    return True


async def register(
    collection: AsyncCollection, sha: str, text: str, bounds: Bounds, safelisted: bool = False
) -> bool:
    """Store `text` under `sha` (the caller checked that it is its hash and within the
    size limit). An automatic registration of a hash already stored changes nothing; a
    safelisted one marks it safelisted. False when the store is full of documents it may
    not evict."""
    size = stored_bytes(text)
    if safelisted:
        done = await collection.update_one({"_id": sha}, {"$set": {"safelisted": True}})
        if done.matched_count:
            return True
    elif await collection.count_documents({"_id": sha}, limit=1):
        return True
    if not await make_room(collection, size, bounds):
        return False
    moment = datetime.now(UTC)
    try:
        await collection.insert_one(
            {
                "_id": sha,
                "document": text,
                "bytes": size,
                "safelisted": safelisted,
                "registered_at": moment,
                "last_used": moment,
            }
        )
    except DuplicateKeyError:  # another process registered it meanwhile: the same text
        if safelisted:
            await collection.update_one({"_id": sha}, {"$set": {"safelisted": True}})
    return True


async def remove(collection: AsyncCollection, sha: str) -> bool:
    """Drop the document under `sha`, of either kind; False when there was none."""
    return (await collection.delete_one({"_id": sha})).deleted_count == 1


async def listing(collection: AsyncCollection) -> list[dict[str, Any]]:
    """Every stored document without its text: safelisted first, then by hash."""
    rows = collection.find(
        {}, projection={"document": 0}, sort=[("safelisted", -1), ("_id", ASCENDING)]
    )
    return [row async for row in rows]
