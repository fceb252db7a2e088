"""What the live-changes tests of `floorgate serve` share: a demo database with a group
to write, WebSocket clients of /graphql (the `websockets` library, over TLS) and the
events they receive."""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import orjson
import websockets
from websockets.asyncio.client import ClientConnection

from resolvers.auth.keys import create_key
from resolvers.auth.permissions import UNIT_ATTRIBUTES_READ, UNIT_ATTRIBUTES_WRITE
from storage import collections as c
from storage.database import Store, connect
from tests.servers import Served, own_demo_database

FLAG = "unit-attributes-resource"
GROUP = "live-e2e"  # ten attributes, not one per unit: a round of writes is 200 events
ATTRIBUTES = [f"{GROUP}-a{n}" for n in range(10)]
CHANGES = (
    "subscription ($group: ID!, $after: String) { unitAttributeAssignmentChanges("
    "groupId: $group, after: $after) { change cursor assignment { attributeId unitId } } }"
)
PROTOCOL = [websockets.Subprotocol("graphql-transport-ws")]
WRITER = (1000.0, 100_000)  # the writer's own rate limit: tokens a second, burst


@dataclass
class Live:
    """A served process's database: its store (another client, as the CLI is), the
    operator's key, a key that may read assignments, the units of the group's writes,
    and the key that writes them."""

    settings: Any
    store: Store
    admin: str
    reader: str
    reader_id: str
    units: list[str]
    writer: str

    def items(self) -> list[dict[str, str]]:
        return [
            {"group_id": GROUP, "attribute_id": a, "asset_id": "harbor-view", "unit_id": u}
            for a in ATTRIBUTES
            for u in self.units
        ]


@contextlib.asynccontextmanager
async def live_database(db_server: Any, tmp_path: Path, name: str) -> AsyncIterator[Live]:
    """The demo in a database of its own, with the group `GROUP` and a reading key."""
    async with own_demo_database(db_server, tmp_path, name) as (settings, admin):
        store = connect(db_server.uri, settings)
        try:
            await store[c.ATTRIBUTE_GROUPS].insert_one(
                {
                    "_id": GROUP,
                    "group_name": "Live",
                    "one_attribute_per_unit": False,
                    "attributes": [
                        {"attribute_id": a, "attribute_name": a, "attribute_key": a}
                        for a in ATTRIBUTES
                    ],
                }
            )
            units = await store[c.UNITS].distinct("_id", {"asset_id": "harbor-view"})
            reader = await create_key(store, "reader", [UNIT_ATTRIBUTES_READ], None)
            # A bulk writer with a limit of its own (`keys create --rate-limit`): a round
            # of 200 changes spends 81 tokens (docs/api.md, "Rate limits"), and the tests
            # write thousands of changes as fast as the server takes them.
            writer = await create_key(store, "writer", [UNIT_ATTRIBUTES_WRITE], None, WRITER)
            units_written = sorted(units)[:10]
            yield Live(
                settings, store, admin, reader.secret, reader.key_id, units_written, writer.secret
            )
        finally:
            await store.close()


def tls(served: Served) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=str(served.certs.ca_cert))


async def connect_socket(
    served: Served, headers: dict[str, str] | None = None, protocols: list[Any] = PROTOCOL
) -> ClientConnection:
    return await websockets.connect(
        served.base.replace("https", "wss") + "/graphql",
        ssl=tls(served),
        subprotocols=protocols,
        additional_headers=headers or {},
        open_timeout=20,
        max_queue=None,  # the tests read what they are sent, all of it
    )


async def acked(served: Served, key: str) -> ClientConnection:
    """A socket of `key` (in its upgrade's headers: no address token spent), past its
    `connection_ack`."""
    socket = await connect_socket(served, {"API-Key": key})
    await send(
        socket, {"type": "connection_init", "payload": {"API-Key": key, "Experimental-Flags": FLAG}}
    )
    assert await receive(socket) == {"type": "connection_ack"}
    return socket


async def send(socket: ClientConnection, message: dict[str, Any]) -> None:
    await socket.send(orjson.dumps(message).decode())


async def receive(socket: ClientConnection, timeout: float = 10.0) -> dict[str, Any]:
    return orjson.loads(await asyncio.wait_for(socket.recv(), timeout))


def subscribe(operation_id: str, **variables: str) -> dict[str, Any]:
    payload = {"query": CHANGES, "variables": {"group": GROUP, **variables}}
    return {"id": operation_id, "type": "subscribe", "payload": payload}


async def closed_with(socket: ClientConnection, timeout: float = 10.0) -> tuple[int, str]:
    """The code and reason the server closed `socket` with (what it sent before, read)."""
    with contextlib.suppress(websockets.ConnectionClosed):
        async with asyncio.timeout(timeout):
            while True:
                await socket.recv()
    close = socket.protocol.close_rcvd
    assert close is not None, "the server did not close the socket"
    return close.code, close.reason


async def write_rounds(client: httpx.AsyncClient, live: Live, rounds: int) -> None:
    """`rounds` times: assign every item of the group, then remove them (200 events)."""
    headers = {"API-Key": live.writer, "Experimental-Flags": FLAG}
    path = f"/v1/units/attribute-groups/{GROUP}/units"
    for _ in range(rounds):
        for target, status in ((path, 200), (f"{path}/remove", 204)):
            response = await client.put(target, json={"data": live.items()}, headers=headers)
            assert response.status_code == status, response.text


async def slots_held(store: Store, key_id: str) -> dict[str, int]:
    """The key's slots in the database, by kind (subscriptions, sockets)."""
    found: dict[str, int] = {}
    async for slot in store[c.SUBSCRIPTIONS].find({"key": key_id}):
        kind = slot.get("kind", "subscription")  # (before issue 45, slots had no kind)
        found[kind] = found.get(kind, 0) + 1
    return found
