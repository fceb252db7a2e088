"""The closures' world, made once per process (tests/resolvers/wayfinding/closures/
closure_env.py): its three modules only add and remove closures, each test starting and
ending with none (`cleared`), so they share one demo install and one app."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest_asyncio

from storage.settings import Settings
from tests.resolvers.wayfinding.closures.closure_env import Env, closure_env


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def closure_world(
    db_server: Any, settings: Settings, tmp_path_factory: Any
) -> AsyncIterator[Env]:
    async with closure_env(db_server, settings, tmp_path_factory.mktemp("closures")) as made:
        yield made
