"""Rate-limit buckets shared by every process, one document per key in `rate_budgets`.

A bucket is kept as its theoretical arrival time (`tat`, seconds since the epoch; the
generic cell rate algorithm): spending `n` tokens moves it `n * interval` later, and
the bucket is full when it is in the past. A bucket of `burst` tokens refilling one
per `interval` seconds admits a spend while `tat` stays within `capacity = burst *
interval` of now. Each spend is one atomic `find_one_and_update` on the key's document
(`$inc` while the bucket is not full, `$set` once it is), so any number of processes
and machines share the bucket without a lock. A TTL index removes a document once its
bucket is full again (`expires_at`).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pymongo import ReturnDocument
from pymongo.errors import DuplicateKeyError

from storage.collections import CollectionHandle

EXPIRY_MARGIN_SECONDS = 60.0  # kept this long after the bucket is full (clock skew)


async def spend(
    collection: CollectionHandle,
    bucket: str,
    tokens: float,
    interval: float,
    capacity: float,
    now: float,
    full: bool,
) -> tuple[bool, float]:
    """Spend `tokens` of `bucket` at `now` (seconds since the epoch). Returns whether they
    were granted and the bucket's `tat` after the spend (granted) or as found (refused).
    `full` says which update to try first: a caller that last saw the bucket full."""
    cost = tokens * interval
    expires = _expiry(now + capacity)
    projection = {"_id": 0, "tat": 1}

    async def while_not_full() -> dict[str, Any] | None:
        return await collection.find_one_and_update(
            {"_id": bucket, "tat": {"$gte": now, "$lte": now + capacity - cost}},
            {"$inc": {"tat": cost}, "$set": {"expires_at": expires}},
            projection=projection,
            return_document=ReturnDocument.AFTER,
        )

    async def once_full() -> dict[str, Any] | None:
        try:
            return await collection.find_one_and_update(
                {"_id": bucket, "tat": {"$lt": now}},
                {"$set": {"tat": now + cost, "expires_at": expires}},
                projection=projection,
                upsert=True,
                return_document=ReturnDocument.AFTER,
            )
        except DuplicateKeyError:  # the document exists and is not full: not this update
            return None

    for attempt in (once_full, while_not_full) if full else (while_not_full, once_full):
        found = await attempt()
        if found is not None:
            return True, float(found["tat"])
    found = await collection.find_one({"_id": bucket}, projection)
    return False, now if found is None else float(found["tat"])


OWE_ATTEMPTS = 4  # rounds of the two updates below (each fails only to a concurrent one)


async def owe(
    collection: CollectionHandle, bucket: str, tokens: float, interval: float, now: float
) -> float | None:
    """Spend `tokens` of `bucket` whatever it holds: work already done whose size was known
    only once it ran (the documents a write wrote). The bucket may go past its capacity:
    the key's next spends are refused until it has refilled. Atomic like `spend` (`$inc`
    on a bucket not full, `$set` on a full or new one); returns the bucket's `tat` after,
    None if concurrent spends kept both updates from matching."""
    cost = tokens * interval
    projection = {"_id": 0, "tat": 1}
    for _ in range(OWE_ATTEMPTS):
        found = await collection.find_one_and_update(
            {"_id": bucket, "tat": {"$gte": now}},
            {"$inc": {"tat": cost}},
            projection=projection,
            return_document=ReturnDocument.AFTER,
        )
        if found is None:
            try:
                found = await collection.find_one_and_update(
                    {"_id": bucket, "tat": {"$lt": now}},
                    {"$set": {"tat": now + cost}},
                    projection=projection,
                    upsert=True,
                    return_document=ReturnDocument.AFTER,
                )
            except DuplicateKeyError:  # it exists and is not full: the `$inc` then
                continue
        if found is not None:
            tat = float(found["tat"])
            await collection.update_one({"_id": bucket}, {"$max": {"expires_at": _expiry(tat)}})
            return tat
    return None


def _expiry(tat: float) -> datetime:
    """When a bucket at `tat` is full again, and a margin: its document may go then."""
    return datetime.fromtimestamp(tat + EXPIRY_MARGIN_SECONDS, UTC)
