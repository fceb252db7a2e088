"""The outer layer of every request: request id, HTTPS only, body limit and pace,
the time budget, the access log line, and the guarantee that no error leaves as a stack
trace or an HTML page."""

from __future__ import annotations

import asyncio
import logging
import os
from time import perf_counter

from starlette.requests import ClientDisconnect
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from resolvers.context import CHARGED_COST, RATE_LIMITED_KEY, Services, unavailable
from resolvers.errors import ApiError, ErrorCode
from resolvers.limits import MAX_TARGET_BYTES
from rest.browser_headers import BrowserHeaders
from rest.forwarding import Forwarding
from rest.ops.logs import ACCESS, ANSWER_CUT, AccessLine, write_access
from rest.ops.metrics import METRICS_PATH, Metrics, is_loopback, route_label
from rest.responses import error_response
from storage.database import UNAVAILABLE_ERRORS
from storage.settings import Settings

log = logging.getLogger("floorgate.http")


HEALTH_PATHS = frozenset({"/healthz", "/readyz"})
# Every method some route serves: any other is refused before routing, with all of them
# in Allow, whichever HTTP parser read it (httptools refuses unknown ones, h11 does not).
SERVED_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
# Key of a request's scope state: the HTTP parser refused the request (rest/ops/server.py);
# its value is the error to answer with. Answered here, so that the answer is the API's
# JSON and the access log and /metrics see it like any other.
REFUSED_BY_PARSER = "refused_by_parser"


class BodyTooLarge(Exception):
    """The body passed the size limit while it streamed in (413, also without a
    Content-Length)."""


class BodyStalled(Exception):
    """No byte of the body came for `body_timeout_seconds` (408; the connection closes)."""


class Boundary:
    """Pure ASGI middleware (no per-request task or buffering on the hot path)."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.settings = settings
        self.browser = BrowserHeaders(settings)
        self.services: Services | None = None  # set by create_app: rate limits, tests, tools
        self.metrics: Metrics | None = None  # set by create_app when /metrics is on
        self.access_log = settings.access_log
        # Behind a proxy: the client's address and scheme from its headers (rest/forwarding.py).
        self.forwarding = Forwarding(settings.proxy_addresses) if settings.behind_proxy else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.forwarding is not None and scope["type"] != "lifespan":
            self.forwarding.apply(scope)
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = os.urandom(8).hex()
        state = scope.setdefault("state", {})
        state["request_id"] = request_id
        logged = self.access_log and ACCESS.isEnabledFor(logging.INFO)
        if not logged and self.metrics is None:
            await self.serve(scope, receive, send, request_id, None)
            return
        began = perf_counter()
        status: list[int] = []
        try:
            await self.serve(scope, receive, send, request_id, status)
        finally:
            seconds = perf_counter() - began
            answered = status[0] if status else None
            if logged:
                client = scope.get("client")
                charged = state.get(RATE_LIMITED_KEY)
                write_access(
                    AccessLine(
                        scope["method"],
                        scope.get("raw_path") or scope["path"].encode(),
                        scope.get("query_string", b""),
                        answered,
                        seconds * 1000,
                        client[0] if client else "-",
                        request_id,
                        route_label(scope),
                        charged and charged[0],
                        state.get(ANSWER_CUT, False),
                    )
                )
            if self.metrics is not None:
                self.metrics.observe(scope, answered, seconds, state.get(CHARGED_COST))

    async def serve(
        self, scope: Scope, receive: Receive, send: Send, request_id: str, status: list[int] | None
    ) -> None:
        """The request within its limits; the answer's status goes to `status` (for the
        access log) when given."""
        started = False
        preflight = self.browser.is_preflight(scope)
        extra = [
            *self.browser.for_response(scope, preflight),
            (b"x-request-id", request_id.encode()),
        ]

        async def send_with_id(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                # An answer begun after the connection ended is never sent (Starlette's
                # 500 for the ClientDisconnect of a body cut off): the log and /metrics
                # count no answer, not that one.
                if status is not None and not scope["state"].get(ANSWER_CUT):
                    status.append(message["status"])
                headers = message.get("headers", [])
                # A header the response set itself wins (Vary lines add up instead).
                present = {name.lower() for name, _ in headers} - {b"vary"}
                message["headers"] = [
                    *headers,
                    *(item for item in extra if item[0] not in present),
                    *self.rate_limit_headers(scope),
                ]
            await send(message)

        malformed = scope["state"].get(REFUSED_BY_PARSER) or self.malformed(scope)
        if malformed is not None:
            await refusal_response(malformed)(scope, receive, send_with_id)
            return
        refusal = self.refusal(scope)
        if refusal is not None:
            await error_response(ApiError(refusal))(scope, receive, send_with_id)
            return
        if preflight:
            await Response(status_code=204)(scope, receive, send_with_id)
            return
        limit = self.settings.max_body_bytes
        pause = self.settings.body_timeout_seconds
        received = 0
        body_done = False

        async def limited_receive() -> Message:
            nonlocal received, body_done
            if body_done:  # what is left to hear is the disconnect: no pace to keep
                return await receive()
            try:
                async with asyncio.timeout(pause):
                    message = await receive()
            except TimeoutError:
                raise BodyStalled from None
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge
                body_done = not message.get("more_body", False)
            return message

        budget = asyncio.timeout(self.settings.request_timeout_seconds)

        async def send_in_time(message: Message) -> None:
            if message["type"] == "http.response.start":
                if budget.expired():  # its cancellation was caught on the way: answer 503
                    raise asyncio.CancelledError
                budget.reschedule(None)  # the budget covers the work, not the download
            await send_with_id(message)

        try:
            async with budget:
                await self.app(scope, limited_receive, send_in_time)
        except TimeoutError:
            if not budget.expired():
                raise
            log.warning(
                "request %s: over its time budget of %ss, cancelled",
                request_id,
                self.settings.request_timeout_seconds,
            )
            if not started:
                await error_response(unavailable(self.settings))(scope, receive, send_with_id)
        except ClientDisconnect:  # the client's choice, not our failure: no traceback
            log.info("request %s: the client disconnected before sending its body", request_id)
        except UNAVAILABLE_ERRORS:
            log.warning("request %s: database unavailable", request_id)
            if not started:
                await error_response(unavailable(self.settings))(scope, receive, send_with_id)
        except Exception:
            log.exception("request %s failed", request_id)
            if not started:
                await error_response(ApiError(ErrorCode.INTERNAL))(scope, receive, send_with_id)

    def rate_limit_headers(self, scope: Scope) -> list[tuple[bytes, bytes]]:
        """`RateLimit-Limit`, `-Remaining` and `-Reset` (IETF httpapi draft) of the key
        this request was charged to, as the answer leaves; none without a valid key."""
        charged = scope.get("state", {}).get(RATE_LIMITED_KEY)
        if charged is None or self.services is None:
            return []
        status = self.services.rate_limiter.status(*charged)
        if status is None:
            return []
        names = (b"ratelimit-limit", b"ratelimit-remaining", b"ratelimit-reset")
        return [(name, str(value).encode()) for name, value in zip(names, status, strict=True)]

    def malformed(self, scope: Scope) -> ApiError | None:
        """What no route may see, whichever parser let it through: a method no route
        serves (405), a target over MAX_TARGET_BYTES (414), header lines over
        `max_header_bytes` (431: the parsers stop reading a head at about that size, but
        one read whole at once reaches here), and both Content-Length and
        Transfer-Encoding (400: the two framings of a smuggled request)."""
        if scope["method"] not in SERVED_METHODS:
            return ApiError(ErrorCode.METHOD_NOT_ALLOWED)
        query = scope.get("query_string", b"")
        target = len(scope.get("raw_path") or b"") + len(query) + bool(query)  # as sent
        if target > MAX_TARGET_BYTES:
            return ApiError(ErrorCode.URI_TOO_LONG, limit=str(MAX_TARGET_BYTES))
        headers = scope.get("headers", ())
        limit = self.settings.max_header_bytes
        if target + sum(len(name) + len(value) + 4 for name, value in headers) > limit:
            return ApiError(ErrorCode.HEADERS_TOO_LARGE, limit=str(limit))
        names = {name for name, _ in headers if name in (b"content-length", b"transfer-encoding")}
        if len(names) > 1:
            return ApiError(ErrorCode.BAD_REQUEST)
        return None

    def refusal(self, scope: Scope) -> ErrorCode | None:
        """Plain HTTP is never served (health probes excepted: load balancers often probe a
        worker's port directly, and the answers carry no data); an over-long declared body
        is refused unread."""
        if scope.get("scheme") != "https" and scope.get("path") not in HEALTH_PATHS:
            client = scope.get("client")
            scraper = scope.get("path") == METRICS_PATH and is_loopback(
                client[0] if client else None
            )
            if not scraper:  # a scraper beside the worker may ask over plain HTTP
                return ErrorCode.HTTPS_REQUIRED
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    if int(value) > self.settings.max_body_bytes:
                        return ErrorCode.PAYLOAD_TOO_LARGE
                except ValueError:
                    return ErrorCode.BAD_USER_INPUT
        return None


def refusal_response(error: ApiError) -> Response:
    """The answer to a request refused before routing; the connection closes after it (the
    rest of what the client sent cannot be trusted to be a request), and a 405 names
    every method that is served."""
    headers = {"Connection": "close"}
    if error.code is ErrorCode.METHOD_NOT_ALLOWED:
        headers["Allow"] = ", ".join(SERVED_METHODS)
    return error_response(error, headers)
