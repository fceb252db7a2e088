"""Unreachable units explained (issue 35, point 4): every walked unit that cannot be
reached on foot or by wheelchair is listed with its reason, on the terminal and in
`--report FILE`; E18 refuses the wheelchair route through a lift that opens only onto
steps, and walks it on foot. The reasons themselves, found without a database, are
tested in tests/routing/imdf/test_reachability.py."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
import pytest_asyncio
from pymongo import MongoClient

from parsing.imdf.read import read_archive
from parsing.imdf.venue import ImdfOptions
from resolvers.auth.keys import create_key
from resolvers.auth.permissions import DISTANCES_CALCULATE
from rest.app import create_app
from rest.cli.main import parser
from storage.imdf.dataset import ImdfDataset, import_venue, venue_dataset
from tests._dbserver import fresh_store
from tests.venues.dead_ends import dead_ends
from tests.venues.imdf_venues import Venue

FLAGS = "distances, directions, locations-resource"


def dataset_of(venue: Venue) -> ImdfDataset:
    return venue_dataset(read_archive(venue.files()), ImdfOptions())


def run_cli(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    floorgate = str(Path(sys.executable).with_name("floorgate"))
    return subprocess.run([floorgate, *args], capture_output=True, text=True, timeout=120, env=env)


def write_folder(venue: Venue, folder: Path) -> Path:
    folder.mkdir()
    for name, data in venue.files().items():
        (folder / name).write_bytes(data)
    return folder


# ---------------------------------------------------------------- the command


UNREACHABLE_LINES = [
    "Unreachable from the venue's main part (the largest its entrances open onto): 4 "
    "unit(s) on foot, 4 by wheelchair:",
    "  no-opening (foot, wheelchair): 1, e.g. 'Open Plan' on 'Ground': no opening is drawn "
    "on its outline (an open-plan unit drawn without doors, or doors missing from the "
    "archive)",
    "  only-vehicle-openings (foot, wheelchair): 1, e.g. 'Gallery' on 'Upper': the 3 units "
    "it is among are joined to the rest only through opening {ramp} of 'Car Park' and "
    "'West Stairs' (category automobile): for vehicles, not people",
    "  only-vehicle-openings (foot): 2, e.g. 'West Stairs' on 'Ground': the 3 units it is "
    "among are joined to the rest only through opening {ramp} of 'Car Park' and "
    "'West Stairs' (category automobile): for vehicles, not people",
    "  connector-dead-end (wheelchair): 2, e.g. 'Office' on 'Upper': elevator 'Lift' opens "
    "on 'Upper' only into stairs 'Steps': a wheelchair cannot go on",
]


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    parsed = parser().parse_args(["import-imdf", *args])
    code = parsed.handler(parsed)
    out, err = capsys.readouterr()
    return code, out, err


def test_the_terminal_summary_and_the_report_file(tmp_path, capsys):
    venue, ids = dead_ends()
    folder = write_folder(venue, tmp_path / "venue")
    report = tmp_path / "report.json"
    code, out, err = run(
        [str(folder), "--out", str(tmp_path / "out"), "--report", str(report)], capsys
    )
    assert (code, err) == (0, "")
    lines = out.splitlines()
    start = lines.index(UNREACHABLE_LINES[0])
    expected = [line.format(ramp=ids["ramp"]) for line in UNREACHABLE_LINES]
    assert lines[start : start + 6] == [*expected, f"  see {report} for all 6"]
    assert lines[-1] == f"Report: {report}"
    document = orjson.loads(report.read_bytes())
    assert document["report"] == "floorgate import-imdf" and document["format"] == 1
    assert document["path"] == str(folder)
    assert document["form"] == "folder of IMDF GeoJSON files"
    assert document["outcome"] == {
        "status": "written",
        "message": f"wrote {tmp_path / 'out' / 'dataset.json'}",
        "problems": [],
    }
    assert document["venue"]["name"] == "Dead Ends"
    assert (document["venue"]["levels"], document["venue"]["units"]) == (2, 12)
    assert document["reachability"] == {
        "from": "entrances",
        "entrances": [ids["entrance"]],
        "foot": 4,
        "wheelchair": 4,
        "by_reason": {
            "no-opening": {"foot": 1, "wheelchair": 1},
            "only-vehicle-openings": {"foot": 3, "wheelchair": 1},
            "connector-dead-end": {"foot": 0, "wheelchair": 2},
        },
    }
    gallery = next(e for e in document["unreachable"] if e["name"] == "Gallery")
    [upper] = [f for f in venue.features["level"] if f["properties"]["ordinal"] == 1]
    assert gallery == {
        "unit_id": ids["gallery"],
        "name": "Gallery",
        "level": upper["id"],
        "level_name": "Upper",
        "category": "room",
        "mode": ["foot", "wheelchair"],
        "reason": "only-vehicle-openings",
        "detail": expected[2].split("'Upper': ", 1)[1],
    }
    assert len(document["unreachable"]) == 6
    stairs = min(ids["stairs0"], ids["stairs1"])
    assert document["remarks"] == [
        {
            "kind": "connector-inferred",
            "count": 1,
            "examples": [
                f"stairs {stairs}: units {ids['stairs0']}, {ids['stairs1']} overlap on "
                "adjacent levels and no relationship joins them"
            ],
        }
    ]


def test_a_report_path_that_cannot_be_written_is_refused_before_any_work(tmp_path, capsys):
    """The venue here does not exist: the report's path is refused before it is read."""
    missing_venue = str(tmp_path / "no-venue")
    other = tmp_path / "notes.json"
    other.write_text('{"mine": true}')
    cases = {
        str(other): f"--report {other}: exists and is not an import-imdf report; "
        "give a new path or remove the file",
        str(tmp_path): f"--report {tmp_path}: is a folder; give a file name",
        str(tmp_path / "none" / "r.json"): f"--report {tmp_path / 'none' / 'r.json'}: its "
        f"folder {tmp_path / 'none'} does not exist",
        missing_venue: f"--report {missing_venue}: that is the venue being imported; "
        "give another path",
    }
    for path, line in cases.items():
        code, out, err = run([missing_venue, "--report", path], capsys)
        assert (code, out, err) == (1, "", f"Nothing was imported: {line}\n")
    assert other.read_text() == '{"mine": true}'


def test_a_refused_venue_has_a_report_and_an_earlier_report_is_replaced(tmp_path, capsys):
    report = tmp_path / "report.json"
    report.write_bytes(orjson.dumps({"report": "floorgate import-imdf", "format": 1}))
    missing = tmp_path / "no-venue"
    code, out, err = run([str(missing), "--report", str(report)], capsys)
    assert (code, out) == (1, f"Report: {report}\n")
    assert err == f"Nothing was imported: {missing}: no such file or folder\n"
    assert orjson.loads(report.read_bytes()) == {
        "report": "floorgate import-imdf",
        "format": 1,
        "path": str(missing),
        "outcome": {
            "status": "refused",
            "message": f"{missing}: no such file or folder",
            "problems": [],
        },
    }
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]  # no temporary left


# ---------------------------------------------------------------- E18 on the venue


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def client(db_server, settings) -> AsyncIterator[tuple[httpx.AsyncClient, dict[str, Any]]]:
    venue, ids = dead_ends()
    async with fresh_store(db_server) as store:
        await import_venue(store, dataset_of(venue), limits=settings.svg_limits)
        key = (await create_key(store, "dead-ends", [DISTANCES_CALCULATE], None)).secret
        transport = httpx.ASGITransport(app=create_app(settings, store))
        async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as http:
            headers = {"API-Key": key, "Experimental-Flags": FLAGS}
            stack = venue.features["venue"][0]["id"]
            yield http, {"headers": headers, "stack": stack, **ids}


async def test_e18_refuses_the_wheelchair_through_the_dead_end_lift(client):
    http, ids = client
    stack = ids["stack"]
    shop, office = f"{stack}:{ids['shop']}", f"{stack}:{ids['office']}"
    answers = {}
    for mode in ("foot", "wheelchair"):
        response = await http.post(
            f"/v1/unitmaps/{stack}/route",
            headers=ids["headers"],
            json={"data": {"from": {"id": shop}, "to": {"id": office}, "mode": mode}},
        )
        assert response.status_code == 200, response.text
        answers[mode] = response.json()
    assert answers["wheelchair"]["route"] is None
    assert answers["wheelchair"]["reason"] == (
        "no walk path usable by wheelchair joins the start and the destination"
    )
    legs = answers["foot"]["route"]["legs"]
    assert [leg["connector"]["kind"] for leg in legs if leg["connector"]] == ["elevator"]


def test_the_report_of_an_import_and_of_a_refused_one(tmp_path, db_server):
    database = f"floorgate_cli_unreachable_{uuid.uuid4().hex[:8]}"  # parallel runs apart
    env = {
        **os.environ,
        "FLOORGATE_MONGODB_URI": db_server.uri,
        "FLOORGATE_DATABASE": database,
        "FLOORGATE_DATA_DIR": str(tmp_path),
    }
    venue, _ = dead_ends()
    folder = write_folder(venue, tmp_path / "venue")
    report = tmp_path / "report.json"
    done = run_cli(["import-imdf", str(folder), "--report", str(report)], env)
    assert done.returncode == 0, done.stderr
    outcome = orjson.loads(report.read_bytes())["outcome"]
    assert outcome["status"] == "imported" and outcome["problems"] == []
    assert outcome["message"].startswith("assets: 1 inserted, 0 updated; floors: 2 inserted")
    assert "; units: 4 inserted, 0 updated; " in outcome["message"]
    small = {**env, "FLOORGATE_SVG_MAX_ELEMENTS": "50"}  # every drawing is larger
    refused = run_cli(["import-imdf", str(folder), "--dry-run", "--report", str(report)], small)
    assert refused.returncode == 1
    first, *problems = refused.stderr.splitlines()
    assert first == f"Nothing was imported: {len(problems)} problem(s)." and len(problems) >= 3
    document = orjson.loads(report.read_bytes())
    assert document["outcome"] == {
        "status": "refused",
        "message": f"{len(problems)} problem(s)",
        "problems": problems,
    }
    assert len(document["unreachable"]) == 6  # the venue was read: its report is whole
    with MongoClient(db_server.uri) as client:
        client.drop_database(database)
