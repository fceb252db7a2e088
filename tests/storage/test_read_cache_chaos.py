"""Issue 16, done-when: kill and restart the database during a read/write loop. Writes
come from another client (another process, for the cache); reads go through the app
and its read cache. No answer is ever older than a write acknowledged WINDOW before the
read began, and once the database is back every answer matches a ground-truth read."""

from __future__ import annotations

import asyncio
import bisect
import random
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass

import httpx
import pytest
import pytest_asyncio
from pymongo import AsyncMongoClient
from pymongo.errors import PyMongoError

from resolvers.auth.keys import create_key
from rest.app import create_app
from storage.database import Store, connect
from storage.embedded.server import EmbeddedServer
from storage.settings import Settings
from tests.fixtures import stamp

pytestmark = pytest.mark.e2e

WINDOW = 0.2
ASSET = "chaos-asset"


@dataclass
class Chaos:
    server: EmbeddedServer
    store: Store
    client: httpx.AsyncClient
    writer: AsyncMongoClient
    headers: dict[str, str]


@pytest_asyncio.fixture(loop_scope="session")
async def chaos(tmp_path) -> AsyncIterator[Chaos]:
    server = EmbeddedServer(tmp_path / "db")
    server.start()
    settings = Settings(
        data_dir=tmp_path,
        database_name="chaos",
        db_timeout_ms=500,
        rate_limit_per_second=0,
        public_url="https://chaos.test",
    )
    store = connect(server.uri, settings)
    writer: AsyncMongoClient = AsyncMongoClient(server.uri, serverSelectionTimeoutMS=500)
    try:
        await store["assets"].insert_one(stamp({"_id": ASSET, "name": "n0", "market": "office"}))
        key = await create_key(store, "chaos", [], None)
        app = create_app(settings, store)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="https://chaos.test") as client:
            yield Chaos(server, store, client, writer, {"API-Key": key.secret})
    finally:
        await writer.close()
        await store.close()
        if server._process is not None:  # its clean stop is not tested: 2 s saved
            server._process.kill()
        server.stop()


class Log:
    """Acknowledged writes (value i at acknowledged[i]) and the reads that were answered."""

    def __init__(self) -> None:
        self.acknowledged: list[float] = [0.0]  # n0 is there from the start
        self.reads: list[tuple[float, int]] = []

    def due(self, started: float) -> int:
        return bisect.bisect_right(self.acknowledged, started - WINDOW) - 1


async def write(chaos: Chaos, log: Log) -> None:
    value = len(log.acknowledged)
    try:
        await chaos.writer["chaos"]["assets"].update_one(
            {"_id": ASSET}, {"$set": {"name": f"n{value}"}}
        )
    except PyMongoError:
        return  # the database is away: not acknowledged (it may still have applied it)
    log.acknowledged.append(time.monotonic())


async def read(chaos: Chaos, log: Log) -> int | None:
    started = time.monotonic()
    response = await chaos.client.get(f"/v1/assets/{ASSET}", headers=chaos.headers)
    if response.status_code == 503:
        return None  # the database is away, and the cache does not pretend otherwise
    assert response.status_code == 200, response.text
    value = int(response.json()["name"][1:])
    log.reads.append((started, value))
    return value


async def loop(chaos: Chaos, log: Log, seconds: float, rng: random.Random) -> None:
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        if rng.random() < 0.3:
            await write(chaos, log)
        await read(chaos, log)
        await asyncio.sleep(rng.choice((0, 0.002, 0.01)))


async def test_no_stale_answer_across_a_database_crash(chaos: Chaos):
    rng = random.Random(1616)
    log = Log()
    for _ in range(2):  # two crashes
        await loop(chaos, log, 1.5, rng)
        cache = chaos.store.cache
        assert cache.live and cache.hits + cache.answer_hits > 0  # E2 answers are kept whole
        chaos.server._process.kill()  # SIGKILL: no clean shutdown
        chaos.server._process.wait()
        chaos.server._process = None
        await loop(chaos, log, 0.5, rng)  # reads answer 503 (or a cached value, in the window)
        chaos.server.start()
        await write(chaos, log)  # written before the cache has seen the database again
        await loop(chaos, log, 3.0, rng)
    stale = [(value, log.due(started)) for started, value in log.reads if value < log.due(started)]
    assert stale == []
    assert chaos.store.cache.stream_restarts >= 3, chaos.store.cache.stats()
    await asyncio.sleep(WINDOW)
    for _ in range(20):  # after recovery: exactly the database's answer, every time
        await write(chaos, log)
        truth = await chaos.writer["chaos"]["assets"].find_one({"_id": ASSET})
        await asyncio.sleep(WINDOW)
        assert await read(chaos, log) == int(truth["name"][1:])
