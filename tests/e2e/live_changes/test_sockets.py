"""Issue 45, point 2 (the WebSocket level) and point 11 (the WebSocket part), against
`floorgate serve` over TLS.

- The older `graphql-ws` subprotocol had no init timeout: keyless sockets stayed open
  (90 s and counting) and 1,050 of them from one address made honest GETs 503. It is not
  served any more (4406 at once); a graphql-transport-ws socket without `connection_init`
  is closed with 4408 after FLOORGATE_HEADER_TIMEOUT_SECONDS.
- An upgrade without a key spends a token of its address's budget (2/s, burst 50): past
  it the socket is closed at once with 4429.
- A key's open sockets are capped over every worker (FLOORGATE_MAX_SOCKETS_PER_KEY): one
  key without permissions held 1,020 acknowledged sockets.
- Memory comes back once sockets close.
- A subscription document over a limit is an `error` with HTTP's errors (it was a bare
  `complete`)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from websockets.asyncio.client import ClientConnection

from resolvers.auth.keys import create_key
from resolvers.auth.permissions import UNIT_ATTRIBUTES_READ
from rest.ops.heap import GIVE_BACK_DELAY, GIVE_BACK_SECONDS
from tests.e2e.live_changes.clients import (
    FLAG,
    Live,
    acked,
    closed_with,
    connect_socket,
    live_database,
    receive,
    send,
    slots_held,
    tls,
)
from tests.servers import serve_tls, serve_tls_with_args

pytestmark = [pytest.mark.e2e, pytest.mark.security]


@pytest.fixture(scope="module")
async def live(db_server, tmp_path_factory) -> AsyncIterator[Live]:
    """One demo database for the module's served processes (each test starts its own with
    the settings it tests): each test installed the demo anew, the same work five times.
    A test gives back every slot it took (the sockets closed before its server stops);
    what one left behind would still count for its key, so a test that counts sockets
    uses a key of its own."""
    async with live_database(
        db_server, tmp_path_factory.mktemp("sockets"), "floorgate_live_sockets"
    ) as live:
        yield live


async def test_graphql_ws_is_refused_and_a_socket_without_init_times_out(
    db_server, live: Live
) -> None:
    with serve_tls(
        live.settings.data_dir, db_server, live.settings, FLOORGATE_HEADER_TIMEOUT_SECONDS="1"
    ) as served:
        legacy = await connect_socket(served, protocols=["graphql-ws"])
        started = time.monotonic()
        assert await closed_with(legacy) == (4406, "Subprotocol not acceptable")
        assert time.monotonic() - started < 1.0
        silent = await connect_socket(served)
        started = time.monotonic()
        assert await closed_with(silent) == (4408, "Connection initialisation timeout")
        assert 0.9 <= time.monotonic() - started < 5.0
    assert "Traceback" not in served.log.read_text()


async def test_keyless_upgrades_spend_their_addresss_budget(db_server, live: Live) -> None:
    """A burst of 5 (FLOORGATE_UNAUTHENTICATED_BURST): the sixth keyless upgrade from the
    address is closed at once with 4429, while a keyed upgrade and an honest GET pass."""
    with serve_tls(
        live.settings.data_dir,
        db_server,
        live.settings,
        FLOORGATE_UNAUTHENTICATED_BURST="5",
        FLOORGATE_UNAUTHENTICATED_RATE_PER_SECOND="0.01",
    ) as served:
        held = [await connect_socket(served) for _ in range(5)]
        refused = await connect_socket(served)
        assert await closed_with(refused, timeout=5) == (4429, "API rate limit exceeded")
        keyed = await acked(served, live.reader)
        async with httpx.AsyncClient(verify=tls(served), base_url=served.base) as client:
            honest = await client.get("/v1/assets", headers={"API-Key": live.reader})
        for socket in [*held, keyed]:
            await socket.close()
    assert honest.status_code == 200


async def test_a_keys_open_sockets_are_capped_over_every_worker(db_server, live: Live) -> None:
    """Three sockets per key over two workers: the fourth is closed with 4429 instead of
    its `connection_ack`; a closed one gives its slot back at once; another key is not
    held back. A key without any permission is capped alike."""
    nothing = await create_key(live.store, "nothing", [], None)
    another = await create_key(live.store, "another", [UNIT_ATTRIBUTES_READ], None)
    with serve_tls_with_args(
        live.settings.data_dir,
        db_server,
        live.settings,
        ("--workers", "2"),
        FLOORGATE_MAX_SOCKETS_PER_KEY="3",
    ) as served:
        sockets = [await acked(served, nothing.secret) for _ in range(3)]
        assert await slots_held(live.store, nothing.key_id) == {"socket": 3}
        fourth = await connect_socket(served, {"API-Key": nothing.secret})
        await send(fourth, {"type": "connection_init", "payload": {}})
        assert await closed_with(fourth) == (
            4429,
            "Too many open sockets for this key: at most 3",
        )
        other = await acked(served, another.secret)  # another key: its own count
        await sockets.pop().close()
        for _ in range(50):
            if await slots_held(live.store, nothing.key_id) == {"socket": 2}:
                break
            await asyncio.sleep(0.05)
        sockets.append(await acked(served, nothing.secret))
        for socket in [*sockets, other]:
            await socket.close()
        for _ in range(50):
            if await slots_held(live.store, nothing.key_id) == {}:
                break
            await asyncio.sleep(0.05)
        assert await slots_held(live.store, nothing.key_id) == {}
    assert "Traceback" not in served.log.read_text()


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for {pid}")


# What 400 open sockets with a subscription each hold in the server, and what it keeps
# once they closed (the heap the next sockets reuse), in MB. Measured: 45-60 open, 20-25
# after; before the fix nothing came back (and it grew with every round: +79 after
# four rounds of 500).
OPEN_BOUND_MB = 120
AFTER_BOUND_MB = 40
SOCKETS, ROUNDS = 400, 3
# Sockets opened at once: each upgrade waits for the admissions before it (a slot's insert
# and count each, on the database server), and 50 at once on a loaded parallel run had
# the last wait past the client's 20 s (two CI-like runs of 2026-11-29). Memory is what
# is measured here, not a burst: 10 at a time, the same sockets held.
AT_ONCE = 10
# The keys the sockets are spread over, in turn: taking a slot counts its key's open slots
# of the kind in the database (storage/attributes/subscriptions.py), so 400 sockets of one
# key cost the database server a count over up to 400 slots each, twice (socket and
# subscription): two thirds of the test's CPU. The server holds the same 400 sockets and
# subscriptions whichever key each is of.
KEYS = 8


async def given_back(pid: int, bound: float) -> float:
    """The server's RSS in MB once it is under `bound` or the server had time to give
    memory back. It gives back GIVE_BACK_DELAY after a mass close but at most every
    GIVE_BACK_SECONDS, so a round that closes soon after the last give-back waits up to
    GIVE_BACK_SECONDS (CI once sampled a fixed 2 s after the third round's close: nothing
    given back yet, 45 MB)."""
    deadline = time.monotonic() + GIVE_BACK_SECONDS + GIVE_BACK_DELAY + 3.0
    while rss_mb(pid) >= bound and time.monotonic() < deadline:
        await asyncio.sleep(0.25)
    return rss_mb(pid)


async def test_memory_comes_back_once_sockets_close(db_server, live: Live) -> None:
    """Keys of its own (KEYS, each socket of a round the next one's in turn): slots of its
    1,200 sockets still being deleted when the server stops count for them until they
    expire."""
    readers = [
        (await create_key(live.store, f"memory-{n}", [UNIT_ATTRIBUTES_READ], None)).secret
        for n in range(KEYS)
    ]
    with serve_tls(
        live.settings.data_dir,
        db_server,
        live.settings,
        FLOORGATE_MAX_SOCKETS_PER_KEY="1000",
        FLOORGATE_MAX_SUBSCRIPTIONS_PER_KEY="1000",
    ) as served:
        warm = await acked(served, readers[0])
        await warm.close()
        await asyncio.sleep(1.0)
        before = rss_mb(served.process.pid)
        figures = []
        for _ in range(ROUNDS):
            sockets: list[ClientConnection] = []
            try:
                for batch in range(SOCKETS // AT_ONCE):
                    sockets += await asyncio.gather(
                        *(
                            acked(served, readers[(batch * AT_ONCE + n) % KEYS])
                            for n in range(AT_ONCE)
                        )
                    )
                for number, socket in enumerate(sockets):
                    await send(socket, subscribe_message(str(number)))
                await asyncio.sleep(1.0)
                opened = rss_mb(served.process.pid)
            finally:  # closed by us, not by the server's stop (its slots deleted at once)
                await asyncio.gather(*(socket.close() for socket in sockets))
            after = await given_back(served.process.pid, before + AFTER_BOUND_MB)
            figures.append((opened - before, after - before))
    assert all(opened < OPEN_BOUND_MB for opened, _ in figures), figures
    assert all(after < AFTER_BOUND_MB for _, after in figures), figures


def subscribe_message(operation_id: str) -> dict:
    query = 'subscription { unitAttributeAssignmentChanges(groupId: "live-e2e") { cursor } }'
    return {"id": operation_id, "type": "subscribe", "payload": {"query": query}}


# Over a limit each (docs/limits.md, "GraphQL operations"): aliases, tokens, size; a
# syntax error, and a document that does not validate.
FIELD = 'unitAttributeAssignmentChanges(groupId: "live-e2e") { cursor }'
OVER_LIMITS = {
    "aliases": "subscription { " + " ".join(f"a{n}: {FIELD}" for n in range(40)) + " }",
    "tokens": 'subscription { unitAttributeAssignmentChanges(groupId: "live-e2e") { '
    + "cursor " * 6000
    + "} }",
    "size": "subscription { " + FIELD + " }" + " " * (1024 * 1024 + 1),
    "syntax": "subscription { unitAttributeAssignmentChanges(",
    "invalid": "subscription { unitAttributeAssignmentChanges { nope } }",
}


async def test_an_over_limit_subscription_is_an_error_as_over_http(db_server, live: Live) -> None:
    """The `error` of each document carries the errors HTTP answers for it (message and
    `extensions.code`); the socket stays open for the next."""
    with serve_tls(live.settings.data_dir, db_server, live.settings) as served:
        headers = {"API-Key": live.reader, "Experimental-Flags": FLAG}
        async with httpx.AsyncClient(verify=tls(served), base_url=served.base) as client:
            over_http = {
                name: (await client.post("/graphql", json={"query": doc}, headers=headers))
                for name, doc in OVER_LIMITS.items()
            }
        socket = await acked(served, live.reader)
        over_socket = {}
        for number, (name, document) in enumerate(OVER_LIMITS.items()):
            payload = {"query": document}
            await send(socket, {"id": str(number), "type": "subscribe", "payload": payload})
            over_socket[name] = await receive(socket)
        await socket.close()
    assert over_http["size"].status_code == 413
    assert over_http["size"].json() == {
        "message": "GraphQL document too large: at most 1048576 bytes"
    }
    assert over_socket["size"] == {
        "id": "2",
        "type": "error",
        "payload": [
            {
                "message": "GraphQL document too large: at most 1048576 bytes",
                "extensions": {"code": "DOCUMENT_TOO_LARGE"},
            }
        ],
    }
    for number, name in enumerate(OVER_LIMITS):
        if name == "size":
            continue
        answered = over_http[name].json()
        assert answered["data"] is None
        assert over_socket[name] == {
            "id": str(number),
            "type": "error",
            "payload": answered["errors"],
        }
    codes = {name: over_socket[name]["payload"][0]["extensions"]["code"] for name in OVER_LIMITS}
    assert codes == {
        "aliases": "BAD_USER_INPUT",
        "tokens": "BAD_USER_INPUT",
        "size": "DOCUMENT_TOO_LARGE",
        "syntax": "BAD_USER_INPUT",
        "invalid": "BAD_USER_INPUT",
    }
    assert over_socket["aliases"]["payload"][0]["message"] == "40 aliases found. Allowed: 30"
