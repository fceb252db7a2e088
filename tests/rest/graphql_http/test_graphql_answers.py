"""Whole answers of /graphql queries are kept like REST GETs' (schema/execution/running/request.py):
per document, operation, variables and caller; dropped by a write; never for a
mutation or an answer with errors; access and the rate limit still apply."""

from __future__ import annotations

from dataclasses import replace

import httpx
import pytest

from rest.app import create_app
from tests.caught_up import caught_up

UNITS = "query Units($n: Int) { units(perPage: $n) { data { id name assetId } } }"


@pytest.fixture
async def live(store):
    """The cache serving, and every change an earlier test made already seen."""
    return await caught_up(store)


async def post(client, key: str | None, query: str, variables=None, name=None, flags=None):
    headers = {"API-Key": key} if key else {}
    if flags:
        headers["Experimental-Flags"] = flags
    body = {"query": query, "variables": variables, "operationName": name}
    return await client.post("/graphql", json=body, headers=headers)


async def test_a_query_answer_is_kept_per_caller_and_dropped_by_a_write(client, keys, store, live):
    first = await post(client, keys.full, UNITS, {"n": 40})
    assert first.status_code == 200 and "errors" not in first.json()
    hits = live.answer_hits
    again = await post(client, keys.full, UNITS, {"n": 40})
    assert live.answer_hits == hits + 1
    assert (again.status_code, again.content) == (200, first.content)
    assert again.headers["content-type"] == first.headers["content-type"] == "application/json"
    scoped = await post(client, keys.scoped, UNITS, {"n": 40})  # another scope: not a hit
    assert live.answer_hits == hits + 1
    assert {u["assetId"] for u in scoped.json()["data"]["units"]["data"]} == {"asset-2"}
    unit = first.json()["data"]["units"]["data"][0]
    await store["units"].update_one({"_id": unit["id"]}, {"$set": {"name": "renamed"}})
    try:
        changed = await post(client, keys.full, UNITS, {"n": 40})
        assert changed.json()["data"]["units"]["data"][0]["name"] == "renamed"
        assert live.answer_hits == hits + 1
    finally:
        await store["units"].update_one({"_id": unit["id"]}, {"$set": {"name": unit["name"]}})
    assert (await post(client, keys.full, UNITS, {"n": 40})).content == first.content


async def test_variables_and_the_operation_name_are_part_of_the_key(client, keys, live):
    two = (
        "query A { units(perPage: 2) { data { id } } } "
        "query B { units(perPage: 3) { data { id } } }"
    )
    a = await post(client, keys.full, two, name="A")
    b = await post(client, keys.full, two, name="B")
    assert [len(r.json()["data"]["units"]["data"]) for r in (a, b)] == [2, 3]
    assert (await post(client, keys.full, two, name="B")).content == b.content
    hits = live.answer_hits
    five = await post(client, keys.full, UNITS, {"n": 5})
    six = await post(client, keys.full, UNITS, {"n": 6})
    assert [len(r.json()["data"]["units"]["data"]) for r in (five, six)] == [5, 6]
    assert live.answer_hits == hits


async def test_a_get_is_answered_from_the_same_kept_answer(client, keys, live):
    posted = await post(client, keys.full, UNITS, {"n": 7})
    hits = live.answer_hits
    got = await client.get(
        "/graphql", params={"query": UNITS, "variables": '{"n": 7}'}, headers={"API-Key": keys.full}
    )
    assert (got.status_code, got.content) == (200, posted.content)
    assert live.answer_hits == hits + 1


async def test_a_kept_answer_still_checks_access_first(client, keys, live):
    query = "{ assetReferences(perPage: 2) { data { id } } }"
    first = await post(client, keys.full, query, flags="references")
    assert first.status_code == 200 and "errors" not in first.json()
    assert (await post(client, keys.full, query, flags="references")).content == first.content
    hits = live.answer_hits
    without_flag = (await post(client, keys.full, query)).json()
    assert without_flag["data"] is None
    assert without_flag["errors"][0]["extensions"]["code"] == "FLAG_REQUIRED"
    plain = (await post(client, keys.plain, query, flags="references")).json()
    assert plain["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    no_key = await post(client, None, query, flags="references")
    assert no_key.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
    disabled = await post(client, keys.disabled, query, flags="references")
    assert disabled.json()["errors"][0]["extensions"]["code"] == "INVALID_KEY"
    assert live.answer_hits == hits


async def test_a_kept_answer_spends_the_rate_limit_units_of_its_cost(store, settings, keys, live):
    """This query is priced 50,001 (6 units needed before it runs) and its answer holds a
    dozen units of four fields: one unit spent on its first run, and one when its kept
    answer is served (were the kept answer free, 12 would be left after it)."""
    limited = replace(settings, rate_limit_per_second=0.01, rate_limit_burst=13)
    transport = httpx.ASGITransport(app=create_app(limited, store))
    async with httpx.AsyncClient(transport=transport, base_url="https://t") as client:
        big = "{ units(perPage: 10000) { data { id name assetId floorId } } }"
        first = await post(client, keys.full, big)
        hits = live.answer_hits
        kept = await post(client, keys.full, big)
        assert live.answer_hits == hits + 1 and kept.content == first.content
        small = "{ units(perPage: 1) { data { id } } }"
        for _ in range(11):
            assert "errors" not in (await post(client, keys.full, small)).json()
        refused = (await post(client, keys.full, small)).json()
    assert [first.headers["RateLimit-Remaining"], kept.headers["RateLimit-Remaining"]] == [
        "12",
        "11",
    ]
    assert refused["data"] is None
    assert refused["errors"][0]["extensions"]["code"] == "RATE_LIMITED"


async def test_mutations_and_answers_with_errors_are_never_kept(client, keys, live):
    mutation = 'mutation { deleteLocation(id: "no-such-location") }'
    with_error = '{ asset(id: "asset-1") { id } units(perPage: 0) { data { id } } }'
    hits = live.answer_hits
    for query in (mutation, mutation, with_error, with_error):
        body = (await post(client, keys.full, query)).json()
        assert (
            body.get("errors")
            if query is with_error
            else body == {"data": {"deleteLocation": False}}
        )
    assert live.answer_hits == hits


def refused(reason: str) -> tuple[int, dict]:
    return 422, {"message": "Resource validation failed", "fields": {"body": [reason]}}


SYNTAX = "Syntax Error: Expected Name, found <EOF>."
MALFORMED = {
    b"{": refused("Unable to parse request body as JSON"),
    b"[]": refused("Batching is not enabled"),
    # JSON that is no object: strawberry's reading of it failed, a 500
    b"5": refused("The GraphQL request must be a JSON object."),
    b"null": refused("The GraphQL request must be a JSON object."),
    b'"{ units { data { id } } }"': refused("The GraphQL request must be a JSON object."),
    # the GraphQL spec's request error; strawberry ran the first operation
    b'{"query": "query A { __typename } query B { __typename }"}': (
        422,
        {
            "message": "Resource validation failed",
            "fields": {
                "operationName": [
                    "Must provide operation name if query contains multiple operations."
                ]
            },
        },
    ),
    b"{}": refused("No GraphQL query found in the request"),
    b'{"query": null}': refused("No GraphQL query found in the request"),
    b'{"query": "{ __typename }", "operationName": 5}': refused(
        "The GraphQL operation's `operationName` must be a string or null, if provided."
    ),
    b'{"query": "query A { __typename }", "operationName": "B"}': refused(
        'Unknown operation named "B".'
    ),
    b'{"query": "fragment F on Query { __typename }"}': refused("Can't get GraphQL operation type"),
    b'{"query": 5}': refused(
        "The GraphQL operation's `query` must be a string or null, if provided."
    ),
    b'{"query": "{ units(perPage: 1) { data { id } } }", "variables": [1]}': refused(
        "The GraphQL operation's `variables` must be an object or null, if provided."
    ),
    b'{"query": "{ units { data { id } }"}': (
        200,
        {
            "data": None,
            "errors": [
                {
                    "message": SYNTAX,
                    "locations": [{"line": 1, "column": 24}],
                    "extensions": {"code": "BAD_USER_INPUT", "fields": {"query": [SYNTAX]}},
                }
            ],
        },
    ),
}


@pytest.mark.parametrize("body", list(MALFORMED))
async def test_malformed_requests_are_answered_as_before(client, keys, live, body):
    """Not plainly one operation: refused by the view, in strawberry's words, twice the
    same (nothing of it is kept)."""
    headers = {"API-Key": keys.full, "Content-Type": "application/json"}
    for _ in range(2):
        answer = await client.post("/graphql", content=body, headers=headers)
        assert (answer.status_code, answer.json()) == MALFORMED[body]


MALFORMED_GETS = {
    "query=mutation%20%7B__typename%7D": refused("mutations are not allowed when using GET"),
    "query=%7B__typename%7D&variables=%7B": refused("Unable to parse request body as JSON"),
    "query=%7B__typename%7D&variables=5": refused(
        "The GraphQL operation's `variables` must be an object or null, if provided."
    ),
    "variables=%7B%7D&operationName=A": refused("No GraphQL query found in the request"),
}


@pytest.mark.parametrize("query", list(MALFORMED_GETS))
async def test_malformed_gets_are_refused_in_the_same_words(client, keys, live, query):
    headers = {"API-Key": keys.full, "Accept": "application/json"}
    answer = await client.get(f"/graphql?{query}", headers=headers)
    assert (answer.status_code, answer.json()) == MALFORMED_GETS[query]


@pytest.mark.parametrize(
    "content_type", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data", None]
)
async def test_a_body_that_is_not_json_is_415(client, keys, live, content_type):
    headers = {"API-Key": keys.full} | ({"Content-Type": content_type} if content_type else {})
    answer = await client.post("/graphql", content=b'{"query": "{ __typename }"}', headers=headers)
    assert (answer.status_code, answer.json()) == (
        415,
        {"message": "Content type must be application/json"},
    )
