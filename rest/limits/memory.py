"""Rows of docs/limits.md's "Memory": every cache of a process with its budget and key, and
the parse workers' memory."""

from __future__ import annotations

import resolvers.limits
from rest.limits.rows import (
    MIB,
    Limit,
    Section,
    constant,
    count,
    names,
    part,
    percent,
    seconds,
    size,
)
from rest.limits.values import (
    COMPILED_BYTES,
    COMPILED_PLANS,
    ENCODED,
    GRAPH_CACHE,
    GRAPH_ELEMENT,
    GRAPHQL_CACHE,
    JOIN_SIZE,
    JOINS_MAX,
    JOINS_MIN,
    JOURNAL_BYTES,
    JOURNAL_EVENTS,
    KEEP_WHOLE,
    KEPT_TARGET,
    KEY_LOOKUPS,
    LOG_LINE,
    LOGGED_FIELD,
    PAGE_BOUNDS,
    PAGE_BOUNDS_BYTES,
    PERSISTED_CACHE,
    PERSISTED_RECHECK,
    PROFILE_ELEMENT,
    PROFILES,
    RATE_BUCKETS,
    READ_CACHE,
    SCOPE_VERSIONS,
    SEARCH_CACHE,
    SEARCH_PLACE,
    SIDE_SHARE,
    TILE_CACHE,
    TILE_INDEX,
    WAYPOINT,
    WORKER_RSS,
)

CACHES = Section("caches", ("Cache", "Budget", "Setting", "Key"))
PARSE_WORKERS = Section("parse-workers")

NEW_DOCUMENTS = constant(resolvers.limits, "NEW_DOCUMENTS_SHARE")
SEEN_DOCUMENTS = constant(resolvers.limits, "SEEN_DOCUMENTS_BYTES")

CACHES_ROWS: tuple[Limit, ...] = (
    Limit(
        CACHES,
        "Read cache: query results and whole answers",
        size(READ_CACHE.value * MIB),
        READ_CACHE.code,
        "16-byte digest of the query, or of what an answer depends on; a REST query with a "
        "parameter its route does not read is answered but not kept",
        (READ_CACHE,),
    ),
    Limit(
        CACHES,
        "Parsed GraphQL documents, with their validations and costs; documents seen once "
        f"wait in {percent(NEW_DOCUMENTS.value)} of it ({NEW_DOCUMENTS.code}) and move "
        "to the rest when asked again, so a flood of new documents evicts only its own; "
        f"the digests of documents seen take {size(SEEN_DOCUMENTS.value)} of it "
        f"({SEEN_DOCUMENTS.code})",
        size(GRAPHQL_CACHE.value * MIB),
        GRAPHQL_CACHE.code,
        "16-byte digest of the text",
        (GRAPHQL_CACHE, NEW_DOCUMENTS, SEEN_DOCUMENTS),
    ),
    Limit(
        CACHES,
        "Persisted documents a process keeps in front of the shared store (read again after "
        f"{seconds(PERSISTED_RECHECK.value)}: {PERSISTED_RECHECK.code})",
        size(PERSISTED_CACHE.value),
        PERSISTED_CACHE.code,
        "the document's SHA-256 (64 characters)",
        (PERSISTED_CACHE, PERSISTED_RECHECK),
    ),
    Limit(
        CACHES,
        "Compiled plans of documents",
        f"{size(COMPILED_BYTES.value)}, {count(COMPILED_PLANS.value)} documents",
        names(COMPILED_BYTES, COMPILED_PLANS),
        "the parsed document (kept, and counted, with the plan)",
        (COMPILED_BYTES, COMPILED_PLANS),
    ),
    Limit(
        CACHES,
        "Generated completer code",
        # schema/execution/shapes.py: COMPILED_CODE = ByteLRU(COMPILED_PLAN_BYTES // 4)
        size(COMPILED_BYTES.value // 4),
        f"`{COMPILED_BYTES.name} / 4`",
        "the generated source",
        (COMPILED_BYTES,),
    ),
    Limit(
        CACHES,
        f"Walk graphs of maps, loaded ({count(GRAPH_ELEMENT.value)} bytes per node and edge "
        "counted: 143-229 measured once queried on every level; and, per mode, the joins of "
        f"nearest routes' candidates, as many as its nodes from {count(JOINS_MIN.value)} to "
        f"{count(JOINS_MAX.value)}, {count(JOIN_SIZE.value)} bytes each; and as many points "
        f"of kept candidate sets, {count(KEPT_TARGET.value)} bytes each, keyed by the "
        "map's locations version and a digest of the request's candidates)",
        size(GRAPH_CACHE.value * MIB),
        GRAPH_CACHE.code,
        "map id and its graph file",
        (GRAPH_CACHE, GRAPH_ELEMENT, JOINS_MIN, JOINS_MAX, JOIN_SIZE, KEPT_TARGET),
    ),
    Limit(
        CACHES,
        "Costed graphs of a loaded walk graph: profiles other than plain foot and wheelchair "
        "(costing options, closures), built on first use, least recently used first out "
        f"(each counted in its walk graph's bytes, as if all were kept: "
        f"{count(PROFILE_ELEMENT.value)} bytes per node and edge and its joins)",
        f"{count(PROFILES.value)} per walk graph",
        f"{PROFILES.code} ({PROFILES.path})",
        "the profile: mode, walking speed, penalties, kinds excluded, edges closed",
        (PROFILES, PROFILE_ELEMENT, GRAPH_CACHE),
    ),
    Limit(
        CACHES,
        f"Each map's waypoints ({count(WAYPOINT.value)} bytes each plus their id and name "
        "counted), and its named places for route landmarks (450 bytes each plus their "
        "text)",
        f"{part(SIDE_SHARE.value)} of the graphs' budget each "
        f"({size(GRAPH_CACHE.value * MIB / SIDE_SHARE.value)})",
        names(GRAPH_CACHE, SIDE_SHARE),
        "map id and its `locations_version` (landmarks: with its graph file)",
        (GRAPH_CACHE, SIDE_SHARE, WAYPOINT),
    ),
    Limit(
        CACHES,
        f"Search indexes of assets ({count(SEARCH_PLACE.value)} bytes per place plus twice "
        "its text counted, and the documents each keeps to update itself: compressed "
        "BSON, 8 bytes of id hash each)",
        size(SEARCH_CACHE.value * MIB),
        SEARCH_CACHE.code,
        "asset id and the versions of its units and locations",
        (SEARCH_CACHE, SEARCH_PLACE),
    ),
    Limit(
        CACHES,
        "Ids of changed units and locations the search indexes update from "
        "(`/readyz` `read_cache` `journal_events`, `journal_bytes`)",
        f"{count(JOURNAL_EVENTS.value)} ids, {size(JOURNAL_BYTES.value)} "
        "(128 bytes each with the id's)",
        f"{names(JOURNAL_EVENTS, JOURNAL_BYTES)} ({JOURNAL_EVENTS.path})",
        "collection and document id, in the change stream's order (the oldest go first; "
        "an index older than them is built from everything)",
        (JOURNAL_EVENTS, JOURNAL_BYTES),
    ),
    Limit(
        CACHES,
        "Versions of the read cache per asset, map and document changed since start "
        "(`/readyz` `read_cache` `scopes`): what lets a write to one asset leave the "
        "others' kept reads and answers in place",
        f"{count(SCOPE_VERSIONS.value)} (a few hundred bytes each)",
        f"{SCOPE_VERSIONS.code} ({SCOPE_VERSIONS.path})",
        "collection and scope (`storage/cache/scopes.py`); past the bound all are "
        "forgotten at once, and every read kept within a scope is read again",
        (SCOPE_VERSIONS,),
    ),
    Limit(
        CACHES,
        "Where the pages of lists in id order end (`/readyz` `read_cache` `page_bounds`, "
        "`page_bounds_bytes`): page N read after page N - 1's last id, not by offset",
        f"{count(PAGE_BOUNDS.value)} ends, {size(PAGE_BOUNDS_BYTES.value)} (an id's bytes "
        "and 120 each, 400 a list)",
        f"{names(PAGE_BOUNDS, PAGE_BOUNDS_BYTES)} ({PAGE_BOUNDS.path})",
        "collection, filter, projection and page size (a digest), for one version of what "
        "the list reads; the least recently used lists go first",
        (PAGE_BOUNDS, PAGE_BOUNDS_BYTES),
    ),
    Limit(
        CACHES,
        "Vector tiles: the feature index of an asset (`/readyz` `tile_indexes`); encoded "
        "tiles (`vector_tiles`)",
        f"{size(TILE_INDEX.value)}; {size(TILE_CACHE.value)}",
        names(TILE_INDEX, TILE_CACHE),
        "asset id and a digest of its georeferenced maps' GeoJSON files; with z/x/y",
        (TILE_INDEX, TILE_CACHE),
    ),
    Limit(
        CACHES,
        "Compressed bodies of cacheable answers (`/files`, the viewer's and GraphiQL's files)",
        f"{size(ENCODED.value)}; a streamed one held whole up to {size(KEEP_WHOLE.value)}",
        f"{names(ENCODED, KEEP_WHOLE)} ({ENCODED.path})",
        "SHA-256 of the path and ETag, and the coding",
        (ENCODED, KEEP_WHOLE),
    ),
    Limit(
        CACHES,
        "Key lookups",
        f"{count(KEY_LOOKUPS.value)} known, {count(KEY_LOOKUPS.value)} unknown",
        KEY_LOOKUPS.code,
        "SHA-256 of the key",
        (KEY_LOOKUPS,),
    ),
    Limit(
        CACHES,
        "Rate buckets kept in a process",
        count(RATE_BUCKETS.value),
        RATE_BUCKETS.code,
        "key id, or client address: an IP address, 39 characters at most (behind a proxy, "
        "only one in X-Forwarded-For counts); about 23 MB when full of IPv6 addresses",
        (RATE_BUCKETS,),
    ),
    Limit(
        CACHES,
        "Access and log lines",
        f"{count(LOGGED_FIELD.value)} characters of a target, {size(LOG_LINE.value)} a line",
        f"{names(LOGGED_FIELD, LOG_LINE)} ({LOGGED_FIELD.path})",
        "-",
        (LOGGED_FIELD, LOG_LINE),
    ),
)

PARSE_WORKERS_ROWS: tuple[Limit, ...] = (
    Limit(
        PARSE_WORKERS,
        "A parse worker's resident memory once it gave memory back",
        size(WORKER_RSS.value),
        f"{WORKER_RSS.code} ({WORKER_RSS.path})",
        "the workers are replaced: a new pool, started at once, takes the next parses; those "
        "under way finish in the old one, which then ends. No answer changes",
        (WORKER_RSS,),
    ),
)
