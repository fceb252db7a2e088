"""Every per-process cache beside the read cache, by name, with its figures: what
`/readyz` shows (nested as there) and what `/metrics` exports per cache (issue 67,
point 4: the use, hits, misses and evictions of every cache, and the search indexes'
builds by kind), from one table so the two never name different caches."""

from __future__ import annotations

from typing import Any

from resolvers.context import Services
from resolvers.search.builds import BUILDS
from rest.compression import ENCODED
from rest.graphql_http.endpoint import GraphQLEndpoint

Figures = dict[str, Any]  # a cache's figures, or (graphql_caches) caches by name


def cache_figures(services: Services, graphql: GraphQLEndpoint) -> dict[str, Figures]:
    """The caches as `/readyz` shows them, by name."""
    return {
        "graphql_caches": graphql.cache_figures(),
        "compressed_answers": ENCODED.figures(),
        "persisted_queries": graphql.persisted_figures(),
        "walk_graphs": services.graph_cache.figures(),
        "waypoints": services.waypoint_cache.figures(),
        "landmarks": services.place_cache.figures(),
        "search_indexes": {**services.search_indexes.figures(), **BUILDS.figures()},
        "tile_indexes": services.tile_indexes.figures(),
        "vector_tiles": services.tile_cache.figures(),
    }


def flat(caches: dict[str, Figures]) -> dict[str, dict[str, int]]:
    """Each cache by one name (`graphql_caches`' own caches as `graphql_<name>`), with
    its whole-number figures only."""
    found: dict[str, dict[str, int]] = {}
    for name, figures in caches.items():
        if figures and all(isinstance(value, dict) for value in figures.values()):
            prefix = name.removesuffix("caches")
            pairs = [(f"{prefix}{key}", value) for key, value in figures.items()]
        else:
            pairs = [(name, figures)]
        for each, inner in pairs:
            numbers = {
                key: value
                for key, value in inner.items()
                if isinstance(value, int) and not isinstance(value, bool)
            }
            if numbers:  # a cache not made yet (the schema, the persisted store) shows none
                found[each] = numbers
    return found
