"""The read cache of one process: query results kept true by versions.

Every collection has a version, and so has each scope of it (a property, a map, a
document: `storage.cache.scopes`, issue 67). A result is stored with the version its
collection had *before* the query started (its scope's, when the query names one), and
served only while that is still the version, so a write that races a read can never
leave a stale entry behind. A change moves its collection's version and the versions of
the scopes it names (every scope's, when it names none); so a write to one property
leaves every other property's kept reads and answers in place. Versions move when:

- this process writes (`storage.cache.change_watch.WriteListener`, when the write is
  acknowledged), so a client always reads its own writes;
- the change stream reports a change made by anyone (`storage.cache.change_watch.watch_changes`),
  except this process's own write whose acknowledgement already moved it (its "echo": the
  change is no newer than the write's `operationTime`, `already_moved`), which would
  otherwise cost every kept result a second miss;
- the stream goes down or comes back: then every version moves and the cache flushes.

Beside the versions, which say only that a collection changed, the journal
(`storage.cache.change_journal`) keeps which documents the stream said changed, bounded,
for what derives a value from many documents and would rather read again only those
(the search index of an asset, issue 47); a flush makes it incomplete.

The cache serves nothing while the change stream is not known to be up ("live"):
correctness before speed. Results are kept as BSON bytes, which bounds memory by a
byte budget exactly and hands every reader its own fresh documents.

Whole answers can be kept too (`answer`, `keep_answer`): a request that runs with a
`ReadLog` in `READS` notes the version of every collection it read, and its answer is
valid while all of those versions hold (REST GETs, `rest/v1/dispatch.py`; /graphql queries,
`schema/execution/running/request.py`), and until the earliest moment a read said its result
changes by itself (`ReadLog.expires`: a closure's `until`, storage/closures.py).
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeVar, cast

import bson
import orjson
from bson import Timestamp
from bson.codec_options import CodecOptions
from bson.errors import BSONError

from storage.cache.change_journal import ChangeJournal
from storage.cache.page_bounds import PageBounds
from storage.cache.scopes import EVERYTHING, Scope, Touched
from storage.collections import Document

# Bytes counted for an entry beyond its value: the key, the entry and the dict slot.
ENTRY_OVERHEAD = 300
# No single result may take more than this share of the budget, so one huge page
# cannot flush everything else.
LARGEST_SHARE = 4
ALL = "*"  # what `bump` of every collection reports
# Scopes whose versions are kept (each a few hundred bytes: ~6 MB at most); past it they
# are forgotten at once and every scoped read stored before goes stale (`_scope_epoch`).
MAX_SCOPES = 20_000


Version = tuple[int, ...]
Read = tuple[str, Scope | None]  # what a result depends on: a collection, within a scope
T = TypeVar("T")


@dataclass(slots=True)
class Entry:
    version: Version | tuple[tuple[Read, Version], ...]  # an answer's: every read's
    data: bytes
    size: int
    tag: str = ""  # an answer's ETag (REST GETs), else ""
    cost: int = 0  # an answer's cost, as its first run settled it: each serving is charged it
    until: float | None = None  # an answer's end (epoch seconds), else it lasts while it holds


class KeptAnswer(NamedTuple):
    """A kept answer: its bytes, its tag and the cost each serving is charged."""

    data: bytes
    tag: str
    cost: int


@dataclass
class ReadLog:
    """What one request read: each collection's (and scope's) version before its first
    read. Not `complete` when a read went around the cache or saw two versions of one.
    Its answer is kept under `key`."""

    key: Hashable
    versions: dict[Read, Version] = field(default_factory=dict)
    complete: bool = True
    until: float | None = None  # epoch seconds: the answer is not served from then on

    def note(self, collection: str, version: Version, scope: Scope | None = None) -> None:
        if self.versions.setdefault((collection, scope), version) != version:
            self.complete = False

    def expires(self, at: float) -> None:
        """Something read changes by itself at `at` (epoch seconds) with no write (a
        closure ends): the answer is served no later."""
        if self.until is None or at < self.until:
            self.until = at


READS: ContextVar[ReadLog | None] = ContextVar("floorgate_reads", default=None)
KEY_BYTES = 16  # every key is a digest of this size: counted in ENTRY_OVERHEAD


def kept_key(*parts: Any) -> bytes:
    """The key of a kept answer: a digest of what it depends on (sets in sorted order),
    never the client's text itself, so an entry's size is its answer's (ENTRY_OVERHEAD
    covers the key) whatever the request held."""

    def canonical(value: Any) -> Any:
        if isinstance(value, set | frozenset):
            return sorted(value)
        if isinstance(value, bytes):
            return value.hex()
        raise TypeError(type(value).__name__)

    encoded = orjson.dumps(parts, default=canonical)
    return hashlib.blake2b(encoded, digest_size=KEY_BYTES).digest()


@dataclass
class CacheStats:
    """What `/readyz` shows of the cache (docs/performance-history.md "Read cache")."""

    enabled: bool
    live: bool
    stream: str
    entries: int
    bytes_used: int
    budget_bytes: int
    hits: int
    misses: int
    bypassed: int
    answer_hits: int
    invalidations: int
    flushes: int
    stream_events: int
    stream_restarts: int
    stream_echoes: int  # changes of this process's own writes, moved at their ack
    last_change_seconds_ago: float | None
    journal_events: int  # ids of changed documents kept (`storage.cache.change_journal`)
    journal_bytes: int
    scopes: int  # versions of scopes kept (`storage.cache.scopes`), at most MAX_SCOPES
    page_bounds: int  # ends of pages kept (`storage.cache.page_bounds`)
    page_bounds_bytes: int
    page_bound_hits: int  # pages read after a kept end instead of by offset


class ReadCache:
    """Query results keyed by collection and query, valid for one collection version."""

    def __init__(
        self, budget_bytes: int, codec_options: CodecOptions[Document] | None = None
    ) -> None:
        self.budget = max(0, budget_bytes)
        self.codec_options = codec_options or CodecOptions(tz_aware=True)
        self._clock = itertools.count(1)
        self._epoch = next(self._clock)  # moves on every flush
        self._versions: dict[str, int] = {}  # per collection: any change
        self._wide: dict[str, int] = {}  # per collection: a change of every scope
        self._scoped: dict[tuple[str, Scope], int] = {}  # per collection and scope
        self._scope_epoch = next(self._clock)  # moves when the scopes are forgotten
        self._entries: OrderedDict[Hashable, Entry] = OrderedDict()
        self._loading: dict[tuple[Hashable, Version], asyncio.Future[Any]] = {}
        self.bytes_used = 0
        self.live = False
        self.stream = "not started"
        self.interruptions = 0  # connection failures seen; a stream older than one is not trusted
        self.hits = self.misses = self.bypassed = self.answer_hits = 0
        self.invalidations = self.flushes = 0
        self.stream_events = self.stream_restarts = self.stream_echoes = 0
        self._last_change: float | None = None
        # Per collection (`ALL`: every one) and scope (None: every scope), the database
        # time of this process's latest acknowledged write whose bump moved the version: a
        # read begun after that bump sees every change made up to that time, so the
        # stream's report of such a change (the write's own echo) need not move the
        # version again (`already_moved`). `_latest`: per collection, whatever scope.
        self._acked: dict[tuple[str, Scope | None], Timestamp] = {}
        self._latest: dict[str, Timestamp] = {}
        self.journal = ChangeJournal()  # which documents changed, as the stream said
        self.page_bounds = PageBounds()  # where pages of lists in id order end

    @property
    def enabled(self) -> bool:
        return self.budget > 0

    def version(self, collection: str, scope: Scope | None = None) -> Version:
        """The version of what a read of `collection` (within `scope`) found."""
        if scope is None:
            return self._epoch, self._versions.get(collection, 0)
        return (
            self._epoch,
            self._scope_epoch,
            self._wide.get(collection, 0),
            self._scoped.get((collection, scope), 0),
        )

    # What moves versions

    def bump(self, collection: str, touched: Touched = EVERYTHING) -> None:
        """`collection` changed (or may have) within `touched`'s scopes: nothing read of
        them before is served again."""
        if collection == ALL:
            self.flush()
            return
        now = self._versions[collection] = next(self._clock)
        if touched.scopes is None:
            self._wide[collection] = now
        else:
            if len(self._scoped) + len(touched.scopes) > MAX_SCOPES:
                self._forget_scopes()
            for scope in touched.scopes:
                self._scoped[collection, scope] = now
        self.invalidations += 1
        self._last_change = time.monotonic()

    def _forget_scopes(self) -> None:
        """Too many scopes kept: forget them all; every scoped read stored goes stale."""
        self._scoped.clear()
        self._acked = {key: at for key, at in self._acked.items() if key[1] is None}
        self._scope_epoch = next(self._clock)

    def acknowledged(
        self, collection: str, at: Timestamp | None, touched: Touched = EVERYTHING
    ) -> None:
        """This process's write to `collection` (`ALL`: any) within `touched`'s scopes
        was acknowledged at the database time `at` (None when the reply gave none): the
        versions move now."""
        self.bump(collection, touched)
        if not isinstance(at, Timestamp):
            return
        for scope in (None,) if touched.scopes is None else touched.scopes:
            if self._acked.get((collection, scope), at) <= at:
                self._acked[collection, scope] = at
        if self._latest.get(collection, at) <= at:
            self._latest[collection] = at

    def already_moved(
        self, collection: str, at: Timestamp | None, touched: Touched = EVERYTHING
    ) -> bool:
        """Whether a change to `collection` within `touched`'s scopes made at the
        database time `at` is one every read begun since the bumps it needs already
        sees: no newer than acknowledged writes of this process whose bumps came after
        it (of the whole collection, or of each of its scopes)."""
        if not isinstance(at, Timestamp):
            return False

        def moved(scope: Scope | None) -> bool:
            return any(
                key in self._acked and at <= self._acked[key]
                for key in ((collection, scope), (collection, None), (ALL, None))
            )

        if touched.scopes is None or not touched.scopes:
            return moved(None)
        return all(moved(scope) for scope in touched.scopes)

    def acked_at(self, collections: tuple[str, ...]) -> Timestamp | None:
        """The database time of this process's latest acknowledged write to any of
        `collections` (or to any collection): every change it made is at that time or
        before (`ChangeJournal.reached`)."""
        times = [self._latest[key] for key in (*collections, ALL) if key in self._latest]
        return max(times) if times else None

    def flush(self) -> None:
        """Every version moves and every entry goes."""
        self._epoch = next(self._clock)
        self._forget_scopes()
        self._entries.clear()
        self.bytes_used = 0
        self.page_bounds.clear()
        self.journal.reset()
        self.flushes += 1
        self._last_change = time.monotonic()

    def interrupted(self, reason: str) -> None:
        """The database connection failed: stop serving until a new stream is up."""
        self.interruptions += 1
        self.went_down(reason)

    def went_down(self, reason: str) -> None:
        if self.live:
            self.live = False
            self.flush()
        self.stream = f"down: {reason}"

    def went_up(self, interruptions_before: int) -> bool:
        """A new stream is open. Serve again, after a flush, unless the connection
        failed since the stream was asked for (then it may have missed changes)."""
        if self.interruptions != interruptions_before:
            return False
        self.flush()
        self.live = True
        self.stream = "up"
        self.stream_restarts += 1
        return True

    # Reads

    async def read(
        self,
        key_of: Callable[[], Hashable],
        collection: str,
        load: Callable[[], Awaitable[T]],
        scope: Scope | None = None,
    ) -> T:
        """The result of `load()` for the key `key_of()` makes (made only when the cache
        serves), from the cache when still valid: while `collection`'s version stays, or
        its `scope`'s when the read finds documents of that scope only. Concurrent readers
        of one key and version share one load."""
        log = READS.get()
        if not self.live or not self.enabled:
            self.bypassed += 1
            if log is not None:
                log.complete = False
            return await load()
        key = key_of()
        version = self.version(collection, scope)
        if log is not None:
            log.note(collection, version, scope)
        entry = self._entries.get(key)
        if entry is not None and entry.version == version:
            self.hits += 1
            self._entries.move_to_end(key)
            return cast(T, bson.decode(entry.data, self.codec_options)["v"])  # load()'s, kept
        self.misses += 1
        loading_key = (key, version)
        pending = self._loading.get(loading_key)
        if pending is not None:
            try:
                data = await asyncio.shield(pending)
            except asyncio.CancelledError:
                ours = asyncio.current_task()
                if not pending.cancelled() or (ours is not None and ours.cancelling()):
                    raise  # this reader was cancelled (perhaps with the first one)
                data = None  # the first reader went away: load for ourselves
            if data is not None:  # the first reader's load(), encoded
                return cast(T, bson.decode(data, self.codec_options)["v"])
            return await load()
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._loading[loading_key] = future
        try:
            value = await load()
        except asyncio.CancelledError:
            future.cancel()
            raise
        except BaseException as error:
            future.set_exception(error)
            future.exception()  # retrieved: waiters get it, nobody logs it as lost
            raise
        finally:
            self._loading.pop(loading_key, None)
        data = self._encode(value)
        future.set_result(data)
        if data is not None and self.live and self.version(collection, scope) == version:
            self._store(key, version, data)  # else a change came meanwhile: keep nothing
        return value

    def _encode(self, value: Any) -> bytes | None:
        try:
            data = bson.encode({"v": value}, codec_options=self.codec_options)
        except (BSONError, TypeError, OverflowError):
            return None  # not BSON (cannot happen for what the driver returned): not cached
        return data if self._fits(data) else None

    def _fits(self, data: bytes) -> bool:
        return len(data) + ENTRY_OVERHEAD <= self.budget // LARGEST_SHARE

    # Whole answers

    def answer(self, key: Hashable) -> KeptAnswer | None:
        """A kept answer while every collection it read is unchanged."""
        entry = self._entries.get(key) if self.live else None
        if entry is None or not all(self.version(*read) == v for read, v in entry.version):  # type: ignore[misc]  # an answer's: (read, version) pairs
            return None
        if entry.until is not None and time.time() >= entry.until:
            return None
        self.answer_hits += 1
        self._entries.move_to_end(key)
        return KeptAnswer(entry.data, entry.tag, entry.cost)

    def keep_answer(self, log: ReadLog, data: bytes, tag: str, cost: int) -> None:
        """Keep an answer built from `log`'s reads under its key, if they all still hold."""
        versions = tuple(log.versions.items())
        if (
            not self.live
            or not log.complete
            or not versions
            or not self._fits(data)
            or any(self.version(*read) != v for read, v in versions)
            or (log.until is not None and time.time() >= log.until)
        ):
            return
        # A copy of exactly its length: orjson's bytes keep the buffer they were written
        # in (4 KiB for a 300-byte page, 519 KiB for 50 KB), so a kept answer held ten
        # times what the budget counted (issue 47, measured with tracemalloc).
        self._store(log.key, versions, bytes(memoryview(data)), tag, cost, log.until)

    def _store(
        self,
        key: Hashable,
        version: Any,
        data: bytes,
        tag: str = "",
        cost: int = 0,
        until: float | None = None,
    ) -> None:
        old = self._entries.pop(key, None)
        if old is not None:
            self.bytes_used -= old.size
        size = len(data) + len(tag) + ENTRY_OVERHEAD
        self._entries[key] = Entry(version, data, size, tag, cost, until)
        self.bytes_used += size
        while self.bytes_used > self.budget and self._entries:
            _, evicted = self._entries.popitem(last=False)
            self.bytes_used -= evicted.size

    def stats(self) -> CacheStats:
        last = self._last_change
        return CacheStats(
            enabled=self.enabled,
            live=self.live,
            stream=self.stream if self.enabled else "off",
            entries=len(self._entries),
            bytes_used=self.bytes_used,
            budget_bytes=self.budget,
            hits=self.hits,
            misses=self.misses,
            bypassed=self.bypassed,
            answer_hits=self.answer_hits,
            invalidations=self.invalidations,
            flushes=self.flushes,
            stream_events=self.stream_events,
            stream_restarts=self.stream_restarts,
            stream_echoes=self.stream_echoes,
            last_change_seconds_ago=None if last is None else round(time.monotonic() - last, 3),
            journal_events=len(self.journal),
            journal_bytes=self.journal.bytes,
            scopes=len(self._scoped),
            page_bounds=self.page_bounds.bounds,
            page_bounds_bytes=self.page_bounds.bytes,
            page_bound_hits=self.page_bounds.hits,
        )


def variables_digest(head: bytes, variables: dict[str, Any] | None) -> bytes | None:
    """BLAKE2b-256 of `head` and the variables as sorted JSON: the part of a kept
    answer's key that names its input (REST bodies, `rest/v1/dispatch.py`; /graphql variables,
    `schema/execution/running/request.py`).
    None for variables nested past what orjson writes (such a request runs, is not kept)."""
    try:
        encoded = orjson.dumps(variables, option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError:
        return None
    digest = hashlib.blake2b(head, digest_size=32)
    digest.update(encoded)
    return digest.digest()
