"""10,000 searches of random text leave a served process's memory flat (issue 47): the
text keys nothing of its own (a kept answer's key is a digest), the index is built once,
and every cache stays inside its budget."""

from __future__ import annotations

import asyncio
import random
import ssl
import string
from urllib.parse import urlencode

import orjson
import pytest

from tests.raw_requests import keep_alive_answers, request_bytes
from tests.rest.test_memory_bounds import MIB, rss_bytes
from tests.servers import serve_tls

SEARCHES = 10_000


def random_text(rng: random.Random) -> str:
    """1 to 100 characters of letters, digits, accents and spaces."""
    alphabet = string.ascii_letters + string.digits + "éüñ  "
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 100))).strip() or "x"


@pytest.mark.security
def test_random_searches_leave_memory_flat(tmp_path, db_server, settings, keys):
    """The searches are bytes built once, pipelined on 8 keep-alive connections
    (tests/raw_requests.py); RSS is read after 1,050 of them, 5,050 and all."""
    rng = random.Random(47)
    headers = {"API-Key": keys.full, "Experimental-Flags": "search"}
    searches = [
        request_bytes("/v1/search?" + urlencode({"q": random_text(rng)}), headers)
        for _ in range(SEARCHES)
    ]

    async def send(served) -> tuple[list[int], dict]:
        context = ssl.create_default_context(cafile=str(served.certs.ca_cert))
        rss = []
        for start, end in ((0, 1050), (1050, 5050), (5050, SEARCHES)):
            answers = await keep_alive_answers(served, context, searches[start:end])
            refused = [(status, body) for status, body in answers if status != 200]
            assert not refused, refused[:3]
            rss.append(rss_bytes(served.process.pid))
        ((_, ready),) = await keep_alive_answers(served, context, [request_bytes("/readyz")])
        return rss, orjson.loads(ready)

    # No rate limit: 10,000 requests of one key in a minute are the point, not a refusal.
    with serve_tls(tmp_path, db_server, settings, FLOORGATE_RATE_LIMIT_PER_SECOND="0") as served:
        rss, ready = asyncio.run(send(served))
    assert rss[-1] - rss[1] < 16 * MIB, rss  # flat over the second half
    assert rss[-1] - rss[0] < 48 * MIB, rss
    for cache in ("read_cache", "search_indexes"):
        assert ready[cache]["bytes_used"] <= ready[cache]["budget_bytes"], ready[cache]
    assert ready["search_indexes"]["entries"] == 3  # one per asset, built once each
