"""The closures' tests' world: the demo and a map of our own (the drawing of
tests/routing/test_closures.py, two levels with a lobby, a shop and a lift) in a fresh
database, keys of every kind the fields tell apart, and a client of the app.

Each closures test module makes its fixtures here: `env = world()`, and
`no_closures = cleared()` where each test must start and end with none. One world serves
every module of a process (conftest.py here)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from resolvers.auth.keys import create_key
from resolvers.auth.permissions import ADMIN, DISTANCES_CALCULATE
from rest.app import create_app
from storage import collections as c
from storage.demo.install import install_demo
from storage.imports.importer import import_data
from storage.settings import Settings
from tests._dbserver import fresh_store
from tests.routing.test_closures import SVG

ASSET = "cl-asset"
MAP = "cl-map"
FLAGS = "directions"
STAMP = "2026-01-01T00:00:00+00:00"


def dataset() -> dict[str, Any]:
    """Our asset, its two floors, the map and its units (named, but the bay)."""
    units = [("cl-lobby", "Lobby", 1), ("cl-shop", "Corner Shop", 1), ("cl-bay", None, 1)]
    units += [("cl-court", "Courtyard", 1), ("cl-upper", "Upper Hall", 2)]
    return {
        "version": 1,
        "assets": [{"id": ASSET, "market": "office", "name": "Closure Court"}],
        "floors": [
            {"id": f"cl-f{n}", "asset_id": ASSET, "name": f"F{n}", "sort": n} for n in (1, 2)
        ],
        "units": [
            {"id": id_, "asset_id": ASSET, "floor_id": f"cl-f{floor}", "name": name}
            if name
            else {"id": id_, "asset_id": ASSET, "floor_id": f"cl-f{floor}", "name": ""}
            for id_, name, floor in units
        ],
        "unit_maps": [{"id": MAP, "asset_id": ASSET, "name": "Closure Court"}],
        "locations": [
            {
                "id": "cl-lift-place",
                "asset_id": ASSET,
                "unit_map_id": MAP,
                "name": "Lift A",
                "x": 295,
                "y": 70,
                "floors": [{"id": "cl-f1"}],
                "tags": [{"key": "svc:id", "value": "cl-lift"}],
                "created_at": STAMP,
                "updated_at": STAMP,
            }
        ],
    }


@dataclass
class Env:
    client: httpx.AsyncClient
    app: Any
    store: Any
    admin: str  # service.admin, every asset
    ours: str  # service.admin, only ASSET
    reader: str  # service.distances.calculate, every asset

    def headers(self, key: str | None = None, flags: str | None = FLAGS) -> dict[str, str]:
        headers = {"API-Key": key or self.admin} if key != "" else {}
        if flags is not None:
            headers["Experimental-Flags"] = flags
        return headers

    async def graphql(
        self, query: str, variables: dict[str, Any], **headers: Any
    ) -> dict[str, Any]:
        response = await self.client.post(
            "/graphql",
            json={"query": query, "variables": variables},
            headers=self.headers(**headers),
        )
        answer: dict[str, Any] = response.json()
        return answer


@asynccontextmanager
async def closure_env(db_server: Any, settings: Settings, tmp: Path) -> AsyncIterator[Env]:
    async with fresh_store(db_server) as store:
        await install_demo(store, tmp)
        await import_data(store, dataset(), tmp, svg_sources={MAP: SVG})
        admin = (await create_key(store, "cl-admin", [ADMIN], None)).secret
        ours = (await create_key(store, "cl-ours", [ADMIN], [ASSET])).secret
        reader = (await create_key(store, "cl-reader", [DISTANCES_CALCULATE], None)).secret
        app = create_app(settings, store)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as client:
            yield Env(client, app, store, admin, ours, reader)


def world() -> Any:
    """A module's `env` fixture (`env = world()`): the world of the process, made once
    (`closure_world`, conftest.py here) and shared by the modules, which leave no closure
    behind."""

    @pytest.fixture(scope="module")
    def env(closure_world: Env) -> Env:
        return closure_world

    return env


def cleared() -> Any:
    """A module's autouse fixture (`no_closures = cleared()`): each test starts and ends
    with no closure stored."""

    @pytest.fixture(autouse=True)
    async def no_closures(env: Env) -> AsyncIterator[None]:
        await env.store[c.CLOSURES].delete_many({})
        yield
        await env.store[c.CLOSURES].delete_many({})

    return no_closures
