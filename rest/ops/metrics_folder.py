"""The figures of every worker of one `floorgate serve --workers N`, for `/metrics`.

The workers share a port, so a scrape reaches one of them. Each worker writes its
figures to a folder of its own run (`floorgate serve` makes it and removes it at the
end) as `<pid>.json`, at most every `WRITE_SECONDS` and once more when it stops; the
worker a scrape reaches adds the others' files to its own live figures. The others'
figures are thus up to `WRITE_SECONDS` old. A worker that ended (uvicorn starts another
in its place) keeps its file: its counts stay in the totals, so that no counter goes
down, and its levels leave them (prometheus-client's multiprocess mode does the same).

Plain files rather than shared memory: counting stays plain Python on the request path
(`rest.ops.metrics.Metrics.observe`), and only a write a second and a scrape touch the disk.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import orjson

from rest.ops.figures import (
    CACHE_COUNTS,
    CACHE_LEVELS,
    COST_BUCKETS,
    DURATION_BUCKETS,
    RATE_LIMITS,
    Figures,
)
from storage.command_timings import BUCKETS, Timing

log = logging.getLogger("floorgate")

WRITE_SECONDS = 1.0
MAX_FILE_BYTES = 4 * 1024 * 1024  # a worker's figures are a few KB: more is not one of ours
SUFFIX = ".json"


class MetricsFolder:
    """The folder the workers of one run share; `worker` is this process's id."""

    def __init__(self, path: Path, worker: int | None = None) -> None:
        self.path = path
        self.worker = os.getpid() if worker is None else worker
        self.written = b""
        self.failed = False

    def write(self, figures: Figures) -> None:
        """Replace this worker's file (whole: a reader never sees half of one)."""
        data = encode(figures)
        if data == self.written:
            return
        target = self.path / f"{self.worker}{SUFFIX}"
        partial = target.with_name(f"{target.name}.tmp")
        try:
            partial.write_bytes(data)
            os.replace(partial, target)
        except OSError as error:
            if not self.failed:  # once, not every second
                log.warning("metrics: cannot write this worker's figures: %s", error)
            self.failed = True
            return
        self.written, self.failed = data, False

    async def keep_written(
        self, figures: Callable[[], Figures], every: float = WRITE_SECONDS
    ) -> None:
        """Write `figures()` every `every` seconds (when they changed), until cancelled."""
        while True:
            self.write(figures())
            await asyncio.sleep(every)

    def add_others(self, own: Figures) -> None:
        """Add every other worker's last written figures to `own` (this worker's)."""
        for worker, figures in self.others():
            own.add(figures, running=running(worker))

    def others(self) -> list[tuple[int, Figures]]:
        """The other workers' figures; a file that cannot be read is left out, logged."""
        found = []
        with contextlib.suppress(FileNotFoundError):  # the run is ending
            for entry in sorted(self.path.iterdir()):
                if entry.suffix != SUFFIX or not entry.stem.isdigit():
                    continue
                worker = int(entry.stem)
                if worker == self.worker:
                    continue
                try:
                    found.append((worker, decode(_read(entry))))
                except (OSError, ValueError) as problem:
                    log.warning("metrics: %s left out: %s", entry.name, problem)
        return found


def running(worker: int) -> bool:
    """Whether the process still runs (the workers are this machine's processes)."""
    try:
        os.kill(worker, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # runs, as another user
        pass
    return True


def _read(entry: Path) -> bytes:
    with entry.open("rb") as file:
        data = file.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise ValueError(f"over {MAX_FILE_BYTES} bytes")
    return data


# -- the file's format -------------------------------------------------------------------


def encode(figures: Figures) -> bytes:
    return orjson.dumps(
        {
            "requests": [[*labels, count] for labels, count in sorted(figures.requests.items())],
            "durations": {route: _timing(timing) for route, timing in figures.durations.items()},
            "costs": _timing(figures.costs),
            "commands": {name: _timing(timing) for name, timing in figures.commands.items()},
            "rate_limited": figures.rate_limited,
            "cache_counts": figures.cache_counts,
            "cache_levels": figures.cache_levels,
            "caches": figures.caches,
        }
    )


def decode(data: bytes) -> Figures:
    """ValueError for anything but what `encode` writes."""
    try:
        raw = orjson.loads(data)
        requests: Counter[tuple[str, str, str]] = Counter()
        for route, method, status, count in raw["requests"]:
            labels = (_text(route), _text(method), _text(status))
            requests[labels] += _count(count)
        figures = Figures(
            requests=requests,
            durations={
                _text(route): _timing_of(timing, DURATION_BUCKETS)
                for route, timing in raw["durations"].items()
            },
            costs=_timing_of(raw["costs"], COST_BUCKETS),
            commands={
                _text(name): _timing_of(timing, BUCKETS) for name, timing in raw["commands"].items()
            },
            rate_limited=_counts(raw["rate_limited"], RATE_LIMITS),
            cache_counts=_counts(raw["cache_counts"], CACHE_COUNTS),
            cache_levels=_counts(raw["cache_levels"], CACHE_LEVELS),
            caches=_caches(raw.get("caches", {})),
            workers=1,
        )
    except (KeyError, TypeError, AttributeError, orjson.JSONDecodeError) as error:
        raise ValueError(f"not a worker's figures ({type(error).__name__}: {error})") from None
    return figures


def _timing(timing: Timing) -> dict[str, Any]:
    return {
        "buckets": timing.buckets,
        "count": timing.count,
        "total": timing.total,
        "failures": timing.failures,
    }


def _timing_of(raw: dict[str, Any], bounds: tuple[float, ...]) -> Timing:
    timing = Timing(bounds)
    buckets = [_count(value) for value in raw["buckets"]]
    if len(buckets) != len(bounds):
        raise ValueError(f"{len(buckets)} buckets where {len(bounds)} are counted")
    timing.buckets = buckets
    timing.count, timing.failures = _count(raw["count"]), _count(raw["failures"])
    total = raw["total"]
    if not isinstance(total, int | float) or isinstance(total, bool) or total < 0:
        raise ValueError("a timing's total is not a number of 0 or more")
    timing.total = float(total)
    return timing


MAX_CACHES = 64  # caches of a worker's file, and figures of each: more is not ours
MAX_CACHE_FIGURES = 32


def _caches(raw: Any) -> dict[str, dict[str, int]]:
    if not isinstance(raw, dict) or len(raw) > MAX_CACHES:
        raise ValueError("not a worker's caches")
    found = {}
    for name, figures in raw.items():
        if not isinstance(figures, dict) or len(figures) > MAX_CACHE_FIGURES:
            raise ValueError("not a cache's figures")
        found[_text(name)] = {_text(key): _count(value) for key, value in figures.items()}
    return found


def _counts(raw: dict[str, Any], known: Iterable[str]) -> dict[str, int]:
    """The known names only, each a count (a name of another version counts 0)."""
    return {name: _count(raw.get(name, 0)) for name in known}


def _count(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"{value!r} is not a count")
    return value


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{value!r} is not a label")
    return value
