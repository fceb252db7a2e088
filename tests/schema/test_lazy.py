"""The schema built once, in a thread, when first needed (schema/lazy.py)."""

from __future__ import annotations

import asyncio
import threading

import pytest

import schema.lazy
from schema.lazy import LazySchema
from storage.settings import Settings


async def test_waiters_share_one_build_and_the_loop_runs_meanwhile():
    schemas = LazySchema(Settings())
    assert schemas.built is None
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while schemas.built is None:
            ticks += 1
            await asyncio.sleep(0.001)

    ticking = asyncio.create_task(tick())
    first, second = await asyncio.gather(schemas.get(), schemas.get())
    await ticking
    assert first is second is schemas.built is schemas.now()
    assert ticks > 0  # the event loop went on while the schema was built
    assert str(first).startswith(("schema", "type", "directive", '"""', "scalar"))


async def test_a_waiter_cancelled_mid_build_does_not_cancel_the_build():
    """A request's time budget may cancel it while it waits: the build goes on, and the
    next request gets the schema."""
    schemas = LazySchema(Settings())
    release = threading.Event()
    build = schema.lazy.BUILDING
    build.acquire()  # holds the build at its start until released

    def later() -> None:
        release.wait(5)
        build.release()

    threading.Thread(target=later, daemon=True).start()
    waiting = asyncio.create_task(schemas.get())
    await asyncio.sleep(0.05)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    release.set()
    assert (await asyncio.wait_for(schemas.get(), 60)) is schemas.built is not None


async def test_a_failed_build_raises_for_every_waiter(monkeypatch):
    import schema.build

    def broken(settings: Settings) -> object:
        raise RuntimeError("no schema today")

    monkeypatch.setattr(schema.build, "build_schema", broken)
    schemas = LazySchema(Settings())
    for _ in range(2):
        with pytest.raises(RuntimeError, match="no schema today"):
            await schemas.get()
    assert schemas.built is None
