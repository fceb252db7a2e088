"""Reads by id made in one turn of the event loop go to the database as one query
(storage/cache/by_id.py), and each caller gets exactly what its own `find_one` would."""

from __future__ import annotations

import asyncio

import pytest
from pymongo.errors import OperationFailure

from storage.cache.by_id import ReadsById, plain_id
from storage.limits import IN_CHUNK

COLLECTION = "reads_by_id_test"


@pytest.fixture
async def reads(store):
    documents = [{"_id": f"d{n}", "n": n, "tags": ["a", "b"]} for n in range(IN_CHUNK + 10)]
    await store[COLLECTION].delete_many({})
    await store[COLLECTION].insert_many(documents)
    try:
        yield ReadsById(store.db)
    finally:
        await store[COLLECTION].drop()


def finds(store) -> int:
    """The store's `find` commands, but not the switch gate's polls (one `find` every
    0.5 s, storage/cache/switch_gate.py, which may fall inside a test's reads)."""
    timing = store.timings.by_command.get("find")
    return (0 if timing is None else timing.count) - store.switches.polls


def test_only_a_plain_id_is_coalesced():
    assert plain_id({"_id": "a"}) == "a"
    assert plain_id({"_id": 7}) == 7
    assert plain_id({"_id": True}) is None  # a bool is no id of ours
    assert plain_id({"_id": {"$gt": ""}}) is None  # an operator: a query of its own
    assert plain_id({"_id": "a", "asset_id": "x"}) is None
    assert plain_id({"asset_id": "x"}) is None


async def test_reads_of_one_turn_are_one_query(reads, store):
    before = finds(store)
    found = await asyncio.gather(
        *(reads.find_one(COLLECTION, f"d{n}") for n in (3, 1, 4, 1, 5)),
        reads.find_one(COLLECTION, "missing"),
        reads.find_one(COLLECTION, "d2", {"n": 1}),  # another projection: another query
    )
    assert [d["n"] for d in found[:5]] == [3, 1, 4, 1, 5]
    assert found[5] is None
    assert found[6] == {"_id": "d2", "n": 2}
    assert finds(store) - before == 2 and reads.queries == 2
    assert found[1] == found[3] and found[1] is not found[3]  # each caller its own
    found[1]["tags"].append("changed")
    assert found[3]["tags"] == ["a", "b"]


async def test_a_read_alone_is_answered_alone(reads, store):
    before = finds(store)
    assert (await reads.find_one(COLLECTION, "d9"))["n"] == 9
    assert await reads.find_one(COLLECTION, "nope") is None
    assert finds(store) - before == 2


async def test_more_reads_than_one_in_list_take_more_queries(reads):
    count = IN_CHUNK + 10
    found = await asyncio.gather(*(reads.find_one(COLLECTION, f"d{n}") for n in range(count)))
    assert [d["n"] for d in found] == list(range(count))
    assert reads.queries == 2


@pytest.mark.parametrize("turns", [1, 2])  # cancelled while the turn ends, or in its query
async def test_a_cancelled_leader_leaves_the_others_their_answers(reads, turns):
    leader = asyncio.create_task(reads.find_one(COLLECTION, "d1"))
    others = [asyncio.create_task(reads.find_one(COLLECTION, f"d{n}")) for n in (2, 3)]
    for _ in range(turns):
        await asyncio.sleep(0)
    leader.cancel()
    (outcome,) = await asyncio.gather(leader, return_exceptions=True)
    # Cancelled, or (in its query) let finish by the driver, which completes a read it
    # has sent: either way the others get their answers from that one query.
    assert isinstance(outcome, asyncio.CancelledError) or outcome["n"] == 1
    assert [(await task)["n"] for task in others] == [2, 3]
    assert reads.queries == 1  # the leader's, or the task it handed its batch to


async def test_a_cancelled_follower_changes_nothing_for_the_others(reads):
    leader = asyncio.create_task(reads.find_one(COLLECTION, "d1"))
    follower = asyncio.create_task(reads.find_one(COLLECTION, "d2"))
    third = asyncio.create_task(reads.find_one(COLLECTION, "d3"))
    await asyncio.sleep(0)  # all three in one batch, the leader's turn ending
    follower.cancel()
    assert (await leader)["n"] == 1 and (await third)["n"] == 3
    assert follower.cancelled()
    assert reads.queries == 1


async def test_a_failing_query_fails_every_caller(reads):
    """A projection the server refuses (inclusion and exclusion mixed) is every caller's
    error, as each `find_one` would have raised it."""
    bad = {"n": 1, "tags": 0}
    results = await asyncio.gather(
        *(reads.find_one(COLLECTION, f"d{n}", bad) for n in range(3)), return_exceptions=True
    )
    assert all(isinstance(result, OperationFailure) for result in results)


async def test_concurrent_gets_share_queries_and_answer_alike(client, store, full_headers):
    """Through the app: 32 GETs of one asset at once take fewer reads than requests, and
    every answer is the one a GET alone gets."""
    store.cache.flush()
    alone = await client.get("/v1/assets/asset-1", headers=full_headers)
    reads_before = store.by_id.queries
    answers = await asyncio.gather(
        *(client.get("/v1/assets/asset-1", headers=full_headers) for _ in range(32))
    )
    assert {(a.status_code, a.content) for a in answers} == {(200, alone.content)}
    assert store.by_id.queries - reads_before < 32


async def test_a_key_of_another_asset_shares_the_query_but_not_the_answer(client, store, keys):
    """A key scoped to asset-2 asking for asset-1 in the same turns as a full key: the
    reads share their queries, and the scoped key still gets its lone answer, 404."""
    store.cache.flush()
    full, scoped = {"API-Key": keys.full}, {"API-Key": keys.scoped}
    alone = {
        name: await client.get("/v1/assets/asset-1", headers=headers)
        for name, headers in (("full", full), ("scoped", scoped))
    }
    assert [alone["full"].status_code, alone["scoped"].status_code] == [200, 404]
    reads_before = store.by_id.queries
    answers = await asyncio.gather(
        *(client.get("/v1/assets/asset-1", headers=(full, scoped)[n % 2]) for n in range(32))
    )
    expected = {(a.status_code, a.content) for a in alone.values()}
    assert {(a.status_code, a.content) for a in answers[0::2]} == {
        (alone["full"].status_code, alone["full"].content)
    }
    assert {(a.status_code, a.content) for a in answers[1::2]} == {
        (alone["scoped"].status_code, alone["scoped"].content)
    }
    assert {(a.status_code, a.content) for a in answers} == expected
    assert store.by_id.queries - reads_before < 32
