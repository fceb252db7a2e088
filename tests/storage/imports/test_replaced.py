"""Importing an IMDF venue again leaves no stale places (`replace_locations`,
storage/imports/replaced.py; docs/imdf.md, "Places and locations"): the stored locations
of the venue's maps that the venue no longer gives are removed by the same import, in
one transaction or staged and switched in, and counted; the dry run counts the same and
writes nothing; the general import keeps its upsert rule; another asset's map is never
touched. Real importer, real embedded database, E17 and search through the real app.

Here rather than in tests/storage/imdf/, whose folder is full (.ci/structure.py)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import bson
import httpx
import pytest

from parsing.imdf.read import read_archive
from parsing.imdf.venue import ImdfOptions
from resolvers.auth.keys import create_key
from resolvers.auth.permissions import ALL_PERMISSIONS
from rest.app import create_app
from storage import collections as col
from storage.database import Store
from storage.embedded.server import EmbeddedServer
from storage.imdf.dataset import DryRun, ImdfDataset, import_venue, venue_dataset
from storage.imports import switches
from storage.imports.importer import import_data
from storage.imports.writer import ImportReport
from storage.settings import Settings
from tests._dbserver import fresh_store
from tests.storage.imports.staged import (
    NONE_LEFT,
    contents,
    fix_clock_and_batches,
    leftovers,
    staging_store,
)
from tests.venues.food_hall import FoodHall, food_hall
from tests.venues.imdf_venues import two_levels

FLAGS = "locations-resource, search"
CAFE = "Café"


def cafe_hall() -> FoodHall:
    """The Food Hall with its bakery's occupant named "Café": unit U1's one place."""
    hall = food_hall()
    for feature in hall.venue.features["occupant"]:
        if feature["id"] == hall.features["Bakery"]:
            feature["properties"]["name"] = {"en": CAFE}
    return hall


def dataset_of(hall: FoodHall) -> ImdfDataset:
    return venue_dataset(read_archive(hall.venue.files()), ImdfOptions())


def stack_of(hall: FoodHall) -> str:
    return str(hall.venue.features["venue"][0]["id"])


async def imported(store: Store, dataset: ImdfDataset, **options: Any) -> ImportReport:
    report = await import_venue(store, dataset, limits=Settings().svg_limits, **options)
    assert isinstance(report, ImportReport)
    return report


async def add_twin(
    store: Store, hall: FoodHall, map_id: str, location_id: str, name: str = CAFE
) -> None:
    """A stale location added by hand through the general importer (what `putLocation`
    runs): by default the pre-issue-48 twin of the café, its occupant's id on `map_id`."""
    await import_data(
        store,
        {
            "locations": [
                {
                    "id": location_id,
                    "asset_id": dataset_of(hall).data["assets"][0]["id"],
                    "unit_map_id": map_id,
                    "name": name,
                    "x": 300.0,
                    "y": 200.0,
                    "floors": [{"id": hall.levels["G"]}],
                    "tags": [{"key": "imdf:feature", "value": "occupant"}],
                }
            ]
        },
        Path.cwd(),
    )


async def locations(store: Store, **query: Any) -> dict[str, dict[str, Any]]:
    """The stored locations by id, without their timestamps (an import renews them)."""
    found = {}
    async for doc in store[col.LOCATIONS].find(query):
        tags = [(tag["key"], tag["value"]) for tag in doc.pop("tags", [])]
        kept = {k: v for k, v in doc.items() if k not in ("_id", "updated_at")}
        found[doc["_id"]] = {**kept, "tags": tags}
    return found


async def versions(store: Store) -> dict[str, str]:
    return {
        doc["_id"]: doc["locations_version"]
        async for doc in store[col.UNIT_MAPS].find({}, {"locations_version": 1})
    }


@contextlib.asynccontextmanager
async def api(store: Store) -> AsyncIterator[httpx.AsyncClient]:
    """The real app on `store`, with a key that reads everything and the flags of E17
    and search."""
    key = (await create_key(store, "reimport", list(ALL_PERMISSIONS), None)).secret
    transport = httpx.ASGITransport(app=create_app(Settings(), store))
    headers = {"API-Key": key, "Experimental-Flags": FLAGS}
    async with httpx.AsyncClient(
        transport=transport, base_url="https://testserver", headers=headers
    ) as client:
        yield client


async def get(client: httpx.AsyncClient, path: str, **params: str) -> Any:
    response = await client.get(path, params=params)
    assert response.status_code == 200, response.text
    return response.json()


def cafes(found: dict[str, Any]) -> list[tuple[str, str]]:
    """The search results named as the café (its category's words find the food court's
    stalls too)."""
    return [(item["kind"], item["name"]) for item in found["data"] if item["name"] == CAFE]


async def until_live(store: Store) -> None:
    """The change stream up, so the read cache (kept answers, search indexes) serves."""
    store.watch_changes()
    started = time.monotonic()
    while not store.cache.live:
        assert time.monotonic() - started < 10, "the change stream did not come up"
        await asyncio.sleep(0.01)


# ---------------------------------------------------------------- one transaction


async def test_the_stale_twin_goes_and_every_other_location_stays(
    db_server: EmbeddedServer,
) -> None:
    """A venue imported, then given by hand the café's pre-issue-48 twin (the occupant's
    id on the ground floor's map) and a stall that has since left (a name no place of
    the venue has): E17 lists the café twice, search finds the stall. Imported again,
    both are gone in the same import (2 removed, 2 deleted), every other location is as
    it was, E17 lists each place once and search finds one café and no stall: neither
    the answers kept before (the read cache live) nor the search index outlive it, and
    the ground floor's `locations_version` moves."""
    hall = cafe_hall()
    ground, twin = hall.levels["G"], hall.features["Bakery"]
    dataset = dataset_of(hall)
    asset = dataset.data["assets"][0]["id"]
    async with fresh_store(db_server) as store:
        first = await imported(store, dataset)
        assert (first.removed_locations, first.counts[col.LOCATIONS].inserted) == (0, 38)
        venue = await locations(store)
        assert sorted(venue) == sorted(loc["id"] for loc in dataset.data["locations"])
        clean = await versions(store)
        await add_twin(store, hall, ground, twin)
        await add_twin(store, hall, ground, "an-old-stall", "Pretzel Stand")
        assert len(await locations(store)) == 40  # the general import upserts, removes none
        with_twin = await versions(store)
        assert with_twin[ground] != clean[ground]
        assert with_twin[stack_of(hall)] == clean[stack_of(hall)]
        await until_live(store)
        async with api(store) as client:
            listed = await get(client, f"/v1/maps/{ground}/locations", **{"per-page": "100"})
            assert sorted(loc["id"] for loc in listed["data"] if loc["name"] == CAFE) == sorted(
                [f"{ground}:{hall.units['U1']}", twin]
            )
            found = await get(client, "/v1/search", q=CAFE, asset=asset)
            assert cafes(found) == [("unit", CAFE)]  # search joins the twins already
            found = await get(client, "/v1/search", q="pretzel", asset=asset)
            assert [(item["kind"], item["id"]) for item in found["data"]] == [
                ("location", "an-old-stall")
            ]

            again = await imported(store, dataset)
            assert again.removed_locations == 2
            counts = again.counts[col.LOCATIONS]
            assert (counts.inserted, counts.updated, counts.deleted) == (0, 38, 2)
            assert await locations(store) == venue  # exact ids, the rest unchanged
            after = await versions(store)
            assert after[ground] != with_twin[ground]
            assert set(after) == set(clean)

            listed = await get(client, f"/v1/maps/{ground}/locations", **{"per-page": "100"})
            assert [loc["id"] for loc in listed["data"] if loc["name"] == CAFE] == [
                f"{ground}:{hall.units['U1']}"
            ]
            names = [loc["name"] for loc in listed["data"]]
            assert len(names) == 16 and len(set(names)) == 16  # one entry per place
            found = await get(client, "/v1/search", q=CAFE, asset=asset)
            assert cafes(found) == [("unit", CAFE)]
            assert (await get(client, "/v1/search", q="pretzel", asset=asset))["data"] == []


def pre_issue_48_twins(dataset: ImdfDataset, floors: dict[str, str]) -> list[dict[str, Any]]:
    """The locations an import before issue 48 gave beside each unit's: one per feature
    the unit's location now takes in (`imdf:occupant`, `imdf:amenity`, `imdf:anchor`),
    with the feature's id (`<id>@<stack>` on the stack) and the unit's name with its
    floor ("Restroom 1, Ground Floor")."""
    stack = dataset.stack_map
    twins = []
    for location in dataset.data["locations"]:
        for tag in location["tags"]:
            if tag["key"] not in ("imdf:occupant", "imdf:amenity", "imdf:anchor"):
                continue
            for feature_id in tag["value"].split(";"):
                floor = location["floors"][0]["id"]
                suffix = f"@{stack}" if location["unit_map_id"] == stack else ""
                twins.append(
                    {
                        **location,
                        "id": feature_id + suffix,
                        "name": f"{location['name']}, {floors[floor]}",
                        "tags": [{"key": "imdf:feature", "value": tag["key"][5:]}],
                    }
                )
    return twins


async def test_a_venue_imported_before_issue_48_loses_its_twins(db_server: EmbeddedServer) -> None:
    """The Food Hall as an import before issue 48 left it (22 locations on the ground
    floor, 6 of them twins; as many twins on the stack), imported again: the 12 twins
    go, the ground floor keeps its 16 places, and E17 names no place twice."""
    hall = food_hall()
    dataset = dataset_of(hall)
    floors = {floor["id"]: floor["name"] for floor in dataset.data["floors"]}
    twins = pre_issue_48_twins(dataset, floors)
    ground = hall.levels["G"]
    async with fresh_store(db_server) as store:
        await imported(store, dataset)
        await import_data(store, {"locations": twins}, Path.cwd())
        assert len(await locations(store, unit_map_id=ground)) == 22
        assert len(await locations(store)) == 38 + 12
        report = await imported(store, dataset)
        assert report.removed_locations == 12
        assert sorted(await locations(store)) == sorted(
            loc["id"] for loc in dataset.data["locations"]
        )
        async with api(store) as client:
            listed = await get(client, f"/v1/maps/{ground}/locations", **{"per-page": "100"})
        names = [loc["name"] for loc in listed["data"]]
        assert len(names) == 16 and len(set(names)) == 16
        assert not [name for name in names if name.endswith(", Ground Floor")]


async def test_an_occupant_that_moved_out_goes_from_every_map(db_server: EmbeddedServer) -> None:
    """The Noodle Bar, one of the food court's three stalls (a location of its own on the
    ground floor's map and on the stack), leaves the archive: both its locations go, and
    the stored locations are exactly the new venue's."""
    hall = food_hall()
    noodles = hall.features["Noodle Bar"]
    async with fresh_store(db_server) as store:
        await imported(store, dataset_of(hall))
        hall.venue.features["occupant"] = [
            f for f in hall.venue.features["occupant"] if f["id"] != noodles
        ]
        moved_out = dataset_of(hall)
        report = await imported(store, moved_out)
        assert report.removed_locations == 2
        assert report.counts[col.LOCATIONS].deleted == 2
        stored = await locations(store)
        assert sorted(stored) == sorted(loc["id"] for loc in moved_out.data["locations"])
        assert len(stored) == 36
        assert noodles not in stored and f"{noodles}@{stack_of(hall)}" not in stored


async def test_the_dry_run_counts_them_and_changes_nothing(db_server: EmbeddedServer) -> None:
    hall = cafe_hall()
    dataset = dataset_of(hall)
    async with fresh_store(db_server) as store:
        first = await import_venue(store, dataset, limits=Settings().svg_limits, dry_run=True)
        assert first == DryRun(removed_locations=0)
        await imported(store, dataset)
        await add_twin(store, hall, hall.levels["G"], hall.features["Bakery"])
        await add_twin(store, hall, stack_of(hall), "an-old-stall")
        before = await contents(store)
        dry = await import_venue(store, dataset, limits=Settings().svg_limits, dry_run=True)
        assert dry == DryRun(removed_locations=2)
        assert await contents(store) == before
        assert (await imported(store, dataset)).removed_locations == 2


async def test_another_assets_map_and_the_general_import_remove_nothing(
    db_server: EmbeddedServer,
) -> None:
    """Two venues: a hand-made location on the other venue's map stays when the first is
    imported again. And the general import of the venue's own dataset (`floorgate import`
    of what `--out` writes) keeps its upsert rule: the twin stays until import-imdf."""
    hall, other = cafe_hall(), two_levels()
    other_dataset = venue_dataset(read_archive(other.venue.files()), ImdfOptions())
    other_map = other_dataset.data["unit_maps"][0]["id"]
    dataset = dataset_of(hall)
    async with fresh_store(db_server) as store:
        await imported(store, dataset)
        await imported(store, other_dataset)
        await import_data(
            store,
            {
                "locations": [
                    {
                        "id": "kept-by-hand",
                        "asset_id": other_dataset.data["assets"][0]["id"],
                        "unit_map_id": other_map,
                        "name": CAFE,
                        "x": 10.0,
                        "y": 10.0,
                        "floors": [{"id": other_dataset.data["floors"][0]["id"]}],
                    }
                ]
            },
            Path.cwd(),
        )
        await add_twin(store, hall, hall.levels["G"], hall.features["Bakery"])
        other_before = await locations(store, unit_map_id=other_map)
        assert "kept-by-hand" in other_before

        general = await import_data(
            store, dataset.data, Path.cwd(), limits=Settings().svg_limits, svg_sources=dataset.svgs
        )
        assert (general.removed_locations, general.counts[col.LOCATIONS].deleted) == (0, 0)
        assert hall.features["Bakery"] in await locations(store)

        report = await imported(store, dataset)
        assert report.removed_locations == 1
        assert hall.features["Bakery"] not in await locations(store)
        assert await locations(store, unit_map_id=other_map) == other_before


# ---------------------------------------------------------------- staged and switched in


async def test_the_staged_path_removes_them_too(
    db_server: EmbeddedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With FLOORGATE_IMPORT_MAX_DOCUMENTS lowered to 10 the venue goes the staged way
    (as tests/storage/imdf/test_big_venue.py does with its tower): the re-import that
    drops the Noodle Bar and the café's twin removes the same three locations in its
    last batch (after every write: a reader between two batches finds a map's places in
    one version or both, never in neither), and leaves exactly what one transaction
    leaves."""
    fix_clock_and_batches(monkeypatch)
    switched: list[tuple[str, list[Any]]] = []  # each switch's last batch
    switch_in = switches.switch_in

    async def counted(store: Store, staged: switches.Staged) -> None:
        batches = store[col.IMPORT_BATCHES]
        last = await batches.find_one({"token": staged.token}, sort=[("seq", -1)])
        assert last is not None
        operations = [bson.decode(operation) for operation in last["operations"]]
        switched.append((last["collection"], operations))
        await switch_in(store, staged)

    monkeypatch.setattr(switches, "switch_in", counted)
    hall = cafe_hall()
    first = dataset_of(hall)
    noodles, twin = hall.features["Noodle Bar"], hall.features["Bakery"]
    noodles_on_stack = f"{noodles}@{stack_of(hall)}"
    hall.venue.features["occupant"] = [
        f for f in hall.venue.features["occupant"] if f["id"] != noodles
    ]
    second = dataset_of(hall)
    found = {}
    async with staging_store(db_server) as staged, staging_store(db_server) as one:
        for store, limit in ((staged, 10), (one, 25_000)):
            await imported(store, first, max_documents=limit)
            await add_twin(store, hall, hall.levels["G"], twin)
            report = await imported(store, second, max_documents=limit)
            assert report.removed_locations == 3
            assert report.counts[col.LOCATIONS].deleted == 3
            assert await leftovers(store) == NONE_LEFT
            stored = await locations(store)
            assert sorted(stored) == sorted(loc["id"] for loc in second.data["locations"])
            found[limit] = await contents(store)
    # The staged store's two imports (not the other's): the first removes nothing (its
    # last batch writes the maps' GeoJSON), the second's deletes the three it removes.
    assert [collection for collection, _ in switched] == [col.UNIT_MAPS, col.LOCATIONS]
    assert switched[1][1] == [
        {"k": "delete_many", "f": {"_id": {"$in": sorted([twin, noodles, noodles_on_stack])}}}
    ]
    assert found[10] == found[25_000]
