"""Vector tiles (issue 49's goals): every z18 tile of an IMDF office tower, warm and cold,
from one worker of `floorgate serve` over TLS, beside the minimal tile server
(`harness/minimal_tiles.py`) doing the same work in the same run; then, in this process,
where a tile's time goes.

- Data: `tests.venues.imdf_venues.office_tower(LEVELS)` imported as `floorgate
  import-imdf` does (georeferenced: a map per level and the stack of all, each with its
  GeoJSON): 3 levels of 500 offices with their doors, corridors, a lift and stairs, and a
  location per unit. The z18 tiles are those over the union of the stored GeoJSON files'
  `bbox`.
- Cold (first after a change): CHANGES times, a location of the stack map renamed through
  `putLocation` (its map's GeoJSON is written again: the data version moves), then every
  tile asked once of each server (the first tile rotating; the server going first
  alternating): latency of each, the first one apart (it builds the asset's index).
  floorgate's ETag of every tile must change with each rename.
- Warm: every tile asked once, then WARM_PASSES passes over all tiles, shuffled, paced
  open-loop at RATE a second (latency from when each was due), in two halves, floorgate
  and minimal in turn (ABBA); then floorgate alone with `Accept-Encoding: gzip, br` (as
  MapLibre asks; the others ask `identity`, as the minimal server does not compress).
- Same work: for every tile, the two servers' answers must hold the same features (layer
  by layer, as `mapbox_vector_tile.decode` reads them).
- Where the time goes: in this process, the index built from the stored files (parse,
  features, tree) and each tile encoded (select, clip and simplify, encode), CPU, the
  least of 3; the minimal server's `build` and `encode` beside them.

Run with `python -m tests.benchmarks tiles` (about 40 s).
"""

from __future__ import annotations

import asyncio
import math
import os
import random
import ssl
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import mapbox_vector_tile
import orjson

from parsing.imdf.venue import ImdfOptions
from resolvers.auth.keys import create_key
from resolvers.auth.permissions import ALL_PERMISSIONS
from rest.ops.tls import ensure_local_certificates
from storage import collections as c
from storage.database import connect
from storage.embedded.server import EmbeddedServer
from storage.files import get_file
from storage.imdf.dataset import dataset_from_path, import_venue
from storage.settings import Settings
from tests.benchmarks.harness import servers as s
from tests.benchmarks.harness.report import Phases, machine
from tests.benchmarks.maps.tile_steps import breakdown
from tests.venues.imdf_venues import office_tower, zip_bytes

DATABASE = "floorgate_bench_tiles"
PUBLIC_URL = "https://bench.local"
LEVELS = 3  # of 500 offices each: a z18 tile holds hundreds of features
Z = 18
CHANGES = 6  # renames, each followed by every tile asked once (cold)
WARM_PASSES = 60  # over every tile, paced
RATE = 40  # warm requests a second
GOALS = {"warm_p95_ms": 20.0, "cold_p95_ms": 150.0}
FLOORGATE_ENV = {  # the rate limiter as deployed, with a limit no benchmark reaches
    "FLOORGATE_RATE_LIMIT_PER_SECOND": "1000000",
    "FLOORGATE_RATE_LIMIT_BURST": "1000000",
}
PUT_LOCATION = """
mutation ($input: LocationInput!) { putLocation(input: $input) { id name } }"""
Tile = tuple[int, int]  # x, y at Z


@dataclass
class Seeded:
    asset: str
    key: str
    tiles: list[Tile]
    location: dict[str, Any]  # the one renamed, as stored
    files: list[bytes]  # the maps' GeoJSON, by map id
    read: float  # seconds to read them from GridFS, the least of 3


@dataclass
class Latencies:
    """Latencies (s) and statuses of one server; its CPU seconds over them."""

    latencies: list[float] = field(default_factory=list)
    statuses: Counter[int | str] = field(default_factory=Counter)
    cpu: float = 0.0

    def ms(self, share: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(share * len(ordered)))] * 1000

    def add(self, other: Latencies) -> None:
        self.latencies += other.latencies
        self.statuses.update(other.statuses)
        self.cpu += other.cpu


# -- the venue ----------------------------------------------------------------------------


def tile_of(lon: float, lat: float, z: int) -> Tile:
    n = 1 << z
    x = int((lon + 180) / 360 * n)
    y = int((1 - math.asinh(math.tan(math.radians(lat))) / math.pi) / 2 * n)
    return x, y


def tiles_over(bbox: tuple[float, float, float, float], z: int) -> list[Tile]:
    """The tiles of zoom z over a (west, south, east, north) box, row by row."""
    west, south, east, north = bbox
    (x0, y0), (x1, y1) = tile_of(west, north, z), tile_of(east, south, z)
    return [(x, y) for y in range(y0, y1 + 1) for x in range(x0, x1 + 1)]


async def seed(uri: str, folder: Path) -> Seeded:
    """The tower imported as `floorgate import-imdf` does; a key; the tiles over it; the
    location to rename (the stack map's first); the stored GeoJSON files."""
    settings = Settings(data_dir=folder / "seed", database_name=DATABASE)
    store = connect(uri, settings)
    try:
        await store.ensure_indexes()
        archive = folder / "tower.zip"
        archive.write_bytes(zip_bytes(office_tower(levels=LEVELS).files()))
        dataset = dataset_from_path(archive, ImdfOptions())
        await import_venue(store, dataset, limits=settings.svg_limits)
        maps = await store[c.UNIT_MAPS].find({}).sort("_id", 1).to_list()
        asset = maps[0]["asset_id"]
        reads = []
        for _ in range(3):  # as `resolvers/tiles/sources.py` reads them
            started = time.perf_counter()
            files = []
            for unit_map in maps:
                stored = await get_file(store, unit_map["geojson_file"])
                assert stored is not None, unit_map["_id"]
                files.append(stored.data)
            reads.append(time.perf_counter() - started)
        boxes = [orjson.loads(data)["bbox"] for data in files]
        bbox = (
            min(b[0] for b in boxes),
            min(b[1] for b in boxes),
            max(b[2] for b in boxes),
            max(b[3] for b in boxes),
        )
        counts = {
            m["_id"]: await store[c.LOCATIONS].count_documents({"unit_map_id": m["_id"]})
            for m in maps
        }
        stack = max(counts, key=lambda map_id: counts[map_id])
        location = await store[c.LOCATIONS].find_one({"unit_map_id": stack}, sort=[("_id", 1)])
        assert location is not None
        key = await create_key(store, "bench-tiles", list(ALL_PERMISSIONS), None)
    finally:
        await store.close()
    return Seeded(asset, key.secret, tiles_over(bbox, Z), location, files, min(reads))


# -- requests -----------------------------------------------------------------------------


def path_of(asset: str, tile: Tile) -> str:
    return f"/v1/assets/{asset}/tiles/{Z}/{tile[0]}/{tile[1]}.mvt"


def client_for(
    server: s.Spawned, key: str, tls: ssl.SSLContext, encoding: str
) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        base_url=server.base,
        verify=tls,
        headers={"API-Key": key, "Accept-Encoding": encoding},
        timeout=httpx.Timeout(30.0, pool=None),
        limits=httpx.Limits(max_connections=None),
    )


async def ask(
    client: httpx.AsyncClient, path: str, into: Latencies, since: float
) -> httpx.Response | None:
    """One tile; its latency from `since` (when it was due), a failure counted."""
    answer = None
    try:
        answer = await client.get(path)
        into.statuses[answer.status_code] += 1
    except httpx.HTTPError as failure:
        into.statuses[type(failure).__name__] += 1
    into.latencies.append(time.perf_counter() - since)
    return answer


async def rename(client: httpx.AsyncClient, location: dict[str, Any], name: str) -> None:
    """The location renamed through `putLocation`: its map's GeoJSON is written again."""
    record = {
        "id": location["_id"],
        "assetId": location["asset_id"],
        "unitMapId": location["unit_map_id"],
        "name": name,
        "x": location["x"],
        "y": location["y"],
        "floors": [{"id": floor["id"]} for floor in location["floors"]],
        "tags": [{"key": tag["key"], "value": tag["value"]} for tag in location.get("tags") or ()],
    }
    answer = await client.post(
        "/graphql", json={"query": PUT_LOCATION, "variables": {"input": record}}
    )
    assert answer.status_code == 200 and "errors" not in answer.json(), answer.text


@dataclass
class Cold:
    first: Latencies = field(default_factory=Latencies)  # the first tile after a change
    rest: Latencies = field(default_factory=Latencies)  # every other tile's first request

    def all(self) -> Latencies:
        both = Latencies()
        both.add(self.first)
        both.add(self.rest)
        return both


async def cold(
    servers: list[s.Spawned], clients: dict[str, httpx.AsyncClient], seeded: Seeded
) -> dict[str, Cold]:
    """CHANGES renames, each followed by every tile asked once of each server in turn."""
    results = {server.name: Cold() for server in servers}
    tags: dict[Tile, str] = {}
    tiles = seeded.tiles
    for number in range(CHANGES):
        await rename(clients["floorgate"], seeded.location, f"Renamed Office {number}")
        order = tiles[number % len(tiles) :] + tiles[: number % len(tiles)]
        for server in servers if number % 2 == 0 else servers[::-1]:
            for position, tile in enumerate(order):
                into = Latencies()
                before = s.cpu_seconds(server.pid)
                answer = await ask(
                    clients[server.name], path_of(seeded.asset, tile), into, time.perf_counter()
                )
                into.cpu = s.cpu_seconds(server.pid) - before
                (results[server.name].first if position == 0 else results[server.name].rest).add(
                    into
                )
                if server.name == "floorgate" and answer is not None:
                    tag = answer.headers.get("etag", "")
                    assert tag and tags.get(tile) != tag, f"the ETag of {tile} did not change"
                    tags[tile] = tag
    return results


async def paced(server: s.Spawned, client: httpx.AsyncClient, paths: list[str]) -> Latencies:
    """`paths` at RATE a second, open-loop: latency from when each was due."""
    result = Latencies()
    before = s.cpu_seconds(server.pid)
    start = time.perf_counter() + 0.05

    async def one(position: int, path: str) -> None:
        due = start + position / RATE
        await asyncio.sleep(max(0.0, due - time.perf_counter()))
        await ask(client, path, result, due)

    await asyncio.gather(*(one(position, path) for position, path in enumerate(paths)))
    await asyncio.sleep(0.05)  # its access log lines
    result.cpu = s.cpu_seconds(server.pid) - before
    return result


@dataclass
class Warm:
    side: dict[str, Latencies]
    compressed: Latencies  # floorgate, gzip or br
    features: dict[str, dict[Tile, dict[str, int]]]  # features per layer, per tile
    sizes: dict[Tile, int]  # floorgate's bytes per tile


async def warm(
    servers: list[s.Spawned],
    clients: dict[str, httpx.AsyncClient],
    extra: httpx.AsyncClient,
    seeded: Seeded,
) -> Warm:
    """Every tile once (kept answers, their features compared), then paced passes."""
    features: dict[str, dict[Tile, dict[str, int]]] = {server.name: {} for server in servers}
    sizes: dict[Tile, int] = {}
    for server in servers:
        for tile in seeded.tiles:
            answer = await clients[server.name].get(path_of(seeded.asset, tile))
            assert answer.status_code == 200, answer.text
            decoded = mapbox_vector_tile.decode(answer.content)
            features[server.name][tile] = {
                name: len(layer["features"]) for name, layer in decoded.items()
            }
            if server.name == "floorgate":
                sizes[tile] = len(answer.content)
    rng = random.Random(49)
    paths = []
    for _ in range(WARM_PASSES):
        paths += [
            path_of(seeded.asset, tile) for tile in rng.sample(seeded.tiles, len(seeded.tiles))
        ]
    half = len(paths) // 2
    side = {server.name: Latencies() for server in servers}
    floorgate, minimal = servers
    for server, batch in (
        (floorgate, paths[:half]),
        (minimal, paths[:half]),
        (minimal, paths[half:]),
        (floorgate, paths[half:]),
    ):
        side[server.name].add(await paced(server, clients[server.name], batch))
    for tile in seeded.tiles:  # its compressed answer made once
        await extra.get(path_of(seeded.asset, tile))
    compressed = await paced(floorgate, extra, paths[:half])
    return Warm(side, compressed, features, sizes)


# -- entry --------------------------------------------------------------------------------


@dataclass
class Results:
    seeded: Seeded
    cold: dict[str, Cold]
    warm: Warm
    steps: dict[str, float]


async def load(
    floorgate: s.Spawned, minimal: s.Spawned, seeded: Seeded, tls: ssl.SSLContext
) -> tuple[dict[str, Cold], Warm]:
    servers = [floorgate, minimal]
    clients = {server.name: client_for(server, seeded.key, tls, "identity") for server in servers}
    extra = client_for(floorgate, seeded.key, tls, "gzip, br")
    try:
        for server in servers:  # a first tile each: what is loaded on first use
            answer = await clients[server.name].get(path_of(seeded.asset, seeded.tiles[0]))
            assert answer.status_code == 200, answer.text
        found = await cold(servers, clients, seeded)
        return found, await warm(servers, clients, extra, seeded)
    finally:
        for client in (*clients.values(), extra):
            await client.aclose()


def run(folder: Path) -> Results:
    done = Phases().done
    database = EmbeddedServer(folder / "db")
    database.start()
    started: list[s.Spawned] = []
    try:
        seeded = asyncio.run(seed(database.uri, folder))
        done(f"seeded: {len(seeded.tiles)} tiles at z{Z}")
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
        args = s.floorgate_args(port, certs.cert, certs.key, PUBLIC_URL, 1)
        started.append(s.spawn("floorgate", args, env, logs, port))
        port = s.free_port()
        args = s.minimal_args(port, certs.cert, certs.key, PUBLIC_URL, database.uri, DATABASE)
        args[1:2] = ["-m", "tests.benchmarks.harness.minimal_tiles"]  # the tile route's server
        started.append(s.spawn("minimal", args, {**env, "PYTHONPATH": str(s.ROOT)}, logs, port))
        for server in started:
            s.wait_for_200(server, f"/v1/assets/{seeded.asset}", {"API-Key": seeded.key}, tls)
        done("servers up")
        found, warmed = asyncio.run(load(started[0], started[1], seeded, tls))
        done("tiles asked")
    finally:
        for server in started:
            s.stop(server)
        database.stop()
    steps = breakdown(seeded.files, seeded.tiles)
    done("steps timed in-process")
    return Results(seeded, found, warmed, steps)


def line(name: str, values: list[str]) -> str:
    return f"| {name} | {' | '.join(values)} |"


def report(results: Results) -> None:
    seeded, warmed, steps = results.seeded, results.warm, results.steps
    tiles = seeded.tiles
    counts = [sum(warmed.features["floorgate"][tile].values()) for tile in tiles]
    differ = [
        tile
        for tile in tiles
        if warmed.features["floorgate"][tile] != warmed.features["minimal"][tile]
    ]
    print()
    print("\n".join(f"- {text}" for text in machine()))
    print(f"- load average (1/5/15 min) after: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(
        f"- {len(tiles)} tiles at z{Z}: features {min(counts)}-{max(counts)} (median "
        f"{statistics.median(counts):.0f}), {min(warmed.sizes.values()) / 1024:.0f}-"
        f"{max(warmed.sizes.values()) / 1024:.0f} KiB; "
        f"index of {steps['feature_count']:,.0f} features"
    )
    print(f"- tiles whose features differ between the servers: {len(differ)} {differ[:4]}")
    named = [
        *(("cold " + name, result.all()) for name, result in results.cold.items()),
        *(("warm " + name, result) for name, result in warmed.side.items()),
        ("warm floorgate compressed", warmed.compressed),
    ]
    for name, result in named:
        if set(result.statuses) != {200}:
            print(f"- {name}: statuses {dict(result.statuses)}")
    print()
    goal = f"warm p95 <= {GOALS['warm_p95_ms']:g} ms, cold p95 <= {GOALS['cold_p95_ms']:g} ms"
    print(f"| z{Z} tile ({goal}) | floorgate | minimal | Ratio | Goal |")
    print("|---|---|---|---|---|")
    rows: list[tuple[str, Latencies, Latencies, float | None]] = [
        (
            f"warm, {RATE}/s, {WARM_PASSES} passes",
            warmed.side["floorgate"],
            warmed.side["minimal"],
            GOALS["warm_p95_ms"],
        ),
        (
            f"cold, {CHANGES} changes x {len(tiles)} tiles",
            results.cold["floorgate"].all(),
            results.cold["minimal"].all(),
            GOALS["cold_p95_ms"],
        ),
        (
            "cold, first tile after a change (index built)",
            results.cold["floorgate"].first,
            results.cold["minimal"].first,
            None,
        ),
        (
            "cold, the other tiles (encoded only)",
            results.cold["floorgate"].rest,
            results.cold["minimal"].rest,
            None,
        ),
    ]
    for name, ours, theirs, limit in rows:
        figures = [
            " / ".join(f"{x.ms(share):.1f}" for share in (0.5, 0.95, 1.0)) + " ms"
            for x in (ours, theirs)
        ]
        ratio = f"{ours.ms(0.95) / theirs.ms(0.95):.2f}x (p95)"
        met = (
            "-"
            if limit is None
            else f"p95 <= {limit:g} ms: {'met' if ours.ms(0.95) <= limit else 'NOT met'}"
        )
        print(line(f"{name}, p50 / p95 / max", [*figures, ratio, met]))
        cpu = [x.cpu / len(x.latencies) * 1000 for x in (ours, theirs)]
        print(
            line(
                f"{name}, server CPU per tile",
                [f"{cpu[0]:.2f} ms", f"{cpu[1]:.2f} ms", f"{cpu[0] / cpu[1]:.2f}x", "-"],
            )
        )
    compressed = warmed.compressed
    print(
        line(
            "warm, gzip or br asked, p50 / p95 / max",
            [
                " / ".join(f"{compressed.ms(x):.1f}" for x in (0.5, 0.95, 1.0)) + " ms",
                "-",
                "-",
                "-",
            ],
        )
    )
    print()
    print("| In-process CPU, least of 3 | floorgate | minimal |")
    print("|---|---|---|")
    size = sum(len(data) for data in seeded.files) / 2**20
    print(
        line(
            f"reading the {len(seeded.files)} GeoJSON files ({size:.1f} MiB) from GridFS, wall",
            [f"{seeded.read * 1000:.1f} ms", "the same"],
        )
    )
    index = steps["parse"] + steps["features"] + steps["tree"]
    print(
        line(
            f"index: parse {len(seeded.files)} files + features + tree",
            [
                f"{index * 1000:.1f} ms ("
                + " + ".join(f"{steps[k] * 1000:.1f}" for k in ("parse", "features", "tree"))
                + ")",
                f"{steps['minimal_build'] * 1000:.1f} ms",
            ],
        )
    )
    for name, label in (
        ("select", "select (STRtree, touches)"),
        ("clip", "move, clip and simplify"),
        ("encode", "mapbox_vector_tile.encode"),
    ):
        print(
            line(
                f"tile: {label}, median / max",
                [f"{steps[name] * 1000:.1f} / {steps[name + '_max'] * 1000:.1f} ms", "-"],
            )
        )
    print(
        line(
            "tile: `encode_tile` whole, median / max",
            [
                f"{steps['tile'] * 1000:.1f} / {steps['tile_max'] * 1000:.1f} ms",
                f"{steps['minimal_tile'] * 1000:.1f} / "
                f"{steps['minimal_tile_max'] * 1000:.1f} ms (vectorised clip)",
            ],
        )
    )


def main() -> None:
    print(
        f"tiles: office tower of {LEVELS} levels, every z{Z} tile, warm at {RATE}/s and "
        f"cold after {CHANGES} changes, beside the minimal server",
        flush=True,
    )
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="floorgate-tiles-") as tmp:
        results = run(Path(tmp))
    report(results)
    print(f"\n(total {time.perf_counter() - started:.0f} s)")
    sys.stdout.flush()
