"""`GET /v1/units/attribute-groups/{group-id}/units/changes`: a group's assignment changes
as Server-Sent Events, for REST clients (docs/api.md, "Live changes").

Like every /v1 route it runs a GraphQL operation in-process: the subscription
`unitAttributeAssignmentChanges`, through graphql-core's `subscribe`. Everything a
client can get wrong is decided when it subscribes, before the stream starts, and
answered as E20 answers it (401, 403, 404 flag or group, 422, 429), in our JSON error
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
from graphql import ExecutionResult, GraphQLSchema, parse, subscribe
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from resolvers.auth.access import authorize
from resolvers.context import Services
from resolvers.errors import ApiError, classify, invalid
from rest.credentials import repeated_key, request_context
from rest.ops.metrics import ROUTE
from rest.responses import error_response
from schema.permissions import field_requirement

PATH = "/v1/units/attribute-groups/{group_id}/units/changes"
OPERATION_ID = "streamUnitAttributeAssignmentChanges"
FIELD = "unitAttributeAssignmentChanges"
HEARTBEAT_SECONDS = 15.0
RETRY_MS = 2_000
DOCUMENT = parse(
    """subscription ($group: ID!, $asset: ID, $after: String) {
  changes: unitAttributeAssignmentChanges(groupId: $group, assetId: $asset, after: $after) {
    change
    cursor
    at
    assignment { group_id: groupId attribute_id: attributeId asset_id: assetId unit_id: unitId }
  }
}"""
)
QUERY_PARAMETERS = frozenset({"asset", "after", "api-key"})


def event_text(change: dict[str, Any]) -> bytes:
    data = {**change["assignment"], "at": change["at"]}
    return (
        f"id: {change['cursor']}\nevent: {change['change']}\ndata: ".encode()
        + orjson.dumps(data)
        + b"\n\n"
    )


def variables_of(request: Request) -> dict[str, Any]:
    """The operation's variables; a parameter given twice is 422, as on every route."""
    repeated = sorted(
        name for name in QUERY_PARAMETERS if len(request.query_params.getlist(name)) > 1
    )
    if repeated:
        raise invalid({name: ["must be given once"] for name in repeated})
    after = request.headers.get("last-event-id") or request.query_params.get("after")
    return {
        "group": request.path_params["group_id"],
        "asset": request.query_params.get("asset"),
        "after": after or None,
    }


def changes_endpoint(schema: GraphQLSchema, services: Services) -> Any:
    # The field's own permission class names what it needs: checked first, as every
    # route checks its root field's, before the query string is looked at.
    assert schema.subscription_type is not None
    requirement = field_requirement(schema.subscription_type.fields[FIELD])
    assert requirement is not None, f"{FIELD} has no permission class"
    permission, flag = requirement

    async def changes(request: Request) -> Response:
        request.scope.setdefault("state", {})[ROUTE] = OPERATION_ID  # for /metrics
        repeated = repeated_key(request)
        if repeated is not None:
            return error_response(repeated)
        context = request_context(request, services)
        try:
            await authorize(context, permission=permission, flag=flag)
            variables = variables_of(request)
        except ApiError as error:
            return error_response(error)
        result = await subscribe(schema, DOCUMENT, context_value=context, variable_values=variables)
        if isinstance(result, ExecutionResult):  # refused before any event
            errors = result.errors or []
            return error_response(classify(errors[0], services.settings.retry_after_seconds))
        return StreamingResponse(
            stream(result),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )

    return changes


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
            yield event_text(result.data["changes"])
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
        with contextlib.suppress(Exception):
            await results.aclose()  # type: ignore[attr-defined]
