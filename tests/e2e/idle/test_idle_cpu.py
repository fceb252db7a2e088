"""Issue 45, point 12: an idle `floorgate serve` costs at most 1.5x the CPU of the minimal
Starlette + PyMongo + orjson server (tests/benchmarks/harness/minimal_server.py) idle
beside it on the same database, measured in the same window.

Before, it polled the switches in progress every 0.75 s beside its change stream's own
getMores every 0.5 s: 4.3 against 2.3 ms of CPU per second. Then the switch gate took its
freshness from the stream's empty answers, every 1.3 s: 1.39-1.68x here. Now the gate
polls only while reads come and the stream waits 5 s per getMore (storage/cache/
switch_gate.py), and nothing else runs per second (docs/performance-history.md, "Idle").

What it adds to the minimal server's wake-ups, counted with strace and by the loop's
timers (machine B, 2026-11-28): the change stream's outstanding getMore, whose reply
pymongo awaits beside a task that looks for a cancellation every 0.5 s
(`pymongo.network_layer._poll_cancellation`), and one getMore every 5 s; uvicorn's tick
(10 a second) and pymongo's monitors are the same in both. On this 2-core machine a
30 s window put that at 1.33-1.75x for this tree and its parent alike, the first window
after start the highest: so up to WINDOWS windows, the lowest counted; a cost the server
adds shows in every one."""

from __future__ import annotations

import asyncio
import os
import re
import ssl
import time
from pathlib import Path

import httpx
import pytest

from storage.cache.change_watch import STREAM_WAIT_MS
from storage.cache.switch_gate import FRESH_SECONDS, QUIET_SECONDS
from tests.benchmarks.harness import servers as s
from tests.servers import Served, free_port, serve_tls

COUNT = re.compile(r'floorgate_db_command_duration_seconds_count\{command="(\w+)"\} (\S+)')
IDLE_SECONDS = 30.0
# After the first answers: the schema is built a second after start, and the switch
# gate polls until its process has read nothing for QUIET_SECONDS (and one poll more).
SETTLE_SECONDS = QUIET_SECONDS + FRESH_SECONDS
RATIO = 1.5
WINDOWS = 3


async def commands(served: Served) -> dict[str, float]:
    """The database commands this process ran so far, by name (`/metrics`)."""
    context = ssl.create_default_context(cafile=str(served.certs.ca_cert))
    async with httpx.AsyncClient(base_url=served.base, verify=context, timeout=10) as client:
        text = (await client.get("/metrics")).text
    return {name: float(count) for name, count in COUNT.findall(text)}


async def answered(base: str, served: Served, key: str) -> None:
    """Until `base` answers a keyed GET of an asset with 200."""
    context = ssl.create_default_context(cafile=str(served.certs.ca_cert))
    deadline = time.monotonic() + 60
    async with httpx.AsyncClient(base_url=base, verify=context, timeout=10) as client:
        while True:
            try:
                response = await client.get("/v1/assets/asset-1", headers={"API-Key": key})
                assert response.status_code == 200, response.text
                return
            except httpx.TransportError:
                assert time.monotonic() < deadline, f"{base} never answered"
                await asyncio.sleep(0.1)


def idle_ms_per_second(pids: dict[str, int], seconds: float) -> dict[str, float]:
    """Each process tree's CPU (every thread and child, `/proc`) per second of wall time
    over the same `seconds`, nobody asking anything."""
    before = {name: s.tree_cpu_seconds(s.descendants(pid)) for name, pid in pids.items()}
    start = time.monotonic()
    time.sleep(seconds)
    wall = time.monotonic() - start
    after = {name: s.tree_cpu_seconds(s.descendants(pid)) for name, pid in pids.items()}
    return {name: (after[name] - before[name]) * 1000 / wall for name in pids}


@pytest.mark.e2e
@pytest.mark.serial  # CPU time of idle servers: another test's load would be counted too
async def test_an_idle_floorgate_costs_at_most_one_and_a_half_the_minimal_server(
    tmp_path: Path, db_server, settings, keys
) -> None:
    with serve_tls(
        tmp_path / "floorgate", db_server, settings, FLOORGATE_ACCESS_LOG="off"
    ) as served:
        port = free_port()
        args = s.minimal_args(
            port,
            served.certs.cert,
            served.certs.key,
            f"https://localhost:{port}",
            db_server.uri,
            settings.database_name,
        )
        minimal = s.spawn("minimal", args, dict(os.environ), tmp_path, port)
        try:
            await answered(served.base, served, keys.full)
            await answered(f"https://localhost:{port}", served, keys.full)
            await asyncio.sleep(SETTLE_SECONDS)
            pids = {"floorgate": served.process.pid, "minimal": minimal.pid}
            # A few windows at most: on a shared 2-core machine one window's idle figures
            # swung from 16 to 40 ms/s for the same tree (machine B, 2026-11-28); a cost
            # the server adds shows in every one.
            for _ in range(WINDOWS):
                before = await commands(served)
                figures = await asyncio.to_thread(idle_ms_per_second, pids, IDLE_SECONDS)
                ran = {k: v - before.get(k, 0) for k, v in (await commands(served)).items()}
                shown = {name: f"{value:.2f} ms/s" for name, value in figures.items()}
                print(f"idle CPU: {shown}; database commands meanwhile: {ran}")
                if figures["floorgate"] <= RATIO * figures["minimal"]:
                    break
        finally:
            s.stop(minimal)
    # What it does idle, whatever the machine's load: the stream's getMores, no poll (and
    # once a minute the record of its request budget, which a second window may meet).
    assert {k for k, v in ran.items() if v} <= {"getMore", "update"}, ran
    assert ran.get("update", 0) <= 1, ran
    assert ran["getMore"] <= IDLE_SECONDS / (STREAM_WAIT_MS / 1000) + 2, ran
    assert figures["floorgate"] <= RATIO * figures["minimal"], shown
