"""The lenient IMDF reader and the local plane (parsing.imdf.read, parsing.imdf.projection)."""

from __future__ import annotations

import math

import orjson
import pytest

from parsing.imdf.labels import label
from parsing.imdf.projection import Canvas, LocalPlane
from parsing.imdf.read import ImdfError, Report, feature_type_of, read_archive


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("unit.geojson", "unit"),
        ("IMDF/Units.json", "unit"),
        ("x/AMENITIES.geojson", "amenity"),
        ("addresses.json", "address"),
        ("manifest.json", None),
        ("notes.txt", None),
        ("units.geojson.bak", None),
    ],
)
def test_feature_type_of_a_file_name(name, kind):
    assert feature_type_of(name) == kind


def test_labels_by_language_with_fallbacks():
    value = {"en-US": "Lobby", "fr": "Hall"}
    assert label(value, ("fr", "en")) == "Hall"
    assert label(value, ("de", "en")) == "Lobby"  # `en` finds `en-US`
    assert label(value, ("de",)) == "Lobby"  # else the first language
    report = Report()
    assert label("Lobby", ("en",), report) == "Lobby"
    assert report.counts == {"label is a plain string, not a language map": 1}
    assert label({}, ("en",)) is None and label(None, ("en",)) is None


def test_departures_are_read_and_counted():
    unit = {
        "id": "u1",
        "type": "Feature",
        "geometry": {"type": "Point", "coordinates": [1.0, 2.0, 30.0]},
        "properties": {"levelId": "l1", "displayPoint": None},
    }
    files = {
        "a/Units.json": orjson.dumps([unit, {**unit}, {"type": "Feature", "properties": {}}]),
        "fixture.geojson": b"{not json",  # a file no part of the import reads
        "extra.json": b"{}",
    }
    archive = read_archive(files)
    (found,) = archive.of("unit")
    assert found.geometry == {"type": "Point", "coordinates": [1.0, 2.0]}
    assert found.properties == {"level_id": "l1", "display_point": None}
    assert dict(archive.report.counts) == {
        "array in place of a FeatureCollection": 1,
        "file name not as the standard writes it": 1,
        "3-D coordinates, altitude dropped": 2,
        "property spelled otherwise, read": 4,
        "feature without an id, skipped": 1,
        "repeated id, later feature skipped": 1,
        "file is not JSON, skipped": 1,
        "file not an IMDF feature type, skipped": 1,
    }
    assert archive.report.lines()[0].startswith("property spelled otherwise, read: 4 (e.g. ")


@pytest.mark.parametrize(
    ("name", "data", "why"),
    [
        ("unit.geojson", b"[1, NaN]", "not JSON (unexpected character, expected a JSON value"),
        ("IMDF/Openings.json", b"[" * 65 + b"]" * 65, "arrays and objects nested deeper than 64"),
        ("level.geojson", b'"levels"', "JSON, but a str that is not a FeatureCollection, an"),
        ("anchor.geojson", b'{"type": "FeatureCollection"}', "a FeatureCollection without a"),
        ("manifest.json", b"[]", "JSON, but a list, not the manifest's object"),
    ],
)
def test_a_file_the_import_needs_that_cannot_be_read_is_an_error(name, data, why):
    """Skipped, such a file once imported the venue without its units (issue 45)."""
    files = {"venue.geojson": b'{"type": "FeatureCollection", "features": []}', name: data}
    with pytest.raises(ImdfError) as refused:
        read_archive(files, source="/data/venue")
    assert str(refused.value).startswith(f"/data/venue: {name}: {why}")


def test_the_plane_is_metres_and_the_canvas_goes_back():
    plane = LocalPlane(2.2945, 48.8584)
    x, y = plane.point(2.2945 + 0.001, 48.8584)
    assert x == pytest.approx(111_320 * math.cos(math.radians(48.8584)) * 0.001, rel=3e-3)
    assert abs(y) < 0.01
    lon, lat = plane.lon_lat(x, y)
    assert (lon, lat) == (pytest.approx(2.2955, abs=1e-10), pytest.approx(48.8584, abs=1e-10))
    canvas = Canvas.around((-10.0, -5.0, 30.0, 20.0))
    assert (canvas.width, canvas.height) == (1201, 901)
    u, v = canvas.xy(0.0, 0.0)
    assert canvas.plane(u, v) == (pytest.approx(0.0), pytest.approx(0.0))
    assert v > canvas.xy(0.0, 10.0)[1]  # y down
