"""Per-key request rate limit: a token bucket per key, in each process.

A key may carry a limit of its own (`keys create --rate-limit`), used instead of
the default for its bucket. The workers of one `floorgate serve --workers N` split
every limit explicitly (`share`, FLOORGATE_RATE_LIMIT_SHARE): each keeps 1/N of the
rate and of the burst, so together they never allow more than the setting. Separate
instances each apply the whole setting (docs/api.md, "Rate limits").
"""

from __future__ import annotations

import math
import time

Limit = tuple[float, int]  # (tokens per second, bucket size) of one key


class RateLimiter:
    def __init__(self, per_second: float, burst: int, max_keys: int = 100000,
                 share: int = 1) -> None:  # fmt: skip
        self.share = max(1, share)
        self.per_second, self.burst = self._shared((per_second, burst))
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
        per_second, burst = self._shared(limit) if limit else (self.per_second, self.burst)
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

    def would_refuse(self, key_id: str) -> int | None:
        """The wait `take` would answer for one token, without spending it."""
        if not self.enabled:
            return None
        tokens = self._tokens(key_id, time.monotonic(), self.per_second, self.burst)
        if tokens >= 1.0:
            return None
        self.refusals += 1
        return max(1, math.ceil((1.0 - tokens) / self.per_second))

    def status(self, key_id: str, limit: Limit | None = None) -> tuple[int, int, int] | None:
        """(limit, remaining, reset) for the `RateLimit-*` headers: the bucket's size,
        the whole tokens left, and the seconds until it is full again; None when off."""
        if not self.enabled:
            return None
        per_second, burst = self._shared(limit) if limit else (self.per_second, self.burst)
        tokens = self._tokens(key_id, time.monotonic(), per_second, burst)
        reset = math.ceil((burst - tokens) / per_second) if tokens < burst else 0
        return burst, max(0, math.floor(tokens)), reset

    def _shared(self, limit: Limit) -> Limit:
        """This process's part of a limit: 1/share of the rate and of the burst (at least
        one token, so a request can always pass a full bucket)."""
        per_second, burst = limit
        return per_second / self.share, max(1, burst // self.share)

    def _tokens(self, key_id: str, now: float, per_second: float, burst: int) -> float:
        """The bucket's tokens at `now` (a new bucket is full)."""
        tokens, updated = self._buckets.get(key_id, (float(burst), now))
        return min(float(burst), tokens + (now - updated) * per_second)
