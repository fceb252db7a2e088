"""Where each page of a list in id order ends, so the next page starts there (issue 67,
point 3: paging that stays flat).

The spec pages by number. Found by offset, page N makes the database walk and drop
(N - 1) x per-page documents first: O(offset) on any MongoDB, and walking every page of
100,000 units read 5 million. Kept here, per process: the last `_id` of each page
served of a list sorted by `_id` alone (its collection, filter, projection and page
size), with the version its scope had *before* the read (`storage.cache.read_cache`).
While that version holds, the documents up to that id are exactly the pages up to it,
so page N is read as "after the last id of the nearest page before it, skipping the
pages between": a walk page by page reads each document once.

Bounded in entries and bytes (an id is client text: its UTF-8 bytes count); the least
recently used lists go first. Nothing is kept while the read cache does not serve (no
change stream: no version vouches for a boundary).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

MAX_BOUNDS = 20_000  # page ends kept, over every list
MAX_BOUNDS_BYTES = 8 * 1024 * 1024
BOUND_BYTES = 120  # a page's entry beyond its id: the int, the dict slot, the id's header
LIST_BYTES = 400  # a list's entry beyond its pages: its key, its dict, the LRU slot


@dataclass
class ListBounds:
    """The page ends of one list, valid for one version of what it reads."""

    version: Hashable  # the read cache's version of the list's scope
    pages: dict[int, str] = field(default_factory=dict)  # page -> the last id on it
    bytes: int = LIST_BYTES


@dataclass(frozen=True, slots=True)
class Start:
    """Where to read page N from: after `after` (None: the list's start), skipping
    `skip` documents."""

    after: str | None
    skip: int


class PageBounds:
    """The last id of pages served, per list and version (see the module)."""

    def __init__(self, max_bounds: int = MAX_BOUNDS, max_bytes: int = MAX_BOUNDS_BYTES) -> None:
        self.max_bounds, self.max_bytes = max_bounds, max_bytes
        self._lists: OrderedDict[bytes, ListBounds] = OrderedDict()
        self.bounds = 0
        self.bytes = 0
        self.hits = 0  # pages read after a kept boundary

    def start(self, key: bytes, version: Hashable, page: int, per_page: int) -> Start:
        """Where page `page` begins: after the nearest page before it whose end is kept
        for `version`, else at the list's start."""
        known = self._lists.get(key)
        if known is None or known.version != version:
            return Start(None, (page - 1) * per_page)
        before = [number for number in known.pages if number < page]
        if not before:
            return Start(None, (page - 1) * per_page)
        nearest = max(before)
        self._lists.move_to_end(key)
        self.hits += 1
        return Start(known.pages[nearest], (page - 1 - nearest) * per_page)

    def keep(self, key: bytes, version: Hashable, page: int, last: Any) -> None:
        """Page `page`, read at `version`, ended at the id `last`. Only a string is kept:
        every id the API and imports write is one, and "after" a string finds no id of
        another type (a query compares within one type), so the page after a number
        is read by offset."""
        if not isinstance(last, str):
            return
        size = len(last.encode("utf-8", "surrogatepass"))
        known = self._lists.get(key)
        if known is None or known.version != version:
            if known is not None:
                self._drop(key)
            known = self._lists[key] = ListBounds(version)
            self.bytes += known.bytes
        if page in known.pages:
            return
        known.pages[page] = last
        known.bytes += BOUND_BYTES + size
        self.bounds += 1
        self.bytes += BOUND_BYTES + size
        self._lists.move_to_end(key)
        while (self.bounds > self.max_bounds or self.bytes > self.max_bytes) and self._lists:
            self._drop(next(iter(self._lists)))

    def _drop(self, key: bytes) -> None:
        gone = self._lists.pop(key)
        self.bounds -= len(gone.pages)
        self.bytes -= gone.bytes

    def clear(self) -> None:
        self._lists.clear()
        self.bounds = self.bytes = 0
