"""Where a cold vector tile's time goes (`tiles`, issue 49), in the benchmark's own
process: no HTTP, no database. The index built from the maps' stored GeoJSON (parse,
features, tree) and each tile encoded, step by step (select, move and clip, encode), CPU
seconds, the least of 3; the minimal tile server's `build` and `encode` beside them."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any, TypeVar

import orjson

from parsing.geo import tiles as geo_tiles
from parsing.geo.tile_features import tile_features
from resolvers.limits import MAX_TILE_BYTES, MAX_TILE_FEATURES
from tests.benchmarks.harness import minimal_tiles

T = TypeVar("T")
Z = 18


def least_cpu(work: Callable[[], T], times: int = 3) -> tuple[float, T]:
    """The least CPU seconds of `times` runs of `work`, and its result."""
    started = time.process_time()
    result = work()
    best = time.process_time() - started
    for _ in range(times - 1):
        started = time.process_time()
        work()
        best = min(best, time.process_time() - started)
    return best, result


def breakdown(files: list[bytes], tiles: list[tuple[int, int]]) -> dict[str, float]:
    """CPU seconds of each step of a cold tile, in this process (no HTTP, no database)."""
    found: dict[str, float] = {}
    found["parse"], collections = least_cpu(lambda: [orjson.loads(data) for data in files])
    found["features"], features = least_cpu(lambda: tile_features(collections))
    found["tree"], index = least_cpu(lambda: geo_tiles.build_index(features))
    found["feature_count"] = len(features)
    version = "bench"
    found["minimal_build"], small = least_cpu(lambda: minimal_tiles.build(version, files))
    per_tile = [tile_steps(index, small, x, y) for x, y in tiles]
    select, clip, encode, whole, minimal = (list(column) for column in zip(*per_tile, strict=True))
    for name, values in (
        ("select", select),
        ("clip", clip),
        ("encode", encode),
        ("tile", whole),
        ("minimal_tile", minimal),
    ):
        found[name] = statistics.median(values)
        found[f"{name}_max"] = max(values)
    return found


def tile_steps(
    index: geo_tiles.TileIndex, small: minimal_tiles.Index, x: int, y: int
) -> tuple[float, float, float, float, float]:
    """CPU seconds of one tile's steps: select, clip, encode; whole; the minimal's whole."""
    select, chosen = least_cpu(lambda: geo_tiles.tile_features_at(index, Z, x, y))
    clip, drawn = least_cpu(lambda: clipped(x, y, chosen))
    encode, _ = least_cpu(lambda: geo_tiles._encode(drawn))
    whole, _ = least_cpu(
        lambda: geo_tiles.encode_tile(index, Z, x, y, MAX_TILE_FEATURES, MAX_TILE_BYTES)
    )
    minimal, _ = least_cpu(lambda: minimal_tiles.encode(small, Z, x, y))
    return select, clip, encode, whole, minimal


def clipped(x: int, y: int, chosen: list[Any]) -> list[Any]:
    """`encode_tile`'s middle step alone: the features moved to tile units, clipped and
    simplified (`_local`), each kept of its own kind (`_kept`)."""
    drawn = []
    for feature, shape in zip(chosen, geo_tiles._local(chosen, Z, x, y), strict=True):
        kept = geo_tiles._kept(feature.geometry.geom_type, shape)
        if kept is not None:
            drawn.append((feature.layer, kept, feature.properties))
    return drawn
