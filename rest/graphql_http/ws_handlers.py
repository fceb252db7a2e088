"""The graphql-transport-ws handler of /graphql, quiet about clients that are gone.

strawberry logs any error of a subscription's task with its traceback ("Exception in
worker task"). A message sent to a client that has just disconnected (or to every
client while the server stops: `rest/ops/stop_signals.py` ends the subscriptions while
uvicorn closes the sockets) fails with `WebSocketDisconnected`: nothing is wrong, and a
traceback in the log for it would hide the ones that matter. Those are logged at debug;
every other error as strawberry logs it."""

from __future__ import annotations

import logging

from strawberry.http.exceptions import WebSocketDisconnected
from strawberry.subscriptions.protocols.graphql_transport_ws.handlers import (
    BaseGraphQLTransportWSHandler,
)
from uvicorn.protocols.utils import ClientDisconnected

log = logging.getLogger(__name__)

GONE = (WebSocketDisconnected, ClientDisconnected, ConnectionError)
"""What a send to a closed socket raises: through Starlette and strawberry, uvicorn's own
ClientDisconnected, or the transport's connection errors."""


class QuietTransportWSHandler(BaseGraphQLTransportWSHandler):  # type: ignore[type-arg]
    """strawberry's handler; a client gone is no error."""

    async def handle_task_exception(self, error: Exception) -> None:
        if isinstance(error, GONE):
            log.debug("a subscription's client was gone: %s", type(error).__name__)
            return
        await super().handle_task_exception(error)
