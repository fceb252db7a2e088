"""The `events` shape of the route table: a subscription's results as Server-Sent
Events, for REST clients (`GET /v1/units/attribute-groups/{group-id}/units/changes`,
docs/api.md, "Live changes").

Like every /v1 route it runs its row's GraphQL document in-process, here a subscription
through graphql-core's `subscribe`. The dispatcher has checked access (the field's
permission and flag) and read the query; everything else a client can get wrong is
decided when it subscribes, before the stream starts, and answered as E20 answers it
(404 group, 410 cursor no longer kept, 422, 429 too many open streams), in our JSON error
format. Then `200 text/event-stream`: a `retry:` advice, one event per change (`id:` its
cursor, `event:` assigned or unassigned, `data:` the assignment and `at`), and a comment
every HEARTBEAT_SECONDS so that proxies keep the connection open. A client resumes with
`Last-Event-ID` (or `?after=`). A client that does not keep up is cut off; it resumes.

A change is executed through the route's document once per process, not once per
stream: the selection of a change reads nothing but the change, so every stream of the
route writes the same bytes for it (`EventTexts`, `schema.execution.event_results`). With 1,000
streams open that was most of the work of each event. The stream is charged its
operation's cost, as every route is; a replay from a cursor is charged per event, like a
page of that many (`resolvers.attributes.changes`), and the subscription's slot is given
back when the answer ends, however it ends (`EventResponse`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

import orjson
from graphql import ExecutionResult, GraphQLError, GraphQLSchema
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from resolvers.context import RequestContext
from resolvers.errors import ApiError
from resolvers.limits import EVENT_RESULT_BYTES
from rest.v1.openapi.schemas import ID_SCHEMA, Schema
from rest.v1.routes.rows import RestRoute
from schema.execution.event_results import EventResults
from schema.execution.running.runner import OperationRunner
from schema.execution.running.subscription import SubscriptionOperation
from storage.attributes.hub import stop

if TYPE_CHECKING:
    from schema.execution.executor import CompiledExecutor

HEARTBEAT_SECONDS = 15.0
RETRY_MS = 2_000
RESUME_HEADER = "last-event-id"
RESUME_VARIABLE = "after"

# -- the events as the OpenAPI document describes them (rest/v1/openapi/document.py) -------------

EVENTS_DOC = (
    "Server-Sent Events: first `retry:` (milliseconds before a reconnect), then per change "
    "`id:` (its cursor), `event:` (`assigned` or `unassigned`) and `data:`, a JSON object "
    "`{group_id, attribute_id, asset_id, unit_id, at}`; a `: heartbeat` comment while "
    "nothing happens. A replacement in a one-attribute-per-unit group is `unassigned` "
    "(the old attribute) then `assigned` (the new)."
)
# One event of the stream (as Schemathesis and OpenAPI 3.2's `itemSchema` read an event
# stream's schema); `data` holds JSON.
EVENT_SCHEMA: Schema = {
    "type": "object",
    "required": ["event", "data"],
    "properties": {
        "event": {"type": "string", "enum": ["assigned", "unassigned"]},
        "id": {"type": "string", "pattern": "^[0-9]{1,19}$"},
        "retry": {"type": "integer", "minimum": 0},
        "data": {
            "type": "string",
            "contentMediaType": "application/json",
            "contentSchema": {
                "type": "object",
                "required": ["group_id", "attribute_id", "asset_id", "unit_id", "at"],
                "properties": {
                    "group_id": ID_SCHEMA,
                    "attribute_id": ID_SCHEMA,
                    "asset_id": ID_SCHEMA,
                    "unit_id": ID_SCHEMA,
                    "at": {"type": "string", "format": "date-time"},
                },
            },
        },
    },
}
EVENTS_EXAMPLE = (
    "retry: 2000\n\nid: 41\nevent: unassigned\ndata: "
    '{"group_id":"view","attribute_id":"view-city","asset_id":"harbor-view",'
    '"unit_id":"b1-101","at":"2026-11-25T14:02:11.208Z"}\n\n'
    "id: 42\nevent: assigned\ndata: "
    '{"group_id":"view","attribute_id":"view-pool","asset_id":"harbor-view",'
    '"unit_id":"b1-101","at":"2026-11-25T14:02:11.208Z"}\n\n'
    ": heartbeat\n\n"
)


Text = Callable[[dict[str, Any]], Awaitable[bytes | None]]


def event_text(change: dict[str, Any]) -> bytes:
    data = {**change["assignment"], "at": change["at"]}
    return (
        f"id: {change['cursor']}\nevent: {change['change']}\ndata: ".encode()
        + orjson.dumps(data)
        + b"\n\n"
    )


def rendered_event(result: ExecutionResult) -> bytes | None:
    """A change's event as a stream writes it; None if the document failed on it."""
    if result.errors or not result.data:
        return None
    return event_text(result.data["result"])


class EventTexts:
    """Each change's event as a stream writes it, made once per route and change by the
    first stream that meets it (`schema.execution.event_results`): a route's selection is fixed
    and reads nothing but the change, so every stream of the route writes the same
    bytes for it, whoever opened it."""

    def __init__(self, max_bytes: int = EVENT_RESULT_BYTES) -> None:
        self.results = EventResults(max_bytes)

    async def text(
        self, route: RestRoute, executor: CompiledExecutor, change: dict[str, Any]
    ) -> bytes | None:
        """The change's event; None if the document failed on it (the stream ends)."""
        return await self.results.result(route.operation_id, executor, change, rendered_event)


class EventResponse(StreamingResponse):
    """The stream's answer; when it ends, however it ends (even before its first byte),
    its request gives back what it holds: the subscription's slot."""

    def __init__(
        self, content: AsyncIterator[bytes], context: RequestContext, **kwargs: Any
    ) -> None:
        super().__init__(content, **kwargs)
        self.context = context

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.context.release()


async def event_stream(
    schema: GraphQLSchema,
    route: RestRoute,
    context: RequestContext,
    variables: dict[str, Any],
    request: Request,
    texts: EventTexts,
) -> Response | ExecutionResult:
    """The stream, or the result that refuses it before it starts (the dispatcher answers
    it as every route's failed operation)."""
    resume = request.headers.get(RESUME_HEADER)
    if resume:  # an EventSource reconnecting: its URL may still hold the first `after`
        variables[RESUME_VARIABLE] = resume
    # Like any route: the key pays for its operation (and a replay, per event).
    opening = SubscriptionOperation(schema, route.parsed, None, variables, context)
    try:
        opened = await OperationRunner.open(context, opening)
    except ApiError as error:
        return ExecutionResult(None, [GraphQLError(error.message, original_error=error)])
    if isinstance(opened, list):  # refused before any event (the variables, the resolver)
        return ExecutionResult(None, [e for e in opened if isinstance(e, GraphQLError)])
    executor, source = opened
    changes: AsyncIterable[dict[str, Any]] = source

    async def text(change: dict[str, Any]) -> bytes | None:
        return await texts.text(route, executor, change)

    hub = context.services.event_hub
    return EventResponse(
        stream(changes, text, lambda: hub.stopping),
        context,
        media_type=route.media_type,
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


async def stream(
    changes: AsyncIterable[dict[str, Any]],
    text: Text,
    stopping: Callable[[], bool] = lambda: False,
) -> AsyncIterator[bytes]:
    """The events, a heartbeat comment while none comes; ends when the subscription does
    (a client cut off for lagging resumes with its last id; when the server stops, the
    `retry:` advice comes again last, so the reconnect to another instance is paced).
    One event at a time, each step short, so that a replay of thousands lets every other
    request through between two of its events (written 256 at a time, an honest
    request's p95 was 10x idle; one at a time, and paced per key by the hub, within 2x).
    The heartbeat's wait is a timeout on the loop, not a task per event as
    `asyncio.wait_for` made."""
    queue: asyncio.Queue[bytes | None] = asyncio.Queue(1)

    stopped = False

    async def pump() -> None:
        with contextlib.suppress(Exception):  # the subscription ended: the stream ends
            async for change in changes:
                written = await text(change)
                if written is None or stopped:
                    break
                await queue.put(written)
        await queue.put(None)  # (not when cancelled: the stream is gone already)

    task = asyncio.create_task(pump())
    try:
        yield f"retry: {RETRY_MS}\n\n".encode()
        while True:
            try:
                async with asyncio.timeout(HEARTBEAT_SECONDS):
                    written = await queue.get()
            except TimeoutError:
                yield b": heartbeat\n\n"
                continue
            if written is None:
                if stopping():
                    yield f"retry: {RETRY_MS}\n\n".encode()
                return
            yield written
    finally:
        # The pump is told to stop and cancelled until it has (`hub.stop`: pymongo may
        # swallow a cancellation); what it queued is dropped, so it never waits for room.
        stopped = True

        def unblock() -> None:
            while not queue.empty():
                queue.get_nowait()

        await stop(task, unblock)
        with contextlib.suppress(Exception):
            await changes.aclose()  # type: ignore[attr-defined]  # if it has one (else suppressed)
