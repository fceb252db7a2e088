"""Issue 45, point 3, against `floorgate serve` over TLS: a disabled key kept subscribing
on its open socket (9 subscriptions and 20 events in the 40 s after `keys disable`).

Now a change of a key reaches every worker through its change stream: the sockets of a
disabled key close with 4403 within a second on every worker (nothing polls), and each
`subscribe` looks its key up afresh."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from resolvers.auth.keys import disable_key
from resolvers.auth.permissions import UNIT_ATTRIBUTES_READ
from storage import collections as c
from tests.e2e.live_changes.clients import (
    acked,
    closed_with,
    live_database,
    receive,
    send,
    slots_held,
    subscribe,
)
from tests.servers import serve_tls, serve_tls_with_args

pytestmark = [pytest.mark.e2e, pytest.mark.security]
SOCKETS = 12  # over two workers: the kernel hands each connection to either


# serial: "within a second" of the disable, against an idle machine's pace
@pytest.mark.serial
async def test_a_disabled_keys_sockets_close_within_a_second_on_every_worker(
    db_server, tmp_path: Path
) -> None:
    async with live_database(db_server, tmp_path, "floorgate_live_revoked") as live:
        with serve_tls_with_args(
            live.settings.data_dir, db_server, live.settings, ("--workers", "2")
        ) as served:
            sockets = [await acked(served, live.reader) for _ in range(SOCKETS)]
            for socket in sockets:
                await send(socket, subscribe("1"))
            # Every subscription runs, each holding its slot (waited for, not slept).
            running = {"socket": SOCKETS, "subscription": SOCKETS}
            deadline = time.monotonic() + 10
            while (held := await slots_held(live.store, live.reader_id)) != running:
                if time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.05)
            assert held == running
            started = time.monotonic()
            await disable_key(live.store, live.reader_id)  # another client, as the CLI is
            closes = await asyncio.gather(*(closed_with(socket, 5.0) for socket in sockets))
            took = time.monotonic() - started
            for _ in range(50):
                if await slots_held(live.store, live.reader_id) == {}:
                    break
                await asyncio.sleep(0.05)
            left = await slots_held(live.store, live.reader_id)
    assert closes == [(4403, "Invalid authentication credentials")] * SOCKETS
    assert took < 1.0, took
    assert left == {}
    assert "Traceback" not in served.log.read_text()


async def test_each_subscribe_looks_its_key_up_afresh(db_server, tmp_path: Path) -> None:
    """The key loses `service.unit-attributes.read` while its socket is open: the running
    subscription completes, the socket stays (the key is still valid), and the next
    `subscribe` is refused with FORBIDDEN, as the next HTTP request would be."""
    async with live_database(db_server, tmp_path, "floorgate_live_afresh") as live:
        with serve_tls(live.settings.data_dir, db_server, live.settings) as served:
            socket = await acked(served, live.reader)
            await send(socket, subscribe("1"))
            await asyncio.sleep(0.5)
            await live.store[c.API_KEYS].update_one(
                {"_id": live.reader_id}, {"$set": {"permissions": []}}
            )
            ended = await receive(socket, 5.0)
            await send(socket, subscribe("2"))
            refused = await receive(socket, 5.0)
            await socket.close()
    assert ended == {"id": "1", "type": "complete"}
    assert refused == {
        "id": "2",
        "type": "error",
        "payload": [
            {
                "message": f"Access denied: missing permission {UNIT_ATTRIBUTES_READ}",
                "extensions": {"code": "FORBIDDEN"},
            }
        ],
    }
