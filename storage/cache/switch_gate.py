"""The readers' side of a staged import's switch (`storage.imports.switches`): the switches
in progress, known to each process by polling and by its change stream, and the check of
every read of the API against them (`storage.cache.cached_reads`).

While a switch applies its batches, a read whose result holds a document of its asset
(`asset_id`, a map's `unit_map_id`, the asset or map itself by `_id`; nested documents
of an aggregation too) waits until the switch is gone, then reads again; so does a read
that finds nothing although its filter names the asset, and a count whose filter names
it, or names no asset of a collection the switch writes. A request's wait ends with its
time budget (503). A read that saw a switch end while it ran reads again at once.

What makes that enough (docs/dataset.md, "All or nothing"): a read is checked against
what the process knew of `switches` at most FRESH_SECONDS ago when it starts and when it
ends (else it asks the database first). A switch changes nothing live until its importer
has waited a request budget and two polls after announcing it, and two polls more after
writing "applying"; so a read that started before its process knew of the switch, or was
checked against an "announced" one, has ended before the first batch commits. The budget
is the largest of the importer's and of every process that reads: each records its own
in `readers` before its first poll, and again every RECORD_SECONDS (kept for
EXPIRE_SECONDS), so an import run with a shorter FLOORGATE_REQUEST_TIMEOUT_SECONDS still
waits the servers' out.

What the process knows is exact as of a moment: the start of its last poll, or, while
its change stream (`storage.cache.change_watch`) is up and no switch is known, later.
The stream reports each getMore that came back empty, with the moment it was sent: every
change committed before then has been delivered (in that batch or an earlier one), and a
switch is announced, moved and ended by writes to `switches`, which the stream carries.
So when the stream was open before the last poll started and has carried no change of
`switches` since, the process knows them exactly as of that getMore's sending. A change
of `switches` on the stream makes it poll at once.

The poller polls just before what is known goes stale, but only while reads come: a
process none of whose reads asked for QUIET_SECONDS stops polling (and its stream waits
STREAM_WAIT_MS per getMore), so idle it sends one getMore every 5 s and records its
budget every minute. Its next read finds what it knows stale, polls itself (one round
trip) and wakes the poller. Issue 45: idle, it polled every 0.75 s beside the stream;
then the stream's empty answers every 1.3 s kept it fresh, still 1.4-1.7x the minimal
server's idle CPU.

With no switch known and fresh knowledge, a read costs two clock readings more than before.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import Enum
from typing import Any, TypeVar, cast

from pymongo.errors import PyMongoError

from storage.cache.background import retrieved
from storage.cache.read_cache import ReadCache
from storage.collections import ASSETS, READERS, SWITCHES, UNIT_MAPS, Database, Document
from storage.limits import SWITCH_POLL_SECONDS

log = logging.getLogger("floorgate.switches")

FRESH_SECONDS = 2 * SWITCH_POLL_SECONDS  # an older poll is not trusted: ask the database
# The poller polls again this long before its last poll goes stale (a poll is a round
# trip): every FRESH_SECONDS - POLL_AHEAD_SECONDS, and reads still never find it stale.
POLL_AHEAD_SECONDS = SWITCH_POLL_SECONDS / 2
# No read for this long and nothing known: the poller waits for the next read to ask.
QUIET_SECONDS = 2 * FRESH_SECONDS
STOP_SECONDS = 5.0
RECORD_SECONDS = 60.0  # how often a process that reads records its request budget again
EXPIRE_SECONDS = 3 * RECORD_SECONDS  # a record not renewed for this long is not counted
KEYS = ("asset_id", "unit_map_id")  # fields that tell a document's asset or map
POLLED = dict.fromkeys(("token", "state", "assets", "maps", "collections"), 1)
T = TypeVar("T")
_monotonic = time.monotonic
Settle = Callable[[str], Awaitable[Any]]  # finish an abandoned switch of this asset


@dataclass(frozen=True, slots=True)
class Switch:
    token: str
    asset_id: str
    applying: bool
    assets: frozenset[str]
    maps: frozenset[str]
    collections: frozenset[str]

    @classmethod
    def of(cls, doc: Document) -> Switch:
        return cls(
            doc["token"],
            doc["_id"],
            doc.get("state") == "applying",
            frozenset(doc.get("assets") or [doc["_id"]]),
            frozenset(doc.get("maps") or []),
            frozenset(doc.get("collections") or []),
        )

    def holds(self, doc: Document, collection: str) -> bool:
        """Whether `doc` is a document of this switch's asset."""
        asset, unit_map = doc.get("asset_id"), doc.get("unit_map_id")
        if (isinstance(asset, str) and asset in self.assets) or (
            isinstance(unit_map, str) and unit_map in self.maps
        ):
            return True
        id_ = doc.get("_id")
        if not isinstance(id_, str):
            return False
        return (collection == ASSETS and id_ in self.assets) or (
            collection == UNIT_MAPS and id_ in self.maps
        )

    def named(self, query: Document, collection: str) -> bool | None:
        """Whether the filter names this switch's asset or maps: None when it names no
        asset or map at all. A filter that keeps only other assets (a key's scope, an
        `asset` filter) names none of this switch's documents, whatever else it names:
        its conditions all hold at once, and every document the switch writes carries
        one of its assets or none."""
        assets = _values(query.get("asset_id"))
        if assets is not None and not assets & self.assets:
            return False
        names: list[tuple[Any, frozenset[str]]] = [
            (query.get("asset_id"), self.assets),
            (query.get("unit_map_id"), self.maps),
        ]
        if collection in (ASSETS, UNIT_MAPS):
            names.append((query.get("_id"), self.assets if collection == ASSETS else self.maps))
        said = None
        for value, mine in names:
            values = _values(value)
            if values is not None:
                said = said or bool(values & mine)
        return said


def _values(value: Any) -> set[str] | None:
    """The ids a filter's condition on one field names: `x`, `{"$in": [...]}`,
    `{"$eq": x}`; None for anything else."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict) and len(value) == 1:
        inner = value.get("$in", value.get("$eq"))
        if isinstance(inner, str):
            return {inner}
        if isinstance(inner, list):
            return {item for item in inner if isinstance(item, str)}
    return None


def _nested(value: Any) -> Iterator[Document]:
    """Every document inside an aggregation's result, outermost first."""
    if isinstance(value, dict):
        yield value
        for inner in value.values():
            yield from _nested(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _nested(inner)


class Verdict(Enum):
    PASS = "pass"
    AGAIN = "again"  # a switch ended while the read ran: read again
    WAIT = "wait"  # a switch holds the result: wait for it to end, then read again


class SwitchGate:
    """The switches in progress as this process knows them, and the gate of its reads."""

    def __init__(self, db: Database, cache: ReadCache, budget: float) -> None:
        self.db = db
        self.cache = cache
        self.budget = budget  # the request budget of this process's reads
        self.reader_id = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.recorded_at = float("-inf")  # monotonic: when the budget was last recorded
        self.known: dict[str, Switch] = {}  # by token; replaced whole when it changes
        self.polled_at = float("-inf")  # monotonic start of the last successful poll
        self.clear_until = float("-inf")  # no switch known and the poll fresh until then
        self.read_at = float("-inf")  # monotonic: when a read last asked
        self._reading = asyncio.Event()  # a read asked: wakes a poller that waits for one
        self.settle: Settle | None = None  # set by the reads (`cached_reads`)
        self.polls = self.waits = self.again = 0
        self.waited_seconds = 0.0
        self._changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._polling: asyncio.Future[None] | None = None
        self._recording: asyncio.Future[None] | None = None  # the budget's write under way
        self._settling: asyncio.Task[None] | None = None
        # What the change stream said (monotonic; `change_watch` reports it here).
        self.stream_opened_at = float("inf")  # the stream up now was open by then
        self.stream_quiet_at = float("-inf")  # every change before then is delivered
        self.stream_changed_at = float("-inf")  # it last carried a change of `switches`
        self._wanted = float("-inf")  # a poll that starts after this is wanted now
        self._nudging: asyncio.Task[None] | None = None

    def clear(self) -> bool:
        """No switch is known, and the knowledge is fresh: a read needs no check (the hot
        path; it notes the read for the poller)."""
        self.read_at = now = _monotonic()
        return now < self.clear_until

    def vouched(self) -> bool:
        """Whether the stream carries every change of `switches` since the last poll: it
        was open before that poll started and has carried none of them since; and no
        switch is known (while one is, the process polls, which also finishes abandoned
        switches)."""
        return (
            not self.known
            and self.stream_opened_at <= self.polled_at
            and self.stream_changed_at < self.polled_at
        )

    def fresh_at(self) -> float:
        """The moment `known` is exact as of: the last poll's start, or the stream's word."""
        if self.vouched():
            return max(self.polled_at, self.stream_quiet_at)
        return self.polled_at

    async def current(self) -> dict[str, Switch]:
        """The switches, as known at most FRESH_SECONDS ago (polling now when that is
        older: the poller is late, the stream silent or the database away)."""
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._poll_forever())
        self.read_at = now = time.monotonic()
        self._reading.set()
        since = now - FRESH_SECONDS
        if self.fresh_at() < since:
            await self._polled_since(since)
        return self.known

    # The change stream's word (`storage.cache.change_watch.StreamWatcher`).

    def stream_up(self, opened: float) -> None:
        """A stream opened by `opened`: it vouches from the first poll after that (the
        poller's next, or a read's: none at start, which sends nothing before the first
        answers)."""
        self.stream_opened_at = opened
        self.stream_quiet_at = float("-inf")

    def stream_down(self) -> None:
        """The stream ended: what it said before stays true, it says nothing more."""
        self.stream_opened_at = float("inf")
        self.stream_quiet_at = float("-inf")

    def stream_quiet(self, asked: float) -> None:
        """A getMore sent at `asked` came back empty: every change committed before it
        has been delivered."""
        self.stream_quiet_at = max(self.stream_quiet_at, asked)
        if self.vouched():
            self.clear_until = max(self.clear_until, self.stream_quiet_at + FRESH_SECONDS)

    def stream_changed(self) -> None:
        """The stream carried a change of `switches`: poll now (until then it vouches for
        nothing, and what was known stays true as of when it was known)."""
        self.stream_changed_at = time.monotonic()
        self._nudge()

    def _nudge(self) -> None:
        """A poll that starts from now, in the background (one at a time)."""
        self._wanted = time.monotonic()
        if self._nudging is None or self._nudging.done():
            self._nudging = asyncio.get_running_loop().create_task(self._poll_wanted())

    async def _poll_wanted(self) -> None:
        try:
            while self.polled_at < self._wanted:
                await self._polled_since(self._wanted)
        except Exception as error:  # reads and the poller poll for themselves
            log.info("could not read the switches after a change: %r", error)

    async def _polled_since(self, since: float) -> None:
        """Until a poll that started at `since` or later has succeeded; one poll at a
        time, shared by every reader that waits for it."""
        while self.polled_at < since:
            polling = self._polling
            if polling is None or polling.done():
                polling = self._polling = asyncio.ensure_future(self._poll())
                polling.add_done_callback(retrieved)
            await asyncio.shield(polling)  # a cancelled reader does not cancel the poll

    async def read(
        self,
        collection: str,
        query: Document | None,
        load: Callable[[Document | None], Awaitable[T]],
        projection: Document | None = None,
        *,
        nested: bool = False,
    ) -> T:
        """`load(projection)` checked against the switches (see the module): its result
        once no switch in progress holds it. A projection without the fields that tell
        a document's asset gets them for the check (and the caller's result loses them)."""
        while True:
            before = await self.current()
            fields, added = _widened(projection, before, collection)
            result = await load(fields)
            after = await self.current()
            verdict, tokens = self._verdict(collection, query, result, before, after, nested)
            if verdict is Verdict.PASS and _widened(projection, after, collection)[0] == fields:
                if added:
                    # fields are added only to documents: one, None or a list of them
                    docs = [result] if isinstance(result, dict) else result or []
                    for doc in cast("list[Document]", docs):
                        for key in added:
                            doc.pop(key, None)
                return result
            if verdict is Verdict.WAIT:
                await self._until_gone(tokens)
            else:  # a switch ended meanwhile, or began to write what this read left out
                self.again += 1

    def _verdict(
        self,
        collection: str,
        query: Document | None,
        result: Any,
        before: dict[str, Switch],
        after: dict[str, Switch],
        nested: bool,
    ) -> tuple[Verdict, set[str]]:
        applying = [s for s in after.values() if s.applying and collection in s.collections]
        ended = [s for t, s in before.items() if t not in after and collection in s.collections]
        if not applying and not ended:
            return Verdict.PASS, set()
        switches = [*applying, *ended]
        if isinstance(result, int):  # a count: its filter says whose documents it counts
            holders = [s for s in switches if s.named(query or {}, collection) is not False]
        else:
            docs = [result] if isinstance(result, dict) else result or []
            found = list(_nested(docs)) if nested else docs
            holders = [s for s in switches if any(s.holds(d, collection) for d in found)]
            if not docs and query:
                holders += [s for s in switches if s.named(query, collection)]
        waiting = {s.token for s in holders if s in applying}
        if waiting:
            return Verdict.WAIT, waiting
        return (Verdict.AGAIN if holders else Verdict.PASS), set()

    async def _until_gone(self, tokens: set[str]) -> None:
        """Until none of these switches is in progress (bounded by the caller's budget)."""
        self.waits += 1
        start = time.monotonic()
        try:
            while tokens & (await self.current()).keys():
                changed = self._changed
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(FRESH_SECONDS):
                        await changed.wait()
        finally:
            self.waited_seconds += time.monotonic() - start

    async def _record_budget(self, now: float) -> None:
        """Record this process's request budget for importers (`switches.switch_wait`),
        before its first poll and every RECORD_SECONDS. A failure is tried again at the
        next poll; the poll itself goes on (the database is then likely away for both)."""
        # One write at a time, shared: a read's poll and the poller's, at once, wrote the
        # record twice, the second landing after a test had expired it (CI, 2026-11-30).
        recording = self._recording
        if recording is None or recording.done():
            if now - self.recorded_at < RECORD_SECONDS:
                return
            recording = self._recording = asyncio.ensure_future(self._write_budget(now))
        await asyncio.shield(recording)

    async def _write_budget(self, now: float) -> None:
        expires = datetime.now(UTC) + timedelta(seconds=EXPIRE_SECONDS)
        record = {"budget": self.budget, "expires_at": expires}
        try:
            await self.db[READERS].update_one(
                {"_id": self.reader_id}, {"$set": record}, upsert=True
            )
        except PyMongoError as error:
            log.warning("cannot record this process's request budget: %r", error)
            return
        self.recorded_at = now

    async def _poll(self) -> None:
        started = time.monotonic()
        await self._record_budget(started)
        found = await self.db[SWITCHES].find({}, POLLED).to_list()
        known = {doc["token"]: Switch.of(doc) for doc in found}
        if known != self.known:
            for token, switch in self.known.items():
                if token not in known:  # ended: what the cache kept during it is not served
                    for collection in switch.collections:
                        self.cache.bump(collection)
            self.known = known
            changed, self._changed = self._changed, asyncio.Event()
            changed.set()
        self.polled_at = max(self.polled_at, started)
        self.clear_until = float("-inf") if known else self.fresh_at() + FRESH_SECONDS
        self.polls += 1
        if known and self.settle is not None and (self._settling is None or self._settling.done()):
            self._settling = asyncio.get_running_loop().create_task(self._settle(known))

    async def _settle(self, known: dict[str, Switch]) -> None:
        """Finish the switches whose importer has stopped (`settle` checks its lease)."""
        assert self.settle is not None
        for switch in known.values():
            try:
                await self.settle(switch.asset_id)
            except Exception as error:  # the next poll tries again
                log.warning("could not finish the switch of %r: %r", switch.asset_id, error)

    async def _poll_forever(self) -> None:
        """Poll when what is known is about to go stale (a read may have polled since,
        the stream may have spoken) while reads come or a switch is known; after a
        failure, every SWITCH_POLL_SECONDS. The request budget is recorded on time
        whether or not it polls."""
        failing = False
        while True:
            await self._record_budget(time.monotonic())
            polling = self._polling
            if polling is not None and not polling.done():  # a read's: what it finds counts
                with contextlib.suppress(Exception):
                    await asyncio.shield(polling)
            now = time.monotonic()
            if now - self.read_at > QUIET_SECONDS and not self.known and not failing:
                self._reading.clear()  # `current` sets it: what it knows is then stale
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(RECORD_SECONDS):
                        await self._reading.wait()
                continue
            due = self.fresh_at() + FRESH_SECONDS - POLL_AHEAD_SECONDS - now
            if due > 0 and not failing:
                await asyncio.sleep(min(due, RECORD_SECONDS))
                continue
            try:
                await self._polled_since(time.monotonic())
                failing = False
            except asyncio.CancelledError:
                raise
            except Exception as error:  # reads poll for themselves meanwhile
                if not failing:
                    log.warning("cannot read the switches in progress: %r", error)
                failing = True
                await asyncio.sleep(SWITCH_POLL_SECONDS)

    async def stop(self) -> None:
        running = (self._task, self._polling, self._settling, self._nudging, self._recording)
        tasks = [t for t in running if t is not None]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=STOP_SECONDS)
        self._task = self._polling = self._settling = self._nudging = self._recording = None


def _widened(
    projection: Document | None, known: dict[str, Switch], collection: str
) -> tuple[Document | None, tuple[str, ...]]:
    """The projection with the fields that tell a document's asset, when a switch writes
    this collection and the projection leaves them out, and the fields it added (for the
    caller's documents to lose again)."""
    if not projection or not any(collection in s.collections for s in known.values()):
        return projection, ()
    if any(value for name, value in projection.items() if name != "_id"):  # inclusion
        added = tuple(key for key in KEYS if key not in projection)
        return (dict(projection, **dict.fromkeys(added, 1)) if added else projection), added
    added = tuple(key for key in KEYS if key in projection)  # exclusion
    kept = {name: value for name, value in projection.items() if name not in added}
    return (kept if added else projection), added
