"""Issue 30, "Done when": while each attack of findings 1-7 runs against a served
floorgate (from a process of its own at the lowest CPU priority, tests/attacks.py, as if
from another machine), a keyed GET on another connection keeps its p95 latency.

Within 2x of its idle p95 (or idle plus 15 ms, below which a p95 is this machine's
noise: the control alone, a process burning CPU beside the server, once took it from 5
to 16 ms): keyless introspection (1), two 8 MB SVG parses at a time (2), 15 MB /graphql
bodies (3) and 15 MB E21 bodies (4) refused by their length, junk parameters (5), long
query strings (6) and 1 MB heads (7). What a refused client still sends is drained at a
bounded rate (rest/ops/linger.py), where a graceful TLS close decrypted it at full
speed (3 and 7 were at 10-38 ms before). The parses run in worker processes (60-100 ms
in threads) and their 8 MB cross to them by a file, not a pickle (storage/isolated.py:
14-25 ms before, 9-16 after). docs/performance-history.md, "Under attack".

Issue 45 adds its attacks: subscribe/complete churn (4), persisted-query registrations
beside 1,400 stored (10), and two
reconnection storms from one address, big heads from 40
reconnecting threads (5) and keyless WebSockets accepted and closed past the address's
budget (2), all within 2x; the storms since each address's new connections are paced
before their TLS handshake (rest/ops/tls_gate.py: 27-40 ms against 9-16 idle before).
The server runs with that pace as shipped (tests/servers.py turns it off for other
tests). Then the attacks that were long held to looser bounds, now within 2x too:
four clients posting documents of 30 aliased routes (9: refused by their cost, priced
once per document), 100 subscriptions of the attacker's key beside that key's E21/E22
writes (8: one execution per event, paced fan-out; the writes pay for the documents they
write, `resolvers.limits.WRITTEN_DOCUMENTS_PER_RATE_UNIT`, so one key can no longer hold
the embedded database at a core: 12.5 writes of 100 items a second before, about 5 after
its burst) and, last, 20 event streams replaying 3,000 events from cursor 0 (10). The
replay once made the embedded database stall for seconds (a connection thread holding
its server-wide lock while WiredTiger read the log's pages: single GETs of 2.8-17 s);
no run of 2026-11-28 stalled, with this tree or the one before the write charges, so a
GET that waits past SLOW_SAMPLE_SECONDS is printed with its time to tell a stall apart.
docs/performance.md, "Under attack".

Issue 63 adds walk-graph work that escaped its price, each as found with four clients:
24 aliased searches with `near` from a key without the distances permission (16x
before: now 403 per field, no search) and 13 aliased routes to 400 candidate ids each
(66x: now `COST_LIMIT`, priced per candidate). REST routes of 25 optimised stops (1.0-1.6
s each on a mall) are now refused as /graphql refuses them, 422 on `via` before any walk
(tests/schema/execution/test_walk_prices.py), counted from the list's length before
its body is coerced."""

from __future__ import annotations

import asyncio
import os
import ssl
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator

import httpx
import pytest
import pytest_asyncio

from resolvers.auth.keys import create_key
from resolvers.auth.permissions import ADMIN, ALL_PERMISSIONS
from storage import collections as c
from storage.database import Store
from storage.datasets.map_drawings import GRAPH_CONTENT_TYPE
from storage.embedded.server import EmbeddedServer
from storage.files import delete_files, put_file
from storage.settings import Settings
from tests._dbserver import fixtures_store
from tests.attacks import READY, SETS_UP, live_group, route_map, stored_persisted_queries
from tests.servers import serve_tls

WITHIN_2X = (
    "burn",
    "introspection",
    "huge-document",
    "big-body",
    "junk-parameters",
    "long-queries",
    "big-headers",
    "refused-parse",
    "subscribe-churn",
    "persisted-registration",  # issue 45, point 10: registering beside 1,400 stored
    "big-headers-40",  # issue 45, point 5: 40 threads reconnecting
    "socket-flood",  # issue 45, point 2: keyless WebSockets held open
    "aliased-routes",  # issue 45, point 9: 30 routes a document, refused by their cost
    "subscriber-fanout",  # issue 45, point 8: 100 subscriptions beside the writes
    "replay-from-zero",  # issue 45, point 10: 20 streams replaying 3,000 events from 0
    "near-searches",  # issue 63, finding 2: 403 without the distances permission
    "nearest-routes",  # issue 63, finding 3: refused by their candidates' price
)
# Attacks from a key without any permission (the others' keys have all but the operator's).
WITHOUT_PERMISSIONS = {"near-searches"}
SLOW_SAMPLE_SECONDS = 1.0  # a GET this slow is printed with its time (what stalled, when)
SAMPLES = 80
PAUSE = 0.02  # between two measured GETs
RAMP = 1.0  # seconds an attack runs before the measuring starts
SETTLE = 1.0  # seconds between an attack's end and the next idle measure (<= RAMP)
WINDOWS = 2
IDLE_EVERY = 3  # attacks measured against one idle p95 (their windows take about 5 s)
# Below this a p95 is noise of a 2-core machine (a scheduler tick, a TLS record): the
# bound is 2x idle, but never less than idle plus this.
FLOOR_SECONDS = 0.015


def chosen_attacks() -> tuple[str, ...]:
    """Every attack, or those named in FLOORGATE_ATTACKS (comma-separated), to try one
    while working on it: `FLOORGATE_ATTACKS=burn,big-headers pytest tests/e2e/...`."""
    every = WITHIN_2X
    named = os.environ.get("FLOORGATE_ATTACKS")
    if not named:
        return every
    unknown = set(named.split(",")) - set(every)
    assert not unknown, f"no such attack: {sorted(unknown)}"
    return tuple(name for name in every if name in named.split(","))


def p95(latencies: list[float]) -> float:
    return statistics.quantiles(latencies, n=20)[-1]


async def keyed_latencies(client: httpx.AsyncClient, key: str) -> list[float]:
    """SAMPLES latencies of the keyed GET. One that is not answered 200 (a 503 at the
    request budget of 20 s, when the embedded database stalls: the module's docstring)
    counts as the time the client waited: the p95 and the two-window rule judge it as any
    slow answer. One over SLOW_SAMPLE_SECONDS is printed with when it ended."""
    latencies = []
    for _ in range(SAMPLES):
        started = time.perf_counter()
        response = await client.get("/v1/assets", headers={"API-Key": key})
        latencies.append(time.perf_counter() - started)
        if latencies[-1] > SLOW_SAMPLE_SECONDS:
            print(f"keyed GET took {latencies[-1]:.1f} s (ended at {time.time():.1f})")
        if response.status_code != 200:
            print(f"keyed GET answered {response.status_code}: {response.text[:200]}")
        await asyncio.sleep(PAUSE)
    return latencies


@pytest.fixture(scope="module")
def db_server(own_db_server: EmbeddedServer) -> EmbeddedServer:
    """A database server of its own: the attacks leave thousands of events, sockets' slots
    and 1,400 persisted queries behind, and on the shared one the serial tests after them
    wrote several times slower (1,000 assignments: 7-9 s, against under 2)."""
    return own_db_server


@pytest_asyncio.fixture(loop_scope="session")
async def store(db_server: EmbeddedServer, settings: Settings) -> AsyncIterator[Store]:
    """The fixtures' data on this module's server, in the database `floorgate serve` reads."""
    async with fixtures_store(db_server, settings) as own:
        yield own


@pytest_asyncio.fixture
async def attacked_route_map(store):
    """The four-level map the aliased-routes attack routes on, removed afterwards (other
    tests list the fixtures' maps)."""
    unit_map, graph = route_map()
    await store[c.UNIT_MAPS].replace_one({"_id": unit_map["_id"]}, unit_map, upsert=True)
    await put_file(store, unit_map["graph_file"], graph, GRAPH_CONTENT_TYPE)
    yield
    await store[c.UNIT_MAPS].delete_one({"_id": unit_map["_id"]})
    await delete_files(store, [unit_map["graph_file"]])


@pytest.mark.security
@pytest.mark.e2e
@pytest.mark.serial  # p95 latencies against an idle p95: other tests' load would be measured
async def test_a_keyed_get_keeps_its_latency_while_each_attack_runs(
    tmp_path, db_server, settings, store, attacked_route_map
):
    measurer = (await create_key(store, "measurer", [], None)).secret
    # Every permission but the operator's, whose writes may carry bodies of 16 MiB.
    permissions = [name for name in ALL_PERMISSIONS if name != ADMIN]
    # A key of its own for each attack: one attack's spent budget (the burn's, the
    # churn's) would otherwise refuse the next one's setup, which then never ends.
    attackers = {
        name: (
            await create_key(
                store,
                f"attacker-{name}",
                [] if name in WITHOUT_PERMISSIONS else permissions,
                None,
            )
        ).secret
        for name in chosen_attacks()
    }
    group = live_group()  # what the live-changes attacks write and subscribe to
    await store[c.ATTRIBUTE_GROUPS].replace_one({"_id": group["_id"]}, group, upsert=True)
    # What the persisted-registration attack registers beside (their totals counted anew).
    stored = stored_persisted_queries()
    await store[c.PERSISTED_QUERIES].delete_many({"_id": {"$in": [r["_id"] for r in stored]}})
    await store[c.PERSISTED_QUERIES].insert_many(stored)
    await store[c.PERSISTED_QUERY_TOTALS].delete_many({"_id": "totals"})

    # The pace of new connections per address as shipped (tests/servers.py turns it off).
    paced = {"FLOORGATE_NEW_CONNECTIONS_PER_SECOND": ""}
    with serve_tls(tmp_path, db_server, settings, **paced) as served:
        context = ssl.create_default_context(cafile=str(served.certs.ca_cert))
        async with httpx.AsyncClient(base_url=served.base, verify=context, timeout=30) as client:
            for _ in range(20):  # warm: TLS, the key cache, plans
                await client.get("/v1/assets", headers={"API-Key": measurer})
            results: dict[str, tuple[float, float]] = {}  # attack: (idle, under attack)
            # The idle p95 is measured before every IDLE_EVERY-th attack and before an
            # attack's second window (a fresh figure re-judges it); the first one is the
            # lower of two, as the server's first answers after its start may be slower.
            idle = min([await idle_p95(client, measurer) for _ in range(2)])
            for number, name in enumerate(chosen_attacks()):
                # Two windows at most: one hiccup of a shared 2-core machine is not the
                # attack's doing; a slowdown it causes shows in both.
                for window in range(WINDOWS):
                    if window or (number and number % IDLE_EVERY == 0):
                        idle = await idle_p95(client, measurer)
                    busy = await measured(client, served, name, measurer, attackers[name])
                    results[name] = (idle, busy)
                    if not too_slow(idle, busy):
                        break
        assert served.process.poll() is None  # the server survived every attack
    report = {
        name: f"{idle * 1000:.1f} -> {busy * 1000:.1f} ms" for name, (idle, busy) in results.items()
    }
    print(f"p95 idle -> under attack: {report}")
    slow = {name: report[name] for name, figures in results.items() if too_slow(*figures)}
    assert not slow, slow


def too_slow(idle: float, busy: float) -> bool:
    return busy > max(2 * idle, idle + FLOOR_SECONDS)


async def idle_p95(client: httpx.AsyncClient, measurer: str) -> float:
    """The GET's p95 with no attack running."""
    await asyncio.sleep(SETTLE)  # what the last attack left queued is done
    return p95(await keyed_latencies(client, measurer))


async def measured(
    client: httpx.AsyncClient, served, name: str, measurer: str, attacker: str
) -> float:
    """The GET's p95 while the attack `name` runs. What the last attack left queued is
    done during this one's RAMP (as long as SETTLE), before the measuring starts."""
    command = [
        sys.executable,
        "-m",
        "tests.attacks",
        name,
        served.base,
        str(served.certs.ca_cert),
        attacker,
        "30",
    ]
    attack = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=lambda: os.nice(19),
    )
    try:
        if name in SETS_UP:  # its setup (seeding the events log, subscribing) is not measured
            assert attack.stdout is not None
            try:
                line = await asyncio.wait_for(asyncio.to_thread(attack.stdout.readline), 120)
            except TimeoutError:
                attack.terminate()
                pytest.fail(f"{name} not set up in 120 s: {attack.stdout.read()[-2000:]}")
            assert line.strip() == READY, line + attack.stdout.read()
        await asyncio.sleep(RAMP)
        assert attack.poll() is None, attack.stdout.read() if attack.stdout else ""
        return p95(await keyed_latencies(client, measurer))
    finally:
        attack.terminate()
        attack.wait(10)
