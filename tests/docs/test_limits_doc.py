"""docs/limits.md stays true: every setting it names is read, every constant it names
exists with the value it states, and every refusal it quotes is the service's message."""

from __future__ import annotations

import re
from pathlib import Path

import parsing.imdf.read
import parsing.limits
import resolvers.limits
import rest.graphql_http.sockets
import rest.middleware
import rest.ops.linger
import rest.ops.logs
import rest.ops.tls_gate
import storage.attributes.hub
import storage.attributes.pacing
import storage.attributes.subscriptions
import storage.imdf.venue
import storage.limits
from resolvers.errors import ERRORS, ErrorCode
from storage.settings import SETTINGS, Settings

PAGE = (Path(__file__).parents[2] / "docs" / "limits.md").read_text(encoding="utf-8")
MODULES = (
    resolvers.limits,
    storage.limits,
    parsing.limits,
    rest.ops.logs,
    rest.middleware,
    rest.ops.linger,
    rest.ops.tls_gate,
    storage.attributes.subscriptions,
    storage.attributes.hub,
    storage.attributes.pacing,
    rest.graphql_http.sockets,
    storage.imdf.venue,
    parsing.imdf.read,
)
# Refusals of a limit, with the values of the defaults, as a client reads them.
QUOTED = {
    ErrorCode.URI_TOO_LONG: {"limit": resolvers.limits.MAX_TARGET_BYTES},
    ErrorCode.HEADERS_TOO_LARGE: {"limit": Settings().max_header_bytes},
    ErrorCode.DOCUMENT_TOO_LARGE: {"limit": Settings().graphql_max_document_bytes},
    ErrorCode.PAYLOAD_TOO_LARGE: {},
    ErrorCode.RATE_LIMITED: {},
    ErrorCode.REQUEST_TIMEOUT: {},
    ErrorCode.SERVICE_UNAVAILABLE: {},
    ErrorCode.METHOD_NOT_ALLOWED: {},
    ErrorCode.BAD_REQUEST: {},
    ErrorCode.UNAUTHENTICATED: {},
    ErrorCode.PERSISTED_QUERY_HASH_MISMATCH: {},
    ErrorCode.PERSISTED_QUERY_VERSION: {},
    ErrorCode.PERSISTED_QUERY_NOT_ALLOWED: {},
    ErrorCode.TOO_MANY_SOCKETS: {"limit": Settings().max_sockets_per_key},
    ErrorCode.WRITE_TOO_LARGE: {
        "documents": "N",
        "asset": '"a"',
        "limit": f"{Settings().import_max_documents:,}",
    },
}


def test_every_setting_named_is_read():
    named = set(re.findall(r"FLOORGATE_[A-Z_]*[A-Z]", PAGE))
    assert len(named) >= 20
    unread = named - {row.variable for row in SETTINGS}
    assert unread == set(), unread


def test_every_constant_named_exists():
    named = {
        name
        for name in re.findall(r"`([A-Z][A-Z_]{3,}[A-Z])`", PAGE)
        if not name.startswith("FLOORGATE_")
    }
    found = {name for name in named if any(hasattr(module, name) for module in MODULES)}
    codes = {name for name in named if name in ErrorCode.__members__}
    assert named - found - codes == set()
    assert resolvers.limits.MAX_WRITE_BODY_BYTES == 2 * 1024 * 1024  # "2 MiB"
    assert resolvers.limits.MAX_QUERY_BODY_BYTES == 256 * 1024  # "256 KiB"
    assert resolvers.limits.MAX_TARGET_BYTES == 8 * 1024
    assert resolvers.limits.ENCODED_CACHE_BYTES == 32 * 1024 * 1024  # "32 MiB"
    assert resolvers.limits.KEEP_WHOLE_BYTES == 8 * 1024 * 1024  # "8 MiB"
    assert storage.attributes.hub.MAX_QUEUED == 1_000
    assert (rest.ops.tls_gate.MAX_WAIT_SECONDS, rest.ops.tls_gate.MAX_WAITING) == (3.0, 1_000)
    assert Settings().event_retention_seconds == 7 * 24 * 3600  # "7 days"
    assert Settings().max_subscriptions_per_key == 100
    assert storage.attributes.subscriptions.SLOT_SECONDS == 60
    assert storage.attributes.hub.CATCH_UP_BATCH == 500
    assert storage.attributes.pacing.FAN_OUT_SHARE == 0.3  # "30%"
    assert storage.attributes.pacing.FAN_OUT_WINDOW == 0.02  # "20 ms"
    assert storage.attributes.pacing.KEY_EVENTS_BURST == 2_000
    assert storage.attributes.pacing.KEY_EVENTS_PER_SECOND == 2_000
    assert Settings().max_sockets_per_key == 100
    assert (resolvers.limits.WS_MESSAGES_PER_SECOND, resolvers.limits.WS_MESSAGE_BURST) == (10, 200)
    key_pace = (resolvers.limits.WS_KEY_MESSAGES_PER_SECOND, resolvers.limits.WS_KEY_MESSAGE_BURST)
    assert key_pace == (20, 200)
    assert resolvers.limits.WS_OUTBOX_MESSAGES == 256
    assert resolvers.limits.MAX_OPERATION_ID_CHARS == 128
    assert resolvers.limits.EVENT_RESULT_BYTES == 1024 * 1024  # "1 MiB"
    assert rest.graphql_http.sockets.GIVE_BACK_AFTER_SOCKETS == 256
    assert rest.graphql_http.sockets.GIVE_BACK_SECONDS == 5
    assert rest.middleware.SERVED_METHODS == (
        "GET",
        "HEAD",
        "POST",
        "PUT",
        "PATCH",
        "DELETE",
        "OPTIONS",
    )


def test_every_refusal_quoted_is_the_services():
    for code, values in QUOTED.items():
        message = ERRORS[code].message.format(**values)
        assert f"{ERRORS[code].status} `{message}`" in PAGE, message


def test_defaults_stated_are_the_defaults():
    defaults = Settings()
    assert (
        defaults.max_header_bytes,
        defaults.read_cache_mb,
        defaults.graphql_cache_mb,
        defaults.graph_cache_mb,
    ) == (32 * 1024, 128, 16, 256)
    assert (defaults.rate_limit_per_second, defaults.rate_limit_burst) == (200, 400)
    assert defaults.graphql_max_document_bytes == 1024 * 1024
    assert (defaults.persisted_queries_max_count, defaults.persisted_queries_max_bytes) == (
        10_000,
        32 * 1024 * 1024,
    )
    assert storage.limits.PERSISTED_QUERY_CACHE_BYTES == 8 * 1024 * 1024
    assert storage.limits.PERSISTED_QUERY_RECHECK_SECONDS == 30
