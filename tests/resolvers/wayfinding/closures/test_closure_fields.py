"""The closures' fields through the real app, on both faces (issue 50): every status
with its exact body (200, 204, 401, 403, the flag's 404, 404 for a map the key may not
see, 422 for each input), closing again replaces, reopening, a closure ending by itself
at `until` although its listing was kept, and the write-scope rule."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta

import pytest

from resolvers.limits import MAX_CLOSURE_DAYS, MAX_CLOSURE_REASON_CHARS
from storage import collections as c
from storage.timestamps import format_timestamp
from tests.resolvers.wayfinding.closures.closure_env import MAP, Env, cleared, world

env = world()
no_closures = cleared()

PATH = f"/v1/unitmaps/{MAP}/closures"
CLOSE = """mutation ($m: ID!, $c: ID, $u: ID, $until: Timestamp, $r: String) {
  close(unitMapId: $m, connectorId: $c, unitId: $u, until: $until, reason: $r) {
    unitMapId kind connectorId unitId connectorKind name until reason } }"""
CLOSE_CONNECTOR = """mutation ($m: ID!, $c: ID!, $until: Timestamp) {
  closeConnector(unitMapId: $m, connectorId: $c, until: $until) { kind connectorId name } }"""
CLOSE_UNIT = """mutation ($m: ID!, $u: ID!, $r: String) {
  closeUnit(unitMapId: $m, unitId: $u, reason: $r) { kind unitId name reason } }"""
REOPEN = "mutation ($m: ID!, $c: ID, $u: ID) { reopen(unitMapId: $m, connectorId: $c, unitId: $u) }"
LIST = "query ($m: ID!) { closures(unitMapId: $m) { kind connectorId unitId name until } }"
LIFT = {
    "unit_map_id": MAP,
    "kind": "connector",
    "connector_id": "cl-lift",
    "unit_id": None,
    "connector_kind": "elevator",
    "name": "Lift A",
    "until": None,
    "reason": "Service",
}
LOBBY = {**LIFT, "kind": "unit", "connector_id": None, "unit_id": "cl-lobby"}
LOBBY.update(connector_kind=None, name="Lobby", reason=None)
UNPROCESSABLE = "Resource validation failed"


def ahead(seconds: float) -> str:
    return format_timestamp(datetime.now(UTC) + timedelta(seconds=seconds))


async def put(env: Env, data: dict, **headers) -> tuple[int, dict | None]:
    response = await env.client.put(PATH, json={"data": data}, headers=env.headers(**headers))
    return response.status_code, response.json() if response.content else None


async def listed(env: Env, **headers) -> tuple[int, dict]:
    response = await env.client.get(PATH, headers=env.headers(**headers))
    return response.status_code, response.json()


async def test_close_list_replace_and_reopen_over_rest(env: Env):
    assert await listed(env) == (200, {"data": []})
    assert await put(env, {"connector_id": "cl-lift", "reason": "Service"}) == (200, LIFT)
    assert await put(env, {"unit_id": "cl-lobby"}) == (200, LOBBY)
    assert await listed(env, key=env.reader) == (200, {"data": [LIFT, LOBBY]})
    until = ahead(3600)
    again = {**LIFT, "until": until, "reason": "Lift out of order"}
    body = {"connector_id": "cl-lift", "until": until, "reason": "Lift out of order"}
    assert await put(env, body) == (200, again)
    assert await env.store[c.CLOSURES].count_documents({}) == 2  # replaced, not added
    assert await listed(env) == (200, {"data": [again, LOBBY]})
    deleted = await env.client.delete(PATH, params={"unit": "cl-lobby"}, headers=env.headers())
    assert (deleted.status_code, deleted.content) == (204, b"")
    # reopening what is not closed is no error either (204; GraphQL says false)
    deleted = await env.client.delete(PATH, params={"unit": "cl-lobby"}, headers=env.headers())
    assert deleted.status_code == 204
    assert await listed(env) == (200, {"data": [again]})


async def test_the_graphql_fields(env: Env):
    closed = await env.graphql(CLOSE_CONNECTOR, {"m": MAP, "c": "cl-lift"})
    assert closed == {
        "data": {
            "closeConnector": {"kind": "connector", "connectorId": "cl-lift", "name": "Lift A"}
        }
    }
    closed = await env.graphql(CLOSE_UNIT, {"m": MAP, "u": "cl-bay", "r": "Flooded"})
    assert closed == {
        "data": {
            "closeUnit": {"kind": "unit", "unitId": "cl-bay", "name": None, "reason": "Flooded"}
        }
    }
    until = ahead(600)
    closed = await env.graphql(CLOSE, {"m": MAP, "u": "cl-shop", "until": until})
    assert closed["data"]["close"] == {
        "unitMapId": MAP,
        "kind": "unit",
        "connectorId": None,
        "unitId": "cl-shop",
        "connectorKind": None,
        "name": "Corner Shop",
        "until": until,
        "reason": None,
    }
    assert await env.graphql(LIST, {"m": MAP}, key=env.reader) == {
        "data": {
            "closures": [
                {
                    "kind": "connector",
                    "connectorId": "cl-lift",
                    "unitId": None,
                    "name": "Lift A",
                    "until": None,
                },
                {
                    "kind": "unit",
                    "connectorId": None,
                    "unitId": "cl-bay",
                    "name": None,
                    "until": None,
                },
                {
                    "kind": "unit",
                    "connectorId": None,
                    "unitId": "cl-shop",
                    "name": "Corner Shop",
                    "until": until,
                },
            ]
        }
    }
    assert await env.graphql(REOPEN, {"m": MAP, "u": "cl-bay"}) == {"data": {"reopen": True}}
    assert await env.graphql(REOPEN, {"m": MAP, "u": "cl-bay"}) == {"data": {"reopen": False}}


async def test_access_in_order(env: Env):
    data = {"unit_id": "cl-lobby"}
    assert await put(env, data, key="") == (401, {"message": "No API key found in request"})
    assert await put(env, data, key="fg_not_a_key") == (
        403,
        {"message": "Invalid authentication credentials"},
    )
    denied = {"message": "Access denied: missing permission service.admin"}
    assert await put(env, data, key=env.reader) == (403, denied)
    flag = (
        "Not found: this experimental resource requires the Experimental-Flags header to "
        'include "directions"'
    )
    assert await put(env, data, flags=None) == (404, {"message": flag})
    assert await listed(env, flags=None) == (404, {"message": flag})
    assert await listed(env, key="") == (401, {"message": "No API key found in request"})
    reopen = await env.client.delete(
        PATH, params={"unit": "cl-lobby"}, headers=env.headers(key=env.reader)
    )
    assert (reopen.status_code, reopen.json()) == (403, denied)
    # GraphQL: the same refusals, as errors
    refused = await env.graphql(CLOSE_UNIT, {"m": MAP, "u": "cl-lobby"}, key=env.reader)
    assert refused["data"] is None
    assert refused["errors"][0]["message"] == denied["message"]
    assert refused["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    assert await env.store[c.CLOSURES].count_documents({}) == 0


async def test_a_map_the_key_may_not_see_is_not_found(env: Env):
    # `ours` is an admin of our asset only: the demo's map is as missing as no map
    for map_id in ("map-b1", "no-such-map"):
        response = await env.client.put(
            f"/v1/unitmaps/{map_id}/closures",
            json={"data": {"connector_id": "b1-elevator"}},
            headers=env.headers(key=env.ours),
        )
        assert (response.status_code, response.json()) == (404, {"message": "Not found"})
        response = await env.client.get(
            f"/v1/unitmaps/{map_id}/closures", headers=env.headers(key=env.ours)
        )
        assert (response.status_code, response.json()) == (404, {"message": "Not found"})
        found = await env.graphql(REOPEN, {"m": map_id, "c": "b1-elevator"}, key=env.ours)
        assert found["errors"][0]["extensions"]["code"] == "NOT_FOUND"
    assert await put(env, {"connector_id": "cl-lift"}, key=env.ours) == (
        200,
        {**LIFT, "reason": None},
    )
    assert await env.store[c.CLOSURES].count_documents({}) == 1


@pytest.mark.parametrize(
    ("data", "fields"),
    [
        (
            {"connector_id": "b1-elevator"},
            {"data.connector_id": ["no connector 'b1-elevator' on this map's walk graph"]},
        ),
        ({"unit_id": "b1-101"}, {"data.unit_id": ["no unit 'b1-101' is drawn on this map"]}),
        ({}, {"data.connector_id": ["a connector or a unit is required"]}),
        (
            {"connector_id": "cl-lift", "unit_id": "cl-lobby"},
            {"data.unit_id": ["name a connector or a unit, not both"]},
        ),
        ({"unit_id": ""}, {"data.unit_id": ["must not be empty"]}),
        ({"unit_id": "u" * 256}, {"data.unit_id": ["must be at most 255 characters"]}),
        (
            {"unit_id": "cl-lobby", "until": "tomorrow"},
            {
                "data.until": [
                    "must be an ISO 8601 timestamp with an offset, like 2030-06-01T14:00:00+00:00"
                ]
            },
        ),
        (
            {"unit_id": "cl-lobby", "until": "2030-06-01T14:00:00"},
            {
                "data.until": [
                    "must be an ISO 8601 timestamp with an offset, like "
                    "2030-06-01T14:00:00+00:00 (the offset is missing)"
                ]
            },
        ),
        (  # a year before 1000 (as a fuzzer sent it): far in the past, no server error
            {"unit_id": "cl-lobby", "until": "0412-11-27T07:06:13.363-05:13"},
            {"data.until": ["must be in the future (leave it out to close until reopened)"]},
        ),
        (
            {"unit_id": "cl-lobby", "until": "0001-01-01T00:00:00+05:00"},
            {
                "data.until": [
                    "must be an ISO 8601 timestamp with an offset, like 2030-06-01T14:00:00+00:00"
                ]
            },
        ),
        (
            {"unit_id": "cl-lobby", "until": "2020-06-01T14:00:00+00:00"},
            {"data.until": ["must be in the future (leave it out to close until reopened)"]},
        ),
        (
            {
                "unit_id": "cl-lobby",
                "until": "far",
            },  # replaced below: MAX_CLOSURE_DAYS and a minute
            {
                "data.until": [
                    f"must be at most {MAX_CLOSURE_DAYS} days ahead (leave it out to close "
                    "until reopened)"
                ]
            },
        ),
        (
            {"unit_id": "cl-lobby", "reason": "x" * (MAX_CLOSURE_REASON_CHARS + 1)},
            {"data.reason": [f"must be at most {MAX_CLOSURE_REASON_CHARS} characters"]},
        ),
        (
            {"unit_id": "cl-lobby", "reason": "Closed\nfor good"},
            {"data.reason": ["must not contain control characters"]},
        ),
        (
            {"unit_id": "cl-lobby", "reason": "Closed\x00"},
            {"data.reason": ["must not contain control characters"]},
        ),
    ],
)
async def test_each_input_is_422(env: Env, data: dict, fields: dict):
    if data.get("until") == "far":
        data = {**data, "until": ahead(MAX_CLOSURE_DAYS * 86400 + 60)}
    assert await put(env, data) == (422, {"message": UNPROCESSABLE, "fields": fields})
    assert await env.store[c.CLOSURES].count_documents({}) == 0


async def test_a_reason_of_the_longest_length_and_a_year_ahead_are_fine(env: Env):
    until = ahead(MAX_CLOSURE_DAYS * 86400 - 60)
    reason = "é" * MAX_CLOSURE_REASON_CHARS
    status, body = await put(env, {"unit_id": "cl-lobby", "until": until, "reason": reason})
    assert (status, body) == (200, {**LOBBY, "until": until, "reason": reason})


async def test_graphql_names_its_own_arguments(env: Env):
    refused = await env.graphql(CLOSE, {"m": MAP, "c": "nope", "r": "a\tb"})
    assert refused["data"] is None
    (error,) = refused["errors"]
    assert error["message"] == UNPROCESSABLE
    assert error["extensions"]["fields"] == {"reason": ["must not contain control characters"]}
    refused = await env.graphql(CLOSE, {"m": MAP, "c": "nope"})
    assert refused["errors"][0]["extensions"]["fields"] == {
        "connectorId": ["no connector 'nope' on this map's walk graph"]
    }


async def test_a_closure_ends_by_itself_though_its_listing_was_kept(env: Env):
    until = ahead(2)
    assert (await put(env, {"unit_id": "cl-lobby", "until": until}))[0] == 200
    cache = env.store.cache
    hits = cache.answer_hits
    for _ in range(3):
        assert await listed(env) == (200, {"data": [{**LOBBY, "until": until}]})
    assert cache.answer_hits == hits + 2  # kept, and served twice
    writes = cache.invalidations
    end = datetime.fromisoformat(until).timestamp()
    await asyncio.sleep(max(0.0, end - time.time()) + 0.05)
    assert cache.invalidations == writes  # nothing was written meanwhile
    assert await listed(env) == (200, {"data": []})
    assert await env.graphql(LIST, {"m": MAP}) == {"data": {"closures": []}}
