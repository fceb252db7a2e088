"""The importer writes in bulk (issue 14, item 6): a re-import that changes every unit's
attribute of a one-attribute-per-unit group costs about what the first import costs, and
the database commands of a re-import do not grow with its records (beyond one per chunk
of ids)."""

from __future__ import annotations

import time
import uuid
from collections import Counter
from typing import Any

import pytest
import pytest_asyncio
from pymongo import monitoring

import storage.imports.importer as importer_module
from storage import collections as col
from storage.database import Store, connect
from storage.embedded.server import EmbeddedServer
from storage.imports.importer import import_data
from storage.limits import IMPORT_BATCH_OPERATIONS
from storage.settings import Settings
from tests._dbserver import fresh_store
from tests.benchmarks.imports.import_demo import exclusive_dataset

T0 = "2026-02-01T12:00:00+00:00"
# Beside other workers one bulk command of the 2,000-unit re-import (lately the insert of
# its 4,000 events, 0.6 s alone) passed the driver's 20 s socket timeout, in one of three
# parallel runs: a stall of the worker's database server under load, whose cause is not
# found (it was seen once in a serial run too, before the events log). So the module has a
# server of its own; the timed test is serial, and the count of commands, which asserts no
# time, runs beside the others with a socket timeout of 50 s (10 times db_timeout_ms).
PATIENT_DB_TIMEOUT_MS = 5000


@pytest.fixture(scope="module")
def db_server(own_db_server: EmbeddedServer) -> EmbeddedServer:
    """A 2,000-unit re-import on the shared server stalled one command past 20 s."""
    return own_db_server


def exclusive(units: int, attribute: str) -> dict[str, Any]:
    """`units` units on 10 floors, each assigned `attribute` of an exclusive group."""
    return exclusive_dataset(attribute, units, floor_count=10)


@pytest_asyncio.fixture(loop_scope="session")
async def store(db_server):
    async with fresh_store(db_server) as store:
        yield store


async def assignments(store: Store) -> list[tuple[str, str, str, str, bool]]:
    return [
        (d["group_id"], d["unit_id"], d["attribute_id"], d["asset_id"], d["exclusive"])
        for d in await store[col.ASSIGNMENTS].find({}).sort("unit_id").to_list()
    ]


@pytest.mark.serial  # a time bound: measured on idle cores
async def test_reimport_changes_2000_exclusive_assignments_quickly(store, tmp_path, monkeypatch):
    monkeypatch.setattr(importer_module, "now", lambda: T0)
    await import_data(store, exclusive(2000, "vacant"), tmp_path)
    started = time.perf_counter()
    report = await import_data(store, exclusive(2000, "leased"), tmp_path)
    elapsed = time.perf_counter() - started
    # Before: one unindexed delete per unit, ~0.1 s each; the import hit the driver's
    # 20 s socket timeout. Now a few seconds, most of it the 4,000 upserts.
    assert elapsed < 15, elapsed
    assert report.lines() == [
        "assets: 0 inserted, 1 updated",
        "floors: 0 inserted, 10 updated",
        "units: 0 inserted, 2000 updated",
        "attribute_groups: 0 inserted, 1 updated",
        "assignments: 2000 inserted, 0 updated, 2000 deleted",
        "map files: 0 stored, 0 unchanged",
    ]
    assert await assignments(store) == [
        ("status", f"unit-{n:05d}", "leased", "a1", True) for n in range(2000)
    ]


class CommandCounter(monitoring.CommandListener):
    """Names of the commands sent to one database, but not those of the asset leases
    (taken and released once per import, renewed every few seconds while it runs) nor
    the one look at the assets' switches (storage/imports/switches.py)."""

    def __init__(self, database: str) -> None:
        self.database = database
        self.commands: Counter[str] = Counter()

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        target = event.command.get(event.command_name)
        if event.database_name == self.database and target not in (col.LEASES, col.SWITCHES):
            self.commands[event.command_name] += 1

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        pass

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        pass


async def reimport_commands(db_server, tmp_path, units: int) -> Counter[str]:
    """The commands of re-importing `units` exclusive assignments, each changed."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    counter = CommandCounter(name)
    settings = Settings(database_name=name, db_timeout_ms=PATIENT_DB_TIMEOUT_MS)
    store = connect(db_server.uri, settings, event_listeners=[counter])
    try:
        await store.ensure_indexes()
        await import_data(store, exclusive(units, "vacant"), tmp_path)
        counter.commands.clear()
        await import_data(store, exclusive(units, "leased"), tmp_path)
        assert [a[2] for a in await assignments(store)] == ["leased"] * units
        return Counter(counter.commands)
    finally:
        await store.client.drop_database(name)
        await store.close()


async def test_reimport_commands_do_not_grow_with_records(db_server, tmp_path):
    small = await reimport_commands(db_server, tmp_path, 200)
    large = await reimport_commands(db_server, tmp_path, 2000)
    # Writes: one bulk command per collection and kind up to 1,000 operations: updates of
    # assets, floors, units, attribute_groups and assignments, and one delete; the
    # changes' events: one counter update (findAndModify) and one insert.
    writes = {"update": 5, "delete": 1, "findAndModify": 1, "insert": 1}
    assert dict(small) == {"find": 8, "getMore": 3, **writes}
    # Reads: the stored units are read by 100 ids ($in on the embedded server costs time
    # quadratic in its length), 2 finds for 200 units and 20 for 2,000. Writes go in
    # batches of IMPORT_BATCH_OPERATIONS (1,000): the 2,000 units take two updates, the
    # assignments' 20 deletes (by 100 ids), 1 update of `exclusive` and 2,000 upserts
    # three (the deletes stay one command, in the first batch); nothing else grows.
    assert IMPORT_BATCH_OPERATIONS == 1_000
    assert dict(large) == {"find": 8 + 18, "getMore": 3, **writes, "update": 5 + 1 + 2}
