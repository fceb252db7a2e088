"""The events hub's replay and its keys (issue 45, points 3 and 10): what follows a cursor
is read CATCH_UP_BATCH event numbers at a time, each read paid for before its events are
passed on, each event at its key's pace; a change of a key reaches the listeners and the
key's subscriptions through the change stream, and nobody else's."""

from __future__ import annotations

import asyncio

from storage import collections as c
from storage.attributes import events
from storage.attributes.hub import CATCH_UP_BATCH, EventHub
from storage.attributes.pacing import KeyShares
from storage.transactions import atomically
from tests._dbserver import fresh_store


def change(group: str, unit: str) -> events.Event:
    assignment = {"group_id": group, "attribute_id": "a", "asset_id": "s", "unit_id": unit}
    return events.change("assigned", assignment)


async def record(store, changes: list[events.Event]) -> None:
    await atomically(store, lambda session: events.record(store, changes, session))


async def test_a_replay_reads_bounded_windows_and_pays_for_each(db_server) -> None:
    """1,200 events, two groups interleaved: a replay of `g` from cursor 0 reads the
    numbers (0, 500], (500, 1000], (1000, 1200] (600 of g's events in all, in order) and
    pays each read's count before it passes its events on; then the live ones come."""
    async with fresh_store(db_server) as store:
        await record(store, [change("g" if n % 2 else "h", f"u{n}") for n in range(1, 1201)])
        hub = EventHub(store)
        paid: list[tuple[int, int]] = []  # (events paid for, events passed on before)
        seen: list[int] = []

        async def pay(count: int) -> None:
            paid.append((count, len(seen)))

        async def read() -> None:
            async for event in hub.changes("g", lambda e: True, 0, pay=pay):
                seen.append(event["_id"])
                if len(seen) == 601:
                    return

        reader = asyncio.create_task(read())
        await asyncio.wait_for(hub.started.wait(), 10)
        while len(seen) < 600:
            await asyncio.sleep(0.02)
        await record(store, [change("g", "live")])
        await asyncio.wait_for(reader, 10)
        await hub.close()
    assert CATCH_UP_BATCH == 500
    assert paid == [(250, 0), (250, 250), (100, 500)]
    assert seen == [*range(1, 1200, 2), 1201]


async def test_a_replay_takes_its_keys_turns_as_live_events_do(db_server) -> None:
    """A key's replay passes its events on at the key's pace (`KeyShares`): 300 events at
    1,000 a second after a burst of 100 take 0.2 s, and two of the key's replays together
    take 0.5 s (one pace for both); a replay without a key is not paced."""
    async with fresh_store(db_server) as store:
        await record(store, [change("g", f"u{n}") for n in range(1, 301)])
        hub = EventHub(store)
        hub.shares = KeyShares(rate=1_000, burst=100)
        loop = asyncio.get_running_loop()

        async def replay(key_id: str | None) -> float:
            began = loop.time()
            seen = 0
            async for _ in hub.changes("g", lambda e: True, 0, key_id=key_id):
                seen += 1
                if seen == 300:
                    return loop.time() - began
            raise AssertionError("the replay ended early")

        alone = await replay("k")
        together = await asyncio.gather(replay("k"), replay("k"))
        waited = hub.shares.waits
        await replay(None)
        await hub.close()
    # Never faster than the pace (a busy machine may make either slower: no upper bound
    # but a generous one).
    assert 0.19 <= alone < 3
    assert 0.49 <= max(together) < 5
    assert waited >= 1 and hub.shares.waits == waited  # the keyless replay never waited
    assert hub.shares.paces == {}  # every replay left: the key's pace is forgotten


async def test_a_change_of_a_key_asks_only_its_subscriptions(db_server) -> None:
    """Through the change stream: an update of key k1 reaches every listener with its id,
    and asks k1's subscription (which ends, no longer wanted) but not k2's."""
    async with fresh_store(db_server) as store:
        await store[c.API_KEYS].insert_many(
            [{"_id": key, "hash": key, "disabled": False} for key in ("k1", "k2")]
        )
        hub = EventHub(store)
        heard: list[str | None] = []
        hub.key_listeners.append(heard.append)
        asked: list[str] = []
        revoked: set[str] = set()

        def wanted(key: str):
            async def still_wanted() -> bool:
                asked.append(key)
                return key not in revoked

            return still_wanted

        ended: dict[str, bool] = {}

        async def subscribed(key: str) -> None:
            async for _ in hub.changes("g", lambda e: True, None, wanted(key), key):
                pass
            ended[key] = True

        readers = [asyncio.create_task(subscribed(key)) for key in ("k1", "k2")]
        await asyncio.wait_for(hub.started.wait(), 10)
        await asyncio.sleep(0.3)  # the opening's check of every subscription is done
        asked.clear()
        revoked.update(("k1", "k2"))  # whoever is asked from now on is not wanted
        await store[c.API_KEYS].update_one({"_id": "k1"}, {"$set": {"disabled": True}})
        await asyncio.wait_for(readers[0], 5)
        await asyncio.sleep(0.3)
        assert not readers[1].done()
        readers[1].cancel()
        await hub.close()
    assert heard[0] is None  # the stream opened: any key may have changed meanwhile
    assert heard[1:] == ["k1"]
    assert asked == ["k1"]
    assert ended == {"k1": True}
