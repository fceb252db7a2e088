"""Search (issue 47's goals): an asset of 10,000 places, one worker of `floorgate serve`
over TLS, 50 searches a second of random prefixes and typos for 20 s, beside the minimal
server doing its search over the same places (`harness/minimal_server.py`: one `$regex`
per word on the stored names, no typos); the index's bytes per place; its rebuild after
a write.

- Data: 25 levels of 400 places (`venue`): rooms and suites by number, offices and
  meeting rooms by name, shops and food by name and kind, restrooms, lifts and stairs,
  each a unit with one location on its level's map (a map without a drawing), written
  by the dataset import (`floorgate import`).
- Load: distinct queries (a prefix of a word of a name, after its words before, or a
  name or a word with one typo), `GET /v1/search?q=&asset=`, each asked once (so no
  answer is a kept one): 1,000 to floorgate paced open-loop at 50 a second (a late
  answer delays no later request: latency is from when each request was due); then 100
  more to both servers one request at a time, taking turns. The minimal server cannot
  be paced at 50 a second: its `$regex` reads every location of the asset (about a
  quarter of a second each on the embedded database).
- Index: `SearchIndex(collect(...))` built in this process from the documents
  `resolvers/search/indexes.py` reads, under tracemalloc, the documents dropped after:
  what the index holds, beside `index.bytes` (the estimate the cache counts, after
  `PLACE_BYTES`).
- Rebuild: a location renamed through `putLocation`, then the next search (of its new
  name: it must be found) timed, five times; and the first search of all (the first
  build, no index yet).

Run with `python -m tests.benchmarks search` (about 2 minutes).
"""

from __future__ import annotations

import asyncio
import gc
import os
import pickle
import random
import ssl
import statistics
import tempfile
import time
import tracemalloc
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from resolvers.auth.keys import create_key
from resolvers.auth.permissions import ALL_PERMISSIONS
from resolvers.search.index import PLACE_BYTES, SearchIndex
from resolvers.search.indexes import LOCATION_FIELDS, UNIT_FIELDS
from resolvers.search.places import collect
from rest.ops.tls import ensure_local_certificates
from storage import collections as c
from storage.database import connect
from storage.embedded.server import EmbeddedServer
from storage.imports.importer import import_data
from storage.settings import Settings
from tests.benchmarks.harness import servers as s
from tests.benchmarks.harness.report import Phases, machine

DATABASE = "floorgate_bench_search"
PUBLIC_URL = "https://bench.local"
ASSET = "bench-search-tower"
LEVELS, PER_LEVEL = 25, 400  # 10,000 places
RATE = 50  # searches a second
PACED_SECONDS = 20
SIDE_QUERIES = 100  # asked of both servers, one at a time
WARM_QUERIES = 50
WRITES = 5
FOUND_WITHIN_S = 10.0  # a write not found by search after this is a failure
GOALS = {"p95_ms": 20.0, "bytes_per_place": 2048, "rebuild_s": 1.0}
FLOORGATE_ENV = {  # the rate limiter as deployed, with a limit no benchmark reaches
    "FLOORGATE_RATE_LIMIT_PER_SECOND": "1000000",
    "FLOORGATE_RATE_LIMIT_BURST": "1000000",
}
PUT_LOCATION = """
mutation ($input: LocationInput!) { putLocation(input: $input) { id name } }"""

# -- the venue ----------------------------------------------------------------------------


def spaced(text: str) -> tuple[str, ...]:
    return tuple(text.split())


ADJECTIVES = spaced(
    "Blue Golden Silver Northern Harbour Royal Little Green Old Grand Urban Coastal "
    "Crimson Quiet Bright Hidden Lucky Wild Maple Cedar Amber Copper Velvet Iron"
)
NOUNS = spaced(
    "Lantern Anchor Spoon Owl Fox Willow Harbor Sparrow Compass Bridge Garden Meadow "
    "Orchard Lighthouse Pebble Kettle Falcon Thistle Summit River Canyon Ember Beacon"
)
SHOPS = (  # the kind in the name, and the tag saying it
    ("Books", ("shop", "books")),
    ("Pharmacy", ("amenity", "pharmacy")),
    ("Café", ("amenity", "cafe")),
    ("Bakery", ("shop", "bakery")),
    ("Kitchen", ("amenity", "restaurant")),
    ("Optician", ("shop", "optician")),
    ("Florist", ("shop", "florist")),
    ("Outfitters", ("shop", "clothes")),
    ("Electronics", ("shop", "electronics")),
    ("Noodle Bar", ("amenity", "fast_food")),
)
COMPANY = ("Partners", "Legal", "Labs", "Capital", "Studio", "Group", "Consulting", "Health")
MEETING = ("Conference Room", "Boardroom", "Huddle Room", "Training Room", "Focus Room")
STARS = spaced(
    "Atlas Orion Vega Lyra Draco Sirius Rigel Altair Cygnus Phoenix Andromeda Pegasus "
    "Aquila Carina Hydra Perseus Polaris Deneb Antares Castor Pollux Electra Mira Nova"
)


def place_of(rng: random.Random, level: int, n: int) -> tuple[str, list[tuple[str, str]]]:
    """A place's name and its category tags, drawn as a building mixes them."""
    roll = rng.random()
    if roll < 0.35:
        return f"Room {level}{n:02d}", [("imdf:category", "room")]
    if roll < 0.45:
        return f"Suite {level}.{n:03d}", [("imdf:category", "office")]
    if roll < 0.62:
        name = f"{rng.choice(ADJECTIVES)} {rng.choice(NOUNS)} {rng.choice(COMPANY)}"
        return name, [("imdf:category", "office")]
    if roll < 0.77:
        return f"{rng.choice(MEETING)} {rng.choice(STARS)}", [("imdf:category", "conferenceroom")]
    if roll < 0.93:
        kind, tag = rng.choice(SHOPS)
        return f"{rng.choice(ADJECTIVES)} {rng.choice(NOUNS)} {kind}", [tag]
    if roll < 0.97:
        gender = rng.choice(("male", "female"))
        return f"Restroom ({gender}) {n}, Level {level}", [("imdf:category", f"restroom.{gender}")]
    if roll < 0.985:
        return f"Lift {chr(65 + n % 6)}, Level {level}", [("imdf:category", "elevator")]
    return f"Stair {1 + n % 4}, Level {level}", [("imdf:category", "stairs")]


def venue(seed: int = 47) -> dict[str, Any]:
    """The dataset: the asset, its levels, a map per level, a unit and a location per
    place."""
    rng = random.Random(seed)
    data: dict[str, Any] = {
        "version": 1,
        "assets": [{"id": ASSET, "market": "office", "name": "Search Bench Tower"}],
        "floors": [],
        "units": [],
        "unit_maps": [],
        "locations": [],
    }
    for level in range(1, LEVELS + 1):
        floor, unit_map = f"bs-f{level:02d}", f"bs-map-{level:02d}"
        data["floors"].append(
            {"id": floor, "asset_id": ASSET, "name": f"Level {level}", "sort": level}
        )
        units = []
        for n in range(PER_LEVEL):
            name, tags = place_of(rng, level, n)
            unit = f"bs-{level:02d}-{n:03d}"
            units.append(unit)
            data["units"].append({"id": unit, "asset_id": ASSET, "floor_id": floor, "name": name})
            tags = [("svc:type", "unit"), ("svc:id", unit), *tags]
            data["locations"].append(
                {
                    "id": f"loc-{unit}",
                    "asset_id": ASSET,
                    "unit_map_id": unit_map,
                    "name": name,
                    "x": float(n % 40 * 12),
                    "y": float(n // 40 * 18),
                    "floors": [{"id": floor}],
                    "tags": [{"key": key, "value": value} for key, value in tags],
                }
            )
        data["unit_maps"].append(
            {"id": unit_map, "asset_id": ASSET, "name": f"Level {level}", "unit_ids": units}
        )
    return data


# -- the queries --------------------------------------------------------------------------

LETTERS = "abcdefghijklmnopqrstuvwxyz"


def one_typo(rng: random.Random, text: str) -> str:
    """`text` with one letter inserted, deleted, substituted, or swapped with the next."""
    chars = list(text)
    letters = [i for i, ch in enumerate(chars) if ch.isalpha()]
    at = rng.choice(letters) if letters else 0
    op = rng.choice(("insert", "delete", "substitute", "swap") if letters else ("insert",))
    if op == "insert":
        at = rng.randrange(len(chars) + 1)
        chars.insert(at, rng.choice(LETTERS))
    elif op == "delete":
        del chars[at]
    elif op == "substitute":
        chars[at] = rng.choice([x for x in LETTERS if x != chars[at].lower()])
    elif at + 1 < len(chars) and chars[at + 1].isalpha():
        chars[at], chars[at + 1] = chars[at + 1], chars[at]
    else:
        chars.insert(at, rng.choice(LETTERS))
    return "".join(chars)


def queries(names: list[str], count: int, seed: int = 470) -> list[str]:
    """`count` distinct queries: 60% prefixes (a word's first 2+ characters, after the
    name's words before it), 40% a name or one of its words with one typo."""
    rng = random.Random(seed)
    found: dict[str, None] = {}
    while len(found) < count:
        words = rng.choice(names).replace(",", "").split()
        if rng.random() < 0.6:
            at = rng.randrange(len(words))
            word = words[at]
            q = " ".join([*words[:at], word[: rng.randint(min(2, len(word)), len(word))]])
        elif rng.random() < 0.5:
            q = one_typo(rng, " ".join(words))
        else:
            q = one_typo(rng, rng.choice([w for w in words if len(w) >= 4] or words))
        found.setdefault(q)
    return list(found)


# -- measuring ----------------------------------------------------------------------------


@dataclass
class Latencies:
    """Latencies (s) and statuses of one server; server CPU seconds over them."""

    latencies: list[float] = field(default_factory=list)
    statuses: Counter[int | str] = field(default_factory=Counter)
    cpu: float = 0.0
    database: float = 0.0  # CPU seconds of the database process over them

    def ms(self, share: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(share * len(ordered)))] * 1000


async def ask(client: httpx.AsyncClient, q: str, into: Latencies, since: float) -> None:
    """One search; its latency from `since` (when it was due), a failure counted."""
    try:
        response = await client.get("/v1/search", params={"q": q, "asset": ASSET})
        into.statuses[response.status_code] += 1
    except httpx.HTTPError as error:
        into.statuses[type(error).__name__] += 1
    into.latencies.append(time.perf_counter() - since)


async def paced(server: s.Spawned, client: httpx.AsyncClient, batch: list[str]) -> Latencies:
    """`batch` at RATE a second, open-loop: each request sent when due, whatever the
    ones before it are doing; latency from when it was due."""
    result = Latencies()
    before = s.cpu_seconds(server.pid)
    start = time.perf_counter() + 0.05

    async def one(position: int, q: str) -> None:
        due = start + position / RATE
        await asyncio.sleep(max(0.0, due - time.perf_counter()))
        await ask(client, q, result, due)

    await asyncio.gather(*(one(position, q) for position, q in enumerate(batch)))
    await asyncio.sleep(0.05)  # its access log lines
    result.cpu = s.cpu_seconds(server.pid) - before
    return result


async def side_by_side(
    servers: list[s.Spawned],
    clients: dict[str, httpx.AsyncClient],
    batch: list[str],
    database: int,
) -> dict[str, Latencies]:
    """Each query of `batch` asked of every server in turn (the first rotating), one
    request at a time (the minimal server cannot keep up with RATE); CPU of the server
    and of the database process (where the minimal server's work is done)."""
    results = {server.name: Latencies() for server in servers}
    for position, q in enumerate(batch):
        shift = position % len(servers)
        for server in servers[shift:] + servers[:shift]:
            before = s.cpu_seconds(server.pid)
            base = s.cpu_seconds(database)
            await ask(clients[server.name], q, results[server.name], time.perf_counter())
            results[server.name].cpu += s.cpu_seconds(server.pid) - before
            results[server.name].database += s.cpu_seconds(database) - base
    return results


def client_for(server: s.Spawned, key: str, tls: ssl.SSLContext) -> httpx.AsyncClient:
    headers = {"API-Key": key, "Experimental-Flags": "search", "Accept-Encoding": "identity"}
    return httpx.AsyncClient(
        base_url=server.base,
        verify=tls,
        headers=headers,
        timeout=httpx.Timeout(30.0, pool=None),
        limits=httpx.Limits(max_connections=None),
    )


@dataclass
class Loads:
    paced: Latencies  # floorgate at RATE
    side: dict[str, Latencies]  # both servers, one request at a time


async def load(
    floorgate: s.Spawned,
    minimal: s.Spawned,
    key: str,
    tls: ssl.SSLContext,
    asked: list[str],
    database: int,
) -> Loads:
    """Warm-up; floorgate paced over PACED_SECONDS; then both servers side by side."""
    servers = [floorgate, minimal]
    clients = {server.name: client_for(server, key, tls) for server in servers}
    warm, rest = asked[:WARM_QUERIES], asked[WARM_QUERIES:]
    try:
        await side_by_side(servers, clients, warm[:5], database)
        await paced(floorgate, clients[floorgate.name], warm)
        ours = await paced(floorgate, clients[floorgate.name], rest[: RATE * PACED_SECONDS])
        side = await side_by_side(servers, clients, rest[RATE * PACED_SECONDS :], database)
    finally:
        for client in clients.values():
            await client.aclose()
    return Loads(ours, side)


async def rebuilds(
    server: s.Spawned, key: str, tls: ssl.SSLContext, data: dict[str, Any]
) -> dict[str, list[float]]:
    """Seconds of the first search after each of WRITES renames (answered from the index
    as it was while the update runs, docs/api.md "Search"), until a search finds the new
    name, and of a search right after that (the index then updated)."""
    rng = random.Random(4747)
    after: list[float] = []
    found_after: list[float] = []
    warm: list[float] = []
    async with client_for(server, key, tls) as client:
        for number in range(WRITES):
            location = dict(rng.choice(data["locations"]))
            name = f"Zephyr Annex {number} {rng.choice(STARS)}"
            location.update(
                {
                    "name": name,
                    "assetId": location.pop("asset_id"),
                    "unitMapId": location.pop("unit_map_id"),
                }
            )
            answer = await client.post(
                "/graphql", json={"query": PUT_LOCATION, "variables": {"input": location}}
            )
            assert answer.status_code == 200 and "errors" not in answer.json(), answer.text
            written = started = time.perf_counter()
            found = await client.get("/v1/search", params={"q": name, "asset": ASSET})
            after.append(time.perf_counter() - started)
            unit = next(t["value"] for t in location["tags"] if t["key"] == "svc:id")
            while not (found.json()["data"] and found.json()["data"][0]["id"] == unit):
                assert time.perf_counter() - written < FOUND_WITHIN_S, found.text
                await asyncio.sleep(0.02)
                found = await client.get("/v1/search", params={"q": name, "asset": ASSET})
            found_after.append(time.perf_counter() - written)
            started = time.perf_counter()
            again = await client.get("/v1/search", params={"q": f"annex {number}", "asset": ASSET})
            warm.append(time.perf_counter() - started)
            assert again.status_code == 200, again.text
    return {"after_write": after, "found_after": found_after, "warm": warm}


async def first_search(server: s.Spawned, key: str, tls: ssl.SSLContext) -> float:
    """Seconds of the very first search: the index built from nothing."""
    async with client_for(server, key, tls) as client:
        started = time.perf_counter()
        answer = await client.get("/v1/search", params={"q": "lift", "asset": ASSET})
        assert answer.status_code == 200 and answer.json()["data"], answer.text
        return time.perf_counter() - started


def index_bytes(documents: bytes) -> dict[str, float]:
    """What the index of the asset holds (tracemalloc, the documents dropped after its
    build), its own estimate, and its build time (CPU, the least of three)."""
    units, locations = pickle.loads(documents)
    builds = []
    for _ in range(3):
        started = time.process_time()
        SearchIndex(collect(ASSET, units, locations))
        builds.append(time.process_time() - started)
    del units, locations
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        units, locations = pickle.loads(documents)
        index = SearchIndex(collect(ASSET, units, locations))
        del units, locations
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    places = len(index.places)
    return {
        "places": places,
        "held": held,
        "per_place": held / places,
        "estimate": index.bytes,
        "estimate_per_place": index.bytes / places,
        "build_s": min(builds),
    }


async def seed(uri: str, folder: Path) -> tuple[str, dict[str, Any], bytes, float]:
    """The venue imported; a key; the documents the index is built from, pickled, and
    the seconds their reading takes (the least of three)."""
    store = connect(uri, Settings(data_dir=folder / "seed", database_name=DATABASE))
    try:
        await store.ensure_indexes()
        data = venue()
        await import_data(store, data, folder)
        key = await create_key(store, "bench-search", list(ALL_PERMISSIONS), None)
        query = {"asset_id": ASSET}
        reads = []
        for _ in range(3):  # what `indexes.build` reads, as it reads it
            started = time.perf_counter()
            units = await store[c.UNITS].find(query, UNIT_FIELDS).sort("_id", 1).to_list()
            cursor = store[c.LOCATIONS].find(query, LOCATION_FIELDS).sort("_id", 1)
            locations = await cursor.to_list()
            reads.append(time.perf_counter() - started)
    finally:
        await store.close()
    return key.secret, data, pickle.dumps((units, locations)), min(reads)


# -- entry --------------------------------------------------------------------------------


def run(folder: Path) -> None:
    done = Phases().done
    database = EmbeddedServer(folder / "db")
    database.start()
    started: list[s.Spawned] = []
    try:
        key, data, documents, read = asyncio.run(seed(database.uri, folder))
        done(f"seeded {len(data['units']):,} units and {len(data['locations']):,} locations")
        built = {**index_bytes(documents), "read_s": read}
        done("index measured")
        certs = ensure_local_certificates(folder / "tls")
        tls = ssl.create_default_context(cafile=str(certs.ca_cert))
        env = {
            **os.environ,
            **FLOORGATE_ENV,
            "FLOORGATE_MONGODB_URI": database.uri,
            "FLOORGATE_DATABASE": DATABASE,
            "FLOORGATE_DATA_DIR": str(folder / "floorgate"),
        }
        logs = folder / "logs"
        logs.mkdir()
        port = s.free_port()
        floorgate = s.spawn(
            "floorgate",
            s.floorgate_args(port, certs.cert, certs.key, PUBLIC_URL, 1),
            env,
            logs,
            port,
        )
        started.append(floorgate)
        port = s.free_port()
        args = s.minimal_args(port, certs.cert, certs.key, PUBLIC_URL, database.uri, DATABASE)
        minimal = s.spawn("minimal", args, env, logs, port)
        started.append(minimal)
        for server in started:
            s.wait_for_200(server, f"/v1/assets/{ASSET}", {"API-Key": key}, tls)
        done("servers up")
        first = asyncio.run(first_search(floorgate, key, tls))
        names = [unit["name"] for unit in data["units"]]
        asked = queries(names, WARM_QUERIES + RATE * PACED_SECONDS + SIDE_QUERIES)
        loads = asyncio.run(load(floorgate, minimal, key, tls, asked, database.pid or 0))
        done("searches")
        rebuilt = asyncio.run(rebuilds(floorgate, key, tls, data))
        done("rebuilds")
    finally:
        for server in started:
            s.stop(server)
        database.stop()
    report(built, first, loads, rebuilt, asked)


def report(
    built: dict[str, float],
    first: float,
    loads: Loads,
    rebuilt: dict[str, list[float]],
    asked: list[str],
) -> None:
    print()
    print("\n".join(f"- {line}" for line in machine()))
    print(f"- load average (1/5/15 min) after: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"- queries: {len(asked) - WARM_QUERIES:,} distinct, e.g. {asked[WARM_QUERIES:][:8]}")
    ours = loads.paced
    for name, result in (("floorgate paced", ours), *loads.side.items()):
        if set(result.statuses) != {200}:
            print(f"- {name}: statuses {dict(result.statuses)}")
    print()
    print(f"| floorgate, {RATE} searches/s for {PACED_SECONDS} s | Figure | Goal |")
    print("|---|---|---|")
    print(
        f"| p50 / p95 / p99 | {ours.ms(0.5):.2f} / {ours.ms(0.95):.2f} / {ours.ms(0.99):.2f} ms "
        f"({len(ours.latencies):,} searches) | p95 <= {GOALS['p95_ms']:g} ms |"
    )
    print(f"| server CPU per search | {ours.cpu / len(ours.latencies) * 1000:.2f} ms | - |")
    print(
        f"| index bytes per place (tracemalloc) | {built['per_place']:,.0f} B "
        f"({built['held'] / 2**20:.1f} MiB for {built['places']:,.0f} places) | "
        f"<= {GOALS['bytes_per_place']:,} B |"
    )
    print(
        f"| `index.bytes` per place (the cache's estimate, PLACE_BYTES {PLACE_BYTES:,}) | "
        f"{built['estimate_per_place']:,.0f} B | - |"
    )
    print(f"| index build in-process (CPU, least of 3) | {built['build_s'] * 1000:.0f} ms | - |")
    print(
        f"| reading its 20,000 documents from the database (least of 3) | "
        f"{built['read_s'] * 1000:.0f} ms | - |"
    )
    print(f"| first search (its index built) | {first * 1000:.0f} ms | - |")
    after = rebuilt["after_write"]
    print(
        f"| first search after a write, median / max of {len(after)} | "
        f"{statistics.median(after) * 1000:.0f} / {max(after) * 1000:.0f} ms | "
        f"<= {GOALS['rebuild_s']:g} s |"
    )
    found = rebuilt["found_after"]
    print(
        f"| a write found by search, median / max of {len(found)} | "
        f"{statistics.median(found) * 1000:.0f} / {max(found) * 1000:.0f} ms | - |"
    )
    warm = statistics.median(rebuilt["warm"]) * 1000
    print(f"| the search after that, median | {warm:.1f} ms | - |")
    print()
    side = loads.side
    count = len(side["floorgate"].latencies)
    print(f"| One at a time, {count} queries each | floorgate | minimal (`$regex`) | Ratio |")
    print("|---|---|---|---|")
    for label, share in (("p50", 0.5), ("p95", 0.95)):
        a, b = side["floorgate"].ms(share), side["minimal"].ms(share)
        print(f"| {label} latency | {a:.2f} ms | {b:.2f} ms | {a / b:.3f}x |")
    a, b = (side[name].cpu / count * 1000 for name in ("floorgate", "minimal"))
    print(f"| server CPU per search | {a:.2f} ms | {b:.2f} ms | {a / b:.3f}x |")
    a, b = (
        (side[name].cpu + side[name].database) / count * 1000 for name in ("floorgate", "minimal")
    )
    print(f"| server and database CPU per search | {a:.2f} ms | {b:.2f} ms | {a / b:.3f}x |")


def main() -> None:
    print(
        f"search: {LEVELS * PER_LEVEL:,} places, {RATE} searches/s for "
        f"{PACED_SECONDS} s, one worker; {SIDE_QUERIES} beside the minimal server",
        flush=True,
    )
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="floorgate-search-") as tmp:
        run(Path(tmp))
    print(f"\n(total {time.perf_counter() - started:.0f} s)")
