"""How an attack's answer and other clients' latency are measured in the hardening tests:
the attack runs while small GETs are sent one after another, and the worst of their
latencies says whether other clients were affected."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from typing import Any

import httpx

SMALL_GET = "/v1/assets/asset-1"


async def timed(request: Awaitable[Any]) -> tuple[Any, float]:
    started = time.perf_counter()
    response = await request
    return response, time.perf_counter() - started


async def latency_meanwhile(
    client: httpx.AsyncClient, key: str, attack: Awaitable[Any]
) -> tuple[Any, float, float]:
    """(the attack's response, its seconds, the worst latency of small GETs sent during it)."""
    done = False

    async def small_gets() -> float:
        worst = 0.0
        while not done:
            response, seconds = await timed(client.get(SMALL_GET, headers={"API-Key": key}))
            assert response.status_code == 200
            worst = max(worst, seconds)
            await asyncio.sleep(0.005)
        return worst

    async def run_attack() -> tuple[Any, float]:
        nonlocal done
        try:
            return await timed(attack)
        finally:
            done = True

    (response, seconds), worst = await asyncio.gather(run_attack(), small_gets())
    return response, seconds, worst
