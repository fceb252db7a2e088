"""The venue health report built without a database (issue 65, point 6): level pairs
and what joins them on Harbour Station (two levels per ordinal, joined by doors), the
same venue with its Sun Terrace cut off, the reasons of unreachable units as the
reachability gives them, repaired geometry from the import's remarks, places listed
twice and the tile sweep from a tile index, and the stored form read back. The stored
report and its live part through the database are tested in
tests/storage/imdf/test_health.py, the command in tests/rest/cli/test_check_venue.py."""

from __future__ import annotations

from functools import cache

import numpy as np
import shapely

from parsing.geo.tile_features import TileFeature, mercator
from parsing.geo.tiles import TileIndex, build_index, tile_bounds
from parsing.imdf.read import Report, read_archive
from parsing.imdf.venue import ImdfOptions
from routing.imdf.health import (
    ACCURACY_SEED,
    ERROR,
    NOT_MEASURED,
    NOTE,
    WARNING,
    Accuracy,
    AccuracyPair,
    HealthReport,
    accuracy_lines,
    geometry_findings,
    health_document,
    health_from_document,
    summary_lines,
    with_live,
)
from routing.imdf.health_live import failing_tiles, index_geometry, listed_twice, tiles_over
from storage.imdf.dataset import ImdfDataset, venue_dataset
from tests.venues.dead_ends import dead_ends
from tests.venues.imdf_shared_ordinals import harbour_station
from tests.venues.imdf_venues import Venue

BOTH = ("foot", "wheelchair")


@cache
def dataset_of(name: str) -> ImdfDataset:
    venues: dict[str, Venue] = {
        "joined": harbour_station().venue,
        "cut": harbour_station(terrace_joined=False).venue,
        "dead-ends": dead_ends()[0],
    }
    return venue_dataset(read_archive(venues[name].files()), ImdfOptions())


def health(name: str) -> HealthReport:
    report = dataset_of(name).health
    assert report is not None
    return report


def pairs(report: HealthReport) -> list[tuple[str, str, bool, bool, str]]:
    return [
        (p.lower_name, p.upper_name, p.foot, p.wheelchair, p.by_what()) for p in report.level_pairs
    ]


def test_every_pair_of_levels_says_what_joins_it() -> None:
    """Stairs, elevators and the escalator stacked between levels, a door between the
    two levels of ordinal 1 (and the edge the two of ordinal 2 share), else the levels a
    walk goes through."""
    report = health("joined")
    assert pairs(report) == [
        ("Lower Level", "Concourse", True, True, "stairs x1, elevator x1, escalator x1"),
        ("Lower Level", "Sun Terrace", True, True, "stairs x1, elevator x1"),
        ("Lower Level", "Parkway", True, True, "stairs x1, elevator x1"),
        ("Lower Level", "Parkway Deck", True, True, "stairs x1, elevator x1"),
        ("Concourse", "Sun Terrace", True, True, "door x1"),
        ("Concourse", "Parkway", True, True, "stairs x1, elevator x1"),
        ("Concourse", "Parkway Deck", True, True, "through 'Parkway'"),
        ("Sun Terrace", "Parkway", True, True, "through 'Concourse'"),
        ("Sun Terrace", "Parkway Deck", True, True, "stairs x1, elevator x1"),
        ("Parkway", "Parkway Deck", True, True, "door x1"),
    ]
    assert [f.kind for f in report.findings if f.severity == ERROR] == []


def test_a_level_cut_off_is_an_error_with_its_reason() -> None:
    report = health("cut")
    assert [p[:4] for p in pairs(report) if not p[2]] == [
        ("Lower Level", "Sun Terrace", False, False),
        ("Concourse", "Sun Terrace", False, False),
        ("Sun Terrace", "Parkway", False, False),
        ("Sun Terrace", "Parkway Deck", False, False),
    ]
    errors = [f.line() for f in report.findings if f.severity == ERROR]
    assert errors[0] == (
        "error levels-not-joined: 'Lower Level' and 'Sun Terrace' (foot, wheelchair): no "
        "stairs, elevator, escalator, ramp or door joins them, directly or through other levels"
    )
    assert errors[4:] == [
        "error level-not-joined: level 'Sun Terrace' (ordinal 1) (foot, wheelchair): no "
        "stairs, elevator, escalator, ramp or opening joins it to the other levels "
        "('Lower Level', 'Concourse' and 2 more)"
    ]
    assert report.worst() == ERROR
    assert summary_lines(report, "harbour")[0].startswith(
        "Health: 7 finding(s), worst error: levels-not-joined 4, level-not-joined 1, unreachable 2"
    )


def test_unreachable_units_keep_their_reasons() -> None:
    """One finding per unit the reachability lists, its reason code and sentence."""
    dataset = dataset_of("dead-ends")
    report = health("dead-ends")
    reach = dataset.reachability
    assert reach is not None
    found = [
        (f.subject.split(" (")[0], f.level, f.modes, f.reason, f.detail) for f in report.findings
    ]
    assert sorted(found) == sorted(
        (repr(u.name), u.level_name, u.modes, u.reason, u.detail) for u in reach.unreachable
    )
    assert {f.severity for f in report.findings} == {WARNING}
    assert report.worst() == WARNING
    assert ("Ground", "Upper", True, True, "stairs x1, elevator x1") in pairs(report)


def test_repaired_and_dropped_geometry_are_findings() -> None:
    remarks = Report()
    remarks.add("invalid polygon, repaired", "unit-1")
    remarks.add("invalid polygon, repaired", "unit-2")
    remarks.add("unit without a polygon, skipped", "unit-3")
    remarks.add("level without a numeric ordinal, taken as 0", "level-9")  # not geometry
    assert [(f.severity, f.kind, f.subject, f.detail) for f in geometry_findings(remarks)] == [
        (
            NOTE,
            "geometry-repaired",
            "2 features (e.g. unit-1; unit-2)",
            "invalid polygon, repaired",
        ),
        (
            WARNING,
            "geometry-dropped",
            "1 feature (e.g. unit-3)",
            "unit without a polygon, skipped",
        ),
    ]


def _index(features: list[tuple[str, shapely.Geometry, dict[str, str]]]) -> TileIndex:
    projected = [
        TileFeature(layer, shapely.transform(shape, mercator), properties)
        for layer, shape, properties in features
    ]
    return build_index(projected)


def test_places_listed_twice_inside_one_unit_or_on_top_of_each_other() -> None:
    """The clinic case (issue 65, point 3): a room and an amenity of its name inside it;
    two kiosks of one name on one spot; two rooms of one name apart are two places."""
    room = shapely.box(4.35, 50.85, 4.3501, 50.8501)
    index = _index(
        [
            ("units", room, {"id": "u1", "name": "Consultation Rm", "level": "0"}),
            (
                "locations",
                shapely.Point(4.35004, 50.85004),
                {"id": "a", "name": "Consultation Rm", "level": "0"},
            ),
            (
                "locations",
                shapely.Point(4.35006, 50.85006),
                {"id": "b", "name": "consultation  rm", "level": "0"},
            ),
            (
                "locations",
                shapely.Point(4.351, 50.851),
                {"id": "k1", "name": "Kiosk", "level": "0"},
            ),
            (
                "locations",
                shapely.Point(4.351001, 50.851),
                {"id": "k2", "name": "Kiosk", "level": "0"},
            ),
            ("locations", shapely.Point(4.352, 50.852), {"id": "w1", "name": "WC", "level": "0"}),
            ("locations", shapely.Point(4.353, 50.853), {"id": "w2", "name": "WC", "level": "0"}),
            (
                "locations",
                shapely.Point(4.35004, 50.85004),
                {"id": "c", "name": "Consultation Rm", "level": "1"},
            ),
        ]
    )
    found = [(f.kind, f.subject, f.detail) for f in listed_twice(index)]
    assert found == [
        (
            "listed-twice",
            "'Consultation Rm' x2",
            "2 locations of one name inside unit 'Consultation Rm' (u1) (level 0): a, b; "
            "one place should be listed once",
        ),
        (
            "listed-twice",
            "'Kiosk' x2",
            "2 locations of one name within 0.5 m of each other (level 0): k1, k2; one place "
            "should be listed once",
        ),
    ]


def test_the_tile_sweep_covers_every_tile_over_the_bounds() -> None:
    """The tiles of each zoom swept are exactly those whose square meets the bounds
    (Grand'Place's, about), found by testing every tile of a window around them."""
    bounds = (4.3520, 50.8466, 4.3540, 50.8476)
    west_south, east_north = mercator(np.array([bounds[:2], bounds[2:]]))
    area = shapely.box(*west_south, *east_north)
    for z in range(14, 19):
        swept = tiles_over(bounds, z)
        x0, y0 = min(swept)
        window = [(x, y) for x in range(x0 - 2, x0 + 12) for y in range(y0 - 2, y0 + 12)]
        meets = [t for t in window if shapely.box(*tile_bounds(z, *t)).intersects(area)]
        assert swept == meets
    assert len(tiles_over(bounds, 14)) == 2  # the bounds straddle two rows at z14


def test_the_sweep_encodes_only_tiles_meeting_a_feature_and_stops_at_its_limit() -> None:
    """Two small rooms 20 km apart east-west (a feature drawn far off, as real data has):
    the bounds hold 606 tiles z14-18 (one row each), the sweep encodes only the 12 that
    meet a room (found here by testing each of the 606), and a lower limit stops it with a
    note, lowest zoom first."""
    rooms = [
        shapely.box(4.3501, 50.8501, 4.3502, 50.8502),
        shapely.box(4.6301, 50.8501, 4.6302, 50.8502),
    ]
    index = _index([("units", room, {"id": f"r{i}", "level": "0"}) for i, room in enumerate(rooms)])
    assert index.bounds is not None
    zooms = range(14, 19)
    over = [(z, x, y) for z in zooms for x, y in tiles_over(index.bounds, z)]
    meeting = [
        tile
        for tile in over
        if any(shapely.box(*tile_bounds(*tile)).intersects(f.geometry) for f in index.features)
    ]
    assert (len(over), len(meeting)) == (606, 12)
    assert failing_tiles(index, 1_000, 1 << 20, 1_024) == ([], 12, [])
    assert failing_tiles(index, 1_000, 1 << 20, 3) == (
        [],
        3,
        ["tiles: only the first 3 checked (z14 first)"],
    )


def test_the_stored_form_reads_back_and_a_report_without_it_says_so() -> None:
    report = health("cut")
    assert health_from_document(health_document(report)) == report
    document = health_document(report)
    assert document["worst"] == ERROR
    assert document["counts"] == [
        {"kind": "levels-not-joined", "count": 4},
        {"kind": "level-not-joined", "count": 1},
        {"kind": "unreachable", "count": 2},  # the terrace's kiosk and lawn: no route
    ]
    alone = with_live(None, [], 12)
    assert (alone.parts, alone.tiles_checked, alone.level_pairs) == (("live",), 12, ())
    assert alone.notes[0].startswith("no stored report")
    assert summary_lines(alone) == ["Health: no findings"]


def test_the_accuracy_section_prints_its_figures_and_worst_pairs() -> None:
    accuracy = Accuracy(
        3, 1.02, 1.05, 1.31, 0, (AccuracyPair("Café", "Gate A", "map-1", 13.1, 10.0),)
    )
    assert accuracy_lines(accuracy) == [
        "route accuracy: 3 pairs (seed 0), median 1.020, p90 1.050, max 1.310",
        "  1.310 'Café' - 'Gate A' (map-1): 13.1 m routed, 10.0 m exact",
    ]
    assert accuracy_lines(None) == ["route accuracy: not measured"]


def test_the_import_measures_route_accuracy_only_when_asked() -> None:
    """`ImdfOptions(accuracy=True)` (`--accuracy` of import-imdf and import-osm): the
    report's section holds the exact-walk reference's figures on its seeded sample
    (Harbour Station: 5 pairs, each level's rooms), stored and read back; without it the
    section is null and the report says how to measure it."""
    files = harbour_station().venue.files()
    plain = venue_dataset(read_archive(files), ImdfOptions())
    assert plain.health is not None and plain.health.accuracy is None
    assert with_live(plain.health, [], 0).notes == (NOT_MEASURED,)
    dataset = venue_dataset(read_archive(files), ImdfOptions(accuracy=True))
    report = dataset.health
    assert report is not None and report.accuracy is not None
    accuracy = report.accuracy
    assert (accuracy.pairs, accuracy.seed, len(accuracy.worst)) == (5, ACCURACY_SEED, 5)
    figures = [round(value, 4) for value in (accuracy.median, accuracy.p90, accuracy.max)]
    assert figures == [1.0006, 1.0009, 1.0009]
    worst = accuracy.worst[0]
    assert (worst.source, worst.target, worst.map_id in dataset.svgs) == (
        "Ticket Office",
        "Room 1",
        True,
    )
    assert (round(worst.route_m, 2), round(worst.exact_m, 2)) == (17.38, 17.36)
    line = "route accuracy: 5 pairs (seed 0), median 1.001, p90 1.001, max 1.001"
    assert accuracy_lines(accuracy)[0] == line
    assert health_from_document(health_document(report)) == report
    assert summary_lines(report) == ["Health: no findings", line]
    assert with_live(report, [], 0).notes == ()


def test_geometry_the_tile_index_mended_or_left_out_is_found_when_asked() -> None:
    """A map's GeoJSON stored before imports made polygons valid: the tile index repairs
    a bow-tie and leaves out a polygon with no area; the report names both."""
    bow_tie = shapely.Polygon([(4.35, 50.85), (4.3501, 50.8501), (4.3501, 50.85), (4.35, 50.8501)])
    flat = shapely.Polygon([(4.351, 50.851), (4.3511, 50.851), (4.3512, 50.851)])
    index = _index(
        [
            ("units", bow_tie, {"id": "bow", "name": "Bow", "level": "0"}),
            ("units", flat, {"id": "flat", "name": "Flat", "level": "0"}),
        ]
    )
    assert (index.repaired, index.left_out) == (("units:bow",), ("units:flat",))
    assert [f.line() for f in index_geometry(index)] == [
        "note geometry-repaired: 1 feature of the stored maps (e.g. units:bow): invalid "
        "geometry in a map's stored GeoJSON, made valid by the tiles; importing the venue "
        "again stores it valid",
        "warning geometry-dropped: 1 feature of the stored maps (e.g. units:flat): invalid "
        "geometry in a map's stored GeoJSON, left out of the tiles: nothing valid left; "
        "importing the venue again stores it valid",
    ]
