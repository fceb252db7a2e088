"""E18 distance matrices, warm (graph cached) and cold (graph loaded from the database),
each beside a networkx Dijkstra on the same graph, measured in the same run.

1. The demo's building map `map-b1` (4 levels, elevator and stairs): 5 x 10 and 1 x 50
   matrices of its locations through the REST route in-process (httpx ASGITransport).
2. A generated 8-level map with about 100k path edges: graph build, load from the
   database, and 1 x 50 / 5 x 10 matrices of ad-hoc points, both through the route and
   on the loaded graph alone.

The networkx baseline runs, per distinct source, `single_source_dijkstra` by time on the
same graph (the mode's edges plus the waypoints' join edges that floorgate adds), then
sums the route lengths: the same work the route does, in pure Python.

Run with `make bench` or `python -m tests.benchmarks matrices`.
"""

from __future__ import annotations

import asyncio
import itertools
import platform
import random
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from importlib.metadata import version
from pathlib import Path
from typing import Any

import httpx
import networkx as nx
import numpy as np

from parsing.svg import parse_unit_map
from resolvers.wayfinding.graph_cache import load_graph
from routing.build import build_walk_graph
from routing.costs import Costs
from routing.matrix import LoadedGraph, ModeGraph, Point
from routing.model import FOOT, graph_bytes
from routing.profile import Profile
from storage.files import put_file
from storage.imports.importer import import_data
from tests.benchmarks.harness.database import demo_app

ROUNDS = 15
GENERATED_LEVELS = 8
GRID = 40  # corridors each way per level
SPAN = 4000  # canvas units
STEP = 25  # a vertex every 25 units along a corridor


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


async def timed(call: Callable[[], Awaitable[Any]], rounds: int = ROUNDS) -> list[float]:
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        await call()
        samples.append(time.perf_counter() - start)
    return samples


def sync_timed(call: Callable[[], Any], rounds: int = ROUNDS) -> list[float]:
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
    return samples


# -- the networkx baseline ------------------------------------------------------------


def networkx_matrix(mode: ModeGraph, sources: list[Point], targets: list[Point]) -> list:
    """The same graph as floorgate's query, uncontracted (every drawn segment), with the
    waypoints' join edges, in networkx."""
    loaded = mode.loaded
    kept = mode.kept
    graph = nx.Graph()
    edges = zip(
        loaded.graph.edge_u[kept].tolist(),
        loaded.graph.edge_v[kept].tolist(),
        loaded.length[kept].tolist(),
        mode.edge_time[kept].tolist(),
        strict=True,
    )
    for u, v, feet, seconds in edges:
        graph.add_edge(u, v, time=seconds, feet=feet)
    base = loaded.graph.node_count
    points = list(dict.fromkeys([*sources, *targets]))
    for index, nearest in enumerate(mode.nearest_segments(points)):
        if nearest is None:
            continue
        edge, t, gap = nearest
        along = float(loaded.length[edge])
        u, v = int(loaded.graph.edge_u[edge]), int(loaded.graph.edge_v[edge])
        for end, part in ((u, t), (v, 1 - t)):
            feet = gap + part * along
            graph.add_edge(base + index, end, time=feet / mode.speed, feet=feet)
    vertex = {point: base + index for index, point in enumerate(points)}
    rows = []
    for source in sources:
        seconds, paths = nx.single_source_dijkstra(graph, vertex[source], weight="time")
        row = []
        for target in targets:
            path = paths.get(vertex[target])
            feet = (
                None
                if path is None
                else sum(graph.edges[a, b]["feet"] for a, b in itertools.pairwise(path))
            )
            row.append(None if path is None else (feet, seconds[vertex[target]]))
        rows.append(row)
    return rows


def networkx_contracted(mode: ModeGraph, sources: list[Point], targets: list[Point]) -> list:
    """networkx on floorgate's own contracted graph (junctions only), waypoints joined to
    their chains' ends as floorgate does: the algorithm alone, same input."""
    graph = nx.MultiGraph()
    ends = zip(
        mode.vertex_of[mode.chain_a].tolist(),
        mode.vertex_of[mode.chain_b].tolist(),
        mode.chain_time.tolist(),
        mode.chain_length.tolist(),
        strict=True,
    )
    for u, v, seconds, feet in ends:
        graph.add_edge(u, v, time=seconds, feet=feet)
    base = mode.graph.vcount()
    points = list(dict.fromkeys([*sources, *targets]))
    for index, join in enumerate(mode.joins(points)):
        if join is not None:
            for end, along in zip(join.ends, join.along, strict=True):
                feet = join.gap + along
                graph.add_edge(
                    base + index, int(mode.vertex_of[end]), time=feet / mode.speed, feet=feet
                )
    vertex = {point: base + index for index, point in enumerate(points)}
    return [
        nx.single_source_dijkstra_path_length(graph, vertex[s], weight="time")
        for s in dict.fromkeys(sources)
    ]


# -- the generated map ----------------------------------------------------------------


def generated_svg(levels: int = GENERATED_LEVELS) -> str:
    """Levels of a 40 x 40 corridor grid (vertices every 25 units; vertical corridors
    offset by half a step, so crossings split segments), an elevator and stairs."""
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{SPAN}" height="{SPAN}" '
        'data-feet-per-unit="0.25">'
    ]
    spacing = SPAN // GRID
    for level in range(levels):
        parts.append(
            f'<g id="L{level}" data-level="Level {level}" '
            f'data-tag-floor="gen-f{level}" data-level-index="{level}">'
            '<g data-layer="paths">'
        )
        for line in range(GRID):
            at = line * spacing + spacing / 2
            horizontal = " ".join(f"{x},{at}" for x in range(0, SPAN + 1, STEP))
            vertical = " ".join(f"{at},{y + STEP / 2}" for y in range(0, SPAN - STEP + 1, STEP))
            parts.append(f'<polyline points="{horizontal}"/><polyline points="{vertical}"/>')
        parts.append("</g>")
        parts.append(
            '<rect data-connector="elevator" data-connector-id="core" '
            'x="1990" y="1990" width="20" height="20"/>'
            '<rect data-connector="stairs" data-connector-id="stairs" '
            'x="190" y="190" width="20" height="20"/></g>'
        )
    parts.append("</svg>")
    return "".join(parts)


def generated_points(count: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    return [
        {
            "x": rng.uniform(0, SPAN),
            "y": rng.uniform(0, SPAN),
            "floor_id": f"gen-f{rng.randrange(GENERATED_LEVELS)}",
        }
        for _ in range(count)
    ]


def as_points(waypoints: list[dict[str, Any]]) -> list[Point]:
    return [Point(w["x"], w["y"], int(w["floor_id"].removeprefix("gen-f"))) for w in waypoints]


# -- the run --------------------------------------------------------------------------


def row(label: str, ours: list[float], baseline: list[float] | None, note: str = "") -> None:
    ours_ms = median_ms(ours)
    text = f"{label:<44} median {ours_ms:8.2f} ms  p90 {np.percentile(ours, 90) * 1000:8.2f} ms"
    if baseline is not None:
        base_ms = median_ms(baseline)
        text += f"  | networkx {base_ms:9.2f} ms  ({base_ms / ours_ms:5.1f}x)"
    print(text + (f"  {note}" if note else ""), flush=True)


async def bench(folder: Path) -> None:
    flags = "distances, locations-resource"
    async with demo_app(folder, "floorgate_bench_routing", flags) as demo:
        await demo_part(demo.client, demo.headers, demo.services)
        await generated_part(demo.client, demo.headers, demo.services, demo.store)


async def matrix_call(
    client: httpx.AsyncClient, headers: dict[str, str], map_id: str, body: dict[str, Any]
) -> None:
    response = await client.post(
        f"/v1/maps/{map_id}/distance-matrix", headers=headers, json={"data": body}
    )
    assert response.status_code == 200, response.text


async def demo_part(client: httpx.AsyncClient, headers: dict[str, str], services: Any) -> None:
    locations = (await client.get("/v1/maps/map-b1/locations", headers=headers)).json()["data"]
    unit_map = await services.store["unit_maps"].find_one({"_id": "map-b1"})
    loaded = await load_graph(services.store, services.settings, unit_map["graph_file"], 10.0)
    mode = loaded.modes[FOOT]
    print(
        f"demo map-b1: {loaded.graph.node_count} nodes, {loaded.graph.edge_count} edges, "
        f"{len(locations)} locations"
    )
    by_id = {
        loc["id"]: Point(loc["x"], loc["y"], int(loc["floors"][0]["id"][-1]) - 1)
        for loc in locations
    }
    for shape in ((5, 10), (1, 50)):
        sources, targets = locations[: shape[0]], locations[-shape[1] :]
        body = {
            "sources": [{"id": s["id"]} for s in sources],
            "targets": [{"id": t["id"]} for t in targets],
        }
        await matrix_call(client, headers, "map-b1", body)
        warm = await timed(lambda body=body: matrix_call(client, headers, "map-b1", body))

        async def cold(body: dict[str, Any] = body) -> None:
            services.graph_cache.clear()
            await matrix_call(client, headers, "map-b1", body)

        cold_samples = await timed(cold)
        src = [by_id[s["id"]] for s in sources]
        tgt = [by_id[t["id"]] for t in targets]
        baseline = sync_timed(lambda src=src, tgt=tgt: networkx_matrix(mode, src, tgt))
        label = f"demo {shape[0]}x{shape[1]} REST"
        row(f"{label} warm", warm, baseline, "(goal: median < 15 ms)")
        row(f"{label} cold", cold_samples, baseline)


async def generated_part(
    client: httpx.AsyncClient, headers: dict[str, str], services: Any, store: Any
) -> None:
    svg = generated_svg()
    start = time.perf_counter()
    parsed = parse_unit_map(svg, services.settings.svg_limits)
    parse_s = time.perf_counter() - start
    builds = sync_timed(lambda: build_walk_graph(parsed), rounds=3)
    graph = build_walk_graph(parsed)
    assert graph is not None
    walk_edges = int((graph.edge_kind == 0).sum())
    print(
        f"generated: {len(svg) / 1e6:.1f} MB SVG, {len(parsed.walk_lines)} walk lines, "
        f"{graph.node_count} nodes, {walk_edges} walk edges; parse {parse_s * 1000:.0f} ms"
    )
    row("generated build_walk_graph", builds, None, "(goal: < 2000 ms)")
    data = graph_bytes(graph)
    name = "bench/generated.walk.npz"
    await put_file(store, name, data, "application/octet-stream", immutable=True)
    costs = Costs()
    loads = await timed(lambda: load_graph(store, services.settings, name, 10.0), rounds=5)
    row(f"generated load from database ({len(data) / 1e6:.1f} MB)", loads, None, "(goal: < 500 ms)")
    loaded = LoadedGraph(graph, costs, 10.0)
    mode = loaded.modes[FOOT]
    dataset = {
        "assets": [{"id": "gen", "market": "multifamily", "name": "Generated"}],
        "floors": [
            {"id": f"gen-f{i}", "asset_id": "gen", "name": f"{i}", "sort": i}
            for i in range(GENERATED_LEVELS)
        ],
        "unit_maps": [{"id": "gen-map", "asset_id": "gen", "name": "Generated"}],
    }
    await import_data(store, dataset, Path.cwd(), svg_sources={"gen-map": svg})
    for count_s, count_t in ((1, 50), (5, 10)):
        sources = generated_points(count_s, seed=count_s)
        targets = generated_points(count_t, seed=100 + count_t)
        src, tgt = as_points(sources), as_points(targets)
        direct = sync_timed(lambda src=src, tgt=tgt: loaded.matrix(Profile(FOOT), src, tgt))
        baseline = sync_timed(lambda src=src, tgt=tgt: networkx_matrix(mode, src, tgt), rounds=3)
        ours = loaded.matrix(Profile(FOOT), src, tgt)
        theirs = networkx_matrix(mode, src, tgt)
        assert all(
            (a is None and b is None) or (abs(a[1] - b[1]) < 1e-6 and abs(a[0] - b[0]) < 1e-6)
            for ra, rb in zip(ours, theirs, strict=True)
            for a, b in zip(ra, rb, strict=True)
        ), "networkx and igraph disagree"
        body = {"sources": sources, "targets": targets}
        await matrix_call(client, headers, "gen-map", body)
        warm = await timed(lambda body=body: matrix_call(client, headers, "gen-map", body))
        label = f"generated {count_s}x{count_t}"
        row(f"{label} loaded graph", direct, baseline, "(goal: < 50 ms, >= 10x)")
        contracted = sync_timed(lambda src=src, tgt=tgt: networkx_contracted(mode, src, tgt))
        row(f"{label} loaded graph vs nx contracted", direct, contracted)
        row(f"{label} REST warm", warm, baseline)


def main() -> None:
    print(
        f"{platform.platform()}, {platform.processor() or platform.machine()}, "
        f"CPython {platform.python_version()}, igraph {version('igraph')}, "
        f"networkx {version('networkx')}, shapely {version('shapely')}"
    )
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(bench(Path(folder)))
