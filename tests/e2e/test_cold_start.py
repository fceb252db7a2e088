"""Issue 15, item 5: a cold start imports only what the request path needs. numpy,
igraph, shapely, lxml, svgelements, the SVG parser, walk-graph building and the importer
load on the first request that needs them (a parse, a distance matrix, a write), not
while `floorgate serve` starts.

Structural, not timed: a fresh process builds the app as a worker does and answers
ordinary requests; the heavy modules must not be in `sys.modules`. (Measured times are
in docs/performance.md.)"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from rest.app import create_app
from rest.ops.tls import ensure_local_certificates
from storage.collections import COLLECTIONS
from storage.database import connect
from storage.transactions import atomically

HEAVY = [
    "numpy",
    "igraph",
    "shapely",
    "lxml",
    "svgelements",
    "parsing.svg",
    "routing.build",
    "routing.maneuvers",  # the first route
    "storage.imports.importer",
    "storage.datasets.map_drawings",
    "storage.demo.install",
    "yaml",  # the first /v1/openapi.yaml
    "prometheus_client",  # the first scrape of /metrics
    "opentelemetry",  # only with FLOORGATE_TRACING=on
    "strawberry.federation.schema_directives",  # its check is skipped (schema.build)
]

SCRIPT = """
import asyncio, json, os, sys

HEAVY = json.loads(sys.argv[1])
GRAPHQL = ("graphql", "strawberry")
# Needed by the first wayfinding request or the first switch a read meets, not before.
LATER = ("routing.matrix", "resolvers.wayfinding.graph_cache", "storage.imports.switches")
loaded = lambda: [name for name in HEAVY if name in sys.modules]
report = {}

from pathlib import Path
from rest.cli.main import _tls_loads, parser
parser().parse_args(["serve"])
report["tls_loads"] = _tls_loads(Path(os.environ["CERT"]), Path(os.environ["KEY_FILE"]))
report["cli"] = loaded()

from rest.app import app_from_env
from rest.ops.server import implementations, uvicorn_options
from storage.settings import Settings
uvicorn_options(Settings.from_env())
app = app_from_env()
report["started"] = loaded()
from rest.v1.routes import ROUTES
report["parsed"] = [route.operation_id for route in ROUTES if "parsed" in vars(route)]
report["h11"] = "h11" in sys.modules
report["cryptography"] = "cryptography" in sys.modules
report["fast"] = implementations(Settings.from_env()) == {"loop": "uvloop", "http": "httptools"}

import httpx

async def requests():
    key = {"API-Key": os.environ["KEY"]}
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as client:
        first = await client.get("/v1/assets/asset-1", headers=key)
        report["planned"] = (first.status_code, [m for m in GRAPHQL if m in sys.modules])
        report["later"] = [m for m in LATER if m in sys.modules]
        statuses = [
            (await client.get("/healthz")).status_code,
            (await client.get("/v1/assets?per-page=2", headers=key)).status_code,
            (await client.get("/v1/maps?per-page=2", headers=key)).status_code,
            (await client.post("/graphql", headers=key,
                               json={"query": "{ assets { data { id } } }"})).status_code,
        ]
        report["statuses"] = statuses
        report["served"] = loaded()
        svg = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"/>'
        parsed = await client.post("/v1/maps/parse", content=svg,
                                   headers={**key, "Content-Type": "image/svg+xml"})
        report["parse_status"] = parsed.status_code
        report["after_parse"] = loaded()

asyncio.run(requests())
print(json.dumps(report))
"""


@pytest.fixture(scope="module")
def cold(db_server, settings, keys, tmp_path_factory) -> dict:
    """What a fresh process imported at each step (see SCRIPT)."""
    certs = ensure_local_certificates(tmp_path_factory.mktemp("tls"))
    env = {
        "CERT": str(certs.cert),
        "KEY_FILE": str(certs.key),
        "PATH": "/usr/bin:/bin",
        "FLOORGATE_MONGODB_URI": db_server.uri,
        "FLOORGATE_DATABASE": settings.database_name,
        "FLOORGATE_DATA_DIR": str(settings.data_dir),
        "KEY": keys.full,
    }
    if os.environ.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, json.dumps(HEAVY)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])


def test_the_cli_imports_no_heavy_module(cold):
    assert cold["cli"] == []


def test_a_started_worker_has_imported_no_heavy_module(cold):
    assert cold["started"] == []
    assert cold["parsed"] == []  # route documents and /v1/openapi.json: on first use
    if cold["fast"]:
        assert cold["h11"] is False  # uvicorn's fallback parser stays out too


@pytest.mark.skipif(
    importlib.util.find_spec("OpenSSL") is not None,
    reason="with pyOpenSSL installed, pymongo imports cryptography for it",
)
def test_serve_checks_its_certificate_without_cryptography(cold):
    """`floorgate serve` loads the pair with `ssl` (rest.ops.tls, which imports cryptography,
    only explains a failure), and pymongo's pyOpenSSL attempt is skipped (storage/__init__)."""
    assert cold["tls_loads"] is True
    assert cold["cryptography"] is False


def test_a_planned_route_answers_before_graphql_is_imported(cold):
    """Issue 36: the first answer of a process waits for neither graphql-core nor
    strawberry (`schema.execution.running.planned`, `schema.lazy`); the app is made
    without them too."""
    assert cold["planned"] == [200, []]


def test_the_first_answer_waits_for_no_routing_or_switch_code(cold):
    """Issue 36, cold start: the route table's E18 limit check and the reads' switch gate
    import neither the walk graphs' loaders nor the switch's settling until used."""
    assert cold["later"] == []


def test_ordinary_requests_import_no_heavy_module(cold):
    assert cold["statuses"] == [200, 200, 200, 200]
    assert cold["served"] == []


def test_a_parse_imports_the_parser_in_a_worker_process_only(cold):
    """E10 parses in a worker process (`storage.isolated`), which imports the parser:
    the serving process never does, before or after a parse."""
    assert cold["parse_status"] == 200
    assert {"parsing.svg", "lxml", "svgelements", "numpy"} & set(cold["after_parse"]) == set()


DECLARING = ("@strawberry.", "@field(", "@mutation(", "@subscription(")


def test_the_type_modules_keep_their_annotations_as_objects():
    """See `schema/__init__.py`: string annotations cost strawberry an `eval` each."""
    folder = Path(__file__).parents[2] / "schema"
    lines = {
        path.stem: path.read_text(encoding="utf-8").splitlines()
        for path in sorted(folder.glob("*.py"))
    }
    declaring = {
        name
        for name, text in lines.items()
        # strawberry's decorators, or their typed wrappers (schema/decorators.py)
        if any(line.lstrip().startswith(DECLARING) for line in text)
    }
    assert declaring >= {"types", "queries", "mutations", "directions_types"}
    postponed = {name for name in declaring if "from __future__ import annotations" in lines[name]}
    assert postponed == set()


async def indexes_of(store) -> dict[str, int]:
    return {
        collection.name: len(await store.db[collection.name].index_information())
        for collection in COLLECTIONS
        if collection.indexes
    }


async def test_a_worker_ensures_the_indexes_after_its_start(db_server, settings):
    """Issue 36: no index command before the first answers; the lifespan sends them a
    moment after start (`INDEXES_AFTER_SECONDS`), in the background."""
    name = "floorgate_start_indexes"
    fresh = replace(settings, database_name=name)
    store = connect(db_server.uri, fresh)
    await store.client.drop_database(name)
    app = create_app(fresh, store)
    while not hasattr(app, "routes"):
        app = app.app  # through the middleware to the Starlette app
    declared = {c.name: len(c.indexes) + 1 for c in COLLECTIONS if c.indexes}
    try:
        async with app.router.lifespan_context(app):
            assert set((await indexes_of(store)).values()) == {0}  # none at start
            for _ in range(200):
                if await indexes_of(store) == declared:
                    break
                await asyncio.sleep(0.05)
            assert await indexes_of(store) == declared
            assert store.indexes_ensured
    finally:
        await store.client.drop_database(name)
        await store.close()


async def test_a_write_ensures_the_indexes_first(db_server, settings):
    """Without the lifespan's (`ensure_indexes=False`): the first write that relies on a
    unique index finds them all made before its work runs (`Store.indexed`)."""
    name = "floorgate_write_indexes"
    fresh = replace(settings, database_name=name)
    store = connect(db_server.uri, fresh)
    await store.client.drop_database(name)
    seen: list[dict[str, int]] = []

    async def work(session: object) -> None:
        seen.append(await indexes_of(store))

    try:
        assert set((await indexes_of(store)).values()) == {0}
        await atomically(store, work)
        await atomically(store, work)  # ensured once: the second write sends none
        sent = store.timings.by_command["createIndexes"].count
    finally:
        await store.client.drop_database(name)
        await store.close()
    declared = {c.name: len(c.indexes) + 1 for c in COLLECTIONS if c.indexes}
    assert seen == [declared, declared]
    assert sent == len(declared)  # one command per collection, once
