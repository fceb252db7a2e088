"""A database of its own on the session's embedded server, for storage tests; and the
fixtures' database, as the session's `store` holds it."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator, Callable

import pymongo

from storage.database import Store, connect
from storage.embedded.server import EmbeddedServer
from storage.settings import Settings
from tests.fixtures import load_fixture_data

DROP_SECONDS = 120.0


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
