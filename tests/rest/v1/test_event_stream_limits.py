"""What bounds an event stream: open streams per key, counted across processes (429
before the stream starts, freed when a stream ends), and resuming only from what the
log still keeps (410, and 422 for a cursor the log never handed out). A HEAD of a stream
is refused: it would hold a subscription for nothing."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace

import httpx
import orjson
import pytest_asyncio

from resolvers.auth.keys import create_key, disable_key
from resolvers.auth.permissions import UNIT_ATTRIBUTES_READ
from storage import collections as c
from storage.attributes.events import change, latest, record
from storage.attributes.subscriptions import SOCKET, SUBSCRIPTION
from storage.transactions import atomically
from tests.rest.graphql_http.test_subscriptions import (
    FLAG,
    GROUP,
    item,
    live_group,
    opened,
    subscribe,
    write,
)
from tests.streams import event_stream, running_app, websocket

__all__ = ["live_group"]
PATH = f"/v1/units/attribute-groups/{GROUP}/units/changes"
TOO_MANY = {"message": "Too many open subscriptions for this key: at most 2"}
GONE = {
    "message": "Gone: events after this cursor are no longer kept; load the current state "
    "and subscribe without a cursor"
}


@pytest_asyncio.fixture(loop_scope="session")
async def two_workers(db_server, settings) -> AsyncIterator[tuple[object, object]]:
    """Two apps on the test database, each with a client of its own, as two workers
    (or machines) are: a cap of 2 open subscriptions per key."""
    capped = replace(settings, max_subscriptions_per_key=2)
    async with (
        running_app(db_server.uri, capped) as first,
        running_app(db_server.uri, capped) as second,
    ):
        yield first, second


async def slots_of(store, key_id: str, kind: str = SUBSCRIPTION) -> int:
    """The key's slots of `kind` held in the database (expired or not)."""
    return await store[c.SUBSCRIPTIONS].count_documents({"key": key_id, "kind": kind})


async def test_open_streams_per_key_are_counted_across_workers(two_workers, store, live_group):
    first, second = two_workers
    key = await create_key(store, "sse-capped", [UNIT_ATTRIBUTES_READ], None)
    other = await create_key(store, "sse-other", [UNIT_ATTRIBUTES_READ], None)
    headers = {"API-Key": key.secret, "Experimental-Flags": FLAG}
    async with (
        event_stream(first, PATH, headers) as one,
        event_stream(second, PATH, headers) as two,
    ):
        assert (one.status, two.status) == (200, 200)
        assert await slots_of(store, key.key_id) == 2
        for app in (first, second):
            async with event_stream(app, PATH, headers) as third:
                assert (third.status, orjson.loads(await third.body())) == (429, TOO_MANY)
                assert third.headers["content-type"] == "application/json"
        # another key is not held back by this one's streams
        other_headers = {"API-Key": other.secret, "Experimental-Flags": FLAG}
        async with event_stream(second, PATH, other_headers) as others:
            assert others.status == 200
    # closed streams give their slots back: the key may open two again
    for _ in range(50):
        if await slots_of(store, key.key_id) == 0:
            break
        await asyncio.sleep(0.02)
    assert await slots_of(store, key.key_id) == 0
    async with event_stream(second, PATH, headers) as again:
        assert again.status == 200


async def test_a_refused_stream_holds_no_slot(app, store, live_group):
    """A 404 (unknown group) or a 422 is decided before a slot is taken."""
    key = await create_key(store, "sse-refused", [UNIT_ATTRIBUTES_READ], None)
    headers = {"API-Key": key.secret, "Experimental-Flags": FLAG}
    for path, status in (
        ("/v1/units/attribute-groups/no-such-group/units/changes", 404),
        (PATH + "?after=x", 422),
    ):
        async with event_stream(app, path, headers) as stream:
            await stream.body()
            assert stream.status == status
    assert await slots_of(store, key.key_id) == 0


async def test_a_cursor_older_than_the_log_keeps_is_410(app, client, keys, store, live_group):
    """Events that expired (the TTL index removes the oldest first: here they are removed
    by hand) cannot be replayed: a resume that would skip them is refused with 410, one
    whose next event is still kept resumes."""
    headers = {"API-Key": keys.full, "Experimental-Flags": FLAG}
    await write(client, keys.full, [item("city", "u-008")])
    await write(client, keys.full, [item("pool", "u-008")])  # unassigned city, assigned pool
    last = await latest(store)
    log = store[c.ATTRIBUTE_EVENTS]
    expired = await log.find({"_id": {"$lte": last - 1}}).to_list()
    await log.delete_many({"_id": {"$lte": last - 1}})
    try:
        async with event_stream(app, f"{PATH}?after={last - 2}", headers) as stream:
            assert (stream.status, orjson.loads(await stream.body())) == (410, GONE)
        resumed = {**headers, "Last-Event-ID": str(last - 1)}
        async with event_stream(app, PATH, resumed) as stream:
            assert stream.status == 200
            assert await stream.event() == b"retry: 2000"
            kept = (await stream.event()).decode()
    finally:  # the log as it was, for the other tests of this database
        await log.insert_many(expired)
    assert kept.startswith(f"id: {last}\nevent: assigned\n")


async def test_a_cursor_past_the_last_event_is_422(app, keys, store, live_group):
    headers = {"API-Key": keys.full, "Experimental-Flags": FLAG}
    ahead = await latest(store) + 1000
    async with event_stream(app, f"{PATH}?after={ahead}", headers) as stream:
        body = orjson.loads(await stream.body())
    assert (stream.status, body) == (
        422,
        {
            "message": "Resource validation failed",
            "fields": {"after": ["is not a cursor of this stream"]},
        },
    )


async def test_last_event_id_wins_over_the_first_after(app, client, keys, store, live_group):
    """A browser's EventSource reconnects to the URL it was given (`?after=` of its first
    connection) and sends `Last-Event-ID`: the header says where it really is."""
    headers = {"API-Key": keys.full, "Experimental-Flags": FLAG}
    before = await latest(store)
    await write(client, keys.full, [item("city", "u-009")])
    await write(client, keys.full, [item("city", "u-010")])
    resumed = {**headers, "Last-Event-ID": str(before + 1)}
    async with event_stream(app, f"{PATH}?after={before}", resumed) as stream:
        assert await stream.event() == b"retry: 2000"
        first = (await stream.event()).decode()
    assert first.startswith(f"id: {before + 2}\n")


async def test_head_of_a_stream_is_405(client, keys, live_group):
    """Its `Allow` says GET alone, whatever method was refused (HEAD is no exception)."""
    headers = {"API-Key": keys.full, "Experimental-Flags": FLAG}
    for method in ("HEAD", "POST", "DELETE"):
        response = await client.request(method, PATH, headers=headers)
        assert (response.status_code, response.headers["allow"]) == (405, "GET"), method


async def test_an_event_source_sends_key_and_flag_in_the_query(app, keys, live_group):
    """A browser's EventSource can send no header: `api-key` and `experimental-flags` in
    the query open the stream. Other routes read flags from the header only."""
    query = f"api-key={keys.full}&experimental-flags={FLAG}"
    async with event_stream(app, f"{PATH}?{query}") as stream:
        assert stream.status == 200
        assert await stream.event() == b"retry: 2000"
    async with event_stream(app, f"{PATH}?api-key={keys.full}") as stream:
        body = orjson.loads(await stream.body())
    assert stream.status == 404
    assert "unit-attributes-resource" in body["message"]
    listed = f"/v1/units/attribute-groups/{GROUP}/units?{query}"
    async with event_stream(app, listed) as answer:
        assert orjson.loads(await answer.body())["message"] == body["message"]
    assert answer.status == 404


async def test_a_key_disabled_mid_stream_ends_its_streams(db_server, settings, store, live_group):
    """Once the key is disabled, the change reaches the app through its change stream
    (nothing polls): the event stream ends (its reconnect is 403), the WebSocket closes
    with 4403, and every slot is given back. (An app of its own, with a client of its
    own: the disable comes from another client, as `floorgate keys disable` does.)"""
    key = await create_key(store, "sse-revoked", [UNIT_ATTRIBUTES_READ], None)
    headers = {"API-Key": key.secret, "Experimental-Flags": FLAG}
    async with running_app(db_server.uri, settings) as app:
        async with event_stream(app, PATH, headers) as stream, websocket(app) as socket:
            await opened(socket, headers)
            await subscribe(socket)
            assert await stream.event() == b"retry: 2000"
            await asyncio.sleep(0.3)  # both run
            assert await slots_of(store, key.key_id) == 2
            assert await slots_of(store, key.key_id, SOCKET) == 1
            started = asyncio.get_running_loop().time()
            await disable_key(store, key.key_id)
            assert await stream.body(timeout=3.0) == b""  # the stream ended
            assert await socket.receive(timeout=3.0) == {"type": "__closed__", "code": 4403}
            assert asyncio.get_running_loop().time() - started < 3.0
        assert socket.closed == (4403, "Invalid authentication credentials")
        async with event_stream(app, PATH, headers) as again:
            assert (again.status, orjson.loads(await again.body())) == (
                403,
                {"message": "Invalid authentication credentials"},
            )
    for _ in range(50):
        if await slots_of(store, key.key_id) + await slots_of(store, key.key_id, SOCKET) == 0:
            break
        await asyncio.sleep(0.02)
    assert (await slots_of(store, key.key_id), await slots_of(store, key.key_id, SOCKET)) == (0, 0)


async def test_a_replay_is_charged_to_the_key_like_pages(db_server, settings, store, live_group):
    """Issue 45, point 10: each read of the log during a replay (500 event numbers at
    most) is charged like a page of the events it returned, at least one rate-limit unit.
    A key of 6 tokens (and hardly any refill) replays 1,200 logged events in three reads:
    with its lookup, 4 tokens; 2 are left for other requests (5 uncharged)."""
    limited = replace(settings, rate_limit_per_second=200.0)  # on, as served
    key = await create_key(store, "sse-replay", [UNIT_ATTRIBUTES_READ], None, limit=(0.001, 6))
    before = await latest(store)
    changes = [
        record_change(GROUP, f"{GROUP}-city", "asset-1", f"r-{number}") for number in range(1200)
    ]
    await atomically(store, lambda session: record(store, changes, session))
    headers = {"API-Key": key.secret, "Experimental-Flags": FLAG}
    async with running_app(db_server.uri, limited) as app:
        async with event_stream(app, f"{PATH}?after={before}", headers) as stream:
            assert await stream.event() == b"retry: 2000"
            cursors = [int(parsed_id(await stream.event(timeout=10))) for _ in range(1200)]
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as client:
            statuses = [
                (await client.get("/v1/assets", headers={"API-Key": key.secret})).status_code
                for _ in range(4)
            ]
    assert cursors == list(range(before + 1, before + 1201))
    assert statuses == [200, 200, 429, 429]


def record_change(group: str, attribute: str, asset: str, unit: str) -> dict:
    assignment = {"group_id": group, "attribute_id": attribute, "asset_id": asset, "unit_id": unit}
    return change("assigned", assignment)


def parsed_id(block: bytes) -> str:
    return block.decode().split("\n", 1)[0].removeprefix("id: ")
