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
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import orjson
from graphql import ExecutionResult, GraphQLSchema, subscribe
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from resolvers.context import RequestContext
from resolvers.errors import ApiError, ErrorCode, FieldErrors, classify
from rest.responses import error_response
from rest.v1.routes import RestRoute

HEARTBEAT_SECONDS = 15.0
RETRY_MS = 2_000
RESUME_HEADER = "last-event-id"
RESUME_VARIABLE = "after"


def event_text(change: dict[str, Any]) -> bytes:
    data = {**change["assignment"], "at": change["at"]}
    return (
        f"id: {change['cursor']}\nevent: {change['change']}\ndata: ".encode()
        + orjson.dumps(data)
        + b"\n\n"
    )


async def event_stream(
    schema: GraphQLSchema,
    route: RestRoute,
    context: RequestContext,
    variables: dict[str, Any],
    problems: FieldErrors,
    request: Request,
) -> Response:
    """The stream, or the error that refuses it before it starts."""
    if problems:
        return error_response(ApiError(ErrorCode.BAD_USER_INPUT, fields=problems.fields))
    resume = request.headers.get(RESUME_HEADER)
    if resume:  # an EventSource reconnecting: its URL may still hold the first `after`
        variables[RESUME_VARIABLE] = resume
    result = await subscribe(schema, route.parsed, context_value=context, variable_values=variables)
    if isinstance(result, ExecutionResult):  # refused before any event
        errors = result.errors or []
        error = classify(errors[0], context.services.settings.retry_after_seconds)
        if error.fields:
            fields = {route.param_name(name): texts for name, texts in error.fields.items()}
            error = ApiError(ErrorCode.BAD_USER_INPUT, fields=fields)
        return error_response(error)
    return StreamingResponse(
        stream(result),
        media_type=route.media_type,
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


async def stream(results: AsyncIterator[ExecutionResult]) -> AsyncIterator[bytes]:
    """The events, a heartbeat comment while none comes; ends when the subscription does
    (a client cut off for lagging resumes with its last id)."""
    queue: asyncio.Queue[ExecutionResult | None] = asyncio.Queue(1)

    async def pump() -> None:
        with contextlib.suppress(Exception):  # the subscription ended: the stream ends
            async for result in results:
                await queue.put(result)
        await queue.put(None)  # (not when cancelled: the stream is gone already)

    task = asyncio.create_task(pump())
    try:
        yield f"retry: {RETRY_MS}\n\n".encode()
        while True:
            try:
                result = await asyncio.wait_for(queue.get(), HEARTBEAT_SECONDS)
            except TimeoutError:
                yield b": heartbeat\n\n"
                continue
            if result is None or result.errors or not result.data:
                return
            yield event_text(result.data["result"])
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
        with contextlib.suppress(Exception):
            await results.aclose()  # type: ignore[attr-defined]
