"""Live changes of assignments, fanned out in memory: one change stream per process,
however many subscribers it has (GraphQL subscriptions, REST event streams).

The stream watches inserts into the events log (`storage.attributes.events`) and starts
with the first subscriber. Each subscriber has a bounded queue: one that does not keep
up is cut off (`Overflowed`), and nobody else waits for it. When the stream fails (the
database restarts, a connection drops), the hub opens it again and reads what it missed
from the log, so subscribers lose nothing and see nothing twice: events carry their
number, and each subscriber passes on only numbers above the last it passed on.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable

from pymongo.errors import PyMongoError

from storage import collections as c
from storage.attributes import events as log_of
from storage.attributes.events import Event
from storage.database import Store

log = logging.getLogger("floorgate.events")

MAX_QUEUED = 1_000  # events a subscriber may lag behind before it is cut off
CATCH_UP_BATCH = 500  # events read from the log at a time
STREAM_WAIT_MS = 500
RETRY_SECONDS = (0.1, 0.25, 0.5, 1.0, 2.0)
CLOSE_SECONDS = 2.0
INSERTS = [{"$match": {"operationType": "insert"}}]

Accept = Callable[[Event], bool]
StillWanted = Callable[[], Awaitable[bool]]
RECHECK_SECONDS = 5.0  # how often each subscription is asked whether it is still wanted


class Overflowed(Exception):
    """A subscriber fell more than MAX_QUEUED events behind: its stream ends, and its
    client resumes from its last cursor."""


class Subscriber:
    """One subscription's queue of the group's events it may see."""

    def __init__(self, group_id: str, accept: Accept, still_wanted: StillWanted | None) -> None:
        self.group_id = group_id
        self.accept = accept
        self.still_wanted = still_wanted
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
    """The events of one process's subscribers, from one change stream."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.subscribers: set[Subscriber] = set()
        self.last = 0  # the highest event number passed on
        self.started = asyncio.Event()  # the stream is open and the log caught up
        self.failures = 0
        self.stopping = False  # the process is stopping: no subscription lasts
        self._task: asyncio.Task[None] | None = None
        self._rechecks: asyncio.Task[None] | None = None

    async def changes(
        self,
        group_id: str,
        accept: Accept,
        after: int | None,
        still_wanted: StillWanted | None = None,
    ) -> AsyncIterator[Event]:
        """The group's events that `accept` lets through, numbered above `after` (from
        now when None), in order, for as long as the caller iterates and, asked every
        RECHECK_SECONDS, `still_wanted` says yes (a key disabled meanwhile)."""
        if self.stopping:
            return
        subscriber = Subscriber(group_id, accept, still_wanted)
        self.subscribers.add(subscriber)  # before the log is read: nothing falls between
        self._start()
        try:
            await self.started.wait()
            last = await log_of.latest(self.store) if after is None else after
            while True:  # what the log holds past the cursor
                batch = await log_of.since(self.store, last, CATCH_UP_BATCH, group_id)
                for event in batch:
                    last = event["_id"]
                    if accept(event):
                        yield event
                if len(batch) < CATCH_UP_BATCH:
                    break
            while True:
                event = await subscriber.queue.get()
                if subscriber.ended:
                    return
                if subscriber.overflowed:
                    raise Overflowed
                if event["_id"] > last:
                    last = event["_id"]
                    yield event
        finally:
            self.subscribers.discard(subscriber)

    def _start(self) -> None:
        loop = asyncio.get_running_loop()
        if self._task is None or self._task.done():
            self.started.clear()
            self._task = loop.create_task(self._watch())
        if self._rechecks is None or self._rechecks.done():
            self._rechecks = loop.create_task(self._recheck())

    async def _recheck(self) -> None:
        """Every RECHECK_SECONDS, each subscription that can be asked whether it is still
        wanted is; one that is not is ended. Off the path of the events: one loop for
        the process, not a timer per subscription and event."""
        while self.subscribers:
            await asyncio.sleep(RECHECK_SECONDS)
            for subscriber in list(self.subscribers):
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
        if self._rechecks is not None:
            self._rechecks.cancel()
        if self._task is not None:
            self._task.cancel()
            await asyncio.wait({self._task}, timeout=CLOSE_SECONDS)

    def _deliver(self, event: Event) -> None:
        if event["_id"] <= self.last:
            return
        self.last = event["_id"]
        for subscriber in list(self.subscribers):
            subscriber.offer(event)

    async def _catch_up(self) -> None:
        """What the log holds past the last event passed on (a gap while the stream was
        down, or before it opened)."""
        while True:
            batch = await log_of.since(self.store, self.last, CATCH_UP_BATCH)
            for event in batch:
                self._deliver(event)
            if len(batch) < CATCH_UP_BATCH:
                return

    async def _watch(self) -> None:
        if self.last == 0:
            self.last = await log_of.latest(self.store)
        collection = self.store[c.ATTRIBUTE_EVENTS]
        while True:
            try:
                async with await collection.watch(
                    INSERTS, max_await_time_ms=STREAM_WAIT_MS
                ) as stream:
                    await self._catch_up()
                    self.started.set()
                    if self.failures:
                        log.warning("event stream is back; missed events read from the log")
                    self.failures = 0
                    while stream.alive:
                        change = await stream.try_next()
                        if change is not None:
                            self._deliver(change["fullDocument"])
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the database went away: open it again
                delay = RETRY_SECONDS[min(self.failures, len(RETRY_SECONDS) - 1)]
                if self.failures == 0:
                    log.warning(
                        "event stream failed, opening it again: %s",
                        type(error).__name__,
                        exc_info=not isinstance(error, PyMongoError),
                    )
                self.failures += 1
                await asyncio.sleep(delay)
