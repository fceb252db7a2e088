"""Two processes behind docs/deploy.md's property affinity against one (issue 67, point
4): how many properties their read caches hold, as the hit rate of kept answers.

P properties of 1,000 units (`tests.benchmarks.properties`), each process's read cache
small on purpose (FLOORGATE_READ_CACHE_MB, 1 MiB: about half the properties' answers),
`floorgate serve --behind-proxy` processes behind nginx with the guide's configuration:
one; two by round robin; two behind the affinity block. A warm-up pass asks every
property once; then REQUESTS asks of E6 `?asset=` on properties drawn at random. The
hit rate: the kept answers served (`floorgate_read_cache_answer_hits_total` of every
process) over those asks.

Run with `python -m tests.benchmarks affinity` (needs nginx; about a minute).
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import signal
import ssl
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from resolvers.auth.keys import create_key
from rest.ops.tls import ensure_local_certificates
from storage.database import connect
from storage.embedded.server import EmbeddedServer
from storage.settings import Settings
from tests.benchmarks.harness.report import run_and_report
from tests.benchmarks.properties import DATABASE, property_id, seed
from tests.e2e.test_nginx import NGINX, documented_config, nginx_main
from tests.e2e.test_nginx_affinity import config as affinity_config
from tests.servers import FLOORGATE, free_port, wait_for_port

PROPERTIES = 60
CACHE_MB = 1
REQUESTS = 1500
HITS = re.compile(r"^floorgate_read_cache_answer_hits_total (\S+)$", re.M)


@dataclass
class Result:
    processes: int
    hashed: bool  # behind the affinity block, else nginx's round robin
    hit_rate: float
    p50_ms: float


def served(uri: str, folder: Path, port: int, public: str) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "FLOORGATE_MONGODB_URI": uri,
        "FLOORGATE_DATABASE": DATABASE,
        "FLOORGATE_DATA_DIR": str(folder),
        "FLOORGATE_PUBLIC_URL": public,
        "FLOORGATE_READ_CACHE_MB": str(CACHE_MB),
        "FLOORGATE_RATE_LIMIT_PER_SECOND": "0",
    }
    command = [FLOORGATE, "serve", "--behind-proxy", "--proxy-address", "127.0.0.1"]
    command += ["--host", "127.0.0.1", "--port", str(port)]
    log = (folder / f"serve-{port}.log").open("w")
    return subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)


def answer_hits(port: int) -> float:
    text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10).text
    found = HITS.search(text)
    assert found, text[:500]
    return float(found.group(1))


async def measure(uri: str, folder: Path, key: str, processes: int, hashed: bool) -> Result:
    certs = ensure_local_certificates(folder / "tls")
    proxy, ports = free_port(), [free_port() for _ in range(processes)]
    public = f"https://localhost:{proxy}"
    prefix = folder / f"nginx-{processes}-{hashed}"
    prefix.mkdir()
    text = (
        affinity_config(proxy, ports, certs.cert, certs.key)
        if processes > 1
        else documented_config(proxy, ports[0], certs.cert, certs.key)
    )
    if not hashed:
        text = re.sub(r"^ *hash .*\n", "", text, flags=re.M)
    (prefix / "nginx.conf").write_text(nginx_main(prefix, text))
    servers = [served(uri, folder, port, public) for port in ports]
    assert NGINX is not None, "nginx is needed"
    nginx = subprocess.Popen(
        [NGINX, "-p", str(prefix), "-c", str(prefix / "nginx.conf"), "-g", "daemon off;"]
    )
    try:
        for port, server in zip(ports, servers, strict=True):
            wait_for_port(port, server, log=folder / f"serve-{port}.log")
        tls = ssl.create_default_context(cafile=str(certs.ca_cert))
        headers = {"API-Key": key}
        async with httpx.AsyncClient(base_url=public, verify=tls, headers=headers) as client:
            deadline = time.monotonic() + 10
            while True:
                try:
                    await client.get("/healthz")
                    break
                except httpx.TransportError:
                    assert time.monotonic() < deadline, "nginx did not listen"
                    await asyncio.sleep(0.1)
            for n in range(PROPERTIES):  # warm: each property once
                await client.get(f"/v1/units?asset={property_id(n)}&per-page=100")
            before = sum(answer_hits(port) for port in ports)
            draw = random.Random(67)
            times = []
            for _ in range(REQUESTS):
                asset = property_id(draw.randrange(PROPERTIES))
                started = time.perf_counter()
                answer = await client.get(f"/v1/units?asset={asset}&per-page=100")
                times.append(time.perf_counter() - started)
                assert answer.status_code == 200, answer.text
            hits = sum(answer_hits(port) for port in ports) - before
    finally:
        nginx.send_signal(signal.SIGQUIT)
        nginx.wait(timeout=20)
        for server in servers:
            server.send_signal(signal.SIGINT)
            server.wait(timeout=20)
    times.sort()
    return Result(processes, hashed, hits / REQUESTS, times[len(times) // 2] * 1000)


async def run(folder: Path) -> list[Result]:
    server = EmbeddedServer(folder / "db")
    server.start()
    try:
        store = connect(server.uri, Settings(database_name=DATABASE))
        try:
            await seed(store, PROPERTIES)
            key = (await create_key(store, "bench", [], None)).secret
        finally:
            await store.close()
        return [
            await measure(server.uri, folder, key, processes, hashed)
            for processes, hashed in ((1, False), (2, False), (2, True))
        ]
    finally:
        server.stop()


def table(results: list[Result]) -> list[str]:
    lines = [
        "| processes | proxy | hit rate of kept answers | p50 ms |",
        "|---:|---|---:|---:|",
    ]
    lines += [
        f"| {r.processes} | {'affinity' if r.hashed else 'round robin'} | {r.hit_rate:.0%} | "
        f"{r.p50_ms:.1f} |"
        for r in results
    ]
    return lines


def main() -> None:
    title = (
        f"Property affinity: {PROPERTIES} properties, read caches of {CACHE_MB} MiB, "
        f"{REQUESTS} E6 asks at random, one process against two behind the guide's nginx"
    )
    run_and_report(title, run, lambda results: [table(results)])
