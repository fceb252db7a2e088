"""The plain demo site the viewer's read-only modules share: one demo database, one
`floorgate serve` and one Chromium per worker session (`viewer_site.shared_demo_site`),
instead of an import, a server and a browser per module."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from parsing.imdf.venue import ImdfOptions
from storage.database import connect
from storage.imdf.dataset import dataset_from_path, import_venue
from tests.e2e.viewer.viewer_site import Site, running_site
from tests.servers import own_demo_database
from tests.venues.imdf_shared_ordinals import SharedOrdinals, harbour_station
from tests.venues.imdf_venues import zip_bytes


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def shared_demo_key(db_server, tmp_path_factory) -> AsyncIterator[tuple[Any, str]]:
    """The demo in a database of its own, for the modules sharing it: they read it, add
    an asset of their own (`shared_station`), or undo what they change (closures
    reopened)."""
    folder = Path(tmp_path_factory.mktemp("viewer-shared"))
    async with own_demo_database(db_server, folder, "floorgate_viewer_shared") as demo:
        yield demo


@pytest.fixture(scope="session")
def shared_site(db_server, shared_demo_key, tmp_path_factory) -> Iterator[Site]:
    settings, key = shared_demo_key
    with running_site(db_server, settings, key, tmp_path_factory) as running:
        yield running


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def shared_station(db_server, shared_demo_key, tmp_path_factory) -> SharedOrdinals:
    """Harbour Station (tests/venues/imdf_shared_ordinals.py) imported beside the shared
    demo, as `floorgate import-imdf` imports it, when a module first asks for it: an asset
    and a stack map of its own, which no other module's check looks at."""
    settings, _ = shared_demo_key
    station = harbour_station()
    archive = Path(tmp_path_factory.mktemp("viewer-shared-station")) / "station.zip"
    archive.write_bytes(zip_bytes(station.venue.files()))
    store = connect(db_server.uri, settings)
    try:
        dataset = dataset_from_path(archive, ImdfOptions())
        await import_venue(store, dataset, limits=settings.svg_limits)
    finally:
        await store.close()
    return station
