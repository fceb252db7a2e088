"""One place, one location; names without the floor (issue 48, points 2 and 3): the
occupant, anchor or amenity that is its unit's place is no second location; a unit of
several occupants keeps them apart; generated names carry `svc:name=generated`.

On every test venue, imported through the real importer and read back through E17
(`/v1/maps/{map}/locations`) by the real app: no two locations of one floor share a name
unless they are distinct places, and no location's name ends with its floor's name.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
from collections import Counter, defaultdict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, fields, is_dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest_asyncio

from parsing.imdf.venue import ImdfOptions
from resolvers.auth.keys import create_key
from resolvers.auth.permissions import ALL_PERMISSIONS
from rest.app import create_app
from storage.imdf.dataset import ImdfDataset, import_venue
from tests.venues.food_hall import FOOD_COURT, food_hall
from tests.venues.imdf_venues import Venue, cloister, exchange, office_tower, two_levels
from tests.venues.old_market import old_market
from tests.venues.run_cache import shared_venue_dataset

ROOT = Path(__file__).resolve().parents[3]
FLAGS = "locations-resource, search"
# Venues other engineers write (issue 48), looped over when they are there.
OTHER_VENUES = (
    "tests.venues.imdf_shared_ordinals",
    "tests.venues.westport_imdf",
    "tests.venues.bilingual_clinic",  # issue 51: names in English and Chinese
    "tests.venues.hk_clinic",  # issue 65: amenities that only name their room
)
GENERATED = {"key": "svc:name", "value": "generated"}


def venues() -> dict[str, Venue]:
    """Every test venue: tests/venues/imdf_venues.py's (the tower at 2 levels of 2 x 2 x 4
    offices, not the benchmark's 5,000), Old Market, the Food Hall, and every venue of
    OTHER_VENUES whose file exists."""
    found = {
        "two_levels": two_levels().venue,
        "office_tower": office_tower(levels=2, rows=2, rooms_per_side=4),
        "exchange": exchange().venue,
        "cloister": cloister().venue,
        "old_market": old_market()[0],
        "food_hall": food_hall().venue,
    }
    for name in OTHER_VENUES:
        if (ROOT / f"{name.replace('.', '/')}.py").is_file():
            found |= _venues_of(importlib.import_module(name))
    return found


def _venues_of(module: Any) -> dict[str, Venue]:
    """The venues a module builds: each public function of it that takes no argument and
    returns a Venue, or a dataclass holding one as `venue`."""
    found = {}
    for name, function in inspect.getmembers(module, inspect.isfunction):
        signature = inspect.signature(function)
        if function.__module__ != module.__name__ or name.startswith("_"):
            continue
        if any(p.default is p.empty for p in signature.parameters.values()):
            continue
        returned = getattr(module, str(signature.return_annotation), None)
        holds = is_dataclass(returned) and "venue" in {f.name for f in fields(returned)}
        if returned is Venue or holds:
            built = function()
            found[f"{module.__name__}.{name}"] = built if returned is Venue else built.venue
    return found


def dataset_of(venue: Venue, options: ImdfOptions | None = None) -> ImdfDataset:
    """Converted once per run under xdist (tests/venues/run_cache.py), shared with every
    module that converts the same archive with the same options."""
    return shared_venue_dataset(venue.files(), options or ImdfOptions())


def tags_of(location: dict[str, Any]) -> dict[str, str]:
    return {tag["key"]: tag["value"] for tag in location["tags"]}


# ---------------------------------------------------------------- the Food Hall, exactly


def test_the_food_hall_has_one_location_per_place():
    """Ground floor: 9 listed units and 2 lifts/stairs, each one place with what is in
    it; the food court's three occupants, the info point (another kind than its hall)
    and the kiosk on the concourse (a walkway: no location of its own) apart. Before
    issue 48 the same floor had 22 locations: 4 amenities, 6 occupants and an anchor
    beside their units."""
    hall = food_hall()
    found = dataset_of(hall.venue)
    ground = [loc for loc in found.data["locations"] if loc["unit_map_id"] == hall.levels["G"]]
    assert sorted(loc["name"] for loc in ground) == sorted(
        [
            "Bakery",  # U1 and its one occupant
            "Books & Co",  # U2 ("Unit 2") and its occupant
            "Food Court",  # U3, its three occupants apart
            *FOOD_COURT,
            "Restroom 1",  # U4 and its restroom amenity
            "Restroom 2",  # U5
            "Room 1",  # U6 and its anchor
            "Non-public area 1",  # U7
            "Entrance Hall",  # U8
            "Info Point",  # U8's information amenity: a place of its own
            "Cash Machine",  # U9, named by its ATM
            "Elevator 1",  # U10 and its elevator amenity
            "Stairs 1",  # U11
            "Flower Kiosk",  # an occupant on the concourse
        ]
    )
    assert len(ground) == 16
    upper = [loc for loc in found.data["locations"] if loc["unit_map_id"] == hall.levels["1"]]
    assert sorted(loc["name"] for loc in upper) == ["Elevator 1", "Restroom 1", "Stairs 1"]
    stack = hall.venue.features["venue"][0]["id"]
    assert sum(loc["unit_map_id"] == stack for loc in found.data["locations"]) == 19
    assert len(found.data["locations"]) == 38


def test_what_a_unit_takes_in_keeps_its_id_and_name():
    hall = food_hall()
    found = dataset_of(hall.venue)
    level, features, units = hall.levels["G"], hall.features, hall.units
    by_id = {loc["id"]: loc for loc in found.data["locations"] if loc["unit_map_id"] == level}
    assert tags_of(by_id[f"{level}:{units['U2']}"]) == {
        "svc:type": "unit",
        "svc:id": units["U2"],
        "imdf:category": "retail",
        "imdf:occupant": features["Books & Co"],
        "svc:category": "bookstore",  # found as what it is
        "alt_name": "Unit 2",  # the unit's own name
    }
    assert tags_of(by_id[f"{level}:{units['U4']}"]) == {
        "svc:type": "unit",
        "svc:id": units["U4"],
        "imdf:category": "restroom",
        "imdf:amenity": features["restroom"],
        "svc:name": "generated",
    }
    assert tags_of(by_id[f"{level}:{units['U6']}"])["imdf:anchor"] == features["anchor"]
    assert tags_of(by_id[units["U10"]]) == {
        "imdf:feature": "unit",
        "imdf:category": "elevator",
        "svc:connector": "yes",
        "imdf:amenity": features["elevator"],
        "svc:name": "generated",
        # the walk graph's connector it stands for: a closure of it closes this place
        "svc:connector-id": hall.venue.feature_id("relationship", "fh-lift"),
    }
    noodles = by_id[features["Noodle Bar"]]
    assert tags_of(noodles) == {"imdf:feature": "occupant", "imdf:category": "restaurant"}
    assert tags_of(by_id[features["Info Point"]])["imdf:feature"] == "amenity"
    gone = [features[k] for k in ("Bakery", "Books & Co", "restroom", "elevator", "anchor")]
    assert not set(gone) & set(by_id)
    # A unit named by its one occupant, in the API and on the map, not by its own name.
    assert {u["id"]: u["name"] for u in found.data["units"]}[units["U2"]] == "Books & Co"
    assert ">Books &amp; Co<" in found.svgs[level]


def test_generated_names_are_marked_and_carry_no_floor():
    hall = food_hall()
    found = dataset_of(hall.venue)
    marked = sorted(
        (loc["unit_map_id"] == hall.levels["G"], loc["name"])
        for loc in found.data["locations"]
        if GENERATED in loc["tags"]
        and "@" not in loc["id"]
        and loc["unit_map_id"] != hall.venue.features["venue"][0]["id"]
    )
    assert marked == [
        (False, "Elevator 1"),
        (False, "Restroom 1"),
        (False, "Stairs 1"),
        (True, "Elevator 1"),
        (True, "Non-public area 1"),
        (True, "Restroom 1"),
        (True, "Restroom 2"),
        (True, "Room 1"),
        (True, "Stairs 1"),
    ]
    assert all("imdf:category" in tags_of(loc) for loc in found.data["locations"])


# ---------------------------------------------------------------- every venue, through E17


@dataclass
class Imported:
    client: httpx.AsyncClient
    headers: dict[str, str]
    assets: dict[str, str]  # venue name -> asset id
    archives: dict[str, Venue]


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def imported(db_server, settings) -> AsyncIterator[Imported]:
    from tests._dbserver import fresh_store

    built = venues()
    async with contextlib.AsyncExitStack() as stack:
        store = await stack.enter_async_context(fresh_store(db_server))
        assets = {}
        for name, venue in built.items():
            found = dataset_of(venue)
            await import_venue(store, found, limits=settings.svg_limits)
            assets[name] = found.data["assets"][0]["id"]
        key = (await create_key(store, "places", list(ALL_PERMISSIONS), None)).secret
        transport = httpx.ASGITransport(app=create_app(settings, store))
        client = await stack.enter_async_context(
            httpx.AsyncClient(transport=transport, base_url="https://testserver")
        )
        yield Imported(client, {"API-Key": key, "Experimental-Flags": FLAGS}, assets, built)


async def get(env: Imported, path: str) -> Any:
    response = await env.client.get(path, headers=env.headers)
    assert response.status_code == 200, response.text
    return response.json()


def places_of(venue: Venue) -> Callable[[dict[str, Any]], str]:
    """What place a location is: the unit it stands for or stands in (an occupant's
    through its anchor), else its own id. Two locations of one place are twins."""
    anchors = {f["id"]: f["properties"].get("unit_id") for f in venue.features.get("anchor", [])}
    inside: dict[str, str] = {}
    for occupant in venue.features.get("occupant", []):
        inside[occupant["id"]] = str(anchors.get(occupant["properties"]["anchor_id"]))
    for amenity in venue.features.get("amenity", []):
        inside[amenity["id"]] = str((amenity["properties"]["unit_ids"] or [None])[0])
    inside |= {k: str(v) for k, v in anchors.items()}

    def place(location: dict[str, Any]) -> str:
        tags = tags_of(location)
        own = location["id"].split("@")[0]
        return tags.get("svc:id") or inside.get(own, own)

    return place


async def test_every_venue_lists_each_place_once_and_names_no_floor(imported):
    checked = Counter[str]()
    for name, asset in imported.assets.items():
        place = places_of(imported.archives[name])
        floors = {
            f["id"]: f["name"] for f in (await get(imported, f"/v1/assets/{asset}/floors"))["data"]
        }
        for unit_map in (await get(imported, f"/v1/maps?asset={asset}&per-page=100"))["data"]:
            found = (await get(imported, f"/v1/maps/{unit_map['id']}/locations"))["data"]
            named: dict[tuple[str, str], set[str]] = defaultdict(set)
            for location in found:
                floor = location["floors"][0]["id"]
                assert not location["name"].endswith(floors[floor]), (name, location["name"])
                assert place(location) not in named[(floor, location["name"])], (
                    name,
                    location["name"],
                )
                named[(floor, location["name"])].add(place(location))
            checked[name] += len(found)
    assert set(checked) == set(imported.assets) and min(checked.values()) > 0
    assert checked["food_hall"] == 38


async def test_search_finds_a_place_by_what_it_took_in(imported):
    """One result for the unit and its occupant: by the occupant's category, by the
    unit's own name (`alt_name`)."""
    asset = imported.assets["food_hall"]

    async def search(q: str) -> list[tuple[str, str]]:
        body = await get(imported, f"/v1/search?q={q}&asset={asset}&per-page=50")
        return sorted((item["kind"], item["name"]) for item in body["data"])

    assert await search("unit 2") == [("unit", "Books & Co")]
    assert await search("bookstore") == [("unit", "Books & Co")]
    assert await search("bakery") == [("unit", "Bakery")]
    restaurants = await search("restaurant")
    assert ("unit", "Bakery") in restaurants and ("location", "Noodle Bar") in restaurants
    assert len(restaurants) == len(set(restaurants))
