"""Access before work: the key is checked before a body is read, bodies are counted as
they stream (413 without Content-Length too), a body that stops arriving is cut off
(408), and item counts come before per-item validation. Each attack is timed, and the
latency of a small GET sent meanwhile shows that other clients are unaffected."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from dataclasses import replace

import httpx
import orjson
import pytest

from rest.app import create_app
from tests.latency import latency_meanwhile, timed

MATRIX = "/v1/maps/map-1/distance-matrix"
FLAGS = {"Experimental-Flags": "distances"}
JSON = {"Content-Type": "application/json"}
# serial: refusals "at once" and other clients' latency, to 0.25 s, measured on idle cores
pytestmark = pytest.mark.serial


def huge_matrix_body(waypoints: int = 150_000) -> bytes:
    """About 12 MB: `waypoints` sources, one target."""
    sources = [
        {
            "id": f"location-{n:06d}",
            "x": n * 1.5,
            "y": n * 2.5,
            "floor_id": "f-1",
            "name": "waypoint",
        }
        for n in range(waypoints)
    ]
    return orjson.dumps({"data": {"sources": sources, "targets": [{"id": "loc-gym"}]}})


@pytest.fixture(scope="module")
def huge_body() -> bytes:
    body = huge_matrix_body()
    assert len(body) > 11_000_000
    return body


async def test_a_12_mb_body_without_a_key_is_401_at_once(client, keys, huge_body):
    response, seconds, worst = await latency_meanwhile(
        client, keys.plain, client.post(MATRIX, content=huge_body, headers={**JSON, **FLAGS})
    )
    assert (response.status_code, response.json()) == (
        401,
        {"message": "No API key found in request"},
    )
    assert seconds < 0.5, seconds
    assert worst < 0.25, worst


async def test_a_12_mb_body_with_an_invalid_key_is_403_at_once(client, huge_body):
    response, seconds = await timed(
        client.post(MATRIX, content=huge_body, headers={**JSON, **FLAGS, "API-Key": "fg_invented"})
    )
    assert (response.status_code, response.json()) == (
        403,
        {"message": "Invalid authentication credentials"},
    )
    assert seconds < 0.5, seconds


async def test_a_body_is_not_read_for_a_key_without_the_permission(client, keys, huge_body):
    response, seconds = await timed(
        client.post(MATRIX, content=huge_body, headers={**JSON, **FLAGS, "API-Key": keys.plain})
    )
    assert (response.status_code, response.json()) == (
        403,
        {"message": "Access denied: missing permission service.distances.calculate"},
    )
    assert seconds < 0.5, seconds


async def test_150000_waypoints_are_refused_by_their_size(client, keys, huge_body):
    """Past E18's body limit (256 KiB) the body is refused as it arrives, unread."""
    response, seconds, worst = await latency_meanwhile(
        client,
        keys.plain,
        client.post(MATRIX, content=huge_body, headers={**JSON, **FLAGS, "API-Key": keys.full}),
    )
    assert (response.status_code, response.json()) == (413, {"message": "Request body too large"})
    assert seconds < 1.0, seconds
    assert worst < 0.5, worst


async def test_too_many_pairs_are_refused_by_their_count(client, keys):
    """Within the body limit, 300 x 300 waypoints are refused from the lists' lengths."""
    side = [{"id": "x"}] * 300
    body = orjson.dumps({"data": {"sources": side, "targets": side}})
    response = await client.post(
        MATRIX, content=body, headers={**JSON, **FLAGS, "API-Key": keys.full}
    )
    assert (response.status_code, response.json()) == (
        422,
        {
            "message": "Resource validation failed",
            "fields": {
                "data": [
                    "at most 50 source-target pairs (sources x targets) per request, not 90000"
                ]
            },
        },
    )


async def test_any_list_over_the_item_limit_is_refused_unwalked(client, keys):
    """A list nested anywhere in a body: 10,001 items are refused by their count."""
    waypoint = {"id": "x", "extra": [0] * 10_001}
    body = orjson.dumps({"data": {"sources": [waypoint], "targets": [{"id": "y"}]}})
    response = await client.post(
        MATRIX, content=body, headers={**JSON, **FLAGS, "API-Key": keys.full}
    )
    assert (response.status_code, response.json()) == (
        422,
        {
            "message": "Resource validation failed",
            "fields": {"data.sources.0.extra": ["must have at most 10000 items"]},
        },
    )


async def test_graphql_without_a_key_is_refused_before_its_body_is_read(client, keys):
    svg = "<svg>" + "x" * 12_000_000 + "</svg>"
    body = orjson.dumps(
        {"query": "query($s: String!) { parseUnitMap(svg: $s) }", "variables": {"s": svg}}
    )
    response, seconds, worst = await latency_meanwhile(
        client, keys.plain, client.post("/graphql", content=body, headers=JSON)
    )
    assert response.status_code == 200
    assert response.json() == {
        "data": None,
        "errors": [
            {"message": "No API key found in request", "extensions": {"code": "UNAUTHENTICATED"}}
        ],
    }
    assert seconds < 0.5, seconds
    assert worst < 0.25, worst
    invalid_key, seconds = await timed(
        client.post("/graphql", content=body, headers={**JSON, "API-Key": "fg_invented"})
    )
    assert invalid_key.json()["errors"][0]["extensions"] == {"code": "INVALID_KEY"}
    assert seconds < 0.5, seconds


async def test_keyless_introspection_still_works(client):
    response = await client.post("/graphql", json={"query": "{ __schema { queryType { name } } }"})
    assert response.json() == {"data": {"__schema": {"queryType": {"name": "Query"}}}}


# -- bodies counted while they stream, and bodies that stop arriving ----------------------


@pytest.fixture(scope="module")
def small_limits_app(store, settings):
    return create_app(replace(settings, max_body_bytes=64 * 1024, body_timeout_seconds=0.3), store)


async def chunks(
    total: int, size: int = 8192, pause_after: int | None = None, pause: float = 0.0
) -> AsyncIterator[bytes]:
    sent = 0
    while sent < total:
        if pause_after is not None and sent >= pause_after:
            await asyncio.sleep(pause)
            pause_after = None
        part = b" " * min(size, total - sent)
        sent += len(part)
        yield part


@pytest.mark.parametrize(
    ("path", "headers"),
    [
        ("/v1/maps/parse", {"Content-Type": "image/svg+xml"}),
        ("/graphql", JSON),
        (MATRIX, {**JSON, **FLAGS}),
    ],
)
async def test_a_streamed_body_over_the_limit_is_413(small_limits_app, keys, caplog, path, headers):
    transport = httpx.ASGITransport(app=small_limits_app)
    async with httpx.AsyncClient(transport=transport, base_url="https://t") as client:
        with caplog.at_level(logging.WARNING):
            response = await client.post(
                path, content=chunks(200_000), headers={**headers, "API-Key": keys.full}
            )
    assert "content-length" not in {name.lower() for name in response.request.headers}
    assert (response.status_code, response.json()) == (413, {"message": "Request body too large"})
    assert [record for record in caplog.records if record.levelno >= logging.ERROR] == []


async def test_a_body_that_stops_arriving_is_408(small_limits_app, keys):
    transport = httpx.ASGITransport(app=small_limits_app)
    async with httpx.AsyncClient(transport=transport, base_url="https://t") as client:
        response, seconds = await timed(
            client.post(
                "/v1/maps/parse",
                content=chunks(20_000, pause_after=8192, pause=2.0),
                headers={"Content-Type": "image/svg+xml", "API-Key": keys.full},
            )
        )
    assert (response.status_code, response.json()) == (
        408,
        {"message": "Request body not received in time"},
    )
    assert response.headers["connection"] == "close"
    assert 0.3 <= seconds < 1.5, seconds


async def test_a_slow_but_steady_body_is_fine(small_limits_app, keys):
    svg = (
        b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
        + b" " * 20_000
        + b"</svg>"
    )

    async def steady() -> AsyncIterator[bytes]:
        for start in range(0, len(svg), 4096):
            await asyncio.sleep(0.1)  # each pause below the 0.3 s limit, 0.5 s in total
            yield svg[start : start + 4096]

    transport = httpx.ASGITransport(app=small_limits_app)
    async with httpx.AsyncClient(transport=transport, base_url="https://t") as client:
        response = await client.post(
            "/v1/maps/parse",
            content=steady(),
            headers={"Content-Type": "image/svg+xml", "API-Key": keys.full},
        )
    assert response.status_code == 200
    assert response.json()["width"] == 10


async def test_graphql_variables_with_a_huge_list_are_refused_before_coercion(client, keys):
    waypoints = [{"id": f"w{n}", "x": 1.0, "y": 2.0, "floorId": "f-1"} for n in range(150_000)]
    body = orjson.dumps(
        {
            "query": "query($m: ID!, $i: DistanceMatrixInput!) "
            "{ distanceMatrix(unitMapId: $m, input: $i) { distanceMethod } }",
            "variables": {
                "m": "map-1",
                "i": {"sources": waypoints, "targets": [{"id": "loc-gym"}]},
            },
        }
    )
    response, seconds = await timed(
        client.post(
            "/graphql",
            content=body,
            headers={**JSON, "API-Key": keys.full, "Experimental-Flags": "distances"},
        )
    )
    assert response.json() == {
        "data": None,
        "errors": [
            {
                "message": "Resource validation failed",
                "extensions": {
                    "code": "BAD_USER_INPUT",
                    "fields": {"i.sources": ["must have at most 10000 items"]},
                },
            }
        ],
    }
    assert seconds < 1.0, seconds
