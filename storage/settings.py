"""Process settings, read once from the environment (FLOORGATE_*).

They live at the bottom of the dependency chain so that every layer can read
them; nothing else reads the environment.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from parsing.limits import SvgLimits
from routing.costs import Costs
from storage.limits import IMPORT_TRANSACTION_DOCUMENTS


def _env(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(name)
    return value if value not in (None, "") else default


def _env_float(name: str, default: float) -> float:
    raw = _env(name)
    if raw is None:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise SettingsError(f"{name}: {raw!r} is not a number") from None
    if not math.isfinite(value):
        raise SettingsError(f"{name}: {raw!r} is not a finite number")
    return value


def _env_int(name: str, default: int) -> int:
    raw = _env(name)
    if raw is None:
        return default
    try:
        return int(raw)
    except ValueError:
        raise SettingsError(f"{name}: {raw!r} is not a whole number") from None


def _env_bool(name: str, default: bool) -> bool:
    raw = (_env(name) or "").lower()
    if raw in ("1", "true", "yes", "on"):
        return True
    if raw in ("0", "false", "no", "off"):
        return False
    return default


def _env_list(name: str) -> tuple[str, ...]:
    raw = _env(name) or ""
    return tuple(part.strip() for part in raw.split(",") if part.strip())


class SettingsError(ValueError):
    """A setting's value that cannot be used; `floorgate` says so in one line."""


FRAME_KEYWORDS = ("'none'", "'self'")
# A CSP host-source or scheme-source: `https:`, `https://example.com`, `*.example.org:8443`,
# `https://example.com/path/`. No quotes, separators or whitespace inside one.
_FRAME_SOURCE = re.compile(
    r"[a-z][a-z0-9+.-]*:"  # scheme-source
    r"|(?:[a-z][a-z0-9+.-]*://)?(?:\*\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*(?::(?:[0-9]+|\*))?"
    r"(?:/[a-z0-9._~%!$&()*+=:@/-]*)?",
    re.IGNORECASE,
)


def frame_ancestors(raw: str | None) -> tuple[str, ...]:
    """`FLOORGATE_VIEWER_FRAME_ANCESTORS`, checked: it is pasted into a
    Content-Security-Policy header, so a `;`, a newline or a stray quote would add
    directives of its own. Sources are separated by spaces; `'none'` stands alone."""
    if raw is None or not raw.strip():
        return ("'none'",)
    if any(char in raw for char in ';,\r\n"\\'):
        raise SettingsError(
            "FLOORGATE_VIEWER_FRAME_ANCESTORS: no ';', ',', quote or line break; "
            "separate sources with spaces"
        )
    sources = tuple(raw.split())
    for source in sources:
        if source.lower() in FRAME_KEYWORDS:
            continue
        if "'" in source or not _FRAME_SOURCE.fullmatch(source):
            raise SettingsError(
                f"FLOORGATE_VIEWER_FRAME_ANCESTORS: {source!r} is not a source "
                "('none', 'self', a scheme like https:, or a host such as "
                "https://example.com or https://*.example.org)"
            )
    lowered = tuple(
        source.lower() if source.lower() in FRAME_KEYWORDS else source for source in sources
    )
    if "'none'" in lowered and len(lowered) > 1:
        raise SettingsError(
            "FLOORGATE_VIEWER_FRAME_ANCESTORS: 'none' cannot be combined with other sources"
        )
    return lowered


# Settings that have no meaning at 0 or below: each is checked when Settings are made.
POSITIVE = (
    "request_timeout_seconds",
    "header_timeout_seconds",
    "keepalive_timeout_seconds",
    "body_timeout_seconds",
    "send_timeout_seconds",
    "db_timeout_ms",
    "max_body_bytes",
    "max_connections",
    "graphql_max_cost_without_key",
    "graphql_max_document_bytes",
    "graphql_cache_mb",
    "max_header_bytes",
)
MAX_PORT = 65_535


@dataclass(frozen=True)
class Settings:
    """Everything a process may tune. Build with :meth:`from_env`."""

    data_dir: Path = Path(".floorgate")
    mongodb_uri: str | None = None
    database_name: str = "floorgate"
    public_url: str = "https://localhost:8443"
    cdn_url: str | None = None
    host: str = "127.0.0.1"
    port: int = 8443
    tls_cert: Path | None = None
    tls_key: Path | None = None
    behind_proxy: bool = False
    proxy_addresses: tuple[str, ...] = ("127.0.0.1",)
    max_body_bytes: int = 16 * 1024 * 1024
    max_header_bytes: int = 32 * 1024  # request line and headers (431/414; rest/ops/server.py)
    db_timeout_ms: int = 2000
    retry_after_seconds: int = 5
    graphql_max_depth: int = 12
    graphql_max_aliases: int = 30
    graphql_max_tokens: int = 5000
    graphql_max_fragment_spreads: int = 500
    graphql_max_cost: int = 250_000
    # A request without a key can only introspect: GraphiQL's schema query costs about
    # 13,000 (docs/graphql.md, "Cost and limits").
    graphql_max_cost_without_key: int = 20_000
    graphql_max_document_bytes: int = 1024 * 1024  # a /graphql document (413 past it)
    graphql_cache_mb: int = 16  # parsed documents, their validation and cost, per process
    # Per key and process; 0 turns every rate limit off. Above the 150 requests/s of the
    # batch clients seen in practice (docs/api.md, "Rate limits").
    rate_limit_per_second: float = 200.0
    rate_limit_burst: int = 400
    rate_limit_share: int = 1  # obsolete: accepted and ignored (every limit is shared, in MongoDB)
    unauthenticated_rate_per_second: float = 2.0  # per client address, no or invalid key
    unauthenticated_burst: int = 50
    request_timeout_seconds: float = 20.0  # time budget of one request, until it answers
    header_timeout_seconds: float = 15.0  # TLS handshake plus request head
    keepalive_timeout_seconds: float = 5.0  # an idle keep-alive connection
    body_timeout_seconds: float = 15.0  # longest pause while a request body arrives
    send_timeout_seconds: float = 30.0  # longest pause while the client reads an answer
    max_connections: int = 1000  # concurrent connections per worker
    cors_origins: tuple[str, ...] = ()  # browser origins allowed to call; empty: any ("*")
    hsts_seconds: int = 31_536_000  # Strict-Transport-Security max-age; 0 leaves it out
    svg_limits: SvgLimits = field(default_factory=SvgLimits)
    routing_costs: Costs = field(default_factory=Costs)
    graph_cache_size: int = 32  # loaded walk graphs kept per process
    imdf_snap_metres: float = 0.5  # IMDF openings this near a unit boundary join it (docs/imdf.md)
    import_max_documents: int = IMPORT_TRANSACTION_DOCUMENTS  # per transaction of an import
    event_loop: str = "auto"  # uvloop, asyncio; auto: uvloop where installed (rest/ops/server.py)
    http_parser: str = "auto"  # httptools, h11; auto: httptools where installed
    access_log: bool = True  # one structured line per request (rest/middleware.py)
    metrics: bool = True  # /metrics: loopback without a key, elsewhere service.admin
    log_format: str = "text"  # "json": one JSON object per line (rest/ops/logs.py JsonLines)
    tracing: bool = False  # OpenTelemetry spans, when installed (rest/ops/tracing.py)
    read_cache_mb: int = 128  # byte budget of the read cache per process; 0 turns it off
    # Who may frame the map viewer (CSP frame-ancestors sources; rest/pages/viewer.py).
    viewer_frame_ancestors: tuple[str, ...] = ("'none'",)

    def __post_init__(self) -> None:
        """Settings built in code (tests, tools) are checked like the environment's."""
        frame_ancestors(" ".join(self.viewer_frame_ancestors))
        for name in POSITIVE:
            value = getattr(self, name)
            if not value > 0:  # a timeout of 0 would end every connection at once
                raise SettingsError(f"FLOORGATE_{name.upper()}: must be more than 0, not {value}")
        if not 0 <= self.port <= MAX_PORT:
            raise SettingsError(f"FLOORGATE_PORT: {self.port} is not a TCP port (0 to {MAX_PORT})")

    @property
    def files_url(self) -> str:
        """`{cdn_url}`: where GridFS files are served; defaults to `{public_url}/files`."""
        return (self.cdn_url or f"{self.public_url.rstrip('/')}/files").rstrip("/")

    @classmethod
    def from_env(cls, **overrides: object) -> Settings:
        values: dict[str, object] = {
            "data_dir": Path(_env("FLOORGATE_DATA_DIR", ".floorgate") or ".floorgate"),
            "mongodb_uri": _env("FLOORGATE_MONGODB_URI"),
            "database_name": _env("FLOORGATE_DATABASE", "floorgate"),
            "public_url": (_env("FLOORGATE_PUBLIC_URL") or "https://localhost:8443").rstrip("/"),
            "cdn_url": _env("FLOORGATE_CDN_URL"),
            "host": _env("FLOORGATE_HOST", "127.0.0.1"),
            "port": _env_int("FLOORGATE_PORT", cls.port),
            "tls_cert": Path(p) if (p := _env("FLOORGATE_TLS_CERT")) else None,
            "tls_key": Path(p) if (p := _env("FLOORGATE_TLS_KEY")) else None,
            "behind_proxy": (_env("FLOORGATE_BEHIND_PROXY", "") or "").lower()
            in ("1", "true", "yes"),
            "proxy_addresses": _env_list("FLOORGATE_PROXY_ADDRESSES") or ("127.0.0.1",),
            "max_body_bytes": _env_int("FLOORGATE_MAX_BODY_BYTES", cls.max_body_bytes),
            "max_header_bytes": _env_int("FLOORGATE_MAX_HEADER_BYTES", cls.max_header_bytes),
            "db_timeout_ms": _env_int("FLOORGATE_DB_TIMEOUT_MS", cls.db_timeout_ms),
            "rate_limit_per_second": _env_float(
                "FLOORGATE_RATE_LIMIT_PER_SECOND", cls.rate_limit_per_second
            ),
            "rate_limit_burst": _env_int("FLOORGATE_RATE_LIMIT_BURST", cls.rate_limit_burst),
            "rate_limit_share": max(
                1, _env_int("FLOORGATE_RATE_LIMIT_SHARE", cls.rate_limit_share)
            ),
            "unauthenticated_rate_per_second": _env_float(
                "FLOORGATE_UNAUTHENTICATED_RATE_PER_SECOND", cls.unauthenticated_rate_per_second
            ),
            "unauthenticated_burst": _env_int(
                "FLOORGATE_UNAUTHENTICATED_BURST", cls.unauthenticated_burst
            ),
            "graphql_max_cost": _env_int("FLOORGATE_GRAPHQL_MAX_COST", cls.graphql_max_cost),
            "graphql_max_cost_without_key": _env_int(
                "FLOORGATE_GRAPHQL_MAX_COST_WITHOUT_KEY", cls.graphql_max_cost_without_key
            ),
            "graphql_max_document_bytes": _env_int(
                "FLOORGATE_GRAPHQL_MAX_DOCUMENT_BYTES", cls.graphql_max_document_bytes
            ),
            "graphql_cache_mb": _env_int("FLOORGATE_GRAPHQL_CACHE_MB", cls.graphql_cache_mb),
            "graphql_max_depth": _env_int("FLOORGATE_GRAPHQL_MAX_DEPTH", cls.graphql_max_depth),
            "graphql_max_aliases": _env_int(
                "FLOORGATE_GRAPHQL_MAX_ALIASES", cls.graphql_max_aliases
            ),
            "graphql_max_tokens": _env_int("FLOORGATE_GRAPHQL_MAX_TOKENS", cls.graphql_max_tokens),
            "graphql_max_fragment_spreads": _env_int(
                "FLOORGATE_GRAPHQL_MAX_FRAGMENT_SPREADS", cls.graphql_max_fragment_spreads
            ),
            "retry_after_seconds": _env_int(
                "FLOORGATE_RETRY_AFTER_SECONDS", cls.retry_after_seconds
            ),
            "request_timeout_seconds": _env_float(
                "FLOORGATE_REQUEST_TIMEOUT_SECONDS", cls.request_timeout_seconds
            ),
            "header_timeout_seconds": _env_float(
                "FLOORGATE_HEADER_TIMEOUT_SECONDS", cls.header_timeout_seconds
            ),
            "keepalive_timeout_seconds": _env_float(
                "FLOORGATE_KEEPALIVE_TIMEOUT_SECONDS", cls.keepalive_timeout_seconds
            ),
            "body_timeout_seconds": _env_float(
                "FLOORGATE_BODY_TIMEOUT_SECONDS", cls.body_timeout_seconds
            ),
            "send_timeout_seconds": _env_float(
                "FLOORGATE_SEND_TIMEOUT_SECONDS", cls.send_timeout_seconds
            ),
            "max_connections": _env_int("FLOORGATE_MAX_CONNECTIONS", cls.max_connections),
            "cors_origins": tuple(
                origin.rstrip("/")
                for origin in _env_list("FLOORGATE_CORS_ORIGINS")
                if origin != "*"
            ),
            "hsts_seconds": _env_int("FLOORGATE_HSTS_SECONDS", cls.hsts_seconds),
            "svg_limits": SvgLimits(
                max_bytes=_env_int("FLOORGATE_SVG_MAX_BYTES", SvgLimits.max_bytes),
                max_elements=_env_int("FLOORGATE_SVG_MAX_ELEMENTS", SvgLimits.max_elements),
                max_depth=_env_int("FLOORGATE_SVG_MAX_DEPTH", SvgLimits.max_depth),
                max_points=_env_int("FLOORGATE_SVG_MAX_POINTS", SvgLimits.max_points),
            ),
            "routing_costs": Costs(
                foot_speed=_env_float("FLOORGATE_FOOT_SPEED", Costs.foot_speed),
                wheelchair_speed=_env_float("FLOORGATE_WHEELCHAIR_SPEED", Costs.wheelchair_speed),
                stairs_seconds_per_step=_env_float(
                    "FLOORGATE_STAIRS_SECONDS_PER_STEP", Costs.stairs_seconds_per_step
                ),
                elevator_wait_seconds=_env_float(
                    "FLOORGATE_ELEVATOR_WAIT_SECONDS", Costs.elevator_wait_seconds
                ),
                elevator_seconds_per_step=_env_float(
                    "FLOORGATE_ELEVATOR_SECONDS_PER_STEP", Costs.elevator_seconds_per_step
                ),
                sloped_length_factor=_env_float(
                    "FLOORGATE_SLOPED_LENGTH_FACTOR", Costs.sloped_length_factor
                ),
                floor_height_ft=_env_float("FLOORGATE_FLOOR_HEIGHT_FT", Costs.floor_height_ft),
            ),
            "graph_cache_size": _env_int("FLOORGATE_GRAPH_CACHE_SIZE", 32),
            "imdf_snap_metres": max(
                0.0, _env_float("FLOORGATE_IMDF_SNAP_METRES", cls.imdf_snap_metres)
            ),
            "import_max_documents": _env_int(
                "FLOORGATE_IMPORT_MAX_DOCUMENTS", IMPORT_TRANSACTION_DOCUMENTS
            ),
            "event_loop": (_env("FLOORGATE_LOOP", "auto") or "auto").lower(),
            "http_parser": (_env("FLOORGATE_HTTP", "auto") or "auto").lower(),
            "access_log": _env_bool("FLOORGATE_ACCESS_LOG", cls.access_log),
            "metrics": _env_bool("FLOORGATE_METRICS", cls.metrics),
            "tracing": _env_bool("FLOORGATE_TRACING", cls.tracing),
            "log_format": "json"
            if (_env("FLOORGATE_LOG_FORMAT") or "").lower() == "json"
            else cls.log_format,
            "read_cache_mb": max(0, _env_int("FLOORGATE_READ_CACHE_MB", cls.read_cache_mb)),
            "viewer_frame_ancestors": frame_ancestors(_env("FLOORGATE_VIEWER_FRAME_ANCESTORS")),
        }
        values.update(overrides)
        return cls(**values)  # type: ignore[arg-type]
