"""Slots of open subscriptions and sockets (issue 45, points 2 and 4): each kind counted
apart per key, renewed while held and only then (a slot dropped without being freed was
renewed for as long as its objects sat uncollected: 10-13 minutes), freed once."""

from __future__ import annotations

import asyncio

from storage import collections as c
from storage.attributes import subscriptions
from storage.attributes.subscriptions import SOCKET, SUBSCRIPTION, Slots
from tests._dbserver import fresh_store


async def held(store, key: str) -> list[tuple[str, object]]:
    found = await store[c.SUBSCRIPTIONS].find({"key": key}).sort("expires_at", 1).to_list()
    return [(slot["kind"], slot["_id"]) for slot in found]


async def test_each_kind_has_its_own_limit_per_key(db_server) -> None:
    async with fresh_store(db_server) as store:
        slots = Slots(store)
        first = await slots.take("k", 2)
        second = await slots.take("k", 2)
        assert await slots.take("k", 2) is None  # a third subscription
        socket = await slots.take("k", 1, SOCKET)  # sockets are counted apart
        assert await slots.take("k", 1, SOCKET) is None
        assert await slots.take("other", 1) is not None  # and keys apart
        # a refused take gives its slot back without waiting: wait here (a whole run once
        # read both refused slots before their deletes landed)
        if slots._freeing:
            await asyncio.wait(set(slots._freeing))
        assert sorted(await held(store, "k"), key=str) == sorted(
            [(SUBSCRIPTION, first), (SUBSCRIPTION, second), (SOCKET, socket)], key=str
        )
        await slots.close()


async def test_a_slot_is_renewed_until_freed_and_freed_once(db_server, monkeypatch) -> None:
    monkeypatch.setattr(subscriptions, "RENEW_SECONDS", 0.1)
    async with fresh_store(db_server) as store:
        slots = Slots(store)
        kept, freed = await slots.take("k", 5), await slots.take("k", 5)
        assert kept is not None and freed is not None
        before = {s["_id"]: s["expires_at"] for s in await store[c.SUBSCRIPTIONS].find().to_list()}
        slots.free(freed)
        slots.free(freed)  # again: nothing more happens
        assert len(slots._freeing) == 1
        await asyncio.sleep(0.5)  # a few renewals
        after = {s["_id"]: s["expires_at"] for s in await store[c.SUBSCRIPTIONS].find().to_list()}
        assert list(after) == [kept]
        assert after[kept] > before[kept]
        assert slots.held == {kept}
        await slots.close()
        assert await store[c.SUBSCRIPTIONS].count_documents({}) == 0
