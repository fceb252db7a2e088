"""Search during a write storm (issue 63, finding 5): two writers and two searchers held
searches at 0.75-1 s (each waiting for an update of the asset's index, several made at
once) and an honest GET's p95 at 5-8x idle. Now an index of more than WAIT_PLACES
documents is made by one task at a time, the writes arriving meanwhile taken in by the
next; searches meanwhile are answered from the index before it (not kept), and a write
is found once its update is done. Every test runs on a database of its own on the real
embedded server, with the store's change stream up."""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio

import resolvers.search.indexes as indexes
from resolvers.auth.keys import create_key
from resolvers.auth.permissions import ALL_PERMISSIONS
from resolvers.search.builds import BUILDS
from resolvers.search.index import SearchIndex
from resolvers.search.indexes import AssetIndex, asset_index
from resolvers.search.places import collect
from resolvers.wayfinding.versioned_cache import VersionedCache
from rest.app import create_app
from storage import collections as c
from storage.cache.change_watch import STREAM_WAIT_MS
from storage.cache.read_cache import READS, ReadLog
from storage.database import Store
from storage.embedded.server import EmbeddedServer
from storage.imports.importer import import_data
from tests._dbserver import fresh_store
from tests.conftest import with_schema
from tests.resolvers.search.test_index_updates import (
    assert_fresh,
    asset_levels,
    found,
    from_database,
)
from tests.storage.test_read_cache import until

ASSET = "storm"
LEVELS, PER_LEVEL = 4, 80  # 320 units and 320 locations: past WAIT_PLACES
# A write is found once the update after it is done: at most the update under way, its
# rest (UPDATE_REST times its time) and the next, a fraction of a second at this size;
# ten times that on a loaded machine.
FOUND_WITHIN_SECONDS = 5.0


def dataset(levels: int = LEVELS, per_level: int = PER_LEVEL) -> dict[str, Any]:
    """One asset of `levels` levels of `per_level` places (a unit and its location)."""
    return asset_levels(((ASSET, levels, per_level),))


def location_id(level: int, n: int) -> str:
    return f"loc-{ASSET[0]}-{level}-{n:02d}"


@dataclass
class Venue:
    store: Store
    cache: VersionedCache[SearchIndex]

    async def index(self) -> SearchIndex:
        return await asset_index(self.store, self.cache, ASSET)

    async def rename(self, level: int, n: int, name: str) -> None:
        locations = self.store[c.LOCATIONS]
        await locations.update_one({"_id": location_id(level, n)}, {"$set": {"name": name}})

    def making(self) -> indexes.Making | None:
        return indexes._MAKING.get(self.cache, {}).get(ASSET)

    def version(self) -> indexes.Version:
        scope = ("asset_id", ASSET)
        return tuple(self.store.cache.version(name, scope) for name in indexes.INDEXED)

    def state(self) -> dict[str, Any]:
        """What a failure reports: the read cache's stream and journal, the builds."""
        reads = self.store.cache
        journal = reads.journal
        return {
            "stream": reads.stream,
            "journal": (journal.start, journal.position, journal.resets, len(journal)),
            "through": journal.through,
            "below": journal.below,
            "acked": reads.acked_at(indexes.INDEXED),
            **self.counts(),
        }

    def counts(self) -> dict[str, int]:
        """The builds so far, and the read cache's flushes (a stream that restarted
        vouches for nothing: a build from everything is then right)."""
        return {**BUILDS.figures(), "flushes": self.store.cache.flushes}


@pytest.fixture(scope="module")
def db_server(own_db_server: EmbeddedServer) -> EmbeddedServer:
    """A server no other test writes to (tests/resolvers/search/test_index_updates.py,
    `db_server`: writes elsewhere delay the echo of ours, and an update becomes a build
    from everything)."""
    return own_db_server


@pytest.fixture(autouse=True)
def patient(monkeypatch):
    """An echo may take two of the stream's waits under a loaded run (as in
    test_index_updates.py); the test of a build from everything is not here."""
    monkeypatch.setattr(indexes, "ECHO_WAIT_SECONDS", 2 * STREAM_WAIT_MS / 1000 + 1)


@pytest_asyncio.fixture(loop_scope="session")
async def venue(db_server: EmbeddedServer, tmp_path: Path) -> AsyncIterator[Venue]:
    async with fresh_store(db_server) as store:
        await import_data(store, dataset(), tmp_path)
        store.watch_changes()
        await until(lambda: store.cache.live, "the change stream comes up")
        yield Venue(store, VersionedCache(64 << 20, attrgetter("bytes")))


def counted_updates(monkeypatch, release: asyncio.Event) -> list[int]:
    """Updates wait for `release` before they start; the list counts them (first) and the
    most made at once (second)."""
    seen = [0, 0]
    running = [0]
    real = indexes.update

    async def update(*args: Any) -> AssetIndex | None:
        seen[0] += 1
        running[0] += 1
        seen[1] = max(seen[1], running[0])
        try:
            await release.wait()
            return await real(*args)
        finally:
            running[0] -= 1

    monkeypatch.setattr(indexes, "update", update)
    return seen


async def test_a_search_during_an_update_is_answered_at_once_from_the_index_before_it(
    venue: Venue, monkeypatch
):
    monkeypatch.setattr(indexes, "UPDATE_REST", 0.0)
    first = await venue.index()
    assert isinstance(first, AssetIndex) and first.large
    before = venue.counts()
    release = asyncio.Event()
    seen = counted_updates(monkeypatch, release)
    await venue.rename(1, 3, "Zephyr Annex")
    log = ReadLog(key="search")
    token = READS.set(log)
    try:  # the update waits for `release`: the search does not
        index = await asyncio.wait_for(venue.index(), 1.0)
    finally:
        READS.reset(token)
    assert index is first and found(index, "zephyr annex") == []
    assert not log.complete  # an answer from it is not kept
    making = venue.making()
    assert making is not None and making.previous is first
    # Two more writes, and searches: one update at a time; the writes wait for the next.
    await venue.rename(2, 5, "Quiet Library")
    await venue.rename(3, 7, "Harbor Lounge")
    for _ in range(5):
        assert await asyncio.wait_for(venue.index(), 1.0) is first
    assert seen == [1, 1] and venue.making() is making
    release.set()
    updated = await making.task  # it read the journal when released: all three writes
    assert found(updated, "zephyr annex") == ["s-1-03"]
    assert found(updated, "quiet library") == ["s-2-05"]
    assert found(updated, "harbor lounge") == ["s-3-07"]
    # Made for the version of the first write: the next search starts one more, which
    # finds the documents as they were read, and keeps the index.
    assert await venue.index() is updated
    follow = venue.making()
    assert follow is not None and follow is not making
    assert await follow.task is updated
    assert await venue.index() is updated  # of the data as it is now: no update starts
    assert venue.making() is None
    assert seen == [2, 1]
    now = venue.counts()
    if now["flushes"] == before["flushes"]:  # the stream held (test_index_updates.py)
        assert {k: now[k] - before[k] for k in ("full_builds", "updates", "unchanged")} == {
            "full_builds": 0,
            "updates": 1,
            "unchanged": 1,
        }
    await assert_fresh(venue, updated, ASSET)  # a Venue has the `store` it reads


@pytest.mark.security
async def test_a_storm_of_writes_is_taken_in_by_updates_one_at_a_time(venue: Venue, monkeypatch):
    """Scaled down: a writer renaming a location every 20 ms for 1.5 s, two searchers
    asking every 5 ms. No build from everything, one update at a time, fewer updates than
    writes; the last name is found within FOUND_WITHIN_SECONDS of its write."""
    await venue.index()
    before = venue.counts()
    release = asyncio.Event()
    release.set()
    seen = counted_updates(monkeypatch, release)
    stop = time.monotonic() + 1.5
    writes = [0]

    async def writer() -> None:
        while time.monotonic() < stop:
            writes[0] += 1
            await venue.rename(1 + writes[0] % LEVELS, writes[0] % PER_LEVEL, f"Storm {writes[0]}")
            await asyncio.sleep(0.02)

    async def searcher() -> None:
        while time.monotonic() < stop:
            await venue.index()
            await asyncio.sleep(0.005)

    await asyncio.gather(writer(), searcher(), searcher())
    last = f"storm {writes[0]}"
    written = time.monotonic()
    while not found(await venue.index(), last):
        assert time.monotonic() - written < FOUND_WITHIN_SECONDS, "the last write not found"
        await asyncio.sleep(0.02)
    now = venue.counts()
    assert seen[1] == 1  # never two updates at once
    assert 1 <= now["updates"] - before["updates"] < writes[0]
    assert now["stale_answers"] > before["stale_answers"]
    if now["flushes"] == before["flushes"]:
        assert now["full_builds"] == before["full_builds"]
    index = await settled(venue)
    units, locations = await from_database(venue.store, ASSET)
    built = SearchIndex(collect(ASSET, units, locations))
    assert texts(index) == texts(built), (differing(index, built), venue.state())
    await assert_fresh(venue, index, ASSET)


async def settled(venue: Venue) -> AssetIndex:
    """The index a search gets once none is being made and the one kept is of the data's
    versions: after a storm the last update may still run, and the next may wait for its
    rest (UPDATE_REST), searches answered from the one before meanwhile. An update that
    lost a write is not waited out: its index is kept for the versions it missed, and a
    search gets it at once."""
    deadline = time.monotonic() + FOUND_WITHIN_SECONDS
    while True:
        making = venue.making()
        if making is not None:
            await making.task
        index = await venue.index()
        assert isinstance(index, AssetIndex)
        if venue.making() is None and index.version == venue.version():
            return index
        assert time.monotonic() < deadline, ("no index of the data's versions", venue.state())
        await asyncio.sleep(0.02)


def texts(index: SearchIndex) -> set[str]:
    """The whole texts the index matches typos against: a place's names, as said."""
    return set(index._full_texts)


def differing(index: SearchIndex, built: SearchIndex) -> tuple[list[str], list[str]]:
    """The texts only the index has, and those only a build from the database has."""
    return sorted(texts(index) - texts(built)), sorted(texts(built) - texts(index))


PUT_LOCATION = """
mutation ($input: LocationInput!) { putLocation(input: $input) { id name } }"""
BIG_LEVELS, BIG_PER_LEVEL = 10, 150  # 3,000 units and locations: an update is tens of ms
SAMPLE_EVERY = 0.05  # the honest GET, and each searcher
WRITE_EVERY = 1 / 1.75  # each of two writers: 3.5 writes a second


def p95(latencies: list[float]) -> float:
    return statistics.quantiles(latencies, n=20)[-1]


def too_slow(idle: float, busy: float) -> bool:
    """The suite's rule (tests/e2e/test_attack_latency.py): within 2x of idle, or idle
    plus 15 ms, below which a p95 is this machine's noise."""
    return busy > max(2 * idle, idle + 0.015)


@pytest.mark.security
@pytest.mark.serial  # latencies against an idle machine's
async def test_searches_and_an_honest_get_keep_their_latency_during_a_write_storm(
    db_server: EmbeddedServer, settings, tmp_path: Path
):
    """Two writers renaming locations through `putLocation` (3.5 writes a second) and two
    searchers (20 searches a second) beside an honest keyed GET every 50 ms, through the
    app, on an asset of 3,000 units and locations. Before: searches waited for updates,
    several at once, and the GET's p95 went to 5-8x."""
    async with fresh_store(db_server) as store:
        data = dataset(BIG_LEVELS, BIG_PER_LEVEL)
        await import_data(store, data, tmp_path)
        store.watch_changes()
        await until(lambda: store.cache.live, "the change stream comes up")
        key = (await create_key(store, "storm", list(ALL_PERMISSIONS), None)).secret
        app = with_schema(create_app(settings, store))
        headers = {"API-Key": key, "Experimental-Flags": "search"}
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(
            transport=transport, base_url="https://testserver", headers=headers
        ) as client:

            async def timed(method: str, path: str, **kwargs: Any) -> float:
                started = time.perf_counter()
                answer = await client.request(method, path, **kwargs)
                assert answer.status_code == 200 and "errors" not in answer.text, answer.text
                return time.perf_counter() - started

            async def every(seconds: float, into: list[float], until_: float, ask: Any) -> None:
                while time.perf_counter() < until_:
                    took = await ask()
                    into.append(took)
                    await asyncio.sleep(max(0.0, seconds - took))

            def get() -> Any:
                return timed("GET", f"/v1/assets/{ASSET}")

            queries = iter(f"{word} {n}" for n in range(10_000) for word in ("room", "lift"))

            def search() -> Any:
                return timed("GET", "/v1/search", params={"q": next(queries), "asset": ASSET})

            writes = iter(range(10_000))

            def write() -> Any:
                n = next(writes)
                location = dict(data["locations"][(n * 37) % len(data["locations"])])
                location |= {"name": f"Storm {n}", "assetId": location.pop("asset_id")}
                location["unitMapId"] = location.pop("unit_map_id")
                body = {"query": PUT_LOCATION, "variables": {"input": location}}
                return timed("POST", "/graphql", json=body)

            await search()  # the index built
            await get()
            idle_gets: list[float] = []
            idle_searches: list[float] = []
            end = time.perf_counter() + 3.0
            await every(SAMPLE_EVERY, idle_gets, end, get)
            end = time.perf_counter() + 2.0
            await every(SAMPLE_EVERY, idle_searches, end, search)
            before = {**BUILDS.figures(), "flushes": store.cache.flushes}
            gets: list[float] = []
            searches: list[float] = []
            written: list[float] = []
            end = time.perf_counter() + 5.0
            await asyncio.gather(
                every(SAMPLE_EVERY, gets, end, get),
                every(SAMPLE_EVERY, searches, end, search),
                every(SAMPLE_EVERY, searches, end, search),
                every(WRITE_EVERY, written, end, write),
                every(WRITE_EVERY, written, end, write),
            )
            now = {**BUILDS.figures(), "flushes": store.cache.flushes}
    made = {k: now[k] - before[k] for k in ("full_builds", "updates", "unchanged")}
    figures = (
        f"GET p95 idle {p95(idle_gets) * 1000:.1f} ms, storm {p95(gets) * 1000:.1f} ms; "
        f"search p95 idle {p95(idle_searches) * 1000:.1f} ms, storm "
        f"{p95(searches) * 1000:.1f} ms (max {max(searches) * 1000:.1f}); "
        f"{len(written)} writes, {made}"
    )
    print(figures)
    assert len(written) >= 10, figures
    if now["flushes"] == before["flushes"]:
        assert made["full_builds"] == 0, figures
    # At this size an update is quick, and most writes get one of their own (the first
    # test shows them taken in together); never more, nor a build from everything.
    assert 1 <= made["updates"] <= len(written), figures
    assert not too_slow(p95(idle_gets), p95(gets)), figures
    # A search waits for no update: as fast as idle, within the same rule (waiting for
    # updates, the first measurement had them at 20-60x).
    assert not too_slow(p95(idle_searches), p95(searches)), figures
