"""Issue 30, finding 5: every cache of a process is bounded in bytes, keys included, and
keyed by canonical input; measured in a real served process."""

from __future__ import annotations

import asyncio
import ssl
from pathlib import Path

import orjson
import pytest

from tests.caught_up import caught_up
from tests.raw_requests import keep_alive_answers, request_bytes
from tests.servers import serve_tls

MIB = 1024 * 1024
JUNK = "j" * 4000


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


@pytest.mark.security
def test_3000_gets_with_junk_parameters_grow_a_served_process_by_less_than_100_mb(
    tmp_path, db_server, settings, keys
):
    """On main each GET's whole URL keyed a kept answer: 3,000 of them with 4 KB junk
    parameters took RSS from 89 to 726 MB while /readyz showed 4.9 MB of cache. The GETs
    are bytes built once, pipelined on 8 keep-alive connections (tests/raw_requests.py)."""

    async def send(served) -> tuple[list[int], dict, dict, dict]:
        context = ssl.create_default_context(cafile=str(served.certs.ca_cert))
        headers = {"API-Key": keys.full}
        rss = []
        warm = await keep_alive_answers(
            served, context, [request_bytes("/v1/units", headers)] * 20, connections=1
        )
        assert [status for status, _ in warm] == [200] * 20
        ((_, body),) = await keep_alive_answers(served, context, [request_bytes("/readyz")])
        before = orjson.loads(body)["read_cache"]
        rss.append(rss_bytes(served.process.pid))
        junk = [request_bytes(f"/v1/units?per-page=1&x{n}={JUNK}", headers) for n in range(3000)]
        for half in (junk[:1500], junk[1500:]):
            answers = await keep_alive_answers(served, context, half)
            assert {status for status, _ in answers} == {200}
            rss.append(rss_bytes(served.process.pid))
        ((_, body),) = await keep_alive_answers(served, context, [request_bytes("/readyz")])
        ready = orjson.loads(body)
        return rss, before, ready["read_cache"], ready["graphql_caches"]

    # No rate limit: 3,000 GETs go faster than the product's 200/s (a quick machine saw 429).
    unlimited = {"FLOORGATE_RATE_LIMIT_PER_SECOND": "0"}
    with serve_tls(tmp_path, db_server, settings, **unlimited) as served:
        rss, before, after, graphql = asyncio.run(send(served))
    assert rss[-1] - rss[0] < 100 * MIB, rss
    # Answers to parameters a route does not read are not kept (junk keys nothing).
    assert after["entries"] - before["entries"] < 10, (before, after)
    assert after["bytes_used"] <= after["budget_bytes"]
    for cache in graphql.values():  # parses, plans, code: none grew from these GETs
        assert cache["bytes_used"] <= cache["budget_bytes"]


@pytest.mark.security
async def test_answers_are_kept_under_digests_of_what_the_route_reads(client, full_headers, store):
    """A kept answer's key is a 16-byte digest (counted in its entry), and a query with a
    parameter the route does not read is answered fresh, never kept. (Every earlier
    change seen first: a late change event of another test's write dropped the second
    plain GET's answer beside other workers.)"""
    cache = await caught_up(store)
    junk = await client.get(f"/v1/assets/asset-1/floors?x={JUNK}", headers=full_headers)
    assert junk.status_code == 200
    assert not any(len(key) > 16 for key in cache._entries)  # every key: a digest
    hits = cache.answer_hits
    again = await client.get(f"/v1/assets/asset-1/floors?x={JUNK}", headers=full_headers)
    assert (again.json(), cache.answer_hits) == (junk.json(), hits)  # not kept
    assert junk.json()["paging"]["total_count"] == len(junk.json()["data"])
    hits, before = cache.answer_hits, cache.stats()
    plain = [
        await client.get("/v1/assets/asset-1/floors?per_page=5", headers=full_headers)
        for _ in range(2)
    ]  # a synonym is a parameter the route reads
    assert [answer.status_code for answer in plain] == [200, 200], plain[1].text
    assert plain[0].json() == plain[1].json()
    assert cache.answer_hits == hits + 1, (before, cache.stats())
