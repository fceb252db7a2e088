"""Issue 35, point 6: an asset past one transaction is staged (storage/imports/staging.py)
and switched in; what it writes is exactly what one transaction would have written.

The demo (every record kind, drawings, GeoJSON, exclusive assignments and their events)
is imported, then re-imported changed, once in one transaction and once staged (the
limit lowered to 10 documents), into two databases whose contents must be equal. Half
the demo (two floors a building, `half_demo_version`) has every one of those kinds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pymongo import DeleteMany, ReplaceOne, UpdateMany, UpdateOne

import storage.imports.importer as importer
import storage.imports.staging as staging
from storage import collections as col
from storage.embedded.server import EmbeddedServer
from storage.imports import switches
from storage.imports.importer import import_dataset
from storage.imports.staging import Assign, Exclusive, StagedPlan, decoded
from tests.storage.imports.staged import contents, half_demo_version, leftovers, staging_store

AT = "2026-11-30T12:00:00+00:00"


async def test_a_staged_import_writes_what_one_transaction_writes(
    db_server: EmbeddedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(importer, "now", lambda: AT)
    switched: list[int] = []
    switch_in = switches.switch_in

    async def counted(store: Any, staged: switches.Staged) -> None:
        switched.append(staged.batches)
        await switch_in(store, staged)

    monkeypatch.setattr(switches, "switch_in", counted)
    async with staging_store(db_server) as one, staging_store(db_server) as staged:
        for version in (1, 2):
            path = half_demo_version(tmp_path / str(version), version)
            await import_dataset(one, path)
            assert len(switched) == version - 1  # one transaction: no switch
            await import_dataset(staged, path, max_documents=10)
            assert len(switched) == version and switched[-1] > 1
            assert await leftovers(staged) == {
                col.SWITCHES: 0,
                col.IMPORT_BATCHES: 0,
                col.LEASES: 0,
            }
            seen = await contents(staged)
            assert seen == await contents(one)
            assert all(seen[name] for name in (col.UNITS, col.LOCATIONS, col.ATTRIBUTE_EVENTS))
        print(switched, {name: len(docs) for name, docs in seen.items()})


def test_the_plan_overlays_what_it_replaces_patches_and_deletes_by_id() -> None:
    plan = StagedPlan()
    live = [{"_id": "u1", "name": "old"}, {"_id": "u2", "name": "two"}, {"_id": "u3"}]
    plan.add(col.UNITS, [ReplaceOne({"_id": "u1"}, {"_id": "u1", "name": "new"}, upsert=True)])
    plan.add(col.UNITS, [ReplaceOne({"_id": "u4"}, {"_id": "u4", "asset_id": "a"}, upsert=True)])
    plan.add(col.UNITS, [UpdateOne({"_id": "u2"}, {"$set": {"name": "patched"}})])
    plan.add(col.UNITS, [DeleteMany({"_id": {"$in": ["u3"]}})], last=True)
    seen = plan.overlaid(col.UNITS, "_id", ["u1", "u2", "u3", "u4"], live)
    assert sorted(seen, key=lambda d: d["_id"]) == [
        {"_id": "u1", "name": "new"},
        {"_id": "u2", "name": "patched"},
        {"_id": "u4", "asset_id": "a"},
    ]
    # A query on an array field matches any element, as the database's does.
    plan.add(col.UNIT_MAPS, [ReplaceOne({"_id": "m"}, {"_id": "m", "unit_ids": ["u1"]})])
    assert plan.overlaid(col.UNIT_MAPS, "unit_ids", {"u1"}, []) == [
        {"_id": "m", "unit_ids": ["u1"]}
    ]
    assert plan.assets == {"a"} and plan.maps == {"m"}


def test_the_plan_refuses_to_read_what_it_cannot_overlay() -> None:
    plan = StagedPlan()
    plan.add(col.ASSIGNMENTS, [UpdateMany({"group_id": "g"}, {"$set": {"exclusive": True}})])
    with pytest.raises(AssertionError, match="read assignments after writing it"):
        plan.overlaid(col.ASSIGNMENTS, "group_id", ["g"], [])
    plan.add(col.LOCATIONS, [DeleteMany({"_id": {"$in": ["l1"]}})], last=True)
    with pytest.raises(AssertionError, match="written after its delete kept for last"):
        plan.add(col.LOCATIONS, [ReplaceOne({"_id": "l1"}, {"_id": "l1"}, upsert=True)])


def test_batches_are_bounded_in_operations_and_documents_and_keep_the_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(staging, "STAGED_BATCH_OPERATIONS", 4)
    plan = StagedPlan()
    replaces = [ReplaceOne({"_id": f"l{n}"}, {"_id": f"l{n}"}, upsert=True) for n in range(6)]
    deletes = [
        DeleteMany({"_id": {"$in": ["x1", "x2", "x3"]}}),
        DeleteMany({"_id": {"$in": ["y1", "y2"]}}),
    ]
    plan.add(col.LOCATIONS, deletes, last=True)  # after everything, though added first
    plan.add(col.LOCATIONS, replaces)
    plan.add(col.UNITS, replaces[:1])
    assign = {"group_id": "g", "attribute_id": "a", "asset_id": "x", "unit_id": "u"}
    plan.add(col.ASSIGNMENTS, [Assign(assign, 2), Assign(assign, 3), Exclusive("g", True)])
    batches = plan.batches()
    codec = staging.CodecOptions()
    shape = [
        (b.collection, [type(decoded(data, codec)).__name__ for data in b.operations], b.documents)
        for b in batches
    ]
    assert shape == [
        (col.LOCATIONS, ["ReplaceOne"] * 4, 4),
        (col.LOCATIONS, ["ReplaceOne"] * 2, 2),
        (col.UNITS, ["ReplaceOne"], 1),
        (col.ASSIGNMENTS, ["Assign"], 2),  # 2 + 3 documents would pass 4: cut
        (col.ASSIGNMENTS, ["Assign", "Exclusive"], 4),
        (col.LOCATIONS, ["DeleteMany"], 3),  # 3 + 2 documents would pass 4: cut
        (col.LOCATIONS, ["DeleteMany"], 2),
    ]
    assert decoded(batches[0].operations[0], codec) == replaces[0]
    assert decoded(batches[4].operations[0], codec) == Assign(assign, 3)
    assert plan.collections == [col.ASSIGNMENTS, col.ATTRIBUTE_EVENTS, col.LOCATIONS, col.UNITS]
