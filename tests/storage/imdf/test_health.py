"""The venue health report kept with its asset (issue 65, point 6): `import_venue` writes
the import's part in the import's own transaction, `venue_health` reads it back and adds
what is found from the stored maps (failing tiles, places listed twice). On Grand'Place
(OpenStreetMap) and Gare de l'Est, which has no connector at all, as the session's
`osm_places` imported them (read only; the one test that removes a stored report puts it
back); the staged import and the bare asset in a staging store of their own, with a short
request budget. Data (c) OpenStreetMap contributors, ODbL."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

import routing.imdf.health_live as health_live
from parsing.imdf.venue import ImdfOptions
from resolvers.limits import MAX_HEALTH_TILES, MAX_TILE_BYTES, MAX_TILE_FEATURES
from routing.imdf.health import ERROR, NOT_MEASURED, HealthReport
from routing.imdf.health_live import LiveChecks, live_checks
from storage import collections as col
from storage.database import Store
from storage.imdf.dataset import import_venue
from storage.imdf.health import stored_health, venue_health
from storage.imports.importer import import_data
from tests.conftest import OsmPlaces
from tests.storage.imports.staged import staging_store
from tests.venues.imdf_shared_ordinals import harbour_station
from tests.venues.osm_places import STATION, place_dataset
from tests.venues.run_cache import shared_venue_dataset

MALL_ID, STATION_ID = "grand-place", "gare-de-l-est"


def checks(index: Any) -> LiveChecks:
    return live_checks(index, MAX_TILE_FEATURES, MAX_TILE_BYTES, MAX_HEALTH_TILES)


@pytest.fixture
def places(osm_places: OsmPlaces) -> Store:
    """Grand'Place and Gare de l'Est (and the Caserne) as imported once per worker."""
    return osm_places.store


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def staged(db_server) -> AsyncIterator[Store]:
    async with staging_store(db_server) as store:  # a short request budget: the staged test
        yield store


async def report_of(store: Store, asset_id: str) -> HealthReport:
    report = await venue_health(store, asset_id, checks)
    assert report is not None
    return report


@pytest.mark.asyncio(loop_scope="session")
async def test_the_import_stores_its_part_with_the_asset(places: Store) -> None:
    stored = await places[col.VENUE_HEALTH].find_one({"_id": STATION_ID})
    assert stored is not None
    assert (stored["asset_id"], stored["report"]["format"]) == (STATION_ID, 1)
    assert stored["report"] == {**stored["report"], "parts": ["import"], "worst": ERROR}
    expected = place_dataset(STATION).health
    assert await stored_health(places, STATION_ID) == expected


@pytest.mark.asyncio(loop_scope="session")
async def test_the_station_is_reported_unjoined_with_its_reason(places: Store) -> None:
    report = await report_of(places, STATION_ID)
    assert report.parts == ("import", "live")
    assert [(p.lower_name, p.upper_name, p.foot, p.wheelchair) for p in report.level_pairs] == [
        ("Level -1", "Level 0", False, False)
    ]
    first = report.findings[0]
    assert first.line() == (
        "error levels-not-joined: 'Level -1' and 'Level 0' (foot, wheelchair): the venue's "
        "data has no stairs, elevator, escalator, ramp or door between levels at all: "
        "nothing joins any two levels"
    )
    assert report.findings[1].line() == (
        "error level-not-joined: level 'Level 0' (ordinal 0) (foot, wheelchair): no stairs, "
        "elevator, escalator, ramp or opening joins it to the other level ('Level -1')"
    )
    assert report.worst() == ERROR
    assert report.tiles_checked > 0
    assert report.notes == (NOT_MEASURED,)


@pytest.mark.asyncio(loop_scope="session")
async def test_the_mall_names_what_joins_its_levels(places: Store) -> None:
    """Each pair of levels with what joins it directly, else the levels between; every
    tile z14-18 over its bounds checked (27, as issue 65 counted them); worst first."""
    report = await report_of(places, MALL_ID)
    assert [(p.lower_name, p.upper_name, p.foot, p.wheelchair) for p in report.level_pairs] == [
        ("Level 0", "Level 1", True, True),
        ("Level 0", "Level 2", True, False),
        ("Level 1", "Level 2", True, False),
    ]
    by_what = [p.by_what() for p in report.level_pairs]
    assert by_what[1] == "through 'Level 1'"
    assert "elevator x" in by_what[0] and "elevator" not in by_what[2]
    assert report.tiles_checked == 27
    assert report.counts()["levels-not-joined"] == 2
    assert report.findings[0].line() == (
        "warning levels-not-joined: 'Level 0' and 'Level 2' (wheelchair): joined on foot "
        "(through 'Level 1'), but no elevator, ramp or step-free door joins them, directly "
        "or through other levels"
    )
    order = ("error", "warning", "note")
    severities = [f.severity for f in report.findings]
    assert severities == sorted(severities, key=order.index)


@pytest.mark.asyncio(loop_scope="session")
async def test_a_tile_that_fails_is_an_error(
    places: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another helper makes tiles never fail; the report must still name one that does."""
    real = health_live.encode_tile
    failures: list[tuple[int, int]] = []

    def failing(index: Any, z: int, x: int, y: int, *rest: Any) -> Any:
        if z == 16:
            failures.append((x, y))
            raise ValueError("TopologyException: side location conflict")
        return real(index, z, x, y, *rest)

    monkeypatch.setattr(health_live, "encode_tile", failing)
    report = await report_of(places, MALL_ID)
    failed = [f for f in report.findings if f.kind == "tile-fails"]
    assert [f.subject for f in failed] == [f"tile 16/{x}/{y}" for x, y in failures]
    assert failures
    assert failed[0].severity == ERROR and report.findings[0].kind == "tile-fails"
    assert failed[0].detail == "ValueError: TopologyException: side location conflict"


@pytest.mark.asyncio(loop_scope="session")
async def test_an_asset_imported_before_the_report_answers_its_live_part(
    places: Store,
) -> None:
    saved = await places[col.VENUE_HEALTH].find_one({"_id": MALL_ID})
    await places[col.VENUE_HEALTH].delete_one({"_id": MALL_ID})
    try:
        report = await report_of(places, MALL_ID)
    finally:
        await places[col.VENUE_HEALTH].insert_one(saved)
    assert report.parts == ("live",)
    assert report.level_pairs == () and report.accuracy is None
    assert report.notes[0].startswith("no stored report: level pairs, unreachable places")
    assert report.tiles_checked > 0
    assert await venue_health(places, "no-such-asset", checks) is None


@pytest.mark.asyncio(loop_scope="session")
async def test_a_staged_import_switches_its_report_in_with_the_venue(
    staged: Store, settings, tmp_path
) -> None:
    """An asset past the transaction limit is staged and switched in: its report is one
    of the switch's writes, replaced with the venue (Harbour Station, limit 20)."""
    cut = shared_venue_dataset(  # converted once per run: test_report_agrees.py's too
        harbour_station(terrace_joined=False).venue.files(), ImdfOptions()
    )
    report = await import_venue(staged, cut, limits=settings.svg_limits, max_documents=20)
    assert report.counts["locations"].inserted > 20  # more than the limit: staged
    asset_id = cut.data["assets"][0]["id"]
    assert await stored_health(staged, asset_id) == cut.health
    assert await staged[col.IMPORT_BATCHES].count_documents({"asset_id": asset_id}) == 0
    full = await report_of(staged, asset_id)
    assert full.worst() == ERROR and full.counts()["levels-not-joined"] == 4


@pytest.mark.asyncio(loop_scope="session")
async def test_an_asset_without_a_georeferenced_map_says_what_was_not_checked(
    staged: Store, tmp_path
) -> None:
    bare = {"assets": [{"id": "bare", "market": "multifamily", "name": "Bare"}]}
    await import_data(staged, bare, tmp_path)
    report = await report_of(staged, "bare")
    assert (report.parts, report.findings, report.tiles_checked) == (("live",), (), 0)
    assert report.notes[1:] == ("no georeferenced map: tiles and places listed twice not checked",)
