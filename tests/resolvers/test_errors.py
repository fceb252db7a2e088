"""A database that does not answer: 503 with `Retry-After`, in our error format, and a
log line that names the driver's reason, whether the key lookup or the read failed."""

from __future__ import annotations

import logging

import pytest
from pymongo.asynchronous.collection import AsyncCollection
from pymongo.errors import ServerSelectionTimeoutError

from resolvers.auth.keys import create_key
from resolvers.errors import ErrorCode, classify_raised

LINE = "database unavailable (ServerSelectionTimeoutError): answered 503"


async def test_a_key_lookup_without_database_is_503_and_logged(client, store, monkeypatch, caplog):
    # A key made now: no process has it cached, so the request must look it up.
    secret = (await create_key(store, "away", [], None)).secret

    async def away(*args: object, **kwargs: object) -> None:
        raise ServerSelectionTimeoutError("no server answered")

    monkeypatch.setattr(AsyncCollection, "find_one", away)
    with caplog.at_level(logging.WARNING, logger="floorgate"):
        response = await client.get("/v1/assets/asset-1", headers={"API-Key": secret})
    assert response.status_code == 503
    assert response.json() == {"message": "Service unavailable"}
    assert response.headers["retry-after"] == "5"
    assert [r.getMessage() for r in caplog.records if r.name == "floorgate"] == [LINE]


def test_a_resolver_raising_database_away_is_503_and_logged(caplog):
    with caplog.at_level(logging.WARNING, logger="floorgate"):
        error = classify_raised(ServerSelectionTimeoutError("no server answered"), 7)
    assert (error.code, error.retry_after) == (ErrorCode.SERVICE_UNAVAILABLE, 7)
    assert [r.getMessage() for r in caplog.records] == [LINE]


@pytest.mark.parametrize("raised", [ValueError("ours"), KeyError("x")])
def test_a_bug_of_ours_is_500_and_not_called_the_database(raised, caplog):
    with caplog.at_level(logging.WARNING, logger="floorgate"):
        error = classify_raised(raised, 7)
    assert error.code is ErrorCode.INTERNAL
    assert caplog.records == []
