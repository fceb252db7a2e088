"""Key lookups by secret (`resolvers.auth.keys.lookup_caller`): the requests of one key
that miss the key cache together share one database read. Under the replay attack 20
streams of one key, each missing it when its entry expired, made 20 reads that waited
behind each other on a stalled embedded database (docs/performance-history.md, "The
embedded database stalls under replays")."""

from __future__ import annotations

import asyncio

import pytest

from resolvers.auth import keys
from resolvers.auth.keys import KeyCache, create_key, lookup_caller

HERD = 20


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The hashes looked up in the database, in order (the real read still runs)."""
    done: list[str] = []
    read = keys.stored_caller_of_hash

    async def counted(store, key_hash):
        done.append(key_hash)
        return await read(store, key_hash)

    monkeypatch.setattr(keys, "stored_caller_of_hash", counted)
    return done


async def test_a_herd_of_one_key_reads_it_once(store, reads):
    created = await create_key(store, "herd", [], None)
    cache = KeyCache()
    callers = await asyncio.gather(
        *(lookup_caller(store, created.secret, cache) for _ in range(HERD))
    )
    assert [caller.key_id for caller in callers] == [created.key_id] * HERD
    assert len(reads) == 1


async def test_a_herd_of_an_unknown_key_reads_it_once(store, reads):
    cache = KeyCache()
    callers = await asyncio.gather(
        *(lookup_caller(store, "no-such-secret", cache) for _ in range(HERD))
    )
    assert callers == [None] * HERD
    assert len(reads) == 1


async def test_a_lookup_started_before_a_change_is_not_shared_after_it(store, reads):
    created = await create_key(store, "changing", [], None)
    cache = KeyCache()
    first = asyncio.ensure_future(lookup_caller(store, created.secret, cache))
    await asyncio.sleep(0)  # its read has started
    cache.changed(created.key_id)  # the change stream says the key changed
    second = await lookup_caller(store, created.secret, cache)
    assert (await first).key_id == second.key_id == created.key_id
    assert len(reads) == 2


async def test_a_cancelled_asker_leaves_the_read_to_the_others(store, reads):
    created = await create_key(store, "cancelled", [], None)
    cache = KeyCache()
    leaving = asyncio.ensure_future(lookup_caller(store, created.secret, cache))
    staying = asyncio.ensure_future(lookup_caller(store, created.secret, cache))
    await asyncio.sleep(0)
    leaving.cancel()
    assert (await staying).key_id == created.key_id
    assert leaving.cancelled()
    assert len(reads) == 1
