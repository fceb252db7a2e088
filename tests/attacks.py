"""The attacks of issue 30 (findings 1-7), each run for a while against a served floorgate
from a process of its own, so that the measuring client's latency is the server's:
`python -m tests.attacks NAME BASE CA_FILE KEY SECONDS`. tests/e2e/test_attack_latency.py
starts them; every request is bounded in count and time and goes to this machine only."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import json
import os
import resource
import socket
import ssl
import sys
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

import httpx
import websockets

SVG_NS = "http://www.w3.org/2000/svg"
RECT = '<rect width="1" height="1"/>'
WALK = "__schema { types { fields { type { ofType { ofType { name } } } } } }"
# Requests under way at once, as the review measured each attack.
CONCURRENCY = {
    "introspection": 12,
    "refused-parse": 2,
    "huge-document": 2,
    "big-body": 2,
    "junk-parameters": 8,
    "long-queries": 8,
    "big-headers": 8,
    "big-headers-40": 40,  # issue 45, point 5: threads, each reconnecting
    "socket-flood": 50,  # issue 45, point 2: upgrades under way at once
    "persisted-registration": 4,  # issue 45, point 10: clients registering at once
    "aliased-routes": 4,  # issue 45, point 9: clients posting 30 aliased routes each
    "near-searches": 4,  # issue 63, finding 2: 24 aliased `near` searches, no permission
    "nearest-routes": 4,  # issue 63, finding 3: 13 aliased routes to 400 candidates each
}
MAX_REQUESTS = 5000  # per attack run, whatever its time


def introspection(number: int) -> dict:
    """Finding 1: 30 aliases of a deep introspection walk, without a key."""
    query = "{ " + " ".join(f"a{number}_{i}: {WALK}" for i in range(30)) + " }"
    return {"method": "POST", "url": "/graphql", "json": {"query": query}}


def refused_parse(number: int) -> dict:
    """Finding 2: an 8 MB SVG refused (too many elements) by E10."""
    svg = f'<svg xmlns="{SVG_NS}">{RECT * 300_000}</svg>'.encode()
    return {
        "method": "POST",
        "url": "/v1/maps/parse",
        "content": svg,
        "headers": {"Content-Type": "image/svg+xml"},
        "keyed": True,
    }


def huge_document(number: int) -> dict:
    """Finding 3: distinct 15 MB GraphQL documents."""
    padding = f"# {number} " + "x" * 15_000_000 + "\n"
    return {
        "method": "POST",
        "url": "/graphql",
        "json": {"query": padding + "{ assets { data { id } } }"},
        "keyed": True,
    }


def big_body(number: int) -> dict:
    """Finding 4: a 15 MB JSON body to E21."""
    item = {"group_id": "g", "attribute_id": "a", "asset_id": "s", "unit_id": f"u{number}"}
    return {
        "method": "PUT",
        "url": "/v1/units/attribute-groups/g/units",
        "json": {"data": [item] * 170_000},
        "keyed": True,
        "headers": {"Experimental-Flags": "unit-attributes-resource"},
    }


def junk_parameters(number: int) -> dict:
    """Finding 5: GETs with 4 KB junk parameters."""
    return {"method": "GET", "url": f"/v1/units?per-page=1&x{number}={'j' * 4000}", "keyed": True}


def long_queries(number: int) -> dict:
    """Finding 6: keyless requests with long query strings."""
    return {"method": "GET", "url": f"/v1/assets?q{number}={'q' * 64_000}"}


# Issue 45, point 10: automatic persisted queries stored before the attack registers more
# (the measuring test stores them: `stored_persisted_queries`), and this run's own mark, so
# that each run's documents are new.
PERSISTED_STORED = 1_400
RUN_MARK = f"{os.getpid()}_{time.time_ns()}"


def persisted_text(mark: str, number: int, padding: int = 250) -> str:
    """A GraphQL document of its own (~300 bytes, or `padding` more)."""
    return f"query Registered_{mark}_{number} {{ __typename }}" + " " * padding


def stored_persisted_queries() -> list[dict]:
    """PERSISTED_STORED automatic documents as `storage.persisted_queries` stores them
    (before `seq`: their totals and order are counted at the first registration)."""
    now = datetime.now(UTC)
    rows = []
    for number in range(PERSISTED_STORED):
        text = persisted_text("stored", number, 2000)  # documents of 2 KB, 2.8 MB in all
        rows.append(
            {
                "_id": hashlib.sha256(text.encode()).hexdigest(),
                "document": text,
                "bytes": len(text.encode()) + 64,
                "safelisted": False,
                "registered_at": now,
                "last_used": now,
            }
        )
    return rows


def persisted_registration(number: int) -> dict:
    """Point 10: a new automatic persisted query, its text and hash, with the attacker's
    key: each one is stored (registered) once it ran."""
    text = persisted_text(RUN_MARK, number)
    sha = hashlib.sha256(text.encode()).hexdigest()
    extensions = {"persistedQuery": {"version": 1, "sha256Hash": sha}}
    return {
        "method": "POST",
        "url": "/graphql",
        "json": {"query": text, "extensions": extensions},
        "keyed": True,
    }


# Issue 45, point 9: documents of 30 aliased `route` fields on the demo's four-level
# building map, which the measuring test stores as ROUTE_MAP (`route_map`).
ROUTE_MAP = "attack-routes"
ROUTE_ALIASES = 30


def aliased_routes(number: int) -> dict:
    """Point 9: 30 routes across the building in one document, one of three documents
    (to each of three floors), each route from a point of its own sent as a variable: a
    document parsed once, its answer never one kept before."""
    floor = number % 3 + 1
    names = [f"f{i}" for i in range(ROUTE_ALIASES)]
    fields = " ".join(
        f'r{i}: route(unitMapId: "{ROUTE_MAP}", mode: "wheelchair", from: ${name}, '
        f'to: {{x: 1296, y: 256, floorId: "b1-f{floor}"}}) {{ reason route {{ distance steps }} }}'
        for i, name in enumerate(names)
    )
    declared = ", ".join(f"${name}: WaypointInput!" for name in names)
    variables = {
        name: {"x": 104 + (number * ROUTE_ALIASES + i) % 1192, "y": 256, "floorId": "b1-f4"}
        for i, name in enumerate(names)
    }
    return {
        "method": "POST",
        "url": "/graphql",
        "json": {"query": f"query ({declared}) {{ {fields} }}", "variables": variables},
        "keyed": True,
        "headers": {"Experimental-Flags": "directions"},
    }


NEAR_ALIASES = 24
NEAREST_ALIASES = 13
NEAREST_IDS = 400


def near_searches(number: int) -> dict:
    """Issue 63, finding 2: 24 aliased searches with `near` in one new document, from a
    key without the distances permission (the test gives this attack such a key)."""
    fields = " ".join(
        f's{i}: search(q: "room {number}", unitMapId: "{ROUTE_MAP}", near: "n{number}-{i}") '
        "{ data { id distance } }"
        for i in range(NEAR_ALIASES)
    )
    return {
        "method": "POST",
        "url": "/graphql",
        "json": {"query": f"{{ {fields} }}"},
        "keyed": True,
        "headers": {"Experimental-Flags": "search"},
    }


def nearest_routes(number: int) -> dict:
    """Issue 63, finding 3: 13 aliased routes, each to the nearest of 400 location ids,
    from a point and to ids of their own (variables of one document: its parse is
    shared, its price is not, as the aliased routes' of issue 45)."""
    fields = " ".join(
        f'r{i}: route(unitMapId: "{ROUTE_MAP}", from: $from, to: {{nearest: {{ids: $ids}}}}) '
        "{ reason route { distance } }"
        for i in range(NEAREST_ALIASES)
    )
    variables = {
        "from": {"x": 104 + number % 1000, "y": 256, "floorId": "b1-f4"},
        "ids": [f"loc-{number}-{k}" for k in range(NEAREST_IDS)],
    }
    query = f"query ($from: WaypointInput!, $ids: [ID!]) {{ {fields} }}"
    return {
        "method": "POST",
        "url": "/graphql",
        "json": {"query": query, "variables": variables},
        "keyed": True,
        "headers": {"Experimental-Flags": "directions"},
    }


def route_map() -> tuple[dict, bytes]:
    """The map `aliased_routes` asks for: the demo's building 1 (four levels, one per
    floor, with stairs and an elevator), as a unit map of the fixtures' asset-1, and its
    walk graph's file."""
    from parsing.demo.drawings import FLOORS, building_svg, floor_plan
    from parsing.svg import parse_unit_map
    from routing.build import build_walk_graph
    from routing.levels import level_records
    from routing.model import graph_bytes
    from tests.fixtures import stamp

    parsed = parse_unit_map(building_svg([floor_plan(1, floor) for floor in FLOORS], "B1"))
    graph = build_walk_graph(parsed)
    assert graph is not None
    unit_map = stamp(
        {
            "_id": ROUTE_MAP,
            "asset_id": "asset-1",
            "background_id": None,
            "name": "Routes under attack",
            "style": "a",
            "style_type": "floor_plate",
            "tags": ["pathfinding"],
            "routing_tier": "basic",
            "unit_ids": [],
            "feet_per_unit": parsed.feet_per_unit,
            "levels": level_records(parsed.levels),
            "graph_file": f"maps/{ROUTE_MAP}/walk.npz",
        }
    )
    return unit_map, graph_bytes(graph)


ATTACKS: dict[str, Callable[[int], dict]] = {
    "introspection": introspection,
    "refused-parse": refused_parse,
    "huge-document": huge_document,
    "big-body": big_body,
    "junk-parameters": junk_parameters,
    "long-queries": long_queries,
    "persisted-registration": persisted_registration,
    "aliased-routes": aliased_routes,
    "near-searches": near_searches,
    "nearest-routes": nearest_routes,
}


async def flood(name: str, base: str, ca: str, key: str, seconds: float) -> int:
    """Requests of one kind, CONCURRENCY at a time, until `seconds` pass."""
    make = ATTACKS[name]
    deadline = time.monotonic() + seconds
    numbers = itertools.count()
    context = ssl.create_default_context(cafile=ca)
    sent = 0
    async with httpx.AsyncClient(base_url=base, verify=context, timeout=30) as client:

        async def worker() -> None:
            nonlocal sent
            while time.monotonic() < deadline and sent < MAX_REQUESTS:
                request = make(next(numbers))
                headers = {**request.pop("headers", {})}
                if request.pop("keyed", False):
                    headers["API-Key"] = key
                sent += 1
                with contextlib.suppress(httpx.HTTPError):  # closed connections: refusals
                    await client.request(**request, headers=headers)

        await asyncio.gather(*(worker() for _ in range(CONCURRENCY[name])))
    return sent


def big_headers(base: str, ca: str, seconds: float) -> int:
    """Finding 7: connections that send 1 MB request heads."""
    parts = urlsplit(base)
    context = ssl.create_default_context(cafile=ca)
    deadline = time.monotonic() + seconds
    sent = 0

    def one() -> None:
        with (
            socket.create_connection((parts.hostname, parts.port), timeout=10) as raw,
            context.wrap_socket(raw, server_hostname=parts.hostname) as sock,
        ):
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: ")
            try:
                for _ in range(16):
                    sock.sendall(b"b" * 65536)
                while sock.recv(65536):
                    pass
            except OSError:
                pass

    async def run() -> None:
        nonlocal sent
        while time.monotonic() < deadline and sent < MAX_REQUESTS:
            count = CONCURRENCY["big-headers"]
            await asyncio.gather(*(asyncio.to_thread(one) for _ in range(count)))
            sent += count

    asyncio.run(run())
    return sent


def big_heads_reconnecting(base: str, ca: str, seconds: float) -> int:
    """Issue 45, point 5: 1 MB request heads from 40 threads, each on a new connection
    that reads its answer's head (431) and closes at once, without waiting for the server
    to drain and close: refused connections pile up on the server, lingering."""
    parts = urlsplit(base)
    context = ssl.create_default_context(cafile=ca)
    deadline = time.monotonic() + seconds
    sent = 0

    def one() -> None:
        with (
            socket.create_connection((parts.hostname, parts.port), timeout=10) as raw,
            context.wrap_socket(raw, server_hostname=parts.hostname) as sock,
        ):
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: ")
            for _ in range(16):
                sock.sendall(b"b" * 65536)
            answer = b""
            while b"\r\n\r\n" not in answer and (chunk := sock.recv(65536)):
                answer += chunk

    def thread() -> None:
        nonlocal sent
        while time.monotonic() < deadline and sent < MAX_REQUESTS:
            sent += 1
            with contextlib.suppress(OSError):  # reset: refusals
                one()

    threads = [threading.Thread(target=thread) for _ in range(CONCURRENCY["big-headers-40"])]
    for started in threads:
        started.start()
    for started in threads:
        started.join()
    return sent


SOCKETS_HELD = 1_100  # at most, at once: more than a worker's connection limit


async def socket_flood(base: str, ca: str, seconds: float) -> int:
    """Issue 45, point 2: keyless graphql-transport-ws upgrades from one address, each
    held open without a `connection_init` until the server closes it, then opened again;
    up to SOCKETS_HELD at once, CONCURRENCY["socket-flood"] upgrades under way."""
    context = ssl.create_default_context(cafile=ca)
    url = base.replace("https://", "wss://") + "/graphql"
    deadline = time.monotonic() + seconds
    held = asyncio.Semaphore(SOCKETS_HELD)
    opened = 0
    holding: set[asyncio.Task] = set()

    async def hold(live: Any) -> None:
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(live.wait_closed(), max(0.0, deadline - time.monotonic()))
            await live.close()
        finally:
            held.release()

    async def opener() -> None:
        nonlocal opened
        while time.monotonic() < deadline and opened < MAX_REQUESTS:
            await held.acquire()
            opened += 1
            try:
                live = await websockets.connect(
                    url,
                    ssl=context,
                    subprotocols=[websockets.Subprotocol("graphql-transport-ws")],
                    open_timeout=10,
                )
            except (OSError, websockets.WebSocketException, TimeoutError):
                held.release()
                await asyncio.sleep(0.1)  # refused (503, 429): again in a moment
                continue
            task = asyncio.create_task(hold(live))
            holding.add(task)
            task.add_done_callback(holding.discard)

    await asyncio.gather(*(opener() for _ in range(CONCURRENCY["socket-flood"])))
    await asyncio.gather(*holding)
    return opened


# -- live changes (issue 45, points 4, 8 and 10) ---------------------------------------
# The group the attacker writes and subscribes to: the measuring test stores it
# (`live_group`), the attacker's writes leave it as they found it (every item assigned is
# removed again). Ten attributes on the ten units of asset-1: 100 events per write.
LIVE_GROUP = "attack-live"
LIVE_FLAGS = {"Experimental-Flags": "unit-attributes-resource"}
LIVE_UNITS = [f"u-{n:03d}" for n in range(1, 11)]
LIVE_ATTRIBUTES = [f"{LIVE_GROUP}-a{n}" for n in range(10)]
LIVE_CHANGES = f"/v1/units/attribute-groups/{LIVE_GROUP}/units/changes"
LIVE_WRITE = f"/v1/units/attribute-groups/{LIVE_GROUP}/units"
LIVE_SUBSCRIPTION = (
    "subscription ($group: ID!) { unitAttributeAssignmentChanges(groupId: $group) "
    "{ change at cursor assignment { groupId attributeId assetId unitId } } }"
)
READY = "ready"  # an attack that sets up first says so: the measuring waits for it
SETS_UP = ("replay-from-zero", "subscriber-fanout")
REPLAY_SEEDED = 3_000  # events the replay attack logs before it starts (at least)
REPLAY_STREAMS = 20
FANOUT_SOCKETS, FANOUT_PER_SOCKET = 10, 10  # 100 subscriptions of the attacker's key
CHURN_SOCKETS = 4


def live_group() -> dict:
    """The attack's attribute group, as stored (not one attribute per unit)."""
    return {
        "_id": LIVE_GROUP,
        "group_name": "Attack",
        "one_attribute_per_unit": False,
        "attributes": [
            {"attribute_id": attribute, "attribute_name": attribute, "attribute_key": attribute}
            for attribute in LIVE_ATTRIBUTES
        ],
    }


LIVE_ITEMS = [
    {"group_id": LIVE_GROUP, "attribute_id": attribute, "asset_id": "asset-1", "unit_id": unit}
    for attribute in LIVE_ATTRIBUTES
    for unit in LIVE_UNITS
]


async def write_live_changes(client: httpx.AsyncClient, key: str) -> int:
    """One round of E21 then E22 over the whole group: 200 events, nothing left changed."""
    headers = {"API-Key": key, **LIVE_FLAGS}
    written = 0
    for path in (LIVE_WRITE, f"{LIVE_WRITE}/remove"):
        response = await client.put(path, json={"data": LIVE_ITEMS}, headers=headers)
        written += len(LIVE_ITEMS) if response.status_code in (200, 204) else 0
    return written


def websocket_url(base: str) -> str:
    return base.replace("https://", "wss://") + "/graphql"


async def live_socket(base: str, context: ssl.SSLContext, key: str) -> Any:
    """An acknowledged graphql-transport-ws socket of `key` (in the upgrade's headers too:
    a keyless upgrade spends its address's budget, which the attacks would exhaust)."""
    live = await websockets.connect(
        websocket_url(base),
        ssl=context,
        subprotocols=[websockets.Subprotocol("graphql-transport-ws")],
        additional_headers={"API-Key": key},
        open_timeout=10,
    )
    init = {"type": "connection_init", "payload": {"API-Key": key, **LIVE_FLAGS}}
    await live.send(json.dumps(init))
    await asyncio.wait_for(live.recv(), 10)  # connection_ack
    return live


def subscribe_message(number: int) -> str:
    payload = {"query": LIVE_SUBSCRIPTION, "variables": {"group": LIVE_GROUP}}
    return json.dumps({"id": str(number), "type": "subscribe", "payload": payload})


async def replay_from_zero(base: str, ca: str, key: str, seconds: float) -> int:
    """Point 10: REPLAY_STREAMS event streams resuming from cursor 0 after thousands of
    events are logged, each opened again once it has read the replay."""
    context = ssl.create_default_context(cafile=ca)
    opened = 0
    limits = httpx.Limits(max_connections=REPLAY_STREAMS + 2)
    async with httpx.AsyncClient(
        base_url=base, verify=context, timeout=30, limits=limits
    ) as client:
        seeded = 0
        while seeded < REPLAY_SEEDED:
            written = await write_live_changes(client, key)
            seeded += written
            if written < 2 * len(LIVE_ITEMS):  # refused: the setup waits for its budget
                await asyncio.sleep(1)
        print(READY, flush=True)
        deadline = time.monotonic() + seconds  # the setup is not the attack's time
        headers = {"API-Key": key, **LIVE_FLAGS}

        async def reader() -> None:
            nonlocal opened
            while time.monotonic() < deadline:
                opened += 1
                events = 0
                with contextlib.suppress(httpx.HTTPError):
                    async with client.stream(
                        "GET", f"{LIVE_CHANGES}?after=0", headers=headers
                    ) as stream:
                        async for line in stream.aiter_lines():
                            events += line.startswith("id: ")
                            if events >= seeded or time.monotonic() > deadline:
                                break
                        if stream.status_code != 200:
                            await asyncio.sleep(0.5)

        await asyncio.gather(*(reader() for _ in range(REPLAY_STREAMS)))
    return opened


async def subscriber_fanout(base: str, ca: str, key: str, seconds: float) -> int:
    """Point 8: 100 subscriptions of the attacker's key, read as they come, while the
    attacker writes changes with E21 and E22."""
    context = ssl.create_default_context(cafile=ca)
    sockets = [await live_socket(base, context, key) for _ in range(FANOUT_SOCKETS)]
    for live in sockets:
        for number in range(FANOUT_PER_SOCKET):
            await live.send(subscribe_message(number))
    print(READY, flush=True)
    deadline = time.monotonic() + seconds  # the setup is not the attack's time

    async def drain(live: Any) -> None:
        with contextlib.suppress(websockets.ConnectionClosed, TimeoutError):
            while time.monotonic() < deadline:
                await asyncio.wait_for(live.recv(), max(0.1, deadline - time.monotonic()))

    written = 0

    async def write() -> None:
        nonlocal written
        async with httpx.AsyncClient(base_url=base, verify=context, timeout=30) as client:
            while time.monotonic() < deadline:
                with contextlib.suppress(httpx.HTTPError):
                    written += await write_live_changes(client, key)

    await asyncio.gather(write(), *(drain(live) for live in sockets))
    for live in sockets:
        await live.close()
    return written


async def subscribe_churn(base: str, ca: str, key: str, seconds: float) -> int:
    """Point 4: `subscribe` then `complete`, as fast as the socket takes them, on
    CHURN_SOCKETS sockets; a socket closed for it is opened again."""
    context = ssl.create_default_context(cafile=ca)
    deadline = time.monotonic() + seconds
    sent = 0

    async def churn() -> None:
        nonlocal sent
        while time.monotonic() < deadline:
            try:
                live = await live_socket(base, context, key)
            except (OSError, websockets.WebSocketException, TimeoutError):
                await asyncio.sleep(0.5)
                continue
            with contextlib.suppress(websockets.ConnectionClosed):
                for number in itertools.count():
                    if time.monotonic() > deadline:
                        break
                    await live.send(subscribe_message(number))
                    await live.send(json.dumps({"id": str(number), "type": "complete"}))
                    sent += 2
                    await asyncio.sleep(0)
            await live.close()

    await asyncio.gather(*(churn() for _ in range(CHURN_SOCKETS)))
    return sent


LIVE_ATTACKS = {
    "replay-from-zero": replay_from_zero,
    "subscriber-fanout": subscriber_fanout,
    "subscribe-churn": subscribe_churn,
}


def main(argv: list[str]) -> None:
    name, base, ca, key, seconds = argv
    if name == "burn":  # no request: CPU alone, what the machine's noise is
        deadline = time.monotonic() + float(seconds)
        while time.monotonic() < deadline:
            sum(range(10000))
        return
    if name == "big-headers":
        sent = big_headers(base, ca, float(seconds))
    elif name == "big-headers-40":
        sent = big_heads_reconnecting(base, ca, float(seconds))
    elif name == "socket-flood":
        with contextlib.suppress(ValueError, OSError):  # a socket is a file: 1,100 of them
            soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
            resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4096)), hard))
        sent = asyncio.run(socket_flood(base, ca, float(seconds)))
    elif name in LIVE_ATTACKS:
        sent = asyncio.run(LIVE_ATTACKS[name](base, ca, key, float(seconds)))
    else:
        sent = asyncio.run(flood(name, base, ca, key, float(seconds)))
    print(f"{name}: {sent} requests", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
