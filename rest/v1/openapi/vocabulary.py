"""The words of the OpenAPI document: its tags, the parameters' descriptions and the error
responses by status with the codes each may carry, as tables the builder
(`rest.v1.openapi.document`) reads; the ceiling and prices every operation is held to come
from the table of limits (`rest.limits.prices`, docs/limits.md "What work costs")."""

from __future__ import annotations

from resolvers.errors import ErrorCode
from resolvers.limits import (
    DEFAULT_PER_PAGE,
    DEFAULT_SEARCH_PER_PAGE,
    INT32_MAX,
    MAX_FILTER_LENGTH,
    MAX_PER_PAGE,
    MAX_SEARCH_CHARS,
    MAX_SEARCH_PER_PAGE,
)
from rest.v1.openapi.schemas import ID_SCHEMA, Schema
from storage.limits import MAX_ID_LENGTH, REFERENCE_KEY_PATTERN

TAGS = {  # by flag, else by the first segment after /v1
    "references": "References (experimental)",
    "locations-resource": "Locations (experimental)",
    "distances": "Distances (experimental)",
    "directions": "Directions (experimental)",
    "search": "Search (experimental)",
    "unit-attributes-resource": "Unit attributes (experimental)",
    "assets": "Assets",
    "units": "Units",
    "maps": "Unit maps",
    "unitmaps": "Unit maps",
    "vendor": "Vendor paths (aliases under the asset's market)",
}

PARAMETER_DOCS: dict[str, tuple[str, Schema]] = {
    "page": (
        "Page number, from 1.",
        {"type": "integer", "minimum": 1, "maximum": INT32_MAX, "default": 1},
    ),
    "per-page": (
        f"Items per page. Larger values are clamped to {MAX_PER_PAGE}, and "
        "`paging.per_page` says so.",
        {"type": "integer", "minimum": 1, "maximum": MAX_PER_PAGE, "default": DEFAULT_PER_PAGE},
    ),
    "asset": ("Only items of this asset.", ID_SCHEMA),
    "key": (
        "Only references with this key.",
        {"type": "string", "maxLength": MAX_ID_LENGTH, "pattern": REFERENCE_KEY_PATTERN},
    ),
    "tags": (
        "Comma-separated tags; a map must have all of them.",
        {"type": "string", "maxLength": MAX_FILTER_LENGTH},
    ),
    "q": (
        f"What to find: 1 to {MAX_SEARCH_CHARS} characters; case and accents are ignored, "
        "word prefixes and typos found (docs/api.md, Search).",
        {"type": "string", "minLength": 1, "maxLength": MAX_SEARCH_CHARS},
    ),
    "map": ("Only places drawn on this unit map (`near` needs it).", ID_SCHEMA),
    "floor": ("Only places on this floor.", ID_SCHEMA),
    "near": (
        "A location id on `map`: the results of each tier ranked by walking time from it "
        "(`distance`, `time`), unreachable last.",
        ID_SCHEMA,
    ),
    "mode": (
        "How `near`'s walks go: `foot` (default) or `wheelchair`.",
        {"type": "string", "enum": ["foot", "wheelchair"]},
    ),
    # Closures (issue 50): what `DELETE /v1/unitmaps/{unitMapId}/closures` reopens.
    "connector": ("The connector to reopen (its `data-connector-id`); or `unit`.", ID_SCHEMA),
    "unit": ("The unit to reopen; or `connector`.", ID_SCHEMA),
    "after": (
        "Resume after this event (an earlier event's `id`); without it, from now. The "
        "`Last-Event-ID` header wins when both are sent.",
        {"type": "string", "pattern": "^[0-9]{1,19}$"},
    ),
}
SEARCH_PER_PAGE: tuple[str, Schema] = (
    f"Results per page. Larger values are clamped to {MAX_SEARCH_PER_PAGE}.",
    {
        "type": "integer",
        "minimum": 1,
        "maximum": MAX_SEARCH_PER_PAGE,
        "default": DEFAULT_SEARCH_PER_PAGE,
    },
)
LOCATION_TAGS_DOC = (
    "Comma-separated terms, all of which must hold: `key` (tag present), `-key` (absent), "
    "`key==value`, `key!=value` (absent or different). Keys may contain `:`; matching is "
    "exact but case-insensitive. Example: `svc:amenity==yes,-amenity`."
)

ERROR_RESPONSES: dict[str, tuple[str, list[ErrorCode]]] = {
    "400": (
        "Not a valid HTTP request (a malformed head, or both Content-Length and "
        "Transfer-Encoding); the connection is closed.",
        [ErrorCode.BAD_REQUEST],
    ),
    "401": ("No API key in the request.", [ErrorCode.UNAUTHENTICATED]),
    "403": (
        "The key is unknown or disabled, or lacks the operation's permission.",
        [ErrorCode.INVALID_KEY, ErrorCode.FORBIDDEN],
    ),
    "404": (
        "Unknown id or path, outside the key's asset scope, or an experimental "
        "resource without its flag.",
        [ErrorCode.NOT_FOUND, ErrorCode.FLAG_REQUIRED],
    ),
    "413": ("The request body is over the limit.", [ErrorCode.PAYLOAD_TOO_LARGE]),
    "410": (
        "An event stream's cursor (`Last-Event-ID` or `after`) is older than the events "
        "kept: load the current state, then subscribe without a cursor.",
        [ErrorCode.CURSOR_EXPIRED],
    ),
    "414": ("The request target (path and query) is over its limit.", [ErrorCode.URI_TOO_LONG]),
    "415": ("The request body has another media type.", [ErrorCode.UNSUPPORTED_MEDIA_TYPE]),
    "422": (
        "Invalid input; `fields` names each bad input and what is wrong with it. Or "
        "`COST_LIMIT`: the operation's price is over the ceiling (the document's "
        "description), nothing ran.",
        [ErrorCode.BAD_USER_INPUT, ErrorCode.COST_LIMIT],
    ),
    "431": (
        "The request head (request line and headers) is over its limit, or one header "
        "over its own (`Accept-Language`).",
        [ErrorCode.HEADERS_TOO_LARGE, ErrorCode.HEADER_TOO_LARGE],
    ),
    "429": (
        "Over the key's rate limit, retry after `Retry-After` seconds; or, for an event "
        "stream, over the key's open subscriptions.",
        [ErrorCode.RATE_LIMITED, ErrorCode.TOO_MANY_SUBSCRIPTIONS],
    ),
    "500": ("Unexpected; logged with the request id (`X-Request-Id`).", [ErrorCode.INTERNAL]),
    "503": (
        "The database is unreachable; retry after `Retry-After` seconds.",
        [ErrorCode.SERVICE_UNAVAILABLE],
    ),
}
RETRY_AFTER = {
    "Retry-After": {"description": "Seconds to wait.", "schema": {"type": "integer", "minimum": 0}}
}
