"""Live changes of assignments, fanned out in memory: one change stream per process,
however many subscribers it has (GraphQL subscriptions, REST event streams).

The stream watches inserts into the events log (`storage.attributes.events`) and every
change of an API key, and starts with the first subscriber or socket. Each subscriber
has a bounded queue: one that does not keep up is cut off (`Overflowed`), and nobody else
waits for it. When the stream fails (the database restarts, a connection drops), the hub
opens it again and reads what it missed from the log, so subscribers lose nothing and see
nothing twice: events carry their number, and each subscriber passes on only numbers
above the last it passed on.

A change of a key (disabled, deleted, its permissions or scope changed) is passed on at
once to whoever listens (`key_listeners`: the key cache, the WebSockets of the process)
and each subscription of that key is asked whether it is still wanted; when the stream
(re)opens, every one is asked, since a change may have come while it was down. Nothing
polls: a disabled key's streams end as soon as the change reaches the process.

A subscriber that resumes from a cursor reads what followed from the log CATCH_UP_BATCH
event numbers at a time (`events.between`: each read bounded by its numbers, whatever
the log holds; subscribers reading the same numbers at once share one read); its `pay`
is awaited with each read's count of events before they are passed on (the
subscription charges its key for them, as for a page of that many), and each event it
passes on takes a turn of its key's pace, as a live one does (`pacing.KeyShares`): 20
streams of one key replaying from cursor 0 took the whole event loop (an honest GET's
p95 16 -> 44 ms, and 3.3 s once in a full run of the attacks).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from functools import partial
from operator import itemgetter
from typing import Any

from pymongo.errors import PyMongoError

from storage import collections as c
from storage.attributes import events as log_of
from storage.attributes.events import Event
from storage.attributes.pacing import FAN_OUT, KeyShares
from storage.cache.background import shared
from storage.cache.stream_support import refusal
from storage.database import Store

log = logging.getLogger("floorgate.events")

MAX_QUEUED = 1_000  # events a subscriber may lag behind before it is cut off
CATCH_UP_BATCH = 500  # events read from the log at a time
STREAM_WAIT_MS = 500
RETRY_SECONDS = (0.1, 0.25, 0.5, 1.0, 2.0)
CLOSE_SECONDS = 2.0
STOP_SECONDS = 0.25  # how long `stop` waits before it cancels a task again
# A new subscription waits at most this long for the stream to open or be refused
# (`unavailable`); a database that does not answer meanwhile is an outage: it waits on.
OPEN_WAIT_SECONDS = 2.0
STREAM_NAME = "live changes"
# What the stream passes on: new events, and any change of a key.
WATCHED = [
    {
        "$match": {
            "$or": [
                {"ns.coll": c.ATTRIBUTE_EVENTS, "operationType": "insert"},
                {"ns.coll": c.API_KEYS},
            ]
        }
    }
]

Accept = Callable[[Event], bool]
StillWanted = Callable[[], Awaitable[bool]]
Pay = Callable[[int], Awaitable[None]]  # events about to be replayed from the log
KeyListener = Callable[[str | None], None]  # a key's id, or None: any key may have changed


class Overflowed(Exception):
    """A subscriber fell more than MAX_QUEUED events behind: its stream ends, and its
    client resumes from its last cursor."""


class Subscriber:
    """One subscription's queue of the group's events it may see."""

    def __init__(
        self,
        group_id: str,
        accept: Accept,
        still_wanted: StillWanted | None,
        key_id: str | None,
    ) -> None:
        self.group_id = group_id
        self.accept = accept
        self.still_wanted = still_wanted
        self.key_id = key_id
        self.queue: asyncio.Queue[Event] = asyncio.Queue(MAX_QUEUED)
        self.overflowed = False
        self.ended = False

    def end(self) -> None:
        """End the subscription now (the process stops, or its key no longer holds):
        what it holds is dropped, and its client resumes from its last cursor."""
        self.ended = True
        while not self.queue.empty():
            self.queue.get_nowait()
        self.queue.put_nowait({})

    def offer(self, event: Event) -> None:
        if self.overflowed or event["group_id"] != self.group_id or not self.accept(event):
            return
        try:
            self.queue.put_nowait(event)
        except asyncio.QueueFull:
            self.overflowed = True
            while not self.queue.empty():  # free what it held, and wake the reader
                self.queue.get_nowait()
            self.queue.put_nowait({})


class EventHub:
    """The events of one process's subscribers, and its keys' changes, from one change
    stream."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.subscribers: set[Subscriber] = set()
        self.key_listeners: list[KeyListener] = []
        self.key_changes = 0  # key changes passed on so far (and stream openings)
        self.last = 0  # the highest event number passed on
        self.started = asyncio.Event()  # the stream is open and the log caught up
        self.failures = 0
        self.stopping = False  # the process is stopping: no subscription lasts
        self._task: asyncio.Task[None] | None = None
        self._rechecks: set[asyncio.Task[None]] = set()
        self._reads: dict[tuple[str, int, int], asyncio.Future[list[Event]]] = {}
        self.shares = KeyShares()  # how fast each key's live subscriptions get events

    async def changes(
        self,
        group_id: str,
        accept: Accept,
        after: int | None,
        still_wanted: StillWanted | None = None,
        key_id: str | None = None,
        pay: Pay | None = None,
        checked: int | None = None,
    ) -> AsyncIterator[Event]:
        """The group's events that `accept` lets through, numbered above `after` (from
        now when None), in order, for as long as the caller iterates and `still_wanted`
        says yes when its key (`key_id`) changes (asked now if it changed since the
        `key_changes` the caller `checked` it at). What the log holds past `after` is
        read CATCH_UP_BATCH at a time, each batch paid for (`pay`) before it is passed on."""
        if self.stopping:
            return
        subscriber = Subscriber(group_id, accept, still_wanted, key_id)
        self.subscribers.add(subscriber)  # before the log is read: nothing falls between
        if key_id is not None:
            self.shares.join(key_id)
        self.start()
        if checked is not None and checked != self.key_changes:
            self._ask(subscriber)
        try:
            await self.started.wait()
            top = await log_of.latest(self.store)  # later events come through the queue
            last = top if after is None else after
            while last < top and not subscriber.ended:  # what the log holds past the cursor
                upto = min(last + CATCH_UP_BATCH, top)
                batch = await self._between(last, upto, group_id)
                if pay is not None:
                    await pay(len(batch))
                for event in batch:
                    if accept(event):
                        if key_id is not None:  # a replay takes its key's turns too
                            await self.shares.take(key_id)
                        yield event
                last = upto
            while True:
                event = await subscriber.queue.get()
                if subscriber.ended:
                    return
                if subscriber.overflowed:
                    raise Overflowed
                if event["_id"] > last:
                    last = event["_id"]
                    if key_id is not None:  # the key's share (its queue fills meanwhile)
                        await self.shares.take(key_id)
                    yield event
        finally:
            self.subscribers.discard(subscriber)
            if key_id is not None:
                self.shares.leave(key_id)

    async def _between(self, after: int, upto: int, group_id: str) -> list[Event]:
        """`events.between`, one read for every subscriber asking for the same numbers at
        once (streams resuming from one cursor: 20 from cursor 0 read the log once)."""
        return await shared(
            self._reads,
            (group_id, after, upto),
            partial(log_of.between, self.store, after, upto, group_id),
        )

    def start(self) -> None:
        """Open the stream if it is not open (a subscriber, or a socket that must hear of
        its key's changes, needs it)."""
        if self._task is None or self._task.done():
            self.started.clear()
            self._task = asyncio.get_running_loop().create_task(self._watch())

    async def unavailable(self) -> str | None:
        """Why live changes cannot be delivered: the database refuses change streams
        (`storage.cache.stream_support`), as this stream or the read cache's learnt. The
        stream is opened if it is not, and given OPEN_WAIT_SECONDS to open or be refused."""
        self.start()
        support = self.store.streams
        deadline = asyncio.get_running_loop().time() + OPEN_WAIT_SECONDS
        while not self.started.is_set() and support.refused is None:
            if asyncio.get_running_loop().time() >= deadline:
                break
            await asyncio.sleep(0.02)
        return None if self.started.is_set() else support.refused

    def key_changed(self, key_id: str | None) -> None:
        """Key `key_id` changed (None: any may have, the stream was down): the listeners
        hear of it, and each subscription of the key is asked whether it still holds."""
        self.key_changes += 1
        for listener in list(self.key_listeners):
            listener(key_id)
        for subscriber in list(self.subscribers):
            if key_id in (None, subscriber.key_id):
                self._ask(subscriber)

    def _ask(self, subscriber: Subscriber) -> None:
        """Whether `subscriber` is still wanted, asked in a task of its own."""
        if subscriber.still_wanted is None:
            return
        task = asyncio.get_running_loop().create_task(self._recheck(subscriber))
        self._rechecks.add(task)
        task.add_done_callback(self._rechecks.discard)

    async def _recheck(self, subscriber: Subscriber) -> None:
        wanted = subscriber.still_wanted
        if wanted is not None and not subscriber.ended and not await wanted():
            subscriber.end()

    def end_all(self) -> None:
        """The process stops: every subscription ends now, and none starts, so that the
        server need not wait for clients that would never leave."""
        self.stopping = True
        for subscriber in list(self.subscribers):
            subscriber.end()

    async def close(self) -> None:
        """Stop the stream. Its cancellation waits at most CLOSE_SECONDS: closing a
        change stream whose connection died with a restarted server was seen to take
        minutes inside the driver."""
        for task in list(self._rechecks):
            task.cancel()
        if self._task is not None:
            self._task.cancel()
            await asyncio.wait({self._task}, timeout=CLOSE_SECONDS)

    def _deliver(self, event: Event) -> None:
        if event["_id"] <= self.last:
            return
        self.last = event["_id"]
        for subscriber in list(self.subscribers):
            subscriber.offer(event)

    def _apply(self, change: dict[str, Any]) -> None:
        """One change of the stream: an event to pass on, or a key that changed."""
        if (change.get("ns") or {}).get("coll") == c.ATTRIBUTE_EVENTS:
            self._deliver(change["fullDocument"])
            return
        key_id = (change.get("documentKey") or {}).get("_id")
        self.key_changed(key_id if isinstance(key_id, str) else None)

    async def _catch_up(self) -> None:
        """What the log holds past the last event passed on (a gap while the stream was
        down, or before it opened), for the groups of the subscribers, CATCH_UP_BATCH
        numbers at a time."""
        top = await log_of.latest(self.store)
        while self.last < top:
            upto = min(self.last + CATCH_UP_BATCH, top)
            found = [
                event
                for group_id in sorted({each.group_id for each in self.subscribers})
                for event in await log_of.between(self.store, self.last, upto, group_id)
            ]
            for event in sorted(found, key=itemgetter("_id")):
                self._deliver(event)
            self.last = upto

    async def _watch(self) -> None:
        if self.last == 0:
            self.last = await log_of.latest(self.store)
        while True:
            try:
                async with await self.store.db.watch(
                    WATCHED, max_await_time_ms=STREAM_WAIT_MS
                ) as stream:
                    self.store.streams.opened(STREAM_NAME)
                    await self._catch_up()
                    self.started.set()
                    if self.failures:
                        log.warning("event stream is back; missed events read from the log")
                    self.failures = 0
                    self.key_changed(None)  # a key may have changed before the stream opened
                    while stream.alive:
                        change = await stream.try_next()
                        if change is not None:
                            began = asyncio.get_running_loop().time()
                            self._apply(change)
                            # A write's hundreds of changes come in one batch, each offered
                            # to every subscriber: one a step, so requests get through.
                            await FAN_OUT.give_way(began)
                await asyncio.sleep(RETRY_SECONDS[0])  # it ended (invalidated): open it again
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the database went away: open it again
                delay = RETRY_SECONDS[min(self.failures, len(RETRY_SECONDS) - 1)]
                refused = refusal(error)
                if refused is not None:  # no stream here: subscribers are refused (503)
                    self.store.streams.refuse(STREAM_NAME, refused)
                    for subscriber in list(self.subscribers):
                        subscriber.end()
                if self.failures == 0:
                    log.warning(
                        "event stream failed, opening it again: %s",
                        type(error).__name__,
                        exc_info=not isinstance(error, PyMongoError),
                    )
                self.failures += 1
                await asyncio.sleep(delay)


async def stop(task: asyncio.Task[None], unblock: Callable[[], None] | None = None) -> None:
    """Cancel `task` and wait until it has ended. pymongo's async API swallows a
    cancellation that arrives while it waits for the database (the task goes on as if
    never cancelled), so the task is cancelled again until it ends; `unblock` (if
    given) frees what it may wait for meanwhile, as room in a full queue."""
    while not task.done():
        task.cancel()
        if unblock is not None:
            unblock()
        await asyncio.wait({task}, timeout=STOP_SECONDS)
    if not task.cancelled():
        task.exception()  # retrieved: whatever it raised, it is over
