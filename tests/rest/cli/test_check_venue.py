"""`floorgate check --venue ASSET [--json]` (issue 65, point 6) as an operator runs it,
a real process on the test database: Gare de l'Est, which has no stairs, lift or
escalator at all, is reported unjoined with the reason, worst first, exit status 1 (an
error); `--json` gives the same report whole; an unknown asset is one line, exit 1;
`--json` alone is refused. The station is the one the session's `osm_places` imported
(`check` only reads); the import's own summary lines are tested with `import-osm` in
tests/rest/cli/test_import_osm.py. Data (c) OpenStreetMap contributors, ODbL."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from routing.imdf.health import NOT_MEASURED, accuracy_lines, health_from_document
from storage.database import Store
from storage.embedded.server import EmbeddedServer
from tests.conftest import OsmPlaces
from tests.rest.cli.test_cli_errors import clean_env, run
from tests.venues.osm_places import CASERNE, STATION, place_dataset

STATION_ID = "gare-de-l-est"


@pytest.fixture
def station(osm_places: OsmPlaces) -> Store:
    """The database holding Gare de l'Est (and the two other places), imported once."""
    return osm_places.store


def env_of(store: Store, db_server: EmbeddedServer, tmp_path: Path) -> dict[str, str]:
    return clean_env(
        tmp_path, FLOORGATE_MONGODB_URI=db_server.uri, FLOORGATE_DATABASE=store.db.name
    )


def test_the_station_is_reported_unjoined_worst_first(
    station: Store, db_server: EmbeddedServer, tmp_path: Path
) -> None:
    done, _ = run(["check", "--venue", STATION_ID], env_of(station, db_server, tmp_path))
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:2] == [
        "error levels-not-joined: 'Level -1' and 'Level 0' (foot, wheelchair): the venue's "
        "data has no stairs, elevator, escalator, ramp or door between levels at all: nothing "
        "joins any two levels",
        "error level-not-joined: level 'Level 0' (ordinal 0) (foot, wheelchair): no stairs, "
        "elevator, escalator, ramp or opening joins it to the other level ('Level -1')",
    ]
    assert lines[2].startswith("warning unreachable [level-cut-off]: ")
    assert (
        "levels 'Level -1' / 'Level 0': on foot NOT joined, by wheelchair NOT joined (nothing)"
        in lines
    )
    assert "route accuracy: not measured" in lines
    assert f"note: {NOT_MEASURED}" in lines
    assert lines[-1].endswith("; 16 tile(s) checked.")
    assert "Traceback" not in done.stderr


def test_json_gives_the_whole_report(
    station: Store, db_server: EmbeddedServer, tmp_path: Path
) -> None:
    env = env_of(station, db_server, tmp_path)
    done, _ = run(["check", "--venue", STATION_ID, "--json"], env)
    assert done.returncode == 1, done.stderr
    report = orjson.loads(done.stdout)
    assert (report["asset_id"], report["worst"], report["parts"]) == (
        STATION_ID,
        "error",
        ["import", "live"],
    )
    assert report["level_pairs"] == [
        {
            "lower": "gare-de-l-est-level-minus-1",
            "lower_name": "Level -1",
            "upper": "gare-de-l-est-level-0",
            "upper_name": "Level 0",
            "foot": False,
            "wheelchair": False,
            "connectors": [],
            "via": [],
        }
    ]
    first = report["findings"][0]
    assert (first["severity"], first["kind"], first["modes"]) == (
        "error",
        "levels-not-joined",
        ["foot", "wheelchair"],
    )
    assert report["accuracy"] is None and report["tiles_checked"] == 16
    assert sum(c["count"] for c in report["counts"]) == len(report["findings"])


def test_an_unknown_asset_and_json_alone_are_refused(
    station: Store, db_server: EmbeddedServer, tmp_path: Path
) -> None:
    env = env_of(station, db_server, tmp_path)
    missing, _ = run(["check", "--venue", "no-such-venue"], env)
    assert (missing.returncode, missing.stdout, missing.stderr) == (
        1,
        "",
        "No asset 'no-such-venue'.\n",
    )
    alone, _ = run(["check", "--json"], env)
    assert (alone.returncode, alone.stderr) == (2, "--json goes with --venue ASSET\n")


def test_the_imports_print_the_summary_and_report_it_whole(tmp_path: Path) -> None:
    """`import-osm` (as `import-imdf`: one code path) prints the counts per kind and the
    worst findings; `--report FILE` holds the import's whole part under `health`."""
    report = tmp_path / "report.json"
    out = tmp_path / "out"
    done, _ = run(
        ["import-osm", str(STATION), "--out", str(out), "--report", str(report)],
        clean_env(tmp_path),
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Health: "))
    # the station's unreachable units follow the converter's rules (docs/osm.md): their
    # count is the in-process conversion's, the rest is written out
    expected = place_dataset(STATION).health
    assert expected is not None
    total = len(expected.findings)
    unreachable = expected.counts()["unreachable"]
    assert lines[start] == (
        f"Health: {total} finding(s), worst error: levels-not-joined 1, level-not-joined 1, "
        f"unreachable {unreachable}, geometry-repaired 1"
    )
    assert lines[start + 1 : start + 3] == [
        "  error levels-not-joined: 'Level -1' and 'Level 0' (foot, wheelchair): the venue's "
        "data has no stairs, elevator, escalator, ramp or door between levels at all: nothing "
        "joins any two levels",
        "  error level-not-joined: level 'Level 0' (ordinal 0) (foot, wheelchair): no stairs, "
        "elevator, escalator, ramp or opening joins it to the other level ('Level -1')",
    ]
    assert lines[start + 6] == f"  ... {total - 5} more: floorgate check --venue gare-de-l-est"
    health = orjson.loads(report.read_bytes())["health"]
    assert (health["parts"], health["worst"], len(health["findings"])) == (
        ["import"],
        "error",
        total,
    )
    assert [f["line"] for f in health["findings"][:5]] == [
        line.strip() for line in lines[start + 1 : start + 6]
    ]


def test_accuracy_is_measured_at_import_when_asked(tmp_path: Path) -> None:
    """`import-osm --accuracy` (as `import-imdf --accuracy`): the summary says the
    route accuracy on the report's seeded sample, the figures `--report FILE` holds (read
    back as a report, not measured again in-process); Caserne is walked within the goals."""
    report = tmp_path / "report.json"
    out = tmp_path / "out"
    command = ["import-osm", str(CASERNE), "--accuracy", "--out", str(out), "--report"]
    done, _ = run([*command, str(report)], clean_env(tmp_path))
    assert done.returncode == 0, done.stderr
    health = orjson.loads(report.read_bytes())["health"]
    measured = health_from_document(health)
    assert measured.accuracy is not None
    line = accuracy_lines(measured.accuracy)[0]
    assert line.startswith("route accuracy: 200 pairs (seed 0), median ")
    assert f"  {line}" in done.stdout.splitlines()  # under the findings, indented
    accuracy = health["accuracy"]
    assert (accuracy["pairs"], accuracy["seed"]) == (200, 0)
    assert accuracy["median"] <= 1.03 and accuracy["p90"] <= 1.08 and accuracy["max"] <= 1.25
