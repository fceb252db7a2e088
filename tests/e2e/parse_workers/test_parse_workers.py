"""End to end: the parse workers of a served floorgate (storage/isolated.py) give their
memory back after big E10 parses, and stop quietly on Ctrl-C (issue 45, points 7 and 11).

Ten refused 8.6 MB drawings (210,000 elements, over the 200,000 limit) took the two
parse workers from 75 / 51 MB to 1.13 GB each, and they kept it. The whole process tree
is measured (the server, its fork server and resource tracker, its parse workers), from
/proc, not only the serving process."""

from __future__ import annotations

import asyncio
import os
import signal
import ssl
import time
from pathlib import Path

import httpx
import pytest

from tests.servers import serve_tls

pytestmark = [pytest.mark.e2e, pytest.mark.security]

SVG_NS = "http://www.w3.org/2000/svg"
ELEMENT = '<rect x="1" y="10" width="1" height="1"/>'  # 41 bytes: 210,000 make 8.6 MB
MAX_ELEMENTS = 200_000  # FLOORGATE_SVG_MAX_ELEMENTS's default
SIZED = ' width="100" height="100"'
REFUSAL = {
    "message": "Resource validation failed",
    "fields": {"body": ["the SVG has 200604 or more elements; the limit is 200000"]},
}
# The tree after the parses, over its figure after warm-up. Measured 2026-11-27: +86 to
# +94 MB alone (the serving process keeps ~80 MB after ten 8.6 MB bodies: not free heap,
# malloc_trim after each body gave nothing back), +108 once in a whole run; the same with
# the code of the day before. 100 left no room; what this guards against is +2,600 MB.
GROWTH_BOUND_MB = 130


def drawing(elements: int, size: str = SIZED) -> bytes:
    return f'<svg xmlns="{SVG_NS}"{size}>{ELEMENT * elements}</svg>'.encode()


def descendants(pid: int) -> list[int]:
    """`pid`'s children, their children and so on, read from /proc."""
    found: list[int] = []
    for children in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            pids = [int(child) for child in children.read_text().split()]
        except FileNotFoundError:  # the thread ended meanwhile
            continue
        for child in pids:
            found += [child, *descendants(child)]
    return found


def rss_mb(pid: int) -> float:
    """VmRSS of `pid` in MB (0 once it is gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return 0.0
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0  # a zombie has no memory


def tree_rss(pid: int) -> dict[int, float]:
    """RSS in MB of `pid` and of each of its descendants."""
    return {process: rss_mb(process) for process in [pid, *descendants(pid)]}


def running(pid: int) -> bool:
    """`pid` exists and has not ended (a zombie has: only its parent's wait is missing)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def shown(tree: dict[int, float]) -> str:
    return f"{sum(tree.values()):,.0f} MB (" + ", ".join(f"{mb:.0f}" for mb in tree.values()) + ")"


async def test_big_parses_leave_the_process_tree_within_100_mb(db_server, settings, keys, tmp_path):
    """Ten refused drawings and ten accepted ones (just under the element limit), two at a
    time as the attack sent them: the tree within 100 MB of its size after warm-up (one
    small parse, so both workers exist). Before the fix: 202 MB, then 2,363 after the
    refused ones and 2,834 after all; now 240-300."""
    budget = {"FLOORGATE_REQUEST_TIMEOUT_SECONDS": "300"}  # a loaded machine parses slowly
    with serve_tls(tmp_path, db_server, settings, **budget) as served:
        tls = ssl.create_default_context(cafile=str(served.certs.ca_cert))
        headers = {"API-Key": keys.full, "Content-Type": "image/svg+xml"}
        async with httpx.AsyncClient(base_url=served.base, verify=tls, timeout=300) as client:

            async def parse(svg: bytes) -> httpx.Response:
                return await client.post("/v1/maps/parse", content=svg, headers=headers)

            async def two(svg: bytes) -> list[httpx.Response]:
                return list(await asyncio.gather(parse(svg), parse(svg)))

            small = await parse(drawing(1))
            warm = tree_rss(served.process.pid)
            refused_svg = drawing(MAX_ELEMENTS + 10_000, size="")
            refused = [answer for _ in range(5) for answer in await two(refused_svg)]
            after_refused = tree_rss(served.process.pid)
            accepted_svg = drawing(MAX_ELEMENTS - 1_000)
            accepted = [answer for _ in range(5) for answer in await two(accepted_svg)]
            after = tree_rss(served.process.pid)
    print(f"\nprocess tree after warm-up {shown(warm)}, after ten refused parses")
    print(f"{shown(after_refused)}, after ten accepted ones {shown(after)}")
    assert small.status_code == 200
    assert len(warm) >= 4  # the server, the fork server, two parse workers (and a tracker)
    assert len(refused_svg) == 8_610_046
    assert [(answer.status_code, answer.json()) for answer in refused] == [(422, REFUSAL)] * 10
    assert [answer.status_code for answer in accepted] == [200] * 10
    assert len(accepted[0].json()["elements"][0]["elements"]) == MAX_ELEMENTS - 1_000
    assert sum(after.values()) <= sum(warm.values()) + GROWTH_BOUND_MB


async def test_ctrl_c_after_a_parse_stops_the_server_without_a_traceback(
    db_server, settings, keys, tmp_path
):
    """Ctrl-C in a terminal sends SIGINT to every process of the foreground group: the
    server and each process it started. Each parse worker printed a `KeyboardInterrupt`
    traceback; they ignore SIGINT now, and the server stops them as it exits, with exit
    status 0 (docs/limits.md, "Live changes")."""
    with serve_tls(tmp_path, db_server, settings) as served:
        tls = ssl.create_default_context(cafile=str(served.certs.ca_cert))
        headers = {"API-Key": keys.full, "Content-Type": "image/svg+xml"}
        async with httpx.AsyncClient(base_url=served.base, verify=tls, timeout=60) as client:
            parsed = await client.post("/v1/maps/parse", content=drawing(1), headers=headers)
        pids = [served.process.pid, *descendants(served.process.pid)]
        for pid in reversed(pids):  # all of them, the order unspecified: the workers first
            os.kill(pid, signal.SIGINT)
        status = served.process.wait(timeout=30)
    deadline = time.monotonic() + 10  # the fork server ends when it sees the server gone
    while any(map(running, pids)) and time.monotonic() < deadline:
        time.sleep(0.1)
    log = served.log.read_text()  # once every process is gone: all they wrote is there
    assert parsed.status_code == 200
    assert len(pids) >= 4  # the server, the fork server, two parse workers (and a tracker)
    assert "Traceback" not in log, log
    assert "KeyboardInterrupt" not in log, log
    # Nor a worker's first line alone ("Process ForkServerProcess-2:"), when the server
    # ended it before its traceback was written: the server's own lines only.
    assert [line for line in log.splitlines() if not line.startswith("INFO:")] == []
    assert "Finished server process" in log
    assert status == 0
    assert [pid for pid in pids if running(pid)] == []
