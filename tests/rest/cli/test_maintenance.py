"""`floorgate gc` and `floorgate check` (rest/cli/maintenance.py) with what staged imports
left, as real processes: check lists each switch and each set of staged batches of no
switch on a line of its own (not as a dangling reference) and exits 1; gc says what it
settled (cancelled, rolled forward, left to a running import) and which staged batches it
removed, with their tokens when verbose, and `--dry-run` only says it.

Three assets are imported, then each is imported again staged and stopped: after staging
(batches of no switch), after announcing, and after one applied batch."""

from __future__ import annotations

import os
import subprocess
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

import storage.imports.staging as staging
from storage import collections as col
from storage.database import Store
from storage.embedded.server import EmbeddedServer
from storage.imports import switches
from storage.imports.importer import import_data
from storage.imports.leases import HOST, lease_id
from tests.servers import FLOORGATE
from tests.storage.imports.staged import staging_store

pytestmark = pytest.mark.e2e

ASSETS = ("s-applying", "s-announced", "s-staged")


class Stop(RuntimeError):
    """The import stops here, as if its process died."""


def dataset(asset: str, version: int) -> dict[str, Any]:
    return {
        "assets": [{"id": asset, "market": "multifamily", "name": f"{asset} v{version}"}],
        "floors": [{"id": f"{asset}-f1", "asset_id": asset, "name": "1", "sort": 1}],
        "units": [
            {"id": f"{asset}-u{n}", "asset_id": asset, "floor_id": f"{asset}-f1", "name": f"{n}"}
            for n in range(6)
        ],
    }


def stopping(monkeypatch: pytest.MonkeyPatch, name: str, after: int = 0) -> None:
    """Make `switches.<name>` raise Stop on its call number `after` + 1."""
    real = getattr(switches, name)
    calls: list[int] = []

    async def stop(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) > after:
            raise Stop(name)
        return await real(*args, **kwargs)

    monkeypatch.setattr(switches, name, stop)


@pytest_asyncio.fixture(loop_scope="session")
async def store(db_server: EmbeddedServer, tmp_path: Path) -> AsyncIterator[Store]:
    """The three assets, each stopped at its phase of a staged re-import. (The switch's
    waits before it applies, for readers to learn of it, are cut short: no process reads
    here, and they were most of this test's time.)"""
    async with staging_store(db_server) as store:
        for asset in ASSETS:
            await import_data(store, dataset(asset, 1), tmp_path)
        for asset, phase, after in (
            ("s-staged", "switch_in", 0),
            ("s-announced", "start_applying", 0),
            ("s-applying", "apply_batch", 1),
        ):
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(staging, "STAGED_BATCH_OPERATIONS", 2)
                patch.setattr(switches, "SWITCH_POLL_SECONDS", 0.05)
                patch.setattr(switches, "APPLY_GRACE_SECONDS", 0.05)
                stopping(patch, phase, after)
                with pytest.raises(Stop):
                    await import_data(store, dataset(asset, 2), tmp_path, max_documents=3)
        yield store


def floorgate(args: list[str], uri: str, store: Store, folder: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FLOORGATE_")}
    env |= {
        "FLOORGATE_MONGODB_URI": uri,
        "FLOORGATE_DATABASE": store.db.name,
        "FLOORGATE_DATA_DIR": str(folder / "data"),
    }
    return subprocess.run([FLOORGATE, *args], env=env, capture_output=True, text=True, timeout=120)


async def test_check_and_gc_report_and_settle_what_staged_imports_left(
    store: Store, db_server: EmbeddedServer, tmp_path: Path
) -> None:
    def run(*args: str) -> subprocess.CompletedProcess:
        return floorgate(list(args), db_server.uri, store, tmp_path)

    switch = {doc["_id"]: doc async for doc in store[col.SWITCHES].find({})}
    assert sorted(switch) == ["s-announced", "s-applying"]
    orphans = await switches.orphan_batches(store, datetime.now(UTC) + timedelta(seconds=1))
    [(token, count)] = orphans.items()
    announced, applying = switch["s-announced"], switch["s-applying"]
    batches = applying["batches"]

    def since(doc: dict[str, Any]) -> str:
        return doc["since"].isoformat(timespec="seconds")

    check = run("check")
    assert check.returncode == 1
    assert check.stdout.splitlines() == [
        f"switch s-announced: a staged import announced, 0 of {announced['batches']} batches "
        f"applied, since {since(announced)}, token {announced['token']} (`floorgate gc` "
        "finishes it if its import has stopped)",
        f"switch s-applying: a staged import applying, 1 of {batches} batches applied, since "
        f"{since(applying)}, token {applying['token']} (`floorgate gc` finishes it if its "
        "import has stopped)",
        f"staged batches {token}: {count} of no switch (`floorgate gc` removes them once older "
        "than --older-than)",
    ]
    assert check.stderr == (  # not counted as dangling references
        "3 leftover(s) of staged imports: a switch in progress or left by a stopped import, "
        "or staged batches of no switch (floorgate gc).\n"
    )

    dry = run("gc", "--dry-run", "--verbose", "--older-than", "0")
    assert (dry.returncode, dry.stderr) == (0, "")
    assert dry.stdout.splitlines() == [
        "Would remove 0 unnamed file(s) and 0 orphan chunk(s).",
        f"Would cancel the switch of asset 's-announced' (token {announced['token']}).",
        f"Would roll forward the switch of asset 's-applying' from batch 1 of {batches} "
        f"(token {applying['token']}).",
        f"Would remove {count} staged batch(es) of 1 import(s) with no switch.",
        f"  would remove {count} batch(es) of token {token}",
    ]
    assert await store[col.SWITCHES].count_documents({}) == 2
    assert await switches.orphan_batches(store, datetime.now(UTC)) == orphans

    # The announced switch's import still runs (its lease is held by a live process).
    alive = {"host": HOST, "pid": os.getpid(), "owner": "test", "since": "now"}
    expires = datetime.now(UTC) + timedelta(seconds=60)
    await store[col.LEASES].insert_one(
        {"_id": lease_id("s-announced"), **alive, "expires": expires}
    )
    done = run("gc", "--older-than", "0")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines() == [
        "Removed 0 unnamed file(s) and 0 orphan chunk(s).",
        "Left the switch of asset 's-announced' to its import, which still runs.",
        f"Rolled forward the switch of asset 's-applying' from batch 1 of {batches}.",
        f"Removed {count} staged batch(es) of 1 import(s) with no switch.",
    ]
    await store[col.LEASES].delete_many({})
    last = run("gc", "--verbose")
    assert last.stdout.splitlines() == [
        "Removed 0 unnamed file(s) and 0 orphan chunk(s).",
        f"Cancelled the switch of asset 's-announced' (token {announced['token']}).",
    ]
    clean = run("check")
    assert (clean.returncode, clean.stdout, clean.stderr) == (0, "No dangling references.\n", "")
    names = {doc["_id"]: doc["name"] async for doc in store[col.ASSETS].find({})}
    assert names == {
        "s-applying": "s-applying v2",
        "s-announced": "s-announced v1",
        "s-staged": "s-staged v1",
    }
