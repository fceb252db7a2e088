"""Every polygon an IMDF drawing writes is valid as written (issue 65, points 1 and 2):
checked after rounding to the drawing's 3 decimals, repaired there or left out, and a
unit of several parts drawn whole (its largest part the unit, the rest as space), each
named in the import report. Read back as the parser and the GeoJSON read them."""

from __future__ import annotations

from functools import cache

import pytest
import shapely
from lxml import etree
from shapely.geometry import Polygon

from parsing.geo.drawn import DrawnReader
from parsing.imdf.drawing import PARTS_KIND, left_out_kind, repaired_kind
from parsing.imdf.projection import Canvas
from parsing.imdf.read import read_archive
from parsing.imdf.venue import ImdfOptions, Venue
from parsing.svg import parse_unit_map
from storage.imdf.dataset import ImdfDataset, venue_dataset
from tests.venues.fine_folds import fine_folds
from tests.venues.osm_places import MALL, place_dataset
from tests.venues.westport_imdf import westport

SVG = "{http://www.w3.org/2000/svg}"
CANVAS = Canvas.around((0.0, 0.0, 1.0, 1.0))  # the kinds name the default scale's grid
UNITS_PER_M2 = 400  # canvas units² in a square metre (5 cm units)


def drawn_polygons(svg: str) -> list[tuple[str, str, Polygon]]:
    """(layer, unit id or class, polygon) of every outline, space and unit element, read
    as the parser reads an element's outline and holes (docs/svg-parsing.md, "Holes")."""
    reader = DrawnReader()
    found = []
    for layer in etree.fromstring(svg.encode()).iter(f"{SVG}g"):
        name = layer.get("id") or layer.get("data-layer")
        if name not in ("outline", "spaces", "units"):
            continue
        for element in layer:
            tag = etree.QName(element).localname
            if tag == "polygon":
                area = reader.area({"type": "Polygon", "points": element.get("points")})
            else:
                assert tag == "path", tag
                given = {"type": "Path", "d": element.get("d")}
                area = reader.area({**given, "fill-rule": element.get("fill-rule")})
            assert area is not None
            what = element.get("data-unit-id") or element.get("class") or name
            found.append((name, what, Polygon(*area)))
    return found


def invalid(dataset: ImdfDataset) -> list[tuple[str, str, str]]:
    return [
        (map_id, what, shapely.is_valid_reason(polygon))
        for map_id, svg in dataset.svgs.items()
        for _, what, polygon in drawn_polygons(svg)
        if not polygon.is_valid
    ]


@cache
def folds() -> ImdfDataset:
    return venue_dataset(read_archive(fine_folds().venue.files()), ImdfOptions())


@cache
def westport_dataset() -> ImdfDataset:
    return venue_dataset(read_archive(westport().venue.files()), ImdfOptions())


def test_polygons_valid_in_metres_are_drawn_valid_once_rounded() -> None:
    built = fine_folds()
    venue = Venue(read_archive(built.venue.files()), ImdfOptions())
    spike, hole, hairline = (built.units[key] for key in ("spike", "hole-near", "hairline"))
    assert all(venue.units[unit].shape.is_valid for unit in (spike, hole, hairline))
    dataset = folds()
    assert invalid(dataset) == []
    stack = dataset.svgs[dataset.stack_map]
    units = {what: polygon for layer, what, polygon in drawn_polygons(stack) if layer == "units"}
    assert units[spike].area == pytest.approx(100 * UNITS_PER_M2, rel=1e-4)
    assert units[hole].area == pytest.approx(88 * UNITS_PER_M2, rel=1e-4)
    assert not units[hole].interiors  # the hole met its wall: a notch, of the same area
    assert hairline not in units  # no area left on the grid
    parsed = {unit.id: unit for unit in parse_unit_map(stack).units}
    assert Polygon(parsed[spike].points).is_valid
    assert Polygon(parsed[hole].points, parsed[hole].holes).is_valid
    report = dataset.report
    assert report.counts[repaired_kind(CANVAS)] == 2
    assert sorted(report.examples[repaired_kind(CANVAS)]) == sorted(
        [f"{spike}: ring self-intersection", f"{hole}: self-intersection"]
    )
    assert report.examples[left_out_kind(CANVAS)] == [
        f"{hairline}: too few points in geometry component"
    ]
    assert repaired_kind(CANVAS).startswith("invalid polygon once drawn to 0.05 mm, repaired")


def test_a_bowtie_room_is_drawn_with_both_triangles() -> None:
    bowtie = fine_folds().units["bowtie"]
    dataset = folds()
    stack = dataset.svgs[dataset.stack_map]
    drawn = drawn_polygons(stack)
    (unit,) = [polygon for layer, what, polygon in drawn if what == bowtie]
    rooms = [p for layer, what, p in drawn if layer == "spaces" and what == "imdf-room"]
    assert len(rooms) == 1  # the other triangle, drawn as a room-coloured space
    assert unit.area == pytest.approx(25 * UNITS_PER_M2, rel=1e-3)
    assert unit.area + rooms[0].area == pytest.approx(50 * UNITS_PER_M2, rel=0.01)
    assert unit.intersection(rooms[0]).area == 0
    assert dataset.report.examples[PARTS_KIND] == [
        f"{bowtie}: 2 parts, 25.00 of 50.00 m² drawn as space"
    ]
    assert dataset.report.examples["invalid polygon, repaired"] == [bowtie]
    assert dataset.health is not None  # the venue health report warns of it
    findings = [(f.kind, f.detail) for f in dataset.health.findings]
    assert ("geometry-dropped", PARTS_KIND) in findings
    assert ("geometry-dropped", left_out_kind(CANVAS)) in findings
    assert ("geometry-repaired", repaired_kind(CANVAS)) in findings
    (parsed,) = [unit for unit in parse_unit_map(stack).units if unit.id == bowtie]
    assert Polygon(parsed.points).area == pytest.approx(unit.area)


def test_westport_is_drawn_valid_and_keeps_every_unit() -> None:
    dataset = westport_dataset()
    assert invalid(dataset) == []
    report = dataset.report
    assert report.counts[repaired_kind(CANVAS)] == 5
    assert report.counts["invalid polygon, repaired"] == 7
    # The walkway GEOS repaired into a collection is kept (it was skipped as polygonless).
    assert "unit without a polygon, skipped" not in report.counts
    assert dataset.counts["units"] == sum(1 for _ in westport().venue.features["unit"])


def test_grand_place_walkways_and_outlines_are_drawn_valid() -> None:
    dataset = place_dataset(MALL)
    assert invalid(dataset) == []
    assert dataset.report.counts[repaired_kind(CANVAS)] == 3
    assert dataset.report.examples[repaired_kind(CANVAS)] == [
        "grand-place-level-0 outline: self-intersection",
        "grand-place-level-1 outline: self-intersection",
        "grand-place-footways-level-1-4: self-intersection",
    ]
