"""Issue 45, point 4, against `floorgate serve` over TLS: five seconds of `subscribe` then
`complete` on one socket (44,028 pairs) left none of the key's 100 slots free, 99 still
held ten minutes after every socket had closed (free again after 10-13 minutes, past the
60 s of SLOT_SECONDS), and hundreds of `KeyError` tracebacks in the log.

Now the socket's messages are limited (WS_MESSAGES_PER_SECOND, WS_MESSAGE_BURST): the
churning socket is closed with 4429; every slot its subscriptions took is free as soon
as each completes or the socket closes, whichever comes first, even one completed before
its resolver returned; and the log has no traceback."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import httpx
import pytest
import websockets

from resolvers.limits import WS_MESSAGE_BURST
from tests.e2e.live_changes.clients import (
    acked,
    closed_with,
    live_database,
    receive,
    send,
    slots_held,
    subscribe,
    tls,
    write_rounds,
)
from tests.servers import serve_tls

pytestmark = [pytest.mark.e2e, pytest.mark.security]
CHURNING = 3  # sockets at once, of one key


async def churn(socket: websockets.ClientConnection) -> None:
    """`subscribe` then `complete`, as fast as the socket takes them, until it closes
    (the client learns of the close late: what it sent meanwhile was buffered)."""
    with contextlib.suppress(websockets.ConnectionClosed):
        for pair in range(10 * WS_MESSAGE_BURST):
            await send(socket, subscribe(str(pair)))
            await send(socket, {"id": str(pair), "type": "complete"})


async def test_churn_closes_the_socket_and_frees_every_slot(db_server, tmp_path: Path) -> None:
    async with live_database(db_server, tmp_path, "floorgate_live_churn") as live:
        with serve_tls(live.settings.data_dir, db_server, live.settings) as served:
            for _ in range(2):  # a client that comes back is closed again
                sockets = [await acked(served, live.reader) for _ in range(CHURNING)]
                await asyncio.gather(*(churn(socket) for socket in sockets))
                closes = await asyncio.gather(*(closed_with(socket) for socket in sockets))
                assert (
                    closes
                    == [
                        (4429, "Too many messages on this socket: at most 10 a second, 200 at once")
                    ]
                    * CHURNING
                )
            for _ in range(100):  # the deletes are on their way
                if await slots_held(live.store, live.reader_id) == {}:
                    break
                await asyncio.sleep(0.05)
            left = await slots_held(live.store, live.reader_id)
            # The key may subscribe again at once, and its subscription works.
            socket = await acked(served, live.reader)
            await send(socket, subscribe("again"))
            await asyncio.sleep(0.5)
            async with httpx.AsyncClient(verify=tls(served), base_url=served.base) as client:
                await write_rounds(client, live, 1)
            first = await receive(socket)
            await socket.close()
    assert left == {}
    assert (first["id"], first["type"]) == ("again", "next")
    log = served.log.read_text()
    assert "Traceback" not in log
    assert "KeyError" not in log
