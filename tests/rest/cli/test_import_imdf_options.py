"""`floorgate import-imdf` says where to look (issue 48, point 8): it prints the viewer URL
of the venue's stack map, which opens; `--market` makes the asset one that vendor
clients find at `/v1/assets/{asset}/{market}/...`; `--id-prefix` gives readable ids,
the same at a second import, which replaces the first. The real command, run as a
process, on the test database; the API through the real ASGI app."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
from pymongo import MongoClient

from resolvers.auth.keys import create_key
from resolvers.auth.permissions import ALL_PERMISSIONS
from rest.app import create_app
from storage.database import connect
from storage.embedded.server import EmbeddedServer
from storage.settings import Settings
from tests.rest.cli.test_cli_errors import clean_env, run
from tests.venues.food_hall import food_hall
from tests.venues.imdf_venues import zip_bytes

PREFIX = "food-hall"
COLLECTIONS = ("assets", "floors", "units", "unit_maps", "locations")


def counts(uri: str, database: str) -> dict[str, int]:
    with MongoClient[dict[str, Any]](uri) as client:
        return {name: client[database][name].count_documents({}) for name in COLLECTIONS}


@asynccontextmanager
async def api(uri: str, settings: Settings, database: str) -> AsyncIterator[httpx.AsyncClient]:
    """The app on the database the command wrote, with a key that may read everything."""
    mine = replace(settings, database_name=database)
    store = connect(uri, mine)
    try:
        key = (await create_key(store, "cli", list(ALL_PERMISSIONS), None)).secret
        transport = httpx.ASGITransport(app=create_app(mine, store))
        async with httpx.AsyncClient(
            transport=transport, base_url="https://testserver", headers={"API-Key": key}
        ) as client:
            yield client
    finally:
        await store.close()


async def get(client: httpx.AsyncClient, path: str) -> tuple[int, Any]:
    response = await client.get(path)
    kind = response.headers.get("content-type", "")
    return response.status_code, response.json() if "json" in kind else response.text


async def test_market_prefix_and_the_printed_viewer_url(
    tmp_path: Path, db_server: EmbeddedServer, settings: Settings
) -> None:
    database = f"floorgate_cli_imdf_{uuid.uuid4().hex[:8]}"
    hall = food_hall()
    archive = tmp_path / "food-hall.zip"
    archive.write_bytes(zip_bytes(hall.venue.files()))
    env = clean_env(
        tmp_path,
        FLOORGATE_MONGODB_URI=db_server.uri,
        FLOORGATE_DATABASE=database,
        FLOORGATE_PORT="8555",
    )
    try:
        first, _ = run(["import-imdf", str(archive), "--id-prefix", PREFIX], env)
        assert first.returncode == 0, first.stderr
        lines = first.stdout.splitlines()
        assert lines[-2:] == [
            "View it: https://localhost:8555/viewer/maps/food-hall-stack",
            "  (the stack map: every level of the venue on one map, routes between floors)",
        ]
        before = counts(db_server.uri, database)
        async with api(db_server.uri, settings, database) as client:
            status, asset = await get(client, f"/v1/assets/{PREFIX}")
            assert (status, asset["market"], asset["name"]) == (200, "imdf", "Food Hall")
            # What vendor clients ask (they hard-code multifamily): not found.
            status, _ = await get(client, f"/v1/assets/{PREFIX}/multifamily/maps")
            assert status == 404

        public = {**env, "FLOORGATE_PUBLIC_URL": "https://maps.example.com"}
        again = ["import-imdf", str(archive), "--id-prefix", PREFIX, "--market", "multifamily"]
        second, _ = run(again, public)
        assert second.returncode == 0, second.stderr
        assert "View it: https://maps.example.com/viewer/maps/food-hall-stack" in second.stdout
        assert "locations: 0 inserted, 38 updated" in second.stdout
        assert counts(db_server.uri, database) == before  # replaced, not duplicated
        assert before == {"assets": 1, "floors": 2, "units": 10, "unit_maps": 3, "locations": 38}

        async with api(db_server.uri, settings, database) as client:
            status, maps = await get(client, f"/v1/assets/{PREFIX}/multifamily/maps")
            assert status == 200
            assert sorted(m["id"] for m in maps["data"]) == [
                "food-hall-level-1",
                "food-hall-level-g",
                "food-hall-stack",
            ]
            status, floors = await get(client, f"/v1/assets/{PREFIX}/multifamily/floors")
            assert [(f["id"], f["name"]) for f in floors["data"]] == [
                ("food-hall-level-g", "Ground Floor"),
                ("food-hall-level-1", "Upper Floor"),
            ]
            status, _ = await get(client, f"/v1/assets/{PREFIX}/imdf/maps")
            assert status == 404
            status, page = await get(client, "/viewer/maps/food-hall-stack")
            assert status == 200 and 'data-map-id="food-hall-stack"' in page
            status, stack = await get(client, "/v1/maps/food-hall-stack")
            assert (status, stack["style_type"]) == (200, "building")
    finally:
        with MongoClient[dict[str, Any]](db_server.uri) as client:
            client.drop_database(database)


def test_a_prefix_that_is_no_readable_id_is_refused(tmp_path: Path, db_server: EmbeddedServer):
    database = f"floorgate_cli_imdf_{uuid.uuid4().hex[:8]}"
    archive = tmp_path / "food-hall.zip"
    archive.write_bytes(zip_bytes(food_hall().venue.files()))
    env = clean_env(tmp_path, FLOORGATE_MONGODB_URI=db_server.uri, FLOORGATE_DATABASE=database)
    refused, _ = run(["import-imdf", str(archive), "--id-prefix", "food hall/1"], env)
    assert (refused.returncode, refused.stdout, refused.stderr) == (
        1,
        "",
        "Nothing was imported: --id-prefix 'food hall/1': use letters, digits, '.', '_' "
        "and '-', beginning with a letter or a digit\n",
    )
    assert counts(db_server.uri, database) == dict.fromkeys(COLLECTIONS, 0)
