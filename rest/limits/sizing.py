"""What one process may hold in memory, from its settings (issue 67, point 4): its own RSS
and every per-process budget of the table of caches (`rest.limits.memory`), full.

The Kubernetes example's memory (docs/deploy/kubernetes/deployment.yaml) is written from
it by `make generate` with the settings that example sets, so a budget that grows moves
the example with it; docs/deploy.md ("Workers and instances") points here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import resolvers.limits
import storage.cache.change_journal
import storage.cache.page_bounds
import storage.cache.read_cache
import storage.limits
from storage.settings import Settings

MIB = 1024 * 1024
# A served process's own RSS after start-up and its first requests of every kind, its
# caches empty (docs/deploy.md: about 200 MiB).
OWN_RSS_MIB = 200
# The read cache's RSS grows by its budget and a quarter (allocator slack, the entries'
# objects; docs/performance-history.md, "Read cache").
READ_CACHE_SLACK = 1.25
# What one version of a scope takes (`storage.cache.read_cache.MAX_SCOPES`).
SCOPE_BYTES = 300
# A pod's memory is given in whole steps of this many MiB.
STEP_MIB = 64


@dataclass(frozen=True)
class Budget:
    """One part of a process's memory, full."""

    what: str
    bytes: int


def budgets(settings: Settings) -> tuple[Budget, ...]:
    """Every part of one process's memory at its budgets (`settings`' and the constants')."""
    graphs = settings.graph_cache_mb * MIB
    side = graphs // resolvers.limits.SIDE_CACHE_SHARE
    return (
        Budget("own RSS", OWN_RSS_MIB * MIB),
        Budget("read cache, and a quarter", int(settings.read_cache_mb * MIB * READ_CACHE_SLACK)),
        Budget("parsed GraphQL documents", settings.graphql_cache_mb * MIB),
        Budget("persisted documents", storage.limits.PERSISTED_QUERY_CACHE_BYTES),
        # plans, and their generated code at a quarter of it
        Budget("compiled plans and code", resolvers.limits.COMPILED_PLAN_BYTES * 5 // 4),
        Budget("walk graphs", graphs),
        Budget("waypoints, landmarks, frames and closures of maps", 4 * side),
        Budget("search indexes", settings.search_cache_mb * MIB),
        Budget(
            "vector tiles: indexes and tiles",
            resolvers.limits.TILE_INDEX_BYTES + resolvers.limits.TILE_CACHE_BYTES,
        ),
        Budget("encoded answers", resolvers.limits.ENCODED_CACHE_BYTES),
        Budget("changed ids", storage.cache.change_journal.MAX_JOURNAL_BYTES),
        Budget("versions per scope", storage.cache.read_cache.MAX_SCOPES * SCOPE_BYTES),
        Budget("ends of pages", storage.cache.page_bounds.MAX_BOUNDS_BYTES),
    )


def process_mib(settings: Settings) -> int:
    """One process with every budget full, in MiB rounded up to a step."""
    total = sum(each.bytes for each in budgets(settings))
    return math.ceil(total / MIB / STEP_MIB) * STEP_MIB
