"""Process settings, read once from the environment (FLOORGATE_*).

They live in `storage/`, the lowest floor that reads them: `routing/` and `parsing/` get
the parts they need as plain values (`Costs`, `SvgLimits`), so every layer sees one set of
settings and nothing else reads the environment.

`Settings` declares them once, statically: each attribute with its type and its row
(variable, kind, default, help, checks), so that an editor and a type checker follow every
read. `SETTINGS`, the table of rows, is derived from it, and from the table
`Settings.from_env`, its checks, the environment part of `floorgate serve --help` and
docs/configuration.md (`storage/settings_doc.py`): a new setting is one attribute.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from parsing.limits import SvgLimits
from routing.costs import Costs
from routing.vocabulary import SUPPORTED
from storage.limits import (
    IMPORT_TRANSACTION_DOCUMENTS,
    PERSISTED_QUERIES_MAX_BYTES,
    PERSISTED_QUERIES_MAX_COUNT,
)
from storage.settings_fields import (
    FRAME_CHECK,
    FRAME_SOURCES,
    LANGUAGE,
    LIST,
    LISTEN_PORT,
    LOG_FORMAT,
    MORE_THAN_ZERO,
    NUMBER,
    ORIGINS,
    PATH,
    PERSISTED_MODE,
    PROXIES,
    SWITCH,
    TCP_PORT,
    TEXT,
    URL,
    WHOLE,
    WORD,
    Check,
    Setting,
    SettingsError,
    check_values,
    composite,
    frame_ancestors,
    read_environment,
    rows_of,
    setting,
    written_environment,
)

__all__ = ["SETTINGS", "Setting", "Settings", "SettingsError", "frame_ancestors"]


def _spoken(variable: str, value: str) -> None:
    if value not in SUPPORTED:
        raise SettingsError(f"{variable}: {value!r} is not one of {', '.join(SUPPORTED)}")


# The languages answers are written in: those of the directions (routing/vocabulary.py).
SPOKEN_LANGUAGE = Check(f"one of {', '.join(SUPPORTED)}", _spoken)


@dataclass(frozen=True)
class Settings:
    """Everything a process may tune, one typed attribute each, declared with its row of
    the table (`setting`); `svg_limits` and `routing_costs` are made of several variables
    (`composite`). Build with `from_env`; made in code, the values are checked alike."""

    # -- where it runs and what it serves ------------------------------------------------
    data_dir: Path = setting(
        "FLOORGATE_DATA_DIR",
        PATH,
        Path(".floorgate"),
        "Data folder: the embedded database, the local CA and certificate, the demo key.",
        option="--data-dir",
    )
    mongodb_uri: str | None = setting(
        "FLOORGATE_MONGODB_URI",
        TEXT,
        None,
        "MongoDB connection string; unset, the embedded server runs as a child process.",
        "The embedded `secantusd-py` listens on a free loopback port; it is for development "
        "and tests only (docs/deploy.md).",
    )
    database_name: str = setting("FLOORGATE_DATABASE", TEXT, "floorgate", "Database name.")
    public_url: str = setting(
        "FLOORGATE_PUBLIC_URL",
        URL,
        "https://localhost:8443",
        "Public base URL: next_url/prev_url and file addresses are built on it.",
        "Unset, `floorgate serve` and `floorgate demo` use `https://localhost:` and their port.",
        option="--public-url",
    )
    cdn_url: str | None = setting(
        "FLOORGATE_CDN_URL",
        TEXT,
        None,
        "Base address of stored files ({cdn_url}); unset, {public_url}/files.",
    )
    host: str = setting(
        "FLOORGATE_HOST",
        TEXT,
        "127.0.0.1",
        "Address floorgate serve listens on.",
        option="--host",
    )
    port: int = setting(
        "FLOORGATE_PORT",
        WHOLE,
        8443,
        "Port floorgate serve and floorgate demo listen on.",
        option="--port",
        check=TCP_PORT,
    )
    tls_cert: Path | None = setting(
        "FLOORGATE_TLS_CERT",
        PATH,
        None,
        "PEM certificate chain; needed unless TLS ends at a proxy.",
        "HTTP is never served: without a certificate and key, `floorgate serve` needs "
        "`--behind-proxy`.",
        option="--cert",
    )
    tls_key: Path | None = setting(
        "FLOORGATE_TLS_KEY",
        PATH,
        None,
        "PEM private key of the certificate; needed unless TLS ends at a proxy.",
        option="--key",
    )
    behind_proxy: bool = setting(
        "FLOORGATE_BEHIND_PROXY",
        SWITCH,
        False,
        "TLS ends at a trusted proxy that sends X-Forwarded-Proto.",
        "A request that did not arrive over HTTPS gets 403.",
        option="--behind-proxy",
    )
    proxy_addresses: tuple[str, ...] = setting(
        "FLOORGATE_PROXY_ADDRESSES",
        LIST,
        ("127.0.0.1",),
        "Proxies whose X-Forwarded-Proto and X-Forwarded-For are trusted: addresses, "
        "networks (`10.0.0.0/8`), or `*`.",
        "Only with `--behind-proxy`. `*` trusts any peer, so any client could set its own "
        "address and scheme: only on a private network that nothing else reaches (docs/deploy.md, "
        '"Proxies by network"). Anything but an IP address, a network or `*` alone is refused '
        "at start.",
        option="--proxy-address",
        check=PROXIES,
    )
    event_loop: str = setting(
        "FLOORGATE_LOOP",
        WORD,
        "auto",
        "Event loop of floorgate serve: uvloop, asyncio, or auto (uvloop where installed).",
        "uvloop is a dependency, but there is none on Windows. Every timeout and limit "
        "holds on both.",
    )
    http_parser: str = setting(
        "FLOORGATE_HTTP",
        WORD,
        "auto",
        "HTTP parser of floorgate serve: httptools, h11, or auto (httptools where installed).",
    )
    # -- connections, requests and their time ----------------------------------------------
    max_body_bytes: int = setting(
        "FLOORGATE_MAX_BODY_BYTES",
        WHOLE,
        16 * 1024 * 1024,
        "Request body limit of any route (413 above it, counted as the body streams).",
        check=MORE_THAN_ZERO,
    )
    max_header_bytes: int = setting(
        "FLOORGATE_MAX_HEADER_BYTES",
        WHOLE,
        32 * 1024,
        "Request line and headers (431 above it; a request target over 8 KiB is 414).",
        "Checked by the HTTP protocol of `rest/ops/server.py`.",
        check=MORE_THAN_ZERO,
    )
    max_connections: int = setting(
        "FLOORGATE_MAX_CONNECTIONS",
        WHOLE,
        1000,
        "Connections and running requests per worker (503 above it).",
        "Give the process a file-descriptor limit well above it.",
        check=MORE_THAN_ZERO,
    )
    new_connections_per_second: float = setting(
        "FLOORGATE_NEW_CONNECTIONS_PER_SECOND",
        NUMBER,
        20.0,
        "New TLS connections per second from one client address, per worker, after its "
        "burst; 0: no pace.",
        "A connection past its address's pace waits for its turn before its TLS handshake "
        "(3 s at most, then it is closed): a client that keeps its connections alive never "
        "meets it (docs/limits.md).",
    )
    new_connections_burst: int = setting(
        "FLOORGATE_NEW_CONNECTIONS_BURST",
        WHOLE,
        100,
        "New TLS connections one client address may open at once, per worker.",
        check=MORE_THAN_ZERO,
    )
    request_timeout_seconds: float = setting(
        "FLOORGATE_REQUEST_TIMEOUT_SECONDS",
        NUMBER,
        20.0,
        "Time budget of a request until its answer starts (then 503; the work is cancelled).",
        "The 503 has `Retry-After`.",
        check=MORE_THAN_ZERO,
    )
    header_timeout_seconds: float = setting(
        "FLOORGATE_HEADER_TIMEOUT_SECONDS",
        NUMBER,
        15.0,
        "TLS handshake plus request head; a connection that takes longer is closed.",
        check=MORE_THAN_ZERO,
    )
    keepalive_timeout_seconds: float = setting(
        "FLOORGATE_KEEPALIVE_TIMEOUT_SECONDS",
        NUMBER,
        5.0,
        "An idle keep-alive connection is closed after this.",
        check=MORE_THAN_ZERO,
    )
    body_timeout_seconds: float = setting(
        "FLOORGATE_BODY_TIMEOUT_SECONDS",
        NUMBER,
        15.0,
        "Longest pause while a request body arrives (then 408, and the connection closes).",
        check=MORE_THAN_ZERO,
    )
    send_timeout_seconds: float = setting(
        "FLOORGATE_SEND_TIMEOUT_SECONDS",
        NUMBER,
        30.0,
        "Longest pause while the client reads an answer; then the connection is dropped.",
        'docs/api.md, "Connections".',
        check=MORE_THAN_ZERO,
    )
    db_timeout_ms: int = setting(
        "FLOORGATE_DB_TIMEOUT_MS",
        WHOLE,
        2000,
        "How long a request waits for the database before answering 503.",
        check=MORE_THAN_ZERO,
    )
    retry_after_seconds: int = setting(
        "FLOORGATE_RETRY_AFTER_SECONDS", WHOLE, 5, "Retry-After of a 503."
    )
    drain_seconds: float = setting(
        "FLOORGATE_DRAIN_SECONDS",
        NUMBER,
        5.0,
        "After SIGTERM, `/readyz` answers 503 this long while everything else is served; "
        "then the listener closes and live streams end (0: at once, as SIGINT does).",
        'docs/deploy.md, "Readiness and drain".',
    )
    # -- who asks, and how often -----------------------------------------------------------
    rate_limit_per_second: float = setting(
        "FLOORGATE_RATE_LIMIT_PER_SECOND",
        NUMBER,
        200.0,
        "Requests per second of one key, shared by every worker and instance; 0: no limits.",
        "A token bucket per key, in MongoDB; an operation spends one unit per 10,000 of its "
        "cost (at least one); answers show it in `RateLimit-*` headers (docs/api.md, "
        '"Rate limits"). The default is above the 150 requests/s of the batch clients seen '
        "in practice.",
    )
    rate_limit_burst: int = setting(
        "FLOORGATE_RATE_LIMIT_BURST",
        WHOLE,
        400,
        "Burst of one key: what its bucket holds.",
    )
    rate_limit_share: int = setting(
        "FLOORGATE_RATE_LIMIT_SHARE",
        WHOLE,
        1,
        "Obsolete: accepted and ignored.",
        "Every rate limit is one budget per key shared by every worker and instance on the "
        "database (docs/deploy.md).",
        at_least=1,
    )
    unauthenticated_rate_per_second: float = setting(
        "FLOORGATE_UNAUTHENTICATED_RATE_PER_SECOND",
        NUMBER,
        2.0,
        "Requests per second without a valid key, per client address (429 above it).",
        "A valid key from that address is never refused by it.",
    )
    unauthenticated_burst: int = setting(
        "FLOORGATE_UNAUTHENTICATED_BURST",
        WHOLE,
        50,
        "Burst of requests without a valid key, per client address.",
    )
    # -- live changes ----------------------------------------------------------------------
    max_subscriptions_per_key: int = setting(
        "FLOORGATE_MAX_SUBSCRIPTIONS_PER_KEY",
        WHOLE,
        100,
        "Open subscriptions of one key, over every worker and machine (GraphQL over "
        "WebSocket and REST event streams together; 429 above it).",
        "Counted in the database (`storage/attributes/subscriptions.py`).",
        check=MORE_THAN_ZERO,
    )
    max_sockets_per_key: int = setting(
        "FLOORGATE_MAX_SOCKETS_PER_KEY",
        WHOLE,
        100,
        "Open WebSockets of one key at /graphql, over every worker and machine (past it a "
        "socket is closed with 4429 instead of its `connection_ack`).",
        "Counted in the database with the subscriptions (`storage/attributes/subscriptions.py`).",
        check=MORE_THAN_ZERO,
    )
    event_retention_seconds: float = setting(
        "FLOORGATE_EVENT_RETENTION_SECONDS",
        NUMBER,
        7 * 24 * 3600.0,
        "How long the log of assignment changes keeps an event for clients that resume "
        "(at least an hour; an older cursor is 410).",
        "Applies to events written after a change of it.",
        at_least=3600,
    )
    # -- GraphQL operations ----------------------------------------------------------------
    graphql_max_cost: int = setting(
        "FLOORGATE_GRAPHQL_MAX_COST",
        WHOLE,
        250_000,
        "Cost limit of one GraphQL operation with a key (COST_LIMIT past it).",
        'docs/graphql.md, "Cost and limits".',
    )
    graphql_max_cost_without_key: int = setting(
        "FLOORGATE_GRAPHQL_MAX_COST_WITHOUT_KEY",
        WHOLE,
        25_000,
        "Cost limit of a GraphQL operation without a key (only introspection can run).",
        "Introspection costs what it walks: GraphiQL's schema query costs about 17,000.",
        check=MORE_THAN_ZERO,
    )
    graphql_max_document_bytes: int = setting(
        "FLOORGATE_GRAPHQL_MAX_DOCUMENT_BYTES",
        WHOLE,
        1024 * 1024,
        "Largest GraphQL document, and GET /graphql query string (413 above it).",
        check=MORE_THAN_ZERO,
    )
    graphql_max_tokens: int = setting(
        "FLOORGATE_GRAPHQL_MAX_TOKENS",
        WHOLE,
        5000,
        "Tokens of one GraphQL document; past them it is not parsed further.",
    )
    graphql_max_depth: int = setting(
        "FLOORGATE_GRAPHQL_MAX_DEPTH",
        WHOLE,
        12,
        "Depth of one GraphQL operation.",
    )
    graphql_max_aliases: int = setting(
        "FLOORGATE_GRAPHQL_MAX_ALIASES",
        WHOLE,
        30,
        "Aliases in one GraphQL document.",
    )
    graphql_max_fragment_spreads: int = setting(
        "FLOORGATE_GRAPHQL_MAX_FRAGMENT_SPREADS",
        WHOLE,
        500,
        "Fragment spreads in one GraphQL document.",
    )
    graphql_cache_mb: int = setting(
        "FLOORGATE_GRAPHQL_CACHE_MB",
        WHOLE,
        16,
        "MiB of parsed GraphQL documents with their validations and costs, per process.",
        check=MORE_THAN_ZERO,
    )
    persisted_queries: str = setting(
        "FLOORGATE_PERSISTED_QUERIES",
        PERSISTED_MODE,
        "auto",
        "Persisted queries: auto (Apollo's APQ), safelist (only listed documents run), off.",
        'docs/graphql.md, "Persisted queries"; the list: `floorgate persisted-queries`.',
    )
    persisted_queries_max_count: int = setting(
        "FLOORGATE_PERSISTED_QUERIES_MAX_COUNT",
        WHOLE,
        PERSISTED_QUERIES_MAX_COUNT,
        "Persisted documents stored, over every process (least recently used evicted).",
        check=MORE_THAN_ZERO,
    )
    persisted_queries_max_bytes: int = setting(
        "FLOORGATE_PERSISTED_QUERIES_MAX_BYTES",
        WHOLE,
        PERSISTED_QUERIES_MAX_BYTES,
        "Bytes of persisted documents stored, hashes included, over every process.",
        check=MORE_THAN_ZERO,
    )
    # -- browsers --------------------------------------------------------------------------
    cors_origins: tuple[str, ...] = setting(
        "FLOORGATE_CORS_ORIGINS",
        ORIGINS,
        (),
        "Browser origins allowed to call /v1, /graphql and /files; unset: any origin.",
        "Never with credentials.",
    )
    viewer_frame_ancestors: tuple[str, ...] = setting(
        "FLOORGATE_VIEWER_FRAME_ANCESTORS",
        FRAME_SOURCES,
        ("'none'",),
        "Sites that may frame the map viewer (its CSP frame-ancestors).",
        "For example `'self'`, or `https://example.com https://*.example.org`; anything "
        "that would add to the header is refused at start (docs/viewer.md).",
        check=FRAME_CHECK,
    )
    hsts_seconds: int = setting(
        "FLOORGATE_HSTS_SECONDS",
        WHOLE,
        31_536_000,
        "Strict-Transport-Security max-age of every HTTPS answer; 0 leaves it out.",
    )
    # -- what a process tells ----------------------------------------------------------------
    access_log: bool = setting(
        "FLOORGATE_ACCESS_LOG",
        SWITCH,
        True,
        "One line per request on standard output; off writes none.",
        "`method= path= status= ms= client= id=` (`id` is the answer's `X-Request-Id`; API "
        "keys redacted; `cut=true` at the end when the connection ended before the answer "
        'was handed over; docs/api.md, "What is logged").',
    )
    log_format: str = setting(
        "FLOORGATE_LOG_FORMAT",
        LOG_FORMAT,
        "text",
        "json: every log line one JSON object, access lines with route template and key id.",
        'docs/api.md, "What is logged".',
    )
    metrics: bool = setting(
        "FLOORGATE_METRICS",
        SWITCH,
        True,
        "/metrics: on loopback without a key, elsewhere with service.metrics or "
        "service.admin; off removes it.",
        'Prometheus\' format (docs/api.md, "Metrics").',
    )
    metrics_host: str = setting(
        "FLOORGATE_METRICS_HOST",
        TEXT,
        "127.0.0.1",
        "Address the metrics port listens on (FLOORGATE_METRICS_PORT).",
        "`0.0.0.0` or a pod's address lets a cluster's Prometheus scrape it: anyone who "
        "reaches it reads the figures.",
    )
    metrics_port: int | None = setting(
        "FLOORGATE_METRICS_PORT",
        WHOLE,
        None,
        "Port of a plain-HTTP listener of /metrics alone, without TLS or key; unset: none.",
        "The figures of every worker, as /metrics gives them (each worker's at most 1 s "
        'old); docs/deploy.md, "Metrics in a cluster".',
        check=LISTEN_PORT,
    )
    tracing: bool = setting(
        "FLOORGATE_TRACING",
        SWITCH,
        False,
        "OpenTelemetry server spans, when opentelemetry-instrumentation-asgi is installed.",
        'docs/api.md, "Tracing".',
    )
    # -- caches of a process ---------------------------------------------------------------
    read_cache_mb: int = setting(
        "FLOORGATE_READ_CACHE_MB",
        WHOLE,
        128,
        "MiB of the read cache of each process; 0 turns it off.",
        'docs/api.md, "Read cache".',
        at_least=0,
    )
    graph_cache_mb: int = setting(
        "FLOORGATE_GRAPH_CACHE_MB",
        WHOLE,
        256,
        "MiB of walk graphs kept loaded per process; their maps' waypoints and landmarks "
        "have an eighth of it each.",
        'docs/limits.md, "Memory".',
        at_least=1,
    )
    search_cache_mb: int = setting(
        "FLOORGATE_SEARCH_CACHE_MB",
        WHOLE,
        64,
        "MiB of search indexes kept per process (one per asset searched).",
        'docs/api.md, "Search"; docs/limits.md, "Memory".',
        at_least=1,
    )
    # -- imports and drawings --------------------------------------------------------------
    import_max_documents: int = setting(
        "FLOORGATE_IMPORT_MAX_DOCUMENTS",
        WHOLE,
        IMPORT_TRANSACTION_DOCUMENTS,
        "Documents one import writes in one transaction.",
        "A larger import is committed per asset, and an asset larger than this is staged and "
        "switched in, in transactions of at most 1,000 writes, behind a switch that readers "
        'wait for (docs/dataset.md, "All or nothing").',
    )
    default_language: str = setting(
        "FLOORGATE_DEFAULT_LANGUAGE",
        LANGUAGE,
        "en",
        "The language of answers that ask for none, or for none floorgate speaks.",
        'One of the directions\' languages (docs/api.md, "Languages").',
        check=SPOKEN_LANGUAGE,
    )
    imdf_snap_metres: float = setting(
        "FLOORGATE_IMDF_SNAP_METRES",
        NUMBER,
        0.5,
        "import-imdf: how far an opening may lie from a unit boundary and still join it.",
        "docs/imdf.md.",
        at_least=0.0,
    )
    svg_limits: SvgLimits = composite(
        SvgLimits,
        Setting(
            "max_bytes",
            "FLOORGATE_SVG_MAX_BYTES",
            WHOLE,
            SvgLimits.max_bytes,
            "Bytes of one SVG drawing (an E10 body: 413 above it).",
            "The defaults of the SVG limits are in `parsing/limits.py`.",
        ),
        Setting(
            "max_elements",
            "FLOORGATE_SVG_MAX_ELEMENTS",
            WHOLE,
            SvgLimits.max_elements,
            "Elements of one SVG drawing (422 above it, counted while read).",
        ),
        Setting(
            "max_depth",
            "FLOORGATE_SVG_MAX_DEPTH",
            WHOLE,
            SvgLimits.max_depth,
            "Nesting depth of the elements of one SVG drawing (422 above it).",
        ),
        Setting(
            "max_points",
            "FLOORGATE_SVG_MAX_POINTS",
            WHOLE,
            SvgLimits.max_points,
            "Points the parser computes for one SVG drawing (422 above it).",
            "docs/svg-parsing.md.",
        ),
    )
    # -- the cost of a walk (E18 and directions; routing/costs.py) --------------------------
    routing_costs: Costs = composite(
        Costs,
        Setting(
            "foot_speed",
            "FLOORGATE_FOOT_SPEED",
            NUMBER,
            Costs.foot_speed,
            "Walking speed on foot, in ft/s.",
        ),
        Setting(
            "wheelchair_speed",
            "FLOORGATE_WHEELCHAIR_SPEED",
            NUMBER,
            Costs.wheelchair_speed,
            "Walking speed by wheelchair, in ft/s.",
        ),
        Setting(
            "stairs_seconds_per_step",
            "FLOORGATE_STAIRS_SECONDS_PER_STEP",
            NUMBER,
            Costs.stairs_seconds_per_step,
            "Seconds of stairs per floor step.",
        ),
        Setting(
            "elevator_wait_seconds",
            "FLOORGATE_ELEVATOR_WAIT_SECONDS",
            NUMBER,
            Costs.elevator_wait_seconds,
            "Seconds of waiting for an elevator, once per ride.",
        ),
        Setting(
            "elevator_seconds_per_step",
            "FLOORGATE_ELEVATOR_SECONDS_PER_STEP",
            NUMBER,
            Costs.elevator_seconds_per_step,
            "Seconds of an elevator ride per floor step.",
        ),
        Setting(
            "sloped_length_factor",
            "FLOORGATE_SLOPED_LENGTH_FACTOR",
            NUMBER,
            Costs.sloped_length_factor,
            "Length of stairs, ramps and escalators per floor step, times the floor height.",
        ),
        Setting(
            "floor_height_ft",
            "FLOORGATE_FLOOR_HEIGHT_FT",
            NUMBER,
            Costs.floor_height_ft,
            "Floor height, in ft, of maps that give none.",
        ),
    )

    def __post_init__(self) -> None:
        check_values(self, SETTINGS)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: object) -> Settings:
        """Every row read from the environment (`os.environ` unless given), then
        `overrides` (command-line options) on top."""
        values = read_environment(cls, os.environ if environ is None else environ)
        return cls(**(values | overrides))

    def environment(self) -> dict[str, str]:
        """These settings as FLOORGATE_* variables, every row: what `from_env` reads back
        to them. `floorgate serve` hands its settings (command-line options included) to
        its worker processes so, which read their own from the environment."""
        return written_environment(self, SETTINGS)

    @property
    def files_url(self) -> str:
        """`{cdn_url}`: where GridFS files are served; defaults to `{public_url}/files`."""
        return (self.cdn_url or f"{self.public_url.rstrip('/')}/files").rstrip("/")


SETTINGS: tuple[Setting, ...] = rows_of(Settings)
