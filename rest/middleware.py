"""The outer layer of every request: request id, HTTPS only, body limit, and the
guarantee that no error leaves as a stack trace or an HTML page."""

from __future__ import annotations

import logging
import uuid

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from resolvers.errors import ApiError, ErrorCode
from rest.responses import error_response
from storage.database import UNAVAILABLE_ERRORS
from storage.settings import Settings

log = logging.getLogger("floorgate.http")


HEALTH_PATHS = frozenset({"/healthz", "/readyz"})


class BodyTooLarge(Exception):
    pass


class Boundary:
    """Pure ASGI middleware (no per-request task or buffering on the hot path)."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.settings = settings
        self.services: object = None  # set by create_app, for tests and tools

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = uuid.uuid4().hex[:16]
        scope.setdefault("state", {})["request_id"] = request_id
        started = False

        async def send_with_id(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                message["headers"] = [*message.get("headers", []),
                                      (b"x-request-id", request_id.encode())]
            await send(message)

        refusal = self.refusal(scope)
        if refusal is not None:
            await error_response(ApiError(refusal))(scope, receive, send_with_id)
            return
        limit = self.settings.max_body_bytes
        received = 0

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge
            return message

        try:
            await self.app(scope, limited_receive, send_with_id)
        except BodyTooLarge:
            if not started:
                await error_response(ApiError(ErrorCode.PAYLOAD_TOO_LARGE))(
                    scope, receive, send_with_id)
        except UNAVAILABLE_ERRORS:
            log.warning("request %s: database unavailable", request_id)
            if not started:
                error = ApiError(ErrorCode.SERVICE_UNAVAILABLE,
                                 retry_after=self.settings.retry_after_seconds)
                await error_response(error)(scope, receive, send_with_id)
        except Exception:
            log.exception("request %s failed", request_id)
            if not started:
                await error_response(ApiError(ErrorCode.INTERNAL))(scope, receive, send_with_id)

    def refusal(self, scope: Scope) -> ErrorCode | None:
        """Plain HTTP is never served (health probes excepted: load balancers often probe a
        worker's port directly, and the answers carry no data); an over-long declared body
        is refused unread."""
        if scope.get("scheme") != "https" and scope.get("path") not in HEALTH_PATHS:
            return ErrorCode.HTTPS_REQUIRED
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    if int(value) > self.settings.max_body_bytes:
                        return ErrorCode.PAYLOAD_TOO_LARGE
                except ValueError:
                    return ErrorCode.BAD_USER_INPUT
        return None
