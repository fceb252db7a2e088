"""IMDF import of a large venue (issue 19 goal: 10 levels x 500 units in under 30 s).

The venue is `tests.venues.imdf_venues.office_tower()`: 10 levels, each with 500 offices along
10 corridors, a spine corridor, an elevator and stairs; about 5,200 units and 5,200
openings. Measured, in one run on one embedded server:

1. reading the zip and making the dataset: projection, walk paths, drawings;
2. importing that dataset (`import_venue`: validation, the parser on every drawing,
   walk graphs, one transaction);
3. the baseline: the same dataset and drawings written to a folder (`--out`) and
   imported by `floorgate import`'s importer alone, into a fresh database;
4. issue 35's goals (point 7): the sample venue and the tower imported by `floorgate
   import-imdf` in child processes (time, peak RSS) and E18 on the tower
   (`imdf_goals.py`).

Run with `make bench` or `python -m tests.benchmarks import_imdf`.
"""

from __future__ import annotations

import asyncio
import platform
import tempfile
import time
from pathlib import Path

from parsing.imdf.venue import ImdfOptions
from storage.database import Store
from storage.imdf.dataset import dataset_from_path, import_venue, write_out
from storage.imports.importer import import_dataset
from storage.limits import IMPORT_TRANSACTION_DOCUMENTS
from storage.settings import Settings
from tests.benchmarks.harness.database import on_embedded
from tests.benchmarks.imports.imdf_goals import goals
from tests.venues.imdf_venues import office_tower, zip_bytes

GOAL_SECONDS = 30.0
# The tower writes 15,033 documents (10,000 of them the units' locations on the level
# maps and the stack): within the default one-transaction limit.
MAX_DOCUMENTS = IMPORT_TRANSACTION_DOCUMENTS


def main() -> None:
    print(
        f"{platform.platform()}, {platform.processor() or platform.machine()}, "
        f"CPython {platform.python_version()}"
    )
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(bench(Path(folder)))
        print(flush=True)
        asyncio.run(goals(Path(folder) / "goals", MAX_DOCUMENTS))


async def bench(folder: Path) -> None:
    start = time.perf_counter()
    files = office_tower().files()
    archive = folder / "tower.zip"
    archive.write_bytes(zip_bytes(files))
    print(
        f"venue: {archive.stat().st_size / 1e6:.1f} MB zip, built in "
        f"{time.perf_counter() - start:.1f} s (not counted)",
        flush=True,
    )
    start = time.perf_counter()
    dataset = dataset_from_path(archive, ImdfOptions())
    made = time.perf_counter() - start
    print(f"{dataset.summary[0]}", flush=True)
    print(f"  remarks: {sum(dataset.report.counts.values())}", flush=True)
    limits = Settings().svg_limits

    async def ours(store: Store) -> float:
        begin = time.perf_counter()
        await import_venue(store, dataset, limits=limits, max_documents=MAX_DOCUMENTS)
        return time.perf_counter() - begin

    imported = await on_embedded(folder / "ours", "floorgate_bench_imdf", ours)
    written = write_out(dataset, folder / "out")

    async def baseline(store: Store) -> float:
        begin = time.perf_counter()
        await import_dataset(store, written, limits=limits, max_documents=MAX_DOCUMENTS)
        return time.perf_counter() - begin

    plain = await on_embedded(folder / "plain", "floorgate_bench_imdf_plain", baseline)
    total = made + imported
    print(f"{'read, project, walk paths, draw':<36} {made:7.2f} s")
    print(f"{'import (import_venue)':<36} {imported:7.2f} s")
    print(
        f"{'total':<36} {total:7.2f} s  (goal: < {GOAL_SECONDS:g} s: "
        f"{'met' if total < GOAL_SECONDS else 'NOT met'})"
    )
    print(
        f"{'baseline: floorgate import of the same':<36} {plain:7.2f} s  "
        f"(IMDF adds {total - plain:.2f} s)",
        flush=True,
    )
