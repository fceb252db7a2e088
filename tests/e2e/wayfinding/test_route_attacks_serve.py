"""Issue 45, point 1, against `floorgate serve` over TLS: a far ad-hoc waypoint, and a
route past its time budget.

As found: `route` from `{"x": 1e9, "y": -1e9, "floor_id": ...}` to a location of a
multi-level map answered 503 after 20 s, while the worker went on at 100% CPU up to
15 GB of RSS (the bend probe allocated per half foot of a leg a billion units long).
Now such a waypoint is 422 on its field at once, on REST and GraphQL, for `route` and
E18, and the server's RSS does not move; and a route that passes its time budget
(FLOORGATE_REQUEST_TIMEOUT_SECONDS, 503) stops its work: the server's CPU falls to idle
right after the 503, and the CPU pool takes new work.

The server's RSS is read from /proc/<pid>/status, its CPU time (every thread) from
/proc/<pid>/stat: a loaded machine slows the work, it does not add CPU time to it.
"""

from __future__ import annotations

import asyncio
import os
import ssl
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from resolvers.auth.keys import create_key
from resolvers.auth.permissions import DISTANCES_CALCULATE
from storage.imports.importer import import_data
from storage.settings import Settings
from tests._dbserver import fresh_store
from tests.servers import own_demo_database, serve_tls

pytestmark = [pytest.mark.e2e, pytest.mark.security]

MIB = 1024 * 1024
FLAGS = "directions, distances"
B1 = "map-b1"  # the demo's building map: four levels, one per floor
GYM = "loc-b1-f1-gym@map-b1"
FAR = {"x": 1e9, "y": -1e9, "floor_id": "b1-f4"}
OFF_F4 = (
    "(1e+09, -1e+09) is off the drawing of floor 'b1-f4': x must be from -1096 to 2496 "
    "and y from -960 to 1542"
)
AT_ONCE_SECONDS = 2.0  # a 422 takes milliseconds; generous for a loaded machine
RSS_GROWTH_BYTES = 50 * MIB


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def cpu_seconds(pid: int) -> float:
    """User and system time of every thread of the process."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def refused(fields: dict[str, list[str]]) -> tuple[int, dict[str, Any]]:
    return 422, {"message": "Resource validation failed", "fields": fields}


async def test_a_far_waypoint_is_refused_at_once_and_costs_no_memory(db_server, tmp_path):
    async with own_demo_database(db_server, tmp_path, "floorgate_far_waypoint_e2e") as demo:
        settings, key = demo
        headers = {"API-Key": key, "Experimental-Flags": FLAGS}
        with serve_tls(settings.data_dir, db_server, settings) as served:
            pid = served.process.pid
            tls = ssl.create_default_context(cafile=str(served.certs.ca_cert))
            async with httpx.AsyncClient(base_url=served.base, verify=tls, timeout=30) as client:

                async def post(path: str, data: dict[str, Any]) -> tuple[httpx.Response, float]:
                    started = time.perf_counter()
                    response = await client.post(path, json={"data": data}, headers=headers)
                    return response, time.perf_counter() - started

                near = {"x": 600, "y": 256, "floor_id": "b1-f4"}
                honest, _ = await post(f"/v1/maps/{B1}/route", {"from": near, "to": {"id": GYM}})
                assert honest.status_code == 200, honest.text  # the graph is loaded
                before = rss_bytes(pid)
                route, route_took = await post(
                    f"/v1/maps/{B1}/route", {"from": FAR, "to": {"id": GYM}}
                )
                matrix, matrix_took = await post(
                    f"/v1/maps/{B1}/distance-matrix",
                    {"sources": [near, FAR], "targets": [{"id": GYM}]},
                )
                started = time.perf_counter()
                graphql = await client.post(
                    "/graphql",
                    json={
                        "query": 'query ($from: WaypointInput!) { route(unitMapId: "map-b1", '
                        'from: $from, to: {id: "loc-b1-f1-gym@map-b1"}) { reason } }',
                        "variables": {"from": {"x": 1e9, "y": -1e9, "floorId": "b1-f4"}},
                    },
                    headers=headers,
                )
                graphql_took = time.perf_counter() - started
                after = rss_bytes(pid)
                again, _ = await post(f"/v1/maps/{B1}/route", {"from": near, "to": {"id": GYM}})
    slowest = max(route_took, matrix_took, graphql_took)
    print(f"far waypoint: 422 in {slowest * 1000:.0f} ms, RSS {before // MIB} -> {after // MIB} MB")
    assert (route.status_code, route.json()) == refused({"data.from": [OFF_F4]})
    assert (matrix.status_code, matrix.json()) == refused({"data.sources.1": [OFF_F4]})
    assert graphql.status_code == 200
    (error,) = graphql.json()["errors"]
    assert error["extensions"] == {"code": "BAD_USER_INPUT", "fields": {"from": [OFF_F4]}}
    assert slowest < AT_ONCE_SECONDS
    assert after - before < RSS_GROWTH_BYTES, (before / MIB, after / MIB)
    assert again.json() == honest.json()


# A map whose one walk line is a zig-zag of 80,000 vertices 30 ft apart, at right angles:
# a route from one end to the other is one leg of 80,000 turns, about 6 s of CPU (every
# vertex unfolded, every turn planned), while a route between neighbouring vertices takes
# a fraction of a second. An honest map, only long: what a route past its budget is.
ZIGZAG_VERTICES = 80_000
STEP = 30
BUDGET_SECONDS = 3.0  # FLOORGATE_REQUEST_TIMEOUT_SECONDS for the test
SETTLE_SECONDS = 1.0  # after the 503, before the CPU is measured: a check's interval
IDLE_WINDOW_SECONDS = 2.0
IDLE_CPU_SECONDS = 0.3  # an idle server uses a few ms a second
ZIGZAG_RSS_GROWTH_BYTES = 200 * MIB  # what the route held when stopped, at most


def zigzag_dataset() -> tuple[dict[str, Any], dict[str, str]]:
    points = " ".join(f"{STEP * k},{STEP * (k % 2)}" for k in range(ZIGZAG_VERTICES))
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{STEP * ZIGZAG_VERTICES}" '
        'height="100" data-feet-per-unit="1"><g id="Z" data-level="Zig" '
        'data-tag-floor="zig-f1"><g data-layer="paths">'
        f'<polyline points="{points}"/></g></g></svg>'
    )
    data = {
        "version": 1,
        "assets": [{"id": "zig", "market": "office", "name": "Zig-zag"}],
        "floors": [{"id": "zig-f1", "asset_id": "zig", "name": "Zig", "sort": 1}],
        "unit_maps": [{"id": "zig-map", "asset_id": "zig", "name": "Zig-zag"}],
    }
    return data, {"zig-map": svg}


def at_vertex(k: int) -> dict[str, Any]:
    return {"x": STEP * k, "y": STEP * (k % 2), "floor_id": "zig-f1"}


async def test_a_route_past_its_time_budget_stops_its_work(db_server, tmp_path):
    async with fresh_store(db_server) as store:
        data, svgs = zigzag_dataset()
        await import_data(store, data, tmp_path, svg_sources=svgs)
        key = (await create_key(store, "zig", [DISTANCES_CALCULATE], None)).secret
        settings = Settings(data_dir=tmp_path, database_name=store.db.name)
        headers = {"API-Key": key, "Experimental-Flags": FLAGS}
        budget = {"FLOORGATE_REQUEST_TIMEOUT_SECONDS": str(BUDGET_SECONDS)}
        with serve_tls(tmp_path, db_server, settings, **budget) as served:
            pid = served.process.pid
            tls = ssl.create_default_context(cafile=str(served.certs.ca_cert))
            async with httpx.AsyncClient(base_url=served.base, verify=tls, timeout=60) as client:

                async def route(start: int, end: int) -> httpx.Response:
                    body = {"data": {"from": at_vertex(start), "to": at_vertex(end)}}
                    return await client.post("/v1/maps/zig-map/route", json=body, headers=headers)

                for _ in range(3):  # the graph loads with the first (in the budget, or again)
                    short = await route(0, 2)
                    if short.status_code == 200:
                        break
                assert short.status_code == 200, short.text
                before = rss_bytes(pid)
                started = time.perf_counter()
                long = await route(0, ZIGZAG_VERTICES - 1)
                answered = time.perf_counter() - started
                await asyncio.sleep(SETTLE_SECONDS)
                cpu_before = cpu_seconds(pid)
                await asyncio.sleep(IDLE_WINDOW_SECONDS)
                cpu_after = cpu_seconds(pid)
                after = rss_bytes(pid)
                started = time.perf_counter()
                again = await route(0, 2)
                again_took = time.perf_counter() - started
    print(
        f"route past its budget: 503 after {answered:.1f} s, then {cpu_after - cpu_before:.2f}"
        f" s of CPU in {IDLE_WINDOW_SECONDS:.0f} s, RSS {before / MIB:.0f} -> {after / MIB:.0f} MB"
    )
    assert (long.status_code, long.json()) == (503, {"message": "Service unavailable"})
    assert "retry-after" in long.headers
    assert answered >= BUDGET_SECONDS
    # The work stopped: before, the pool thread computed on for seconds after the 503.
    assert cpu_after - cpu_before < IDLE_CPU_SECONDS, cpu_after - cpu_before
    assert after - before < ZIGZAG_RSS_GROWTH_BYTES, (before / MIB, after / MIB)
    assert again.status_code == 200 and again.json() == short.json()
    assert again_took < BUDGET_SECONDS  # the pool took it: no thread still busy
