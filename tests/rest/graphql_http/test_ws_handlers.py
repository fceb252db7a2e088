"""A subscription whose client is gone logs no traceback (rest/graphql_http/ws_handlers.py):
the e2e shutdown test once found "Exception in worker task" in the server's log, a
`complete` sent to a socket uvicorn had just closed."""

from __future__ import annotations

import logging

import pytest
from strawberry.http.exceptions import WebSocketDisconnected
from uvicorn.protocols.utils import ClientDisconnected

from rest.graphql_http.view import GraphQLView
from rest.graphql_http.ws_handlers import SubscriptionSocket


def handler() -> SubscriptionSocket:
    """A handler with nothing behind it: only its error path runs."""
    return SubscriptionSocket.__new__(SubscriptionSocket)


@pytest.mark.parametrize(
    "error", [WebSocketDisconnected(), ClientDisconnected(), ConnectionResetError()]
)
async def test_a_client_gone_is_no_error(error, caplog):
    with caplog.at_level(logging.DEBUG):
        await handler().handle_task_exception(error)
    assert [(r.name, r.levelname) for r in caplog.records] == [
        ("rest.graphql_http.ws_handlers", "DEBUG")
    ]


async def test_any_other_error_is_logged_with_its_traceback(caplog):
    try:
        raise ValueError("a bug")
    except ValueError as error:
        with caplog.at_level(logging.DEBUG):
            await handler().handle_task_exception(error)
    [record] = caplog.records
    assert (record.name, record.levelname, record.getMessage()) == (
        "strawberry.ws.task",
        "ERROR",
        "Exception in worker task",
    )
    assert record.exc_info is not None and record.exc_info[1].args == ("a bug",)


def test_the_view_uses_it():
    assert GraphQLView.graphql_transport_ws_handler_class is SubscriptionSocket
