"""What one worker counts for `/metrics`, and how the figures of several workers add up.

`rest/ops/metrics.py` counts and renders them; `rest/ops/metrics_folder.py` shares them
between the workers of one `floorgate serve --workers N`. Both import this module, and
neither imports the other's figures: no cycle.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from storage.command_timings import Timing

DURATION_BUCKETS = (
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
    20.0,
)
COST_BUCKETS = (1, 10, 100, 1_000, 10_000, 50_000, 100_000, 250_000)


# Every other cache's figures (`rest.ops.caches`), exported per cache (`cache` label):
# levels, added over the running workers...
CACHE_FIGURE_LEVELS = {
    "entries": "Entries kept",
    "bytes_used": "Bytes kept, keys included",
    "budget_bytes": "Byte budget",
}
# ... and counts, added over every worker that ran (another name a cache shows counts
# too, its help its name: the search indexes' `full_builds`, `fallbacks`...).
CACHE_FIGURE_COUNTS = {
    "hits": "Values served as kept (or being made)",
    "misses": "Values made or read anew",
    "evictions": "Values let go for room",
}


# The `limit` label of refusals: a key's or a keyless address's requests (429), and new
# TLS connections of an address closed before their handshake (rest/ops/tls_gate.py).
RATE_LIMITS = ("key", "address", "connection")
CACHE_COUNTS = {
    "hits": "Reads answered from the read cache",
    "misses": "Reads that went to the database and were kept",
    "bypassed": "Reads while the cache did not serve",
    "answer_hits": "Whole answers served from the cache",
    "invalidations": "Collection versions moved",
    "flushes": "Times the whole cache was dropped",
    "page_bound_hits": "Pages of lists in id order read after the last page's end, not by offset",
}
CACHE_LEVELS = {  # name -> (CacheStats attribute, help)
    "entries": ("entries", "Results and answers kept"),
    "bytes": ("bytes_used", "Bytes kept"),
    "budget_bytes": ("budget_bytes", "Byte budget (FLOORGATE_READ_CACHE_MB)"),
    "live": ("live", "Workers whose change stream is up and whose cache serves"),
    "scopes": ("scopes", "Versions kept per asset, map and document (storage/cache/scopes.py)"),
    "page_bounds": ("page_bounds", "Ends of pages kept (storage/cache/page_bounds.py)"),
}


@dataclass
class Figures:
    """What a scrape shows: one worker's figures, or those of every worker added up.
    Counts (and histograms) add up over every worker that ever wrote, as Prometheus wants
    counters never to go down; levels (gauges) only over the workers still running."""

    requests: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    durations: dict[str, Timing] = field(default_factory=dict)
    costs: Timing = field(default_factory=lambda: Timing(COST_BUCKETS))
    rate_limited: dict[str, int] = field(default_factory=lambda: dict.fromkeys(RATE_LIMITS, 0))
    commands: dict[str, Timing] = field(default_factory=dict)
    cache_counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CACHE_COUNTS, 0))
    cache_levels: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CACHE_LEVELS, 0))
    # Every other cache by name (`rest.ops.caches.flat`): its figures, levels and counts.
    caches: dict[str, dict[str, int]] = field(default_factory=dict)
    workers: int = 0  # running workers added up

    def add(self, other: Figures, running: bool = True) -> None:
        """Add another worker's figures to these (its levels only if it still runs)."""
        self.requests.update(other.requests)
        add_timings(self.durations, other.durations)
        self.costs.add(other.costs)
        add_timings(self.commands, other.commands)
        _add_counts(self.rate_limited, other.rate_limited)
        _add_counts(self.cache_counts, other.cache_counts)
        for name, figures in other.caches.items():
            mine = self.caches.setdefault(name, {})
            kept = {k: v for k, v in figures.items() if running or k not in CACHE_FIGURE_LEVELS}
            _add_counts(mine, kept)
        if running:
            _add_counts(self.cache_levels, other.cache_levels)
            self.workers += other.workers


def add_timings(into: dict[str, Timing], other: dict[str, Timing]) -> None:
    for name, timing in other.items():
        mine = into.get(name)
        if mine is None:
            mine = into[name] = Timing(timing.bounds)
        mine.add(timing)


def _add_counts(into: dict[str, int], other: dict[str, int]) -> None:
    for name, count in other.items():
        into[name] = into.get(name, 0) + count
