"""Answers of REST queries with a JSON body (E18, route) are kept like a GET's: per
body, caller and flags, while the data they read holds (issue 15; docs/api.md "Read
cache"). On the demo, with its change stream up."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from resolvers.auth.keys import create_key
from resolvers.auth.permissions import ALL_PERMISSIONS
from rest.v1.routes import ROUTES
from tests.caught_up import caught_up
from tests.conftest import Demo

MAP = "map-b1"
MATRIX = f"/v1/unitmaps/{MAP}/distance-matrix"
ROUTE = f"/v1/maps/{MAP}/route"


async def live(demo: Demo) -> None:
    await caught_up(demo.store)


async def location_ids(demo: Demo) -> list[str]:
    found = await demo.store["locations"].find({"unit_map_id": MAP}).sort("_id", 1).to_list()
    return [location["_id"] for location in found]


def matrix_body(ids: list[str]) -> dict[str, Any]:
    return {"data": {"sources": [{"id": ids[0]}], "targets": [{"id": x} for x in ids[1:]]}}


async def post(demo: Demo, path: str, content: bytes, *flags: str, key: str | None = None):
    headers = {**demo.headers(*flags), "Content-Type": "application/json"}
    if key is not None:
        headers["API-Key"] = key
    return await demo.client.post(path, content=content, headers=headers)


async def test_an_e18_answer_is_kept_per_body_and_dropped_by_a_write(demo: Demo):
    await live(demo)
    cache = demo.store.cache
    ids = await location_ids(demo)
    body = orjson.dumps(matrix_body(ids[:4]))
    first = await post(demo, MATRIX, body, "distances")
    assert first.status_code == 200, first.text
    hits = cache.answer_hits
    again = await post(demo, MATRIX, body, "distances")
    assert (again.status_code, again.content, cache.answer_hits) == (200, first.content, hits + 1)
    assert "ETag" not in again.headers  # a POST's answer is not revalidated
    assert again.headers["content-type"] == "application/json"
    # The same members in another order and spacing: the same variables, the same answer.
    data = matrix_body(ids[:4])["data"]
    reordered = (
        b'{ "data" : '
        + orjson.dumps({"targets": data["targets"], "sources": data["sources"]})
        + b"}"
    )
    assert (await post(demo, MATRIX, reordered, "distances")).content == first.content
    assert cache.answer_hits == hits + 2
    other = await post(demo, MATRIX, orjson.dumps(matrix_body(ids[:3])), "distances")
    assert other.status_code == 200 and cache.answer_hits == hits + 2
    assert len(other.json()["data"]["sources"][0]["targets"]) == 2
    # The alias reads the same data but is its own route: its own answer.
    alias = await post(demo, f"/v1/maps/{MAP}/distance-matrix", body, "distances")
    assert (alias.content, cache.answer_hits) == (first.content, hits + 2)
    # Our own write moves the version when acknowledged: the answer is made again.
    await demo.store["unit_maps"].update_one({"_id": MAP}, {"$set": {"touched": 1}})
    try:
        changed = await post(demo, MATRIX, body, "distances")
        assert (changed.content, cache.answer_hits) == (first.content, hits + 2)
    finally:
        await demo.store["unit_maps"].update_one({"_id": MAP}, {"$unset": {"touched": ""}})


async def test_a_kept_post_answer_still_checks_access_first(demo: Demo):
    await live(demo)
    cache = demo.store.cache
    ids = await location_ids(demo)
    body = orjson.dumps(matrix_body(ids[:3]))
    first = await post(demo, MATRIX, body, "distances")
    assert (await post(demo, MATRIX, body, "distances")).content == first.content
    hits = cache.answer_hits
    flagless = await post(demo, MATRIX, body)
    assert (flagless.status_code, flagless.json()) == (
        404,
        {
            "message": (
                "Not found: this experimental resource requires the Experimental-Flags header to "
                'include "distances"'
            )
        },
    )
    elsewhere = (
        await create_key(demo.store, "elsewhere", list(ALL_PERMISSIONS), ["another-asset"])
    ).secret
    scoped = await post(demo, MATRIX, body, "distances", key=elsewhere)
    assert (scoped.status_code, scoped.json()) == (404, {"message": "Not found"})
    no_key = await demo.client.post(
        MATRIX,
        content=body,
        headers={"Experimental-Flags": "distances", "Content-Type": "application/json"},
    )
    assert no_key.status_code == 401
    assert cache.answer_hits == hits


@pytest.mark.parametrize(
    "payload",
    [
        b'{"data": {"sources": [{"id": "nowhere"}], "targets": [{"id": "nowhere"}]}}',
        b'{"data": {"sources": [], "targets": []}}',
    ],
)
async def test_refused_bodies_are_never_kept(demo: Demo, payload: bytes):
    await live(demo)
    cache = demo.store.cache
    first = await post(demo, MATRIX, payload, "distances")
    assert first.status_code == 422, first.text
    hits = cache.answer_hits
    again = await post(demo, MATRIX, payload, "distances")
    assert (again.status_code, again.content, cache.answer_hits) == (422, first.content, hits)


async def test_a_route_answer_is_kept(demo: Demo):
    await live(demo)
    cache = demo.store.cache
    ids = await location_ids(demo)
    body = orjson.dumps({"data": {"from": {"id": ids[0]}, "to": {"id": ids[-1]}}})
    first = await post(demo, ROUTE, body, "directions")
    assert first.status_code == 200, first.text
    assert first.json()["route"]["legs"]
    hits = cache.answer_hits
    again = await post(demo, ROUTE, body, "directions")
    assert (again.content, cache.answer_hits) == (first.content, hits + 1)
    wheelchair = orjson.dumps(
        {"data": {"from": {"id": ids[0]}, "to": {"id": ids[-1]}, "mode": "wheelchair"}}
    )
    assert (await post(demo, ROUTE, wheelchair, "directions")).status_code == 200
    assert cache.answer_hits == hits + 1


async def test_parse_answers_are_not_kept(demo: Demo):
    """E10 reads nothing stored and its body is SVG text, not variables worth a key."""
    await live(demo)
    cache = demo.store.cache
    svg = b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"></svg>'
    headers = {**demo.headers(), "Content-Type": "image/svg+xml"}
    first = await demo.client.post("/v1/maps/parse", content=svg, headers=headers)
    hits = cache.answer_hits
    again = await demo.client.post("/v1/maps/parse", content=svg, headers=headers)
    assert (again.status_code, again.content) == (first.status_code, first.content)
    assert cache.answer_hits == hits


def test_which_routes_keep_answers():
    """Every GET but an event stream, and the queries with a JSON body; never a write,
    nor E10's SVG."""
    kept = {route.operation_id for route in ROUTES if route.keeps_answers}
    gets = {route.operation_id for route in ROUTES if route.method == "GET"}
    assert kept - gets == {"distanceMatrix", "unitMapDistanceMatrix", "route", "unitMapRoute"}
    assert gets - kept == {"streamAttributeAssignmentChanges"}
    assert not {"parseUnitMap", "assignUnitAttributes", "unassignUnitAttributes"} & kept
