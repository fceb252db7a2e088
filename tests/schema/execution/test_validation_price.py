"""Validating a new document is priced before it starts, and new documents cannot evict
the documents in use (issue 63, finding 1), through the real app.

A key without any permission sent documents each new (a random number in them), refused
in validation or run once: each cost 25-384 ms of validation for one rate unit, and their
parses (2.6 MB each) evicted everyone's from the 16 MiB cache. Now a document not yet
validated spends one unit per VALIDATION_TOKENS_PER_RATE_UNIT tokens beyond the first
VALIDATION_FREE_TOKENS from the key's bucket (or, without a key, its address's) before
validation, and waits in the new-documents segment until it is asked again. POST, GET
and the WebSocket's `subscribe` go through the same guard.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import httpx
import pytest
import pytest_asyncio

from resolvers.auth.keys import create_key
from resolvers.auth.permissions import ALL_PERMISSIONS
from resolvers.limits import (
    PARSE_TOKENS_PER_RATE_UNIT,
    VALIDATION_FREE_TOKENS,
    VALIDATION_TOKENS_PER_RATE_UNIT,
)
from rest.app import create_app
from schema.execution.guard import DocumentCaches, validation_price
from tests.schema.test_compiled_executor import strawberry_schema_of
from tests.schema.test_graphql_guard import headers
from tests.streams import websocket

pytestmark = pytest.mark.security

BURST = 400  # FLOORGATE_RATE_LIMIT_BURST's default
ADDRESS_BURST = 50  # FLOORGATE_UNAUTHENTICATED_BURST's default


def operations(number: int, count: int) -> str:
    """A valid document of 5 x `count` + 2 tokens (`count` operations `query Q<n>_<i> {
    __typename }`, and the start and end of the text), new for each `number`; its first
    operation is asked (`first`)."""
    return " ".join(f"query Q{number}_{i} {{ __typename }}" for i in range(count))


def first(number: int) -> str:
    return f"Q{number}_0"


def unknown_fields(number: int, count: int) -> str:
    """A document refused in validation (fields the schema does not have), new per number."""
    return f"query Q{number} {{ " + " ".join(f"x{i}" for i in range(count)) + " }"


@pytest.fixture
def limited_app(store, settings) -> Any:
    """The app with the product's rate limits, refilled too slowly to count in a test."""
    limits = replace(
        settings,
        rate_limit_per_second=0.001,
        rate_limit_burst=BURST,
        unauthenticated_rate_per_second=0.001,
        unauthenticated_burst=ADDRESS_BURST,
    )
    return create_app(limits, store)


@pytest_asyncio.fixture
async def limited(limited_app) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=limited_app), base_url="https://t"
    ) as client:
        yield client


def test_the_price_grows_with_the_tokens_beyond_the_free_ones():
    assert (VALIDATION_FREE_TOKENS, VALIDATION_TOKENS_PER_RATE_UNIT) == (200, 8)
    assert PARSE_TOKENS_PER_RATE_UNIT == 25
    prices = [validation_price(words) for words in (0, 200, 201, 208, 209, 442, 5000)]
    assert prices == [0, 0, 1, 1, 2, 31, 600]


async def test_a_new_document_pays_its_validation_once_before_it_starts(store, limited):
    """442 tokens: 31 units for its validation and the request's one; asked again (kept,
    validated) only the request's one, over POST or GET. A document refused in validation
    pays the same."""
    key = (await create_key(store, "no permission, new documents", [], None)).secret
    body = {"query": operations(1, 88), "operationName": first(1)}  # 442 tokens: 31 units
    new = await limited.post("/graphql", json=body, headers=headers(key))
    assert new.json() == {"data": {"__typename": "Query"}}
    assert new.headers["RateLimit-Remaining"] == str(BURST - 1 - 31)
    again = await limited.post("/graphql", json=body, headers=headers(key))
    assert again.json() == {"data": {"__typename": "Query"}}
    assert again.headers["RateLimit-Remaining"] == str(BURST - 1 - 31 - 1)
    over_get = await limited.get("/graphql", params=body, headers=headers(key))
    assert over_get.json() == {"data": {"__typename": "Query"}}
    assert over_get.headers["RateLimit-Remaining"] == str(BURST - 1 - 31 - 2)

    refused = unknown_fields(2, 1000)  # 1,006 tokens: 101 units, refused in validation
    for spent in (1 + 101, 1):
        before = int(over_get.headers["RateLimit-Remaining"])
        answer = await limited.post("/graphql", json={"query": refused}, headers=headers(key))
        body = answer.json()
        assert body["data"] is None
        assert body["errors"][0]["message"] == "Cannot query field 'x0' on type 'Query'."
        assert answer.headers["RateLimit-Remaining"] == str(before - spent)
        over_get = answer


async def test_requests_of_a_new_document_at_once_pay_one_validation(store, limited):
    """Twelve requests of one new document of 442 tokens at once: the first claims its
    validation and pays its 31 units, the others wait for it and pay their own unit only
    (twelve validations paid once took a page's twelve requests 372 units)."""
    key = (await create_key(store, "no permission, at once", [], None)).secret
    body = {"query": operations(3, 88), "operationName": first(3)}

    async def one() -> httpx.Response:
        return await limited.post("/graphql", json=body, headers=headers(key))

    answers = await asyncio.gather(*(one() for _ in range(12)))
    assert [answer.json() for answer in answers] == [{"data": {"__typename": "Query"}}] * 12
    spent = BURST - min(int(answer.headers["RateLimit-Remaining"]) for answer in answers)
    assert spent == 12 + 31


async def test_new_documents_past_the_bucket_are_refused_before_validation(store, limited):
    """A key that floods new documents of 2,006 tokens (226 units each) is refused on its
    second, before anything validates it, as a refused charge is (Retry-After); the parse
    it made is owed (2,006 / 25 units)."""
    key = (await create_key(store, "no permission, flood", [], None)).secret
    codes, remaining = [], []
    for number in range(2):
        answer = await limited.post(
            "/graphql", json={"query": unknown_fields(100 + number, 2000)}, headers=headers(key)
        )
        codes.append(answer.json()["errors"][0].get("extensions", {}).get("code"))
        remaining.append(int(answer.headers["RateLimit-Remaining"]))
    assert codes == ["BAD_USER_INPUT", "RATE_LIMITED"], codes
    assert answer.status_code == 200  # /graphql answers a refusal as its one error
    assert int(answer.headers["Retry-After"]) > 0
    after_first = BURST - 1 - 226
    assert remaining == [after_first, int(after_first - 1 - 2006 / PARSE_TOKENS_PER_RATE_UNIT)]


async def test_a_document_of_the_most_tokens_is_validated_from_a_full_bucket(store, limited):
    """4,990 tokens would cost 599 units: a key pays at most its full bucket less the
    request's own unit, so any document within the token limit is validated, after a
    pause."""
    key = (await create_key(store, "no permission, largest", [], None)).secret
    query = unknown_fields(200, 4984)
    answer = await limited.post("/graphql", json={"query": query}, headers=headers(key))
    assert answer.json()["errors"][0]["message"] == "Cannot query field 'x0' on type 'Query'."
    assert answer.headers["RateLimit-Remaining"] == "0"


async def test_a_keyless_new_document_pays_from_its_address(limited):
    """Without a key only introspection runs, and its new documents spend the address's
    bucket (50): one of 442 tokens costs 31 units beside the request's; asked again only
    the request's; another new one finds 17 and is refused."""
    answers = []
    for number in (10, 10, 11):
        body = {"query": operations(number, 88), "operationName": first(number)}
        answers.append(await limited.post("/graphql", json=body, headers=headers(None)))
    assert [answer.json() for answer in answers[:2]] == [{"data": {"__typename": "Query"}}] * 2
    assert answers[2].json()["errors"][0]["extensions"]["code"] == "RATE_LIMITED"
    assert int(answers[2].headers["Retry-After"]) > 0


async def test_refused_big_documents_do_not_evict_a_document_in_use(client, keys):
    """20 refused documents of 4,990 tokens (about 3 MB parsed each, 60 MB in all) pass
    through the new-documents segment; the document asked twice stays."""
    caches: DocumentCaches = strawberry_schema_of(client._transport.app).caches
    hot = "query Hot { assets(perPage: 1) { data { id } } }"
    for _ in range(2):
        answer = await client.post("/graphql", json={"query": hot}, headers=headers(keys.full))
        assert answer.json()["data"]["assets"]["data"], answer.json()
    [kept] = [key for key, (entry, _) in caches.entries.entries.items() if is_hot(entry)]
    for number in range(20):
        answer = await client.post(
            "/graphql",
            json={"query": unknown_fields(1000 + number, 4984)},
            headers=headers(keys.plain),
        )
        assert answer.json()["errors"][0]["message"] == "Cannot query field 'x0' on type 'Query'."
    assert kept in caches.entries
    assert not any(is_hot(entry) for entry, _ in caches.new.entries.values())
    big = [entry for entry, _ in caches.new.entries.values() if entry.words > 4000]
    assert 1 <= len(big) <= 2  # a quarter of 16 MiB holds one or two of them
    assert not any(entry.words > 4000 for entry, _ in caches.entries.entries.values())
    assert caches.figures()["budget_bytes"] == 16 * 1024 * 1024


def is_hot(entry) -> bool:
    return entry.document.loc.source.body.startswith("query Hot ")


async def test_a_new_document_over_the_websocket_pays_the_same(store, limited_app):
    """A `subscribe` goes through the same guard: a new subscription document of 1,014
    tokens refused in validation spends 102 units of the key's bucket beside its lookup's,
    asked again only its lookup's; an HTTP request after it shows the bucket."""
    key = (await create_key(store, "subscriber", list(ALL_PERMISSIONS), None)).secret
    fields = " ".join(f"x{i}" for i in range(1000))
    query = f'subscription S {{ unitAttributeAssignmentChanges(groupId: "g") {{ {fields} }} }}'
    payload = {"API-Key": key, "Experimental-Flags": "unit-attributes-resource"}
    async with websocket(limited_app) as socket:
        await socket.send({"type": "connection_init", "payload": payload})
        assert await socket.receive() == {"type": "connection_ack"}
        for number in ("1", "2"):
            await socket.send({"id": number, "type": "subscribe", "payload": {"query": query}})
            message = await socket.receive()
            assert (message["type"], message["id"]) == ("error", number), message
            assert message["payload"][0]["message"] == (
                "Cannot query field 'x0' on type 'UnitAttributeAssignmentChange'."
            )
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=limited_app), base_url="https://t"
    ) as client:
        answer = await client.get("/v1/assets", headers={"API-Key": key})
    # the socket's own lookup, two subscribes' lookups, one validation, this GET's unit
    assert answer.headers["RateLimit-Remaining"] == str(BURST - 1 - 2 - 102 - 1)
