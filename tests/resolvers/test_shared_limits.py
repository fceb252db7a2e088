"""Issue 30, finding 14: one rate-limit budget per key for every worker and machine (kept
in MongoDB), revocation seen by every worker within a second, and a database that cannot
be reached for the limits turns nothing into a 500."""

from __future__ import annotations

import math
import ssl
import time
from dataclasses import replace

import httpx
import pytest
from pymongo import AsyncMongoClient

from resolvers.auth.keys import create_key, disable_key
from resolvers.auth.ratelimit import SharedLimiter
from rest.app import create_app
from storage.collections import RATE_BUDGETS
from tests.servers import serve_tls_with_args

LIMITED = {"message": "API rate limit exceeded"}
INVALID = {"message": "Invalid authentication credentials"}


def fresh_connection_get(base: str, tls: ssl.SSLContext, key: str) -> httpx.Response:
    """One request on a connection of its own: the kernel hands each to either worker."""
    with httpx.Client(verify=tls, timeout=10) as client:
        return client.get(f"{base}/v1/assets", headers={"API-Key": key})


@pytest.mark.security
@pytest.mark.serial  # a revocation within a second, the rate's refill in time: on idle cores
async def test_two_workers_share_one_budget_and_see_a_revocation_within_a_second(
    tmp_path, db_server, settings, store
):
    """A key limited to 1/s with burst 10 got its budget once per worker. Over a real
    `floorgate serve --workers 2` it gets its 10 and what the rate adds while the 40
    requests run, whichever worker answers; the headers show the whole bucket. A key
    disabled meanwhile is refused by every worker within a second."""
    limited = await create_key(store, "one per second", [], None, (1.0, 10))
    revoked = await create_key(store, "to be disabled", [], None)
    with serve_tls_with_args(
        tmp_path,
        db_server,
        settings,
        ("--workers", "2"),
        FLOORGATE_RATE_LIMIT_PER_SECOND="200",
        FLOORGATE_UNAUTHENTICATED_BURST="10000",
    ) as served:
        tls = ssl.create_default_context(cafile=str(served.certs.ca_cert))
        started = time.monotonic()
        answers = [fresh_connection_get(served.base, tls, limited.secret) for _ in range(40)]
        elapsed = time.monotonic() - started
        warm = [fresh_connection_get(served.base, tls, revoked.secret) for _ in range(10)]
        await disable_key(store, revoked.key_id)
        disabled_at = time.monotonic()
        after: list[tuple[float, int]] = []
        while time.monotonic() - disabled_at < 2.0:
            answer = fresh_connection_get(served.base, tls, revoked.secret)
            after.append((time.monotonic() - disabled_at, answer.status_code))
        log = served.log.read_text()
    statuses = [answer.status_code for answer in answers]
    served_ok = statuses.count(200)
    assert statuses.count(200) + statuses.count(429) == 40, statuses
    assert 10 <= served_ok <= 10 + math.floor(elapsed) + 1, (statuses, elapsed)
    assert {answer.headers["ratelimit-limit"] for answer in answers} == {"10"}
    refused = next(answer for answer in answers if answer.status_code == 429)
    assert refused.json() == LIMITED and int(refused.headers["retry-after"]) >= 1
    assert len({line for line in log.splitlines() if "Started server process" in line}) == 2
    assert [answer.status_code for answer in warm] == [200] * 10
    assert [status for seconds, status in after if seconds >= 1.0] != []
    assert {status for seconds, status in after if seconds >= 1.0} == {403}, after
    assert answer.json() == INVALID


@pytest.mark.security
async def test_an_unreachable_database_falls_back_to_local_buckets(store, settings, keys):
    """The limiter's database fails: every process then limits each key on its own with
    the whole limit, for a few seconds before it asks again; answers stay 200 and 429,
    never 500, and do not wait for the database each."""
    app = create_app(replace(settings, rate_limit_per_second=0.5, rate_limit_burst=3), store)
    transport = httpx.ASGITransport(app=app)
    dead = AsyncMongoClient("mongodb://127.0.0.1:9", serverSelectionTimeoutMS=300)
    async with httpx.AsyncClient(transport=transport, base_url="https://t") as client:
        key = {"API-Key": keys.scoped}
        first = await client.get("/v1/assets", headers=key)  # the key is cached from now on
        limiter: SharedLimiter = app.services.rate_limiter  # type: ignore[attr-defined]
        limiter.collection = dead[settings.database_name][RATE_BUDGETS]
        started = time.monotonic()
        answers = [await client.get("/v1/assets", headers=key) for _ in range(5)]
        elapsed = time.monotonic() - started
    await dead.close()
    assert first.status_code == 200
    assert [answer.status_code for answer in answers] == [200, 200, 200, 429, 429]
    assert answers[3].json() == LIMITED and answers[3].headers["retry-after"] == "2"
    assert answers[2].headers["ratelimit-limit"] == "3"
    assert elapsed < 0.3 + 2.0, elapsed  # one server selection (0.3 s), not five


@pytest.mark.security
async def test_processes_on_one_database_share_the_bucket(store, settings, keys):
    """Two apps on one database (two processes, or two machines) spend one bucket: the
    second sees what the first spent, and refuses past the burst."""
    await store[RATE_BUDGETS].delete_many({})
    tuned = replace(settings, rate_limit_per_second=0.01, rate_limit_burst=6)
    apps = [create_app(tuned, store) for _ in range(2)]
    statuses = []
    for turn in range(8):
        transport = httpx.ASGITransport(app=apps[turn % 2])
        async with httpx.AsyncClient(transport=transport, base_url="https://t") as client:
            answer = await client.get("/v1/assets", headers={"API-Key": keys.plain})
            statuses.append(answer.status_code)
    assert statuses == [200] * 6 + [429] * 2
