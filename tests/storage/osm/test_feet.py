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
from resolvers.auth.keys import create_key
from resolvers.auth.permissions import DISTANCES_CALCULATE
from rest.app import create_app
from storage.imdf.dataset import import_venue
from storage.osm.dataset import osm_dataset
from tests._dbserver import fresh_store
from tests.parsing.osm.test_archive import lift_in_a_corridor
from tests.storage.osm.test_places import FLAGS, routed


def place(folder: Path) -> Path:
    """The lift in a corridor 2 m wide (tests/parsing/osm/test_archive.py, which checks
    the pieces and doors its foot makes) as a GeoJSON file."""
    path = folder / "lift-in-a-corridor.geojson"
    path.write_bytes(lift_in_a_corridor())
    return path


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
