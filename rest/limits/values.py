"""The values the table of limits shows, each read by its name where it is enforced: the
settings' rows (`storage/settings.py`) and the constants of every floor. The rows of
`rest/limits/` write them; tests/rest/limits checks each against the code.
"""

from __future__ import annotations

import parsing.imdf.read
import parsing.limits
import parsing.osm.limits
import resolvers.limits
import resolvers.search.index
import resolvers.wayfinding.versioned_cache
import rest.graphql_http.sockets
import rest.middleware
import rest.ops.heap
import rest.ops.linger
import rest.ops.logs
import rest.ops.readiness
import rest.ops.tls_gate
import routing.matrix
import storage.attributes.hub
import storage.attributes.pacing
import storage.attributes.subscriptions
import storage.cache.change_journal
import storage.cache.change_watch
import storage.cache.page_bounds
import storage.cache.read_cache
import storage.cache.switch_gate
import storage.imdf.files
import storage.limits
from resolvers.auth.keys import KeyCache
from resolvers.auth.ratelimit import RateLimiter
from rest.limits.rows import constant, default_of, name_of, path_of, setting, setting_named

BODY = setting("FLOORGATE_MAX_BODY_BYTES")
HEADER = setting("FLOORGATE_MAX_HEADER_BYTES")
CONNECTIONS = setting("FLOORGATE_MAX_CONNECTIONS")
NEW_PER_SECOND = setting("FLOORGATE_NEW_CONNECTIONS_PER_SECOND")
NEW_BURST = setting("FLOORGATE_NEW_CONNECTIONS_BURST")
REQUEST_TIME = setting("FLOORGATE_REQUEST_TIMEOUT_SECONDS")
HEADER_TIME = setting("FLOORGATE_HEADER_TIMEOUT_SECONDS")
KEEPALIVE_TIME = setting("FLOORGATE_KEEPALIVE_TIMEOUT_SECONDS")
BODY_TIME = setting("FLOORGATE_BODY_TIMEOUT_SECONDS")
SEND_TIME = setting("FLOORGATE_SEND_TIMEOUT_SECONDS")
RATE = setting("FLOORGATE_RATE_LIMIT_PER_SECOND")
BURST = setting("FLOORGATE_RATE_LIMIT_BURST")
KEYLESS_RATE = setting("FLOORGATE_UNAUTHENTICATED_RATE_PER_SECOND")
KEYLESS_BURST = setting("FLOORGATE_UNAUTHENTICATED_BURST")
SUBSCRIPTIONS = setting("FLOORGATE_MAX_SUBSCRIPTIONS_PER_KEY")
SOCKETS = setting("FLOORGATE_MAX_SOCKETS_PER_KEY")
RETENTION = setting("FLOORGATE_EVENT_RETENTION_SECONDS")
MAX_COST = setting("FLOORGATE_GRAPHQL_MAX_COST")
KEYLESS_COST = setting("FLOORGATE_GRAPHQL_MAX_COST_WITHOUT_KEY")
DOCUMENT = setting("FLOORGATE_GRAPHQL_MAX_DOCUMENT_BYTES")
TOKENS = setting("FLOORGATE_GRAPHQL_MAX_TOKENS")
DEPTH = setting("FLOORGATE_GRAPHQL_MAX_DEPTH")
ALIASES = setting("FLOORGATE_GRAPHQL_MAX_ALIASES")
SPREADS = setting("FLOORGATE_GRAPHQL_MAX_FRAGMENT_SPREADS")
PERSISTED_COUNT = setting("FLOORGATE_PERSISTED_QUERIES_MAX_COUNT")
PERSISTED_BYTES = setting("FLOORGATE_PERSISTED_QUERIES_MAX_BYTES")
READ_CACHE = setting("FLOORGATE_READ_CACHE_MB")
GRAPHQL_CACHE = setting("FLOORGATE_GRAPHQL_CACHE_MB")
GRAPH_CACHE = setting("FLOORGATE_GRAPH_CACHE_MB")
SEARCH_CACHE = setting("FLOORGATE_SEARCH_CACHE_MB")
SEARCH_PLACE = constant(resolvers.search.index, "PLACE_BYTES")
JOURNAL_EVENTS = constant(storage.cache.change_journal, "MAX_JOURNAL_IDS")
JOURNAL_BYTES = constant(storage.cache.change_journal, "MAX_JOURNAL_BYTES")
SCOPE_VERSIONS = constant(storage.cache.read_cache, "MAX_SCOPES")
PAGE_BOUNDS = constant(storage.cache.page_bounds, "MAX_BOUNDS")
PAGE_BOUNDS_BYTES = constant(storage.cache.page_bounds, "MAX_BOUNDS_BYTES")
IMPORT_DOCUMENTS = setting("FLOORGATE_IMPORT_MAX_DOCUMENTS")
SVG_BYTES = setting("FLOORGATE_SVG_MAX_BYTES")
SVG_ELEMENTS = setting("FLOORGATE_SVG_MAX_ELEMENTS")
SVG_DEPTH = setting("FLOORGATE_SVG_MAX_DEPTH")
SVG_POINTS = setting("FLOORGATE_SVG_MAX_POINTS")

TARGET = constant(resolvers.limits, "MAX_TARGET_BYTES")
WRITE_BODY = constant(resolvers.limits, "MAX_WRITE_BODY_BYTES")
QUERY_BODY = constant(resolvers.limits, "MAX_QUERY_BODY_BYTES")
KEYLESS_BODY = constant(resolvers.limits, "MAX_UNAUTHENTICATED_BODY_BYTES")
COST_PER_UNIT = constant(resolvers.limits, "COST_PER_RATE_UNIT")
WRITTEN_PER_UNIT = constant(resolvers.limits, "WRITTEN_DOCUMENTS_PER_RATE_UNIT")
PATH_SEARCH = constant(resolvers.limits, "PATH_SEARCH_COST")
PAIR_COST = constant(resolvers.limits, "MATRIX_PAIR_COST")
NUMBER_CHARS = constant(resolvers.limits, "MAX_NUMBER_LITERAL_CHARS")
INPUT_ITEMS = constant(resolvers.limits, "MAX_INPUT_ITEMS")
FILTER_LENGTH = constant(resolvers.limits, "MAX_FILTER_LENGTH")
DEFAULT_PAGE = constant(resolvers.limits, "DEFAULT_PER_PAGE")
MAX_PAGE = constant(resolvers.limits, "MAX_PER_PAGE")
INT32 = constant(resolvers.limits, "INT32_MAX")
MATRIX_PAIRS = constant(resolvers.limits, "MAX_MATRIX_PAIRS")
NEAREST_IDS = constant(resolvers.limits, "MAX_NEAREST_IDS")
VIA = constant(resolvers.limits, "MAX_VIA")
ACCEPT_LANGUAGE_BYTES = constant(resolvers.limits, "MAX_ACCEPT_LANGUAGE_BYTES")
ACCEPT_LANGUAGE_RANGES = constant(resolvers.limits, "MAX_ACCEPT_LANGUAGE_RANGES")
TAG_CHARS = constant(parsing.limits, "MAX_TAG_CHARS")
NAME_LANGUAGES = constant(parsing.limits, "MAX_NAME_LANGUAGES")
SEARCH_CHARS = constant(resolvers.limits, "MAX_SEARCH_CHARS")
SEARCH_PAGE = constant(resolvers.limits, "DEFAULT_SEARCH_PER_PAGE")
SEARCH_MAX_PAGE = constant(resolvers.limits, "MAX_SEARCH_PER_PAGE")
SEARCH_ASSETS = constant(resolvers.limits, "MAX_SEARCH_ASSETS")
MARGIN_FT = constant(resolvers.limits, "WAYPOINT_MARGIN_FT")
MARGIN_SHARE = constant(resolvers.limits, "WAYPOINT_MARGIN_SHARE")
WGS84_MARGIN = constant(resolvers.limits, "WGS84_WAYPOINT_MARGIN_M")
TILE_MIN_ZOOM = constant(resolvers.limits, "MIN_TILE_ZOOM")
TILE_MAX_ZOOM = constant(resolvers.limits, "MAX_TILE_ZOOM")
TILE_FEATURES = constant(resolvers.limits, "MAX_TILE_FEATURES")
TILE_BYTES = constant(resolvers.limits, "MAX_TILE_BYTES")
TILE_CACHE = constant(resolvers.limits, "TILE_CACHE_BYTES")
TILE_INDEX = constant(resolvers.limits, "TILE_INDEX_BYTES")
OSM_BYTES = constant(parsing.osm.limits, "MAX_OSM_BYTES")
OSM_ELEMENTS = constant(parsing.osm.limits, "MAX_OSM_ELEMENTS")
OSM_DEPTH = constant(parsing.osm.limits, "MAX_OSM_DEPTH")
OSM_FEATURES = constant(parsing.osm.limits, "MAX_OSM_FEATURES")
OSM_NODES = constant(parsing.osm.limits, "MAX_OSM_NODES")
OSM_WAYS = constant(parsing.osm.limits, "MAX_OSM_WAYS")
OSM_RELATIONS = constant(parsing.osm.limits, "MAX_OSM_RELATIONS")
OSM_WAY_NODES = constant(parsing.osm.limits, "MAX_OSM_WAY_NODES")
OSM_MEMBERS = constant(parsing.osm.limits, "MAX_OSM_MEMBERS")
OSM_TAGS = constant(parsing.osm.limits, "MAX_OSM_TAGS")
OSM_TAG_CHARS = constant(parsing.osm.limits, "MAX_OSM_TAG_CHARS")
OSM_UNITS = constant(parsing.osm.limits, "MAX_OSM_UNITS")
OSM_LEVEL_UNITS = constant(parsing.osm.limits, "MAX_OSM_LEVEL_UNITS")
OSM_LEVELS = constant(parsing.osm.limits, "MAX_OSM_LEVELS")
OSM_UNIT_POSITIONS = constant(parsing.osm.limits, "MAX_OSM_UNIT_POSITIONS")
OSM_GEOJSON_BYTES = constant(parsing.osm.limits, "MAX_OSM_GEOJSON_BYTES")
OSM_POSITIONS = constant(parsing.osm.limits, "MAX_OSM_POSITIONS")
READY = constant(rest.ops.readiness, "READY_SECONDS")
WRITE_ITEMS = constant(resolvers.limits, "MAX_WRITE_ITEMS")
MESSAGES_PER_SECOND = constant(resolvers.limits, "WS_MESSAGES_PER_SECOND")
MESSAGE_BURST = constant(resolvers.limits, "WS_MESSAGE_BURST")
KEY_MESSAGES_PER_SECOND = constant(resolvers.limits, "WS_KEY_MESSAGES_PER_SECOND")
KEY_MESSAGE_BURST = constant(resolvers.limits, "WS_KEY_MESSAGE_BURST")
OPERATION_ID = constant(resolvers.limits, "MAX_OPERATION_ID_CHARS")
OUTBOX = constant(resolvers.limits, "WS_OUTBOX_MESSAGES")
EVENT_RESULT = constant(resolvers.limits, "EVENT_RESULT_BYTES")
COMPILED_BYTES = constant(resolvers.limits, "COMPILED_PLAN_BYTES")
COMPILED_PLANS = constant(resolvers.limits, "COMPILED_PLANS")
SIDE_SHARE = constant(resolvers.limits, "SIDE_CACHE_SHARE")
ENCODED = constant(resolvers.limits, "ENCODED_CACHE_BYTES")
KEEP_WHOLE = constant(resolvers.limits, "KEEP_WHOLE_BYTES")
ID_LENGTH = constant(storage.limits, "MAX_ID_LENGTH")
STAGED_OPERATIONS = constant(storage.limits, "STAGED_BATCH_OPERATIONS")
STAGED_BYTES = constant(storage.limits, "STAGED_BATCH_BYTES")
SWITCH_POLL = constant(storage.limits, "SWITCH_POLL_SECONDS")
UNITS_KEPT = constant(storage.limits, "MAP_UNITS_KEPT_SHARE")
PERSISTED_CACHE = constant(storage.limits, "PERSISTED_QUERY_CACHE_BYTES")
PERSISTED_RECHECK = constant(storage.limits, "PERSISTED_QUERY_RECHECK_SECONDS")
WORKER_RSS = constant(storage.limits, "PARSE_WORKER_MAX_RSS_BYTES")
FRESH = constant(storage.cache.switch_gate, "FRESH_SECONDS")
POLL_AHEAD = constant(storage.cache.switch_gate, "POLL_AHEAD_SECONDS")
QUIET = constant(storage.cache.switch_gate, "QUIET_SECONDS")
RECORD = constant(storage.cache.switch_gate, "RECORD_SECONDS")
EXPIRE = constant(storage.cache.switch_gate, "EXPIRE_SECONDS")
STREAM_WAIT = constant(storage.cache.change_watch, "STREAM_WAIT_MS")
QUEUED = constant(storage.attributes.hub, "MAX_QUEUED")
CATCH_UP = constant(storage.attributes.hub, "CATCH_UP_BATCH")
FAN_OUT_SHARE = constant(storage.attributes.pacing, "FAN_OUT_SHARE")
FAN_OUT_WINDOW = constant(storage.attributes.pacing, "FAN_OUT_WINDOW")
KEY_EVENTS_BURST = constant(storage.attributes.pacing, "KEY_EVENTS_BURST")
KEY_EVENTS_PER_SECOND = constant(storage.attributes.pacing, "KEY_EVENTS_PER_SECOND")
SLOT = constant(storage.attributes.subscriptions, "SLOT_SECONDS")
ARCHIVE_FILES = constant(storage.imdf.files, "MAX_ARCHIVE_FILES")
ARCHIVE_BYTES = constant(storage.imdf.files, "MAX_ARCHIVE_BYTES")
ZIP_CHUNK = constant(storage.imdf.files, "ZIP_READ_CHUNK")
NESTING = constant(parsing.imdf.read, "MAX_NESTING")
LABEL = constant(parsing.imdf.read, "MAX_LABEL_CHARS")
WAIT = constant(rest.ops.tls_gate, "MAX_WAIT_SECONDS")
WAITING = constant(rest.ops.tls_gate, "MAX_WAITING")
DRAIN = constant(rest.ops.linger, "DRAIN_BYTES_PER_SECOND")
LINGER = constant(rest.ops.linger, "LINGER_SECONDS")
LINGERING = constant(rest.ops.linger, "MAX_LINGERING")
LINGER_BUFFER = constant(rest.ops.linger, "LINGER_READ_BUFFER", item=0)
LOGGED_FIELD = constant(rest.ops.logs, "MAX_LOGGED_FIELD")
LOG_LINE = constant(rest.ops.logs, "MAX_LOG_LINE")
GIVE_BACK_AFTER = constant(rest.graphql_http.sockets, "GIVE_BACK_AFTER_SOCKETS")
GIVE_BACK_LINGERED = constant(rest.ops.linger, "GIVE_BACK_AFTER_LINGERED")
GIVE_BACK_EVERY = constant(rest.ops.heap, "GIVE_BACK_SECONDS")
WAYPOINT = constant(resolvers.wayfinding.versioned_cache, "WAYPOINT_BYTES")
GRAPH_ELEMENT = constant(routing.matrix, "LOADED_BYTES_PER_ELEMENT")
JOINS_MIN = constant(routing.matrix, "MIN_JOINS_KEPT")
JOINS_MAX = constant(routing.matrix, "MAX_JOINS_KEPT")
JOIN_SIZE = constant(routing.matrix, "JOIN_BYTES")
KEPT_TARGET = constant(routing.matrix, "KEPT_TARGET_BYTES")
PROFILES = constant(routing.matrix, "MAX_PROFILES_KEPT")
PROFILE_ELEMENT = constant(routing.matrix, "PROFILE_BYTES_PER_ELEMENT")
KEY_LOOKUPS = default_of(KeyCache, "max_entries")
RATE_BUCKETS = default_of(RateLimiter, "max_keys")

METHODS = ", ".join(rest.middleware.SERVED_METHODS)
SERVED_METHODS = (
    f"{name_of(rest.middleware, 'SERVED_METHODS')} ({path_of(rest.middleware.__name__)})"
)
REQUIRED = name_of(parsing.imdf.read, "REQUIRED")
DOCUMENT_PLUS_BODY = f"{DOCUMENT.code} + {QUERY_BODY.code}"
PERSISTED_MODE = setting_named("FLOORGATE_PERSISTED_QUERIES")
