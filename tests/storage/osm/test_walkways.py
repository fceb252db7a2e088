"""Walkable space outside rooms (docs/osm.md, "Walkways"): on a small place of our own,
a footway on level 0 leads from a shop to steps 0;1 that climb into a corridor on level
1, so the shop routes to the shop on level 1 (E18 on the stack map); a lift whose ends
stand where nobody walks joins no level, and the report names the level it serves."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from parsing.imdf.venue import ImdfOptions
from parsing.osm.convert import ALONE
from parsing.osm.lone_rooms import DOORLESS
from parsing.osm.walkways import WALKWAY_METRES
from resolvers.auth.keys import create_key
from resolvers.auth.permissions import DISTANCES_CALCULATE
from rest.app import create_app
from storage.imdf.dataset import ImdfDataset, import_venue
from storage.osm.dataset import osm_dataset
from tests._dbserver import fresh_store
from tests.storage.osm.test_places import FLAGS, level_of, routed
from tests.venues.osm_station import area, line, node, write_place


def place(folder: Path) -> Path:
    """Shop A (level 0) opens onto a footway to steps 0;1, which end in a corridor on
    level 1 beside shop B; shop C on level 2 is served only by a lift whose two ends
    stand 25 m from anything walked."""
    features = [
        area({"id": "way/1", "indoor": "room", "level": "0", "name": "Shop A"}, 0, 0, 10, 10),
        line({"id": "way/2", "highway": "footway", "level": "0"}, (10, 5), (30, 5)),
        line(
            {"id": "way/3", "highway": "steps", "level": "0;1", "incline": "up"}, (30, 5), (38, 5)
        ),
        area({"id": "way/4", "indoor": "corridor", "level": "1"}, 36, 0, 60, 10),
        area({"id": "way/5", "indoor": "room", "level": "1", "name": "Shop B"}, 60, 0, 70, 10),
        area({"id": "way/6", "indoor": "room", "level": "2", "name": "Shop C"}, 100, 0, 110, 10),
        node({"id": "node/7", "highway": "elevator", "level": "0;2"}, 20, 30),
    ]
    return write_place(folder / "small-place.geojson", features)


def test_the_footway_is_a_walkway_unit_cut_by_the_room(tmp_path: Path) -> None:
    dataset = osm_dataset(place(tmp_path), ImdfOptions())
    report = dataset.report
    assert report.counts[f"footway line made walkable ({WALKWAY_METRES:g} m wide)"] == 1
    assert report.examples[ALONE] == [
        "node/7 on level 0: the nearest walkable space is 24 m away",
        "node/7 on level 2: nothing walkable is drawn on that level",
    ]
    assert report.examples[DOORLESS] == [
        "Shop C (way/6 on level 2): nothing walkable is drawn on its level"
    ]
    assert report.examples[
        "connector with fewer than two ends where people walk, joins no level"
    ] == ["node/7"]
    doors = report.examples["door derived where units meet"]
    assert "way/1 and footways" in doors  # shop A keeps its shape and meets the footway
    names = {(level_of(dataset)[u["floor_id"]], u["name"]) for u in dataset.data["units"]}
    assert {("0", "Shop A"), ("1", "Shop B"), ("2", "Shop C")} <= names


def test_a_level_served_only_where_nobody_walks_is_named(tmp_path: Path) -> None:
    dataset = osm_dataset(place(tmp_path), ImdfOptions())
    assert dataset.reachability is not None
    named = {level_of(dataset)[level.level]: level.modes for level in dataset.reachability.levels}
    # level 1 is reached by steps only; level 2 by nothing anyone can walk to
    assert named == {"1": ("wheelchair",), "2": ("foot", "wheelchair")}


@pytest.mark.asyncio(loop_scope="session")
async def test_rooms_on_level_0_and_1_route_to_each_other(
    db_server: Any, settings: Any, tmp_path: Path
) -> None:
    dataset = osm_dataset(place(tmp_path), ImdfOptions())
    by_name = {u["name"]: u["id"] for u in dataset.data["units"]}
    async with fresh_store(db_server) as store:
        await import_venue(store, dataset, limits=settings.svg_limits)
        key = (await create_key(store, "osm", [DISTANCES_CALCULATE], None)).secret
        transport = httpx.ASGITransport(app=create_app(settings, store))
        async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as http:
            headers = {"API-Key": key, "Experimental-Flags": FLAGS}
            assert await _routes(http, headers, dataset, by_name["Shop A"], by_name["Shop B"])
            assert not await _routes(http, headers, dataset, by_name["Shop A"], by_name["Shop C"])


async def _routes(
    http: httpx.AsyncClient, headers: dict[str, str], dataset: ImdfDataset, a: str, b: str
) -> bool:
    stack = dataset.stack_map
    return await routed(http, headers, dataset, [{"id": f"{stack}:{a}"}], [{"id": f"{stack}:{b}"}])
