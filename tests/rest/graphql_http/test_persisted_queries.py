"""Persisted queries as Apollo clients send them (rest/graphql_http/persisted.py,
docs/graphql.md "Persisted queries"): an unknown hash, registering with the document,
the hash alone over POST and GET (ETag, 304), a mismatch, a bad version, keyless and
refused requests that store nothing, the shared store of two apps, eviction, the
safelist and off modes."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any

import httpx
import pytest

from rest.app import create_app
from rest.v1.routes import ROUTES
from storage.collections import PERSISTED_QUERIES, PERSISTED_QUERY_TOTALS
from storage.persisted_queries import Bounds, document_hash, register, remove
from tests.streams import running_app

NUMBERS = itertools.count()


def refused(message: str, code: str) -> dict:
    """The body of a refusal: no data, one error with its code."""
    return {"data": None, "errors": [{"message": message, "extensions": {"code": code}}]}


NOT_FOUND = refused("PersistedQueryNotFound", "PERSISTED_QUERY_NOT_FOUND")
MISMATCH = refused("provided sha does not match query", "PERSISTED_QUERY_HASH_MISMATCH")
VERSION = refused("Unsupported persisted query version", "PERSISTED_QUERY_VERSION")
NOT_ALLOWED = refused(
    "This GraphQL document is not on the server's safelist: register it "
    "with floorgate persisted-queries add",
    "PERSISTED_QUERY_NOT_ALLOWED",
)
NOT_SUPPORTED = refused("PersistedQueryNotSupported", "PERSISTED_QUERY_NOT_SUPPORTED")
APOLLO_NOT_KEPT = "private, no-cache, must-revalidate"


def fresh_query() -> str:
    """A document no other test sent (its own operation name): its own hash."""
    return (
        f"query Assets{next(NUMBERS)}($n: Int) {{ assets(perPage: $n) {{ data {{ id name }} }} }}"
    )


def extensions(sha: str, version: Any = 1) -> dict[str, Any]:
    return {"persistedQuery": {"version": version, "sha256Hash": sha}}


async def post(
    client: httpx.AsyncClient,
    key: str | None,
    sha: str,
    query: str | None = None,
    variables: dict[str, Any] | None = None,
    version: Any = 1,
) -> httpx.Response:
    body: dict[str, Any] = {"extensions": extensions(sha, version)}
    if query is not None:
        body["query"] = query
    if variables is not None:
        body["variables"] = variables
    headers = {"API-Key": key} if key else {}
    return await client.post("/graphql", json=body, headers=headers)


async def get(
    client: httpx.AsyncClient,
    key: str | None,
    sha: str,
    variables: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
) -> httpx.Response:
    """As Apollo Client's GET for hashed queries: `extensions` as URL-encoded JSON."""
    params = {"extensions": json.dumps(extensions(sha))}
    if variables is not None:
        params["variables"] = json.dumps(variables)
    sent = {"API-Key": key} if key else {}
    return await client.get("/graphql", params=params, headers={**sent, **(headers or {})})


async def stored(store, sha: str) -> dict[str, Any] | None:
    return await store[PERSISTED_QUERIES].find_one({"_id": sha})


async def count(store) -> int:
    return await store[PERSISTED_QUERIES].count_documents({})


async def empty(store) -> None:
    """No document stored, emptied behind the store's back: its totals go too (they are
    counted again from what is stored)."""
    await store[PERSISTED_QUERIES].delete_many({})
    await store[PERSISTED_QUERY_TOTALS].delete_many({"_id": "totals"})


@asynccontextmanager
async def app_client(db_server, settings, **changes: Any) -> AsyncIterator[httpx.AsyncClient]:
    """An app of its own (another worker, or other settings) on the test database."""
    async with running_app(db_server.uri, replace(settings, **changes)) as app:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as c:
            yield c


async def test_an_unknown_hash_is_apollos_not_found_and_stores_nothing(client, keys, store):
    before = await count(store)
    sha = document_hash(fresh_query())
    answer = await post(client, keys.full, sha)
    assert (answer.status_code, answer.json()) == (200, NOT_FOUND)
    assert answer.headers["cache-control"] == APOLLO_NOT_KEPT
    got = await get(client, keys.full, sha)
    assert (got.status_code, got.json()) == (200, NOT_FOUND)
    assert "etag" not in got.headers
    keyless = await post(client, None, sha)
    assert (keyless.status_code, keyless.json()) == (200, NOT_FOUND)
    assert await count(store) == before


async def test_register_then_the_hash_alone_over_post_and_get(client, keys, store):
    query = fresh_query()
    sha = document_hash(query)
    plain = await client.post(
        "/graphql", json={"query": query, "variables": {"n": 1}}, headers={"API-Key": keys.full}
    )
    assert (await post(client, keys.full, sha)).json() == NOT_FOUND
    registered = await post(client, keys.full, sha, query, {"n": 1})
    assert (registered.status_code, registered.content) == (200, plain.content)
    row = await stored(store, sha)
    assert row is not None and row["document"] == query and row["safelisted"] is False
    assert row["bytes"] == len(query.encode()) + 64
    assert row["registered_at"] is not None and row["last_used"] is not None
    alone = await post(client, keys.full, sha, variables={"n": 1})
    assert (alone.status_code, alone.content) == (200, plain.content)
    assert "etag" not in alone.headers  # a POST's answer is not revalidated
    two = await post(client, keys.full, sha, variables={"n": 2})
    assert len(two.json()["data"]["assets"]["data"]) == 2
    got = await get(client, keys.full, sha, {"n": 1})
    assert (got.status_code, got.content) == (200, plain.content)
    etag = got.headers["etag"]
    assert etag.startswith('"') and got.headers["cache-control"] == "private, no-cache"
    again = await get(client, keys.full, sha, {"n": 1}, {"If-None-Match": etag})
    assert (again.status_code, again.content, again.headers["etag"]) == (304, b"", etag)
    other = await get(client, keys.full, sha, {"n": 2}, {"If-None-Match": etag})
    assert other.status_code == 200 and other.headers["etag"] != etag
    # Registering the same document again changes nothing.
    await post(client, keys.full, sha, query, {"n": 1})
    assert (await stored(store, sha))["registered_at"] == row["registered_at"]


async def test_a_known_hash_skips_parsing_and_validation_but_not_the_cost(
    db_server, settings, keys
):
    query = fresh_query()
    sha = document_hash(query)
    async with running_app(db_server.uri, replace(settings, graphql_max_cost=100)) as app:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as c:
            assert (await post(c, keys.full, sha, query, {"n": 1})).json()["data"] is not None
            view = next(r for r in app_routes(app) if getattr(r, "path", "") == "/graphql")
            caches = view.endpoint.schemas.now().caches
            entry = caches.parsed(await caches.document(query))
            assert entry.validations and entry.costs  # validated and costed by the first run
            parses = entry.document
            alone = await post(c, keys.full, sha, variables={"n": 2})
            assert len(alone.json()["data"]["assets"]["data"]) == 2
            assert caches.parsed(await caches.document(query)) is entry  # no new parse
            assert entry.document is parses and len(entry.costs) == 2
            over = await post(c, keys.full, sha, variables={"n": 1000})
            error = over.json()["errors"][0]
            assert over.json()["data"] is None and error["extensions"]["code"] == "COST_LIMIT"


def app_routes(app: Any) -> list[Any]:
    inner = app
    while not hasattr(inner, "router"):
        inner = inner.app
    return inner.router.routes


async def test_a_mismatched_hash_is_refused_and_stores_nothing(client, keys, store):
    query = fresh_query()
    wrong = document_hash(query + " ")
    answer = await post(client, keys.full, wrong, query)
    assert (answer.status_code, answer.json()) == (400, MISMATCH)
    assert await stored(store, wrong) is None
    assert await stored(store, document_hash(query)) is None
    upper = await post(client, keys.full, document_hash(query).upper(), query)
    assert (upper.status_code, upper.json()) == (400, MISMATCH)  # lowercase hex only


@pytest.mark.parametrize("version", [2, "1", None, True, 0])
async def test_a_version_other_than_1_is_refused(client, keys, version):
    query = fresh_query()
    answer = await post(client, keys.full, document_hash(query), query, version=version)
    assert (answer.status_code, answer.json()) == (400, VERSION)


async def test_keyless_and_refused_documents_are_never_stored(client, keys, store):
    before = await count(store)
    typename = "{ __typename }"
    keyless = await post(client, None, document_hash(typename), typename)
    assert keyless.json() == {"data": {"__typename": "Query"}}
    invalid = "query Invalid { nope }"
    refused = await post(client, keys.full, document_hash(invalid), invalid)
    assert refused.json()["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    flagged = "query Groups { unitAttributeGroups { groupId } }"  # needs its flag
    no_flag = await post(client, keys.full, document_hash(flagged), flagged)
    assert no_flag.json()["errors"][0]["extensions"]["code"] == "FLAG_REQUIRED"
    broken = "query Broken {"
    unparsed = await post(client, keys.full, document_hash(broken), broken)
    assert unparsed.json()["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    bad_key = await post(client, "fg_unknown", document_hash(typename), typename)
    assert bad_key.json()["errors"][0]["extensions"]["code"] == "INVALID_KEY"
    assert await count(store) == before


async def test_a_document_over_the_size_limit_is_refused_before_it_is_stored(
    db_server, settings, keys, store
):
    query = fresh_query() + " " * 300
    async with app_client(db_server, settings, graphql_max_document_bytes=200) as small:
        answer = await post(small, keys.full, document_hash(query), query)
    assert answer.status_code == 413
    assert answer.json() == {"message": "GraphQL document too large: at most 200 bytes"}
    assert await stored(store, document_hash(query)) is None


async def test_a_mutation_by_hash_over_get_is_refused(client, keys, store):
    mutation = 'mutation Drop { deleteLocation(unitMapId: "none", id: "none") }'
    sha = document_hash(mutation)
    bounds = Bounds(1000, 10**7)
    assert await register(store, sha, mutation, bounds, safelisted=True)
    try:
        got = await get(client, keys.full, sha)
        assert (got.status_code, got.json()) == (405, {"message": "Method not allowed"})
    finally:
        assert await remove(store, sha)


async def test_two_apps_on_one_database_share_the_store(db_server, settings, keys):
    query = fresh_query()
    sha = document_hash(query)
    async with (
        app_client(db_server, settings) as first,
        app_client(db_server, settings) as second,
    ):
        assert (await post(second, keys.full, sha)).json() == NOT_FOUND
        registered = await post(first, keys.full, sha, query, {"n": 3})
        alone = await post(second, keys.full, sha, variables={"n": 3})
        assert (alone.status_code, alone.content) == (200, registered.content)
        got = await get(second, keys.full, sha, {"n": 3})
        assert got.status_code == 200 and got.content == registered.content


async def test_a_full_store_evicts_the_least_recently_used_automatic_documents(
    db_server, settings, keys, store
):
    collection = store[PERSISTED_QUERIES]
    await empty(store)
    listed = fresh_query()
    await register(store, document_hash(listed), listed, Bounds(10, 10**6), safelisted=True)
    a, b, c = fresh_query(), fresh_query(), fresh_query()
    async with (
        app_client(db_server, settings, persisted_queries_max_count=3) as first,
        app_client(db_server, settings, persisted_queries_max_count=3) as second,
    ):
        for query in (a, b):
            assert (await post(first, keys.full, document_hash(query), query)).status_code == 200
            await asyncio.sleep(0.01)
        # `a` used again (by a process that does not keep it yet): `b` is now the oldest.
        assert (await post(second, keys.full, document_hash(a))).json()["data"] is not None
        await asyncio.sleep(0.01)
        assert (await post(first, keys.full, document_hash(c), c)).status_code == 200
        ids = {row["_id"] async for row in collection.find({}, {"_id": 1})}
        assert ids == {document_hash(listed), document_hash(a), document_hash(c)}
        gone = await post(second, keys.full, document_hash(b))
        assert gone.json() == NOT_FOUND
    await empty(store)


async def test_a_store_full_of_safelisted_documents_stores_nothing_more(
    db_server, settings, keys, store
):
    await empty(store)
    listed = fresh_query()
    await register(store, document_hash(listed), listed, Bounds(10, 10**6), safelisted=True)
    query = fresh_query()
    limits = {"persisted_queries_max_count": 1}
    async with app_client(db_server, settings, **limits) as one:
        answer = await post(one, keys.full, document_hash(query), query, {"n": 1})
        assert answer.status_code == 200 and answer.json()["data"]["assets"]["data"]
    assert await stored(store, document_hash(query)) is None
    assert await stored(store, document_hash(listed)) is not None
    tiny = {"persisted_queries_max_bytes": len(query) + 10}  # the text fits, its hash not
    async with app_client(db_server, settings, **tiny) as small:
        await empty(store)
        assert (await post(small, keys.full, document_hash(query), query)).status_code == 200
    assert await count(store) == 0


async def test_safelist_mode_runs_only_listed_documents(db_server, settings, keys, store):
    listed, unlisted = fresh_query(), fresh_query()
    await register(store, document_hash(listed), listed, Bounds(1000, 10**7), safelisted=True)
    automatic = fresh_query()  # registered automatically before: not on the list
    await register(store, document_hash(automatic), automatic, Bounds(1000, 10**7))
    before = await count(store)
    async with app_client(db_server, settings, persisted_queries="safelist") as safe:
        by_hash = await post(safe, keys.plain, document_hash(listed), variables={"n": 1})
        assert by_hash.status_code == 200 and by_hash.json()["data"]["assets"]["data"]
        by_text = await safe.post(
            "/graphql", json={"query": listed}, headers={"API-Key": keys.plain}
        )
        assert by_text.status_code == 200 and by_text.json()["data"] is not None
        for refused in (
            await post(safe, keys.plain, document_hash(unlisted)),
            await post(safe, keys.plain, document_hash(unlisted), unlisted),
            await post(safe, keys.plain, document_hash(automatic)),
            await safe.post("/graphql", json={"query": unlisted}, headers={"API-Key": keys.plain}),
            await safe.get("/graphql", params={"query": unlisted}, headers={"API-Key": keys.plain}),
            await safe.post("/graphql", json={"query": "{ __typename }"}),  # keyless
            await safe.post(
                "/graphql",
                content=json.dumps({"query": unlisted}),
                headers={"API-Key": keys.plain, "Content-Type": "application/json-seq"},
            ),
        ):
            assert (refused.status_code, refused.json()) == (403, NOT_ALLOWED)
        admin = await safe.post(
            "/graphql", json={"query": unlisted}, headers={"API-Key": keys.full}
        )
        assert admin.status_code == 200 and admin.json()["data"] is not None
        rest = await safe.get("/v1/assets", headers={"API-Key": keys.plain})
        assert rest.status_code == 200 and rest.json()["data"]
        route = next(r for r in ROUTES if r.path == "/v1/assets" and r.method == "GET")
        table = await post(safe, keys.plain, document_hash(route.document))
        assert table.status_code == 200 and "errors" not in table.json()
    assert await count(store) == before  # safelist mode registers nothing
    for sha in (document_hash(listed), document_hash(automatic)):
        assert await remove(store, sha)


async def test_off_mode_answers_apollos_not_supported(db_server, settings, keys):
    query = fresh_query()
    async with app_client(db_server, settings, persisted_queries="off") as off:
        for answer in (
            await post(off, keys.full, document_hash(query)),
            await post(off, keys.full, document_hash(query), query),
        ):
            assert (answer.status_code, answer.json()) == (200, NOT_SUPPORTED)
            assert answer.headers["cache-control"] == APOLLO_NOT_KEPT
        plain = await off.post("/graphql", json={"query": query}, headers={"API-Key": keys.full})
        assert plain.status_code == 200 and plain.json()["data"] is not None


def test_the_app_builds_with_each_mode(settings, store):
    for mode in ("auto", "safelist", "off"):
        assert create_app(replace(settings, persisted_queries=mode), store) is not None


async def test_a_get_with_variables_that_are_no_json_object_is_refused(client, keys):
    query = fresh_query()
    sha = document_hash(query)
    await post(client, keys.full, sha, query)
    for raw in ("{", "[1]"):
        params = {"extensions": json.dumps(extensions(sha)), "variables": raw}
        got = await client.get("/graphql", params=params, headers={"API-Key": keys.full})
        assert (got.status_code, got.json()) == (
            422,
            {
                "message": "Resource validation failed",
                "fields": {"variables": ["must be a JSON object"]},
            },
        )
    params = {"extensions": json.dumps(extensions(sha)), "variables": "null"}
    got = await client.get("/graphql", params=params, headers={"API-Key": keys.full})
    assert got.status_code == 200 and got.json()["data"]["assets"]["data"]


@pytest.mark.security
async def test_no_flood_of_hashes_or_texts_grows_the_store_or_the_process(client, keys, store):
    """Keyless texts with their hashes, unknown hashes and a hash hijack (another text
    under a stored hash) store nothing, and unknown hashes keep nothing in memory."""
    query = fresh_query()
    sha = document_hash(query)
    await post(client, keys.full, sha, query)
    before = await count(store)
    kept = (await client.get("/readyz")).json()["persisted_queries"]
    assert kept["budget_bytes"] == 8 * 1024 * 1024 and kept["entries"] >= 1
    for n in range(15):  # keyless requests spend the address's tokens (burst 50)
        text = f"{{ __typename a{n}: __typename }}"
        assert (await post(client, None, document_hash(text), text)).status_code == 200
        unknown = document_hash(f"unknown {n}")
        assert (await post(client, keys.full, unknown)).json() == NOT_FOUND
    hijack = await post(client, keys.full, sha, "{ __typename }")
    assert (hijack.status_code, hijack.json()) == (400, MISMATCH)
    assert (await stored(store, sha))["document"] == query
    assert await count(store) == before
    assert (await client.get("/readyz")).json()["persisted_queries"]["entries"] == kept["entries"]


async def test_a_compressed_get_answer_revalidates_with_its_suffixed_tag(client, keys):
    query = f"query Units{next(NUMBERS)} {{ units(perPage: 60) {{ data {{ id name assetId }} }} }}"
    sha = document_hash(query)
    await post(client, keys.full, sha, query)
    coded = {"Accept-Encoding": "br"}
    got = await get(client, keys.full, sha, headers=coded)
    assert got.status_code == 200 and got.headers["content-encoding"] == "br"
    etag = got.headers["etag"]
    assert etag.endswith('-br"')
    again = await get(client, keys.full, sha, headers={**coded, "If-None-Match": etag})
    assert (again.status_code, again.headers["etag"]) == (304, etag)


@pytest.mark.security
async def test_a_key_scoped_to_another_asset_sees_only_its_asset_by_hash(client, keys):
    """A document registered by a full key runs, by its hash, under the caller's own
    scope: the stored text carries no data and no access, and a GET's ETag is of the
    caller's own answer, so the full key's tag never revalidates the scoped key's read."""
    query = f"query Scoped{next(NUMBERS)} {{ assets(perPage: 100) {{ data {{ id }} }} }}"
    sha = document_hash(query)
    full = await post(client, keys.full, sha, query)
    assert len(full.json()["data"]["assets"]["data"]) > 1
    direct = await client.post("/graphql", json={"query": query}, headers={"API-Key": keys.scoped})
    expected = {"data": {"assets": {"data": [{"id": "asset-2"}]}}}
    assert direct.json() == expected
    assert (await post(client, keys.scoped, sha)).json() == expected
    full_get = await get(client, keys.full, sha)
    scoped_get = await get(
        client, keys.scoped, sha, headers={"If-None-Match": full_get.headers["etag"]}
    )
    assert (scoped_get.status_code, scoped_get.json()) == (200, expected)
    assert scoped_get.headers["etag"] != full_get.headers["etag"]


async def test_several_operations_without_a_name_are_refused_and_never_stored(client, keys, store):
    """The GraphQL spec's request error, sent with its text or by its hash alone: 422 on
    `operationName`, nothing run and nothing stored (strawberry ran the first one)."""
    query = f"query A{next(NUMBERS)} {{ __typename }} query B {{ __typename }}"
    sha = document_hash(query)
    before = await count(store)
    refusal = {
        "message": "Resource validation failed",
        "fields": {
            "operationName": ["Must provide operation name if query contains multiple operations."]
        },
    }
    sent = await post(client, keys.full, sha, query)
    assert (sent.status_code, sent.json()) == (422, refusal)
    assert await count(store) == before
    plain = await client.post("/graphql", json={"query": query}, headers={"API-Key": keys.full})
    assert (plain.status_code, plain.json()) == (422, refusal)
