"""A `{lon, lat, level}` waypoint on a level two floors share (issue 65, point 5), on
Harbour Station with its Bike Store (tests/venues/imdf_shared_ordinals.py: the
Parkway's box takes in the whole Parkway Deck, as the Concourse's takes in the
Concourse Outdoor on Apple's sample venue), imported into the embedded database and
asked through the real app.

`level` picks the floor whose footprint holds the point: a point in the Deck Lounge
routes as the lounge's id does (before, both boxes held it and the first floor, the
Parkway, was taken). When none holds it, the nearest within the margin, else the
margin's refusal; when two hold it, or are as near, a 422 names them."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest_asyncio

from parsing.geo.georeference import Georeference
from parsing.imdf.read import read_archive
from parsing.imdf.venue import ImdfOptions
from resolvers.auth.keys import create_key
from resolvers.auth.permissions import DISTANCES_CALCULATE
from rest.app import create_app
from storage.imdf.dataset import import_venue, venue_dataset
from tests._dbserver import fresh_store
from tests.resolvers.wayfinding.on_the_earth import fit_of
from tests.resolvers.wayfinding.test_route import FAILED, ROUTE_QUERY
from tests.venues.imdf_shared_ordinals import SharedOrdinals, harbour_station

FLAGS = "distances, directions, locations-resource"


@dataclass
class Station:
    client: httpx.AsyncClient
    headers: dict[str, str]
    venue: SharedOrdinals
    fit: Georeference  # the stack map's
    locations: dict[str, dict[str, Any]]  # the stack map's, by unit key ("deck:lounge")


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def station(db_server, settings) -> AsyncIterator[Station]:
    venue = harbour_station(bike_store=True)
    async with fresh_store(db_server) as store:
        found = venue_dataset(read_archive(venue.venue.files()), ImdfOptions())
        await import_venue(store, found, limits=settings.svg_limits)
        key = (await create_key(store, "station", [DISTANCES_CALCULATE], None)).secret
        keys = {f"{venue.stack}:{unit}": name for name, unit in venue.units.items()}
        located = {
            keys[loc["id"]]: loc
            for loc in found.data["locations"]
            if loc["unit_map_id"] == venue.stack and loc["id"] in keys
        }
        transport = httpx.ASGITransport(app=create_app(settings, store))
        async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as http:
            headers = {"API-Key": key, "Experimental-Flags": FLAGS}
            yield Station(http, headers, venue, await fit_of(store, venue.stack), located)


def at(station: Station, key: str, **where: str) -> dict[str, Any]:
    """The location of unit `key` as a lon/lat waypoint, with `level` or `floor_id`."""
    location = station.locations[key]
    lon, lat = station.fit.apply(location["x"], location["y"])
    return {"lon": lon, "lat": lat, **where}


def metres(station: Station, x: float, y: float, **where: str) -> dict[str, Any]:
    """A point of the venue's plan (metres east and north) as a lon/lat waypoint."""
    lon, lat = station.venue.venue.lon_lat(x, y)
    return {"lon": lon, "lat": lat, **where}


async def route(station: Station, start: dict[str, Any], key: str = "concourse:cafe") -> Any:
    """The REST route from `start` to unit `key`'s location: status and body."""
    response = await station.client.post(
        f"/v1/unitmaps/{station.venue.stack}/route",
        headers=station.headers,
        json={"data": {"from": start, "to": {"id": station.locations[key]["id"]}}},
    )
    return response.status_code, response.json()


async def test_a_point_in_the_deck_lounge_routes_as_its_id(station: Station):
    by_id = await route(station, {"id": station.locations["deck:lounge"]["id"]})
    assert by_id[0] == 200, by_id
    deck = station.venue.levels["deck"]
    by_level = await route(station, at(station, "deck:lounge", level="2"))
    by_floor = await route(station, at(station, "deck:lounge", floor_id=deck))
    assert by_level[0] == by_floor[0] == 200, by_level
    assert by_level[1]["from"]["floor_id"] == deck  # not the Parkway
    assert by_level[1]["route"]["distance"] == by_id[1]["route"]["distance"]
    assert by_level[1]["route"]["legs"] == by_floor[1]["route"]["legs"] == by_id[1]["route"]["legs"]
    terrace = await route(station, at(station, "terrace:kiosk", level="1"))
    kiosk = await route(station, {"id": station.locations["terrace:kiosk"]["id"]})
    assert terrace[1]["from"]["floor_id"] == station.venue.levels["terrace"]
    assert terrace[1]["route"]["distance"] == kiosk[1]["route"]["distance"]


async def test_graphql_places_the_point_on_the_floor_that_holds_it(station: Station):
    async def distance(start: dict[str, Any]) -> float:
        variables = {
            "map": station.venue.stack,
            "from": start,
            "to": {"id": station.locations["concourse:cafe"]["id"]},
        }
        response = await station.client.post(
            "/graphql",
            json={"query": ROUTE_QUERY, "variables": variables},
            headers=station.headers,
        )
        assert response.status_code == 200, response.text
        answer = response.json()["data"]["route"]
        assert answer["from"]["floorId"] == station.venue.levels["deck"]
        return float(answer["route"]["distance"])

    by_id = await distance({"id": station.locations["deck:lounge"]["id"]})
    assert await distance(at(station, "deck:lounge", level="2")) == by_id


async def test_a_point_no_footprint_holds_goes_to_the_nearest_within_the_margin(
    station: Station,
):
    """3 m from the Deck's hall and lounge, 7.6 m from the Parkway's hall, 10 m from its
    Bike Store: on the Deck, as if its floor were given."""
    deck = station.venue.levels["deck"]
    by_level = await route(station, metres(station, 27, 7, level="2"))
    by_floor = await route(station, metres(station, 27, 7, floor_id=deck))
    assert by_level[0] == 200, by_level
    assert by_level[1]["from"]["floor_id"] == deck
    assert by_level[1]["route"] == by_floor[1]["route"]


async def test_a_point_no_footprint_holds_past_the_margin_is_refused(station: Station):
    """20 m north of the Deck Lounge's corner, and farther from the Parkway's rooms."""
    start = metres(station, 27, 30, level="2")
    message = (
        f"({start['lon']:g}, {start['lat']:g}) is 20.2 m outside the outline of level '2': "
        "at most 5 m"
    )
    assert await route(station, start) == (
        422,
        {"message": FAILED, "fields": {"data.from": [message]}},
    )


def several(station: Station, start: dict[str, Any], where: str, keys: tuple[str, ...]) -> Any:
    floors = " and ".join(
        f"'{name}' (floor '{station.venue.levels[key]}')"
        for key, name in zip(keys, ("Concourse", "Sun Terrace"), strict=True)
    )
    message = (
        f"({start['lon']:g}, {start['lat']:g}) is {where} 2 floors of level '1': {floors}; "
        "give floorId instead of level to say which"
    )
    return 422, {"message": FAILED, "fields": {"data.from.level": [message]}}


async def test_a_point_two_floors_hold_is_refused_with_their_names(station: Station):
    """On the line where the Concourse's hall meets the Sun Terrace's lawn (x = 20)."""
    start = metres(station, 20, 2, level="1")
    keys = ("concourse", "terrace")
    assert await route(station, start) == several(station, start, "on", keys)
    floor = {**start, "floor_id": station.venue.levels["terrace"]}
    del floor["level"]
    placed = await route(station, floor)
    assert placed[0] == 200 and placed[1]["from"]["floor_id"] == station.venue.levels["terrace"]


async def test_a_point_two_floors_are_as_near_to_is_refused_too(station: Station):
    """Outside both, 2 m from Gate A (the Concourse) and from the kiosk (the Terrace)."""
    start = metres(station, 20, 6, level="1")
    assert await route(station, start) == several(
        station, start, "2.0 m from", ("concourse", "terrace")
    )
