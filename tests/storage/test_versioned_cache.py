"""The per-process caches of walk graphs and waypoints: keyed by map and version,
bounded in bytes (keys included), one load for concurrent requests, a failed load not
cached."""

from __future__ import annotations

import asyncio

import pytest

from resolvers.wayfinding.versioned_cache import KEY_BYTES, VersionedCache

ENTRY = 1000  # what each value of these tests counts, besides its key


def sized(entries: int) -> VersionedCache[str]:
    """A cache with room for `entries` values of ENTRY bytes with keys like "m1"."""
    return VersionedCache(entries * (ENTRY + KEY_BYTES + 2), lambda value: ENTRY)


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
    cache: VersionedCache[str] = sized(4)
    loader = Loader()
    assert await cache.get("m1", "v1", loader("a")) == "a"
    assert await cache.get("m1", "v1", loader("b")) == "a"
    assert loader.calls == ["a"]


async def test_concurrent_requests_share_one_load():
    cache: VersionedCache[str] = sized(4)
    loader = Loader()
    results = await asyncio.gather(*(cache.get("m1", "v1", loader("a", 0.05)) for _ in range(10)))
    assert results == ["a"] * 10
    assert loader.calls == ["a"]


async def test_a_new_version_replaces_the_old_one():
    cache: VersionedCache[str] = sized(4)
    loader = Loader()
    await cache.get("m1", "v1", loader("old"))
    assert await cache.get("m1", "v2", loader("new")) == "new"
    assert len(cache) == 1
    assert await cache.get("m1", "v1", loader("old again")) == "old again"  # reloaded
    assert loader.calls == ["old", "new", "old again"]


async def test_bounded_least_recently_used_first():
    cache: VersionedCache[str] = sized(2)
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
    cache: VersionedCache[str] = sized(2)
    loader = Loader()
    with pytest.raises(LookupError):
        await cache.get("m1", "v", loader("broken", fail=True))
    assert len(cache) == 0
    assert await cache.get("m1", "v", loader("fixed")) == "fixed"


async def test_bounded_in_bytes_with_the_keys_counted():
    sizes = {"small": 100, "big": 4_000, "huge": 20_000}
    cache: VersionedCache[str] = VersionedCache(10_000, lambda value: sizes.get(value, 4_000))
    loader = Loader()
    small, big = 100 + KEY_BYTES + 2, 4_000 + KEY_BYTES + 4  # keys "m0", "big1"
    for n in range(4):
        await cache.get(f"m{n}", "v", loader("small"))
    await cache.get("big1", "v", loader("big"))
    await cache.get("big2", "v", loader("big"))
    assert cache.figures() == {
        "entries": 6,
        "bytes_used": 4 * small + 2 * big,
        "budget_bytes": 10_000,
        "hits": 0,
        "misses": 6,
        "evictions": 0,
    }
    await cache.get("m0", "v", loader("unused"))  # m0 is now the most recent
    # A third big value needs 4,204 bytes more: m1, m2, m3 and big1 go, oldest first.
    await cache.get("big3", "v", loader("big"))
    assert cache.figures() == {
        "entries": 3,
        "bytes_used": small + 2 * big,
        "budget_bytes": 10_000,
        "hits": 1,  # m0, asked again
        "misses": 7,
        "evictions": 4,  # m1, m2, m3 and big1, for room
    }
    # A value larger than the whole budget is answered, not kept, and evicts nothing.
    assert await cache.get("m9", "v", loader("huge")) == "huge"
    assert await cache.get("m9", "v", loader("huge")) == "huge"
    assert cache.figures()["bytes_used"] == small + 2 * big
    for name in ("m0", "big2", "big3", "m1", "big1"):
        await cache.get(name, "v", loader(f"{name} again"))
    assert loader.calls[-4:] == ["huge", "huge", "m1 again", "big1 again"]


async def test_a_long_map_id_counts_its_characters():
    cache: VersionedCache[str] = VersionedCache(10_000, lambda value: 0)
    loader = Loader()
    await cache.get("m" * 300, "v", loader("a"))
    assert cache.bytes == KEY_BYTES + 300
