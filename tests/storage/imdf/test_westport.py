"""Westport House, a real 7-level office, as an IMDF archive (issue 48): imported into the
embedded database with every level, and every named room walked from the ground
floor's entrance on Bash Street.

Westport House indoor map data (c) WRLD / eeGeo, CC BY 4.0 (tests/data/README.md).

What the data gives (tests/venues/westport_imdf.py): the 13 named places are all on the second
floor. Six are drawn on top of the tenant area around them (Kitchen, Meeting Room
Large, Meeting Room Small, Server room, Storage Cupboard, Balcony) with neither door nor
wall: cut out of it, they open onto it along their sides. All 13 are walked up the
stairs from the Bash Street entrance (its lobby opens onto the stairs along their
east side; the importer sides a unit on a door's line by its area there, and a door
drawn inside a unit on the far side from that unit's edge, routing/imdf/doors.py).
Not by wheelchair: WRLD draws no elevator door, and the elevators that open
onto a corridor without a wall do not reach the second floor from the entrance, so the
import reports the floor `level-cut-off` for wheelchairs: the data, not the importer.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import pytest_asyncio

from parsing.imdf.venue import ImdfOptions
from resolvers.auth.keys import create_key
from resolvers.auth.permissions import DISTANCES_CALCULATE
from rest.app import create_app
from storage.imdf.dataset import ImdfDataset, import_venue
from storage.imports.writer import ImportReport
from tests._dbserver import fresh_store
from tests.resolvers.tiles.sweep import sweep
from tests.venues.run_cache import shared_venue_dataset
from tests.venues.westport_imdf import ATTRIBUTION, Westport, westport

FLAGS = "distances, directions, locations-resource"
LEVELS = [
    "Ground Floor",
    "First Floor",
    "Second Floor",
    "Third Floor",
    "Fourth Floor",
    "Fifth Floor",
    "Sixth Floor",
]
INSIDE = {  # drawn inside the tenant area, no door nor wall in the data
    "Balcony",
    "Kitchen",
    "Meeting Room Large",
    "Meeting Room Small",
    "Server room",
    "Storage Cupboard",
}
NAMED = INSIDE | {
    "Unit 1",
    "Unit 3",
    "Unit 4",
    "Bathroom",
    "Restroom",
    "Men's Bathroom",
    "Women's Bathroom",
}


def options(built: Westport) -> ImdfOptions:
    """Every walked category listed, corridors too: the entrance hall is a place E18
    can route from."""
    drawn = {"stairs", "elevator", "opentobelow", "nonpublic"}
    return ImdfOptions(units=frozenset({u.category for u in built.units} - drawn))


@pytest.fixture(scope="module")
def built() -> tuple[Westport, ImdfDataset]:
    """Converted once per run under xdist (tests/venues/run_cache.py): the same archive
    and options as tests/routing/imdf/test_report_agrees.py's Westport (`WALKED`)."""
    venue = westport()
    return venue, shared_venue_dataset(venue.venue.files(), options(venue))


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def client(
    db_server: Any, settings: Any, built: tuple[Westport, ImdfDataset]
) -> AsyncIterator[tuple[httpx.AsyncClient, dict[str, Any], str]]:
    venue, dataset = built
    async with fresh_store(db_server) as store:
        report = await import_venue(store, dataset, limits=settings.svg_limits)
        assert isinstance(report, ImportReport) and report.counts["floors"].inserted == 7
        key = (await create_key(store, "westport", [DISTANCES_CALCULATE], None)).secret
        floors = await store.db["floors"].find({}, {"name": 1}).to_list(None)
        assert sorted(f["name"] for f in floors) == sorted(LEVELS)
        transport = httpx.ASGITransport(app=create_app(settings, store))
        async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as http:
            headers = {"API-Key": key, "Experimental-Flags": FLAGS}
            yield http, headers, venue.venue.features["venue"][0]["id"]


def test_the_archive_holds_every_level_and_what_a_person_walks(
    built: tuple[Westport, ImdfDataset],
) -> None:
    venue, dataset = built
    assert ATTRIBUTION == "Westport House indoor map data (c) WRLD / eeGeo, CC BY 4.0"
    assert list(venue.level_names.values()) == LEVELS
    assert [f["name"]["en"] for f in dataset.data["floors"]] == LEVELS  # and `fr`: Niveau n
    named = {u.name for u in venue.units if u.name}
    assert named == NAMED
    per_level = {
        name: sum(1 for u in venue.units if u.level == key and u.category == "walkway")
        for key, name in venue.level_names.items()
    }
    assert all(count >= 7 for count in per_level.values()), per_level
    entrance = [o for o in venue.openings if o.id == venue.entrance]
    assert len(entrance) == 1 and len(entrance[0].units) == 1  # a street door
    assert entrance[0].level == "westport-house-floor-gf"
    # every kept door joins two walkable units or is a street door of the ground floor
    # or the first floor (onto its terraces); none opens onto inaccessible space
    assert {o.level for o in venue.openings if len(o.units) == 1} == {
        "westport-house-floor-gf",
        "westport-house-floor-1",
    }
    assert dataset.report.counts.get("connector-inferred", 0) >= 10


def test_the_import_says_which_named_rooms_cannot_be_reached(
    built: tuple[Westport, ImdfDataset],
) -> None:
    venue, dataset = built
    reach = dataset.reachability
    assert reach is not None and reach.roots == "entrances"
    named = {u.id: u.name for u in venue.units if u.name}
    found = {(named[u.unit_id], u.modes, u.reason) for u in reach.unreachable if u.unit_id in named}
    assert found == {(name, ("wheelchair",), "level-cut-off") for name in NAMED}


async def test_every_named_room_is_walked_from_the_entrance(
    client: tuple[httpx.AsyncClient, dict[str, Any], str], built: tuple[Westport, ImdfDataset]
) -> None:
    http, headers, stack = client
    venue, _ = built
    start = next(o for o in venue.openings if o.id == venue.entrance).units[0]
    routed, refused = {}, set()
    for unit in sorted((u for u in venue.units if u.name), key=lambda u: str(u.name)):
        response = await http.post(
            f"/v1/unitmaps/{stack}/route",
            headers=headers,
            json={
                "data": {
                    "from": {"id": f"{stack}:{start}"},
                    "to": {"id": f"{stack}:{unit.id}"},
                    "mode": "foot",
                }
            },
        )
        assert response.status_code == 200, response.text
        route = response.json()["route"]
        if route is None:
            refused.add(unit.name)
            continue
        kinds = [leg["connector"]["kind"] for leg in route["legs"] if leg["connector"]]
        routed[unit.name] = kinds
    assert refused == set()
    assert set(routed) == NAMED
    assert all(kinds == ["stairs"] for kinds in routed.values()), routed


async def test_every_tile_answers(
    client: tuple[httpx.AsyncClient, dict[str, Any], str], built: tuple[Westport, ImdfDataset]
) -> None:
    """Every tile z14-18 over its bounds answers 200 (issue 65: all 8 failed on units
    that the GeoJSON's 1e-7 degree grid made self-intersecting; the import repairs them,
    its notes name them)."""
    http, headers, _ = client
    _, dataset = built
    asset = dataset.data["assets"][0]["id"]
    statuses, failed = await sweep(http, headers, asset)
    assert failed == []
    assert statuses == {200: 8}
