"""One AsyncMongoClient per process, the database handle, GridFS, index creation and
the read cache with the change stream that keeps it true."""

from __future__ import annotations

import asyncio
from typing import Any

from gridfs import AsyncGridFSBucket
from pymongo import AsyncMongoClient, IndexModel
from pymongo.asynchronous.collection import AsyncCollection
from pymongo.asynchronous.database import AsyncDatabase
from pymongo.errors import AutoReconnect, ConnectionFailure, ServerSelectionTimeoutError

from storage.cache.by_id import ReadsById
from storage.cache.change_watch import PoolListener, WriteListener, watch_changes
from storage.cache.read_cache import ReadCache
from storage.cache.stream_support import StreamSupport
from storage.cache.switch_gate import SwitchGate
from storage.collections import COLLECTIONS, FILES_BUCKET
from storage.command_timings import CommandTimings
from storage.settings import Settings

# Errors that mean "the database is not reachable now"; the API answers 503.
UNAVAILABLE_ERRORS: tuple[type[BaseException], ...] = (
    ServerSelectionTimeoutError,
    AutoReconnect,
    ConnectionFailure,
)


WATCHER_STOP_SECONDS = 5.0


class Store:
    """The database of one process: collections by name, the file bucket."""

    def __init__(
        self,
        client: AsyncMongoClient,
        database_name: str,
        cache: ReadCache,
        event_retention_seconds: float,
        request_timeout_seconds: float,
    ) -> None:
        self.client = client
        # How long the log of assignment changes keeps an event (storage.attributes.events).
        self.event_retention_seconds = event_retention_seconds
        # The readers' time budget, which a staged import's switch waits out
        # (storage.imports.switches).
        self.request_timeout_seconds = request_timeout_seconds
        self.db: AsyncDatabase = client[database_name]
        self.files = AsyncGridFSBucket(self.db, bucket_name=FILES_BUCKET)
        self.by_id = ReadsById(self.db)  # reads by id made together, sent together
        self.transactions: bool | None = None  # has multi-document transactions; asked once
        # Off unless `connect` made it: only its listeners see this client's writes.
        self.cache = cache
        # The switches of staged imports in progress, which every read is checked against.
        self.switches = SwitchGate(self.db, cache, request_timeout_seconds)
        self.streams = StreamSupport()  # whether the database refuses change streams
        self.timings = CommandTimings()  # `connect` gives the one its client reports to
        self._watcher: asyncio.Task[None] | None = None
        self.indexes_ensured = False
        self._ensuring: asyncio.Future[None] | None = None

    def watch_changes(self) -> None:
        """Start the change stream behind the read cache, once (idempotent, cheap)."""
        task = self._watcher
        if not self.cache.enabled or (task is not None and not task.done()):
            return
        self._watcher = asyncio.get_running_loop().create_task(
            watch_changes(self.db, self.cache, self.switches, self.streams)  # the gate too
        )

    @property
    def watching(self) -> bool:
        """Whether the change stream behind the read cache runs (`watch_changes`)."""
        return self._watcher is not None and not self._watcher.done()

    def __getitem__(self, name: str) -> AsyncCollection:
        return self.db[name]

    async def ensure_indexes(self) -> None:
        """Create every declared index; idempotent, so it runs at each start. One command
        per collection."""
        for collection in COLLECTIONS:
            if collection.indexes:
                await self.db[collection.name].create_indexes(
                    [IndexModel(index.keys, **index.options()) for index in collection.indexes]
                )
        self.indexes_ensured = True

    async def indexed(self) -> None:
        """The indexes ensured, once per process: before the first write that relies on
        a unique one (`storage.transactions`), or earlier in the background (`rest.app`).
        Reads never wait for them: a process answers its first reads before it has sent
        a single index command (issue 36, cold start)."""
        if self.indexes_ensured:
            return
        ensuring = self._ensuring
        failed = (
            ensuring is not None
            and ensuring.done()
            and (ensuring.cancelled() or ensuring.exception() is not None)
        )
        if ensuring is None or failed:
            ensuring = self._ensuring = asyncio.ensure_future(self.ensure_indexes())
        await asyncio.shield(ensuring)

    async def ping(self) -> bool:
        try:
            await self.client.admin.command("ping")
        except UNAVAILABLE_ERRORS:
            return False
        return True

    async def close(self) -> None:
        """Stop the change stream, then the client. The stream's task gets a few seconds
        to end: cancelled while its stream was being opened, it was seen never to end."""
        if self._watcher is not None:
            self._watcher.cancel()
            await asyncio.wait({self._watcher}, timeout=WATCHER_STOP_SECONDS)
        await self.switches.stop()
        if self._ensuring is not None and not self._ensuring.done():
            self._ensuring.cancel()  # shielded from its waiters: it would outlive the client
            await asyncio.wait({self._ensuring}, timeout=WATCHER_STOP_SECONDS)
        self.cache.went_down("closed")
        await self.client.close()


def connect(uri: str, settings: Settings, **client_options: Any) -> Store:
    """Make the process's client. It connects lazily and reconnects by itself."""
    timeout = settings.db_timeout_ms
    cache = ReadCache(settings.read_cache_mb * 1024 * 1024)
    timings = CommandTimings()
    # The cache's listeners only where there is a cache: every command and every
    # connection checkout of a client with a listener builds and hands out events (a tenth
    # of an uncached read's CPU, docs/performance-history.md).
    keeping = [WriteListener(cache), PoolListener(cache)] if cache.enabled else []
    listeners = [*keeping, timings, *client_options.pop("event_listeners", ())]
    client: AsyncMongoClient = AsyncMongoClient(
        uri,
        serverSelectionTimeoutMS=timeout,
        connectTimeoutMS=timeout,
        socketTimeoutMS=max(timeout * 10, 20000),
        retryWrites=True,
        tz_aware=True,
        event_listeners=listeners,
        **client_options,
    )
    cache.codec_options = client.codec_options
    store = Store(
        client,
        settings.database_name,
        cache,
        settings.event_retention_seconds,
        settings.request_timeout_seconds,
    )
    store.timings = timings
    return store
