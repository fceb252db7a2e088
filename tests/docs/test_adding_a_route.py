"""Adding a GET route is one row of `rest/v1/routes.py` and `make generate`
(docs/architecture.md, "Where to add"; DEVELOPERS.md, "Adding a REST route"), proved on a
copy of the code: the row below goes into the copy's table, the copy's `.ci/generate.py`
writes the copy's planned routes and OpenAPI document, and the copy's app, on the demo
database, answers the new path with the planned plan (`make generate`'s second step, the
demo's recorded answer for the document's example, is left to
tests/rest/v1/openapi/test_document.py).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.docs.ci_scripts import ROOT, ci_module

# The example of the docs: the units of a unit map (E15) at the `/v1/unitmaps/` spelling
# that E17 and E18 have too, a second path for the list `/v1/maps/{map}/units` serves.
ROW = """\
    RestRoute(
        "GET",
        "/v1/unitmaps/{unitMapId}/units",
        "listUnitmapUnits",
        "List units of a unit map (E15, alias)",
        "unitMapUnits",
        "ReducedUnitFields",
        Shape.PAGED,
        (path("unitMapId", "unitMapId"), *PAGE),
        example=Example({"unitMapId": "map-b1-f1"}, {"per-page": 2}),
    ),
"""
NEW = ("/v1/unitmaps/{unitMapId}/units", "listUnitmapUnits")
TWIN = ("/v1/maps/{map}/units", "listUnitMapUnits")  # the route it spells again
DOCS = (ROOT / "docs" / "architecture.md", ROOT / "DEVELOPERS.md")
PACKAGES = ("parsing", "routing", "storage", "resolvers", "schema", "rest")
GENERATE = (sys.executable, ".ci/generate.py")
STALE = "is stale: run `make generate`"

# Run in the copy: the copy's app on the demo's database answers the new path once.
SERVE = """
import asyncio, json, sys
from pathlib import Path
import httpx
import rest
from rest.app import create_app
from schema.execution.running.planned.routes import PLANS
from storage.database import connect
from storage.settings import Settings

async def main(uri, database, data_dir, key, url, new, twin):
    settings = Settings(data_dir=Path(data_dir), database_name=database, rate_limit_per_second=0)
    store = connect(uri, settings)
    app = create_app(settings, store, ensure_indexes=False)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url=settings.public_url) as client:
        response = await client.get(url, headers={"API-Key": key})
    await store.close()
    plan, other = PLANS[new], PLANS[twin]
    print(json.dumps({
        "code": rest.__file__,
        "planned": (plan.call, plan.shape, plan.cost) == (other.call, other.shape, other.cost),
        "plan_ran": bool(plan.made),
        "status": response.status_code,
        "body": response.json(),
    }))

asyncio.run(main(*sys.argv[1:]))
"""


def copy_of_the_code(to: Path) -> Path:
    """The six floors, .ci/ and the files `.ci/generate.py` compares: no tests, no .venv."""
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    for package in (*PACKAGES, ".ci"):
        shutil.copytree(ROOT / package, to / package, ignore=skip)
    generate = ci_module("generate")
    for written in (entry.path for entry in generate.GENERATED):
        if not (to / written).exists():
            (to / written).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / written, to / written)
    shutil.copy2(ROOT / "pyproject.toml", to / "pyproject.toml")
    return to


def with_row(routes: str, row: str) -> str:
    """The table's text with `row` added as the last of its flat routes."""
    start = routes.index("FLAT_ROUTES: tuple[RestRoute, ...] = (\n")
    end = routes.index("\n)\n", start) + 1
    return routes[:end] + row + routes[end:]


def run(copy: Path, *command: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": str(copy)}
    return subprocess.run(
        command, cwd=copy, env=environment, capture_output=True, text=True, timeout=120
    )


def schema_of(operation: dict[str, Any]) -> Any:
    return operation["responses"]["200"]["content"]["application/json"]["schema"]


def stripped_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines()]


def test_the_docs_show_the_row_this_test_adds():
    row = stripped_lines(ROW)
    for doc in DOCS:
        lines = stripped_lines(doc.read_text(encoding="utf-8"))
        shown = any(lines[i : i + len(row)] == row for i in range(len(lines)))
        assert shown, f"{doc.name} does not show the row of {__name__}"
        assert "make generate" in doc.read_text(encoding="utf-8")


async def test_one_row_and_make_generate_serve_a_new_get_route(tmp_path, db_server, demo):
    copy = copy_of_the_code(tmp_path / "floorgate")
    routes = copy / "rest" / "v1" / "routes.py"
    before = routes.read_text(encoding="utf-8")
    routes.write_text(with_row(before, ROW), encoding="utf-8")
    rows = routes.read_text(encoding="utf-8").count("RestRoute(\n")
    assert rows == before.count("RestRoute(\n") + 1

    stale = run(copy, *GENERATE, "--check")
    assert (stale.returncode, stale.stdout) == (
        1,
        f"schema/execution/running/planned/routes.py {STALE}\ndocs/openapi.json {STALE}\n",
    ), stale.stderr
    written = run(copy, *GENERATE)
    assert (written.returncode, written.stdout) == (
        0,
        "wrote schema/execution/running/planned/routes.py\nwrote docs/openapi.json\n",
    ), written.stderr
    assert run(copy, *GENERATE, "--check").returncode == 0

    document = json.loads((copy / "docs" / "openapi.json").read_text(encoding="utf-8"))
    operation, twin = document["paths"][NEW[0]]["get"], document["paths"][TWIN[0]]["get"]
    assert operation["operationId"] == NEW[1]
    assert [(p["name"], p["in"]) for p in operation["parameters"]] == [
        ("unitMapId", "path"),
        ("page", "query"),
        ("per-page", "query"),
        ("lang", "query"),
        ("Accept-Language", "header"),
        ("If-None-Match", "header"),
    ]
    assert schema_of(operation) == schema_of(twin)
    planned = (copy / "schema" / "execution" / "running" / "planned" / "routes.py").read_text(
        encoding="utf-8"
    )
    assert f'"{NEW[1]}": PlannedRoute(' in planned

    existing = await demo.client.get("/v1/maps/map-b1-f1/units?per-page=2", headers=demo.headers())
    assert existing.status_code == 200
    expected, public = existing.json(), demo.settings.public_url
    paging = expected["paging"]  # the same page but for its link, which names its own path
    assert paging["next_url"] == f"{public}/v1/maps/map-b1-f1/units?page=2&per-page=2"
    paging["next_url"] = f"{public}/v1/unitmaps/map-b1-f1/units?page=2&per-page=2"

    data = tmp_path / "data"
    data.mkdir()
    served = run(
        copy,
        sys.executable,
        "-c",
        SERVE,
        db_server.uri,
        demo.settings.database_name,
        str(data),
        demo.key,
        "/v1/unitmaps/map-b1-f1/units?per-page=2",
        NEW[1],
        TWIN[1],
    )
    assert served.returncode == 0, served.stderr
    assert json.loads(served.stdout) == {
        "code": str(copy / "rest" / "__init__.py"),
        "planned": True,
        "plan_ran": True,
        "status": 200,
        "body": expected,
    }
