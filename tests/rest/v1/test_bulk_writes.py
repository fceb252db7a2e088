"""Issue 30, finding 9: E21/E22 with the largest body a client may send are written in
batches, in well under a second, and several at once never answer 500 (the time budget's
503 carries Retry-After)."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace

import httpx
import pytest
import pytest_asyncio

from resolvers import limits
from rest.app import create_app
from storage import collections as c

FLAG = {"Experimental-Flags": "unit-attributes-resource"}
GROUP = "w-bulk"
ATTRIBUTES = 1000
# The most items an E21/E22 body may hold: its own cap where there is one (being added
# beside this test), else the cap of any list in a body (10,000).
ITEMS = getattr(limits, "MAX_WRITE_ITEMS", limits.MAX_INPUT_ITEMS)
URL = f"/v1/units/attribute-groups/{GROUP}/units"


def items(
    count: int = ITEMS, unit: str = "u-001", attributes: int = ATTRIBUTES
) -> list[dict[str, str]]:
    """`count` items for one unit, over the first `attributes` of the group, repeated."""
    return [
        {
            "group_id": GROUP,
            "attribute_id": f"{GROUP}-a{n % attributes:04d}",
            "asset_id": "asset-1",
            "unit_id": unit,
        }
        for n in range(count)
    ]


@pytest_asyncio.fixture(loop_scope="session")
async def bulk_group(store):
    """A group of its own with 1000 attributes, emptied before and after."""
    await store[c.ATTRIBUTE_GROUPS].replace_one(
        {"_id": GROUP},
        {
            "_id": GROUP,
            "group_name": "Bulk",
            "one_attribute_per_unit": False,
            "attributes": [
                {
                    "attribute_id": f"{GROUP}-a{n:04d}",
                    "attribute_name": f"A{n}",
                    "attribute_key": f"a{n}",
                }
                for n in range(ATTRIBUTES)
            ],
        },
        upsert=True,
    )
    await store[c.ASSIGNMENTS].delete_many({"group_id": GROUP})
    yield GROUP
    await store[c.ASSIGNMENTS].delete_many({"group_id": GROUP})
    await store[c.ATTRIBUTE_GROUPS].delete_one({"_id": GROUP})


async def timed_put(
    client: httpx.AsyncClient, url: str, key: str, body: list[dict[str, str]]
) -> tuple[httpx.Response, float]:
    started = time.perf_counter()
    response = await client.put(
        url, json={"data": body}, headers={"API-Key": key, **FLAG}, timeout=60
    )
    return response, time.perf_counter() - started


@pytest.mark.security
@pytest.mark.serial  # about 0.2 s held to 1 s: measured on idle cores
async def test_a_full_e21_body_for_one_unit_is_written_in_under_a_second(
    client, keys, store, bulk_group
):
    """10,000 items for one unit (over 100 attributes) took 8.5 s, one update per item;
    removing them took over 20 s (a `$or` of 10,000 pairs): 503. Tested at the body cap."""
    body = items(attributes=100)
    response, seconds = await timed_put(client, URL, keys.full, body)
    assert response.status_code == 200
    assert len(response.json()["data"]) == ITEMS
    assert await store[c.ASSIGNMENTS].count_documents({"group_id": GROUP}) == 100
    again, again_seconds = await timed_put(client, URL, keys.full, body)  # nothing changes
    assert again.status_code == 200
    removed, remove_seconds = await timed_put(client, f"{URL}/remove", keys.full, body)
    assert removed.status_code == 204
    assert await store[c.ASSIGNMENTS].count_documents({"group_id": GROUP}) == 0
    # About 0.2 s each here (parsing and validation included); slack for a loaded machine.
    assert max(seconds, again_seconds, remove_seconds) < 1.0, (
        seconds,
        again_seconds,
        remove_seconds,
    )


def commands(store) -> dict[str, int]:
    """The store's inserts and deletes so far (the app's store is the test's; a process's
    request budget is recorded by an `update` every minute, storage/cache/switch_gate.py)."""
    names = ("insert", "delete")
    return {name: getattr(store.timings.by_command.get(name), "count", 0) for name in names}


def sent(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    return {name: after[name] - before[name] for name in after if after[name] != before[name]}


@pytest.mark.security
@pytest.mark.serial  # held to 3 s: measured on idle cores
async def test_a_thousand_distinct_assignments_are_written_in_batches(
    client, keys, store, bulk_group
):
    """Every item a write of its own, sent in batches: one insert of the assignments and
    one of their events; one delete of the 1,000 and one insert of their events. The
    time is the embedded server's: about 0.7 ms per deleted document and 0.4 ms per
    logged event (1.0-1.9 s for the removal on idle cores, 2.16 s in a CI run; item by
    item, 10,000 took 8.5 s), so the bound is 3 s."""
    body = items(count=ATTRIBUTES)
    before = commands(store)
    response, seconds = await timed_put(client, URL, keys.full, body)
    assert response.status_code == 200
    assert sent(before, commands(store)) == {"insert": 2}
    assert await store[c.ASSIGNMENTS].count_documents({"group_id": GROUP}) == ATTRIBUTES
    before = commands(store)
    removed, remove_seconds = await timed_put(client, f"{URL}/remove", keys.full, body)
    assert removed.status_code == 204
    assert sent(before, commands(store)) == {"delete": 1, "insert": 1}
    assert await store[c.ASSIGNMENTS].count_documents({"group_id": GROUP}) == 0
    assert max(seconds, remove_seconds) < 3.0, (seconds, remove_seconds)


@pytest.mark.security
async def test_four_full_bodies_at_once_never_answer_500(store, settings, keys, bulk_group):
    """Four at once gave 503s and a 500 (`Cannot change state of expiring Timeout`). Now
    they all pass; under a budget too short for them, each answers 503 with Retry-After.
    (Removed between the rounds, so that the second writes them all again: a body whose
    items are all in place already is answered in tens of milliseconds, and one of four
    met a 50 ms budget on a loaded machine.)"""
    units = ("u-001", "u-002", "u-003", "u-010")
    bodies = [items(unit=unit, attributes=100) for unit in units]
    transport = httpx.ASGITransport(app=create_app(settings, store))
    async with httpx.AsyncClient(transport=transport, base_url="https://t") as client:
        answers = await asyncio.gather(
            *(timed_put(client, URL, keys.full, body) for body in bodies)
        )
        assert [response.status_code for response, _ in answers] == [200] * 4
        for body in bodies:
            removed, _ = await timed_put(client, f"{URL}/remove", keys.full, body)
            assert removed.status_code == 204
    tight = create_app(replace(settings, request_timeout_seconds=0.02), store)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=tight), base_url="https://t"
    ) as client:
        answers = await asyncio.gather(
            *(timed_put(client, URL, keys.full, body) for body in bodies)
        )
    for response, _ in answers:
        assert response.status_code == 503, response.text
        assert response.json() == {"message": "Service unavailable"}
        assert response.headers["retry-after"] == "5"
