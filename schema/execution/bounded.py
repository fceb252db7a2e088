"""A cache bounded in bytes: every cache of GraphQL documents and what is made from them
(parses, validations, costs, plans, generated code) counts what it keeps, keys included,
so no sequence of requests can grow a process past its budgets."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class ByteLRU(Generic[K, V]):
    """A least-recently-used map bounded in bytes: each entry counts the size its owner
    gives (key included). An entry larger than the whole budget is not kept."""

    def __init__(self, max_bytes: int, evicted: Callable[[V], None] | None = None) -> None:
        self.max_bytes = max_bytes
        self.bytes = 0
        self.evicted = evicted
        self.entries: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self.hits = self.misses = self.evictions = 0  # `/metrics` (rest/ops/caches.py)

    def __contains__(self, key: object) -> bool:
        return key in self.entries

    def __len__(self) -> int:
        return len(self.entries)

    def figures(self) -> dict[str, int]:
        """What `/readyz` shows of it: entries, bytes kept (keys included), budget, and
        the gets it answered, those it did not and the entries it let go for room."""
        return {
            "entries": len(self.entries),
            "bytes_used": self.bytes,
            "budget_bytes": self.max_bytes,
            "hits": self.hits,
            "misses": self.misses,
            "evictions": self.evictions,
        }

    def get(self, key: K) -> V | None:
        found = self.entries.get(key)
        if found is None:
            self.misses += 1
            return None
        self.hits += 1
        self.entries.move_to_end(key)
        return found[0]

    def put(self, key: K, value: V, size: int) -> None:
        self.pop(key)
        if size > self.max_bytes:
            return
        self.entries[key] = (value, size)
        self.bytes += size
        while self.bytes > self.max_bytes:
            oldest = next(iter(self.entries))
            self.pop(oldest)
            self.evictions += 1

    def take(self, key: K) -> tuple[V, int] | None:
        """The entry and its size, removed without calling `evicted` (it moves elsewhere)."""
        found = self.entries.pop(key, None)
        if found is not None:
            self.bytes -= found[1]
        return found

    def pop(self, key: K) -> None:
        found = self.entries.pop(key, None)
        if found is not None:
            self.bytes -= found[1]
            if self.evicted is not None:
                self.evicted(found[0])
