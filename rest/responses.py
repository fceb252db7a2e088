"""JSON responses and the error body `{"message": ...}` (422 adds `fields`)."""

from __future__ import annotations

import json
from typing import Any

import orjson
from starlette.responses import Response

from resolvers.errors import ApiError, ErrorCode


def json_bytes(body: Any) -> bytes:
    """orjson, or the standard library for what orjson refuses (integers past 64 bits,
    as in the cost of a doubling-fragments attack)."""
    try:
        return orjson.dumps(body)
    except orjson.JSONEncodeError:
        return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()


def json_response(
    body: Any,
    status: int = 200,
    headers: dict[str, str] | None = None,
    media_type: str = "application/json",
) -> Response:
    return Response(json_bytes(body), status, headers=headers, media_type=media_type)


def error_response(error: ApiError, headers: dict[str, str] | None = None) -> Response:
    body: dict[str, Any] = {"message": error.message}
    if error.fields:
        body["fields"] = error.fields
    extra = dict(headers or {})
    if error.retry_after is not None:
        extra["Retry-After"] = str(error.retry_after)
    if error.code is ErrorCode.PAYLOAD_TOO_LARGE:
        # The rest of the body is not read: the connection closes after this answer
        # instead of receiving (and decrypting) megabytes only to drop them.
        extra["Connection"] = "close"
    return json_response(body, error.status, extra)


def error_of(
    code: ErrorCode, headers: dict[str, str] | None = None, retry_after: int | None = None
) -> Response:
    return error_response(ApiError(code, retry_after=retry_after), headers)
