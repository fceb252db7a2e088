"""The graphql-transport-ws socket of /graphql: strawberry's handler of the protocol's
messages, with our guards (docs/graphql.md, "Subscriptions"; docs/limits.md, "Live
changes"). The older `graphql-ws` is not served (`rest.graphql_http.view`).

- No `connection_init` within FLOORGATE_HEADER_TIMEOUT_SECONDS: closed with 4408
  (strawberry's timer).
- `connection_init` looks the key up afresh (its payload's `API-Key`, else the upgrade's
  header): an invalid one closes the socket with 4403; a key over its open sockets
  (FLOORGATE_MAX_SOCKETS_PER_KEY, over every process) with 4429. Else `connection_ack`,
  and the socket holds its slot until it closes. A key disabled meanwhile closes it with
  4403 (`rest.graphql_http.sockets`).
- Each message the client sends takes a turn of the socket's pace (WS_MESSAGE_BURST,
  then WS_MESSAGES_PER_SECOND) and, once acknowledged, of its key's in this process
  (WS_KEY_MESSAGE_BURST, then WS_KEY_MESSAGES_PER_SECOND, shared by the key's sockets):
  past either it waits for its turn, and the socket is not read meanwhile
  (`rest.graphql_http.sockets.MessageBudget`).
  A message that is not a JSON object of the protocol closes it with 4400.
- Each `subscribe` is a request of its own (`RequestContext.renewed`): its key looked up
  through the key cache and charged, its document checked as over HTTP, its answer an
  `error` with HTTP's errors when refused (`rest.graphql_http.ws_subscriptions`). Its
  slot is given back when it completes, either way, or when the socket closes, whether
  or not its resolver had returned.
- Everything the server sends goes through one bounded queue per socket and one writer
  (WS_OUTBOX_MESSAGES): a subscription waits while it is full, and once one falls more
  than MAX_QUEUED changes behind (its client does not read) the socket is closed (1013)
  with its subscriptions ended; nobody else waits for it.

No traceback for a client that is gone: a send to a socket that has just closed (or to
every socket while the server stops, `rest/ops/stop_signals.py`) fails with one of
`GONE`; those are logged at debug.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping
from typing import Any, Protocol

import orjson
from bson import ObjectId
from starlette.websockets import WebSocketDisconnect
from strawberry.http.exceptions import WebSocketDisconnected
from strawberry.subscriptions.protocols.graphql_transport_ws.handlers import (
    BaseGraphQLTransportWSHandler,
)
from strawberry.subscriptions.protocols.graphql_transport_ws.types import (
    CompleteMessage,
    ConnectionInitMessage,
    Message,
    SubscribeMessage,
)
from uvicorn.protocols.utils import ClientDisconnected

from resolvers.auth.keys import Caller
from resolvers.context import RequestContext
from resolvers.errors import ApiError, ErrorCode
from resolvers.limits import (
    MAX_OPERATION_ID_CHARS,
    WS_MESSAGE_BURST,
    WS_MESSAGES_PER_SECOND,
    WS_OUTBOX_MESSAGES,
)
from rest.credentials import connection_credentials
from rest.graphql_http.sockets import MessageBudget, Sockets
from rest.graphql_http.ws_subscriptions import SocketView, run_subscription
from storage.attributes.hub import MAX_QUEUED, stop
from storage.attributes.pacing import FAN_OUT
from storage.database import UNAVAILABLE_ERRORS

log = logging.getLogger(__name__)

GONE = (WebSocketDisconnected, WebSocketDisconnect, ClientDisconnected, ConnectionError)
"""What a send to a closed socket raises: through Starlette and strawberry, uvicorn's own
ClientDisconnected, or the transport's connection errors."""

# Close codes (the graphql-transport-ws protocol's, and RFC 6455's 1013).
BAD_REQUEST = 4400
FORBIDDEN = 4403
TOO_MANY = 4429  # too many sockets of the key, or a keyless upgrade over its budget
TRY_AGAIN_LATER = 1013  # the client reads too slowly: reconnect and resume
MAX_REASON_BYTES = 123  # of a close frame's reason (RFC 6455)
SENT_PER_STEP = 8  # messages the writer sends before it lets the event loop serve others


def reason_of(text: str) -> str:
    """`text` cut to what a close frame carries, on a character boundary."""
    return text.encode()[:MAX_REASON_BYTES].decode(errors="ignore")


def close_code(error: ApiError) -> int:
    """The close code of a refusal: too many (4429), bad input (4400), the database away
    (1013), else the key (4403)."""
    if error.code is ErrorCode.RATE_LIMITED:
        return TOO_MANY
    if error.code is ErrorCode.BAD_USER_INPUT:
        return BAD_REQUEST
    if error.code is ErrorCode.SERVICE_UNAVAILABLE:
        return TRY_AGAIN_LATER
    return FORBIDDEN


def subscribe_problem(message: Mapping[str, Any]) -> str | None:
    """What makes a `subscribe` message unreadable, if anything (closed with 4400)."""
    operation_id, payload = message.get("id"), message.get("payload")
    if not isinstance(operation_id, str) or not operation_id:
        return "Invalid message: a subscribe needs an id"
    if len(operation_id) > MAX_OPERATION_ID_CHARS:
        return f"Invalid message: an id has at most {MAX_OPERATION_ID_CHARS} characters"
    if not isinstance(payload, dict) or not isinstance(payload.get("query"), str):
        return "Invalid message: a subscribe needs a payload with a query"
    if not isinstance(payload.get("variables") or {}, dict):
        return "Invalid message: variables must be an object"
    if not isinstance(payload.get("operationName") or "", str):
        return "Invalid message: operationName must be a string"
    return None


class Running:
    """A subscription under way: its request's context and its task. Ended, it gives
    back what it holds at once and its task is cancelled. The cancellation alone is not
    enough: pymongo's async API swallows one that arrives while it waits for the
    database (the task goes on as if never cancelled: churn left slots held that way),
    so the subscription also stops once its context is released
    (`rest.graphql_http.ws_subscriptions`)."""

    def __init__(self, context: RequestContext) -> None:
        self.context = context
        self.task: asyncio.Task[None] | None = None

    def end(self) -> None:
        self.context.release()
        if self.task is not None:
            self.task.cancel()


class SocketsView(SocketView, Protocol):
    """The view, with its registry of sockets."""

    sockets: Sockets


class SubscriptionSocket(BaseGraphQLTransportWSHandler[RequestContext, None]):
    """One socket: strawberry's protocol handling, our guards."""

    # strawberry's view, here /graphql's (`rest.graphql_http.view.GraphQLView`, which imports
    # this module): both a strawberry view and a SocketsView, which no type here can say.
    view: SocketsView  # type: ignore[assignment]  # GraphQLView: strawberry's and ours
    context: RequestContext

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.budget = MessageBudget(WS_MESSAGES_PER_SECOND, WS_MESSAGE_BURST)
        self.outbox: asyncio.Queue[str] = asyncio.Queue(WS_OUTBOX_MESSAGES)
        self.writer: asyncio.Task[None] | None = None
        self.tasks: dict[str, Running] = {}  # the subscriptions running
        self.caller: Caller | None = None
        self.slot: ObjectId | None = None
        self.closed = False
        self.closing: asyncio.Task[None] | None = None

    # -- the socket's life -------------------------------------------------------------

    async def handle(self) -> None:
        self.writer = asyncio.create_task(self._write())
        await super().handle()

    async def shutdown(self) -> None:
        """The socket is gone: its subscriptions end (their slots are given back as
        their tasks end), its own slot is given back, the writer stops."""
        self.closed = True
        await super().shutdown()  # the init timer
        self.end_subscriptions()
        tasks = [*(running.task for running in self.tasks.values()), self.writer, self.closing]
        for task in tasks:
            if task is not None:
                task.cancel()
        for task in tasks:
            if task is not None:
                await stop(task)  # cancelled again if pymongo swallowed it
        if self.caller is not None and self.slot is not None:
            self.view.sockets.leave(self, self.caller, self.slot)
            self.slot = None
        # A finished task keeps its exception, whose traceback holds the frame that holds
        # this socket: a cycle the collector frees only at its rare full collections
        # (`rest.app.settle_heap`), and with it the connection's buffers. RSS grew 15 MB
        # for every 500 sockets opened and closed. Without the references, no cycle.
        self.tasks.clear()
        self.writer = self.closing = self.connection_init_timeout_task = None

    async def close(self, code: int, reason: str) -> None:
        """Close the socket (once; later calls do nothing). What was not sent yet is
        dropped: the reason is what matters now."""
        if self.closed:
            return
        self.closed = True
        if self.writer is not None:
            self.writer.cancel()
        with contextlib.suppress(RuntimeError, *GONE):  # the client left first
            await self.websocket.close(code=code, reason=reason_of(reason))

    def revoke(self) -> None:
        """The key was disabled or deleted: the subscriptions end now, the socket closes
        (4403) as soon as it can be written to."""
        self.end_subscriptions()
        self.close_soon(FORBIDDEN, ApiError(ErrorCode.INVALID_KEY).message)

    def close_soon(self, code: int, reason: str) -> None:
        """`close` from outside the socket's task (it may wait for a full send buffer)."""
        if self.closing is None:
            self.closing = asyncio.create_task(self.close(code, reason))

    def end_subscriptions(self) -> None:
        for running in self.tasks.values():
            running.end()

    async def handle_connection_init_timeout(self) -> None:
        delay = self.connection_init_wait_timeout.total_seconds()
        await asyncio.sleep(delay)
        if not self.connection_init_received:
            self.connection_timed_out = True
            await self.close(4408, "Connection initialisation timeout")

    async def handle_invalid_message(self, error_message: str) -> None:
        await self.close(BAD_REQUEST, error_message)

    async def handle_task_exception(self, error: Exception) -> None:
        if isinstance(error, GONE):
            log.debug("a subscription's client was gone: %s", type(error).__name__)
            return
        await super().handle_task_exception(error)

    # -- what the client sends ---------------------------------------------------------

    async def handle_message(self, message: Message) -> None:
        if self.closed:
            return
        await self.budget.take()  # past the socket's pace, its turn (the reads wait)
        if self.closed:
            return
        if not isinstance(message, dict) or not isinstance(message.get("type"), str):
            await self.handle_invalid_message("Invalid message: a JSON object with a type")
            return
        await super().handle_message(message)

    async def handle_connection_init(self, message: ConnectionInitMessage) -> None:
        """The key (looked up afresh, with the payload's credentials), then the key's
        socket slot, then `connection_ack`."""
        if self.connection_timed_out:
            return
        if self.connection_init_timeout_task:
            self.connection_init_timeout_task.cancel()
        payload = message.get("payload") or {}
        if not isinstance(payload, dict):
            await self.close(BAD_REQUEST, "Invalid connection init payload")
            return
        if self.connection_init_received:
            await self.close(TOO_MANY, "Too many initialisation requests")
            return
        self.connection_init_received = True
        context = self.context.renewed()
        connection_credentials(context, payload)
        checked = self.view.services.event_hub.key_changes
        try:
            caller = await context.caller()
        except ApiError as error:
            await self.close(close_code(error), error.message)
            return
        try:
            slot = await self.view.sockets.admit(self, caller, checked)
        except UNAVAILABLE_ERRORS:  # the slot cannot be counted: come back later
            await self.close(TRY_AGAIN_LATER, ApiError(ErrorCode.SERVICE_UNAVAILABLE).message)
            return
        if slot is None:
            limit = self.view.services.settings.max_sockets_per_key
            await self.close(
                TOO_MANY, ApiError(ErrorCode.TOO_MANY_SOCKETS, limit=str(limit)).message
            )
            return
        self.caller, self.slot, self.context = caller, slot, context
        self.budget.shared = self.view.sockets.pace_of(caller.key_id)
        if self.closed:  # closed meanwhile (the client left): `shutdown` gives it back
            return
        self.connection_acknowledged = True
        await self.send_message({"type": "connection_ack"})

    async def handle_subscribe(self, message: SubscribeMessage) -> None:
        if not self.connection_acknowledged:
            await self.close(4401, "Unauthorized")
            return
        problem = subscribe_problem(message)
        if problem is not None:
            await self.close(BAD_REQUEST, problem)
            return
        operation_id = message["id"]
        if operation_id in self.tasks:
            await self.close(4409, f"Subscriber for {operation_id} already exists")
            return
        context = self.context.renewed()
        running = Running(context)
        self.tasks[operation_id] = running
        running.task = asyncio.create_task(
            self.run_subscription(operation_id, message["payload"], running)
        )

    async def handle_complete(self, message: CompleteMessage) -> None:
        operation_id = message.get("id")
        running = self.tasks.pop(operation_id, None) if isinstance(operation_id, str) else None
        if running is not None:
            running.end()  # its slot is given back now, whatever it was doing

    async def run_subscription(
        self, operation_id: str, payload: Mapping[str, Any], running: Running
    ) -> None:
        """One subscription, a request of its own; what it holds is given back when it
        ends, however it ends."""
        context = running.context
        try:
            await run_subscription(self, context, operation_id, payload)
        except asyncio.CancelledError:
            pass  # completed by the client, or the socket closed: nothing to say
        except Exception as error:
            await self.handle_task_exception(error)
            await self.finish(operation_id, {"id": operation_id, "type": "complete"})
        finally:
            context.release()
            if self.tasks.get(operation_id) is running:
                del self.tasks[operation_id]

    # -- what the server sends ---------------------------------------------------------

    async def finish(self, operation_id: str, message: dict[str, Any]) -> None:
        """A subscription's last message (`error` or `complete`): its id is free again
        before the client can read it, as the protocol wants."""
        running = self.tasks.get(operation_id)
        if running is not None and running.task is asyncio.current_task():
            del self.tasks[operation_id]
        await self.post(orjson.dumps(message).decode())

    async def send_message(self, message: Message) -> None:
        await self.post(orjson.dumps(message).decode())

    async def post(self, text: str) -> None:
        """Queue a message for the writer; wait while WS_OUTBOX_MESSAGES are queued (the
        client reads slower than its changes come: its subscriptions fall behind in the
        hub, and past MAX_QUEUED changes `fell_behind` ends them)."""
        if not self.closed:
            await self.outbox.put(text)

    def fell_behind(self) -> None:
        """A subscription of this socket is more than MAX_QUEUED changes behind: its
        client does not keep up. Every subscription ends and the socket closes (1013) as
        soon as it can: nobody else waits for it, its client resumes from its cursors."""
        self.end_subscriptions()
        error = ApiError(ErrorCode.SOCKET_BEHIND, limit=str(MAX_QUEUED))
        self.close_soon(TRY_AGAIN_LATER, error.message)

    async def _write(self) -> None:
        """Send what is queued, in order; a few messages a step, so that a socket with
        hundreds queued does not hold the event loop while it encrypts them all."""
        socket = self.websocket.ws  # type: ignore[attr-defined]  # Starlette adapter's socket
        with contextlib.suppress(RuntimeError, *GONE):  # closed: nothing more goes out
            while True:
                text = await self.outbox.get()
                began = asyncio.get_running_loop().time()
                await socket.send_text(text)
                for _ in range(min(SENT_PER_STEP - 1, self.outbox.qsize())):
                    await socket.send_text(self.outbox.get_nowait())
                await FAN_OUT.give_way(began)
