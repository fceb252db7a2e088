"""Shared fixtures: one real embedded database server for the session, the real app
over httpx, a small exact dataset, keys of every kind, and the demo property."""

from __future__ import annotations

import gc
import os
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import httpx
import hypothesis
import pytest
import pytest_asyncio

from resolvers.auth.keys import create_key, disable_key
from resolvers.auth.permissions import ALL_PERMISSIONS
from rest.app import create_app
from storage.database import Store, connect
from storage.demo.install import install_demo
from storage.embedded.server import EmbeddedServer
from storage.settings import Settings
from tests._dbserver import PolledServer, fixtures_store, server_folder

PUBLIC_URL = "https://api.floorgate.test"

# Where a hung test or process waited (tests/suite/hangs.py).
pytest_plugins = ["tests.suite.hangs"]

# Property tests draw the same examples on every `make test` ("repeatable"): a suite that
# fails on an example drawn this time and not the last is a suite nobody trusts. New
# examples are drawn by `make explore` (HYPOTHESIS_PROFILE=explore), and what it finds
# becomes a test of its own (as tests/routing/test_maneuvers.py::
# test_a_chord_of_the_minimum_length_to_a_hair_needs_no_turn did).
hypothesis.settings.register_profile("repeatable", derandomize=True, database=None)
hypothesis.settings.register_profile("explore", derandomize=False)
hypothesis.settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

# 5xx answers of the session's client during the running test, shown beside its failure:
# a CI log that says "assert 503 == 200" and not which 503 cannot be mended.
SERVER_ERRORS: list[str] = []


async def keep_server_error(response: httpx.Response) -> None:
    if response.status_code >= 500:
        await response.aread()
        request = response.request
        text = response.text[:500]
        SERVER_ERRORS.append(
            f"{request.method} {request.url.path} -> {response.status_code} {text}"
        )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    if call.when == "setup":
        SERVER_ERRORS.clear()
    if report.failed and SERVER_ERRORS:
        report.sections.append(("5xx answers of the app", "\n".join(SERVER_ERRORS)))


@pytest.fixture(scope="session", autouse=True)
def run_cache_folder(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Under pytest-xdist, the folder every worker of this run shares (its temp folder's
    parent), where tests/venues/run_cache.py keeps what one worker computed for all."""
    from tests.venues import run_cache

    if os.environ.get("PYTEST_XDIST_WORKER") and not run_cache.FOLDER:
        run_cache.FOLDER.append(tmp_path_factory.getbasetemp().parent)


@pytest.fixture(scope="session")
def db_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedServer]:
    with server_folder(tmp_path_factory, "db") as folder, PolledServer(folder) as server:
        yield server


@pytest.fixture(scope="module")
def own_db_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedServer]:
    """A database server for one module's tests alone. On the session's shared one, big
    transactions (thousands of documents) and imports killed mid-transaction (left open
    until the server reaps them, 60 s) slowed other tests' commands past the driver's
    20 s socket timeout, and theirs: a drop timed out, a 5,000-unit import took five
    times as long. A module whose fixtures ask for `db_server` overrides that with a
    fixture returning this one."""
    with server_folder(tmp_path_factory, "own_db") as folder, PolledServer(folder) as server:
        yield server


@pytest.fixture(scope="session")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return Settings(
        data_dir=Path(tmp_path_factory.mktemp("data")),
        public_url=PUBLIC_URL,
        database_name="floorgate_test",
        # The product's 2 s, and more: a 2-core CI machine running the parallel suite
        # (a database server per worker, Chromium) starved a server's heartbeat past
        # 1.5 s, and the next request waited for a server to select and answered 503;
        # at 5 s, three CI-like runs of 2026-11-29 each had a heartbeat time out (pymongo
        # then cancels the commands in flight: a drop, a GET answered 503). Served
        # processes and CLI commands get it too (tests/servers.py `cli_env`). Tests of
        # the database going away set their own, shorter timeout.
        db_timeout_ms=10_000,
        # off for the suite; tests/resolvers/test_rate_limit.py turns it on
        rate_limit_per_second=0,
    )


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def store(db_server: EmbeddedServer, settings: Settings) -> AsyncIterator[Store]:
    async with fixtures_store(db_server, settings) as store:
        yield store


class Keys:
    """Secrets of the test keys, by role."""

    full: str
    scoped: str
    plain: str
    disabled: str


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def keys(store: Store) -> Keys:
    result = Keys()
    result.full = (await create_key(store, "full", list(ALL_PERMISSIONS), None)).secret
    result.scoped = (await create_key(store, "scoped", [], ["asset-2"])).secret
    result.plain = (await create_key(store, "plain", [], None)).secret
    disabled = await create_key(store, "disabled", list(ALL_PERMISSIONS), None)
    await disable_key(store, disabled.key_id)
    result.disabled = disabled.secret
    return result


def with_schema(app: Any) -> Any:
    """The app, its GraphQL schema built now (`schema.lazy`), as a serving process has it
    a second after start: tests that time requests must not time the build."""
    inner = app
    while not hasattr(inner, "routes"):  # through the middleware to the Starlette app
        inner = inner.app
    inner.state.schemas.now()
    return app


@pytest.fixture(scope="session")
def app(store: Store, settings: Settings):
    return with_schema(create_app(settings, store))


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def client(app) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    hooks = {"response": [keep_server_error]}
    async with httpx.AsyncClient(
        transport=transport, base_url="https://testserver", event_hooks=hooks
    ) as client:
        yield client


@pytest.fixture
def full_headers(keys: Keys) -> dict[str, str]:
    return {"API-Key": keys.full}


@dataclass
class Demo:
    """The demo property (`make run`'s data) behind the real app, and a key with every
    permission: for examples, conformance and the newcomer's tour."""

    settings: Settings
    store: Store
    app: object
    client: httpx.AsyncClient
    key: str

    def headers(self, *flags: str) -> dict[str, str]:
        headers = {"API-Key": self.key}
        if flags:
            headers["Experimental-Flags"] = ", ".join(flags)
        return headers


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def demo(
    db_server: EmbeddedServer, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Demo]:
    settings = Settings(
        data_dir=Path(tmp_path_factory.mktemp("demo")),
        database_name="floorgate_demo_test",
        rate_limit_per_second=0,
    )  # public_url: the default of `make run`, https://localhost:8443
    store = connect(db_server.uri, settings)
    await store.client.drop_database(settings.database_name)
    await store.ensure_indexes()
    await install_demo(store, settings.data_dir)
    key = (await create_key(store, "demo", list(ALL_PERMISSIONS), None)).secret
    app = with_schema(create_app(settings, store))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url=settings.public_url) as client:
        yield Demo(settings, store, app, client, key)
    # Not dropped: the session's server stops next, and a drop at the session's end was
    # cancelled mid-way once (CI-like run, 2026-11-28), an error after every test passed.
    await store.close()


@dataclass
class OsmPlaces:
    """The three OpenStreetMap places of tests/data/ (Grand'Place, Caserne, Gare de l'Est)
    imported as `floorgate import-osm` does, once per session, into one database, behind
    the real app; a key that reads every asset. For tests that only read them: importing
    them costs about 11 s of CPU, paid once per run instead of once per module (the other
    xdist workers insert a copy of its documents, tests/venues/run_cache.py)."""

    store: Store
    client: httpx.AsyncClient
    key: str

    def headers(self) -> dict[str, str]:
        return {"API-Key": self.key}


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def osm_places(db_server: EmbeddedServer, settings: Settings) -> AsyncIterator[OsmPlaces]:
    from tests.venues.osm_places import import_places  # the importer: loaded by its users

    config = replace(settings, database_name="floorgate_osm_places")
    store = connect(db_server.uri, config)
    await store.client.drop_database(config.database_name)
    await store.ensure_indexes()
    await import_places(store, settings.svg_limits)  # once per run under xdist
    key = (await create_key(store, "osm-places", [], None)).secret
    transport = httpx.ASGITransport(app=create_app(config, store))
    async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as http:
        yield OsmPlaces(store, http, key)
    await store.close()  # not dropped, as `demo`: the session's server stops next


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection built (modules, their tables, the schema, thousands of test items)
    lives until the end: frozen out of the collector's reach, each full collection of a
    test walks only what the tests make (about a tenth of a page test's CPU was the
    collector walking it again)."""
    gc.freeze()
