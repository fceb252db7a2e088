"""/metrics: scraped after traffic it finds the counters; loopback needs no key,
anyone else a key with service.metrics or service.admin; labels stay within bounded sets."""

from __future__ import annotations

import asyncio
import os
import ssl
import stat
import subprocess
import sys
import time
from collections import Counter
from dataclasses import replace

import httpx
import orjson
import pytest

from resolvers.search.builds import BUILDS
from rest.app import create_app
from rest.ops.figures import DURATION_BUCKETS, Figures
from rest.ops.metrics_folder import WRITE_SECONDS, MetricsFolder, decode, encode
from storage.command_timings import Timing
from tests.servers import serve_tls_with_args


def scrape_lines(text: str) -> dict[str, float]:
    """`name{labels}` -> value of every sample line."""
    samples = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            samples[name] = float(value)
    return samples


def client_of(app, host: str = "127.0.0.1", scheme: str = "https") -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=(host, 40000))
    return httpx.AsyncClient(transport=transport, base_url=f"{scheme}://t")


@pytest.fixture
def fresh_app(store, settings):
    return create_app(replace(settings, rate_limit_per_second=0.01, rate_limit_burst=6), store)


async def test_metrics_count_the_traffic(fresh_app, keys):
    key = {"API-Key": keys.full}
    async with client_of(fresh_app) as client:
        for _ in range(2):
            assert (await client.get("/v1/units?per-page=5", headers=key)).status_code == 200
        assert (await client.get("/v1/units/no-such", headers=key)).status_code == 404
        query = {"query": "{ units(perPage: 3) { data { id } } }"}
        assert (await client.post("/graphql", json=query, headers=key)).status_code == 200
        for _ in range(3):  # one unit each: the burst of 6 is spent by the second, a 429
            await client.get("/v1/assets", headers=key)
        await client.request("BREW", "/no/such/path/9f3a")  # bounded labels
        await client.get("/v1/no-such-route", headers=key)
        scraped = await client.get("/metrics")
    assert scraped.status_code == 200
    assert scraped.headers["content-type"] == "text/plain; version=1.0.0; charset=utf-8"
    samples = scrape_lines(scraped.text)

    def requests(route: str, method: str, status: str) -> str:
        return f'floorgate_requests_total{{method="{method}",route="{route}",status="{status}"}}'

    assert samples[requests("listUnits", "GET", "200")] == 2
    assert samples[requests("getUnit", "GET", "404")] == 1
    assert samples[requests("graphql", "POST", "200")] == 1
    assert samples[requests("listAssets", "GET", "200")] == 2
    assert samples[requests("listAssets", "GET", "429")] == 1
    assert samples[requests("other", "other", "405")] == 1  # no route serves BREW anywhere
    assert samples[requests("other", "GET", "404")] == 1
    assert not any("9f3a" in name or "BREW" in name for name in samples)
    assert samples['floorgate_request_duration_seconds_count{route="listUnits"}'] == 2
    assert samples['floorgate_request_duration_seconds_bucket{le="+Inf",route="listUnits"}'] == 2
    assert samples["floorgate_graphql_cost_count"] == 6  # every request charged (not the 429)
    assert samples['floorgate_rate_limited_total{limit="key"}'] == 1
    assert samples['floorgate_db_command_duration_seconds_count{command="find"}'] >= 1
    for name in (
        "floorgate_read_cache_hits_total",
        "floorgate_read_cache_bytes",
        "floorgate_read_cache_live",
    ):
        assert name in samples


async def test_every_cache_is_scraped_by_name_with_its_use_and_hits(store, settings, keys):
    """Issue 67: every cache of `/readyz` is in `/metrics` per `cache`: levels (entries,
    bytes, budget) as gauges, hits, misses, evictions and the search indexes' builds as
    counters."""
    app = create_app(settings, store)
    headers = {"API-Key": keys.full, "Experimental-Flags": "search"}
    async with client_of(app) as client:
        for words in ("lobby", "suite"):  # the second search finds the asset's index kept
            answer = await client.get(f"/v1/search?q={words}&asset=asset-1", headers=headers)
            assert answer.status_code == 200, answer.text
        query = {"query": "{ units(perPage: 1) { data { id } } }"}
        for _ in range(2):  # the second finds the document parsed
            assert (await client.post("/graphql", json=query, headers=headers)).status_code == 200
        ready = (await client.get("/readyz")).json()
        samples = scrape_lines((await client.get("/metrics")).text)

    def of(figure: str, cache: str) -> float:
        return samples[f'floorgate_cache_{figure}{{cache="{cache}"}}']

    assert of("hits_total", "search_indexes") >= 1
    assert of("misses_total", "search_indexes") >= 1
    assert of("hits_total", "graphql_documents") >= 1
    assert of("misses_total", "graphql_documents") >= 1
    assert of("budget_bytes", "walk_graphs") == settings.graph_cache_mb * 1024 * 1024
    assert of("bytes_used", "search_indexes") == ready["search_indexes"]["bytes_used"]
    assert of("full_builds_total", "search_indexes") == ready["search_indexes"]["full_builds"]
    scraped = {name.split('cache="')[1].rstrip('"}') for name in samples if "cache=" in name}
    shown = {name for name in ready if name not in ("status", "change_streams", "read_cache")}
    shown = (shown - {"graphql_caches"}) | {f"graphql_{name}" for name in ready["graphql_caches"]}
    assert scraped == shown


async def test_who_may_scrape(store, settings, keys):
    app = create_app(settings, store)
    async with client_of(app, "10.0.0.9") as remote:
        assert (await remote.get("/metrics")).status_code == 401
        plain = await remote.get("/metrics", headers={"API-Key": keys.plain})
        assert (plain.status_code, plain.json()["message"]) == (
            403,
            "Access denied: missing permission service.metrics",
        )
        scoped = await remote.get("/metrics", headers={"API-Key": keys.scoped})
        assert scoped.status_code == 403  # a key of another asset, without service.metrics
        admin = await remote.get("/metrics", headers={"API-Key": keys.full})
        assert admin.status_code == 200 and "floorgate_requests_total" in admin.text
    async with client_of(app, "127.0.0.1", scheme="http") as local_http:
        assert (await local_http.get("/metrics")).status_code == 200  # a scraper beside it
        assert (await local_http.get("/v1/assets")).status_code == 403  # HTTPS still required
    async with client_of(app, "10.0.0.9", scheme="http") as remote_http:
        refused = await remote_http.get("/metrics", headers={"API-Key": keys.full})
        assert refused.status_code == 403 and refused.json()["message"] == "HTTPS is required"
    off = create_app(replace(settings, metrics=False), store)
    async with client_of(off) as client:
        missing = await client.get("/metrics")
        assert (missing.status_code, missing.json()) == (404, {"message": "Not found"})


# -- the workers of one `floorgate serve --workers N` add up -----------------------------


def other_worker_figures(requests: int, cache_entries: int) -> Figures:
    """Figures as another worker writes them: `requests` answered 200 by listUnits."""
    figures = Figures(workers=1)
    figures.requests["listUnits", "GET", "200"] = requests
    figures.durations["listUnits"] = Timing(DURATION_BUCKETS)
    for _ in range(requests):
        figures.durations["listUnits"].observe(0.003)
    figures.commands["find"] = Timing()
    figures.commands["find"].observe(0.0004)
    figures.rate_limited["key"] = 2
    figures.cache_counts["hits"] = 7
    figures.cache_levels["entries"] = cache_entries
    figures.caches["search_indexes"] = {"entries": cache_entries, "hits": 7, "full_builds": 1}
    return figures


def ended_process_id() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


async def test_a_scrape_adds_up_every_workers_figures(store, settings, keys, tmp_path, caplog):
    """Counts of every worker that wrote (an ended one too: counters never go down),
    levels of the running ones only; an unreadable file is left out, named in the log."""
    folder = MetricsFolder(tmp_path)
    running, ended = os.getppid(), ended_process_id()
    (tmp_path / f"{running}.json").write_bytes(encode(other_worker_figures(3, 40)))
    (tmp_path / f"{ended}.json").write_bytes(encode(other_worker_figures(5, 500)))
    (tmp_path / "77.json").write_bytes(b'{"requests": [["listUnits", "GET", "200", -4]]}')
    short = orjson.loads(encode(other_worker_figures(1, 1)))
    short["costs"]["buckets"] = [1, 2]  # another version's buckets
    (tmp_path / "78.json").write_bytes(orjson.dumps(short))
    (tmp_path / "notes.txt").write_text("not a worker's")
    app = create_app(settings, store, metrics_folder=folder)
    async with client_of(app) as client:
        answer = await client.get("/v1/units?per-page=5", headers={"API-Key": keys.full})
        assert answer.status_code == 200
        scraped = await client.get("/metrics")
    assert scraped.status_code == 200
    samples = scrape_lines(scraped.text)
    route = '{method="GET",route="listUnits",status="200"}'
    assert samples[f"floorgate_requests_total{route}"] == 1 + 3 + 5
    assert samples['floorgate_request_duration_seconds_count{route="listUnits"}'] == 9
    assert samples['floorgate_request_duration_seconds_bucket{le="0.005",route="listUnits"}'] >= 8
    assert samples['floorgate_request_duration_seconds_sum{route="listUnits"}'] >= 8 * 0.003
    assert samples['floorgate_rate_limited_total{limit="key"}'] == 4
    own = store.cache.stats()
    assert samples["floorgate_read_cache_hits_total"] == own.hits + 14
    assert samples["floorgate_read_cache_entries"] == own.entries + 40  # not the ended one's
    assert samples["floorgate_workers"] == 2
    indexes = '{cache="search_indexes"}'  # this worker searched nothing: the others' alone
    assert samples[f"floorgate_cache_hits_total{indexes}"] == 14
    # the builds are counted per process (every app of this test process's), plus theirs
    assert samples[f"floorgate_cache_full_builds_total{indexes}"] == 2 + BUILDS.full
    assert samples[f"floorgate_cache_entries{indexes}"] == 40  # the running one's only
    left_out = sorted(r.getMessage() for r in caplog.records if "left out" in r.getMessage())
    assert left_out == [
        "metrics: 77.json left out: -4 is not a count",
        "metrics: 78.json left out: 2 buckets where 8 are counted",
    ]


async def test_a_worker_writes_its_figures_while_it_runs_and_when_it_stops(
    store, settings, keys, tmp_path
):
    folder = MetricsFolder(tmp_path, worker=4242)
    app = create_app(settings, store, metrics_folder=folder)
    starlette_app = app
    while not hasattr(starlette_app, "routes"):
        starlette_app = starlette_app.app  # through the middleware to the Starlette app
    written = tmp_path / "4242.json"
    async with starlette_app.router.lifespan_context(starlette_app):
        for _ in range(100):
            if written.exists():
                break
            await asyncio.sleep(0.02)
        assert decode(written.read_bytes()).requests == Counter()
        async with client_of(app) as client:
            answer = await client.get("/v1/units?per-page=5", headers={"API-Key": keys.full})
            assert answer.status_code == 200
    assert decode(written.read_bytes()).requests == Counter({("listUnits", "GET", "200"): 1})
    assert sorted(path.name for path in tmp_path.iterdir()) == ["4242.json"]


def test_serve_with_two_workers_counts_every_request_in_every_scrape(
    tmp_path, db_server, settings, keys
):
    """The workers share a port: each scrape reaches one, and each shows all requests."""
    runs = tmp_path / "tmp"
    runs.mkdir()
    with serve_tls_with_args(
        tmp_path, db_server, settings, ("--workers", "2"), TMPDIR=str(runs)
    ) as served:
        tls = ssl.create_default_context(cafile=str(served.certs.ca_cert))
        folders = list(runs.iterdir())
        assert len(folders) == 1 and folders[0].name.startswith("floorgate-metrics-")
        assert stat.S_IMODE(folders[0].stat().st_mode) == 0o700
        requests = 24
        for _ in range(60):  # both workers up (each writes its figures at start)
            if len(list(folders[0].glob("*.json"))) == 2:
                break
            time.sleep(0.25)
        for _ in range(requests):  # new connections: the kernel spreads them
            with httpx.Client(base_url=served.base, verify=tls, timeout=10) as one:
                answer = one.get("/v1/assets", headers={"API-Key": keys.full})
                assert answer.status_code == 200
        time.sleep(WRITE_SECONDS + 0.5)
        seen = []
        for _ in range(6):
            with httpx.Client(base_url=served.base, verify=tls, timeout=10) as one:
                samples = scrape_lines(one.get("/metrics").text)
            seen.append(
                (
                    samples[
                        'floorgate_requests_total{method="GET",route="listAssets",status="200"}'
                    ],
                    samples["floorgate_workers"],
                )
            )
        answered = {
            int(path.stem): decode(path.read_bytes()).requests[("listAssets", "GET", "200")]
            for path in folders[0].glob("*.json")
        }
    assert seen == [(requests, 2)] * 6
    print("answered by each worker:", answered)
    assert len(answered) == 2 and sum(answered.values()) == requests
    assert min(answered.values()) > 0  # else no scrape had another worker's figures to add
    assert not runs.exists() or list(runs.iterdir()) == []  # the run's folder is removed
