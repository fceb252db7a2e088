"""A station routes between floors (issue 49): Gare de Saint-Laurent, a station of our
own in Simple Indoor Tagging (tests/venues/osm_station.py), imports with every named
room a unit with its name, and every named room reaches every other on foot and by
wheelchair, between every pair of its levels (-1, 0, 1), through the lift and the ramp
when by wheelchair (E18 and the route on the stack map)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio

from parsing.imdf.venue import ImdfOptions
from parsing.osm.convert import ALONE
from parsing.osm.lone_rooms import DOORLESS
from resolvers.auth.keys import create_key
from resolvers.auth.permissions import DISTANCES_CALCULATE
from rest.app import create_app
from storage.imdf.dataset import ImdfDataset, import_venue
from storage.osm.dataset import osm_dataset
from tests._dbserver import fresh_store
from tests.storage.osm.test_places import FLAGS, level_of, routed
from tests.venues.osm_places import named_rooms
from tests.venues.osm_station import NAME, NAMED_ROOMS, write_station

Client = tuple[httpx.AsyncClient, dict[str, str], ImdfDataset]


@pytest.fixture(scope="module")
def station(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ImdfDataset]:
    path = write_station(tmp_path_factory.mktemp("osm-station"))
    return path, osm_dataset(path, ImdfOptions())


def named_units(dataset: ImdfDataset) -> dict[tuple[str, str], str]:
    """(level, name) -> unit id of every listed unit."""
    levels = level_of(dataset)
    return {(levels[u["floor_id"]], u["name"]): u["id"] for u in dataset.data["units"]}


def test_it_imports_with_every_named_room_a_unit_with_its_name(
    station: tuple[Path, ImdfDataset],
) -> None:
    path, dataset = station
    assert named_rooms(path) == NAMED_ROOMS  # what the file draws, counted from it
    assert set(named_units(dataset)) == NAMED_ROOMS | {
        ("0", "Hall des départs"),  # the named areas (indoor=area)
        ("1", "Mezzanine"),
        ("0", "Restroom 1"),  # the toilets and the room without a name
        ("0", "Room 1"),
    }
    assert dataset.data["assets"][0]["name"] == NAME
    assert dataset.summary[0] == (
        f"venue '{NAME}': 3 levels, 26 units (13 listed), 46 locations, "
        "392 walk lines, 9 connector stops"
    )
    report = dataset.report
    assert report.examples["walkway area made a walkway unit"] == ["way/101", "way/102"]
    assert report.examples["footway line made walkable (2 m wide)"] == ["way/209"]
    assert report.examples["room on several levels: a unit on each, no connector"] == ["way/206"]
    assert ALONE not in report.counts and DOORLESS not in report.counts
    assert dataset.reachability is not None
    assert dataset.reachability.unreachable == []  # every unit, on foot and by wheelchair
    assert dataset.reachability.levels == []  # every level joined, by both


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def client(
    db_server: Any, settings: Any, station: tuple[Path, ImdfDataset]
) -> AsyncIterator[Client]:
    _, dataset = station
    async with fresh_store(db_server) as store:
        await import_venue(store, dataset, limits=settings.svg_limits)
        key = (await create_key(store, "osm", [DISTANCES_CALCULATE], None)).secret
        transport = httpx.ASGITransport(app=create_app(settings, store))
        async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as http:
            yield http, {"API-Key": key, "Experimental-Flags": FLAGS}, dataset


@pytest.mark.asyncio(loop_scope="session")
@pytest.mark.parametrize("mode", ["foot", "wheelchair"])
async def test_every_named_room_reaches_every_other(client: Client, mode: str) -> None:
    http, headers, dataset = client
    units = named_units(dataset)
    stack = dataset.stack_map
    unrouted = []
    for (level, name), unit in sorted(units.items()):
        for (other_level, other), target in sorted(units.items()):
            if target != unit and not await routed(
                http,
                headers,
                dataset,
                [{"id": f"{stack}:{unit}"}],
                [{"id": f"{stack}:{target}"}],
                mode,
            ):
                unrouted.append((level, name, other_level, other))
    assert unrouted == []


async def _connectors(
    client: Client, start: tuple[str, str], end: tuple[str, str], mode: str
) -> list[str]:
    """The kinds of connector the route from `start` to `end` takes, in order."""
    http, headers, dataset = client
    units = named_units(dataset)
    stack = dataset.stack_map
    response = await http.post(
        f"/v1/unitmaps/{stack}/route",
        headers=headers,
        json={
            "data": {
                "from": {"id": f"{stack}:{units[start]}"},
                "to": {"id": f"{stack}:{units[end]}"},
                "mode": mode,
            }
        },
    )
    assert response.status_code == 200, response.text
    route = response.json()["route"]
    assert route is not None
    return [leg["connector"]["kind"] for leg in route["legs"] if leg["connector"]]


@pytest.mark.asyncio(loop_scope="session")
async def test_a_wheelchair_takes_the_lift_or_the_ramp_a_walker_the_steps(client: Client) -> None:
    kiosk, newsagent, bakery, cafe = (
        ("-1", "Relay"),
        ("0", "Relay 1"),
        ("0", "Paul"),
        ("1", "Café du Quai"),
    )
    # from the underpass: the lift, for a wheelchair to either floor above
    assert await _connectors(client, kiosk, cafe, "wheelchair") == ["elevator"]
    assert await _connectors(client, kiosk, bakery, "wheelchair") == ["elevator"]
    # on foot the steps up from quai A or the escalator from quai B, whichever is nearer
    assert await _connectors(client, kiosk, newsagent, "foot") == ["stairs"]
    assert await _connectors(client, kiosk, bakery, "foot") == ["escalator"]
    # from the hall to the mezzanine, the ramp
    assert await _connectors(client, newsagent, cafe, "wheelchair") == ["ramp"]
