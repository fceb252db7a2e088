"""Issue 67, point 3: numbered pages of a list in id order start after the last id of
the page before (kept per list and data version), and are exactly the pages an offset
gives, through writes, other filters and a cache that does not serve. On the real
embedded database, a database of its own with its change stream up, told to page as on
MongoDB (the embedded server itself pages by offset: `Store.seeks_id_ranges`)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest_asyncio

from resolvers.paging import find_page
from storage import collections as c
from storage.database import Store
from tests._dbserver import fresh_store
from tests.storage.test_read_cache import until


@dataclass
class Reader:
    store: Store
    stored_ids: bool = False


UNITS = [
    {"_id": f"u{n:03d}", "asset_id": "A" if n % 3 else "B", "name": f"Unit {n}"}
    for n in range(1, 101)
]


@pytest_asyncio.fixture(loop_scope="session")
async def reader(db_server) -> AsyncIterator[Reader]:
    async with fresh_store(db_server) as store:
        await store[c.UNITS].insert_many(UNITS)
        store.watch_changes()
        await until(lambda: store.cache.live, "the change stream comes up")
        assert store.seeks_id_ranges is False  # the embedded server scans for a range
        store.seeks_id_ranges = True  # as on MongoDB: the same answers, slower here
        yield Reader(store)


async def by_offset(store: Store, query: dict, page: int, per_page: int) -> list[str]:
    cursor = store[c.UNITS].find(query).sort("_id", 1).skip((page - 1) * per_page)
    return [each["_id"] for each in await cursor.limit(per_page).to_list()]


async def walk(reader: Reader, query: dict, per_page: int) -> list[list[str]]:
    pages, page = [], 1
    while True:
        found = await find_page(reader, c.UNITS, query, page, per_page)
        pages.append([each["id"] for each in found["data"]])
        if found["paging"]["next_page"] is None:
            assert found["paging"]["total_count"] == sum(map(len, pages))
            return pages
        page += 1


async def test_a_walk_reads_each_page_after_the_last_and_finds_what_offsets_find(reader):
    bounds = reader.store.cache.page_bounds
    for query in ({}, {"asset_id": "A"}):
        hits = bounds.hits
        pages = await walk(reader, query, 7)
        assert pages == [await by_offset(reader.store, query, n + 1, 7) for n in range(len(pages))]
        assert bounds.hits - hits == len(pages) - 1  # every page but the first
    # a jump: from the nearest end kept, the pages between skipped
    found = await find_page(reader, c.UNITS, {}, 9, 5)
    assert [each["id"] for each in found["data"]] == await by_offset(reader.store, {}, 9, 5)


async def test_after_a_write_the_ends_kept_are_not_trusted(reader):
    first = await walk(reader, {}, 10)
    await reader.store[c.UNITS].delete_one({"_id": "u005"})  # every later page moves
    await reader.store[c.UNITS].insert_one({"_id": "u0995", "asset_id": "A"})
    hits = reader.store.cache.page_bounds.hits
    found = await find_page(reader, c.UNITS, {}, 3, 10)
    assert [each["id"] for each in found["data"]] == await by_offset(reader.store, {}, 3, 10)
    assert found["data"][0]["id"] != first[2][0]
    assert reader.store.cache.page_bounds.hits == hits  # read by offset
    # another asset's write leaves asset B's ends as they were
    await walk(reader, {"asset_id": "B"}, 10)
    await reader.store[c.UNITS].insert_one({"_id": "u0996", "asset_id": "A"})
    hits = reader.store.cache.page_bounds.hits
    second = await find_page(reader, c.UNITS, {"asset_id": "B"}, 2, 10)
    assert reader.store.cache.page_bounds.hits == hits + 1
    assert [each["id"] for each in second["data"]] == await by_offset(
        reader.store, {"asset_id": "B"}, 2, 10
    )


async def test_while_the_cache_does_not_serve_pages_are_read_by_offset(reader):
    reader.store.cache.went_down("a test")
    try:
        pages = await walk(reader, {}, 25)
        assert reader.store.cache.page_bounds.bounds == 0
        assert pages[1] == await by_offset(reader.store, {}, 2, 25)
    finally:
        assert reader.store.cache.went_up(reader.store.cache.interruptions)


async def test_on_a_server_that_scans_for_a_range_pages_are_read_by_offset(reader):
    reader.store.seeks_id_ranges = False
    try:
        reader.store.cache.page_bounds.clear()
        pages = await walk(reader, {}, 30)
        assert reader.store.cache.page_bounds.bounds == 0
        assert pages[2] == await by_offset(reader.store, {}, 3, 30)
    finally:
        reader.store.seeks_id_ranges = True
