"""Error codes, their messages and HTTP statuses: the one table both faces use.

GraphQL clients see the code in `extensions.code` (and `extensions.fields` for
invalid input); the REST layer turns the same code into its status and body.

An `ApiError` is a plain exception, not a GraphQL error: GraphQL wraps it where it is
raised (graphql-core's `located_error`, strawberry's error coercion), taking its message
and extensions, so nothing of GraphQL is imported before a GraphQL operation runs (a
REST route planned ahead of time answers before graphql-core is imported, issue 36).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from storage.database import UNAVAILABLE_ERRORS

if TYPE_CHECKING:
    from graphql import GraphQLError

log = logging.getLogger("floorgate")


class ErrorCode(StrEnum):
    UNAUTHENTICATED = "UNAUTHENTICATED"
    INVALID_KEY = "INVALID_KEY"
    FORBIDDEN = "FORBIDDEN"
    NOT_FOUND = "NOT_FOUND"
    FLAG_REQUIRED = "FLAG_REQUIRED"
    METHOD_NOT_ALLOWED = "METHOD_NOT_ALLOWED"
    PAYLOAD_TOO_LARGE = "PAYLOAD_TOO_LARGE"
    UNSUPPORTED_MEDIA_TYPE = "UNSUPPORTED_MEDIA_TYPE"
    BAD_USER_INPUT = "BAD_USER_INPUT"
    RATE_LIMITED = "RATE_LIMITED"
    INTERNAL = "INTERNAL"
    SERVICE_UNAVAILABLE = "SERVICE_UNAVAILABLE"
    NOT_READY = "NOT_READY"
    LIVE_UNAVAILABLE = "LIVE_UNAVAILABLE"
    HTTPS_REQUIRED = "HTTPS_REQUIRED"
    COST_LIMIT = "COST_LIMIT"
    REQUEST_TIMEOUT = "REQUEST_TIMEOUT"
    BAD_REQUEST = "BAD_REQUEST"
    URI_TOO_LONG = "URI_TOO_LONG"
    HEADERS_TOO_LARGE = "HEADERS_TOO_LARGE"
    HEADER_TOO_LARGE = "HEADER_TOO_LARGE"
    DOCUMENT_TOO_LARGE = "DOCUMENT_TOO_LARGE"
    CURSOR_EXPIRED = "CURSOR_EXPIRED"
    TOO_MANY_SUBSCRIPTIONS = "TOO_MANY_SUBSCRIPTIONS"
    TOO_MANY_SOCKETS = "TOO_MANY_SOCKETS"
    SOCKET_BEHIND = "SOCKET_BEHIND"
    SUBSCRIPTIONS_ONLY = "SUBSCRIPTIONS_ONLY"
    NO_SUBSCRIPTIONS_OVER_HTTP = "NO_SUBSCRIPTIONS_OVER_HTTP"
    PERSISTED_QUERY_NOT_FOUND = "PERSISTED_QUERY_NOT_FOUND"
    PERSISTED_QUERY_NOT_SUPPORTED = "PERSISTED_QUERY_NOT_SUPPORTED"
    PERSISTED_QUERY_HASH_MISMATCH = "PERSISTED_QUERY_HASH_MISMATCH"
    PERSISTED_QUERY_VERSION = "PERSISTED_QUERY_VERSION"
    PERSISTED_QUERY_NOT_ALLOWED = "PERSISTED_QUERY_NOT_ALLOWED"
    WRITE_TOO_LARGE = "WRITE_TOO_LARGE"


@dataclass(frozen=True)
class ErrorKind:
    status: int
    message: str


ERRORS: dict[ErrorCode, ErrorKind] = {
    ErrorCode.UNAUTHENTICATED: ErrorKind(401, "No API key found in request"),
    ErrorCode.INVALID_KEY: ErrorKind(403, "Invalid authentication credentials"),
    ErrorCode.FORBIDDEN: ErrorKind(403, "Access denied: missing permission {permission}"),
    ErrorCode.NOT_FOUND: ErrorKind(404, "Not found"),
    ErrorCode.FLAG_REQUIRED: ErrorKind(
        404,
        "Not found: this experimental resource requires the Experimental-Flags header "
        'to include "{flag}"',
    ),
    ErrorCode.METHOD_NOT_ALLOWED: ErrorKind(405, "Method not allowed"),
    ErrorCode.PAYLOAD_TOO_LARGE: ErrorKind(413, "Request body too large"),
    ErrorCode.UNSUPPORTED_MEDIA_TYPE: ErrorKind(415, "Content type must be {content_type}"),
    ErrorCode.BAD_USER_INPUT: ErrorKind(422, "Resource validation failed"),
    ErrorCode.RATE_LIMITED: ErrorKind(429, "API rate limit exceeded"),
    ErrorCode.INTERNAL: ErrorKind(500, "Server error"),
    ErrorCode.SERVICE_UNAVAILABLE: ErrorKind(503, "Service unavailable"),
    # `/readyz` while the process cannot serve correctly, or drains (docs/deploy.md).
    ErrorCode.NOT_READY: ErrorKind(503, "Not ready: {reason}"),
    # Live changes where the database refuses change streams (docs/deploy.md).
    ErrorCode.LIVE_UNAVAILABLE: ErrorKind(503, "Live changes are unavailable: {reason}"),
    ErrorCode.HTTPS_REQUIRED: ErrorKind(403, "HTTPS is required"),
    # GraphQL only (REST routes stay under the limit by construction); 422 if ever mapped.
    ErrorCode.COST_LIMIT: ErrorKind(
        422, "Query cost {cost} exceeds the limit of {limit}: ask for smaller pages or fewer fields"
    ),
    ErrorCode.REQUEST_TIMEOUT: ErrorKind(408, "Request body not received in time"),
    # Answered for the HTTP parser (rest/ops/server.py) or before routing (rest/middleware.py).
    ErrorCode.BAD_REQUEST: ErrorKind(400, "Invalid HTTP request"),
    ErrorCode.URI_TOO_LONG: ErrorKind(414, "Request target longer than {limit} bytes"),
    ErrorCode.HEADERS_TOO_LARGE: ErrorKind(431, "Request head larger than {limit} bytes"),
    # One header past what its reader takes (`Accept-Language`: resolvers/language.py).
    ErrorCode.HEADER_TOO_LARGE: ErrorKind(431, "{header} header larger than {limit} bytes"),
    # A /graphql document (or a GET's query string) over FLOORGATE_GRAPHQL_MAX_DOCUMENT_BYTES.
    ErrorCode.DOCUMENT_TOO_LARGE: ErrorKind(
        413, "GraphQL document too large: at most {limit} bytes"
    ),
    # Live changes (docs/api.md): a resume past what the log keeps; a key's open streams.
    ErrorCode.CURSOR_EXPIRED: ErrorKind(
        410,
        "Gone: events after this cursor are no longer kept; load the current state "
        "and subscribe without a cursor",
    ),
    ErrorCode.TOO_MANY_SUBSCRIPTIONS: ErrorKind(
        429, "Too many open subscriptions for this key: at most {limit}"
    ),
    # A WebSocket's close reason (at most 123 bytes): its key's open sockets (close 4429),
    # its changes its client did not read in time (1013).
    ErrorCode.TOO_MANY_SOCKETS: ErrorKind(
        429, "Too many open sockets for this key: at most {limit}"
    ),
    ErrorCode.SOCKET_BEHIND: ErrorKind(
        429, "More than {limit} changes unread: reconnect and resume after the last cursor"
    ),
    # A query or mutation sent over the WebSocket: HTTP bounds its time and logs it.
    ErrorCode.SUBSCRIPTIONS_ONLY: ErrorKind(
        400,
        "Only subscriptions are served over WebSocket: send queries and mutations to "
        "/graphql over HTTP",
    ),
    # A subscription sent over HTTP: it has no answer there (it ran as a query, and its
    # stream's null was an INTERNAL error with a traceback).
    ErrorCode.NO_SUBSCRIPTIONS_OVER_HTTP: ErrorKind(
        400,
        "Subscriptions are served over WebSocket at /graphql (graphql-transport-ws): "
        "send queries and mutations over HTTP",
    ),
    # Persisted queries (docs/graphql.md): Apollo Server's messages and statuses, so Apollo
    # Client's persisted-query link sends the document after a 200 NOT_FOUND, and stops
    # sending hashes after NOT_SUPPORTED (FLOORGATE_PERSISTED_QUERIES=off).
    ErrorCode.PERSISTED_QUERY_NOT_FOUND: ErrorKind(200, "PersistedQueryNotFound"),
    ErrorCode.PERSISTED_QUERY_NOT_SUPPORTED: ErrorKind(200, "PersistedQueryNotSupported"),
    ErrorCode.PERSISTED_QUERY_HASH_MISMATCH: ErrorKind(400, "provided sha does not match query"),
    ErrorCode.PERSISTED_QUERY_VERSION: ErrorKind(400, "Unsupported persisted query version"),
    ErrorCode.PERSISTED_QUERY_NOT_ALLOWED: ErrorKind(
        403,
        "This GraphQL document is not on the server's safelist: register it with "
        "floorgate persisted-queries add",
    ),
    # An operator write (a put that runs the importer) past FLOORGATE_IMPORT_MAX_DOCUMENTS:
    # it would be staged and switched in, which waits a whole request budget before it
    # applies (docs/dataset.md, "Larger assets"); refused before anything is written.
    ErrorCode.WRITE_TOO_LARGE: ErrorKind(
        413,
        "This write would store {documents} documents of asset {asset}, more than one "
        "transaction takes ({limit}: FLOORGATE_IMPORT_MAX_DOCUMENTS); nothing was written. "
        "Import it with floorgate import, which stages and switches in a write this large",
    ),
}


class ApiError(Exception):
    """An error a client caused or must know about; carries its code and details, and
    its GraphQL form: `message`, `extensions` and `formatted`, as a GraphQL error has."""

    def __init__(
        self,
        code: ErrorCode,
        *,
        fields: dict[str, list[str]] | None = None,
        retry_after: int | None = None,
        details: dict[str, Any] | None = None,
        **message_args: str,
    ) -> None:
        kind = ERRORS[code]
        extensions: dict[str, Any] = {"code": code.value}
        if fields:
            extensions["fields"] = fields
        if retry_after is not None:
            extensions["retryAfter"] = retry_after
        extensions.update(details or {})
        self.message = kind.message.format(**message_args)
        super().__init__(self.message)
        self.extensions = extensions
        self.code = code
        self.status = kind.status
        self.fields = fields
        self.retry_after = retry_after

    @property
    def formatted(self) -> dict[str, Any]:
        """The error as a GraphQL answer lists it (no locations or path: it is not a
        field's; a field's is wrapped by graphql-core, which adds both)."""
        return {"message": self.message, "extensions": self.extensions}


def invalid(fields: dict[str, list[str]]) -> ApiError:
    """422 naming each bad input and what is wrong with it."""
    return ApiError(ErrorCode.BAD_USER_INPUT, fields=fields)


def not_found() -> ApiError:
    return ApiError(ErrorCode.NOT_FOUND)


def check_cost(cost: int, limit: int) -> None:
    """Refuse an operation over the ceiling, before anything runs: one ceiling for
    /graphql and REST (the runner holds every operation to it)."""
    if cost > limit:
        raise ApiError(
            ErrorCode.COST_LIMIT,
            details={"cost": cost, "limit": limit},
            cost=str(cost),
            limit=str(limit),
        )


class FieldErrors:
    """Collects every problem of one input before failing, so a client sees them all."""

    def __init__(self) -> None:
        self.fields: dict[str, list[str]] = {}

    def add(self, name: str, message: str) -> None:
        self.fields.setdefault(name, []).append(message)

    def __bool__(self) -> bool:
        return bool(self.fields)

    def raise_if_any(self) -> None:
        if self.fields:
            raise invalid(self.fields)


class OperationFailed(Exception):
    """An operation failed: its first error as the API's, and whether nothing of it ran
    (its input did not coerce, or a check before execution refused)."""

    def __init__(self, error: ApiError, nothing_ran: bool) -> None:
        super().__init__(error.message)
        self.error, self.nothing_ran = error, nothing_ran


def classify_raised(error: BaseException, retry_after: int) -> ApiError:
    """The API error behind what a check or resolver raised: ours as raised, the
    database being away as 503, anything else (a bug of ours) 500."""
    if isinstance(error, ApiError):
        return error
    if isinstance(error, UNAVAILABLE_ERRORS):
        return database_away(error, retry_after)
    return ApiError(ErrorCode.INTERNAL)


def database_away(error: BaseException, retry_after: int) -> ApiError:
    """The 503 of a database that did not answer, logged with the driver's class (no
    server selected, a socket timed out): a 503 nobody can explain cannot be mended."""
    log.warning("database unavailable (%s): answered 503", type(error).__name__)
    return ApiError(ErrorCode.SERVICE_UNAVAILABLE, retry_after=retry_after)


def classify(error: GraphQLError | ApiError, retry_after: int) -> ApiError:
    """The API error behind any GraphQL error: ours as raised, the database being
    away as 503, a GraphQL document the client got wrong as 422, anything else 500."""
    from graphql import GraphQLError  # a GraphQL error is classified: graphql-core is loaded

    if isinstance(error, ApiError):
        return error
    original = error.original_error
    if original is None or isinstance(original, GraphQLError):
        # Parse, validation and variable errors (graphql-core wraps a scalar's own
        # error of a variable in another GraphQLError): the request itself is wrong.
        return invalid({"query": [error.message]})
    # Ours as raised, the database away as 503; anything else is a bug of ours, before
    # execution (an extension) or in a resolver: its message stays in the log.
    return classify_raised(original, retry_after)
