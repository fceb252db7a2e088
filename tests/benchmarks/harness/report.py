"""What every benchmark prints around its tables: the machine it ran on and its total
time, after running its measurement against an embedded database in a temporary folder."""

from __future__ import annotations

import asyncio
import os
import platform
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import date
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")
PACKAGES = (
    "graphql-core",
    "strawberry-graphql",
    "starlette",
    "pymongo",
    "orjson",
    "httpx",
    "SecantusDB",
)


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def package_version(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "?"


def machine() -> list[str]:
    """The lines of the machine a result was measured on, for docs/performance.md."""
    packages = ", ".join(f"{name} {package_version(name)}" for name in PACKAGES)
    return [
        f"date: {date.today().isoformat()}",
        f"platform: {platform.platform()}",
        f"cpu: {cpu_model()}, {os.cpu_count()} cores",
        f"python: {platform.python_implementation()} {platform.python_version()}",
        f"packages: {packages}",
    ]


def run_and_report(
    title: str,
    run: Callable[[Path], Awaitable[T]],
    tables: Callable[[T], list[list[str]]],
) -> T:
    """Print `title`, run `run` in a temporary folder (removed after), then the machine,
    each table of the result (Markdown) and the total time; the result, for checks."""
    print(title, flush=True)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="floorgate-bench-") as tmp:
        result = asyncio.run(run(Path(tmp)))
    print()
    print("\n".join(f"- {line}" for line in machine()))
    for lines in tables(result):
        print()
        print("\n".join(lines))
    print(f"\n(total {time.perf_counter() - started:.0f} s)")
    return result


class Phases:
    """Prints how long each phase of a run took, as it ends (a long run shows progress)."""

    def __init__(self) -> None:
        self.started = time.perf_counter()

    def done(self, what: str) -> None:
        print(f"  ({what}: {time.perf_counter() - self.started:.0f} s)", flush=True)
        self.started = time.perf_counter()
