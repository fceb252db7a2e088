"""One AsyncMongoClient per process, the database handle, GridFS, and index creation."""

from __future__ import annotations

from typing import Any

from gridfs import AsyncGridFSBucket
from pymongo import AsyncMongoClient, IndexModel
from pymongo.asynchronous.collection import AsyncCollection
from pymongo.asynchronous.database import AsyncDatabase
from pymongo.errors import AutoReconnect, ConnectionFailure, ServerSelectionTimeoutError

from storage.collections import COLLECTIONS, FILES_BUCKET
from storage.settings import Settings

# Errors that mean "the database is not reachable now"; the API answers 503.
UNAVAILABLE_ERRORS: tuple[type[BaseException], ...] = (
    ServerSelectionTimeoutError,
    AutoReconnect,
    ConnectionFailure,
)


class Store:
    """The database of one process: collections by name, the file bucket."""

    def __init__(self, client: AsyncMongoClient, database_name: str) -> None:
        self.client = client
        self.db: AsyncDatabase = client[database_name]
        self.files = AsyncGridFSBucket(self.db, bucket_name=FILES_BUCKET)
        self.transactions: bool | None = None  # has multi-document transactions; asked once

    def __getitem__(self, name: str) -> AsyncCollection:
        return self.db[name]

    async def ensure_indexes(self) -> None:
        """Create every declared index; idempotent, so it runs at each start. One command
        per collection: `floorgate serve` waits for this before it listens (issue 15)."""
        for collection in COLLECTIONS:
            if collection.indexes:
                await self.db[collection.name].create_indexes(
                    [IndexModel(index.keys, **index.options()) for index in collection.indexes]
                )

    async def ping(self) -> bool:
        try:
            await self.client.admin.command("ping")
        except UNAVAILABLE_ERRORS:
            return False
        return True

    async def close(self) -> None:
        await self.client.close()


def connect(uri: str, settings: Settings, **client_options: Any) -> Store:
    """Make the process's client. It connects lazily and reconnects by itself."""
    timeout = settings.db_timeout_ms
    client: AsyncMongoClient = AsyncMongoClient(
        uri,
        serverSelectionTimeoutMS=timeout,
        connectTimeoutMS=timeout,
        socketTimeoutMS=max(timeout * 10, 20000),
        retryWrites=True,
        tz_aware=True,
        **client_options,
    )
    return Store(client, settings.database_name)
