"""One AsyncMongoClient per process, the database handle, GridFS, index creation and
the read cache with the change stream that keeps it true."""

from __future__ import annotations

import asyncio
import contextlib
import time
import weakref
from collections.abc import Iterator
from typing import Any

import pymongo
from gridfs import AsyncGridFSBucket
from pymongo import AsyncMongoClient, IndexModel, monitoring
from pymongo.errors import AutoReconnect, ConnectionFailure, ServerSelectionTimeoutError

from storage.cache.by_id import ReadsById
from storage.cache.change_watch import PoolListener, WriteListener, watch_changes
from storage.cache.pre_images import keep_pre_images
from storage.cache.read_cache import ReadCache
from storage.cache.stream_support import StreamSupport
from storage.cache.switch_gate import SwitchGate
from storage.collections import COLLECTIONS, FILES_BUCKET, Client, CollectionHandle, Database
from storage.command_timings import CommandTimings
from storage.settings import Settings

# Errors that mean "the database is not reachable now"; the API answers 503.
UNAVAILABLE_ERRORS: tuple[type[BaseException], ...] = (
    ServerSelectionTimeoutError,
    AutoReconnect,
    ConnectionFailure,
)
# How often the driver's monitor asks each server whether it is there (pymongo's default
# is 10 s, its least 0.5 s): how soon a server that came back is known to the driver
# (a request after a restart waited for it past 10 s at the default). Twice a second
# doubled an idle process's CPU (tests/e2e/idle: 6.3 against the minimal server's 3.1
# ms/s); an operation that fails marks its server at once, and a bounded command that
# goes unanswered makes the database away, so a look every 2 s is enough.
HEARTBEAT_MS = 2_000
PROBE_SECONDS = 0.5  # how long a ping's answer stands for later requests (`check_reachable`)


class DatabaseAway(ServerSelectionTimeoutError):
    """Refused at once: the driver last found no server there (`database_away`)."""


class Answers(monitoring.ServerHeartbeatListener):
    """When a server last answered the driver's monitor, and when a bounded command
    (`bounded`) last went unanswered: a paused server takes connections and answers
    nothing, and the monitor gives up on it only after its own timeout, twice."""

    def __init__(self) -> None:
        self.answered = 0.0  # time.monotonic()
        self.unanswered = -1.0

    def started(self, event: monitoring.ServerHeartbeatStartedEvent) -> None:
        pass

    def succeeded(self, event: monitoring.ServerHeartbeatSucceededEvent) -> None:
        self.answered = time.monotonic()

    def failed(self, event: monitoring.ServerHeartbeatFailedEvent) -> None:
        pass


# Each client's `Answers`, by identity: clients of one address compare equal (and hash
# alike), so a dictionary keyed by the client gave one client another's answers.
_ANSWERS: dict[int, tuple[weakref.ref[Client], Answers]] = {}


def _answers_of(client: Client) -> Answers | None:
    found = _ANSWERS.get(id(client))
    return found[1] if found is not None and found[0]() is client else None


def _keep_answers(client: Client, answers: Answers) -> None:
    key = id(client)
    _ANSWERS[key] = (weakref.ref(client, lambda _: _ANSWERS.pop(key, None)), answers)


def database_away(client: Client) -> bool:
    """Every server the driver knows failed its last check or an operation, and none has
    answered since (the monitor's look, every HEARTBEAT_MS, or a ping); or a bounded command went
    unanswered since a server last answered. Each database call of a request waited the
    whole selection timeout again: a key lookup, the rate limit, each read, so a request
    waited 5-9 s for its 503, not FLOORGATE_DB_TIMEOUT_MS (issue 63, finding 10). A
    server not checked yet (at start) is not away."""
    if unanswered(client):
        return True
    servers = client.topology_description.server_descriptions().values()
    return bool(servers) and all(server.error is not None for server in servers)


def unanswered(client: Client) -> bool:
    """A bounded command (`bounded`) went unanswered since a server last answered."""
    answers = _answers_of(client)
    return answers is not None and answers.unanswered > answers.answered


@contextlib.contextmanager
def bounded(client: Client) -> Iterator[None]:
    """A small command a request needs before its work (its key's lookup, its rate
    limit): FLOORGATE_DB_TIMEOUT_MS in all, also on a server that takes connections and
    never answers, where the socket would wait until the monitor gave up on it; one that
    goes unanswered makes the database away (`database_away`) until a server answers."""
    try:
        with pymongo.timeout(client.options.server_selection_timeout):
            yield
    except UNAVAILABLE_ERRORS:
        answers = _answers_of(client)
        if answers is not None:
            answers.unanswered = time.monotonic()
        raise


WATCHER_STOP_SECONDS = 5.0


# What the embedded server's `buildInfo` says beside MongoDB's fields. It evaluates an
# `_id` range by scanning the whole collection (50,000 units: 480 ms, where the first
# 1,001 by `_id` take 315 ms at any offset), so paging after a kept end is slower there
# than by offset; MongoDB seeks the range in the `_id` index.
EMBEDDED_SERVER_FIELD = "secantusVersion"


class Store:
    """The database of one process: collections by name, the file bucket."""

    def __init__(
        self,
        client: Client,
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
        self.db: Database = client[database_name]
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
        # Whether the server seeks an `_id` range in its index (MongoDB) rather than
        # scanning the collection for it (the embedded server): where it does, a page is
        # read after the last one's end (`resolvers.paging`); asked with the indexes.
        self.seeks_id_ranges = False
        self._ensuring: asyncio.Future[None] | None = None
        self._probed: tuple[float, bool] | None = None  # (when, answered): `check_reachable`
        self._probing: asyncio.Future[None] | None = None  # the ping under way

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

    def __getitem__(self, name: str) -> CollectionHandle:
        return self.db[name]

    async def check_reachable(self) -> None:
        """Before an API read or a key lookup: `DatabaseAway` (503) while the database is
        away, rather than another wait of the selection timeout. Away is confirmed by one
        ping of at most FLOORGATE_DB_TIMEOUT_MS, shared by the requests that come while it
        is under way, its answer kept PROBE_SECONDS for those after it: a monitor's check
        that timed out while the event loop was held says nothing of the server, and a
        ping wakes the monitor at once. (A ping of PROBE_SECONDS alone failed on a loaded
        2-core machine that had the server, and answered a whole test module 503.)"""
        if not database_away(self.client):
            return
        if self._probed is None or time.monotonic() - self._probed[0] >= PROBE_SECONDS:
            if self._probing is None or self._probing.done():
                self._probing = asyncio.ensure_future(self._probe())
            await asyncio.shield(self._probing)
        assert self._probed is not None
        if not self._probed[1]:
            raise DatabaseAway("no server answered the driver's last check or a ping")

    async def _probe(self) -> None:
        """One ping within the selection timeout; its answer in `_probed`."""
        try:
            with pymongo.timeout(self.client.options.server_selection_timeout):
                await self.client.admin.command("ping")
        except UNAVAILABLE_ERRORS:
            self._probed = (time.monotonic(), False)
        else:
            self._probed = (time.monotonic(), True)
            answers = _answers_of(self.client)
            if answers is not None:
                answers.answered = time.monotonic()

    def bounded(self) -> contextlib.AbstractContextManager[None]:
        """`bounded` for this store's client."""
        return bounded(self.client)

    async def before_read(self) -> None:
        """What every read of the API does first (`storage.cache.cached_reads`)."""
        await self.check_reachable()
        self.watch_changes()

    async def ensure_indexes(self) -> None:
        """Create every declared index, and keep the pre-images of scoped collections;
        idempotent, so it runs at each start. One or two commands per collection."""
        for collection in COLLECTIONS:
            if collection.indexes:
                await self.db[collection.name].create_indexes(
                    [IndexModel(index.keys, **index.options()) for index in collection.indexes]
                )
        await keep_pre_images(self.db, [each.name for each in COLLECTIONS if each.scoped])
        info = await self.client.admin.command("buildInfo")
        self.seeks_id_ranges = EMBEDDED_SERVER_FIELD not in info
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
    answers = Answers()
    listeners = [*keeping, timings, answers, *client_options.pop("event_listeners", ())]
    client: Client = AsyncMongoClient(
        uri,
        serverSelectionTimeoutMS=timeout,
        connectTimeoutMS=timeout,  # also the monitor's wait for a server's answer
        heartbeatFrequencyMS=HEARTBEAT_MS,
        socketTimeoutMS=max(timeout * 10, 20000),
        retryWrites=True,
        tz_aware=True,
        event_listeners=listeners,
        **client_options,
    )
    cache.codec_options = client.codec_options
    _keep_answers(client, answers)
    store = Store(
        client,
        settings.database_name,
        cache,
        settings.event_retention_seconds,
        settings.request_timeout_seconds,
    )
    store.timings = timings
    return store
