"""Issue 14: readers see the state before an import or the state after it, never a mix,
whatever stops the import: SIGKILL at many points of its write phase, the database
going away, another import of the same asset.

Each test imports the demo (version 1), then a version that changes every record kind,
every drawing and so every file (tests/import_snapshots.py), with `floorgate import` as
a real process, and compares everything the API serves for the asset. The demo is half
of it (two floors a building, `half_demo_version`): every record kind and drawing kind,
half the documents to write and the answers to compare in each of the many imports."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import socket
import subprocess
import time
import uuid
from pathlib import Path

import pytest
import pytest_asyncio

from resolvers.auth.keys import create_key
from resolvers.auth.permissions import ALL_PERMISSIONS
from storage import collections as col
from storage.database import connect
from storage.demo.install import ASSET_ID
from storage.embedded.server import EmbeddedServer
from storage.files import get_file
from storage.imports.importer import import_dataset
from storage.imports.integrity import find_dangling
from storage.imports.leases import asset_leases
from storage.settings import Settings
from tests._dbserver import abort_leased_transactions
from tests.import_snapshots import (
    cli_import,
    latest_timestamp,
    lease_held,
    snapshot,
    wait_for_commit,
    wait_for_lease,
    without_import_time,
)
from tests.storage.imports.staged import contents, copy_database, half_demo_version

pytestmark = pytest.mark.e2e
KILLS = 12  # kill points spread over the write phase
ENOUGH = 10  # kills that must land inside the write phase, before the commit


class World:
    """One database with the demo (version 1) imported, a key, and the snapshots."""

    def __init__(self, uri: str, settings: Settings, folder: Path) -> None:
        self.uri = uri
        self.database = f"atomic_{uuid.uuid4().hex[:10]}"
        self.settings = dataclasses.replace(settings, database_name=self.database)
        self.folder = folder
        self.store = connect(uri, self.settings)
        self.key = ""

    async def start(self, demo: World | None = None) -> None:
        """The demo imported and a key made, or (given `demo`, a world started so) its
        documents copied as they are, its key among them: a third of the CPU."""
        await self.store.ensure_indexes()
        if demo is not None:
            await copy_database(demo.store, self.store)
            self.key = demo.key
            return
        await import_dataset(self.store, half_demo_version(self.folder, 1))
        self.key = (await create_key(self.store, "snap", ALL_PERMISSIONS, None)).secret

    async def shot(self) -> dict:
        return await snapshot(self.store, self.settings, self.key)

    async def settled_shot(self) -> dict:
        """A snapshot during which the database did not change. A process killed while its
        commit was on the way leaves the server to finish it: a snapshot taken meanwhile
        reads its first answers before the commit and the rest after (each answer is one
        state or the other; the snapshot of ~100 requests is not one point in time). Every
        document the import writes, read straight from the database before and after the
        snapshot, tells (a few hundredths of a second, where a second snapshot took a
        second of CPU)."""
        for _ in range(10):
            stored = await contents(self.store)
            shot = await self.shot()
            if await contents(self.store) == stored:
                return shot
        raise AssertionError("what the API serves kept changing after the import was killed")

    def run_import(
        self, path: Path, *extra: str, settings: dict[str, str] | None = None
    ) -> subprocess.Popen[str]:
        return cli_import(
            self.uri, self.database, path, self.folder / "cli", *extra, settings=settings
        )

    async def close(self) -> None:
        await abort_leased_transactions(self.store)
        await self.store.client.drop_database(self.database)
        await self.store.close()


@pytest.fixture(scope="module")
def db_server(own_db_server: EmbeddedServer) -> EmbeddedServer:
    """The imports killed here leave transactions open until the server reaps them."""
    return own_db_server


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def demo(db_server, settings, tmp_path_factory):
    """The demo (version 1) imported once for the module; each world copies it."""
    demo = World(db_server.uri, settings, tmp_path_factory.mktemp("demo"))
    await demo.start()
    yield demo
    await demo.close()


@pytest_asyncio.fixture(loop_scope="session")
async def world(db_server, settings, tmp_path, demo):
    world = World(db_server.uri, settings, tmp_path)
    await world.start(demo)
    yield world
    await world.close()


@dataclasses.dataclass(frozen=True)
class Uninterrupted:
    """Version 2 imported over the demo by `floorgate import`, whole, on a database of its
    own: what is served after it, and how long its write phase lasted (lease taken to
    commit)."""

    shot: dict
    write_phase: float


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def version_two(db_server, settings, tmp_path_factory, demo) -> Uninterrupted:
    """Measured once for the module: the reference state after version 2 and the length
    of the write phase the kills and stops aim at. The probe only measures: it may wait
    longer for a database server busy with the whole suite (the default 2 s ran out on
    loaded runs); the imports stopped by the tests keep the default, as users run them."""
    probe = World(db_server.uri, settings, tmp_path_factory.mktemp("probe"))
    await probe.start(demo)
    try:
        v2 = half_demo_version(probe.folder, 2)
        process = probe.run_import(v2, settings={"FLOORGATE_DB_TIMEOUT_MS": "10000"})
        began = await asyncio.to_thread(wait_for_lease, probe.uri, probe.database, process)
        committed = await asyncio.to_thread(
            wait_for_commit, probe.uri, probe.database, " v2", process=process
        )
        code, _, err = await asyncio.to_thread(finished, process)
        assert code == 0, err
        return Uninterrupted(await probe.shot(), committed - began)
    finally:
        await probe.close()


async def reference(db_server, settings, tmp_path: Path, version: int, demo: World) -> dict:
    """The snapshot after importing `version` over the demo, uninterrupted, elsewhere."""
    other = World(db_server.uri, settings, tmp_path / f"reference-{version}")
    await other.start(demo)
    try:
        await import_dataset(other.store, half_demo_version(other.folder, version))
        return await other.shot()
    finally:
        await other.close()


def finished(process: subprocess.Popen[str], timeout: float = 120) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=timeout)
    return process.returncode, out, err


async def test_sigkill_anywhere_in_the_write_phase_changes_nothing(world, version_two):
    """The write phase's length and the state after it come from `version_two`, an
    uninterrupted import on a copy of the database."""
    v2 = half_demo_version(world.folder, 2)
    latest = latest_timestamp(v2)
    before = await world.shot()
    after = without_import_time(version_two.shot, latest)
    assert without_import_time(before, latest) != after  # the import changes what is served
    write_phase = version_two.write_phase

    # Kills spread over the write phase until ENOUGH landed in it before the commit (a
    # kill the commit beat shows the state after; the demo is then imported again).
    inside = 0
    for n in range(3 * KILLS):
        if inside >= ENOUGH:
            break
        process = world.run_import(v2)
        await asyncio.to_thread(wait_for_lease, world.uri, world.database, process)
        delay = write_phase * ((n % KILLS) + 0.5) / KILLS
        await asyncio.sleep(delay)
        writing = lease_held(world.uri, world.database, process.pid) and process.poll() is None
        process.kill()
        await asyncio.to_thread(process.wait)
        state = await world.settled_shot()
        if state == before:
            inside += writing
            continue
        assert without_import_time(state, latest) == after, f"kill {n}: a mixed state"
        # The commit beat this kill: the write phase is now shorter than the probe's (it
        # ran while the suite loaded the machine), so the next kills spread over less.
        write_phase = min(write_phase, delay)
        await import_dataset(world.store, half_demo_version(world.folder, 1))
        before = await world.shot()
    assert inside >= ENOUGH, f"only {inside} kills landed in the write phase"

    process = world.run_import(v2)
    code, _, err = await asyncio.to_thread(finished, process)
    assert code == 0, err
    assert without_import_time(await world.shot(), latest) == after
    assert [str(d) for d in (await find_dangling(world.store)).dangling] == []


# Tries at stopping the database inside the write phase, each earlier than the last.
STOP_TRIES = 6


async def test_the_database_stopping_mid_import_changes_nothing(
    settings, tmp_path, version_two, demo
):
    """The database stops halfway through the write phase (measured first, by
    `version_two` on the module's server: a fixed 0.8 s after the lease outlived the whole
    import on a fast machine, twice); the import fails and what is served after the
    restart is the state before. A stop that the commit beat shows the state after, whole
    (atomic too): the demo goes back, the next stop comes earlier. Then another import
    takes over the dead one's lease and runs whole."""
    server = EmbeddedServer(tmp_path / "server")
    server.start()
    try:
        world = World(server.uri, settings, tmp_path / "world")
        await world.start(demo)  # copied from the module's server
        v2 = half_demo_version(world.folder, 2)
        latest = latest_timestamp(v2)
        after = without_import_time(version_two.shot, latest)
        write_phase = version_two.write_phase

        for _ in range(STOP_TRIES):
            before = await world.shot()
            process = world.run_import(v2)
            began = await asyncio.to_thread(wait_for_lease, world.uri, world.database, process)
            await asyncio.sleep(max(0.0, began + write_phase / 2 - time.monotonic()))
            await asyncio.to_thread(server.stop)
            code, _, err = await asyncio.to_thread(finished, process)
            await asyncio.to_thread(server.start)
            state = await world.shot()
            if code == 1 and state == before:
                assert "the database is unreachable" in err, err
                break
            assert without_import_time(state, latest) == after, f"exit {code}: a mixed state"
            write_phase /= 2  # the commit beat the stop
            await import_dataset(world.store, half_demo_version(world.folder, 1))
        else:
            raise AssertionError(f"no stop in {STOP_TRIES} landed inside the write phase")

        process = world.run_import(v2)  # takes over the dead import's lease
        code, _, err = await asyncio.to_thread(finished, process)
        assert code == 0, err
        assert without_import_time(await world.shot(), latest) == after
        map_doc = await world.store[col.UNIT_MAPS].find_one({"_id": "map-b1-f1"})
        assert map_doc["feet_per_unit"] == 0.27
        assert await get_file(world.store, map_doc["source_file"]) is not None
        assert [str(d) for d in (await find_dangling(world.store)).dangling] == []
        await world.close()
    finally:
        server.stop()


async def test_two_imports_of_one_asset_run_one_after_the_other(
    world, db_server, settings, tmp_path, version_two, demo
):
    """Both start at once; the one that takes the lease second waits, then runs whole."""
    paths = {2: half_demo_version(world.folder, 2), 3: half_demo_version(world.folder, 3)}
    processes = {version: world.run_import(path) for version, path in paths.items()}
    results = await asyncio.gather(
        *(asyncio.to_thread(finished, process) for process in processes.values())
    )
    outcome = dict(zip(processes, results, strict=True))
    assert [code for code, _, _ in results] == [0, 0], results
    waited = [version for version, (_, _, err) in outcome.items() if err]
    assert len(waited) == 1, outcome
    (last,) = waited
    (first,) = set(processes) - {last}
    assert outcome[last][2] == (
        f"Waiting for another import of asset '{ASSET_ID}' (pid {processes[first].pid} on host "
        + outcome[last][2].split(" on host ", 1)[1]
    )
    assert outcome[last][1].startswith(f"Imported {paths[last]}:")
    # What is served is the version imported last, whole: no record of the other.
    if last == 2:
        expected = version_two.shot
    else:
        expected = await reference(db_server, settings, tmp_path, last, demo)
    latest = latest_timestamp(paths[last])
    assert without_import_time(await world.shot(), latest) == without_import_time(expected, latest)


async def test_an_import_that_may_not_wait_fails_and_changes_nothing(world):
    """Another writer holds the asset (this test process, as an import would)."""
    v2 = half_demo_version(world.folder, 2)
    before = await world.shot()
    async with asset_leases(world.store, [ASSET_ID], wait=0):
        process = world.run_import(v2, "--wait", "0")
        code, out, err = await asyncio.to_thread(finished, process)
    assert code == 1
    assert out == ""
    assert err.startswith(
        f"Nothing was imported: asset '{ASSET_ID}' is being written by another import "
        f"(pid {os.getpid()} on host {socket.gethostname()}, since 20"
    )
    assert err.endswith("); try again when it has finished\n")
    assert await world.shot() == before
    assert await world.store[col.LEASES].count_documents({}) == 0  # released
