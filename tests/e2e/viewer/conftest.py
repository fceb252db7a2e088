"""The sites the viewer's modules share: one database, one `floorgate serve` and one
Chromium per worker session for each, instead of an import, a server and a browser per
module. The plain demo (`viewer_site.shared_demo_site`), and the venues: Harbourside
Exchange, with the office Quayside House added when a module first asks for it."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from parsing.imdf.venue import ImdfOptions
from resolvers.auth.keys import create_key
from resolvers.auth.permissions import ALL_PERMISSIONS
from storage.database import Store, connect
from storage.demo.install import install_demo
from storage.imdf.dataset import dataset_from_path, import_venue
from storage.settings import Settings
from tests.e2e.viewer.viewer_site import Site, running_site
from tests.venues.imdf_shared_ordinals import SharedOrdinals, harbour_station
from tests.venues.imdf_venues import zip_bytes
from tests.venues.viewer_buildings import Level, install_exchange, install_office


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def shared_demo_key(db_server, tmp_path_factory) -> AsyncIterator[tuple[Settings, str]]:
    """The demo in a database of its own, for the modules sharing it: they read it, add
    an asset of their own (`shared_station`), or undo what they change (closures
    reopened)."""
    folder = Path(tmp_path_factory.mktemp("viewer-shared"))
    settings = Settings(data_dir=folder, database_name="floorgate_viewer_shared")
    async with session_database(db_server, settings) as store:
        await install_demo(store, folder)
        key = (await create_key(store, "viewer-shared", list(ALL_PERMISSIONS), None)).secret
        yield settings, key


@contextlib.asynccontextmanager
async def session_database(db_server, settings: Settings) -> AsyncIterator[Store]:
    """A database of the session's own, emptied first. Not dropped at the end: the
    session's database server stops next, and a drop at the session's end was seen
    cancelled mid-way (as tests/conftest.py's `demo` says)."""
    store = connect(db_server.uri, settings)
    await store.client.drop_database(settings.database_name)
    await store.ensure_indexes()
    try:
        yield store
    finally:
        await store.close()


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


VENUES = "floorgate_viewer_venues"


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def venues_key(db_server, tmp_path_factory) -> AsyncIterator[tuple[Settings, str]]:
    """Harbourside Exchange (tests/venues/imdf_venues.py `exchange`, with its attribute
    group) in a database of its own, as `floorgate import-imdf` imports it; a key."""
    folder = Path(tmp_path_factory.mktemp("viewer-venues"))
    settings = Settings(data_dir=folder, database_name=VENUES)
    async with session_database(db_server, settings) as store:
        await install_exchange(store, settings, folder)
        key = (await create_key(store, VENUES, list(ALL_PERMISSIONS), None)).secret
        yield settings, key


@pytest.fixture(scope="session")
def venues_site(db_server, venues_key, tmp_path_factory) -> Iterator[Site]:
    settings, key = venues_key
    with running_site(db_server, settings, key, tmp_path_factory) as running:
        yield running


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def venues_office(db_server, venues_key) -> list[Level]:
    """Quayside House (tests/venues/viewer_buildings.py `office`) added beside the venue
    when a module first asks: an asset and map of its own."""
    settings, _ = venues_key
    store = connect(db_server.uri, settings)
    try:
        return await install_office(store, settings.data_dir)
    finally:
        await store.close()
