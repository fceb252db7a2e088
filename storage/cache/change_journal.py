"""Which documents changed, as the change stream told them (issue 47): a bounded journal
of the read cache, so that a value derived from many documents (an asset's search index)
can read again only those that changed instead of all of them.

Each document event (insert, update, replace, delete) of a followed collection is noted
with its document's `_id` and the scopes the change named (`storage.cache.scopes`: its
asset, so that one asset's index counts only its own changes; none known: every asset's)
at the next position (positions count noted events and resets,
and never go back). The journal is complete from `start`: every change the stream
delivered from that position on is in it. A value read while the stream was up, after taking
`position`, holds every change noted before that position (the stream delivers a
change only once it is committed, and a read begun after it sees it); every later one is
in `since(position)`, for as long as that stays complete.

It is bounded by events and bytes (ids are client text: each counts its UTF-8 bytes):
past either bound the oldest go, and `start` moves past them. An id it cannot keep (too
long, or not a plain value) and a `reset` (the read cache's flush: the stream went down
or came back, a change of a whole collection or database) make everything noted before
incomplete. A collection is complete only from when it was first followed.

It also keeps how far in database time the stream has delivered, so that a reader can
wait (`reached`) until it has delivered every change of this process's acknowledged
write (at or before the write's `operationTime`). The stream delivers changes in cluster
time order, and a change outside a transaction has a time of its own: once one is
delivered, so is every change at or before its time (`through`). The changes of one
transaction share their time (on MongoDB, the commit's, which is its `operationTime`),
so one of them vouches only for the times before it (`below`): the rest of its
transaction may still be on the way. An empty answer of the stream vouches for every
change committed before its getMore was sent (`quiet`), whatever its time. (The embedded
database answers a commit with a time later than its changes', so a transaction of this
process is vouched for by a later change or by an empty answer.)
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from bson import ObjectId, Timestamp

from storage.cache.scopes import Scope

MAX_JOURNAL_IDS = 20_000
MAX_JOURNAL_BYTES = 4 * 1024 * 1024
MAX_ID_BYTES = 1024  # an API id is at most 255 characters: 1,020 bytes of UTF-8
# What an entry holds besides its id's bytes: the tuple, the deque's slot, the id's
# string header (tracemalloc: 142 bytes an entry for ids of 13 characters, 141 counted).
ENTRY_BYTES = 128
SCOPE_BYTES = 64  # each scope an entry names: the tuple and its set slot (strings counted)
DocumentId = str | int | ObjectId


class Entry(NamedTuple):
    collection: str
    document_id: DocumentId
    size: int
    scopes: frozenset[Scope] | None  # None: every scope


class ChangeJournal:
    """The ids of the documents changed, by position, bounded (see the module)."""

    def __init__(
        self, max_events: int = MAX_JOURNAL_IDS, max_bytes: int = MAX_JOURNAL_BYTES
    ) -> None:
        self.max_events = max_events
        self.max_bytes = max_bytes
        self.position = 0  # the position of the next event noted
        self.start = 0  # complete from here
        self.bytes = 0
        self.resets = 0  # times everything noted before was made incomplete
        self.through: Timestamp | None = None  # every change at or before it delivered
        self.below: Timestamp | None = None  # every change before it delivered
        self._entries: deque[Entry] = deque()
        self._followed: dict[str, int] = {}  # collection -> position it was followed from
        self._names: dict[str, str] = {}  # each followed name, one string for every entry
        # Readers waiting for a time, each with when it began to wait (monotonic).
        self._waiters: list[tuple[Timestamp, float, asyncio.Future[bool]]] = []

    def __len__(self) -> int:
        return len(self._entries)

    def follow(self, collections: Iterable[str]) -> None:
        """Note the events of `collections` from now on (idempotent)."""
        for name in collections:
            if name not in self._followed:
                self._followed[name] = self.position
                self._names[name] = name

    def note(
        self,
        collection: str,
        at: Any,
        document_id: Any,
        in_transaction: bool = False,
        scopes: frozenset[Scope] | None = None,
    ) -> None:
        """The change stream delivered a change of one document within `scopes` (None:
        not known), made at the cluster time `at` (by a transaction: another change may
        share that time)."""
        if isinstance(at, Timestamp):
            if in_transaction:
                if self.below is None or at > self.below:
                    self.below = at
            elif self.through is None or at > self.through:
                self.through = at
            self._wake(lambda waited_for, _: self.delivered(waited_for))
        name = self._names.get(collection)
        if name is None:
            return  # not followed
        size = _id_bytes(document_id)
        if size is None or size > MAX_ID_BYTES:
            self.reset()  # not kept (its position is the reset's): nothing before is known
            return
        self.position += 1
        if scopes is not None:
            size += sum(SCOPE_BYTES + len(field) + len(value) for field, value in scopes)
        entry = Entry(name, document_id, ENTRY_BYTES + size, scopes)
        self._entries.append(entry)
        self.bytes += entry.size
        while len(self._entries) > self.max_events or self.bytes > self.max_bytes:
            self.bytes -= self._entries.popleft().size
            self.start += 1

    def reset(self) -> None:
        """Everything noted so far is incomplete (events may have been missed), and no
        waiter's echo is coming: they are answered False at once. The reset takes a
        position of its own: one taken before it, even with no event noted since, is no
        longer complete (the changes made while the stream was down are in no journal)."""
        self._entries.clear()
        self.bytes = 0
        self.position += 1
        self.start = self.position
        self.resets += 1
        waiters, self._waiters = self._waiters, []
        for _, _, future in waiters:
            if not future.done():
                future.set_result(False)

    def quiet(self, asked: float) -> None:
        """The stream answered a getMore sent after `asked` (monotonic) with nothing:
        every change committed before then is delivered."""
        self._wake(lambda _, began: began <= asked)

    def delivered(self, at: Timestamp) -> bool:
        """Whether every change made at or before the cluster time `at` is delivered."""
        return (self.through is not None and at <= self.through) or (
            self.below is not None and at < self.below
        )

    def since(
        self, position: int, collections: Iterable[str], scope: Scope | None = None
    ) -> dict[str, set[DocumentId]] | None:
        """The ids of `collections` changed at `position` or later (within `scope`, or of
        no known scope), by collection; None when the journal is not complete since then
        (or a collection was not followed)."""
        wanted = {name: set[DocumentId]() for name in collections}
        if position < self.start or position > self.position:
            return None
        if any(self._followed.get(name, position + 1) > position for name in wanted):
            return None
        for entry in itertools.islice(reversed(self._entries), self.position - position):
            found = wanted.get(entry.collection)
            if found is not None and (
                scope is None or entry.scopes is None or scope in entry.scopes
            ):
                found.add(entry.document_id)
        return wanted

    async def reached(self, at: Timestamp, timeout: float) -> bool:
        """Whether the stream has delivered, or delivers within `timeout` seconds, every
        change made at or before the cluster time `at` (False at once on a reset)."""
        if self.delivered(at):
            return True
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        waiter = (at, time.monotonic(), future)
        self._waiters.append(waiter)
        try:
            return await asyncio.wait_for(asyncio.shield(future), timeout)
        except TimeoutError:
            return False
        finally:
            if waiter in self._waiters:
                self._waiters.remove(waiter)

    def _wake(self, ready: Callable[[Timestamp, float], bool]) -> None:
        """Answer True to the waiters `ready(time waited for, when it began)` says are."""
        if not self._waiters:
            return
        waiting = []
        for waiter in self._waiters:
            if ready(waiter[0], waiter[1]):
                if not waiter[2].done():
                    waiter[2].set_result(True)
            else:
                waiting.append(waiter)
        self._waiters = waiting


def _id_bytes(document_id: Any) -> int | None:
    """What an id costs to keep, or None for an id the journal does not keep."""
    if isinstance(document_id, str):
        return len(document_id.encode("utf-8", "surrogatepass"))
    if isinstance(document_id, ObjectId):
        return 12
    if isinstance(document_id, int) and not isinstance(document_id, bool):
        return 8
    return None
