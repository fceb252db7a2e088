"""End to end, what a cluster's operator meets (issue 52, points 1 and 2), through
`floorgate serve`: the metrics port answers plain HTTP without a key where it is bound,
and only there, with the figures of every worker; trusted proxies given as networks set
the client's address and scheme, and a peer outside them sets neither."""

from __future__ import annotations

import asyncio
import re
import ssl
import subprocess
from collections.abc import AsyncIterator

import httpx
import pytest
import pytest_asyncio

import parsing.demo.drawings as drawings
import storage.demo.install as install
from storage.settings import Settings
from tests.rest.ops.test_metrics import scrape_lines
from tests.servers import FLOORGATE, cli_env, free_port, own_demo_database, serve_tls_with_args

pytestmark = pytest.mark.e2e
ASSETS = 'floorgate_requests_total{method="GET",route="listAssets",status="200"}'
SCRAPE_HOST = "127.0.0.2"  # a loopback address of its own: 127.0.0.1 is not where it listens


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def served_demo(db_server, tmp_path_factory) -> AsyncIterator[tuple[Settings, str]]:
    """The demo in a database of its own and a key, installed once for the tests that
    serve it: they only read it (each `floorgate serve` is its own, with its own log).
    Two floors a building, not four (as `half_demo_version`): they read assets, units and
    maps, not all of them."""
    folder = tmp_path_factory.mktemp("served")
    with pytest.MonkeyPatch.context() as patch:
        for module in (drawings, install):
            patch.setattr(module, "FLOORS", (1, 2))
        demo = own_demo_database(db_server, folder, "floorgate_cluster_serve_e2e")
        installed = await demo.__aenter__()
    try:
        yield installed
    finally:
        await demo.__aexit__(None, None, None)


async def scrape_until(url: str, wanted: float, timeout: float = 15.0) -> dict[str, float]:
    """The metrics port's samples once listAssets counts `wanted` (workers write their
    figures each second)."""
    async with httpx.AsyncClient(timeout=5) as client:
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            samples = scrape_lines((await client.get(url)).text)
            if samples.get(ASSETS) == wanted or asyncio.get_running_loop().time() > deadline:
                return samples
            await asyncio.sleep(0.25)


async def test_the_metrics_port_sums_every_worker_where_it_is_bound(db_server, served_demo):
    metrics_port = free_port()
    settings, key = served_demo
    with serve_tls_with_args(
        settings.data_dir,
        db_server,
        settings,
        ("--workers", "2"),
        FLOORGATE_METRICS_PORT=str(metrics_port),
        FLOORGATE_METRICS_HOST=SCRAPE_HOST,
    ) as served:
        tls = ssl.create_default_context(cafile=str(served.certs.ca_cert))
        async with httpx.AsyncClient(base_url=served.base, verify=tls, timeout=10) as api:
            for _ in range(8):  # new connections: both workers take some
                answer = await api.get(
                    "/v1/assets", headers={"API-Key": key, "Connection": "close"}
                )
                assert answer.status_code == 200
        port_url = f"http://{SCRAPE_HOST}:{metrics_port}"
        samples = await scrape_until(f"{port_url}/metrics", 8)
        async with httpx.AsyncClient(base_url=served.base, verify=tls, timeout=10) as api:
            same = scrape_lines((await api.get("/metrics")).text)  # loopback: no key
        async with httpx.AsyncClient(base_url=port_url, timeout=5) as plain:
            elsewhere = await plain.get("/v1/assets", headers={"API-Key": key})
            posted = await plain.post("/metrics")
            head = await plain.head("/metrics")
        with pytest.raises(httpx.ConnectError):  # nothing listens where it is not bound
            async with httpx.AsyncClient(timeout=5) as other:
                await other.get(f"http://127.0.0.1:{metrics_port}/metrics")
    assert samples[ASSETS] == 8 and same[ASSETS] == 8
    assert samples["floorgate_workers"] == same["floorgate_workers"] == 2
    assert (elsewhere.status_code, elsewhere.json()) == (404, {"message": "Not found"})
    assert (posted.status_code, posted.json()) == (405, {"message": "Method not allowed"})
    assert posted.headers["allow"] == "GET, HEAD"
    assert head.status_code == 200 and head.content == b""
    assert head.headers["content-type"] == "text/plain; version=1.0.0; charset=utf-8"


def logged_clients(log: str, path: str) -> list[tuple[str, str]]:
    """(status, client) of each access line of `path`."""
    pattern = rf"path={re.escape(path)} status=(\d+) ms=\S+ client=(\S+)"
    return re.findall(pattern, log)


async def test_proxies_by_network_set_the_client_and_scheme_only_from_inside(
    db_server, served_demo
):
    settings, key = served_demo
    args = ("--behind-proxy", "--proxy-address", "127.0.0.0/30", "--proxy-address", "fd00::/8")
    with serve_tls_with_args(settings.data_dir, db_server, settings, args) as served:
        forwarded = {
            "API-Key": key,
            "X-Forwarded-Proto": "https",
            "X-Forwarded-For": "203.0.113.7",
        }
        answers = {}
        # 127.0.0.1 is in 127.0.0.0/30 (a proxy); 127.0.0.5 is not (anyone else).
        for source, path in (("127.0.0.1", "/v1/assets"), ("127.0.0.5", "/v1/units")):
            transport = httpx.AsyncHTTPTransport(local_address=source)
            async with httpx.AsyncClient(transport=transport, timeout=10) as client:
                url = f"http://127.0.0.1:{served.port}{path}"
                answers[source] = await client.get(url, headers=forwarded)
                if source == "127.0.0.1":  # a proxy passing on what is no address
                    junk = {**forwarded, "X-Forwarded-For": "x" * 2000}
                    url = f"http://127.0.0.1:{served.port}/v1/maps"
                    answers["junk"] = await client.get(url, headers=junk)
        log = served.log.read_text()
    assert answers["127.0.0.1"].status_code == 200 and answers["127.0.0.1"].json()["data"]
    assert (answers["127.0.0.5"].status_code, answers["127.0.0.5"].json()) == (
        403,
        {"message": "HTTPS is required"},  # its X-Forwarded-Proto did not count
    )
    assert logged_clients(log, "/v1/assets") == [("200", "203.0.113.7")]
    assert logged_clients(log, "/v1/units") == [("403", "127.0.0.5")]
    # Issue 63, finding 9: the proxy's own address, not 2,000 characters of text.
    assert answers["junk"].status_code == 200
    assert logged_clients(log, "/v1/maps") == [("200", "127.0.0.1")]


@pytest.mark.parametrize(
    ("address", "said"),
    [
        ("10.0.0.1/8", "'10.0.0.1/8' is not an IP address or network"),
        ("proxy.internal", "'proxy.internal' is not an IP address or network"),
    ],
)
def test_a_proxy_address_that_is_not_one_stops_serve_at_start(
    db_server, settings, tmp_path, address, said
):
    result = subprocess.run(
        [FLOORGATE, "serve", "--behind-proxy", "--proxy-address", address],
        env=cli_env(db_server, settings, tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr.startswith(f"floorgate serve: FLOORGATE_PROXY_ADDRESSES: {said}")
    assert result.stderr.count("\n") == 1
