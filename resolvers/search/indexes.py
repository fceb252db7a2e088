"""Each asset's search index, per process: built from its stored units and locations on
the first search, kept until the asset's units or locations change (the read cache's
versions of the asset's scope, which this process's writes and the change stream move:
another asset's write leaves it as it is, issue 67), bounded in bytes with
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

During writes (issue 63, finding 5: two writers and two searchers held searches at
0.75-1 s and the worker's other requests at 8x): an asset's index is made by one task at
a time (`Making`), whatever versions its searches see; a write arriving meanwhile is
taken in by the next. An index of more than WAIT_PLACES documents is brought up to date
in the background: a search that finds it out of date starts its update and is answered
at once from it (the answer is not kept), as is every search until the update is done;
it is made on the event loop in slices of SLICE_SECONDS, SLICE_REST apart (on the CPU
pool, its thread held the interpreter from the loop, and an honest GET's p95 went to
5x; with a slice after every turn of the loop, a request waited one a turn), and the
next update starts no sooner than UPDATE_REST times the last one's time after its end
(`AssetIndex.rests_until`), so updates take at most a third of the loop while they run,
and a ninth in all. Garbage collection is paused while one is made (`_paused`), and
the index holds next to nothing the collector walks (`index.Places`). A smaller index
is updated while its searches wait (a few milliseconds), so a write is found by the next
search there; in a larger one, by the searches after the update that the first search
after it starts.
"""

from __future__ import annotations

import asyncio
import bisect
import contextvars
import logging
import struct
import time
import zlib
from array import array
from collections.abc import Generator, Iterable
from dataclasses import dataclass, replace
from typing import Any, TypeVar
from weakref import WeakKeyDictionary

import bson
from bson.codec_options import CodecOptions

from parsing.gcpause import gc_paused
from resolvers.search.builds import BUILDS
from resolvers.search.index import Place, SearchIndex
from resolvers.search.places import STEP, collecting
from resolvers.wayfinding.versioned_cache import VersionedCache
from storage import collections as c
from storage.cache import cached_reads
from storage.cache.names import READ_LANGUAGE
from storage.cache.read_cache import READS
from storage.cache.scopes import Scope
from storage.collections import Document
from storage.database import Store

INDEXED = (c.UNITS, c.LOCATIONS)  # what an index is built from: their versions key it
UNIT_FIELDS = {"name": 1, "names": 1, "floor_id": 1}
LOCATION_FIELDS = {"unit_map_id": 1, "name": 1, "names": 1, "floors": 1, "tags": 1}
FIELDS = (UNIT_FIELDS, LOCATION_FIELDS)
Version = tuple[Any, ...]  # the versions of units and locations an index is of
# Places built at once; more are built in slices that let other requests run (`_run`).
ON_LOOP_PLACES = 500
# How long an update waits for the stream to deliver this process's acknowledged writes
# (a few milliseconds when the stream is up) before it builds from everything instead.
ECHO_WAIT_SECONDS = 0.3
CHANGED_SHARE = 4  # more changed documents than a quarter of them: build from everything
# An index of more units and locations is updated in the background while searches are
# answered from it (an update of 10,000 places takes 0.3 s); one of fewer, while they wait.
WAIT_PLACES = 500
# The next update of a large index starts no sooner than this many times the last one's
# time after its end: updates take at most a third of the event loop's time.
UPDATE_REST = 2.0
# How often a search that found its index being made waits for the next one (a write
# arriving each time): then it is answered from the one it waited for, not kept.
MAX_WAITS = 3
LOG = logging.getLogger("floorgate.search")
# A large index is made on the event loop in slices of this much CPU time, the loop's other
# work run between them (an update of 10,000 places is about 0.3 s of them).
SLICE_SECONDS = 0.004
# Between two slices of an update made in the background, the loop runs without one this
# long: a request waits for at most one slice, not one per turn of the loop it needs (with
# a slice after every turn, an honest GET's p95 was 5x idle during updates).
SLICE_REST = 2 * SLICE_SECONDS
T = TypeVar("T")
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
        return _finished(cls.keeping(documents))

    @classmethod
    def keeping(cls, documents: list[Document]) -> Steps[Kept]:
        """`of`, STEP documents at a time."""
        pieces: list[bytes | memoryview] = []
        for at, document in enumerate(documents):
            if at % STEP == 0:
                yield
            pieces.append(bson.encode(document))
        hashes = array("q", sorted(hash(document["_id"]) for document in documents))
        return cls((yield from _compressed(pieces)), len(documents), hashes)

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
    which its bytes count; the versions of units and locations it is of (when kept), and
    when the next update of it may start."""

    def __init__(self, places: list[Place], sources: Sources | None) -> None:
        super().__init__(places)
        self._keep(sources)

    @classmethod
    def making(cls, places: list[Place], sources: Sources | None) -> Steps[AssetIndex]:
        """The index, made in slices (`SearchIndex.building`)."""
        index = cls.__new__(cls)
        yield from index.building(places)
        index._keep(sources)
        return index

    def _keep(self, sources: Sources | None) -> None:
        self.sources = sources
        if sources is not None:
            self.bytes += sources.bytes
        self.version: Version | None = None
        self.rests_until = 0.0  # time.monotonic(): no update of it starts before

    @property
    def large(self) -> bool:
        """Updated in the background, searches answered from it meanwhile."""
        if self.sources is None:
            return False
        return sum(kept.count for kept in self.sources.documents) > WAIT_PLACES


@dataclass(frozen=True, slots=True)
class Making:
    """The one index of an asset being made (built, or updated from `previous`)."""

    version: Version
    previous: AssetIndex | None
    task: asyncio.Task[SearchIndex]


# Per cache of indexes (a process has one; tests make their own): what each asset's is
# being made. An entry lives while its task runs.
_MAKING: WeakKeyDictionary[VersionedCache[SearchIndex], dict[str, Making]] = WeakKeyDictionary()


async def asset_index(
    store: Store, cache: VersionedCache[SearchIndex], asset_id: str
) -> SearchIndex:
    """The search index of `asset_id`, as its stored data is now; or, while an update
    of a large one is made, as it was (see the module)."""
    reads = store.cache
    if not (reads.live and reads.enabled):
        return await build(store, asset_id, keep=False)
    reads.journal.follow(INDEXED)
    making = _MAKING.setdefault(cache, {})
    scope = ("asset_id", asset_id)
    version = tuple(reads.version(name, scope) for name in INDEXED)
    waited: SearchIndex | None = None
    for _ in range(MAX_WAITS):
        kept = cache.kept(asset_id)
        if isinstance(kept, AssetIndex) and kept.version == version:
            _note(version, scope)
            return await cache.get(asset_id, version, _never)  # kept: its LRU place moves
        now = making.get(asset_id)
        previous = now.previous if now is not None else kept
        if isinstance(previous, AssetIndex) and previous.large:
            if now is None and time.monotonic() >= previous.rests_until:
                _make(store, cache, making, asset_id, version, previous)
            return _stale(previous)
        if now is None:
            now = _make(store, cache, making, asset_id, version, previous)
        waited = await asyncio.shield(now.task)
        if now.version == version:
            _note(version, scope)
            return waited
    assert waited is not None
    return _stale(waited)


def _note(version: Version, scope: Scope) -> None:
    """The request's answer holds while these versions of the asset's units and
    locations do."""
    log = READS.get()
    if log is not None:
        for name, noted in zip(INDEXED, version, strict=True):
            log.note(name, noted, scope)


def _stale(index: SearchIndex) -> SearchIndex:
    """`index`, older than the data: the request's answer is not kept."""
    BUILDS.stale += 1
    log = READS.get()
    if log is not None:
        log.complete = False
    return index


async def _never() -> SearchIndex:
    raise AssertionError("asked only for an index kept")


def _make(
    store: Store,
    cache: VersionedCache[SearchIndex],
    making: dict[str, Making],
    asset_id: str,
    version: Version,
    previous: SearchIndex | None,
) -> Making:
    """Start making the asset's index of `version`, updated from `previous` when it
    can be: its task, which nobody need await (its failure is logged)."""
    previous = previous if isinstance(previous, AssetIndex) else None

    async def load() -> SearchIndex:
        started = time.monotonic()
        made: AssetIndex | None = None
        if previous is not None and previous.sources is not None:
            made = await update(store, asset_id, previous, previous.sources)
            if made is None:
                BUILDS.fallbacks += 1
        if made is None:
            made = await build(store, asset_id, keep=True)
        ended = time.monotonic()
        made.version, made.rests_until = version, ended + UPDATE_REST * (ended - started)
        return made

    async def run() -> SearchIndex:
        try:
            return await cache.get(asset_id, version, load)
        finally:
            if making.get(asset_id) is entry:
                del making[asset_id]

    # A context of its own: the task is no one request's (its reads are noted in none).
    task = asyncio.get_running_loop().create_task(run(), context=contextvars.Context())
    entry = Making(version, previous, task)
    entry.task.add_done_callback(_logged)
    making[asset_id] = entry
    return entry


def _logged(task: asyncio.Task[SearchIndex]) -> None:
    """A failed update nobody waited for is logged (a search waiting got it too)."""
    if not task.cancelled() and task.exception() is not None:
        LOG.warning("a search index was not made: %r", task.exception())


async def build(store: Store, asset_id: str, keep: bool) -> AssetIndex:
    """Read the asset's units and locations and index them (in slices when large),
    with their names as stored: an index serves every language (issue 51). With `keep`,
    the index keeps them, with the journal's position taken before the reads."""
    BUILDS.full += 1
    since = store.cache.journal.position
    units, locations = await _read(store, ({"asset_id": asset_id}, {"asset_id": asset_id}))
    sliced = len(units) + len(locations) > ON_LOOP_PLACES
    steps = _paused(_index(asset_id, units, locations, since if keep else None))
    del units, locations  # the steps': dropped as they end (`_paused`)
    return await _run(steps, sliced)


async def update(
    store: Store, asset_id: str, previous: AssetIndex, sources: Sources
) -> AssetIndex | None:
    """The index from `sources` with the documents changed since read again, or None
    when that cannot be known exactly (see the module)."""
    reads, journal = store.cache, store.cache.journal
    scope = ("asset_id", asset_id)
    if journal.since(sources.since, INDEXED, scope) is None:
        return None
    switches = (await store.switches.current()).values()
    if any(switch.collections.intersection(INDEXED) for switch in switches):
        return None  # the reads of everything wait for it and see all of it or none
    acked = reads.acked_at(INDEXED)
    if acked is not None and not await journal.reached(acked, ECHO_WAIT_SECONDS):
        return None
    since = journal.position  # before the reads: every change from here is noted later
    changed = journal.since(sources.since, INDEXED, scope)
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
    steps = _paused(_rebuild(asset_id, since, sources, changes, codec))
    # Large: in the background (`AssetIndex.large`), no search waits for it.
    updated = await _run(steps, total > ON_LOOP_PLACES, SLICE_REST)
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


Steps = Generator[None, None, T]  # work done in slices: None between two, then its value


def _finished(steps: Steps[T]) -> T:
    """The value of `steps`, all done at once."""
    while True:
        done = _step(steps)
        if done is not None:
            return done[0]


def _step(steps: Steps[T]) -> tuple[T] | None:
    """One slice of `steps`: its value (in a tuple) once it is done, else None."""
    try:
        next(steps)
    except StopIteration as done:
        value: T = done.value  # a generator's return value
        return (value,)
    return None


async def _run(steps: Steps[T], sliced: bool, rest: float = 0.0) -> T:
    """The value of `steps`: at once, or in slices of SLICE_SECONDS with the event loop's
    other work run between them, for `rest` seconds at least (issue 63, finding 5: on
    the CPU pool, an update of 10,000 places held the interpreter from the loop and took
    an honest GET's p95 to 5x)."""
    try:
        deadline = time.perf_counter() + SLICE_SECONDS
        while True:
            done = _step(steps)
            if done is not None:
                return done[0]
            if sliced and time.perf_counter() >= deadline:
                await asyncio.sleep(rest)
                deadline = time.perf_counter() + SLICE_SECONDS
    finally:
        steps.close()  # cancelled between slices: its `gc_paused` ends (`_paused`)


def _paused(steps: Steps[T]) -> Steps[T]:
    """`steps` with garbage collection paused. What a build allocates lives on in the
    index (atoms the collector does not walk: `index.Places`) or is dropped as it ends
    (documents, drafts of places), and collections that walked it were half of a build
    of 10,000 places (0.43 s, 0.23 s without). Collection resumes once `steps` are done
    and their frame is cleared: resumed while it still held the documents, the first
    collection walked them all, 40-70 ms of the event loop after every update (issue
    63, finding 5)."""
    with gc_paused(settle=False):
        return (yield from steps)


def _index(
    asset_id: str, units: list[Document], locations: list[Document], since: int | None
) -> Steps[AssetIndex]:
    """The index of these documents, keeping them when `since` is given and every id is
    text (the order of others among them would not be the database's). Run `_paused`."""
    sources = None
    if since is not None and all(
        isinstance(document["_id"], str) for document in (*units, *locations)
    ):
        unit_kept = yield from Kept.keeping(units)
        sources = Sources(since, (unit_kept, (yield from Kept.keeping(locations))))
    places: list[Place] = []
    yield from collecting(asset_id, units, locations, places)
    return (yield from AssetIndex.making(places, sources))


Changes = tuple[tuple[list[Any], list[Document]], ...]  # per collection: (ids, found)


def _rebuild(
    asset_id: str, since: int, sources: Sources, changes: Changes, codec: CodecOptions[Document]
) -> Steps[AssetIndex | None]:
    """The index of the kept documents with the changed ones as found again, or None
    when none of them differs from what was kept. Run `_paused`."""
    unit_kept, location_kept = sources.documents
    units, unit_kept = yield from _patched(unit_kept, changes[0], codec)
    locations, location_kept = yield from _patched(location_kept, changes[1], codec)
    documents = (unit_kept, location_kept)
    if documents == sources.documents:
        return None
    places: list[Place] = []
    yield from collecting(asset_id, units, locations, places)
    return (yield from AssetIndex.making(places, Sources(since, documents)))


def _decoded(data: bytes, codec: CodecOptions[Document]) -> Steps[list[Document]]:
    """The BSON documents of `data`, decoded STEP at a time."""
    documents: list[Document] = []
    start = 0
    while start < len(data):
        end = start
        for _ in range(STEP):
            if end >= len(data):
                break
            end += _LENGTH.unpack_from(data, end)[0]
        documents += bson.decode_all(data[start:end], codec)
        start = end
        yield
    return documents


def _compressed(pieces: list[bytes | memoryview]) -> Steps[bytes]:
    """`pieces` joined and compressed at LEVEL, STEP at a time."""
    squeeze = zlib.compressobj(LEVEL)
    out: list[bytes] = []
    for at in range(0, len(pieces), STEP):
        out.append(squeeze.compress(b"".join(pieces[at : at + STEP])))
        yield
    out.append(squeeze.flush())
    return b"".join(out)


def _patched(
    kept: Kept, change: tuple[list[Any], list[Document]], codec: CodecOptions[Document]
) -> Steps[tuple[list[Document], Kept]]:
    """The kept documents with those of the changed ids as found (those not found gone,
    new ones in id order), and them kept; `kept` itself when none differs from it."""
    ids, found = change
    data = zlib.decompress(kept.blob)
    yield
    documents = yield from _decoded(data, codec)
    if not ids:
        return documents, kept
    view, start = memoryview(data), 0
    fresh = {document["_id"]: document for document in found}
    changed = set(ids)
    moved = gone = False
    out: list[Document] = []
    pieces: list[bytes | memoryview] = []
    for at, document in enumerate(documents):
        if at % STEP == 0:
            yield
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
    return out, Kept((yield from _compressed(pieces)), len(out), hashes)
