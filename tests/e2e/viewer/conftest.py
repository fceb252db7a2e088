"""The plain demo site the viewer's read-only modules share: one demo database, one
`floorgate serve` and one Chromium per worker session (`viewer_site.shared_demo_site`),
instead of an import, a server and a browser per module."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from tests.e2e.viewer.viewer_site import Site, running_site
from tests.servers import own_demo_database


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def shared_demo_key(db_server, tmp_path_factory) -> AsyncIterator[tuple[Any, str]]:
    """The demo in a database of its own, for the modules sharing it: they read it, or
    undo what they change (closures reopened)."""
    folder = Path(tmp_path_factory.mktemp("viewer-shared"))
    async with own_demo_database(db_server, folder, "floorgate_viewer_shared") as demo:
        yield demo


@pytest.fixture(scope="session")
def shared_site(db_server, shared_demo_key, tmp_path_factory) -> Iterator[Site]:
    settings, key = shared_demo_key
    with running_site(db_server, settings, key, tmp_path_factory) as running:
        yield running
