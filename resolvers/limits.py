"""Limits of the API that are not deployment settings: one place for each number.

Limits of the data itself (id length, reference key pattern) are in `storage.limits`.
"""

from __future__ import annotations

MAX_FILTER_LENGTH = 255
PER_PAGE = "perPage"  # the GraphQL argument that sizes a page
DEFAULT_PER_PAGE = 100
MAX_PER_PAGE = 10000
INT32_MAX = 2**31 - 1
MAX_MATRIX_PAIRS = 50  # sources x targets of one distance matrix (E18)
# Location ids a route's `to.nearest.ids` may name (issue 47): one search measures them
# all, but each is looked up and joined to the walk graph; 500 ids of 255 characters
# fit a route's body (MAX_QUERY_BODY_BYTES) twice over.
MAX_NEAREST_IDS = 500
# Characters of a search text (issue 47): a route's `to.nearest.q`.
MAX_SEARCH_CHARS = 100
# A page of search results (`search`, `GET /v1/search`): its size when not asked, and
# at most (a larger `per-page` is clamped, as for every list).
DEFAULT_SEARCH_PER_PAGE = 10
MAX_SEARCH_PER_PAGE = 50
# Assets one search covers without `asset` or `map`: each is an index to build and ask
# (422 on `asset` past it, for a key that may see more).
MAX_SEARCH_ASSETS = 100
MAX_INPUT_ITEMS = 10000  # items of any one list in a request body or GraphQL variables
# JSON request bodies longer than this are parsed and checked on the CPU pool
# (`storage.cpu`), not on the event loop (rest/v1/json_body.py).
JSON_ON_LOOP_BYTES = 64 * 1024
# Items of one E21/E22 body (assignments written in one transaction): 422 past it, from
# the list's length alone (resolvers.validation.item_count_problems).
MAX_WRITE_ITEMS = 1000
# An E21/E22 body: 1,000 items of four 255-character ids fit with room to spare; a
# larger body is refused (413) as it arrives, before any of it is parsed.
MAX_WRITE_BODY_BYTES = 2 * 1024 * 1024
# An E18 or route body: 51 waypoints (50 pairs) of 255-character ids and long names fit
# many times over. Parsing a large JSON body holds the interpreter (orjson keeps the
# GIL), wherever it runs: bodies no route needs are refused as they arrive.
MAX_QUERY_BODY_BYTES = 256 * 1024
# |x| and |y| of a waypoint, in drawing units: far beyond any drawing, small enough that
# squared distances stay finite.
MAX_COORDINATE = 1e9
# An ad-hoc waypoint (x, y and a floor, no location id) of a route or of an E18 on the
# walk graph lies on its level's drawing: within the box around the level's walk paths
# and connectors, widened on every side by the larger of these (units beyond a corridor,
# a drawing's margin), in whole canvas units; else 422 on the waypoint. A point a billion
# units away once made a route's leg that long (issue 45).
WAYPOINT_MARGIN_FT = 300.0
WAYPOINT_MARGIN_SHARE = 0.25  # of the box's larger side
# A WGS84 waypoint (lon, lat and a floor or `level`, issue 49) lies within this many
# metres of its level's outline (the box around the level's units, as the map's GeoJSON
# draws it), measured on the earth; else 422 on the waypoint. A phone's position indoors
# is often a few metres off: a visitor at the door is still on the map.
WGS84_WAYPOINT_MARGIN_M = 5.0
# Rate-limit units of one operation: one per this much GraphQL cost, at least one
# (docs/api.md, Limits). Every REST route at the default page size costs one unit, but
# an E18 of several searches (PATH_SEARCH_COST below).
COST_PER_RATE_UNIT = 10_000
# What a bulk write (E21/E22) costs the database is known once it ran: the documents it
# wrote (each assignment added, changed or removed, and each change's event). They are
# charged after the write, one rate-limit unit per this many, never refused (the write
# is done): the key's next requests wait until its bucket has refilled. An E21 of 100 new
# assignments writes 200 documents in about 80 ms of the server's and the database's
# time, where a unit elsewhere buys a route or a page (1-2 ms): 40 units. One key writing
# without pause held the embedded database at a core (issue 45, point 8); at the default
# rate a key writes about 500 new assignments a second. Writing what is already there
# writes nothing and costs its request's unit only.
WRITTEN_DOCUMENTS_PER_RATE_UNIT = 5
# A request without a key can only introspect the GraphQL schema: its body is refused
# unread (401) above this size.
MAX_UNAUTHENTICATED_BODY_BYTES = 64 * 1024
# Request target (path and query) of any request: past it, 414 before routing, and the
# connection's parser stops reading it (rest/ops/server.py). Bounds what a URL costs in every
# place that copies or caches it (the access log, urllib's parse cache of 128 URLs).
MAX_TARGET_BYTES = 8 * 1024
# The waypoint and landmark caches of a process each hold this fraction of the bytes of
# its graph cache (FLOORGATE_GRAPH_CACHE_MB; resolvers/wayfinding/graph_cache.py).
SIDE_CACHE_SHARE = 8
# Characters of a client's value a refusal quotes (a word that is no choice: "not 'x...'").
MAX_QUOTED_CHARS = 40
# Share of a request's time budget an operator write waits for an import of its asset.
LEASE_WAIT_SHARE = 0.75

# The cost of a GraphQL operation (`schema.execution.operation_cost`), computed from the
# document and its variables before anything runs: a field costs 1, plus its own cost
# below, plus its multiplier times the cost of what is selected in it. A field with
# `perPage` multiplies by the page size (DEFAULT_PER_PAGE when absent, at most
# MAX_PER_PAGE); the list inside a page it returns (`data`) then counts once. Another
# list of objects multiplies by its estimate here, by "Type.field" (else
# DEFAULT_LIST_ESTIMATE); a list of scalars is a leaf. Introspection fields cost 1 each
# and multiply like any list: `__schema { types }` by the schema's number of types,
# `fields`, `args`, `inputFields`, `enumValues`... by the schema's average per type (or
# field), so a walk of every field of every type costs what it resolves
# (`introspection_estimates`). An operation without a key (it can only introspect) has
# its own, much lower ceiling (settings: graphql_max_cost_without_key).
# Every REST route stays under the default limit (settings) at per-page 10000, which
# bounds LevelTag.values, Location.floors/tags and UnitAttributeGroup.attributes; a
# default page of assets with their units and all references (12 fields) stays under it.
DEFAULT_LIST_ESTIMATE = 10
LIST_ESTIMATES: dict[str, int] = {
    "Asset.floors": 20,
    "Asset.units": 200,
    "Asset.unitMaps": 20,
    "Asset.references": 3,
    "Floor.units": 50,
    "Unit.references": 3,
    "UnitMap.units": 100,
    "UnitMap.backgrounds": 3,
    "UnitMap.levelTags": 3,
    "UnitMap.locations": 100,
    "LevelTag.values": 4,
    "Location.floors": 1,
    "Location.tags": 2,
    "UnitAttributeGroup.attributes": 6,
    # The turns told with a turn: within 30 ft after it, mostly none or one.
    "RouteManeuver.then": 1,
    # At most MAX_MATRIX_PAIRS sources x targets: about its square root on each side.
    "DistanceMatrix.sources": 7,
    "MatrixSource.targets": 7,
    # Writes echo their input: one item per assignment sent.
    "Mutation.assignUnitAttributes": 100,
    "Mutation.unassignUnitAttributes": 100,
}
# A search of a map's walk graph: a Dijkstra over the whole graph and, for `route`, its
# path unfolded and its maneuvers planned (issue 45: one document of 30 aliased routes
# put an honest GET's p95 at 27x idle). `route` costs one; E18 (`distanceMatrix`) one
# per source, or per target when there are fewer (one Dijkstra each), plus
# MATRIX_PAIR_COST per source-target pair, both read from its input's lists before
# anything runs (a straight-line matrix, `distanceMethod: "euclidean"`, only its pairs;
# one of more than MAX_MATRIX_PAIRS, refused before any work, as 1 x 1). A route and a
# 1 x 50 E18 stay at one or two rate units, a 7 x 7 E18 at seven; 28 aliased routes are
# past the cost limit (26 with REST's selection), so 30 are refused before they run.
PATH_SEARCH_COST = 9_000
# What `to: {nearest}` adds to a route beyond the candidates' search (issue 63, finding
# 3): each candidate is looked up, joined to the walk graph and made a target of that
# search, so it is priced per candidate: its `ids` counted from the input before
# anything runs, a `tags` or `q` (which find theirs as they run) as
# NEAREST_UNLISTED_CANDIDATES, the candidates found beyond them charged after it ran.
# 13 aliased routes to 400 ids each fit the ceiling at 18,000 a route (four clients put
# an honest GET's p95 at 66x idle); at 58,000 four fit.
NEAREST_CANDIDATE_COST = 100
NEAREST_UNLISTED_CANDIDATES = 100
# The stops one route may visit between its start and its destination (`via`, issue 50;
# `routing.stops` orders at most MAX_STOPS).
MAX_VIA = 25
# ... and with `optimize`, whose stops' time matrix costs a search per point more (a route
# of n stops: 2n + 3 searches): the most whose price stays within the default ceiling
# (FLOORGATE_GRAPHQL_MAX_COST, 27 searches), so one heavy route is the most walk-graph
# work one operation may do, on either face (issue 63, finding 4: 25 optimised stops ran
# on REST for 1.0-1.6 s where /graphql refused them). More is 422 on `via` before any work.
MAX_OPTIMIZED_VIA = 12
# A request's `Accept-Language` (issue 51): a browser sends a few dozen bytes and a few
# ranges; a longer header is 431, ranges past the count are not read.
MAX_ACCEPT_LANGUAGE_BYTES = 1024
MAX_ACCEPT_LANGUAGE_RANGES = 32
MATRIX_PAIR_COST = 100
# Page sizes of the lists whose own differ from DEFAULT_PER_PAGE and MAX_PER_PAGE, by
# "Type.field": (when absent, at most); their cost counts the same.
PAGE_SIZES: dict[str, tuple[int, int]] = {
    "Query.search": (DEFAULT_SEARCH_PER_PAGE, MAX_SEARCH_PER_PAGE),
}
# A search of places (`search`): its terms looked up in an asset's index, its matches
# ordered; with `near`, also one search of the map's walk graph (PATH_SEARCH_COST).
SEARCH_COST = 1_000
# An operator's venue health report (`venueHealth`, issue 65, point 6): every tile z14-18
# over the asset encoded (27 on Grand'Place, about 0.2 s of CPU) and its places compared,
# on the CPU pool; later asks of the same data are the kept answer. Ten rate-limit units:
# two fit the default ceiling (FLOORGATE_GRAPHQL_MAX_COST), a third is refused.
VENUE_HEALTH_COST = 100_000
# Tiles its sweep encodes at most, lowest zoom first, each meeting a feature (the rest are
# noted as not checked): the extent is the data's, and one feature drawn kilometres off
# would make millions of z18 tiles. 1,024 cover about a square kilometre to z18 (1-15 ms
# of CPU each); `floorgate check --venue` sweeps as far.
MAX_HEALTH_TILES = 1_024
# Fields that spend CPU of their own, beyond the fields they return; they also pay one
# unit per INPUT_CHARS_PER_COST characters of their arguments' strings (an SVG above
# all). A parse costs just under one rate-limit unit, so E10 stays at one unit for a
# small drawing; a 5 MB drawing costs about 59,000, a handful per operation.
FIELD_COSTS: dict[str, int] = {
    "Query.parseUnitMap": 9_000,  # parses the SVG (parsing.svg)
    "Mutation.putUnitMap": 9_000,  # parses the SVG, derives units, writes files
    "Query.distanceMatrix": 0,  # its searches and pairs, above
    # a search, its path unfolded, its maneuvers; `to: {nearest}` adds the candidates' search
    "Query.route": PATH_SEARCH_COST,
    # the asset's index asked (built on first use); `near` adds a PATH_SEARCH_COST
    "Query.search": SEARCH_COST,
    # every tile z14-18 of the asset encoded and its places compared (resolvers/venue_health.py)
    "Query.venueHealth": VENUE_HEALTH_COST,
    "Mutation.putLocation": 1_000,  # rewrites the map's GeoJSON
    "Mutation.deleteLocation": 1_000,  # rewrites the map's GeoJSON
}
INPUT_CHARS_PER_COST = 100
# A number literal in a GraphQL document (Int is 32-bit, a Float needs ~25 characters):
# longer ones are refused before validation (Python's int() stops at 4,300 digits).
MAX_NUMBER_LITERAL_CHARS = 100
# Rough bytes one token of a parsed GraphQL document keeps (the token, its node, the
# node's location), measured with tracemalloc on graphql-core 3.3: about 555.
BYTES_PER_TOKEN = 600
# GraphQL documents (and /graphql JSON bodies) longer than this are parsed on the CPU
# pool (`storage.cpu`), not on the event loop: graphql-core's lexer reads a string at
# about 4.5 MB a second (a 900 KB one holds the thread 0.2 s; this many characters,
# under 4 ms); orjson decodes 8 MB of small objects in 0.14 s.
PARSE_ON_LOOP_CHARS = 16 * 1024
# GraphQL documents of more tokens are validated on the CPU pool: graphql-core's rules
# take 15-40 us a token (5,000 tokens: up to 0.2 s), this many under 20 ms.
VALIDATE_ON_LOOP_TOKENS = 500
# Validating a document the process has not validated yet is charged to the caller's rate
# limit before it starts (issue 63, finding 1), by its tokens (comments left out): one
# unit per this many beyond the first VALIDATION_FREE_TOKENS, which the request's own unit
# pays; at most a full bucket less that unit. Measured on a 2-core Xeon (graphql-core
# 3.3.2): 8-20 us a token for wide or wrong documents, up to 80 us for fragments spread
# side by side (450: 256 ms). Validation and parse run in threads that hold the
# interpreter against the event loop, so a unit buys at most 0.6 ms of them, not the 1-2
# ms it buys elsewhere: at 25 tokens a unit (2 ms), four clients of new documents still
# put an honest GET's p95 at 10 -> 195 ms; at 8, within 2x. A key at the default rate
# (200 units a second) then holds at most about an eighth of a core with new documents.
# A document validated once is not charged again while it is kept.
VALIDATION_TOKENS_PER_RATE_UNIT = 8
VALIDATION_FREE_TOKENS = 200
# ... and when the bucket cannot pay it, the request is refused (429) before validation,
# but its parse is done (6-13 us a token, comments and all): it is spent anyway, one unit
# per this many tokens, so a key whose bucket is empty cannot have documents parsed for
# the one unit of their requests.
PARSE_TOKENS_PER_RATE_UNIT = 25
# Parsed documents seen once are kept in a segment of their own, this share of
# FLOORGATE_GRAPHQL_CACHE_MB: a flood of new documents (each refused, or run once) evicts
# only there, never the documents asked again, which move to the rest on their second sight.
NEW_DOCUMENTS_SHARE = 0.25
# Digests of documents seen once (16 bytes each, counted at SEEN_KEY_BYTES with their
# entry): a document asked again after its parse left the new segment is kept at once.
SEEN_DOCUMENTS_BYTES = 256 * 1024
SEEN_KEY_BYTES = 128
# An operation of introspection alone from this cost up (GraphiQL's schema query costs
# about 13,000 and 40 ms) executes on the CPU pool, not on the event loop
# (`schema.execution.running.document`): introspection resolves about 7 us a unit of cost.
INTROSPECTION_ON_LOOP_COST = 1_000
# Byte budget of the compiled plans (`schema.execution.compiled`): a plan holds its document's
# nodes, so it is counted at its document's rough size.
COMPILED_PLAN_BYTES = 16 * 1024 * 1024
# graphql-core's OverlappingFieldsCanBeMergedRule compares fields that share a response
# name pairwise (quadratic). graphql-core 3.3.2 charges the budget for every response
# name of every field map it compares, so realistic 5,000-token frontend pages spend
# 12,000-26,000 of it (10,000 refused 77 of 80 such pages; 40,000 refuses none). Past it,
# validation stops with an error: the quadratic attacks of tests/schema stop after 57 ms
# of CPU at most (35 ms at 10,000; graphql-core's own 500,000 took 0.3 to 1.7 s).
OVERLAP_COMPARISON_BUDGET = 40_000
# GraphQL documents whose compiled plans each process keeps (`schema.execution.compiled`), least
# recently used dropped first; every persisted REST document is among them.
COMPILED_PLANS = 512

# A key's own rate limit (`floorgate keys create/update --rate-limit --burst`).
MAX_KEY_RATE = 1_000_000.0  # tokens per second
MAX_KEY_BURST = 10_000_000

# Compressed answers (rest/compression.py, docs/api.md "Compression"): the cache of
# cacheable answers' compressed bodies, per process, and how much of a streamed
# cacheable answer is held whole to be compressed once.
ENCODED_CACHE_BYTES = 32 * 1024 * 1024
KEEP_WHOLE_BYTES = 8 * 1024 * 1024

# Live changes over WebSocket (docs/graphql.md, "Subscriptions"; issue 45). The pace of
# the messages a client sends on one socket: this burst (a client subscribing to its
# key's 100 subscriptions at once fits), then this rate; past it the socket is read more
# slowly (rest.graphql_http.sockets.MessageBudget). Subscribe then complete in a loop
# once took 44,028 slots in 5 s.
WS_MESSAGES_PER_SECOND = 10.0
WS_MESSAGE_BURST = 200
# The same messages counted per key over all its sockets in a process: the burst is the
# key's, not each socket's (4 sockets of one key churning their 200 each took a keyed
# GET from 13 to 56 ms). A subscribe/complete pair costs the server about 10 ms of CPU
# (and the database three writes), so a key's sockets together get 10 pairs a second:
# 100 sockets of one key may each subscribe or ping every 5 s. The burst is at least
# FLOORGATE_MAX_SOCKETS_PER_KEY: each socket a key may open sends a message at once (400
# sockets subscribing at once waited 15 s for their turns, and held their memory).
WS_KEY_MESSAGES_PER_SECOND = 20.0
WS_KEY_MESSAGE_BURST = 200
# Messages waiting to be sent on one socket: past it its subscriptions wait (and fall
# behind in the events hub, which ends them past MAX_QUEUED: the socket closes, 1013).
WS_OUTBOX_MESSAGES = 256
# Characters of a subscription's `id`, which every message for it repeats.
MAX_OPERATION_ID_CHARS = 128
# A subscription's result for one event, made once per process for every subscriber of
# the same document, variables and scope (`schema.execution.event_results`): the latest kept, in
# bytes, keys included.
EVENT_RESULT_BYTES = 1024 * 1024

# Vector tiles (docs/tiles.md). Zoom levels served: below 14 a building is a few pixels
# (and a tile would hold every venue of a city); past 22 a tile is 10 cm across.
MIN_TILE_ZOOM = 14
MAX_TILE_ZOOM = 22
# One tile: at most this many features and this many bytes encoded; beyond either the
# last features in layer order (locations, then openings...) are left out. The busiest
# z14 tile of the test venues holds 848 features in 62 KB.
MAX_TILE_FEATURES = 20_000
MAX_TILE_BYTES = 2 * 1024 * 1024
# Encoded tiles kept per process, by (asset, data version, z, x, y), and the assets'
# feature indexes they are cut from, in bytes, keys included (/readyz `vector_tiles`,
# `tile_indexes`).
TILE_CACHE_BYTES = 64 * 1024 * 1024
TILE_INDEX_BYTES = 64 * 1024 * 1024
# A closure (issue 50, docs/routing.md "Closures"): its reason's characters, and how far
# ahead its `until` may be (a closure meant to last longer lasts until reopened).
MAX_CLOSURE_REASON_CHARS = 200
MAX_CLOSURE_DAYS = 365
