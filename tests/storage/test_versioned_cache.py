"""The per-process caches of walk graphs and waypoints: keyed by map and version,
bounded, one load for concurrent requests, a failed load not cached."""

from __future__ import annotations

import asyncio

import pytest

from resolvers.wayfinding.graph_cache import VersionedCache


class Loader:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def __call__(self, value: str, delay: float = 0.0, fail: bool = False):
        async def load() -> str:
            self.calls.append(value)
            await asyncio.sleep(delay)
            if fail:
                raise LookupError(value)
            return value

        return load


async def test_loads_once_and_serves_from_the_cache():
    cache: VersionedCache[str] = VersionedCache(4)
    loader = Loader()
    assert await cache.get("m1", "v1", loader("a")) == "a"
    assert await cache.get("m1", "v1", loader("b")) == "a"
    assert loader.calls == ["a"]


async def test_concurrent_requests_share_one_load():
    cache: VersionedCache[str] = VersionedCache(4)
    loader = Loader()
    results = await asyncio.gather(*(cache.get("m1", "v1", loader("a", 0.05)) for _ in range(10)))
    assert results == ["a"] * 10
    assert loader.calls == ["a"]


async def test_a_new_version_replaces_the_old_one():
    cache: VersionedCache[str] = VersionedCache(4)
    loader = Loader()
    await cache.get("m1", "v1", loader("old"))
    assert await cache.get("m1", "v2", loader("new")) == "new"
    assert len(cache) == 1
    assert await cache.get("m1", "v1", loader("old again")) == "old again"  # reloaded
    assert loader.calls == ["old", "new", "old again"]


async def test_bounded_least_recently_used_first():
    cache: VersionedCache[str] = VersionedCache(2)
    loader = Loader()
    await cache.get("m1", "v", loader("1"))
    await cache.get("m2", "v", loader("2"))
    await cache.get("m1", "v", loader("unused"))  # m1 is now the most recent
    await cache.get("m3", "v", loader("3"))  # evicts m2
    assert len(cache) == 2
    await cache.get("m1", "v", loader("unused"))
    await cache.get("m2", "v", loader("2 again"))
    assert loader.calls == ["1", "2", "3", "2 again"]


async def test_a_failed_load_is_not_cached():
    cache: VersionedCache[str] = VersionedCache(2)
    loader = Loader()
    with pytest.raises(LookupError):
        await cache.get("m1", "v", loader("broken", fail=True))
    assert len(cache) == 0
    assert await cache.get("m1", "v", loader("fixed")) == "fixed"
