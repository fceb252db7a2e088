"""`floorgate import`: a first import against a re-import, beside a bare `insert_many`.

One embedded database server, one process. Two datasets:

- demo: the demo property (`storage.demo.install.write_demo`: maps with drawings, level tags,
  references, attributes, locations); its first import into an empty database and its
  re-import, unchanged;
- exclusive: 2,000 units that all hold an attribute of a one-attribute-per-unit group;
  its first import and a re-import that gives every unit the group's other attribute.

The baseline, measured in the same run, is the bare `insert_many` into an empty database
of the documents the import stored (GridFS files included): the floor any importer pays.
A re-import should cost about what the first import costs (issue 14, item 6).

Run with `make bench` or `python -m tests.benchmarks import_demo`.
"""

from __future__ import annotations

import copy
import json
import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pymongo.errors import PyMongoError

from storage import collections as c
from storage.database import Store
from storage.demo.install import write_demo
from storage.imports.importer import import_dataset
from tests.benchmarks.harness.database import on_embedded
from tests.benchmarks.harness.report import run_and_report

DATABASE = "floorgate_bench_import"
UNIT_COUNT = 2000
FLOOR_COUNT = 20
RUNS = 3  # each measurement; the median is reported


def exclusive_dataset(
    attribute: str, unit_count: int = UNIT_COUNT, floor_count: int = FLOOR_COUNT
) -> dict[str, Any]:
    """`unit_count` units, each assigned `attribute` of the one-attribute-per-unit group
    (also the dataset of tests/storage/test_import_bulk.py)."""
    units = [
        {
            "id": f"unit-{n:05d}",
            "asset_id": "a1",
            "floor_id": f"floor-{n % floor_count:02d}",
            "name": f"{n:05d}",
        }
        for n in range(unit_count)
    ]
    return {
        "assets": [{"id": "a1", "market": "multifamily", "name": "Bench Tower"}],
        "floors": [
            {"id": f"floor-{n:02d}", "asset_id": "a1", "name": str(n), "sort": n}
            for n in range(floor_count)
        ],
        "units": units,
        "attribute_groups": [
            {
                "id": "status",
                "group_name": "Status",
                "one_attribute_per_unit": True,
                "attributes": [
                    {"attribute_id": "vacant", "attribute_name": "Vacant", "attribute_key": "v"},
                    {"attribute_id": "leased", "attribute_name": "Leased", "attribute_key": "l"},
                ],
            },
        ],
        "assignments": [
            {
                "group_id": "status",
                "attribute_id": attribute,
                "asset_id": "a1",
                "unit_id": unit["id"],
            }
            for unit in units
        ],
    }


@dataclass
class Row:
    name: str
    seconds: list[float] = field(default_factory=list)
    failed: str | None = None

    def cell(self) -> str:
        if self.failed is not None:
            return self.failed
        return f"{statistics.median(self.seconds) * 1000:,.0f} ms"

    def median(self) -> float | None:
        return statistics.median(self.seconds) if self.seconds and not self.failed else None


async def _fresh(store: Store) -> None:
    await store.client.drop_database(DATABASE)
    await store.ensure_indexes()


async def _dump(store: Store) -> dict[str, list[dict[str, Any]]]:
    names = [*(col.name for col in c.COLLECTIONS), "fs.files", "fs.chunks"]
    return {name: await store[name].find({}).to_list() for name in names}


async def _insert_all(store: Store, dump: dict[str, list[dict[str, Any]]]) -> None:
    for name, docs in dump.items():
        for start in range(0, len(docs), 1000):
            await store[name].insert_many(copy.deepcopy(docs[start : start + 1000]))


async def _timed(row: Row, work: Callable[..., Awaitable[Any]], *args: Any) -> None:
    if row.failed is not None:
        return
    started = time.perf_counter()
    try:
        await work(*args)
    except PyMongoError as error:  # the old importer's re-import hits the socket timeout
        elapsed = time.perf_counter() - started
        row.failed = f"failed after {elapsed:.0f} s ({type(error).__name__})"
        return
    row.seconds.append(time.perf_counter() - started)


async def measure(store: Store, folder: Path) -> list[tuple[str, list[Row]]]:
    demo_path = write_demo(folder / "demo")
    first_path, second_path = folder / "first.json", folder / "second.json"
    first_path.write_text(json.dumps(exclusive_dataset("vacant")))
    second_path.write_text(json.dumps(exclusive_dataset("leased")))

    demo = [
        Row("baseline: insert_many of the stored documents"),
        Row("first import"),
        Row("re-import, unchanged"),
    ]
    exclusive = [
        Row("baseline: insert_many of the stored documents"),
        Row("first import"),
        Row("re-import, every attribute changed"),
    ]
    for run in range(RUNS):
        await _fresh(store)
        await _timed(demo[1], import_dataset, store, demo_path)
        await _timed(demo[2], import_dataset, store, demo_path)
        dump = await _dump(store)
        await _fresh(store)
        await _timed(demo[0], _insert_all, store, dump)

        await _fresh(store)
        await _timed(exclusive[1], import_dataset, store, first_path)
        dump = await _dump(store)
        await _timed(exclusive[2], import_dataset, store, second_path)
        await _fresh(store)
        await _timed(exclusive[0], _insert_all, store, dump)
        print(f"  run {run + 1} of {RUNS} done", flush=True)
    return [("demo", demo), (f"exclusive ({UNIT_COUNT:,} units)", exclusive)]


def table(sections: list[tuple[str, list[Row]]]) -> list[str]:
    lines = ["| dataset | measurement | median | x baseline |", "|---|---|---:|---:|"]
    for name, rows in sections:
        base = rows[0].median()
        for row in rows:
            value = row.median()
            ratio = f"{value / base:.1f}x" if value is not None and base else ""
            lines.append(f"| {name} | {row.name} | {row.cell()} | {ratio} |")
    return lines


async def run(folder: Path) -> list[tuple[str, list[Row]]]:
    """Start the server, measure; the server is always stopped."""
    return await on_embedded(folder, DATABASE, lambda store: measure(store, folder))


def main() -> None:
    """Run the import benchmark and print the machine and the table (Markdown)."""
    title = f"floorgate import: demo and {UNIT_COUNT:,} exclusive assignments, {RUNS} runs each"
    run_and_report(title, run, lambda sections: [table(sections)])


if __name__ == "__main__":
    main()
