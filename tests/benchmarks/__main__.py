"""Run every benchmark module of this folder, or only those named on the command line.

A benchmark is a module here or in a wing (name not starting with `_`, not in the
`harness` package) with a `main() -> None`; a new one needs no registration. Example:
`python -m tests.benchmarks units_list`.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections.abc import Callable
from pathlib import Path


def discover() -> dict[str, Callable[[], None]]:
    """Benchmark name -> its `main`, in name order: the modules of this folder and of its
    wings (sub-packages grouped by concern, e.g. `imports/`), `harness` aside."""
    found: dict[str, Callable[[], None]] = {}
    here = Path(__file__).parent
    for module_info in pkgutil.walk_packages([str(here)], prefix=f"{__package__}."):
        name = module_info.name.rpartition(".")[2]
        if module_info.ispkg or name.startswith("_") or ".harness" in module_info.name:
            continue
        module = importlib.import_module(module_info.name)
        entry = getattr(module, "main", None)
        if callable(entry):
            assert name not in found, f"two benchmarks named {name}"
            found[name] = entry
    return dict(sorted(found.items()))


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
