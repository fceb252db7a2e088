"""One `subscribe` over the WebSocket, run as /graphql runs an HTTP operation directly
(`schema.execution.running.document`), with the same checks in the same order and the same
errors, then its events, each executed once per process for every subscriber alike
(`schema.execution.event_results`).

Before any event: the document's size and tokens (the cached parse), then the runner
opens it (`schema.execution.running.subscription`): the operation (a subscription: a
query or mutation is `SUBSCRIPTIONS_ONLY`), the key looked up afresh and the root
fields' access (`check_access`), the document's figures, validation, the variables'
lists and the cost, charged to the key, the variables' coercion, then the resolver's
own checks (`create_source_event_stream`). Any refusal is
the subscription's `error`, its payload the errors HTTP answers for the same document
(message and `extensions.code`, formatted by `GraphQLView.format_error`), and nothing
runs. (Strawberry's pipeline let some of them escape as an exception: the client got a
bare `complete`, and the log a traceback; issue 45.)

Each event is the payload of a `next`, rendered once per process for every subscription
of the same document, variables and scope; the message around it (the subscription's
`id`) is added per subscriber.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any, Protocol

import orjson
from graphql import ExecutionResult, GraphQLError, get_operation_ast

from resolvers.context import RequestContext, Services
from resolvers.errors import ApiError
from schema.build import Schema
from schema.execution.event_results import EventResults, share_key
from schema.execution.running.runner import OperationRunner
from schema.execution.running.subscription import Opened, Refusal, SocketSubscription
from storage.attributes.hub import Overflowed
from storage.attributes.pacing import FAN_OUT

NEXT_HEAD = b'{"id":'
NEXT_MIDDLE = b',"type":"next","payload":'


class SocketView(Protocol):
    """What a socket needs of /graphql's view (`rest.graphql_http.view.GraphQLView`)."""

    schema: Schema
    services: Services
    event_results: EventResults

    def format_error(self, error: GraphQLError | ApiError) -> dict[str, Any]: ...


class Outlet(Protocol):
    """Where a subscription's messages go (`rest.graphql_http.ws_handlers`)."""

    @property
    def view(self) -> SocketView: ...  # read only: a socket's may be more (SocketsView)

    async def post(self, text: str) -> None: ...
    async def finish(self, operation_id: str, message: dict[str, Any]) -> None: ...
    def fell_behind(self) -> None: ...


async def run_subscription(
    socket: Outlet, context: RequestContext, operation_id: str, payload: Mapping[str, Any]
) -> None:
    """Refuse the subscription with its `error`, or send its events until it ends, then
    `complete`. Ended when the client completes it or the socket closes: its context is
    released and its task cancelled; it stops at whichever it meets first."""
    opened = await subscribed(socket, context, payload)
    if isinstance(opened, list):
        socket.view.schema.process_errors([e for e in opened if isinstance(e, GraphQLError)])
        if not context.released:  # (else ended meanwhile: nothing to say)
            errors = [socket.view.format_error(error) for error in opened]
            message = {"id": operation_id, "type": "error", "payload": errors}
            await socket.finish(operation_id, message)
        return
    executor, source = opened
    if context.released:  # ended meanwhile (a cancellation pymongo swallowed): stop now
        await close_source(source)
        return
    view = socket.view
    results = view.event_results
    caller = await context.caller()  # looked up already: the checks need it
    share = share_key(
        payload["query"],
        payload.get("operationName"),
        payload.get("variables"),
        caller,
        context.flags,
    )
    head = NEXT_HEAD + orjson.dumps(operation_id) + NEXT_MIDDLE

    def render(result: ExecutionResult) -> bytes:
        data: dict[str, Any] = {"data": result.data}
        if result.errors:
            view.schema.process_errors(result.errors)
            data["errors"] = [view.format_error(error) for error in result.errors]
        return orjson.dumps(data)

    try:
        async for event in source:
            if context.released:
                return
            began = asyncio.get_running_loop().time()
            rendered = await results.result(share, executor, event, render)
            await socket.post((head + (rendered or b"null") + b"}").decode())
            await FAN_OUT.give_way(began)  # one event a step, a share of the loop
    except Overflowed:  # more than MAX_QUEUED events behind: as its socket falling behind
        socket.fell_behind()
        return
    finally:
        await close_source(source)
    if not context.released:
        await socket.finish(operation_id, {"id": operation_id, "type": "complete"})


async def close_source(source: Any) -> None:
    """End the subscription's stream (its resolver's generator gives its slot back)."""
    aclose = getattr(source, "aclose", None)
    if aclose is not None:
        await aclose()


async def subscribed(
    socket: Outlet, context: RequestContext, payload: Mapping[str, Any]
) -> Opened | Refusal:
    """The executor and the stream of events, or the errors that refuse them: the
    document parsed (cached), its operation found, then opened by the runner."""
    schema = socket.view.schema
    name = payload.get("operationName")
    try:
        document = await schema.caches.document(payload["query"])
        operation = get_operation_ast(document, name)
        if operation is None:
            return [GraphQLError(missing_operation(name))]
        opening = SocketSubscription(schema, document, operation, payload.get("variables"), context)
        return await OperationRunner.open(context, opening)
    except (ApiError, GraphQLError) as error:
        return [error]


def missing_operation(name: str | None) -> str:
    """graphql-core's words for a document without the operation asked for."""
    if name is None:
        return "Must provide operation name if query contains multiple operations."
    return f"Unknown operation named '{name}'."
