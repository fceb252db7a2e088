"""Stores, contents and snapshots shared by the tests of staged imports and their switch."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from functools import partial
from pathlib import Path
from typing import Any

import orjson
import pytest
from bson import ObjectId

import parsing.demo.drawings as drawings
import storage.demo.install as install
import storage.imports.importer as importer
import storage.imports.staging as staging
from storage import collections as col
from storage.database import Store
from storage.datasets import sections
from storage.embedded.server import EmbeddedServer
from storage.imports.importer import import_dataset
from storage.settings import Settings
from tests._dbserver import fresh_store
from tests.import_snapshots import demo_version

# The request budget of these tests' stores: a switch waits it, plus two polls (1 s).
BUDGET = 0.5
CONTENTS = (*sections.REPORTED, col.ATTRIBUTE_EVENTS, col.COUNTERS)
AT = "2026-11-30T12:00:00+00:00"  # the imports' clock: two imports of one file compare
# Small batches: the half demo's switch has a dozen and more (20 made 74 of the whole
# demo, each a transaction of its own, for no case more).
BATCH_OPERATIONS = 50


class Versions(dict[int, tuple[Path, dict[str, Any]]]):
    """Each version's dataset and the contents one transaction per version leaves, and
    `template`: a store holding version 1 as imported, which `version_one` copies."""

    template: Store


def fix_clock_and_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importer, "now", lambda: AT)
    monkeypatch.setattr(staging, "STAGED_BATCH_OPERATIONS", BATCH_OPERATIONS)


def half_demo_version(folder: Path, version: int) -> Path:
    """`demo_version` of the demo with two floors a building, not four: half its
    documents (48 units, 7 maps), with every record kind, every view and every kind of
    drawing (floors, buildings, the stack) of the whole."""
    with pytest.MonkeyPatch.context() as patch:
        for module in (drawings, install):
            patch.setattr(module, "FLOORS", (1, 2))
        return demo_version(folder, version)


@contextlib.asynccontextmanager
async def demo_versions(server: EmbeddedServer, folder: Path) -> AsyncIterator[Versions]:
    """The half demo (version 1) and a version 2 that changes everything: each one's dataset
    and the contents one transaction per version leaves; and version 1's database, kept
    while the context lasts for `version_one` to copy."""
    found = Versions()
    async with staging_store(server) as template:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(importer, "now", lambda: AT)
            found[1] = (half_demo_version(folder / "1", 1), {})
            await import_dataset(template, found[1][0])
            found[1] = (found[1][0], await contents(template))
            async with staging_store(server) as store:
                await copy_database(template, store)
                path = half_demo_version(folder / "2", 2)
                await import_dataset(store, path)
                found[2] = (path, await contents(store))
        found.template = template
        yield found


async def copy_database(source: Store, target: Store) -> None:
    """Every document of every collection of `source` inserted into `target` (a new
    database with its indexes), as they are: ids, files and the events log included."""
    for name in await source.db.list_collection_names():
        docs = await source[name].find({}).to_list(None)
        if docs:
            await target[name].insert_many(docs)


@contextlib.asynccontextmanager
async def version_one(server: EmbeddedServer, versions: Versions) -> AsyncIterator[Store]:
    """A staging store with the demo, version 1, as its import left it: copied from the
    module's import of it, a third of the CPU of importing it again (parsing the
    drawings, planning, one transaction)."""
    async with staging_store(server) as store:
        await copy_database(versions.template, store)
        yield store


def staging_settings(name: str, budget: float = BUDGET) -> Settings:
    return Settings(database_name=name, request_timeout_seconds=budget, rate_limit_per_second=0)


@contextlib.asynccontextmanager
async def staging_store(server: EmbeddedServer, budget: float = BUDGET) -> AsyncIterator[Store]:
    """A store on a new database with its indexes and a short request budget (so a
    switch waits little), dropped afterwards."""
    async with fresh_store(server, partial(staging_settings, budget=budget)) as store:
        yield store


def _plain(doc: dict[str, Any]) -> dict[str, Any]:
    """A document without what differs between two equal imports: a generated `_id`,
    and the time an event was logged."""
    out = {k: v for k, v in doc.items() if k not in ("at", "expires_at")}
    if isinstance(out.get("_id"), ObjectId):
        del out["_id"]
    return out


def _canonical(doc: dict[str, Any]) -> bytes:
    return orjson.dumps(doc, option=orjson.OPT_SORT_KEYS, default=str)


async def contents(store: Store, files: bool = True) -> dict[str, Any]:
    """Every document an import writes, comparable across databases, and (with `files`)
    the names of the stored files: a stopped import leaves files no map names, which
    `floorgate gc` removes."""
    found: dict[str, Any] = {}
    for name in CONTENTS:
        docs = [_plain(doc) async for doc in store[name].find({})]
        found[name] = sorted(docs, key=_canonical)
    if files:
        found["files"] = sorted(await store["fs.files"].distinct("filename"))
    return found


# What a staged import keeps while it runs, and nothing of it once it ended.
IN_PROGRESS = (col.SWITCHES, col.IMPORT_BATCHES, col.LEASES)
NONE_LEFT = dict.fromkeys(IN_PROGRESS, 0)


async def leftovers(store: Store) -> dict[str, int]:
    return {name: await store[name].count_documents({}) for name in IN_PROGRESS}
