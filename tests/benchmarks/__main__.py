"""Run every benchmark module of this folder, or only those named on the command line.

A benchmark is a module here (name not starting with `_`, not the `harness` package)
with a `main() -> None`; a new one needs no registration. Example:
`python -m tests.benchmarks units_list`.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections.abc import Callable
from pathlib import Path


def discover() -> dict[str, Callable[[], None]]:
    """Benchmark name -> its `main`, in name order."""
    found: dict[str, Callable[[], None]] = {}
    for module_info in sorted(
        pkgutil.iter_modules([str(Path(__file__).parent)]), key=lambda info: info.name
    ):
        if module_info.name.startswith("_") or module_info.ispkg:
            continue
        module = importlib.import_module(f"{__package__}.{module_info.name}")
        entry = getattr(module, "main", None)
        if callable(entry):
            found[module_info.name] = entry
    return found


def run(names: list[str]) -> int:
    """Run the named benchmarks (all when none are named); 2 for an unknown name."""
    benchmarks = discover()
    unknown = [name for name in names if name not in benchmarks]
    if unknown:
        print(
            f"unknown benchmark(s): {', '.join(unknown)}; known: {', '.join(benchmarks)}",
            file=sys.stderr,
        )
        return 2
    for name in names or list(benchmarks):
        print(f"== benchmark: {name}", flush=True)
        benchmarks[name]()
    return 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
