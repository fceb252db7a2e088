"""Conditional GETs on every GET route of /v1 (issue 16, item 3), through the real app on
the demo property: a 200 carries a strong `ETag` and `Cache-Control: private, no-cache`,
`If-None-Match` with that tag answers 304 (also for HEAD), a tag follows the body (pages,
paging URLs, writes), errors are never 304 and carry no tag, writes are unchanged.

The one write (an attribute assignment through E21) is undone through E22.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
import pytest_asyncio
import xxhash

from resolvers.auth.permissions import ALL_FLAGS
from rest.app import create_app
from rest.browser_headers import EXPOSED_HEADERS
from rest.v1.routes import ROUTES
from rest.v1.routes.rows import RestRoute, Shape
from schema.build import build_schema
from schema.execution.running.route_documents import requirement_of

# Every GET that answers a document; an event stream is never revalidated (it resumes).
# A tile's tag and caching are its own (tests/resolvers/tiles/test_tiles.py, docs/tiles.md).
GETS = [
    route
    for route in ROUTES
    if route.method == "GET" and route.shape not in (Shape.EVENTS, Shape.TILE)
]
WRITES = [route for route in ROUTES if route.method != "GET"]
TAG = re.compile(r'^"[0-9a-f]{32}"$')
REVALIDATE = "private, no-cache"
# Headers of the 200 that a 304 has no reason to carry (RFC 9110 15.4.5), and the one
# whose value differs per request.
BODY_HEADERS = {"content-length", "content-type"}
PER_REQUEST = {"x-request-id"}


@pytest.fixture(scope="module", autouse=True)
def identity(demo):
    """These tests are about the tag of the body's bytes: the demo client asks for them
    as they are (httpx asks for gzip and br by default; a compressed answer's tag has the
    coding's suffix, tests/rest/test_compression.py)."""
    default = demo.client.headers["Accept-Encoding"]
    demo.client.headers["Accept-Encoding"] = "identity"
    yield
    demo.client.headers["Accept-Encoding"] = default


def by_id(route: RestRoute) -> str:
    return route.operation_id


async def first(demo, url: str, member: str = "id") -> str:
    response = await demo.client.get(url, headers=demo.headers(*ALL_FLAGS))
    assert response.status_code == 200, response.text
    return response.json()["data"][0][member]


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def ids(demo) -> dict[str, str]:
    """A demo id for each path parameter, chosen so that every GET route answers 200:
    the map is one with backgrounds, the unit one that map lists."""
    get = demo.client.get
    headers = demo.headers(*ALL_FLAGS)
    found = {"asset": await first(demo, "/v1/assets")}
    found["floor"] = await first(demo, f"/v1/assets/{found['asset']}/floors")
    maps = (await get("/v1/maps", headers=headers)).json()["data"]
    for unit_map in maps:
        backgrounds = f"/v1/maps/{unit_map['id']}/backgrounds"
        if (await get(backgrounds, headers=headers)).json()["data"]:
            found["map"] = found["unitMapId"] = unit_map["id"]
            found["background"] = await first(demo, backgrounds)
            break
    found["unit"] = await first(demo, f"/v1/maps/{found['map']}/units")
    found["group-id"] = await first(demo, "/v1/units/attribute-groups", "group_id")
    found["market"] = await first(demo, "/v1/assets", "market")
    found["group"] = await first(demo, "/v1/units/reference-groups")
    return found


def url_of(route: RestRoute, ids: dict[str, str], missing: str | None = None) -> str:
    """The route's path with its parameters filled (every one `missing` when given), and
    its required query parameters (`q`) as its example gives them."""
    path = route.path
    for param in route.params:
        if param.location == "path":
            path = path.replace("{" + param.name + "}", missing or ids[param.name])
    required = {
        param.name: route.example.query[param.name]
        for param in route.params
        if param.location == "query" and param.required
    }
    return f"{path}?{urlencode(required)}" if required else path


def with_query(url: str, query: str) -> str:
    """`url` with more query parameters."""
    return f"{url}{'&' if '?' in url else '?'}{query}"


async def tagged(demo, url: str, **headers: str) -> httpx.Response:
    """A 200 with a strong tag and the revalidation header."""
    response = await demo.client.get(url, headers={**demo.headers(*ALL_FLAGS), **headers})
    assert response.status_code == 200, (url, response.text)
    assert TAG.match(response.headers["etag"]), response.headers["etag"]
    assert response.headers["cache-control"] == REVALIDATE
    return response


async def conditional(demo, url: str, if_none_match: str, method: str = "GET") -> httpx.Response:
    headers = {**demo.headers(*ALL_FLAGS), "If-None-Match": if_none_match}
    return await demo.client.request(method, url, headers=headers)


def body_tag(content: bytes) -> str:
    return '"' + xxhash.xxh3_128_hexdigest(content) + '"'


# ---------------------------------------------------------------- every GET route


def test_the_table_has_gets_of_every_shape():
    """The loop below covers what the table holds: lists, single resources, E17."""
    assert {route.shape for route in GETS} == {
        Shape.PAGED,
        Shape.SINGLE,
        Shape.DATA,
        Shape.VERSIONED,
    }


@pytest.mark.parametrize("route", GETS, ids=by_id)
async def test_a_200_carries_its_tag_and_revalidates_to_304(demo, ids, route):
    url = url_of(route, ids)
    ok = await tagged(demo, url)
    etag = ok.headers["etag"]
    assert ok.content
    if route.shape is Shape.VERSIONED:  # E17 keeps its tag of the map and its locations
        assert etag != body_tag(ok.content)
    else:
        assert etag == body_tag(ok.content)
    assert (await tagged(demo, url)).headers["etag"] == etag  # asked again: the same tag

    for header in (etag, f"W/{etag}", f'"other", {etag}', f'W/"other",W/{etag} , "more"', "*"):
        for method in ("GET", "HEAD"):
            response = await conditional(demo, url, header, method)
            assert response.status_code == 304, (header, method)
            assert response.content == b""
            assert response.headers["etag"] == etag
            assert response.headers["cache-control"] == REVALIDATE
            # Everything the 200 carried but its body's headers (nosniff, HSTS, CORS, the
            # exposed headers, the request id) is on the 304 too.
            assert set(response.headers) == set(ok.headers) - BODY_HEADERS, (header, method)
            for name in set(ok.headers) - BODY_HEADERS - PER_REQUEST:
                assert response.headers[name] == ok.headers[name], name

    bare = etag.strip('"')
    for header in ('"other"', bare, f'"{bare}x"', f'W/"{bare[:-1]}"', f'"{bare.upper()}"'):
        response = await conditional(demo, url, header)
        assert response.status_code == 200, header
        assert response.content == ok.content
        assert response.headers["etag"] == etag
    head = await demo.client.head(url, headers=demo.headers(*ALL_FLAGS))
    assert (head.status_code, head.content, head.headers["etag"]) == (200, b"", etag)
    assert head.headers["content-length"] == str(len(ok.content))
    assert head.headers["cache-control"] == REVALIDATE


async def test_a_304_keeps_the_browser_and_security_headers(demo, ids):
    url = url_of(GETS[0], ids)
    etag = (await tagged(demo, url)).headers["etag"]
    response = await demo.client.get(
        url, headers={**demo.headers(), "If-None-Match": etag, "Origin": "https://app.example"}
    )
    assert response.status_code == 304
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["strict-transport-security"] == "max-age=31536000"
    assert response.headers["access-control-allow-origin"] == "*"
    assert response.headers["access-control-expose-headers"] == EXPOSED_HEADERS
    assert "ETag" in EXPOSED_HEADERS.split(", ")
    assert re.fullmatch("[0-9a-f]{16}", response.headers["x-request-id"])


async def test_e17_keeps_the_tag_graphql_gives(demo, ids):
    query = "query ($id: ID!) { locations(unitMapId: $id) { etag } }"
    answer = await demo.client.post(
        "/graphql",
        json={"query": query, "variables": {"id": ids["map"]}},
        headers=demo.headers("locations-resource"),
    )
    etag = answer.json()["data"]["locations"]["etag"]
    for route in GETS:
        if route.shape is Shape.VERSIONED:
            assert (await tagged(demo, url_of(route, ids))).headers["etag"] == f'"{etag}"'


async def test_tags_are_the_same_in_another_process(demo, ids):
    """The tag is a hash of the bytes, not of anything a process holds: a second app on
    the same database gives every route the same tag."""
    other = create_app(demo.settings, demo.store)
    transport = httpx.ASGITransport(app=other)
    async with httpx.AsyncClient(
        transport=transport,
        base_url=demo.settings.public_url,
        headers={"Accept-Encoding": "identity"},
    ) as client:
        for route in GETS:
            url = url_of(route, ids)
            here = await tagged(demo, url)
            there = await client.get(url, headers=demo.headers(*ALL_FLAGS))
            assert there.status_code == 200
            assert there.headers["etag"] == here.headers["etag"], route.operation_id
            again = await client.get(
                url, headers={**demo.headers(*ALL_FLAGS), "If-None-Match": here.headers["etag"]}
            )
            assert again.status_code == 304, route.operation_id


# ---------------------------------------------------------------- tags follow the body


async def test_each_page_has_its_own_tag(demo, ids):
    paged = 0
    for route in GETS:
        if route.shape is not Shape.PAGED:
            continue
        url = url_of(route, ids)
        one = await tagged(demo, with_query(url, "per-page=1"))
        if one.json()["paging"]["next_url"] is None:
            continue  # a single item: no second page
        paged += 1
        two = await tagged(demo, with_query(url, "page=2&per-page=1"))
        assert one.json()["data"] != two.json()["data"]
        assert one.headers["etag"] != two.headers["etag"], route.operation_id
        page_one = await tagged(demo, with_query(url, "page=1&per-page=1"))
        assert page_one.headers["etag"] == one.headers["etag"]
        response = await conditional(
            demo, with_query(url, "page=2&per-page=1"), one.headers["etag"]
        )
        assert response.status_code == 200
        assert response.content == two.content
        response = await conditional(
            demo, with_query(url, "page=2&per-page=1"), two.headers["etag"]
        )
        assert response.status_code == 304
    assert paged >= 5, paged


async def test_paging_urls_are_part_of_the_tag(demo, ids):
    """The same items, asked with a filter that keeps them all: the paging URLs repeat
    the filter, so the body and its tag differ."""
    plain = await tagged(demo, "/v1/units?per-page=1")
    filtered = await tagged(demo, f"/v1/units?per-page=1&asset={ids['asset']}")
    assert plain.json()["data"] == filtered.json()["data"]
    assert plain.json()["paging"]["next_url"] != filtered.json()["paging"]["next_url"]
    assert plain.headers["etag"] != filtered.headers["etag"]


async def test_a_write_changes_the_tag_and_undoing_it_restores_it(demo, ids):
    """E21 adds an assignment to E20's list, E22 takes it away again. (A group allowing
    several attributes per unit, so that adding one replaces nothing.)"""
    groups = await tagged(demo, "/v1/units/attribute-groups")
    group, attributes = next(
        (g["group_id"], g["attributes"])
        for g in groups.json()["data"]
        if not g["one_attribute_per_unit"] and g["attributes"]
    )
    url = f"/v1/units/attribute-groups/{group}/units?per-page=10000"
    before = await tagged(demo, url)
    assigned = {(row["unit_id"], row["attribute_id"]) for row in before.json()["data"]}
    units = (await tagged(demo, f"/v1/units?per-page=10000&asset={ids['asset']}")).json()
    unit, attribute = next(
        (u["id"], a["attribute_id"])
        for u in units["data"]
        for a in attributes
        if (u["id"], a["attribute_id"]) not in assigned
    )
    item = {"unit_id": unit, "attribute_id": attribute, "group_id": group, "asset_id": ids["asset"]}
    write_headers = {**demo.headers(*ALL_FLAGS), "If-None-Match": "*"}
    put = await demo.client.put(
        f"/v1/units/attribute-groups/{group}/units", headers=write_headers, json={"data": [item]}
    )
    try:
        assert put.status_code == 200, put.text  # If-None-Match means nothing to a write
        assert "etag" not in put.headers
        after = await conditional(demo, url, before.headers["etag"])
        assert after.status_code == 200
        assert after.headers["etag"] != before.headers["etag"]
        assert after.headers["etag"] == body_tag(after.content)
        assert item in after.json()["data"]
    finally:
        removed = await demo.client.put(
            f"/v1/units/attribute-groups/{group}/units/remove",
            headers=write_headers,
            json={"data": [item]},
        )
        assert removed.status_code == 204, removed.text
        assert "etag" not in removed.headers
    # The same body again: the same tag, so a client's copy from before is valid again.
    restored = await conditional(demo, url, before.headers["etag"])
    assert restored.status_code == 304
    assert restored.headers["etag"] == before.headers["etag"]


# ---------------------------------------------------------------- no 304 but for a 200


@pytest.mark.parametrize("route", GETS, ids=by_id)
async def test_an_error_stays_an_error_without_a_tag(demo, ids, route):
    url = url_of(route, ids)
    etag = (await tagged(demo, url)).headers["etag"]
    flags = ", ".join(ALL_FLAGS)
    cases: list[tuple[str, dict[str, str], int, dict[str, Any]]] = [
        (url, {}, 401, {"message": "No API key found in request"}),
        (
            url,
            {"API-Key": "fg_invalid", "Experimental-Flags": flags},
            403,
            {"message": "Invalid authentication credentials"},
        ),
    ]
    if any(param.location == "path" for param in route.params):
        cases.append(
            (
                url_of(route, ids, "does-not-exist"),
                demo.headers(*ALL_FLAGS),
                404,
                {"message": "Not found"},
            )
        )
    if any(param.name == "page" for param in route.params):
        cases.append(
            (
                with_query(url, "page=0"),
                demo.headers(*ALL_FLAGS),
                422,
                {
                    "message": "Resource validation failed",
                    "fields": {"page": ["must be an integer of at least 1"]},
                },
            )
        )
    for error_url, headers, status, body in cases:
        for if_none_match in (etag, "*"):
            for method in ("GET", "HEAD"):
                response = await demo.client.request(
                    method, error_url, headers={**headers, "If-None-Match": if_none_match}
                )
                assert response.status_code == status, (error_url, headers, method)
                assert "etag" not in response.headers
                assert "cache-control" not in response.headers
                if method == "GET":
                    assert response.json() == body


async def test_a_flagged_route_without_its_flag_is_404_not_304(demo, ids):
    schema = build_schema(demo.settings)._schema
    flagged = [(route, requirement_of(schema, route)[1]) for route in GETS]
    flagged = [(route, flag) for route, flag in flagged if flag]
    assert len(flagged) >= 5
    for route, flag in flagged:
        url = url_of(route, ids)
        etag = (await tagged(demo, url)).headers["etag"]
        response = await demo.client.get(url, headers={**demo.headers(), "If-None-Match": etag})
        assert response.status_code == 404, route.operation_id
        assert response.json() == {
            "message": "Not found: this experimental resource requires the "
            f'Experimental-Flags header to include "{flag}"'
        }
        assert "etag" not in response.headers


async def test_over_the_rate_limit_is_429_not_304(demo):
    limited = replace(demo.settings, rate_limit_per_second=0.01, rate_limit_burst=2)
    transport = httpx.ASGITransport(app=create_app(limited, demo.store))
    async with httpx.AsyncClient(transport=transport, base_url=limited.public_url) as client:
        ok = await client.get("/v1/assets", headers=demo.headers())
        assert ok.status_code == 200
        etag = ok.headers["etag"]
        again = await client.get("/v1/assets", headers={**demo.headers(), "If-None-Match": etag})
        assert (again.status_code, again.headers["etag"]) == (304, etag)
        refused = await client.get("/v1/assets", headers={**demo.headers(), "If-None-Match": etag})
    assert refused.status_code == 429
    assert refused.json() == {"message": "API rate limit exceeded"}
    assert refused.headers["retry-after"] == "100"
    assert "etag" not in refused.headers
    assert "cache-control" not in refused.headers


async def test_writes_carry_no_tag_and_ignore_if_none_match(demo, ids):
    """POST routes (E10, E18) answer 200 with a body but no tag, whatever If-None-Match."""
    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'
    headers = {**demo.headers(*ALL_FLAGS), "If-None-Match": "*"}
    parsed = await demo.client.post(
        "/v1/maps/parse", content=svg, headers={**headers, "Content-Type": "image/svg+xml"}
    )
    assert parsed.status_code == 200, parsed.text
    location = await first(demo, f"/v1/maps/{ids['map']}/locations")
    matrix = {"data": {"sources": [{"id": location}], "targets": [{"id": location}]}}
    distances = await demo.client.post(
        f"/v1/maps/{ids['map']}/distance-matrix", headers=headers, json=matrix
    )
    assert distances.status_code == 200, distances.text
    for response in (parsed, distances):
        assert response.content
        assert "etag" not in response.headers
        assert "cache-control" not in response.headers
    assert {route.method for route in WRITES} == {"POST", "PUT", "DELETE"}
