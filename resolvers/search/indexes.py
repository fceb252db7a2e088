"""Each asset's search index, per process: built from its stored units and locations on
the first search, kept until one of those collections changes (the read cache's
versions, which this process's writes and the change stream move), bounded in bytes with
its key (`VersionedCache`), reported in `/readyz` as `search_indexes`.

After a change it is built again from the documents it was built from, with only those
the change stream says changed since read again (issue 47: reading the 20,000 documents
of a 10,000-place asset again took 0.6-0.8 s of the 1 s a write may cost). The index
keeps them as read (`Kept`: their BSON in id order, compressed, and their ids' hashes;
counted in its bytes), with the position of the read cache's journal
(`storage.cache.change_journal`) taken before they were read: every change noted before
it is in them, every later one is in the journal. The update reads
`{"asset_id": asset, "_id": {"$in": changed}}` with the same projections (an id not
found was deleted or moved to another asset), patches the documents and builds the
index from them: the same index a build from everything would give (one whose changed
documents are all another asset's, or as they were, is kept as it is). It
builds from everything instead when the journal is not complete since that position
(the stream went down or came back, a flush, its bound passed), when more than a
quarter of the documents changed, while a staged import switches (announced or
applying: a read of everything goes through the gate, and sees all of it or none), and
when the stream has not delivered within ECHO_WAIT_SECONDS the change of this process's
latest acknowledged write (its version moves at the acknowledgement, before the stream
says which document changed).

A request that is served from a kept index notes the versions it was built for in its
read log, so an answer kept from it (REST GETs, /graphql queries) goes stale with it.
While the change stream is down the read cache serves nothing, and neither does this:
every search then builds its index afresh (and its answer is not kept, nor its
documents).
"""

from __future__ import annotations

import asyncio
import bisect
import struct
import zlib
from array import array
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

import bson
from bson.codec_options import CodecOptions

from parsing.gcpause import gc_paused
from resolvers.search.builds import BUILDS
from resolvers.search.index import Place, SearchIndex
from resolvers.search.places import collect
from resolvers.wayfinding.versioned_cache import VersionedCache
from storage import collections as c
from storage.cache import cached_reads
from storage.cache.names import READ_LANGUAGE
from storage.cache.read_cache import READS
from storage.cpu import run_cpu
from storage.database import Store

INDEXED = (c.UNITS, c.LOCATIONS)  # what an index is built from: their versions key it
UNIT_FIELDS = {"name": 1, "names": 1, "floor_id": 1}
LOCATION_FIELDS = {"unit_map_id": 1, "name": 1, "names": 1, "floors": 1, "tags": 1}
FIELDS = (UNIT_FIELDS, LOCATION_FIELDS)
Document = dict[str, Any]
# Places built on the event loop; more are built on the CPU pool (storage.cpu).
ON_LOOP_PLACES = 500
# How long an update waits for the stream to deliver this process's acknowledged writes
# (a few milliseconds when the stream is up) before it builds from everything instead.
ECHO_WAIT_SECONDS = 0.3
CHANGED_SHARE = 4  # more changed documents than a quarter of them: build from everything
# zlib's fastest level: the benchmark's 10,000 locations, 2.6 MB of BSON, are 227 KB,
# compressed in 8 ms and read back in 5. Kept so, with their ids' hashes, its 10,000
# places' 20,000 documents hold 504 KB (tracemalloc), 50 bytes a place; as dicts they
# held 1,518 bytes a place, as one bytes object of BSON each 566.
LEVEL = 1
# A `Kept` besides its blob's and its hashes' bytes: the objects and their headers
# (tracemalloc: 409-437 bytes).
KEPT_BYTES = 440
_LENGTH = struct.Struct("<i")  # a BSON document begins with its length


@dataclass(frozen=True, slots=True)
class Kept:
    """The documents of one collection an index was built from, as read: their BSON in
    id order, one compressed blob, and the sorted hashes of their ids (to tell without
    reading them whether a changed id is one of them)."""

    blob: bytes
    count: int
    hashes: array[int]

    @classmethod
    def of(cls, documents: list[Document]) -> Kept:
        data = b"".join(bson.encode(document) for document in documents)
        hashes = array("q", sorted(hash(document["_id"]) for document in documents))
        return cls(zlib.compress(data, LEVEL), len(documents), hashes)

    def holds_any(self, ids: Iterable[Any]) -> bool:
        """Whether one of `ids` may be one of the documents (a hash may collide: then
        the documents are read to know)."""
        for each in ids:
            at = bisect.bisect_left(self.hashes, hash(each))
            if at < len(self.hashes) and self.hashes[at] == hash(each):
                return True
        return False

    @property
    def bytes(self) -> int:
        return KEPT_BYTES + len(self.blob) + self.hashes.itemsize * len(self.hashes)


@dataclass(frozen=True, slots=True)
class Sources:
    """The documents an index was built from (units, locations) and the journal position
    taken before they were read."""

    since: int
    documents: tuple[Kept, Kept]

    @property
    def bytes(self) -> int:
        return sum(kept.bytes for kept in self.documents)


class AssetIndex(SearchIndex):
    """An asset's index with the documents it was built from (None when it keeps none),
    which its bytes count."""

    def __init__(self, places: list[Place], sources: Sources | None) -> None:
        super().__init__(places)
        self.sources = sources
        if sources is not None:
            self.bytes += sources.bytes


async def asset_index(
    store: Store, cache: VersionedCache[SearchIndex], asset_id: str
) -> SearchIndex:
    """The search index of `asset_id`, as its stored data is now."""
    reads = store.cache
    if not (reads.live and reads.enabled):
        return await build(store, asset_id, keep=False)
    reads.journal.follow(INDEXED)
    version = tuple(reads.version(name) for name in INDEXED)
    log = READS.get()
    if log is not None:
        for name, noted in zip(INDEXED, version, strict=True):
            log.note(name, noted)
    previous = cache.kept(asset_id)  # before `get` drops it for the new version

    async def load() -> SearchIndex:
        if isinstance(previous, AssetIndex) and previous.sources is not None:
            updated = await update(store, asset_id, previous, previous.sources)
            if updated is not None:
                return updated
            BUILDS.fallbacks += 1
        return await build(store, asset_id, keep=True)

    return await cache.get(asset_id, version, load)


async def build(store: Store, asset_id: str, keep: bool) -> AssetIndex:
    """Read the asset's units and locations and index them (off the loop when large),
    with their names as stored: an index serves every language (issue 51). With `keep`,
    the index keeps them, with the journal's position taken before the reads."""
    BUILDS.full += 1
    since = store.cache.journal.position
    units, locations = await _read(store, ({"asset_id": asset_id}, {"asset_id": asset_id}))
    if len(units) + len(locations) <= ON_LOOP_PLACES:
        return _index(asset_id, units, locations, since if keep else None)
    return await run_cpu(_index, asset_id, units, locations, since if keep else None)


async def update(
    store: Store, asset_id: str, previous: AssetIndex, sources: Sources
) -> AssetIndex | None:
    """The index from `sources` with the documents changed since read again, or None
    when that cannot be known exactly (see the module)."""
    reads, journal = store.cache, store.cache.journal
    if journal.since(sources.since, INDEXED) is None:
        return None
    switches = (await store.switches.current()).values()
    if any(switch.collections.intersection(INDEXED) for switch in switches):
        return None  # the reads of everything wait for it and see all of it or none
    acked = reads.acked_at(INDEXED)
    if acked is not None and not await journal.reached(acked, ECHO_WAIT_SECONDS):
        return None
    since = journal.position  # before the reads: every change from here is noted later
    changed = journal.since(sources.since, INDEXED)
    kept = sources.documents
    total = sum(each.count for each in kept)
    if changed is None or CHANGED_SHARE * sum(map(len, changed.values())) > total:
        return None
    ids = [sorted(changed[name], key=str) for name in INDEXED]
    units, locations = (
        {"asset_id": asset_id, "_id": {"$in": each}} if each else None for each in ids
    )
    found = await _read(store, (units, locations))
    if any(not isinstance(document["_id"], str) for each in found for document in each):
        return None  # its order among the others would not be the database's
    if not any(found) and not any(map(Kept.holds_any, kept, ids)):
        BUILDS.unchanged += 1  # none of the changed documents is the asset's
        previous.sources = replace(sources, since=since)
        return previous
    codec = reads.codec_options
    changes = tuple(zip(ids, found, strict=True))
    if total <= ON_LOOP_PLACES:
        updated = _rebuild(asset_id, since, sources, changes, codec)
    else:
        updated = await run_cpu(_rebuild, asset_id, since, sources, changes, codec)
    if updated is None:
        BUILDS.unchanged += 1  # the asset's changed documents are as they were read
        previous.sources = replace(sources, since=since)
        return previous
    BUILDS.updated += 1
    return updated


async def _read(
    store: Store, queries: tuple[Document | None, Document | None]
) -> list[list[Document]]:
    """The units and the locations each query finds, in id order, as stored (none for
    no query)."""

    async def one(collection: str, query: Document | None, fields: Document) -> list[Document]:
        if query is None:
            return []
        return await cached_reads.find_list(
            store, collection, query, [("_id", 1)], projection=fields
        )

    token = READ_LANGUAGE.set(None)
    try:  # two reads at once: 0.8 s became 0.56 s
        return list(
            await asyncio.gather(
                *(one(*each) for each in zip(INDEXED, queries, FIELDS, strict=True))
            )
        )
    finally:
        READ_LANGUAGE.reset(token)


def _index(
    asset_id: str, units: list[Document], locations: list[Document], since: int | None
) -> AssetIndex:
    """The index of these documents, keeping them when `since` is given and every id is
    text (the order of others among them would not be the database's); garbage
    collection paused: what a build allocates lives on in the index, and the collections
    that walked it were half of a build of 10,000 places (0.43 s, 0.23 s without)."""
    with gc_paused(settle=False):
        sources = None
        if since is not None and all(
            isinstance(document["_id"], str) for document in (*units, *locations)
        ):
            sources = Sources(since, (Kept.of(units), Kept.of(locations)))
        return AssetIndex(collect(asset_id, units, locations), sources)


Changes = tuple[tuple[list[Any], list[Document]], ...]  # per collection: (ids, found)


def _rebuild(
    asset_id: str, since: int, sources: Sources, changes: Changes, codec: CodecOptions
) -> AssetIndex | None:
    """The index of the kept documents with the changed ones as found again, or None
    when none of them differs from what was kept (collection paused, as `_index`)."""
    with gc_paused(settle=False):
        (units, unit_kept), (locations, location_kept) = (
            _patched(*each, codec) for each in zip(sources.documents, changes, strict=True)
        )
        documents = (unit_kept, location_kept)
        if documents == sources.documents:
            return None
        return AssetIndex(collect(asset_id, units, locations), Sources(since, documents))


def _patched(
    kept: Kept, change: tuple[list[Any], list[Document]], codec: CodecOptions
) -> tuple[list[Document], Kept]:
    """The kept documents with those of the changed ids as found (those not found gone,
    new ones in id order), and them kept; `kept` itself when none differs from it."""
    ids, found = change
    data = zlib.decompress(kept.blob)
    documents = bson.decode_all(data, codec)
    if not ids:
        return documents, kept
    view, start = memoryview(data), 0
    fresh = {document["_id"]: document for document in found}
    changed = set(ids)
    moved = gone = False
    out: list[Document] = []
    pieces: list[bytes | memoryview] = []
    for document in documents:
        end = start + _LENGTH.unpack_from(data, start)[0]
        key = document["_id"]
        if key not in changed:
            out.append(document)
            pieces.append(view[start:end])
        elif key in fresh:
            again = fresh.pop(key)
            encoded = bson.encode(again)
            moved = moved or encoded != view[start:end]  # bytes: its keys' order too
            out.append(again)
            pieces.append(encoded)
        else:
            moved = gone = True  # deleted, or moved to another asset
        start = end
    if fresh:  # new ones: in id order (code points: UTF-8's binary order, the database's)
        moved = True
        out += fresh.values()
        pieces += [bson.encode(document) for document in fresh.values()]
        order = sorted(range(len(out)), key=lambda at: out[at]["_id"])
        out, pieces = [out[at] for at in order], [pieces[at] for at in order]
    if not moved:
        return documents, kept
    hashes = kept.hashes
    if gone or len(out) != kept.count:  # the same ids: the same hashes
        hashes = array("q", sorted(hash(document["_id"]) for document in out))
    return out, Kept(zlib.compress(b"".join(pieces), LEVEL), len(out), hashes)
