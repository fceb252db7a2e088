"""The largest import that fits in one transaction (issue 14): a tower of 40 floors with
4,000 units, 40 georeferenced maps with drawings and walk paths, 4,000 unit references,
4,000 assignments and 4,200 locations (the dataset of the issue), a quarter and half of
it, and one and a half times it, each imported into an empty database and re-imported
right after with every value changed.

For each it prints the documents written, the validation time, the time from the start
of the transaction to its commit, and whether it committed: MongoDB aborts a transaction
that lives longer than `transactionLifetimeLimitSeconds` (60 s by default), and the
embedded server does the same. The baseline, measured in the same run, is a bare
`insert_many` of the same documents without a transaction.

Run with `make bench` or `python -m tests.benchmarks import_large`.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from pymongo.errors import PyMongoError

import storage.imports.importer as importer
from storage import collections as c
from storage.database import Store
from storage.imports.importer import import_dataset
from storage.transactions import TransactionTooLarge
from tests.benchmarks.harness.database import on_embedded
from tests.benchmarks.harness.report import run_and_report

DATABASE = "floorgate_bench_large"
UNITS_PER_FLOOR = 100
SCALES = (10, 20, 40, 60)  # floors
BAY = 100  # canvas units per unit bay


def floor_svg(floor: int, units: list[str]) -> str:
    """A corridor with units north and south of it, a door stub to each: walk paths."""
    half = (len(units) + 1) // 2
    width = half * BAY
    rects, doors = [], [f'<line x1="0" y1="156" x2="{width}" y2="156"/>']
    for n, unit_id in enumerate(units):
        column, south = n % half, n >= half
        x, y = column * BAY, 172 if south else 0
        rects.append(f'<rect data-unit-id="{unit_id}" x="{x}" y="{y}" width="{BAY}" height="140"/>')
        door_y = 172 if south else 140
        doors.append(f'<line x1="{x + BAY / 2}" y1="156" x2="{x + BAY / 2}" y2="{door_y}"/>')
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="312" '
        'data-feet-per-unit="0.25">'
        f'<g id="level-{floor}" data-level="Floor {floor}" data-tag-floor="floor-{floor:03d}" '
        f'data-level-index="{floor}">'
        f'<g data-layer="units">{"".join(rects)}</g>'
        f'<g data-layer="paths">{"".join(doors)}</g>'
        "</g></svg>"
    )


def tower(folder: Path, floors: int, version: int = 1) -> Path:
    """The dataset with `floors` floors of UNITS_PER_FLOOR units; `version` changes
    every name, reference value, assignment and location."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "maps").mkdir(exist_ok=True)
    data: dict[str, list[dict[str, Any]]] = {
        "assets": [{"id": "tower", "market": "multifamily", "name": f"Tower v{version}"}],
        "floors": [],
        "units": [],
        "unit_maps": [],
        "unit_references": [],
        "attribute_groups": [
            {
                "id": "status",
                "group_name": "Status",
                "one_attribute_per_unit": True,
                "attributes": [
                    {"attribute_id": "vacant", "attribute_name": "Vacant", "attribute_key": "v"},
                    {"attribute_id": "leased", "attribute_name": "Leased", "attribute_key": "l"},
                ],
            }
        ],
        "assignments": [],
        "locations": [],
    }
    for floor in range(1, floors + 1):
        floor_id, map_id = f"floor-{floor:03d}", f"map-{floor:03d}"
        units = [f"u-{floor:03d}-{n:03d}" for n in range(UNITS_PER_FLOOR)]
        (folder / "maps" / f"{map_id}.svg").write_text(floor_svg(floor, units))
        width = ((len(units) + 1) // 2) * BAY
        data["floors"].append(
            {"id": floor_id, "asset_id": "tower", "name": str(floor), "sort": floor}
        )
        data["unit_maps"].append(
            {
                "id": map_id,
                "asset_id": "tower",
                "name": f"Floor {floor}",
                "svg": f"maps/{map_id}.svg",
                "routing_tier": "basic",
                "georeference": {
                    "control_points": [
                        {"x": 0, "y": 0, "lon": -122.34, "lat": 47.6},
                        {"x": width, "y": 0, "lon": -122.34 + width * 1e-6, "lat": 47.6},
                        {"x": 0, "y": 312, "lon": -122.34, "lat": 47.6 - 312e-6},
                    ]
                },
            }
        )
        for n, unit_id in enumerate(units):
            data["units"].append(
                {
                    "id": unit_id,
                    "asset_id": "tower",
                    "floor_id": floor_id,
                    "name": f"{floor}{n:02d}-{version}",
                }
            )
            value = f"{unit_id}-{version}"
            data["unit_references"].append(
                {"asset_id": "tower", "unit_id": unit_id, "key": "pms", "value": value}
            )
            attribute = ("vacant", "leased")[(n + version) % 2]
            data["assignments"].append(
                {
                    "group_id": "status",
                    "attribute_id": attribute,
                    "asset_id": "tower",
                    "unit_id": unit_id,
                }
            )
        for n in range(UNITS_PER_FLOOR + 5):
            data["locations"].append(
                {
                    "id": f"loc-{floor:03d}-{n:03d}",
                    "asset_id": "tower",
                    "unit_map_id": map_id,
                    "name": f"Point {n}",
                    "x": (n * 47 + version) % width,
                    "y": 156,
                    "floors": [{"id": floor_id}],
                    "tags": [{"key": "svc:amenity", "value": "yes"}],
                }
            )
    path = folder / "dataset.json"
    path.write_text(json.dumps(data))
    return path


async def _documents(store: Store) -> dict[str, list[dict[str, Any]]]:
    names = [col.name for col in c.COLLECTIONS if col.name != c.LEASES]
    return {name: await store[name].find({}).to_list() for name in names}


async def _timed_import(store: Store, path: Path) -> tuple[float, float, str]:
    """(seconds in all, seconds from the first transaction's start to the last commit,
    outcome)."""
    spans: list[float] = []
    original = importer.in_transaction

    async def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return await original(*args, **kwargs)
        finally:
            spans.append(time.perf_counter() - started)

    importer.in_transaction = timed  # type: ignore[assignment]
    started = time.perf_counter()
    try:
        # No document limit: this measures what the server takes in one transaction.
        await import_dataset(store, path, max_documents=10**9)
        outcome = "committed"
    except (PyMongoError, TransactionTooLarge) as error:
        outcome = f"failed: {type(error).__name__}: {str(error)[:120]}"
    finally:
        importer.in_transaction = original  # type: ignore[assignment]
    return time.perf_counter() - started, sum(spans), outcome


async def measure(store: Store, folder: Path) -> list[str]:
    rows = [
        "| floors | units | documents | import | in the transaction | outcome | "
        "baseline insert_many |",
        "|---:|---:|---:|---:|---:|---|---:|",
    ]
    for floors in SCALES:
        await store.client.drop_database(DATABASE)
        await store.ensure_indexes()
        first = tower(folder / f"{floors}-v1", floors, 1)
        second = tower(folder / f"{floors}-v2", floors, 2)
        measured = [await _timed_import(store, first)]
        dump = await _documents(store)
        measured.append(await _timed_import(store, second))  # right after, as in use
        await store.client.drop_database(DATABASE)
        started = time.perf_counter()
        for name, docs in dump.items():
            for at in range(0, len(docs), 1000):
                await store[name].insert_many(docs[at : at + 1000])
        base = f"{time.perf_counter() - started:.1f} s"
        count = sum(len(docs) for name, docs in dump.items() if not name.startswith("fs"))
        for label, (total, inside, outcome) in zip(("first", "re-import"), measured, strict=True):
            rows.append(
                f"| {floors} ({label}) | {floors * UNITS_PER_FLOOR:,} | {count:,} | "
                f"{total:.1f} s | {inside:.1f} s | {outcome} | "
                f"{base if label == 'first' else ''} |"
            )
            print(rows[-1], flush=True)
    return rows


async def run(folder: Path) -> list[str]:
    """Start the server, measure; the server is always stopped."""
    return await on_embedded(folder, DATABASE, lambda store: measure(store, folder))


def main() -> None:
    """Import towers of growing size in one transaction each; print the table."""
    title = (
        f"floorgate import: towers of {', '.join(map(str, SCALES))} floors, one transaction each"
    )
    run_and_report(title, run, lambda rows: [rows])


if __name__ == "__main__":
    main()
