"""An embedded database server with one database, for the storage benchmarks."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

from storage.database import Store, connect
from storage.embedded import EmbeddedServer
from storage.settings import Settings

T = TypeVar("T")


async def on_embedded(folder: Path, database: str, measure: Callable[[Store], Awaitable[T]]) -> T:
    """Start a server under `folder`, run `measure` on `database`; the database is
    dropped and the server stopped, whatever happens."""
    server = EmbeddedServer(folder / "server")
    server.start()
    try:
        store = connect(server.uri, Settings(data_dir=folder / "data", database_name=database))
        try:
            return await measure(store)
        finally:
            await store.client.drop_database(database)
            await store.close()
    finally:
        server.stop()
