"""The store of persisted GraphQL documents, shared by every process (docs/graphql.md,
"Persisted queries"): one document per SHA-256 hash of its text.

Two kinds live here: documents a client registered automatically (Apollo's APQ: the
hash and the text in one request), and documents the operator put on the safelist
(`floorgate persisted-queries add`). The store is bounded in count and bytes (each
document counts its text's UTF-8 bytes and its hash); registering into a full store
evicts the least recently used automatic documents, never safelisted ones, and a
document that still does not fit is not stored. `last_used` is a date (to the
millisecond) that processes move when they read a document, at most once per
`PERSISTED_QUERY_RECHECK_SECONDS` each.

A registration costs the same whatever the store holds (issue 45: a scan of every
document cost 90-305 ms at 1,400 of them). The store's totals are one document
(`persisted_query_totals`): an automatic registration takes its room there by one
conditional update before its insert (no transaction: a commit empties the process's
read cache), and whatever evicts, removes or lists a document changes them in one
transaction with it, so the bounds hold exactly however many register at once. Each
automatic document carries `seq`, a number drawn from a shared clock when it is
registered and again each time its use is recorded, so the least recently used are those
of the lowest `seq`. The database reads them through the index on (`safelisted`, `seq`) a
window of numbers at a time, from `floor`, the totals' lower bound of every automatic
document's `seq` (the embedded server sorts a whole collection to serve `sort` with
`limit`, so a window of unique numbers is what bounds the documents one read decodes).
Totals that disagree with what is stored (documents removed behind this module's back)
are counted again, once, when they would make a registration evict or refuse.
"""

from __future__ import annotations

import asyncio
import hashlib
import weakref
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pymongo import ASCENDING, ReturnDocument
from pymongo.errors import DuplicateKeyError

from storage.collections import PERSISTED_QUERIES, PERSISTED_QUERY_TOTALS
from storage.database import Store
from storage.transactions import Session, atomically

HASH_CHARS = 64  # SHA-256 in lowercase hex
TOTALS = "totals"  # the totals' document in PERSISTED_QUERY_TOTALS (`next`: the clock)
# Numbers of `seq` one read of automatic documents covers at first; a read that finds
# none doubles it, up to WINDOW_MAX. Numbers are unique, so a read decodes at most that
# many documents.
WINDOW = 64
WINDOW_MAX = 1024
# Reads one eviction makes before it counts the store again instead (the numbers between
# `floor` and the least recently used document were drawn by uses of other documents).
WINDOW_READS = 24
# What an eviction reads of a document: enough to order it and count what it frees.
VICTIM_FIELDS = {"bytes": 1, "seq": 1, "last_used": 1}


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


@dataclass
class Totals:
    """What the store holds (`count`, `bytes`), how much of it is automatic (evictable),
    and `floor`: no automatic document has a lower `seq`."""

    count: int = 0
    bytes: int = 0
    auto_count: int = 0
    auto_bytes: int = 0
    floor: int = 0

    @staticmethod
    def of(row: dict[str, Any]) -> Totals:
        return Totals(
            row["count"], row["bytes"], row["auto_count"], row["auto_bytes"], row["floor"]
        )


class NoRoom(Exception):
    """The store is full of documents a registration may not evict: nothing is written."""


DRAW_TRIES = 5


async def draw(store: Store) -> int:
    """The next number of the clock, higher than every one drawn before. Of first draws
    racing to create the clock, the embedded server answers a losing upsert with nothing
    (its number was drawn all the same): that one draws again, leaving a gap."""
    for _ in range(DRAW_TRIES):
        row = await store[PERSISTED_QUERY_TOTALS].find_one_and_update(
            {"_id": TOTALS},
            {"$inc": {"next": 1}},
            upsert=True,
            return_document=ReturnDocument.AFTER,
        )
        if row is not None:
            return int(row["next"])
    raise RuntimeError(f"the persisted queries' clock gave no number in {DRAW_TRIES} draws")


async def drawn(store: Store, session: Session) -> int:
    """The highest number drawn so far (0 before the first)."""
    row = await store[PERSISTED_QUERY_TOTALS].find_one({"_id": TOTALS}, session=session)
    return int(row.get("next", 0)) if row else 0


async def find(store: Store, sha: str) -> dict[str, Any] | None:
    """The document under `sha` (its `last_used` moved to now, and an automatic one made
    the most recently used: a new `seq`), or None."""
    collection = store[PERSISTED_QUERIES]
    row = await collection.find_one_and_update(
        {"_id": sha},
        {"$set": {"last_used": datetime.now(UTC)}},
        projection={"document": 1, "safelisted": 1},
        return_document=ReturnDocument.AFTER,
    )
    if row is not None and not row.get("safelisted"):
        seq = await draw(store)
        await collection.update_one({"_id": sha, "safelisted": False}, {"$max": {"seq": seq}})
    return row


async def counted(store: Store, session: Session) -> Totals:
    """The totals counted from every document and written down: a scan, only when they
    are missing or do not add up. Automatic documents stored before `seq` existed get 0,
    the oldest, ordered among themselves by `last_used`."""
    collection = store[PERSISTED_QUERIES]
    await collection.update_many(
        {"safelisted": False, "seq": {"$exists": False}}, {"$set": {"seq": 0}}, session=session
    )
    automatic = {"$cond": ["$safelisted", 0, 1]}
    group = {
        "_id": None,
        "count": {"$sum": 1},
        "bytes": {"$sum": "$bytes"},
        "auto_count": {"$sum": automatic},
        "auto_bytes": {"$sum": {"$cond": ["$safelisted", 0, "$bytes"]}},
        "floor": {"$min": {"$cond": ["$safelisted", None, "$seq"]}},
        "top": {"$max": "$seq"},
    }
    rows = await (await collection.aggregate([{"$group": group}], session=session)).to_list()
    row = rows[0] if rows else {}
    floor = row.get("floor")
    totals = Totals(
        row.get("count", 0),
        row.get("bytes", 0),
        row.get("auto_count", 0),
        row.get("auto_bytes", 0),
        # No automatic document: each one stored from now on draws a higher number.
        int(floor) if floor is not None else await drawn(store, session),
    )
    await store[PERSISTED_QUERY_TOTALS].update_one(  # the clock goes on, past every `seq`
        {"_id": TOTALS},
        {"$set": vars(totals), "$max": {"next": int(row.get("top") or 0)}},
        upsert=True,
        session=session,
    )
    return totals


async def current(store: Store, session: Session) -> Totals:
    """The totals as written down (counted first when there are none yet: the clock
    alone, drawn by a use, is no totals)."""
    row = await store[PERSISTED_QUERY_TOTALS].find_one({"_id": TOTALS}, session=session)
    return Totals.of(row) if row is not None and "count" in row else await counted(store, session)


_COUNTING: weakref.WeakKeyDictionary[Store, asyncio.Lock] = weakref.WeakKeyDictionary()


async def count_once(store: Store) -> bool:
    """Write the totals down if they are missing (after an upgrade, or emptied), counted
    by one registration of this process at a time; True when they were missing. Every
    registration counting in a transaction of its own, racing the others' (each one
    rewriting the same documents), stalled the embedded server for 20 s and more:
    requests that never touch persisted queries waited with them (issue 45's
    attack-latency run)."""
    totals = store[PERSISTED_QUERY_TOTALS]
    written = {"_id": TOTALS, "count": {"$exists": True}}
    if await totals.find_one(written, {"_id": 1}) is not None:
        return False
    lock = _COUNTING.setdefault(store, asyncio.Lock())
    async with lock:
        if await totals.find_one(written, {"_id": 1}) is None:
            await atomically(store, lambda session: counted(store, session))
    return True


async def change(store: Store, session: Session, floor: int | None = None, **by: int) -> None:
    """Move the totals by `by` (a document stored, evicted, removed, listed) and raise
    `floor` to `floor`. The totals' document exists (`current` was called first)."""
    update: dict[str, Any] = {"$inc": by}
    if floor is not None:
        update["$max"] = {"floor": floor}
    await store[PERSISTED_QUERY_TOTALS].update_one({"_id": TOTALS}, update, session=session)


@dataclass
class Eviction:
    """The documents an eviction removes, what they free, and `floor` after them."""

    ids: list[str]
    count: int
    bytes: int
    floor: int

    def add(self, row: dict[str, Any]) -> None:
        self.ids.append(row["_id"])
        self.count += 1
        self.bytes += int(row["bytes"])


def fits(totals: Totals, size: int, bounds: Bounds, freed: Eviction | None = None) -> bool:
    """Whether one more document of `size` fits once `freed` is gone."""
    count = totals.count - (freed.count if freed else 0)
    held = totals.bytes - (freed.bytes if freed else 0)
    return count + 1 <= bounds.max_count and held + size <= bounds.max_bytes


def could_fit(totals: Totals, size: int, bounds: Bounds) -> bool:
    """Whether evicting every automatic document would make room for one of `size`."""
    return fits(totals, size, bounds, Eviction([], totals.auto_count, totals.auto_bytes, 0))


def order(row: dict[str, Any]) -> tuple[Any, ...]:
    """Least recently used first: `seq`, then (documents stored before `seq`) `last_used`."""
    return (row["seq"], row.get("last_used") or datetime.min.replace(tzinfo=UTC), row["_id"])


def take(
    rows: list[dict[str, Any]], totals: Totals, size: int, bounds: Bounds, chosen: Eviction
) -> int | None:
    """Add `rows` (least recently used first) to `chosen` until one more document of
    `size` fits; the `seq` of the first row left, or None when every row was taken."""
    for row in rows:
        if fits(totals, size, bounds, chosen):
            return int(row["seq"])
        chosen.add(row)
    return None


async def by_windows(
    store: Store, session: Session, totals: Totals, size: int, bounds: Bounds
) -> Eviction | None:
    """The least recently used automatic documents that make room, read through the index
    from `floor`, a window of `seq` at a time; None when WINDOW_READS reads did not find
    them (the totals may not add up, or uses drew many numbers since)."""
    collection = store[PERSISTED_QUERIES]
    top = await drawn(store, session)
    chosen = Eviction([], 0, 0, totals.floor)
    width = WINDOW
    for _ in range(WINDOW_READS):
        if chosen.floor > top:
            return None
        window = {"$gte": chosen.floor, "$lt": chosen.floor + width}
        rows = await collection.find(
            {"safelisted": False, "seq": window}, VICTIM_FIELDS, session=session
        ).to_list()
        left = take(sorted(rows, key=order), totals, size, bounds, chosen)
        if left is not None:
            chosen.floor = left
            return chosen
        # Every number below the window's end was drawn: no later one falls under it.
        chosen.floor = min(chosen.floor + width, top + 1)
        if fits(totals, size, bounds, chosen):
            return chosen
        width = width if rows else min(width * 2, WINDOW_MAX)
    return None


async def by_scan(
    store: Store, session: Session, totals: Totals, size: int, bounds: Bounds
) -> Eviction | None:
    """As `by_windows`, over every automatic document in order: a scan, only when the
    windows did not find them with totals just counted."""
    rows = await (
        store[PERSISTED_QUERIES]
        .find({"safelisted": False}, VICTIM_FIELDS, session=session)
        .to_list()
    )
    chosen = Eviction([], 0, 0, totals.floor)
    left = take(sorted(rows, key=order), totals, size, bounds, chosen)
    if not fits(totals, size, bounds, chosen):
        return None
    if left is not None:
        chosen.floor = left
    return chosen


async def make_room(
    store: Store, session: Session, size: int, bounds: Bounds
) -> tuple[Totals, Eviction | None]:
    """The totals and what to evict so that one more document of `size` fits (None when
    nothing needs to go). NoRoom when, by the totals, even evicting every automatic
    document would not do. Reads a few windows of the index; counts the store again,
    and at worst reads all of it, only when those do not find what the totals promise."""
    totals = await current(store, session)
    if fits(totals, size, bounds):
        return totals, None
    if not could_fit(totals, size, bounds):
        raise NoRoom
    chosen = await by_windows(store, session, totals, size, bounds)
    if chosen is not None:
        return totals, chosen
    totals = await counted(store, session)
    if fits(totals, size, bounds):
        return totals, None
    if not could_fit(totals, size, bounds):
        raise NoRoom
    chosen = await by_windows(store, session, totals, size, bounds) or await by_scan(
        store, session, totals, size, bounds
    )
    if chosen is None:
        raise NoRoom
    return totals, chosen


async def reserve(store: Store, size: int, bounds: Bounds) -> int | None:
    """Room for one more automatic document of `size`, taken on the totals at once when
    there is some, with its `seq` drawn: one conditional update, so registrations at the
    same moment never pass the bounds, and no transaction (a commit moves every version
    of this process's read cache, `storage.cache.change_watch`: each registration would
    empty it). Its `seq` (never under `floor`), or None: the store is full (or its totals
    are not written yet)."""
    row = await store[PERSISTED_QUERY_TOTALS].find_one_and_update(
        {
            "_id": TOTALS,
            "count": {"$lte": bounds.max_count - 1},
            "bytes": {"$lte": bounds.max_bytes - size},
        },
        {"$inc": {"count": 1, "bytes": size, "auto_count": 1, "auto_bytes": size, "next": 1}},
        projection={"floor": 1, "next": 1},
        return_document=ReturnDocument.AFTER,
    )
    return None if row is None else max(int(row["next"]), int(row["floor"]))


def stored_row(sha: str, text: str, safelisted: bool, seq: int | None) -> dict[str, Any]:
    """The document as stored (`seq` for an automatic one)."""
    moment = datetime.now(UTC)
    row: dict[str, Any] = {
        "_id": sha,
        "document": text,
        "bytes": stored_bytes(text),
        "safelisted": safelisted,
        "registered_at": moment,
        "last_used": moment,
    }
    if seq is not None:
        row["seq"] = seq
    return row


async def register(
    store: Store, sha: str, text: str, bounds: Bounds, safelisted: bool = False
) -> bool:
    """Store `text` under `sha` (the caller checked that it is its hash and within the
    size limit), and count it in the totals. An automatic registration of a hash already
    stored changes nothing; a safelisted one marks it safelisted. False when the store is
    full of documents it may not evict.

    An automatic document reserves its room on the totals, then is inserted (a hash
    stored meanwhile gives the room back). A safelisted one, or one that needs room made,
    is registered in one transaction with the totals and what it evicts."""
    size = stored_bytes(text)
    collection = store[PERSISTED_QUERIES]
    if not safelisted:
        seq = await reserve(store, size, bounds)
        if seq is None and await count_once(store):  # not full: its totals were missing
            seq = await reserve(store, size, bounds)
        if seq is not None:
            try:
                await collection.insert_one(stored_row(sha, text, False, seq))
            except DuplicateKeyError:  # stored already: the room goes back
                await change(store, None, count=-1, bytes=-size, auto_count=-1, auto_bytes=-size)
            return True
    drawn_seq = None if safelisted else await draw(store)

    async def work(session: Session) -> bool:
        found = await collection.find_one(
            {"_id": sha}, {"safelisted": 1, "bytes": 1}, session=session
        )
        if found is not None:
            if safelisted and not found.get("safelisted"):
                await current(store, session)
                await collection.update_one(
                    {"_id": sha}, {"$set": {"safelisted": True}}, session=session
                )
                await change(store, session, auto_count=-1, auto_bytes=-int(found["bytes"]))
            return True
        totals, evicted = await make_room(store, session, size, bounds)
        seq = None if drawn_seq is None else max(drawn_seq, totals.floor)
        row = stored_row(sha, text, safelisted, seq)
        await collection.insert_one(row, session=session)  # first: a duplicate changes nothing
        gone = evicted or Eviction([], 0, 0, totals.floor)
        if gone.ids:
            await collection.delete_many(
                {"_id": {"$in": gone.ids}, "safelisted": False}, session=session
            )
        automatic = 0 if safelisted else 1
        await change(
            store,
            session,
            floor=gone.floor,
            count=1 - gone.count,
            bytes=size - gone.bytes,
            auto_count=automatic - gone.count,
            auto_bytes=automatic * size - gone.bytes,
        )
        return True

    try:
        return await atomically(store, work)
    except NoRoom:
        return False
    except DuplicateKeyError:  # stored by another process meanwhile (no transactions)
        return await register(store, sha, text, bounds, safelisted) if safelisted else True


async def remove(store: Store, sha: str) -> bool:
    """Drop the document under `sha`, of either kind; False when there was none."""

    async def work(session: Session) -> bool:
        await current(store, session)
        row = await store[PERSISTED_QUERIES].find_one_and_delete(
            {"_id": sha}, projection={"bytes": 1, "safelisted": 1}, session=session
        )
        if row is None:
            return False
        size = 0 if row.get("safelisted") else int(row["bytes"])
        await change(
            store,
            session,
            count=-1,
            bytes=-int(row["bytes"]),
            auto_count=-1 if size else 0,
            auto_bytes=-size,
        )
        return True

    return await atomically(store, work)


async def listing(store: Store) -> list[dict[str, Any]]:
    """Every stored document without its text: safelisted first, then by hash."""
    rows = store[PERSISTED_QUERIES].find(
        {}, projection={"document": 0, "seq": 0}, sort=[("safelisted", -1), ("_id", ASCENDING)]
    )
    return [row async for row in rows]
