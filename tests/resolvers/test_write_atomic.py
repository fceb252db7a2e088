"""Issue 14: the API's writes across collections are one transaction, leases keep two
writers of an asset apart, a standalone server is refused unless asked, and a large
import is committed per asset. Against the embedded server, never a mock."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio

import storage.imports.leases as leases_module
from resolvers.auth.keys import create_key
from resolvers.auth.permissions import ALL_PERMISSIONS
from rest.app import create_app
from storage import collections as col
from storage.database import Store, connect
from storage.datasets import sections
from storage.files import content_name
from storage.imports import switches
from storage.imports.importer import import_data
from storage.imports.integrity import find_dangling
from storage.imports.leases import HOST, LeaseBusy, asset_leases, lease_id
from storage.settings import Settings
from storage.transactions import NoTransactions
from tests._dbserver import abort_leased_transactions, fresh_store
from tests.rest.cli.test_cli_errors import cutting_proxy
from tests.storage.test_map_ingestion import LEVEL_1_UNITS, PUBLIC, dataset, drawing, georeference

PUT = """mutation ($input: UnitMapInput!, $svg: String!) {
  putUnitMap(input: $input, svg: $svg) { id }
}"""
DELETE = "mutation ($id: ID!) { deleteLocation(id: $id) }"


@pytest_asyncio.fixture(loop_scope="session")
async def store(db_server):
    async with fresh_store(db_server) as store:
        yield store


async def documents(store: Store) -> dict[str, list[dict[str, Any]]]:
    return {name: await store[name].find({}).to_list() for name in sections.REPORTED}


async def file_names(store: Store) -> set[str]:
    return set(await store["fs.files"].distinct("filename"))


async def graphql(client: httpx.AsyncClient, query: str, **variables: Any) -> httpx.Response:
    return await client.post("/graphql", json={"query": query, "variables": variables})


def proxied_client(store: Store, port: int) -> tuple[Store, httpx.AsyncClient]:
    """The API on a connection through the cutting proxy on `port`."""
    settings = Settings(
        public_url=PUBLIC, rate_limit_per_second=0, db_timeout_ms=500, database_name=store.db.name
    )
    through = connect(f"mongodb://127.0.0.1:{port}/?directConnection=true", settings)
    transport = httpx.ASGITransport(app=create_app(settings, through))
    return through, httpx.AsyncClient(transport=transport, base_url="https://testserver")


# ---------------------------------------------------------------- API writes


async def test_put_unit_map_cut_in_the_middle_changes_no_document(store, tmp_path, db_server):
    """The map document is written first, its level tags next: the proxy cuts when the
    level tags (whose name carries the marker) are sent, inside the transaction."""
    await import_data(store, dataset(tmp_path, georeference=georeference()), tmp_path)
    key = (await create_key(store, "ops", list(ALL_PERMISSIONS), None)).secret
    before, files_before = await documents(store), await file_names(store)
    marker = "level-tag-name-that-cuts"
    changed = drawing(LEVEL_1_UNITS.replace('width="100"', 'width="90"', 1))
    with cutting_proxy(db_server.port, marker.encode()) as proxy:
        through, client = proxied_client(store, proxy.port)
        async with client:
            client.headers["API-Key"] = key
            response = await graphql(
                client,
                PUT,
                svg=changed,
                input={
                    "id": "m1",
                    "assetId": "a1",
                    "name": "Main",
                    "levelTags": [
                        {
                            "key": "building",
                            "name": marker,
                            "values": [{"value": "main", "name": "Main"}],
                        }
                    ],
                },
            )
        await through.close()
        assert proxy.cut.is_set()
    await abort_leased_transactions(store)  # as the next writer would, once the lease expires
    assert response.json()["errors"][0]["extensions"]["code"] == "SERVICE_UNAVAILABLE"
    assert await documents(store) == before
    # Only the new drawing's files were stored (before the transaction); nothing names
    # them, so `floorgate gc` removes them, and nothing dangles.
    new_files = await file_names(store) - files_before
    assert content_name("m1", changed.encode(), ".source.svg") in new_files
    assert all(name.startswith("maps/m1/") for name in new_files)
    assert (await find_dangling(store)).dangling == []


async def test_delete_location_is_one_change(store, tmp_path):
    await import_data(store, dataset(tmp_path, georeference=georeference()), tmp_path)
    key = (await create_key(store, "ops", list(ALL_PERMISSIONS), None)).secret
    unit_map = await store[col.UNIT_MAPS].find_one({"_id": "m1"})
    settings = Settings(public_url=PUBLIC, rate_limit_per_second=0)
    transport = httpx.ASGITransport(app=create_app(settings, store))
    async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as client:
        client.headers["API-Key"] = key
        response = await graphql(client, DELETE, id="loc-pool")
    assert response.json() == {"data": {"deleteLocation": True}}
    after = await store[col.UNIT_MAPS].find_one({"_id": "m1"})
    assert await store[col.LOCATIONS].count_documents({"_id": "loc-pool"}) == 0
    assert after["geojson_file"] != unit_map["geojson_file"]
    assert after["locations_version"] != unit_map["locations_version"]
    # The GeoJSON the map named before is gone once the new one is named.
    assert await file_names(store) == {
        after["source_file"],
        after["parsed_file"],
        after["geojson_file"],
    }


PUT_REFERENCE = """mutation ($input: AssetReferenceInput!) {
  putAssetReference(input: $input) { id value }
}"""


async def test_an_api_write_waits_for_an_import_of_its_asset_then_answers_503(store, tmp_path):
    """While an import holds the asset, a put waits (3/4 of its time budget), then fails
    as SERVICE_UNAVAILABLE with Retry-After (503 over REST) and writes nothing; once the
    import ends, the put goes through."""
    await import_data(store, dataset(tmp_path), tmp_path)
    key = (await create_key(store, "ops", list(ALL_PERMISSIONS), None)).secret
    settings = Settings(public_url=PUBLIC, rate_limit_per_second=0, request_timeout_seconds=2.0)
    transport = httpx.ASGITransport(app=create_app(settings, store))
    reference = {"id": "r1", "assetId": "a1", "key": "pms", "value": "42"}
    async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as client:
        client.headers["API-Key"] = key
        async with asset_leases(store, ["a1"], wait=0):
            started = asyncio.get_running_loop().time()
            busy = await graphql(client, PUT_REFERENCE, input=reference)
            waited = asyncio.get_running_loop().time() - started
            assert await store[col.ASSET_REFERENCES].count_documents({}) == 0
        done = await graphql(client, PUT_REFERENCE, input=reference)
    assert busy.status_code == 200  # GraphQL: the error is in the body
    error = busy.json()["errors"][0]
    assert (error["extensions"]["code"], error["extensions"]["retryAfter"]) == (
        "SERVICE_UNAVAILABLE",
        settings.retry_after_seconds,
    )
    assert 1.5 <= waited < 2.0
    assert done.json() == {"data": {"putAssetReference": {"id": "r1", "value": "42"}}}


# ---------------------------------------------------------------- leases


def dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


async def abandoned_transaction(store: Store) -> dict[str, Any]:
    """A transaction left open on the asset's document (as by a killed import); the
    session's id, which its lease names."""
    session = store.client.start_session()
    await session.start_transaction()
    await store[col.ASSETS].update_one(
        {"_id": "a1"}, {"$set": {"name": "half"}}, upsert=True, session=session
    )
    return session.session_id


async def test_the_lease_of_a_killed_import_is_taken_over_at_once(store):
    session_id = await abandoned_transaction(store)
    await store[col.LEASES].insert_one(
        {
            "_id": lease_id("a1"),
            "owner": "gone",
            "host": HOST,
            "pid": dead_pid(),
            "since": "2026-11-23T09:00:00+00:00",
            "session_id": session_id,
            "expires": datetime.now(UTC) + timedelta(seconds=30),
        }
    )
    async with asset_leases(store, ["a1"], wait=0):
        lease = await store[col.LEASES].find_one({"_id": lease_id("a1")})
        assert (lease["pid"], lease["host"]) == (os.getpid(), HOST)
        # The abandoned transaction was aborted: the document takes a write at once.
        await asyncio.wait_for(
            store[col.ASSETS].update_one({"_id": "a1"}, {"$set": {"name": "next"}}, upsert=True),
            timeout=5,
        )
    assert await store[col.LEASES].count_documents({}) == 0
    assert (await store[col.ASSETS].find_one({"_id": "a1"}))["name"] == "next"


async def test_an_expired_lease_of_another_host_is_taken_over(store):
    await store[col.LEASES].insert_one(
        {
            "_id": lease_id("a1"),
            "owner": "other",
            "host": "elsewhere",
            "pid": 1,
            "since": "2026-11-23T09:00:00+00:00",
            "session_id": None,
            "expires": datetime.now(UTC) - timedelta(seconds=1),
        }
    )
    async with asset_leases(store, ["a1"], wait=0):
        lease = await store[col.LEASES].find_one({"_id": lease_id("a1")})
        assert lease["host"] == HOST


async def test_a_live_lease_is_waited_for_then_refused(store):
    await store[col.LEASES].insert_one(
        {
            "_id": lease_id("a1"),
            "owner": "other",
            "host": "elsewhere",
            "pid": 42,
            "since": "2026-11-23T09:00:00+00:00",
            "session_id": None,
            "expires": datetime.now(UTC) + timedelta(seconds=30),
        }
    )
    told: list[tuple[str, int]] = []
    started = asyncio.get_running_loop().time()
    with pytest.raises(LeaseBusy) as raised:
        async with asset_leases(
            store,
            ["b0", "a1"],
            wait=0.5,
            waiting=lambda asset, holder: told.append((asset, holder["pid"])),
        ):
            raise AssertionError("the lease was held by another")
    waited = asyncio.get_running_loop().time() - started
    assert 0.5 <= waited < 2
    assert told == [("a1", 42)]
    assert str(raised.value) == (
        "asset 'a1' is being written by another import (pid 42 on host elsewhere, since "
        "2026-11-23T09:00:00+00:00); try again when it has finished"
    )
    # Nothing stays held: the lease taken before the busy one was released.
    assert [doc["_id"] async for doc in store[col.LEASES].find({})] == [lease_id("a1")]


async def test_a_held_lease_is_renewed(store, monkeypatch):
    monkeypatch.setattr(leases_module, "RENEW_SECONDS", 0.05)
    async with asset_leases(store, ["a1"], wait=0):
        first = (await store[col.LEASES].find_one({}))["expires"]
        await asyncio.sleep(0.3)
        later = (await store[col.LEASES].find_one({}))["expires"]
    assert later > first


# ---------------------------------------------------------------- deployments and sizes


async def test_a_server_without_transactions_is_refused_unless_asked(store, tmp_path):
    store.transactions = False  # what `hello` of a standalone mongod gives
    data = dataset(tmp_path)
    with pytest.raises(NoTransactions) as raised:
        await import_data(store, data, tmp_path)
    assert str(raised.value) == (
        "this MongoDB deployment has no transactions (a standalone mongod): readers could "
        "see a half-written import. Run it on a replica set (one member is enough) or pass "
        "--no-transaction to write in the idempotent order."
    )
    assert await store[col.UNITS].count_documents({}) == 0
    report = await import_data(store, data, tmp_path, require_transaction=False)
    assert "units: 4 inserted, 0 updated" in report.lines()
    assert await store[col.UNITS].count_documents({}) == 4


def two_assets(folder: Path) -> dict[str, Any]:
    data = dataset(folder)
    other = {
        "assets": [{"id": "a2", "market": "multifamily", "name": "Beta"}],
        "floors": [{"id": "g1", "asset_id": "a2", "name": "Floor 1", "sort": 1}],
        "units": [{"id": "v1", "asset_id": "a2", "floor_id": "g1", "name": "1"}],
        "attribute_groups": [
            {
                "id": "g",
                "group_name": "G",
                "attributes": [{"attribute_id": "x", "attribute_name": "X", "attribute_key": "x"}],
            }
        ],
        "assignments": [{"group_id": "g", "attribute_id": "x", "asset_id": "a2", "unit_id": "v1"}],
    }
    for section, records in other.items():
        data[section] = data.get(section, []) + records
    return data


async def test_a_large_import_is_committed_per_asset(store, tmp_path, monkeypatch):
    commits: list[list[str]] = []
    original = store.client.start_session

    def counting_session(*args: Any, **kwargs: Any) -> Any:
        session = original(*args, **kwargs)
        commit = session.commit_transaction

        async def counted() -> None:
            commits.append([])
            await commit()

        session.commit_transaction = counted
        return session

    monkeypatch.setattr(store.client, "start_session", counting_session)
    data = two_assets(tmp_path)
    report = await import_data(store, data, tmp_path, max_documents=15)  # of 19
    assert len(commits) == 2  # a1 with the attribute group, then a2
    assert "units: 5 inserted, 0 updated" in report.lines()
    assert "assignments: 1 inserted, 0 updated" in report.lines()
    assert await store[col.ASSIGNMENTS].count_documents({"unit_id": "v1"}) == 1
    commits.clear()
    await import_data(store, data, tmp_path)
    assert len(commits) == 1  # within the limit: one transaction


async def test_an_asset_too_large_for_one_transaction_is_staged_and_switched_in(
    store, tmp_path, monkeypatch
):
    """Past the limit the import is split per asset; an asset past it alone is staged and
    switched in (storage/imports/switches.py, tested in tests/storage/imports/): the same
    documents as in one transaction, and no switch or staged batch left."""

    async def no_wait(store: Store) -> float:
        return 0.0

    monkeypatch.setattr(switches, "switch_wait", no_wait)
    data = two_assets(tmp_path)  # a1: 12 documents (its map: 1 + 2 levels, no walk paths)
    report = await import_data(store, data, tmp_path, max_documents=11)
    assert "units: 5 inserted, 0 updated" in report.lines()
    assert "assignments: 1 inserted, 0 updated" in report.lines()
    for name in (col.SWITCHES, col.IMPORT_BATCHES, col.LEASES):
        assert await store[name].count_documents({}) == 0, name
    assert await store[col.UNITS].count_documents({"asset_id": "a1"}) == 4
    assert (await find_dangling(store)).clean
