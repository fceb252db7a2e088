"""How long the database takes, by command: a pymongo command listener that keeps a
histogram per command name for `/metrics` (rest/ops/metrics.py). Plain counters: storage
knows nothing of Prometheus."""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field

from pymongo import monitoring

# Upper bounds of the buckets, in seconds (Prometheus' `le`); +Inf is the count.
BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
MAX_COMMANDS = 64  # command names kept apart; any further one counts as "other"


@dataclass
class Timing:
    """Observed values (durations, costs) in buckets: per bucket (not cumulative) up to
    each bound, their count and sum, and failures. A Prometheus histogram's figures,
    kept without Prometheus (rest/ops/metrics.py renders them at scrape time)."""

    bounds: tuple[float, ...] = BUCKETS
    buckets: list[int] = field(default_factory=list)
    count: int = 0
    total: float = 0.0
    failures: int = 0

    def __post_init__(self) -> None:
        self.buckets = [0] * len(self.bounds)

    def observe(self, value: float, ok: bool = True) -> None:
        index = bisect_left(self.bounds, value)
        if index < len(self.bounds):
            self.buckets[index] += 1
        self.count += 1
        self.total += value
        if not ok:
            self.failures += 1

    def add(self, other: Timing) -> None:
        """Count another's observations here too (the same bounds: another worker's)."""
        if other.bounds != self.bounds:
            raise ValueError("timings with other bucket bounds cannot be added")
        self.buckets = [
            mine + theirs for mine, theirs in zip(self.buckets, other.buckets, strict=True)
        ]
        self.count += other.count
        self.total += other.total
        self.failures += other.failures

    def cumulative(self) -> list[tuple[str, float]]:
        """(`le`, count) pairs as Prometheus wants them, +Inf last."""
        pairs, running = [], 0
        for bound, count in zip(self.bounds, self.buckets, strict=True):
            running += count
            pairs.append((repr(float(bound)), running))
        return [*pairs, ("+Inf", self.count)]


class CommandTimings(monitoring.CommandListener):
    """Durations of every command this process's client ran, by command name."""

    def __init__(self) -> None:
        self.by_command: dict[str, Timing] = {}

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        pass

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        self._observe(event.command_name, event.duration_micros, ok=True)

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        self._observe(event.command_name, event.duration_micros, ok=False)

    def _observe(self, name: str, micros: int, ok: bool) -> None:
        timing = self.by_command.get(name)
        if timing is None:
            if len(self.by_command) >= MAX_COMMANDS:
                name = "other"
            timing = self.by_command.setdefault(name, Timing())
        timing.observe(micros / 1_000_000, ok)
