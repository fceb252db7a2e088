"""10,000 searches of random text leave a served process's memory flat (issue 47): the
text keys nothing of its own (a kept answer's key is a digest), the index is built once,
and every cache stays inside its budget."""

from __future__ import annotations

import asyncio
import random
import ssl
import string

import httpx
import pytest

from tests.rest.test_memory_bounds import MIB, rss_bytes
from tests.servers import serve_tls

SEARCHES = 10_000
AT_ONCE = 50


def random_text(rng: random.Random) -> str:
    """1 to 100 characters of letters, digits, accents and spaces."""
    alphabet = string.ascii_letters + string.digits + "éüñ  "
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 100))).strip() or "x"


@pytest.mark.security
def test_random_searches_leave_memory_flat(tmp_path, db_server, settings, keys):
    rng = random.Random(47)

    async def send(served) -> tuple[list[int], dict]:
        context = ssl.create_default_context(cafile=str(served.certs.ca_cert))
        headers = {"API-Key": keys.full, "Experimental-Flags": "search"}
        rss = []
        async with httpx.AsyncClient(
            base_url=served.base, verify=context, timeout=30, limits=httpx.Limits(max_connections=8)
        ) as client:

            async def one() -> None:
                response = await client.get(
                    "/v1/search", params={"q": random_text(rng)}, headers=headers
                )
                assert response.status_code == 200, response.text

            for start in range(0, SEARCHES, AT_ONCE):
                await asyncio.gather(*(one() for _ in range(AT_ONCE)))
                if start in (1000, SEARCHES // 2, SEARCHES - AT_ONCE):
                    rss.append(rss_bytes(served.process.pid))
            ready = (await client.get("/readyz")).json()
        return rss, ready

    # No rate limit: 10,000 requests of one key in a minute are the point, not a refusal.
    with serve_tls(tmp_path, db_server, settings, FLOORGATE_RATE_LIMIT_PER_SECOND="0") as served:
        rss, ready = asyncio.run(send(served))
    assert rss[-1] - rss[1] < 16 * MIB, rss  # flat over the second half
    assert rss[-1] - rss[0] < 48 * MIB, rss
    for cache in ("read_cache", "search_indexes"):
        assert ready[cache]["bytes_used"] <= ready[cache]["budget_bytes"], ready[cache]
    assert ready["search_indexes"]["entries"] == 3  # one per asset, built once each
