"""What keeps the read cache (`storage.cache.read_cache`) true.

- `WriteListener`: every write this process's client makes moves the version of its
  collection when the server acknowledges it (a transaction's commit moves again those
  its writes named), so a client reads its own writes without waiting for the change
  stream: an insert only the scopes of the documents it sends (`storage.cache.scopes`),
  another write every scope of its collection (its command does not say which
  documents it changes).
- `PoolListener`: a failed connection takes the cache down at once.
- `watch_changes`: one change stream on the database, with the images of each changed
  document as it was (pre-images, where its collection keeps them) cut down to what
  names its property. Each change moves the version of its collection and of the scopes
  it names, and its document's id goes to the cache's journal
  (`storage.cache.change_journal`), as does each empty answer. While the stream is down
  the cache serves nothing; a new stream flushes it before it serves again (resuming
  could miss what happened meanwhile). It also tells a `StreamWatcher` (the switch gate,
  `storage.cache.switch_gate`) when it is up, each empty answer and when it sent that
  getMore, each change of `switches`, and when it is down: the gate takes its freshness
  from that instead of polling.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Protocol

from pymongo import monitoring
from pymongo.asynchronous.change_stream import AsyncChangeStream
from pymongo.errors import PyMongoError

from storage.cache.background import retrieved
from storage.cache.read_cache import ALL, ReadCache
from storage.cache.scopes import CHANGE_FIELDS, EVERYTHING, Touched, of_change, of_documents
from storage.cache.stream_support import StreamSupport, refusal
from storage.collections import (
    PERSISTED_QUERIES,
    PERSISTED_QUERY_TOTALS,
    RATE_BUDGETS,
    SWITCHES,
    Database,
)

log = logging.getLogger("floorgate.cache")

# Commands that change documents of the collection they name.
COLLECTION_WRITES = frozenset({"insert", "update", "delete", "findAndModify", "drop"})
# Commands that may change anything.
DATABASE_WRITES = frozenset({"bulkWrite", "dropDatabase", "renameCollection", "applyOps"})
# Commands that end a transaction: a commit moves what its writes named.
TRANSACTION_ENDS = frozenset({"commitTransaction", "abortTransaction"})
# What one acknowledged command moves: collections (or ALL), each within its scopes.
Written = tuple[tuple[str, Touched], ...]
# Change events that name one collection; any other kind (drop, rename, dropDatabase,
# invalidate) flushes everything.
DOCUMENT_EVENTS = frozenset({"insert", "update", "replace", "delete"})
# One getMore of the stream waits this long for a change (a change ends the wait): the
# only per-second work of an idle process (issue 45: about a millisecond and a half of
# CPU per round trip; at 1.3 s, an idle process cost 1.4-1.7x the minimal server's CPU).
# An early empty answer still vouches for the switch gate (`storage.cache.switch_gate`),
# which otherwise polls while reads come. It also bounds how long the cache stays down
# after another connection of the pool failed (the stream's own failure ends its wait).
STREAM_WAIT_MS = 5000
# The embedded server answers a waiting getMore at any write, one the stream leaves out
# too (a rate-limit bucket, a persisted document): after an early empty answer the watcher
# asks again only this much later, so a burst of such writes costs a few round trips, not
# one each (a change meanwhile is delivered by the next getMore, that much later).
EARLY_PAUSE_SECONDS = 0.05
RETRY_SECONDS = (0.1, 0.25, 0.5, 1.0, 2.0)
# Changes the stream leaves out: the rate-limit buckets change with every few requests of
# every key, persisted documents and their totals with every registration, and no read
# through the cache reads them (`storage.rate_budgets`, `storage.persisted_queries`).
# Of the rest, only what says which property changed (`storage.cache.scopes`).
PIPELINE = [
    {"$match": {"ns.coll": {"$nin": [RATE_BUDGETS, PERSISTED_QUERIES, PERSISTED_QUERY_TOTALS]}}},
    {"$project": CHANGE_FIELDS},
]
MAX_PENDING_WRITES = 10_000
# While the database refuses change streams (`storage.cache.stream_support`), the stream
# is asked for again this often: a refusal lasts until the deployment changes (a free
# stream on a hosted tier), and each attempt is a command that fails.
REFUSED_RETRY_SECONDS = 10.0
STREAM_NAME = "read cache"


class WriteListener(monitoring.CommandListener):
    """Moves a collection's version when a write to it is acknowledged (or fails: then
    what it did is unknown). A transaction's commit moves the collections its writes
    named (each write's command carries its session and transaction number), not every
    collection: an import of one location flushed every cached read and kept answer of
    every asset, and the search index of the asset read its units again (issue 47's
    rebuild after a write). A commit of a transaction whose writes were not all seen
    moves everything, as before."""

    def __init__(self, cache: ReadCache) -> None:
        self.cache = cache
        self._pending: dict[int, Written] = {}
        # What each open transaction wrote, by (session id, txn number).
        self._transactions: dict[tuple[bytes, int], dict[str, Touched]] = {}

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        name = event.command_name
        written: Written
        if name in COLLECTION_WRITES:
            target = event.command.get(name)
            collection = target if isinstance(target, str) else ALL
            touched = EVERYTHING
            if name == "insert" and collection != ALL:
                touched = of_documents(collection, event.command.get("documents") or ())
            self._in_transaction(event.command, collection, touched)
            written = ((collection, touched),)
        elif name in TRANSACTION_ENDS:
            named = self._transactions.pop(_transaction(event.command) or (b"", -1), None)
            if name != "commitTransaction":
                return  # aborted: its writes' own acknowledgements moved their versions
            if named is None or ALL in named:
                written = ((ALL, EVERYTHING),)
            else:
                written = tuple(sorted(named.items(), key=lambda each: each[0]))
        elif name in DATABASE_WRITES:
            written = ((ALL, EVERYTHING),)
        else:
            return
        if len(self._pending) >= MAX_PENDING_WRITES:  # replies lost: trust nothing
            self._pending.clear()
            self.cache.bump(ALL)
        self._pending[event.request_id] = written

    def _in_transaction(self, command: Any, collection: str, touched: Touched) -> None:
        """Note a write of an open transaction, for its commit."""
        key = _transaction(command)
        if key is None:
            return
        if key not in self._transactions and len(self._transactions) >= MAX_PENDING_WRITES:
            self._transactions.clear()  # forgotten: their commits move everything
        named = self._transactions.setdefault(key, {})
        named[collection] = _joined(named.get(collection), touched)

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        written = self._pending.pop(event.request_id, None)
        if written is not None:
            at = event.reply.get("operationTime") if isinstance(event.reply, dict) else None
            for collection, touched in written:
                self.cache.acknowledged(collection, at, touched)

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        written = self._pending.pop(event.request_id, None)
        if written is not None:  # what it did is unknown: no time vouches for it
            for collection, touched in written:
                self.cache.bump(collection, touched)


def _joined(before: Touched | None, touched: Touched) -> Touched:
    """What two writes of one collection move together."""
    if before is None:
        return touched
    if before.scopes is None or touched.scopes is None:
        return EVERYTHING
    return Touched(before.scopes | touched.scopes)


def _transaction(command: Any) -> tuple[bytes, int] | None:
    """(session id, transaction number) of a command sent in a transaction, else None (a
    retryable write outside one carries a number too, but not `autocommit: false`)."""
    session, number = command.get("lsid"), command.get("txnNumber")
    if not isinstance(session, dict) or number is None or command.get("autocommit") is not False:
        return None
    identity = session.get("id")
    return None if identity is None else (bytes(identity), int(number))


class PoolListener(monitoring.ConnectionPoolListener):
    """The driver clears a server's pool when a connection to it fails: the change
    stream may have missed changes since, so the cache stops serving at once."""

    def __init__(self, cache: ReadCache) -> None:
        self.cache = cache

    def pool_cleared(self, event: monitoring.PoolClearedEvent) -> None:
        self.cache.interrupted("connection to the database failed")

    def pool_created(self, event: monitoring.PoolCreatedEvent) -> None: ...
    def pool_ready(self, event: monitoring.PoolReadyEvent) -> None: ...
    def pool_closed(self, event: monitoring.PoolClosedEvent) -> None: ...
    def connection_created(self, event: monitoring.ConnectionCreatedEvent) -> None: ...
    def connection_ready(self, event: monitoring.ConnectionReadyEvent) -> None: ...
    def connection_closed(self, event: monitoring.ConnectionClosedEvent) -> None: ...
    def connection_check_out_started(
        self, event: monitoring.ConnectionCheckOutStartedEvent
    ) -> None: ...
    def connection_check_out_failed(
        self, event: monitoring.ConnectionCheckOutFailedEvent
    ) -> None: ...
    def connection_checked_out(self, event: monitoring.ConnectionCheckedOutEvent) -> None: ...
    def connection_checked_in(self, event: monitoring.ConnectionCheckedInEvent) -> None: ...


class StreamWatcher(Protocol):
    """Who is told what the stream says (the switch gate); times are `time.monotonic()`."""

    def stream_up(self, opened: float) -> None: ...
    def stream_quiet(self, asked: float) -> None: ...
    def stream_changed(self) -> None: ...
    def stream_down(self) -> None: ...


def apply_change(cache: ReadCache, change: dict[str, Any]) -> bool:
    """Move what `change` touched; False when the stream ends with it (invalidate)."""
    cache.stream_events += 1
    kind = change.get("operationType")
    collection = (change.get("ns") or {}).get("coll")
    if kind in DOCUMENT_EVENTS and isinstance(collection, str):
        at = change.get("clusterTime")
        document_id = (change.get("documentKey") or {}).get("_id")
        touched = of_change(change)
        cache.journal.note(collection, at, document_id, "txnNumber" in change, touched.scopes)
        if cache.already_moved(collection, at, touched):
            cache.stream_echoes += 1  # this process's own write, moved when acknowledged
        else:
            cache.bump(collection, touched)
    else:
        cache.bump(ALL)
    return kind != "invalidate"


async def watch_changes(
    db: Database,
    cache: ReadCache,
    watcher: StreamWatcher | None = None,
    support: StreamSupport | None = None,
) -> None:
    """Keep one change stream on `db` open for as long as the task runs, and tell
    `watcher` what it says (and `support` whether the database refuses streams)."""
    failures = 0
    while True:
        before = cache.interruptions
        try:
            async with await db.watch(
                PIPELINE,
                max_await_time_ms=STREAM_WAIT_MS,
                full_document_before_change="whenAvailable",
            ) as stream:
                if support is not None:
                    support.opened(STREAM_NAME)
                if cache.went_up(before):
                    if failures:
                        log.warning("change stream is back; the read cache serves again")
                    failures = 0
                    if watcher is not None:
                        watcher.stream_up(time.monotonic())
                    await follow(stream, cache, before, watcher)
                cache.went_down("restarting the change stream")
                if watcher is not None:
                    watcher.stream_down()
            await asyncio.sleep(RETRY_SECONDS[0])
        except asyncio.CancelledError:
            cache.went_down("stopped")
            if watcher is not None:
                watcher.stream_down()
            raise
        except Exception as error:  # whatever it was: stop serving, then try again
            if _stopping():  # closing the stream on a closed client raised instead
                cache.went_down("stopped")
                if watcher is not None:
                    watcher.stream_down()
                raise asyncio.CancelledError from error
            refused = refusal(error)
            if refused is not None:  # not an outage: the cache stays off, reads stay true
                if support is not None:
                    support.refuse(STREAM_NAME, refused)
                cache.went_down(f"change streams unavailable: {refused}")
                if watcher is not None:
                    watcher.stream_down()
                if failures == 0:
                    log.warning(
                        "the database refuses change streams, the read cache is off: %s", refused
                    )
                failures += 1
                await asyncio.sleep(REFUSED_RETRY_SECONDS)
                continue
            cache.went_down(_named(error))
            if watcher is not None:
                watcher.stream_down()
            if failures == 0:
                unexpected = not isinstance(error, PyMongoError)
                log.warning(
                    "change stream failed, the read cache is off until it is back: %s",
                    _named(error),
                    exc_info=unexpected,
                )
            await asyncio.sleep(RETRY_SECONDS[min(failures, len(RETRY_SECONDS) - 1)])
            failures += 1


async def answered(stream: AsyncChangeStream[Any]) -> Any:
    """`stream.try_next()`, given up at once when the caller is cancelled (a shutdown):
    pymongo's async API swallows a cancellation that arrives while it waits for the
    database, so a getMore waiting STREAM_WAIT_MS held `Store.close` that long. The
    abandoned getMore ends with its wait or its connection."""
    asked = asyncio.ensure_future(stream.try_next())
    asked.add_done_callback(retrieved)
    try:
        return await asyncio.shield(asked)
    except asyncio.CancelledError:
        asked.cancel()
        raise


async def follow(
    stream: AsyncChangeStream[Any], cache: ReadCache, before: int, watcher: StreamWatcher | None
) -> None:
    """Apply each change until the stream ends or a connection failed. An empty answer
    is a getMore sent after `asked` (`try_next` sends at most one, and only when it has
    nothing left of the last batch): every change committed before it is applied."""
    while cache.interruptions == before and stream.alive:
        asked = time.monotonic()
        change = await answered(stream)
        if change is None:
            if stream.alive and cache.interruptions == before:
                cache.journal.quiet(asked)
                if watcher is not None:
                    watcher.stream_quiet(asked)
            if time.monotonic() - asked < STREAM_WAIT_MS / 2000:  # woken early, for nothing
                await asyncio.sleep(EARLY_PAUSE_SECONDS)
            continue
        if not apply_change(cache, change):
            return
        if watcher is not None and (change.get("ns") or {}).get("coll") in (SWITCHES, None):
            watcher.stream_changed()


def _stopping() -> bool:
    """Whether this task was asked to stop. Cancelled while it waited, the stream's
    close on the way out may raise something else (pymongo's `AttributeError` of a
    client closed meanwhile) in place of the cancellation: the task then went on,
    opened a new stream and held a test session's end until its timeout (a parallel
    run of 2026-11-30: 286 s)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def _named(error: BaseException) -> str:
    """What /readyz and the log say of a stream's failure: its kind, and the server's
    error code when it gave one (`OperationFailure 280`); never its message, which may
    quote data."""
    code = getattr(error, "code", None)
    return f"{type(error).__name__} {code}" if isinstance(code, int) else type(error).__name__
