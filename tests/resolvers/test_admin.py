"""Operator writes (resolvers/admin.py) against a staged import's rules, through the real
app: a put that would need the staged way (past FLOORGATE_IMPORT_MAX_DOCUMENTS) is
refused before anything is written, since its switch waits a whole request budget before
it applies; `deleteLocation` holds the asset's lease, as the puts do."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest_asyncio

from resolvers.auth.keys import create_key
from resolvers.auth.permissions import ALL_PERMISSIONS
from rest.app import create_app
from storage import collections as col
from storage.database import Store
from storage.datasets import sections
from storage.imports.importer import import_data
from storage.imports.leases import asset_leases
from storage.settings import Settings
from tests._dbserver import fresh_store
from tests.conftest import with_schema
from tests.storage.test_map_ingestion import PUBLIC, dataset, drawing

PUT_MAP = """mutation ($input: UnitMapInput!, $svg: String!) {
  putUnitMap(input: $input, svg: $svg) { id }
}"""
PUT_REFERENCE = """mutation ($input: AssetReferenceInput!) {
  putAssetReference(input: $input) { id value }
}"""
DELETE_LOCATION = "mutation ($id: ID!) { deleteLocation(id: $id) }"
SCOPE_REFUSAL = "BAD_USER_INPUT"  # out of the key's scope, an asset is unknown (422 field)
LIMIT = 2  # documents: a map drawn on two levels writes 3 (itself and its two level tags)


@pytest_asyncio.fixture(loop_scope="session")
async def store(db_server) -> AsyncIterator[Store]:
    async with fresh_store(db_server) as store:
        yield store


@contextlib.asynccontextmanager
async def api(
    store: Store, assets: list[str] | None = None, **settings: Any
) -> AsyncIterator[httpx.AsyncClient]:
    """The real app on the store, with `settings`, and an operator's key (of `assets`
    only, when given)."""
    key = (await create_key(store, "ops", list(ALL_PERMISSIONS), assets)).secret
    config = Settings(public_url=PUBLIC, rate_limit_per_second=0, **settings)
    transport = httpx.ASGITransport(app=with_schema(create_app(config, store)))
    async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as client:
        client.headers["API-Key"] = key
        yield client


async def graphql(client: httpx.AsyncClient, query: str, **variables: Any) -> httpx.Response:
    return await client.post("/graphql", json={"query": query, "variables": variables})


async def documents(store: Store) -> dict[str, list[dict[str, Any]]]:
    return {name: await store[name].find({}).to_list() for name in sections.REPORTED}


async def test_a_put_that_would_be_staged_is_refused_before_anything_is_written(
    store: Store, tmp_path: Path
) -> None:
    data = dataset(tmp_path)
    data["unit_maps"], data["locations"] = [], []
    await import_data(store, data, tmp_path)
    before = await documents(store)
    files = await store["fs.files"].count_documents({})
    new_map = {"id": "m-big", "assetId": "a1", "name": "Big"}
    async with api(store, import_max_documents=LIMIT) as client:
        refused = await graphql(client, PUT_MAP, input=new_map, svg=drawing())
        after = await documents(store)
        small = {"id": "r1", "assetId": "a1", "key": "pms", "value": "42"}
        within = await graphql(client, PUT_REFERENCE, input=small)  # 1 document: one transaction
    assert refused.status_code == 200  # GraphQL: the error is in the body
    assert refused.json()["data"] is None
    error = refused.json()["errors"][0]
    assert error["message"] == (
        'This write would store 3 documents of asset "a1", more than one transaction takes '
        "(2: FLOORGATE_IMPORT_MAX_DOCUMENTS); nothing was written. Import it with floorgate "
        "import, which stages and switches in a write this large"
    )
    assert error["extensions"] == {"code": "WRITE_TOO_LARGE", "documents": 3, "limit": 2}
    assert after == before
    assert await store["fs.files"].count_documents({}) == files  # no drawing stored either
    for name in (col.SWITCHES, col.IMPORT_BATCHES, col.LEASES):
        assert await store[name].count_documents({}) == 0, name
    assert within.json() == {"data": {"putAssetReference": {"id": "r1", "value": "42"}}}
    async with api(store) as client:  # the default limit: the same put goes through
        done = await graphql(client, PUT_MAP, input=new_map, svg=drawing())
    assert done.json() == {"data": {"putUnitMap": {"id": "m-big"}}}


async def test_delete_location_waits_for_an_import_of_its_asset_then_answers_503(
    store: Store, tmp_path: Path
) -> None:
    """While an import holds the asset (a staged one computed the map's GeoJSON from its
    locations), deleteLocation waits three quarters of its budget, then fails as
    SERVICE_UNAVAILABLE and deletes nothing; once the import ends it goes through."""
    await import_data(store, dataset(tmp_path), tmp_path)
    async with api(store, request_timeout_seconds=2.0) as client:
        async with asset_leases(store, ["a1"], wait=0):
            started = asyncio.get_running_loop().time()
            busy = await graphql(client, DELETE_LOCATION, id="loc-pool")
            waited = asyncio.get_running_loop().time() - started
            assert await store[col.LOCATIONS].count_documents({"_id": "loc-pool"}) == 1
        done = await graphql(client, DELETE_LOCATION, id="loc-pool")
        again = await graphql(client, DELETE_LOCATION, id="loc-pool")
    assert busy.json()["errors"][0]["extensions"]["code"] == "SERVICE_UNAVAILABLE"
    assert 1.5 <= waited < 2.0
    assert done.json() == {"data": {"deleteLocation": True}}
    assert again.json() == {"data": {"deleteLocation": False}}
    assert await store[col.LOCATIONS].count_documents({"_id": "loc-pool"}) == 0
    assert await store[col.LEASES].count_documents({}) == 0


async def test_a_key_of_another_asset_is_refused_its_scope_before_the_size(
    store: Store, tmp_path: Path
) -> None:
    """The put past the limit, by a key of another asset: the scope's answer, not
    WRITE_TOO_LARGE (which would tell what the write would store), nothing written."""
    data = dataset(tmp_path)
    data["unit_maps"], data["locations"] = [], []
    await import_data(store, data, tmp_path)
    before = await documents(store)
    new_map = {"id": "m-big", "assetId": "a1", "name": "Big"}
    async with api(store, assets=["other-asset"], import_max_documents=LIMIT) as client:
        refused = await graphql(client, PUT_MAP, input=new_map, svg=drawing())
    errors = refused.json()["errors"]
    assert [error["extensions"]["code"] for error in errors] == [SCOPE_REFUSAL]
    assert errors[0]["extensions"]["fields"]["input.assetId"] == ['unknown asset "a1"']
    assert await documents(store) == before
    for name in (col.SWITCHES, col.IMPORT_BATCHES, col.LEASES):
        assert await store[name].count_documents({}) == 0, name


async def test_delete_location_of_another_asset_answers_at_once_while_it_is_imported(
    store: Store, tmp_path: Path
) -> None:
    """A key of another asset learns nothing of an import in progress: its delete of a
    location out of scope is `false` at once (no wait for the lease, no 503)."""
    await import_data(store, dataset(tmp_path), tmp_path)
    scoped = api(store, assets=["other-asset"], request_timeout_seconds=2.0)
    async with scoped as client, asset_leases(store, ["a1"], wait=0):
        started = asyncio.get_running_loop().time()
        answer = await graphql(client, DELETE_LOCATION, id="loc-pool")
        waited = asyncio.get_running_loop().time() - started
    assert answer.json() == {"data": {"deleteLocation": False}}
    assert waited < 0.5
    assert await store[col.LOCATIONS].count_documents({"_id": "loc-pool"}) == 1
