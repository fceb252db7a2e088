"""Issue 35, point 6: a staged import stopped at any phase of its switch
(storage/imports/switches.py) leaves the old version (staged, announced) or, once rolled
forward by the next import of the asset, `floorgate gc` or a process that reads, exactly
the new one; gc removes what is garbage and check reports it.

The demo, half of it (two floors a building), is imported (version 1), then version 2
is imported staged (the limit lowered, batches of 50 operations) and stopped: by an
exception from the step after the phase, or by cancelling the import's task. Contents are
compared with a database where the two versions were imported in one transaction each."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import pytest_asyncio

from storage import collections as col
from storage.cache import cached_reads
from storage.database import Store, connect
from storage.demo.install import ASSET_ID
from storage.embedded.server import EmbeddedServer
from storage.imports import switches
from storage.imports.importer import import_dataset
from storage.imports.integrity import collect_garbage, find_dangling
from storage.limits import SWITCH_POLL_SECONDS
from tests.storage.imports.staged import (
    NONE_LEFT,
    Versions,
    contents,
    demo_versions,
    fix_clock_and_batches,
    leftovers,
    staging_settings,
    staging_store,
    version_one,
)

SMALL = 10  # documents: the half demo (about 500) goes the staged way


class Stop(RuntimeError):
    """The import stops here, as if its process died."""


@pytest.fixture(autouse=True)
def fixed_clock_and_small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    fix_clock_and_batches(monkeypatch)


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def versions(
    db_server: EmbeddedServer, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Versions]:
    async with demo_versions(db_server, tmp_path_factory.mktemp("versions")) as found:
        yield found


@pytest_asyncio.fixture(loop_scope="session")
async def store(db_server: EmbeddedServer, versions: Versions) -> AsyncIterator[Store]:
    async with version_one(db_server, versions) as store:
        yield store


def stop_at(
    monkeypatch: pytest.MonkeyPatch, name: str, after: int = 0
) -> Callable[..., Awaitable[Any]]:
    """Make `switches.<name>` raise Stop on its call number `after` + 1."""
    real = getattr(switches, name)
    calls: list[int] = []

    async def stopping(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) > after:
            raise Stop(name)
        return await real(*args, **kwargs)

    monkeypatch.setattr(switches, name, stopping)
    return real


async def old_version(store: Store, versions: dict[int, Any]) -> bool:
    """The documents of version 1 (files of version 2 may be stored, named by nothing)."""
    expected = {k: v for k, v in versions[1][1].items() if k != "files"}
    dangling = (await find_dangling(store)).dangling  # (leftovers of the switch are apart)
    return await contents(store, files=False) == expected and dangling == []


async def staged_import(store: Store, versions: dict[int, Any]) -> None:
    await import_dataset(store, versions[2][0], max_documents=SMALL)


async def test_stopped_after_staging_nothing_changed_and_gc_removes_the_batches(
    store: Store, versions: dict[int, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    stop_at(monkeypatch, "switch_in")
    with pytest.raises(Stop):
        await staged_import(store, versions)
    assert await old_version(store, versions)
    left = await leftovers(store)
    assert left[col.SWITCHES] == 0 and left[col.IMPORT_BATCHES] > 1
    report = await find_dangling(store)
    assert report.dangling == [] and not report.clean
    assert [str(leftover).split(": ", 1)[1] for leftover in report.leftovers] == [
        f"{left[col.IMPORT_BATCHES]} of no switch (`floorgate gc` removes them once older "
        "than --older-than)"
    ]
    kept = await collect_garbage(store)  # younger than an hour: an import may be staging
    assert kept.batches == {} and (await leftovers(store))[col.IMPORT_BATCHES] > 1
    removed = await collect_garbage(store, timedelta(0))
    assert list(removed.batches.values()) == [left[col.IMPORT_BATCHES]]
    assert await leftovers(store) == NONE_LEFT
    assert (await find_dangling(store)).clean
    assert await old_version(store, versions)


async def test_stopped_after_announcing_nothing_changed_and_gc_cancels_it(
    store: Store, versions: dict[int, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    stop_at(monkeypatch, "start_applying")
    with pytest.raises(Stop):
        await staged_import(store, versions)
    assert await old_version(store, versions)
    switch = await store[col.SWITCHES].find_one({"_id": ASSET_ID})
    assert switch is not None and switch["state"] == "announced"
    report = await find_dangling(store)
    assert report.dangling == []
    assert str(report.leftovers[0]).startswith(
        f"switch {ASSET_ID}: a staged import announced, 0 of {switch['batches']} batches"
    )
    dry = await collect_garbage(store, dry_run=True)
    assert dry.switches == [switches.Settled(ASSET_ID, switch["token"], "cancelled")]
    assert (await leftovers(store))[col.SWITCHES] == 1
    done = await collect_garbage(store)
    assert done.switches == [switches.Settled(ASSET_ID, switch["token"], "cancelled")]
    assert await leftovers(store) == NONE_LEFT
    assert await old_version(store, versions)


@pytest.mark.parametrize("applied", [1, 7])
async def test_stopped_while_applying_gc_rolls_it_forward(
    store: Store, versions: dict[int, Any], monkeypatch: pytest.MonkeyPatch, applied: int
) -> None:
    real = stop_at(monkeypatch, "apply_batch", after=applied)
    with pytest.raises(Stop):
        await staged_import(store, versions)
    switch = await store[col.SWITCHES].find_one({"_id": ASSET_ID})
    assert switch is not None and (switch["state"], switch["applied"]) == ("applying", applied)
    assert await contents(store) not in (versions[1][1], versions[2][1])  # half applied
    monkeypatch.setattr(switches, "apply_batch", real)
    rolled = f"rolled forward from batch {applied} of {switch['batches']}"
    dry = (await collect_garbage(store, dry_run=True)).switches
    assert dry == [switches.Settled(ASSET_ID, switch["token"], rolled)]
    assert (await store[col.SWITCHES].find_one({"_id": ASSET_ID}))["applied"] == applied
    # Files younger than an hour are kept by gc: the roll-forward dropped the replaced ones.
    done = (await collect_garbage(store)).switches
    assert done == [switches.Settled(ASSET_ID, switch["token"], rolled)]
    assert await leftovers(store) == NONE_LEFT
    assert await contents(store) == versions[2][1]


async def test_the_next_import_of_the_asset_rolls_it_forward_first(
    store: Store, versions: dict[int, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = stop_at(monkeypatch, "apply_batch", after=3)
    with pytest.raises(Stop):
        await staged_import(store, versions)
    monkeypatch.setattr(switches, "apply_batch", real)
    settled: list[str | None] = []
    settle = switches.settle

    async def noted(store: Store, asset_id: str) -> str | None:
        settled.append(await settle(store, asset_id))
        return settled[-1]

    monkeypatch.setattr(switches, "settle", noted)
    await import_dataset(store, versions[2][0])  # in one transaction, after the roll-forward
    assert settled == [f"rolled forward from batch 3 of {settled[0].split()[-1]}"]
    assert await leftovers(store) == NONE_LEFT
    assert await contents(store) == versions[2][1]  # the replaced files dropped too


async def test_a_process_that_reads_rolls_forward_a_cancelled_import(
    store: Store, versions: dict[int, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The import's task is cancelled mid-switch, before its fourth batch (its lease is
    released): a read of the asset's units waits, while the reading process's poll rolls
    the switch forward, and then answers the new version; the files the switch replaced
    are dropped with it, as the importer drops them (not left to `floorgate gc`)."""
    real = switches.apply_batch
    paused = asyncio.Event()

    async def pausing(store: Store, switch: dict[str, Any], batch: dict[str, Any]) -> None:
        if batch["seq"] == 3 and not paused.is_set():  # the importer's call, not the reader's
            paused.set()
            await asyncio.Event().wait()  # until cancelled
        await real(store, switch, batch)

    monkeypatch.setattr(switches, "apply_batch", pausing)
    task = asyncio.create_task(staged_import(store, versions))
    await asyncio.wait_for(paused.wait(), 60)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    switch = await store[col.SWITCHES].find_one({"_id": ASSET_ID})
    assert switch is not None and switch["state"] == "applying"
    units = await cached_reads.find_list(store, col.UNITS, {"asset_id": ASSET_ID}, [("_id", 1)])
    assert sorted(u["name"] for u in units) == sorted(d["name"] for d in versions[2][1][col.UNITS])
    assert store.switches.waits >= 1
    for _ in range(200):  # the roll-forward drops the files after the switch, then its lease
        if await leftovers(store) == NONE_LEFT:
            break
        await asyncio.sleep(0.025)
    assert await leftovers(store) == NONE_LEFT
    assert await contents(store) == versions[2][1]


async def test_an_announced_switch_whose_import_stopped_blocks_no_reader(
    store: Store, versions: dict[int, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing live changed: reads answer at once (the old version), and the reading
    process cancels the switch."""
    stop_at(monkeypatch, "start_applying")
    with pytest.raises(Stop):
        await staged_import(store, versions)
    units = await cached_reads.find_list(store, col.UNITS, {"asset_id": ASSET_ID}, [("_id", 1)])
    assert sorted(u["name"] for u in units) == sorted(d["name"] for d in versions[1][1][col.UNITS])
    assert store.switches.waits == 0
    for _ in range(200):
        if await leftovers(store) == NONE_LEFT:
            break
        await asyncio.sleep(0.025)
    assert await leftovers(store) == NONE_LEFT
    assert await old_version(store, versions)


async def test_a_switch_waits_the_largest_request_budget_of_the_processes_that_read(
    db_server: EmbeddedServer,
) -> None:
    """An import run with a shorter FLOORGATE_REQUEST_TIMEOUT_SECONDS than the servers'
    still waits theirs: each process that reads records its budget before its first read
    (storage/cache/switch_gate.py); a record not renewed for three minutes is not counted."""
    polls = 2 * SWITCH_POLL_SECONDS  # two polls: what a reader's knowledge may lag
    async with staging_store(db_server) as importing:  # budget 0.5 s
        assert await switches.switch_wait(importing) == 0.5 + polls
        reader = connect(db_server.uri, staging_settings(importing.db.name, budget=7.0))
        try:
            await cached_reads.find_list(reader, col.UNITS, {}, [("_id", 1)])
            assert await switches.switch_wait(importing) == 7.0 + polls
            past = datetime.now(UTC) - timedelta(seconds=1)
            await importing[col.READERS].update_many({}, {"$set": {"expires_at": past}})
            assert await switches.switch_wait(importing) == 0.5 + polls
        finally:
            await reader.close()
