"""An IMDF venue of tests/venues imported into a fresh database (as `floorgate
import-imdf` does) and served by the real app, with a key that may do everything: what
the modules that ask a venue through the API share, instead of each its own fixture."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx

from parsing.imdf.venue import ImdfOptions
from resolvers.auth.keys import create_key
from resolvers.auth.permissions import ALL_PERMISSIONS
from rest.app import create_app
from storage.database import Store
from storage.imdf.dataset import ImdfDataset, import_venue
from tests._dbserver import fresh_store
from tests.venues.run_cache import shared_venue_dataset


@dataclass
class Served:
    """The venue behind the app: its database, a client of the app and a key."""

    store: Store
    client: httpx.AsyncClient
    key: str
    dataset: ImdfDataset  # as imported: its report, its stack map's id

    def headers(self, flags: str, **more: str) -> dict[str, str]:
        return {"API-Key": self.key, "Experimental-Flags": flags, **more}


@asynccontextmanager
async def served_venue(
    db_server: Any, settings: Any, files: dict[str, bytes], options: ImdfOptions | None = None
) -> AsyncIterator[Served]:
    """The venue of `files` (an IMDF archive's members) imported and served."""
    dataset = shared_venue_dataset(files, options or ImdfOptions())  # once per run
    async with fresh_store(db_server) as store:
        await import_venue(store, dataset, limits=settings.svg_limits)
        key = (await create_key(store, "venue", list(ALL_PERMISSIONS), None)).secret
        transport = httpx.ASGITransport(app=create_app(settings, store))
        async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as client:
            yield Served(store, client, key, dataset)
