"""Adding a GET route is one row of its area's table in `rest/v1/routes/` and `make
generate` (docs/architecture.md, "Where to add"; DEVELOPERS.md, "Adding a REST route"),
proved on a copy of the code: two rows below go into two areas' tables of the copy (a
read in `rest/v1/routes/reads.py`, a wayfinding route in `rest/v1/routes/wayfinding.py`),
the copy's `.ci/generate.py` writes the copy's planned routes and OpenAPI document, and
the copy's app, on the demo database, answers both new paths with their planned plans
(`make generate`'s second step, the demo's recorded answer for the document's example, is
left to tests/rest/v1/openapi/test_document.py).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
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
# A second, in another area: the closures of a unit map at the `/v1/maps/` spelling the
# locations, distance matrices and routes have too.
CLOSURES_ROW = """\
    RestRoute(
        "GET",
        "/v1/maps/{map}/closures",
        "listUnitMapClosures",
        "List the closures in force on a unit map (closures, alias)",
        "closures",
        "ClosureFields",
        Shape.DATA,
        (path("map", "unitMapId"),),
        example=Example({"map": "map-b1"}),
    ),
"""


@dataclass(frozen=True)
class Added:
    """A row added to an area's table, and the route it spells again (its twin)."""

    area: str  # the module of `rest/v1/routes/`
    table: str
    row: str
    path: str
    operation_id: str
    twin_path: str
    twin_operation_id: str
    url: str  # a request of the new path on the demo
    twin_url: str
    flags: tuple[str, ...] = ()


UNITS = Added(
    "reads",
    "READS",
    ROW,
    "/v1/unitmaps/{unitMapId}/units",
    "listUnitmapUnits",
    "/v1/maps/{map}/units",
    "listUnitMapUnits",
    "/v1/unitmaps/map-b1-f1/units?per-page=2",
    "/v1/maps/map-b1-f1/units?per-page=2",
)
CLOSURES = Added(
    "wayfinding",
    "WAYFINDING",
    CLOSURES_ROW,
    "/v1/maps/{map}/closures",
    "listUnitMapClosures",
    "/v1/unitmaps/{unitMapId}/closures",
    "listClosures",
    "/v1/maps/map-b1/closures",
    "/v1/unitmaps/map-b1/closures",
    ("directions",),
)
ADDED = (UNITS, CLOSURES)
DOCS = (ROOT / "docs" / "architecture.md", ROOT / "DEVELOPERS.md")
PACKAGES = ("parsing", "routing", "storage", "resolvers", "schema", "rest")
GENERATE = (sys.executable, ".ci/generate.py")
STALE = "is stale: run `make generate`"

# Run in the copy: the copy's app on the demo's database answers each new path once.
SERVE = """
import asyncio, json, sys
from pathlib import Path
import httpx
import rest
from rest.app import create_app
from schema.execution.running.planned.routes import PLANS
from storage.database import connect
from storage.settings import Settings

async def main(uri, database, data_dir, key, asked):
    settings = Settings(data_dir=Path(data_dir), database_name=database, rate_limit_per_second=0)
    store = connect(uri, settings)
    app = create_app(settings, store, ensure_indexes=False)
    transport = httpx.ASGITransport(app=app)
    answers = []
    async with httpx.AsyncClient(transport=transport, base_url=settings.public_url) as client:
        for url, new, twin, flags in json.loads(asked):
            headers = {"API-Key": key, **({"Experimental-Flags": flags} if flags else {})}
            response = await client.get(url, headers=headers)
            plan, other = PLANS[new], PLANS[twin]
            same = (plan.call, plan.shape, plan.cost) == (other.call, other.shape, other.cost)
            answers.append({
                "planned": same,
                "plan_ran": bool(plan.made),
                "status": response.status_code,
                "body": response.json(),
            })
    await store.close()
    print(json.dumps({"code": rest.__file__, "answers": answers}))

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


def with_row(routes: str, table: str, row: str) -> str:
    """An area's text with `row` added as the last of its table `table`."""
    start = routes.index(f"{table}: tuple[RestRoute, ...] = (\n")
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


async def test_two_rows_and_make_generate_serve_two_new_get_routes(tmp_path, db_server, demo):
    copy = copy_of_the_code(tmp_path / "floorgate")
    for added in ADDED:
        area = copy / "rest" / "v1" / "routes" / f"{added.area}.py"
        before = area.read_text(encoding="utf-8")
        area.write_text(with_row(before, added.table, added.row), encoding="utf-8")
        rows = area.read_text(encoding="utf-8").count("RestRoute(\n")
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
    planned = (copy / "schema" / "execution" / "running" / "planned" / "routes.py").read_text(
        encoding="utf-8"
    )
    for added in ADDED:
        operation = document["paths"][added.path]["get"]
        twin = document["paths"][added.twin_path]["get"]
        assert operation["operationId"] == added.operation_id
        assert schema_of(operation) == schema_of(twin)
        assert f'"{added.operation_id}": PlannedRoute(' in planned
    units = document["paths"][UNITS.path]["get"]
    assert [(p["name"], p["in"]) for p in units["parameters"]] == [
        ("unitMapId", "path"),
        ("page", "query"),
        ("per-page", "query"),
        ("lang", "query"),
        ("Accept-Language", "header"),
        ("If-None-Match", "header"),
    ]
    closures = document["paths"][CLOSURES.path]["get"]
    twin_closures = document["paths"][CLOSURES.twin_path]["get"]
    assert [(p["name"], p["in"]) for p in closures["parameters"]] == [
        ("map" if p["name"] == "unitMapId" else p["name"], p["in"])
        for p in twin_closures["parameters"]
    ]

    expected = []
    for added in ADDED:
        headers = demo.headers(*added.flags)
        existing = await demo.client.get(added.twin_url, headers=headers)
        assert existing.status_code == 200, existing.text
        expected.append(existing.json())
    public = demo.settings.public_url
    paging = expected[0]["paging"]  # the same page but for its link, which names its own path
    assert paging["next_url"] == f"{public}/v1/maps/map-b1-f1/units?page=2&per-page=2"
    paging["next_url"] = f"{public}/v1/unitmaps/map-b1-f1/units?page=2&per-page=2"

    data = tmp_path / "data"
    data.mkdir()
    asked = [
        [added.url, added.operation_id, added.twin_operation_id, ", ".join(added.flags)]
        for added in ADDED
    ]
    served = run(
        copy,
        sys.executable,
        "-c",
        SERVE,
        db_server.uri,
        demo.settings.database_name,
        str(data),
        demo.key,
        json.dumps(asked),
    )
    assert served.returncode == 0, served.stderr
    assert json.loads(served.stdout) == {
        "code": str(copy / "rest" / "__init__.py"),
        "answers": [
            {"planned": True, "plan_ran": True, "status": 200, "body": body} for body in expected
        ],
    }
