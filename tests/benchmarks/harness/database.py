"""An embedded database server with one database, for the storage benchmarks."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import httpx

from resolvers.auth.keys import create_key
from resolvers.auth.permissions import ALL_PERMISSIONS
from rest.app import create_app
from storage.database import Store, connect
from storage.demo.install import install_demo
from storage.embedded.server import EmbeddedServer
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


@dataclass(frozen=True)
class DemoApp:
    client: httpx.AsyncClient  # the app in-process (httpx ASGITransport)
    headers: dict[str, str]  # a key with every permission, and the flags asked for
    services: Any
    store: Store
    settings: Settings


@asynccontextmanager
async def demo_app(folder: Path, database: str, flags: str) -> AsyncIterator[DemoApp]:
    """The demo property on an embedded server, served by the app in-process, without
    rate limits; the store closed and the server stopped whatever happens."""
    server = EmbeddedServer(folder / "db")
    server.start()
    try:
        settings = Settings(
            database_name=database, data_dir=folder, rate_limit_per_second=0, mongodb_uri=server.uri
        )
        app = create_app(settings)
        services = app.services  # type: ignore[attr-defined]
        store = services.store
        await store.client.drop_database(database)
        await store.ensure_indexes()
        await install_demo(store, folder)
        key = (await create_key(store, "bench", list(ALL_PERMISSIONS), None)).secret
        headers = {"API-Key": key, "Experimental-Flags": flags}
        transport = httpx.ASGITransport(app=app)
        try:
            async with httpx.AsyncClient(transport=transport, base_url="https://bench") as client:
                yield DemoApp(client, headers, services, store, settings)
        finally:
            # The change stream stopped before its server: left running, its task met a
            # closed connection at the loop's shutdown and the process never ended.
            await store.close()
    finally:
        server.stop()
