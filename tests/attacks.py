"""The attacks of issue 30 (findings 1-7), each run for a while against a served floorgate
from a process of its own, so that the measuring client's latency is the server's:
`python -m tests.attacks NAME BASE CA_FILE KEY SECONDS`. tests/e2e/test_attack_latency.py
starts them; every request is bounded in count and time and goes to this machine only."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import socket
import ssl
import sys
import time
from collections.abc import Callable
from urllib.parse import urlsplit

import httpx

SVG_NS = "http://www.w3.org/2000/svg"
RECT = '<rect width="1" height="1"/>'
WALK = "__schema { types { fields { type { ofType { ofType { name } } } } } }"
# Requests under way at once, as the review measured each attack.
CONCURRENCY = {
    "introspection": 12,
    "refused-parse": 2,
    "huge-document": 2,
    "big-body": 2,
    "junk-parameters": 8,
    "long-queries": 8,
    "big-headers": 8,
}
MAX_REQUESTS = 5000  # per attack run, whatever its time


def introspection(number: int) -> dict:
    """Finding 1: 30 aliases of a deep introspection walk, without a key."""
    query = "{ " + " ".join(f"a{number}_{i}: {WALK}" for i in range(30)) + " }"
    return {"method": "POST", "url": "/graphql", "json": {"query": query}}


def refused_parse(number: int) -> dict:
    """Finding 2: an 8 MB SVG refused (too many elements) by E10."""
    svg = f'<svg xmlns="{SVG_NS}">{RECT * 300_000}</svg>'.encode()
    return {
        "method": "POST",
        "url": "/v1/maps/parse",
        "content": svg,
        "headers": {"Content-Type": "image/svg+xml"},
        "keyed": True,
    }


def huge_document(number: int) -> dict:
    """Finding 3: distinct 15 MB GraphQL documents."""
    padding = f"# {number} " + "x" * 15_000_000 + "\n"
    return {
        "method": "POST",
        "url": "/graphql",
        "json": {"query": padding + "{ assets { data { id } } }"},
        "keyed": True,
    }


def big_body(number: int) -> dict:
    """Finding 4: a 15 MB JSON body to E21."""
    item = {"group_id": "g", "attribute_id": "a", "asset_id": "s", "unit_id": f"u{number}"}
    return {
        "method": "PUT",
        "url": "/v1/units/attribute-groups/g/units",
        "json": {"data": [item] * 170_000},
        "keyed": True,
        "headers": {"Experimental-Flags": "unit-attributes-resource"},
    }


def junk_parameters(number: int) -> dict:
    """Finding 5: GETs with 4 KB junk parameters."""
    return {"method": "GET", "url": f"/v1/units?per-page=1&x{number}={'j' * 4000}", "keyed": True}


def long_queries(number: int) -> dict:
    """Finding 6: keyless requests with long query strings."""
    return {"method": "GET", "url": f"/v1/assets?q{number}={'q' * 64_000}"}


ATTACKS: dict[str, Callable[[int], dict]] = {
    "introspection": introspection,
    "refused-parse": refused_parse,
    "huge-document": huge_document,
    "big-body": big_body,
    "junk-parameters": junk_parameters,
    "long-queries": long_queries,
}


async def flood(name: str, base: str, ca: str, key: str, seconds: float) -> int:
    """Requests of one kind, CONCURRENCY at a time, until `seconds` pass."""
    make = ATTACKS[name]
    deadline = time.monotonic() + seconds
    numbers = itertools.count()
    context = ssl.create_default_context(cafile=ca)
    sent = 0
    async with httpx.AsyncClient(base_url=base, verify=context, timeout=30) as client:

        async def worker() -> None:
            nonlocal sent
            while time.monotonic() < deadline and sent < MAX_REQUESTS:
                request = make(next(numbers))
                headers = {**request.pop("headers", {})}
                if request.pop("keyed", False):
                    headers["API-Key"] = key
                sent += 1
                with contextlib.suppress(httpx.HTTPError):  # closed connections: refusals
                    await client.request(**request, headers=headers)

        await asyncio.gather(*(worker() for _ in range(CONCURRENCY[name])))
    return sent


def big_headers(base: str, ca: str, seconds: float) -> int:
    """Finding 7: connections that send 1 MB request heads."""
    parts = urlsplit(base)
    context = ssl.create_default_context(cafile=ca)
    deadline = time.monotonic() + seconds
    sent = 0

    def one() -> None:
        with (
            socket.create_connection((parts.hostname, parts.port), timeout=10) as raw,
            context.wrap_socket(raw, server_hostname=parts.hostname) as sock,
        ):
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: ")
            try:
                for _ in range(16):
                    sock.sendall(b"b" * 65536)
                while sock.recv(65536):
                    pass
            except OSError:
                pass

    async def run() -> None:
        nonlocal sent
        while time.monotonic() < deadline and sent < MAX_REQUESTS:
            count = CONCURRENCY["big-headers"]
            await asyncio.gather(*(asyncio.to_thread(one) for _ in range(count)))
            sent += count

    asyncio.run(run())
    return sent


def main(argv: list[str]) -> None:
    name, base, ca, key, seconds = argv
    if name == "burn":  # no request: CPU alone, what the machine's noise is
        deadline = time.monotonic() + float(seconds)
        while time.monotonic() < deadline:
            sum(range(10000))
        return
    if name == "big-headers":
        sent = big_headers(base, ca, float(seconds))
    else:
        sent = asyncio.run(flood(name, base, ca, key, float(seconds)))
    print(f"{name}: {sent} requests", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
