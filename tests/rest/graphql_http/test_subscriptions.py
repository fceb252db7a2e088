"""GraphQL subscriptions over WebSocket at /graphql (graphql-transport-ws): a key before
the `connection_ack`, flag and permission per subscription, an event for every write of
assignments (E21, E22, a replacement pair), a scoped key's view, and resume by cursor."""

from __future__ import annotations

import asyncio
import re
from dataclasses import replace

import pytest
import pytest_asyncio

from resolvers.auth.keys import create_key
from resolvers.auth.permissions import UNIT_ATTRIBUTES_READ
from rest.app import create_app
from storage import collections as c
from tests.streams import Socket, running_app, websocket

GROUP = "live-view"  # one attribute per unit: a new one replaces the old
GROUPS = "/v1/units/attribute-groups"
FLAG = "unit-attributes-resource"
CHANGES = """subscription ($group: ID!, $asset: ID, $after: String) {
  unitAttributeAssignmentChanges(groupId: $group, assetId: $asset, after: $after) {
    change at cursor assignment { groupId attributeId assetId unitId }
  }
}"""
TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$")


@pytest_asyncio.fixture(loop_scope="session")
async def live_group(store):
    await store[c.ATTRIBUTE_GROUPS].replace_one(
        {"_id": GROUP},
        {
            "_id": GROUP,
            "group_name": "Live view",
            "one_attribute_per_unit": True,
            "attributes": [
                {"attribute_id": f"{GROUP}-{key}", "attribute_name": key, "attribute_key": key}
                for key in ("city", "pool")
            ],
            "created_at": "2026-01-01T00:00:00+00:00",
            "updated_at": "2026-01-01T00:00:00+00:00",
        },
        upsert=True,
    )
    yield GROUP
    await store[c.ASSIGNMENTS].delete_many({"group_id": GROUP})
    await store[c.ATTRIBUTE_GROUPS].delete_one({"_id": GROUP})  # other tests list groups


def item(key: str, unit: str, asset: str = "asset-1") -> dict[str, str]:
    return {"group_id": GROUP, "attribute_id": f"{GROUP}-{key}", "asset_id": asset, "unit_id": unit}


async def write(client, key: str, items: list[dict[str, str]], remove: bool = False) -> None:
    path = f"{GROUPS}/{GROUP}/units" + ("/remove" if remove else "")
    headers = {"API-Key": key, "Experimental-Flags": FLAG}
    response = await client.put(path, headers=headers, json={"data": items})
    assert response.status_code == (204 if remove else 200), response.text


async def opened(socket: Socket, payload: dict[str, str]) -> None:
    await socket.send({"type": "connection_init", "payload": payload})
    assert await socket.receive() == {"type": "connection_ack"}


async def subscribe(socket: Socket, **variables: str | None) -> None:
    await socket.send(
        {
            "id": "1",
            "type": "subscribe",
            "payload": {"query": CHANGES, "variables": {"group": GROUP, **variables}},
        }
    )


async def next_change(socket: Socket) -> dict:
    message = await socket.receive()
    assert message["type"] == "next", message
    assert message["id"] == "1"
    return message["payload"]["data"]["unitAttributeAssignmentChanges"]


def short(change: dict) -> tuple[str, str, str, str]:
    assignment = change["assignment"]
    return (
        change["change"],
        assignment["attributeId"],
        assignment["assetId"],
        assignment["unitId"],
    )


async def test_no_key_or_an_invalid_key_is_closed_4403_without_ack(app, keys):
    for payload in ({}, {"API-Key": "not-a-key"}, {"API-Key": keys.disabled}):
        async with websocket(app) as socket:
            started = asyncio.get_running_loop().time()
            await socket.send({"type": "connection_init", "payload": payload})
            message = await socket.receive(timeout=1.0)
            assert message == {"type": "__closed__", "code": 4403}
            assert asyncio.get_running_loop().time() - started < 1.0


async def test_the_upgrade_requests_headers_are_accepted_too(app, keys, live_group):
    headers = {"API-Key": keys.full, "Experimental-Flags": FLAG}
    async with websocket(app, headers=headers) as socket:
        await opened(socket, {})
        await subscribe(socket, group=live_group)
        await asyncio.sleep(0.2)  # subscribed: nothing arrives until a write


async def test_a_missing_flag_or_permission_is_an_error_naming_it(app, keys, live_group):
    async with websocket(app) as socket:
        await opened(socket, {"API-Key": keys.full})
        await subscribe(socket)
        message = await socket.receive()
        assert message["type"] == "error", message
        assert message["payload"] == [
            {
                "message": "Not found: this experimental resource requires the "
                'Experimental-Flags header to include "unit-attributes-resource"',
                "extensions": {"code": "FLAG_REQUIRED"},
            }
        ]
    async with websocket(app) as socket:
        await opened(socket, {"API-Key": keys.plain, "Experimental-Flags": FLAG})
        await subscribe(socket)
        message = await socket.receive()
        assert message["type"] == "error", message
        assert [e["message"] for e in message["payload"]] == [
            "Access denied: missing permission service.unit-attributes.read"
        ]


async def test_every_write_is_an_event_in_order(app, client, keys, live_group):
    async with websocket(app) as socket:
        await opened(socket, {"API-Key": keys.full, "Experimental-Flags": FLAG})
        await subscribe(socket)
        await asyncio.sleep(0.3)  # the hub's stream opens
        await write(client, keys.full, [item("city", "u-001")])
        first = await next_change(socket)
        assert short(first) == ("assigned", f"{GROUP}-city", "asset-1", "u-001")
        assert first["assignment"]["groupId"] == GROUP
        assert TIMESTAMP.match(first["at"])
        # A replacement in a one-attribute-per-unit group: the old goes, then the new.
        await write(client, keys.full, [item("pool", "u-001")])
        second, third = await next_change(socket), await next_change(socket)
        assert short(second) == ("unassigned", f"{GROUP}-city", "asset-1", "u-001")
        assert short(third) == ("assigned", f"{GROUP}-pool", "asset-1", "u-001")
        await write(client, keys.full, [item("pool", "u-001")], remove=True)
        fourth = await next_change(socket)
        assert short(fourth) == ("unassigned", f"{GROUP}-pool", "asset-1", "u-001")
        cursors = [int(change["cursor"]) for change in (first, second, third, fourth)]
        assert cursors == sorted(cursors) and len(set(cursors)) == 4
        # Assigning what is assigned, or removing what is not, changes nothing: no event.
        await write(client, keys.full, [item("pool", "u-001")], remove=True)
        with pytest.raises(TimeoutError):
            await socket.receive(timeout=0.5)


async def test_a_scoped_key_sees_only_its_assets(app, client, keys, store, live_group):
    scoped = await create_key(store, "live-scoped", [UNIT_ATTRIBUTES_READ], ["asset-2"])
    async with websocket(app) as socket:
        await opened(socket, {"API-Key": scoped.secret, "Experimental-Flags": FLAG})
        await subscribe(socket)
        await asyncio.sleep(0.3)
        await write(client, keys.full, [item("city", "u-002")])  # asset-1: not in scope
        await write(client, keys.full, [item("city", "Ab", "asset-2")])
        change = await next_change(socket)
        assert short(change) == ("assigned", f"{GROUP}-city", "asset-2", "Ab")
        with pytest.raises(TimeoutError):
            await socket.receive(timeout=0.3)


async def test_resume_after_a_cursor_replays_what_followed(app, client, keys, live_group):
    credentials = {"API-Key": keys.full, "Experimental-Flags": FLAG}
    async with websocket(app) as socket:
        await opened(socket, credentials)
        await subscribe(socket, asset="asset-1")
        await asyncio.sleep(0.3)
        await write(client, keys.full, [item("city", "u-003")])
        await write(client, keys.full, [item("pool", "u-003")])
        seen = [await next_change(socket) for _ in range(3)]
    # Disconnected after the first event: resume from its cursor.
    async with websocket(app) as socket:
        await opened(socket, credentials)
        await subscribe(socket, asset="asset-1", after=seen[0]["cursor"])
        replayed = [await next_change(socket), await next_change(socket)]
        assert replayed == seen[1:]


async def test_input_and_an_unknown_group_are_refused_before_any_event(app, keys, live_group):
    credentials = {"API-Key": keys.full, "Experimental-Flags": FLAG}
    for variables, extensions in (
        (
            {"after": "not-a-cursor"},
            {"code": "BAD_USER_INPUT", "fields": {"after": ["is not a cursor of this stream"]}},
        ),
        ({"group": "no-such-group"}, {"code": "NOT_FOUND"}),
    ):
        async with websocket(app) as socket:
            await opened(socket, credentials)
            await subscribe(socket, **variables)
            message = await socket.receive()
            assert message["type"] == "error", message
            assert [(e["path"], e["extensions"]) for e in message["payload"]] == [
                (["unitAttributeAssignmentChanges"], extensions)
            ]


async def test_a_socket_that_never_sends_connection_init_is_closed(store, settings):
    """No `connection_init`, so no key: closed (4408) after the header timeout, as a
    connection that never sends its request head, not after strawberry's minute."""
    quick = create_app(replace(settings, header_timeout_seconds=0.3), store)
    async with websocket(quick) as socket:
        started = asyncio.get_running_loop().time()
        assert await socket.receive(timeout=2.0) == {"type": "__closed__", "code": 4408}
        assert 0.3 <= asyncio.get_running_loop().time() - started < 1.5


async def test_a_key_of_another_asset_asking_for_this_one_gets_nothing(
    app, client, keys, store, live_group
):
    """A key scoped to asset-2 that names asset-1 gets a stream without events, as E20
    answers it an empty list: it learns nothing of asset-1."""
    scoped = await create_key(store, "live-other", [UNIT_ATTRIBUTES_READ], ["asset-2"])
    async with websocket(app) as socket:
        await opened(socket, {"API-Key": scoped.secret, "Experimental-Flags": FLAG})
        await subscribe(socket, asset="asset-1")
        await asyncio.sleep(0.3)
        await write(client, keys.full, [item("city", "u-007")])
        with pytest.raises(TimeoutError):
            await socket.receive(timeout=0.5)
        # and asking from the start of the log shows nothing of asset-1 either
    async with websocket(app) as socket:
        await opened(socket, {"API-Key": scoped.secret, "Experimental-Flags": FLAG})
        await subscribe(socket, asset="asset-1", after="0")
        with pytest.raises(TimeoutError):
            await socket.receive(timeout=0.5)


async def test_over_the_keys_open_subscriptions_the_subscribe_is_an_error(
    db_server, settings, store, live_group
):
    """The cap counts WebSocket subscriptions and REST streams together, over every
    process (tests/rest/v1/test_event_stream_limits.py for REST's 429)."""
    capped = replace(settings, max_subscriptions_per_key=1)
    key = await create_key(store, "live-capped", [UNIT_ATTRIBUTES_READ], None)
    credentials = {"API-Key": key.secret, "Experimental-Flags": FLAG}
    async with (
        running_app(db_server.uri, capped) as app,
        websocket(app) as first,
        websocket(app) as second,
    ):
        await opened(first, credentials)
        await subscribe(first)
        await asyncio.sleep(0.2)  # the first holds its slot
        await opened(second, credentials)
        await subscribe(second)
        message = await second.receive()
    assert message["type"] == "error", message
    assert [(e["message"], e["extensions"]) for e in message["payload"]] == [
        (
            "Too many open subscriptions for this key: at most 1",
            {"code": "TOO_MANY_SUBSCRIPTIONS"},
        )
    ]


async def test_the_older_graphql_ws_protocol_is_not_served(app, keys):
    """Only graphql-transport-ws: an upgrade offering only the older `graphql-ws`
    (subscriptions-transport-ws) is closed with 4406 before any message is read, key
    or not (docs/graphql.md, "Subscriptions")."""
    credentials = {"API-Key": keys.full, "Experimental-Flags": FLAG}
    async with websocket(app, protocol="graphql-ws") as socket:
        await socket.send({"type": "connection_init", "payload": credentials})
        assert await socket.receive() == {"type": "__closed__", "code": 4406}
    assert socket.closed == (4406, "Subprotocol not acceptable")


MUTATION = """mutation ($group: ID!, $data: [UnitAttributeAssignmentInput!]!) {
  assign: assignUnitAttributes(groupId: $group, data: $data) { unitId }
}"""
UNASSIGN = MUTATION.replace("assign: assignUnitAttributes", "unassign: unassignUnitAttributes")


async def test_the_graphql_mutations_are_events_too(app, client, keys, live_group):
    """The mutations write through the same code as E21 and E22: the same events, the
    replacement pair included."""
    headers = {"API-Key": keys.full, "Experimental-Flags": FLAG}
    async with websocket(app) as socket:
        await opened(socket, headers)
        await subscribe(socket, asset="asset-1")
        await asyncio.sleep(0.3)
        for document, key in ((MUTATION, "city"), (MUTATION, "pool"), (UNASSIGN, "pool")):
            data = [
                {
                    "groupId": GROUP,
                    "attributeId": f"{GROUP}-{key}",
                    "assetId": "asset-1",
                    "unitId": "u-003",
                }
            ]
            answer = await client.post(
                "/graphql",
                json={"query": document, "variables": {"group": GROUP, "data": data}},
                headers=headers,
            )
            assert "errors" not in answer.json(), answer.text
        changes = [short(await next_change(socket)) for _ in range(4)]
    assert changes == [
        ("assigned", f"{GROUP}-city", "asset-1", "u-003"),
        ("unassigned", f"{GROUP}-city", "asset-1", "u-003"),
        ("assigned", f"{GROUP}-pool", "asset-1", "u-003"),
        ("unassigned", f"{GROUP}-pool", "asset-1", "u-003"),
    ]


@pytest.mark.parametrize(
    "query",
    [
        "{ assets { data { id } } }",
        "{ __schema { types { name fields { name } } } }",
        'mutation { unassignUnitAttributes(groupId: "live-view", data: []) { unitId } }',
    ],
)
async def test_queries_and_mutations_are_refused_over_the_websocket(app, keys, live_group, query):
    """Only subscriptions go over the socket: an operation there has no time budget, no
    access-log line and no kept answers, which HTTP gives a query or a mutation."""
    async with websocket(app) as socket:
        await opened(socket, {"API-Key": keys.full, "Experimental-Flags": FLAG})
        await socket.send({"id": "1", "type": "subscribe", "payload": {"query": query}})
        message = await socket.receive()
    assert (message["type"], message["id"]) == ("error", "1"), message
    assert [(e["message"], e["extensions"]) for e in message["payload"]] == [
        (
            "Only subscriptions are served over WebSocket: send queries and mutations to "
            "/graphql over HTTP",
            {"code": "SUBSCRIPTIONS_ONLY"},
        )
    ]


@pytest.mark.parametrize("method", ["GET", "POST"])
async def test_a_subscription_over_http_is_refused_in_words(client, keys, method, caplog):
    """A subscription has no answer over HTTP: it is refused before it runs, not run as a
    query whose stream is a null (which was an INTERNAL error and a traceback)."""
    document = 'subscription { unitAttributeAssignmentChanges(groupId: "g") { change } }'
    headers = {"API-Key": keys.full, "Experimental-Flags": FLAG}
    if method == "GET":
        response = await client.get("/graphql", params={"query": document}, headers=headers)
    else:
        response = await client.post("/graphql", json={"query": document}, headers=headers)
    assert (response.status_code, response.json()) == (
        200,
        {
            "data": None,
            "errors": [
                {
                    "message": "Subscriptions are served over WebSocket at /graphql "
                    "(graphql-transport-ws): send queries and mutations over HTTP",
                    "extensions": {"code": "NO_SUBSCRIPTIONS_OVER_HTTP"},
                }
            ],
        },
    )
    assert [r for r in caplog.records if r.levelname == "ERROR"] == []
