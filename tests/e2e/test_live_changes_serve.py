"""`floorgate serve` stopped while live changes are open: its event streams and
subscriptions end at once (an SSE client reconnects with its last id, a WebSocket is
closed with 1012 "service restart"), and the process exits without a traceback instead
of waiting for clients that never leave."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import ssl
import time
from pathlib import Path

import httpx
import orjson
import pytest
import websockets

from tests.servers import own_demo_database, serve_tls, serve_tls_with_args

pytestmark = pytest.mark.e2e
FLAG = "unit-attributes-resource"
STREAM = "/v1/units/attribute-groups/view/units/changes"
FEATURES = "/v1/units/attribute-groups/features/units"
CHANGES = f"{FEATURES}/changes"
BALCONY = {
    "data": [
        {
            "group_id": "features",
            "attribute_id": "features-balcony",
            "asset_id": "harbor-view",
            "unit_id": "b1-101",
        }
    ]
}
SUBSCRIPTION = 'subscription { unitAttributeAssignmentChanges(groupId: "view") { cursor } }'


async def test_stopping_the_server_ends_every_stream(db_server, tmp_path: Path) -> None:
    async with own_demo_database(db_server, tmp_path, "floorgate_live_shutdown") as (settings, key):
        # No drain: the streams end at the signal (test_readiness_serve drains first).
        with serve_tls(
            settings.data_dir, db_server, settings, FLOORGATE_DRAIN_SECONDS="0"
        ) as served:
            context = ssl.create_default_context(cafile=str(served.certs.ca_cert))
            headers = {"API-Key": key, "Experimental-Flags": FLAG}
            async with httpx.AsyncClient(verify=context, base_url=served.base) as client:
                async with client.stream("GET", STREAM, headers=headers) as stream:
                    assert stream.status_code == 200
                    lines = stream.aiter_lines()
                    assert await anext(lines) == "retry: 2000"
                    socket = await websockets.connect(
                        served.base.replace("https", "wss") + "/graphql",
                        ssl=context,
                        subprotocols=[websockets.Subprotocol("graphql-transport-ws")],
                    )
                    await socket.send(
                        orjson.dumps({"type": "connection_init", "payload": headers}).decode()
                    )
                    assert orjson.loads(await socket.recv()) == {"type": "connection_ack"}
                    subscribe = {"id": "1", "type": "subscribe", "payload": {"query": SUBSCRIPTION}}
                    await socket.send(orjson.dumps(subscribe).decode())
                    await asyncio.sleep(0.3)
                    started = time.monotonic()
                    served.process.send_signal(signal.SIGTERM)
                    rest = [line async for line in lines]  # the stream ends: no hang
                    ended = time.monotonic() - started
                with pytest.raises(websockets.ConnectionClosed) as closed:
                    while True:
                        await socket.recv()
            code = await asyncio.to_thread(served.process.wait, 10)
            stopped = time.monotonic() - started
    log = served.log.read_text()
    assert rest == ["", "retry: 2000", ""]  # the retry advice again, then a clean end
    assert ended < 2.0, ended
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1012
    # uvicorn shuts down gracefully, then raises the signal again with its default action
    assert (code, stopped < 5.0) == (-signal.SIGTERM, True), stopped
    assert "Traceback" not in log
    assert "timeout graceful shutdown exceeded" not in log


async def test_a_websocket_message_over_its_bound_closes_the_socket(
    db_server, settings, tmp_path: Path
) -> None:
    """uvicorn reads at most the document limit + 256 KiB of one message (docs/limits.md):
    a larger `connection_init` is never read whole; the socket is closed with 1009."""
    with serve_tls(tmp_path, db_server, settings) as served:
        context = ssl.create_default_context(cafile=str(served.certs.ca_cert))
        async with websockets.connect(
            served.base.replace("https", "wss") + "/graphql",
            ssl=context,
            subprotocols=[websockets.Subprotocol("graphql-transport-ws")],
            max_size=None,
        ) as socket:
            padding = "x" * (settings.graphql_max_document_bytes + 300 * 1024)
            message = {"type": "connection_init", "payload": {"API-Key": padding}}
            await socket.send(orjson.dumps(message).decode())
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await socket.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009


async def test_workers_share_the_cap_and_each_delivers(db_server, tmp_path: Path) -> None:
    """`--workers 2`: each worker watches the log and feeds its own streams, and the cap
    on a key's open streams counts them over both (3 here: the fourth is 429)."""
    async with own_demo_database(db_server, tmp_path, "floorgate_live_workers") as (settings, key):
        with serve_tls_with_args(
            settings.data_dir,
            db_server,
            settings,
            ("--workers", "2"),
            FLOORGATE_MAX_SUBSCRIPTIONS_PER_KEY="3",
        ) as served:
            context = ssl.create_default_context(cafile=str(served.certs.ca_cert))
            headers = {"API-Key": key, "Experimental-Flags": FLAG}
            limits = httpx.Limits(max_connections=10, max_keepalive_connections=0)
            async with (
                httpx.AsyncClient(
                    verify=context, base_url=served.base, limits=limits, timeout=10
                ) as client,
                contextlib.AsyncExitStack() as streams,
            ):
                opened = [
                    await streams.enter_async_context(
                        client.stream("GET", CHANGES, headers=headers)
                    )
                    for _ in range(3)
                ]
                lines = [stream.aiter_lines() for stream in opened]
                assert [await anext(each) for each in lines] == ["retry: 2000"] * 3
                fourth = await client.get(CHANGES, headers=headers)
                await asyncio.sleep(0.3)
                removed = await client.put(f"{FEATURES}/remove", json=BALCONY, headers=headers)
                assigned = await client.put(FEATURES, json=BALCONY, headers=headers)
                seen = [await next_event(each) for each in lines]
    assert [stream.status_code for stream in opened] == [200] * 3
    assert (fourth.status_code, fourth.json()) == (
        429,
        {"message": "Too many open subscriptions for this key: at most 3"},
    )
    assert (removed.status_code, assigned.status_code) == (204, 200)
    assert len({event for event in seen}) == 1  # the same event, on every stream
    assert "event: assigned" in seen[0]


async def next_event(lines) -> str:
    """The next `event:` line of a stream of the features group's changes."""
    while True:
        line = await asyncio.wait_for(anext(lines), 5)
        if line.startswith("event: "):
            return line
