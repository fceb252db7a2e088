"""A connector's foot never disconnects the walkable space it is cut from (docs/osm.md,
"Decisions"): on a small place of our own, a lift node stands in the middle of a
corridor 2 m wide, so its foot (2 m square) cuts the corridor in two; each piece meets
the foot by its own door, and people walk across the foot: the shops at the two ends
of the corridor route to each other and to the shop upstairs, on foot and by
wheelchair."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from parsing.imdf.venue import ImdfOptions
from parsing.osm.archive import osm_archive
from resolvers.auth.keys import create_key
from resolvers.auth.permissions import DISTANCES_CALCULATE
from rest.app import create_app
from storage.imdf.dataset import import_venue
from storage.osm.dataset import osm_dataset
from storage.osm.files import read_osm
from tests._dbserver import fresh_store
from tests.storage.osm.test_places import FLAGS, routed
from tests.venues.osm_station import area, node, write_place

CUT = "unit cut in pieces by a connector's foot, each piece joined to it"


def place(folder: Path) -> Path:
    """Level 1: shop W (x -6..0), a corridor 2 m wide (x 0..12, y 0..2), shop E
    (x 12..18); a lift (1;2) at the corridor's middle; level 2: a corridor and shop Z."""
    corridor = {"indoor": "corridor"}
    features = [
        area({"id": "way/1", "indoor": "room", "level": "1", "name": "Shop W"}, -6, -2, 0, 4),
        area({"id": "way/2", **corridor, "level": "1"}, 0, 0, 12, 2),
        area({"id": "way/3", "indoor": "room", "level": "1", "name": "Shop E"}, 12, -2, 18, 4),
        area({"id": "way/4", **corridor, "level": "2"}, 0, 0, 12, 4),
        area({"id": "way/5", "indoor": "room", "level": "2", "name": "Shop Z"}, 0, 4, 12, 10),
        node({"id": "node/6", "highway": "elevator", "level": "1;2"}, 6, 1),
    ]
    return write_place(folder / "lift-in-a-corridor.geojson", features)


def test_each_piece_of_the_corridor_meets_the_foot_by_a_door(tmp_path: Path) -> None:
    archive = osm_archive(read_osm(place(tmp_path)), "p", "p")
    assert archive.report.examples[CUT] == ["p-way-2 by node/6 on level 1"]
    [corridor] = [u for u in archive.of("unit") if u.id == "p-way-2"]
    assert corridor.geometry is not None and corridor.geometry["type"] == "MultiPolygon"
    doors = sorted(o.id for o in archive.of("opening") if "node-6-level-1" in o.id)
    assert doors == ["p-way-2~p-node-6-level-1", "p-way-2~p-node-6-level-1~2"]


@pytest.mark.asyncio(loop_scope="session")
@pytest.mark.parametrize("mode", ["foot", "wheelchair"])
async def test_the_shops_route_across_the_foot(
    db_server: Any, settings: Any, tmp_path: Path, mode: str
) -> None:
    dataset = osm_dataset(place(tmp_path), ImdfOptions())
    assert dataset.reachability is not None and dataset.reachability.unreachable == []
    shops = {u["name"]: f"{dataset.stack_map}:{u['id']}" for u in dataset.data["units"]}
    async with fresh_store(db_server) as store:
        await import_venue(store, dataset, limits=settings.svg_limits)
        key = (await create_key(store, "osm", [DISTANCES_CALCULATE], None)).secret
        transport = httpx.ASGITransport(app=create_app(settings, store))
        async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as http:
            headers = {"API-Key": key, "Experimental-Flags": FLAGS}
            for a, b in (("Shop W", "Shop E"), ("Shop W", "Shop Z"), ("Shop E", "Shop Z")):
                one, other = [{"id": shops[a]}], [{"id": shops[b]}]
                assert await routed(http, headers, dataset, one, other, mode), (a, b)
