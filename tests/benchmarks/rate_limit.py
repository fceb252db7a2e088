"""Issue 30, finding 14: what the shared rate limiter (`resolvers.auth.ratelimit.SharedLimiter`,
one bucket per key in MongoDB) adds to a request, beside the in-memory bucket it replaced.

On an embedded database, with the default limit (200/s, burst 400: a process takes 20
tokens per round trip), each limiter's `take` is timed alone:

1. paced: 1,000 requests of one key at 150/s (a batch client within its limit; the
   bucket is never full, the `$inc` path);
2. flat out: 4,000 requests of one key as fast as they come, under a limit of 100,000/s
   with the same burst (the bucket refills between round trips: the `$set` path);
3. many keys: 2,000 requests over 200 keys, round-robin, flat out (each key's first
   request and every 20th make a round trip).

Goal: under 0.3 ms added per request on average.

Run with `python -m tests.benchmarks rate_limit` (about 20 s).
"""

from __future__ import annotations

import asyncio
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

from resolvers.auth.ratelimit import RateLimiter, SharedLimiter
from storage.collections import RATE_BUDGETS
from storage.database import Store
from storage.settings import Settings
from tests.benchmarks.harness.database import on_embedded
from tests.benchmarks.harness.report import run_and_report

GOAL_MS = 0.3
DATABASE = "floorgate_bench_rate_limit"
DEFAULTS = Settings()


@dataclass(frozen=True)
class Row:
    case: str
    requests: int
    shared_ms: float  # mean per take
    shared_p99_ms: float
    local_ms: float
    refused: int

    @property
    def added_ms(self) -> float:
        return self.shared_ms - self.local_ms


async def timed(take, keys: list[str], count: int, pace: float | None) -> tuple[list[float], int]:
    """Per-call milliseconds of `count` takes over `keys` (round-robin), `pace` apart."""
    times, refused = [], 0
    for n in range(count):
        started = time.perf_counter()
        wait = take(keys[n % len(keys)])
        if asyncio.iscoroutine(wait):
            wait = await wait
        times.append((time.perf_counter() - started) * 1000)
        refused += wait is not None
        if pace:
            await asyncio.sleep(pace)
    return times, refused


async def case(
    store: Store, name: str, keys: list[str], count: int, per_second: float, pace: float | None
) -> Row:
    await store[RATE_BUDGETS].delete_many({})
    shared = SharedLimiter(store[RATE_BUDGETS], per_second, DEFAULTS.rate_limit_burst)
    local = RateLimiter(per_second, DEFAULTS.rate_limit_burst)
    shared_times, refused = await timed(shared.take, keys, count, pace)
    local_times, _ = await timed(local.take, keys, count, None)
    return Row(
        name,
        count,
        statistics.fmean(shared_times),
        statistics.quantiles(shared_times, n=100)[98],
        statistics.fmean(local_times),
        refused,
    )


async def measure(store: Store) -> list[Row]:
    await store.ensure_indexes()
    await store[RATE_BUDGETS].find_one({})  # connected before anything is timed
    return [
        await case(
            store, "paced, one key, 150/s", ["k"], 1000, DEFAULTS.rate_limit_per_second, 1 / 150
        ),
        await case(store, "flat out, one key", ["k"], 4000, 100_000, None),
        await case(store, "flat out, 200 keys", [f"k{n}" for n in range(200)], 2000, 100_000, None),
    ]


def tables(rows: list[Row]) -> list[list[str]]:
    lines = [
        "| case | requests | shared mean ms | shared p99 ms | in-memory mean ms "
        "| added mean ms | refused |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    lines += [
        f"| {row.case} | {row.requests} | {row.shared_ms:.3f} | {row.shared_p99_ms:.3f} "
        f"| {row.local_ms:.4f} | {row.added_ms:.3f} | {row.refused} |"
        for row in rows
    ]
    worst = max(row.added_ms for row in rows)
    verdict = "met" if worst < GOAL_MS else "NOT met"
    return [
        lines,
        [
            f"Goal: under {GOAL_MS} ms added per request on average: {verdict} "
            f"(worst case {worst:.3f} ms)."
        ],
    ]


def main() -> None:
    async def run(folder: Path) -> list[Row]:
        return await on_embedded(folder, DATABASE, measure)

    run_and_report("Shared rate limiter: time added per request", run, tables)


if __name__ == "__main__":
    main()
