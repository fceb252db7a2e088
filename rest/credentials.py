"""Reading the API key and the experimental flags from a request."""

from __future__ import annotations

from starlette.requests import HTTPConnection

from resolvers.auth.permissions import parse_flags
from resolvers.context import RequestContext, Services
from resolvers.errors import ApiError, invalid


def api_key_of(request: HTTPConnection) -> str | None:
    """Header `API-Key` wins over query `api-key`; an empty value counts as absent."""
    header = request.headers.get("api-key", "").strip()
    if header:
        return header
    query = request.query_params.get("api-key", "").strip()
    return query or None


def repeated_key(request: HTTPConnection) -> ApiError | None:
    """`api-key` given twice in the query is 422, like any repeated parameter: which of
    two keys is meant is not ours to guess."""
    if len(request.query_params.getlist("api-key")) > 1:
        return invalid({"api-key": ["must be given once"]})
    return None


def flags_of(request: HTTPConnection) -> frozenset[str]:
    """Repeated header lines count as one comma-joined line (RFC 9110, 5.3)."""
    lines = request.headers.getlist("experimental-flags")
    return parse_flags(",".join(lines) if lines else None)


def query_flags(request: HTTPConnection) -> frozenset[str]:
    """Flags of query `experimental-flags`, read by event streams only: a browser's
    `EventSource` can send no header (docs/api.md, "Live changes")."""
    values = request.query_params.getlist("experimental-flags")
    return parse_flags(",".join(values) if values else None)


def request_context(request: HTTPConnection, services: Services) -> RequestContext:
    """The per-request context of both faces: credentials, flags, request id, address."""
    return RequestContext(
        services,
        api_key_of(request),
        flags_of(request),
        request.scope.get("state", {}).get("request_id", ""),
        request.client.host if request.client else "",
        request.scope.setdefault("state", {}),
    )


def connection_credentials(context: RequestContext, params: object) -> None:
    """A WebSocket's `connection_init` payload (`{"API-Key": ..., "Experimental-Flags":
    ...}`): what a browser can send, as it cannot set the upgrade request's headers. Its
    values win over the headers' (non-browser clients may use either)."""
    if not isinstance(params, dict):
        return
    key = params.get("API-Key")
    if isinstance(key, str) and key.strip():
        context.api_key = key.strip()
    flags = params.get("Experimental-Flags")
    if isinstance(flags, str):
        context.flags = parse_flags(flags)
