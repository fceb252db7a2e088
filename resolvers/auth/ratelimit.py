"""Request rate limits: one bucket per key shared by every process, and local buckets.

`SharedLimiter` keeps each key's token bucket in MongoDB (`storage.rate_budgets`), so a
key has one budget whichever worker or machine serves it. A process takes tokens from
it a few at a time (its *allowance*, a twentieth of the burst) and spends them locally,
so most requests make no round trip; it also remembers where it last saw the shared
bucket, so a key that is out of tokens is refused without one. When the database cannot
be reached, each process limits every key on its own with the whole limit (a
`RateLimiter`), and asks the database again after a few seconds.

`RateLimiter` is a token bucket in this process's memory: the limit on requests without
a valid key (per client address), and the shared limiter's fallback.

A key may carry a limit of its own (`keys create --rate-limit`), used instead of the
default for its bucket (docs/api.md, "Rate limits").
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from dataclasses import dataclass, field

from pymongo.errors import PyMongoError

from storage.collections import CollectionHandle
from storage.database import DatabaseAway, bounded, unanswered
from storage.rate_budgets import owe, spend

Limit = tuple[float, int]  # (tokens per second, bucket size) of one key

log = logging.getLogger("floorgate.ratelimit")
ALLOWANCE_SHARE = 20  # a process takes a twentieth of the burst at a time (at least 0)
# Allowance unspent this long (the bucket's time to refill, within these bounds) is
# dropped: the shared bucket has refilled meanwhile.
ALLOWANCE_SECONDS = (1.0, 60.0)
FALLBACK_SECONDS = 5.0  # after a database error, the local buckets decide this long


class RateLimiter:
    """Token buckets in this process's memory."""

    def __init__(self, per_second: float, burst: int, max_keys: int = 100000) -> None:
        self.per_second, self.burst = per_second, max(1, burst)
        self.max_keys = max_keys
        self._buckets: dict[str, tuple[float, float]] = {}
        self.refusals = 0  # requests refused since start (/metrics)

    @property
    def enabled(self) -> bool:
        return self.per_second > 0

    def take(self, key_id: str, units: float = 1.0, limit: Limit | None = None) -> int | None:
        """Spend `units` tokens (at most a full bucket, so any request can pass when the
        bucket is full); None when allowed, else the seconds to wait before retrying.
        `limit` is the key's own, else the default."""
        if not self.enabled:
            return None
        per_second, burst = limit or (self.per_second, self.burst)
        units = min(units, float(burst))
        now = time.monotonic()
        tokens = self._tokens(key_id, now, per_second, burst)
        if tokens < units:
            self._buckets[key_id] = (tokens, now)
            self.refusals += 1
            return max(1, math.ceil((units - tokens) / per_second))
        if len(self._buckets) >= self.max_keys and key_id not in self._buckets:
            self._buckets.clear()
        self._buckets[key_id] = (tokens - units, now)
        return None

    def give_back(self, key_id: str, units: float, limit: Limit | None = None) -> None:
        """Return tokens spent for work that turned out cheaper (never above a full bucket)."""
        if not self.enabled or key_id not in self._buckets:
            return
        per_second, burst = limit or (self.per_second, self.burst)
        now = time.monotonic()
        self._buckets[key_id] = (
            min(float(burst), self._tokens(key_id, now, per_second, burst) + units),
            now,
        )

    def owe(self, key_id: str, units: float, limit: Limit | None = None) -> None:
        """Spend `units` whatever the bucket holds (work done before its size was known):
        it may go below empty, and the key waits until it has refilled."""
        if not self.enabled or units <= 0:
            return
        per_second, burst = limit or (self.per_second, self.burst)
        now = time.monotonic()
        if len(self._buckets) >= self.max_keys and key_id not in self._buckets:
            self._buckets.clear()
        self._buckets[key_id] = (self._tokens(key_id, now, per_second, burst) - units, now)

    def would_refuse(self, key_id: str) -> int | None:
        """The wait `take` would answer for one token, without spending it."""
        if not self.enabled:
            return None
        tokens = self._tokens(key_id, time.monotonic(), self.per_second, self.burst)
        if tokens >= 1.0:
            return None
        return max(1, math.ceil((1.0 - tokens) / self.per_second))

    def status(self, key_id: str, limit: Limit | None = None) -> tuple[int, int, int] | None:
        """(limit, remaining, reset) for the `RateLimit-*` headers: the bucket's size,
        the whole tokens left, and the seconds until it is full again; None when off."""
        if not self.enabled:
            return None
        per_second, burst = limit or (self.per_second, self.burst)
        tokens = self._tokens(key_id, time.monotonic(), per_second, burst)
        reset = math.ceil((burst - tokens) / per_second) if tokens < burst else 0
        return burst, max(0, math.floor(tokens)), reset

    def _tokens(self, key_id: str, now: float, per_second: float, burst: int) -> float:
        """The bucket's tokens at `now` (a new bucket is full)."""
        tokens, updated = self._buckets.get(key_id, (float(burst), now))
        return min(float(burst), tokens + (now - updated) * per_second)


@dataclass
class Seen:
    """What this process knows of one key's shared bucket."""

    allowance: float = 0.0  # tokens taken from the shared bucket, not spent yet
    allowance_until: float = 0.0  # monotonic time when unspent allowance is dropped
    tat: float = 0.0  # the bucket's arrival time as last seen: at most the real one
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)  # one round trip at a time

    def drop_stale(self) -> None:
        """Allowance unspent past its time goes: the shared bucket has refilled meanwhile."""
        if time.monotonic() > self.allowance_until:
            self.allowance = 0.0


class SharedLimiter:
    """One token bucket per key for every process, in `collection`."""

    def __init__(
        self, collection: CollectionHandle, per_second: float, burst: int, max_keys: int = 100000
    ) -> None:
        self.collection = collection
        self.per_second, self.burst = per_second, max(1, burst)
        self.max_keys = max_keys
        self.fallback = RateLimiter(per_second, burst, max_keys)
        self._seen: dict[str, Seen] = {}
        self._local_until = 0.0  # monotonic: until then the fallback decides
        self.refusals = 0  # requests refused since start (/metrics)

    @property
    def enabled(self) -> bool:
        return self.per_second > 0

    def _limit(self, key_id: str, limit: Limit | None) -> tuple[str, int, float, float]:
        """(the bucket's id, burst, seconds per token, its capacity in seconds). A key
        whose limit changes starts a bucket of the new limit, full."""
        per_second, burst = limit or (self.per_second, self.burst)
        return f"{key_id} {per_second!r}/{burst}", burst, 1.0 / per_second, burst / per_second

    async def take(self, key_id: str, units: float = 1.0, limit: Limit | None = None) -> int | None:
        """Spend `units` tokens (at most a full bucket); None when allowed, else the
        seconds to wait before retrying."""
        if not self.enabled:
            return None
        if time.monotonic() < self._local_until:
            return self._refused(self.fallback.take(key_id, units, limit))
        bucket, burst, interval, capacity = self._limit(key_id, limit)
        units = min(units, float(burst))
        seen = self._seen_of(bucket)
        if self._from_allowance(seen, units):
            return None
        async with seen.lock:  # a concurrent request of this key may have taken a batch
            if self._from_allowance(seen, units):
                return None
            if time.monotonic() < self._local_until or self._away():  # failed meanwhile
                return self._refused(self.fallback.take(key_id, units, limit))
            need = units - seen.allowance
            now = time.time()
            if seen.tat - now > capacity - need * interval:  # refused as last seen
                return self._refused(self._wait(seen.tat, need, interval, capacity, now))
            batch = min(float(burst), need + burst // ALLOWANCE_SHARE)
            try:
                with bounded(self.collection.database.client):  # the timeout in all
                    granted, seen.tat = await spend(
                        self.collection, bucket, batch, interval, capacity, now, seen.tat < now
                    )
                    if (
                        not granted
                        and batch > need
                        and seen.tat - now <= capacity - need * interval
                    ):
                        batch = need
                        granted, seen.tat = await spend(
                            self.collection, bucket, batch, interval, capacity, now, seen.tat < now
                        )
            except PyMongoError as error:
                self._database_failed(error)
                return self._refused(self.fallback.take(key_id, units, limit))
            if not granted:
                return self._refused(self._wait(seen.tat, need, interval, capacity, now))
            seen.allowance += batch - units
            seen.allowance_until = self._held_until(capacity)
            return None

    def give_back(self, key_id: str, units: float, limit: Limit | None = None) -> None:
        """Return tokens spent for work that turned out cheaper: to this process's
        allowance, which its next requests of the key spend first (no round trip)."""
        if not self.enabled or units <= 0:
            return
        if time.monotonic() < self._local_until:
            self.fallback.give_back(key_id, units, limit)
            return
        bucket, burst, _, capacity = self._limit(key_id, limit)
        seen = self._seen.get(bucket)
        if seen is not None:
            seen.drop_stale()
            seen.allowance = min(float(burst), seen.allowance + units)
            seen.allowance_until = self._held_until(capacity)

    async def owe(self, key_id: str, units: float, limit: Limit | None = None) -> None:
        """Spend `units` whatever the shared bucket holds (work done before its size was
        known: the documents a write wrote), this process's allowance first; the key's
        next requests wait until the bucket has refilled."""
        if not self.enabled or units <= 0:
            return
        if time.monotonic() < self._local_until:
            self.fallback.owe(key_id, units, limit)
            return
        bucket, _, interval, _ = self._limit(key_id, limit)
        seen = self._seen_of(bucket)
        seen.drop_stale()
        spent = min(seen.allowance, units)
        seen.allowance -= spent
        units -= spent
        if units <= 0:
            return
        if self._away():
            self.fallback.owe(key_id, units, limit)
            return
        async with seen.lock:
            try:
                with bounded(self.collection.database.client):
                    tat = await owe(self.collection, bucket, units, interval, time.time())
            except PyMongoError as error:
                self._database_failed(error)
                self.fallback.owe(key_id, units, limit)
                return
            if tat is not None:
                seen.tat = max(seen.tat, tat)

    def status(self, key_id: str, limit: Limit | None = None) -> tuple[int, int, int] | None:
        """(limit, remaining, reset) for the `RateLimit-*` headers, as this process last
        saw the shared bucket plus its own allowance."""
        if not self.enabled:
            return None
        if time.monotonic() < self._local_until:
            return self.fallback.status(key_id, limit)
        bucket, burst, interval, capacity = self._limit(key_id, limit)
        seen = self._seen.get(bucket) or Seen()
        allowance = seen.allowance if time.monotonic() <= seen.allowance_until else 0.0
        behind = max(0.0, seen.tat - time.time())  # seconds the bucket needs to be full
        tokens = allowance + max(0.0, capacity - behind) / interval
        reset = math.ceil(max(0.0, behind - allowance * interval))
        return burst, min(burst, max(0, math.floor(tokens + 1e-9))), reset

    @staticmethod
    def _held_until(capacity: float) -> float:
        """When allowance taken now is dropped unspent: after the bucket's refill time."""
        low, high = ALLOWANCE_SECONDS
        return time.monotonic() + min(max(capacity, low), high)

    def _away(self) -> bool:
        """A bounded command went unanswered (`storage.database.unanswered`): the local
        buckets decide at once, as after a failure, rather than a request waiting the
        whole selection timeout for the round trip to fail."""
        if not unanswered(self.collection.database.client):
            return False
        self._database_failed(DatabaseAway("no server answered the driver's last check"))
        return True

    def _database_failed(self, error: PyMongoError) -> None:
        """Each process limits keys on its own for a few seconds, then asks again."""
        log.warning(
            "rate limits: the database failed (%s); each process limits keys on its own for %.0f s",
            type(error).__name__,
            FALLBACK_SECONDS,
        )
        self._local_until = time.monotonic() + FALLBACK_SECONDS

    def _seen_of(self, bucket: str) -> Seen:
        seen = self._seen.get(bucket)
        if seen is None:
            if len(self._seen) >= self.max_keys:
                self._seen.clear()
            seen = self._seen[bucket] = Seen()
        return seen

    @staticmethod
    def _from_allowance(seen: Seen, units: float) -> bool:
        """Spend `units` of the allowance if it holds them (dropped once too old)."""
        seen.drop_stale()
        if seen.allowance >= units:
            seen.allowance -= units
            return True
        return False

    @staticmethod
    def _wait(tat: float, need: float, interval: float, capacity: float, now: float) -> int:
        """Whole seconds until the bucket holds `need` tokens again (at least one)."""
        return max(1, math.ceil(tat + need * interval - capacity - now - 1e-9))

    def _refused(self, wait: int | None) -> int | None:
        if wait is not None:
            self.refusals += 1
        return wait
