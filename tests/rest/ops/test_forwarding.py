"""Behind a proxy, the client's address is taken from X-Forwarded-For only when it is an
IP address (issue 63, finding 9): any other text leaves the peer's address, so it never
reaches the access log or becomes a rate bucket of its own."""

from __future__ import annotations

import logging
import random
import string
from collections.abc import AsyncIterator
from dataclasses import replace

import httpx
import pytest
import pytest_asyncio

from rest.app import create_app
from rest.forwarding import MAX_ITEM, Forwarding, address_of
from rest.ops.logs import ACCESS
from storage.database import connect

PROXY = "10.0.0.9"  # the peer: the proxy that passes the client's header on


@pytest_asyncio.fixture
async def behind_proxy(db_server, settings, store) -> AsyncIterator[object]:
    """An app behind proxies it trusts by `*`, with the limit per address on (large
    enough that no request here is refused for it) and its own store."""
    tuned = replace(
        settings,
        behind_proxy=True,
        proxy_addresses=("*",),
        rate_limit_per_second=100,
        unauthenticated_rate_per_second=1000,
        unauthenticated_burst=5000,
        access_log=True,
    )
    own_store = connect(db_server.uri, tuned)
    yield create_app(tuned, own_store)
    await own_store.close()


def client_of(app, peer: str = PROXY) -> httpx.AsyncClient:
    """Plain HTTP from the peer: the proxy says HTTPS in X-Forwarded-Proto."""
    transport = httpx.ASGITransport(app=app, client=(peer, 4242))
    return httpx.AsyncClient(transport=transport, base_url="http://t")


def junk(size: int) -> str:
    return "".join(random.choices(string.ascii_letters + string.digits + ".:[]%-", k=size))


@pytest.mark.security
async def test_junk_in_x_forwarded_for_is_the_peers_address(behind_proxy, caplog):
    """2,000 requests, each with other text of 4 KB as X-Forwarded-For (the attack wrote
    20 KB access lines and kept one rate bucket per value: RSS 153 -> 305 MB): each is
    the proxy's request, logged in a short line, and the process keeps one bucket."""
    app = behind_proxy
    values = [junk(4096) for _ in range(1990)]
    values += ["999.1.1.1", "10.0.0.1%" + "x" * 50, "[::1", "::1::80", "1.2.3.4:99999"]
    values += ["[1.2.3.4]:80", "01.2.3.4", "1.2.3.4 junk", "", " , 203.0.113.9"]
    with caplog.at_level(logging.INFO, logger=ACCESS.name):
        async with client_of(app) as client:
            for value in values:
                answer = await client.get(
                    "/v1/assets",
                    headers={"X-Forwarded-For": value, "X-Forwarded-Proto": "https"},
                )
                assert (answer.status_code, answer.json()) == (
                    401,
                    {"message": "No API key found in request"},
                )
    lines = [record.getMessage() for record in caplog.records if record.name == ACCESS.name]
    assert len(lines) == 2000
    assert all(f" client={PROXY} " in line for line in lines)
    assert max(len(line) for line in lines) < 200
    assert list(app.services.address_limiter._buckets) == [PROXY]


@pytest.mark.security
async def test_every_address_a_client_claims_is_a_short_bucket(behind_proxy):
    """With `*`, any client may claim any address (docs/deploy.md says so): each is one
    bucket, keyed by the address as Python writes it, never longer than 39 characters."""
    app = behind_proxy
    claimed = [
        f"[{random.getrandbits(16):X}:0db8:0000:0000:0000:0000:0000:{n:04x}]:80" for n in range(500)
    ]
    async with client_of(app) as client:
        for value in claimed:
            answer = await client.get(
                "/v1/assets", headers={"X-Forwarded-For": value, "X-Forwarded-Proto": "https"}
            )
            assert answer.status_code == 401
    buckets = app.services.address_limiter._buckets
    assert len(buckets) == 500
    assert max(len(address) for address in buckets) <= 39
    assert all(":db8::" in address and address == address.lower() for address in buckets)


async def test_a_valid_forwarded_address_is_the_client(behind_proxy, caplog):
    app = behind_proxy
    with caplog.at_level(logging.INFO, logger=ACCESS.name):
        async with client_of(app) as client:
            for value in ("203.0.113.7", "203.0.113.8:4711", "[2001:DB8:0::1]:443", "2001:db8::2"):
                answer = await client.get(
                    "/v1/assets", headers={"X-Forwarded-For": value, "X-Forwarded-Proto": "https"}
                )
                assert answer.status_code == 401
    clients = [
        record.getMessage().split(" client=")[1].split()[0]
        for record in caplog.records
        if record.name == ACCESS.name
    ]
    assert clients == ["203.0.113.7", "203.0.113.8", "2001:db8::1", "2001:db8::2"]
    assert set(app.services.address_limiter._buckets) == set(clients)


async def test_an_untrusted_peer_sets_neither_address_nor_scheme(db_server, settings, store):
    tuned = replace(settings, behind_proxy=True, proxy_addresses=("10.0.0.0/8",))
    app = create_app(tuned, store)
    headers = {"X-Forwarded-For": "203.0.113.7", "X-Forwarded-Proto": "https"}
    async with client_of(app, "192.0.2.50") as client:
        refused = await client.get("/v1/assets", headers=headers)
    async with client_of(app, "10.1.2.3") as client:
        trusted = await client.get("/v1/assets", headers=headers)
    assert (refused.status_code, refused.json()) == (403, {"message": "HTTPS is required"})
    assert trusted.status_code == 401


@pytest.mark.parametrize(
    ("header", "client"),
    [
        ("203.0.113.7, 10.0.0.1", "203.0.113.7"),  # the first untrusted from the right
        ("203.0.113.7, 198.51.100.1, 10.0.0.1", "198.51.100.1"),
        ("203.0.113.7, 10.0.0.2, 10.0.0.1", "203.0.113.7"),
        ("10.0.0.3, 10.0.0.1", "10.0.0.3"),  # all trusted: the first
        ("203.0.113.7, junk, 10.0.0.1", None),  # no address where the client's is
        ("junk, 203.0.113.7", "203.0.113.7"),  # what the client wrote, left of it
    ],
)
def test_the_client_is_the_last_address_that_is_no_trusted_proxy(header, client):
    found = Forwarding(("10.0.0.0/8",)).client_of(header)
    assert (str(found[0]) if found else None) == client


@pytest.mark.parametrize(
    ("item", "address"),
    [
        ("192.0.2.7", ("192.0.2.7", 0)),
        (" 192.0.2.7:4711 ", ("192.0.2.7", 4711)),
        ("2001:DB8:0:0::1", ("2001:db8::1", 0)),
        ("[2001:db8::1]", ("2001:db8::1", 0)),
        ("[2001:db8::1]:65535", ("2001:db8::1", 65535)),
        ("::ffff:192.0.2.7", ("::ffff:c000:207", 0)),
        ("[::ffff:192.0.2.7]:1", ("::ffff:c000:207", 1)),
        ("192.0.2.7:65536", None),
        ("192.0.2.7:", None),
        ("192.0.2.7:+1", None),
        ("192.0.2.7:\u0661", None),  # an Arabic-Indic digit
        ("[192.0.2.7]:80", None),
        ("[2001:db8::1]:", None),
        ("[2001:db8::1]x", None),
        ("fe80::1%eth0", None),
        ("[fe80::1%eth0]:80", None),
        ("localhost", None),
        ("unknown", None),
        ("_hidden", None),
        ("1" * (MAX_ITEM + 1), None),
    ],
)
def test_an_item_is_an_address_only_when_it_is_one(item, address):
    found = address_of(item)
    assert ((str(found[0]), found[1]) if found else None) == address
