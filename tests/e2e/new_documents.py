"""The attacker of tests/e2e/test_new_documents_latency.py (issue 63, finding 1), run
from a process of its own: `python -m tests.e2e.new_documents BASE CA_FILE KEY SECONDS`.
It imports httpx and nothing of floorgate, so that it floods from its first second."""

from __future__ import annotations

import asyncio
import itertools
import ssl
import sys
import time

import httpx

CLIENTS = 4  # the attacker's requests under way at once


def new_document(number: int) -> str:
    """The issue's three documents, each new: one selection of 2,400 `__typename`
    (26 KB, refused by the overlap budget), 450 distinct fragments spread side by side
    (20 KB, refused likewise) and 30 aliases of a cheap field that runs."""
    kind = number % 3
    if kind == 0:
        return f"query Q{number} {{ " + " ".join(["__typename"] * 2400) + " }"
    if kind == 1:
        spreads = " ".join(f"...F{i}" for i in range(450))
        fragments = " ".join(f"fragment F{i} on Query {{ __typename }}" for i in range(450))
        return f"query Q{number} {{ {spreads} }} {fragments}"
    fields = " ".join(f'a{i}: __type(name: "Asset") {{ name }}' for i in range(30))
    return f"query Q{number} {{ {fields} }}"


async def flood(base: str, ca: str, key: str, seconds: float) -> int:
    """CLIENTS requests of new documents at a time until `seconds` pass; refusals (429)
    are answered and the next one sent at once, as an attacker would."""
    context = ssl.create_default_context(cafile=ca)
    numbers = itertools.count()
    deadline = time.monotonic() + seconds
    sent = 0

    async def client() -> None:
        nonlocal sent
        async with httpx.AsyncClient(base_url=base, verify=context, timeout=30) as http:
            while time.monotonic() < deadline and sent < 20_000:
                query = new_document(next(numbers))
                await http.post("/graphql", json={"query": query}, headers={"API-Key": key})
                sent += 1

    await asyncio.gather(*(client() for _ in range(CLIENTS)))
    return sent


def attack(base: str, ca: str, key: str, seconds: str) -> None:
    """The attacker's process (`measured` starts it)."""
    print(asyncio.run(flood(base, ca, key, float(seconds))), flush=True)


if __name__ == "__main__":
    attack(*sys.argv[1:])
