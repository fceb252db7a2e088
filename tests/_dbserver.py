"""A database of its own on the session's embedded server, for storage tests; and the
fixtures' database, as the session's `store` holds it."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pymongo

from storage.database import Store, connect
from storage.embedded.server import EmbeddedServer
from storage.settings import Settings
from tests.fixtures import load_fixture_data

DROP_SECONDS = 120.0
# The test servers' files go to memory where the machine has a tmpfs this big free (a
# worker's server holds a few hundred MB; Docker's default /dev/shm, 64 MB, is too small
# and the files stay on disk): WiredTiger's syncs then cost nothing. Measured on a 2-core
# machine, the parallel phase 580-601 s on disk, 559 s in memory.
MEMORY_FOLDER = Path("/dev/shm")
MEMORY_FREE_BYTES = 8 * 1024**3


class PolledServer(EmbeddedServer):
    """The embedded server, its clients told to poll it (`serverMonitoringMode=poll`).

    pytest-asyncio runs the session's event loop only during async tests and fixtures. By
    default pymongo's monitor keeps a `hello` awaiting the server's reply at all times; a
    stretch of synchronous tests longer than its timeout (connect timeout plus heartbeat)
    left it overdue, and when the loop ran again the monitor counted a timeout and
    cancelled the commands in flight: the first async test after 20 s of schema tests
    answered 503 (four CI-like runs in a row, 2026-11-29; reproduced with a bare client
    and a paused loop). Polling sends a `hello` every heartbeat and awaits nothing in
    between. A served process runs its loop all the time and is unaffected either way."""

    @property
    def uri(self) -> str:
        return f"{super().uri}&serverMonitoringMode=poll"


@contextlib.contextmanager
def server_folder(tmp_path_factory: Any, name: str) -> Iterator[Path]:
    """A folder for a test database server's files: in memory when there is room (removed
    afterwards), else in the session's temporary folder."""
    try:
        stats = os.statvfs(MEMORY_FOLDER)
        room = stats.f_bavail * stats.f_frsize >= MEMORY_FREE_BYTES
    except OSError:
        room = False
    if not room:
        yield Path(tmp_path_factory.mktemp(name))
        return
    folder = Path(tempfile.mkdtemp(prefix=f"floorgate-{name}-", dir=MEMORY_FOLDER))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.asynccontextmanager
async def fresh_store(
    server: EmbeddedServer, settings: Callable[[str], Settings] | None = None
) -> AsyncIterator[Store]:
    """A store on a new database with its indexes, dropped afterwards, so tests never see
    each other's documents. `settings` makes the store's settings from the database's
    name (the defaults without it)."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    config = Settings(database_name=name) if settings is None else settings(name)
    store = connect(server.uri, config)
    await store.ensure_indexes()
    try:
        yield store
    finally:
        # The embedded server was seen to answer nothing for over the driver's 20 s
        # socket timeout under a loaded parallel run (CI, 2026-11-28: a module's drop at
        # its end, an error of a test that had passed): cleanup waits such a stall out.
        with pymongo.timeout(DROP_SECONDS):
            await store.client.drop_database(store.db.name)
        await store.close()


@contextlib.asynccontextmanager
async def fixtures_store(server: EmbeddedServer, settings: Settings) -> AsyncIterator[Store]:
    """The fixtures' data in the database `settings` names on `server`, emptied first."""
    store = connect(server.uri, settings)
    await store.client.drop_database(settings.database_name)
    await store.ensure_indexes()
    await load_fixture_data(store)
    try:
        yield store
    finally:
        await store.close()


async def abort_leased_transactions(store: Store) -> None:
    """Abort the transactions that killed or cut-off writers left open (their leases name
    the sessions): the server would otherwise hold their documents, and a drop, for 60 s."""
    async for lease in store["leases"].find({"session_id": {"$ne": None}}):
        await store.client.admin.command("killSessions", [lease["session_id"]])
