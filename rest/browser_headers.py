"""Headers for browsers: CORS on the API's paths, HSTS and nosniff on every answer.

Keys travel in a header, never in cookies, so a page of any origin may call the API
with its own key: the default is `Access-Control-Allow-Origin: *` without credentials,
and `FLOORGATE_CORS_ORIGINS` narrows it to a list. Preflights are answered here, before
routing, access checks and rate limits: they carry no key and change nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from starlette.datastructures import Headers
from starlette.types import Scope

from storage.settings import Settings

CORS_PREFIXES = ("/v1", "/graphql", "/files")
ALLOWED_METHODS = "GET, HEAD, POST, PUT, OPTIONS"
ALLOWED_HEADERS = "API-Key, Experimental-Flags, Content-Type, If-None-Match"
EXPOSED_HEADERS = (
    "ETag, Retry-After, X-Request-Id, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset"
)
PREFLIGHT_MAX_AGE = 86400  # seconds a browser may reuse a preflight answer

RawHeaders = list[tuple[bytes, bytes]]


def _is_cors_path(path: str) -> bool:
    return any(path == prefix or path.startswith(prefix + "/") for prefix in CORS_PREFIXES)


class BrowserHeaders:
    def __init__(self, settings: Settings) -> None:
        self.origins = frozenset(settings.cors_origins)
        self.always: RawHeaders = [(b"x-content-type-options", b"nosniff")]
        self.hsts: RawHeaders = (
            [(b"strict-transport-security", f"max-age={settings.hsts_seconds}".encode())]
            if settings.hsts_seconds > 0
            else []
        )

    def allow_origin(self, origin: str | None) -> RawHeaders:
        """`Access-Control-Allow-Origin` for this origin, or nothing when it is not allowed."""
        if not self.origins:
            return [(b"access-control-allow-origin", b"*")]
        if origin is not None and origin in self.origins:
            return [(b"access-control-allow-origin", origin.encode()), (b"vary", b"Origin")]
        return [(b"vary", b"Origin")]

    def is_preflight(self, scope: Scope) -> bool:
        if scope["method"] != "OPTIONS" or not _is_cors_path(scope["path"]):
            return False
        return "access-control-request-method" in Headers(scope=scope)

    def for_response(self, scope: Scope, preflight: bool = False) -> RawHeaders:
        """What every answer gets: nosniff, HSTS over HTTPS, CORS on the API's paths (for
        a preflight, the methods and headers a call may use; none to another origin)."""
        headers = [*self.always]
        if scope.get("scheme") == "https":
            headers += self.hsts
        if not _is_cors_path(scope["path"]):
            return headers
        allowed = self.allow_origin(Headers(scope=scope).get("origin"))
        headers += allowed
        if not any(name == b"access-control-allow-origin" for name, _ in allowed):
            return headers
        if preflight:
            return [
                *headers,
                (b"access-control-allow-methods", ALLOWED_METHODS.encode()),
                (b"access-control-allow-headers", ALLOWED_HEADERS.encode()),
                (b"access-control-max-age", str(PREFLIGHT_MAX_AGE).encode()),
            ]
        return [*headers, (b"access-control-expose-headers", EXPOSED_HEADERS.encode())]


def page_headers(
    policy: Sequence[str], frame_ancestors: Sequence[str] = ("'none'",)
) -> dict[str, str]:
    """Headers of an HTML page of ours: its Content-Security-Policy (`policy`'s directives
    plus `frame-ancestors`), no referrer, nosniff (also added to every answer above, but a
    page keeps it when served some other way), and an `X-Frame-Options` that says the
    same as `frame-ancestors` for browsers without CSP: `DENY`, `SAMEORIGIN`, or none
    when other sites may frame the page (it cannot name them, and must not refuse them)."""
    ancestors = " ".join(frame_ancestors)
    headers = {
        "Content-Security-Policy": "; ".join([*policy, f"frame-ancestors {ancestors}"]),
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
    }
    frame_options = {"'none'": "DENY", "'self'": "SAMEORIGIN"}.get(ancestors)
    if frame_options is not None:
        headers["X-Frame-Options"] = frame_options
    return headers
