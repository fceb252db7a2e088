"""The colours of an imported venue's drawing (issue 34: every IMDF map rendered black):
each unit and drawn-only space filled by its category from parsing/imdf/palette.py,
walls dark, doors a light gap with a thin line, the groups' paint kept in the parsed
document; and every fill keeps labels (#111827) at WCAG AA contrast."""

from __future__ import annotations

from typing import Any

import pytest

from parsing.imdf import palette
from parsing.imdf.read import read_document
from parsing.imdf.venue import ImdfOptions
from parsing.svg import parse_unit_map
from storage.imdf.dataset import venue_dataset
from tests.venues.old_market import collections, dumps, manifest, old_market


def luminance(colour: str) -> float:
    """WCAG 2.2 relative luminance of `#rrggbb`."""
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_the_contrast_formula_on_known_pairs() -> None:
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#111827", "#ffffff") == pytest.approx(17.74, abs=0.01)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)


@pytest.mark.parametrize("name", sorted(palette.fills()))
def test_labels_meet_wcag_aa_on_every_fill(name: str) -> None:
    assert palette.TEXT == "#111827"
    assert contrast(palette.TEXT, palette.fills()[name]) >= 4.5


def test_every_kind_has_its_own_colour_and_categories_find_theirs() -> None:
    kinds = [fill for fill, _ in palette.KINDS.values()]
    assert len(set(kinds)) == len(kinds) == 15
    assert palette.fill_of("room") == palette.DEFAULT == "#f7f1e6"
    assert palette.fill_of("restroom") == "#d6e8fb"
    assert palette.fill_of("Restroom.Female.Wheelchair") == "#d6e8fb"
    assert palette.fill_of("walkway.island") == palette.fill_of("walkway") == "#eef0f3"
    assert palette.fill_of("elevator") == "#dcdcf8" != palette.fill_of("stairs") == "#e9e3fb"
    assert palette.fill_of("nonpublic") == "#e3e4e8"
    assert palette.fill_of("no such category") == palette.DEFAULT


def drawings() -> tuple[dict[str, Any], dict[str, Any], dict[str, str]]:
    """The Old Market's two levels as parsed documents, and its unit ids by key."""
    venue, units = old_market()
    document: dict[str, Any] = collections(venue)
    document["manifest"] = manifest("en")
    found = venue_dataset(read_document(dumps(document), "v.json"), ImdfOptions())
    ground_id, first_id = (m["id"] for m in found.data["unit_maps"][:2])
    ground = parse_unit_map(found.svgs[ground_id]).document["elements"][0]
    first = parse_unit_map(found.svgs[first_id]).document["elements"][0]
    return ground, first, units


def layers(level: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {layer.get("name", layer["type"]): layer for layer in level["elements"]}


def test_units_are_filled_by_category() -> None:
    ground, _, units = drawings()
    shapes = {unit["id"]: unit["shape"] for unit in layers(ground)["UnitLayer"]["elements"]}
    expected = {
        "S1": ("imdf-retail", "#fbe4ee"),
        "S4": ("imdf-room", "#f7f1e6"),
        "R1": ("imdf-restroom", "#d6e8fb"),
        "R3": ("imdf-restroom.female", "#d6e8fb"),
        "N1": ("imdf-nonpublic", "#e3e4e8"),
        "D1": ("imdf-room", "#f7f1e6"),
    }
    for key, (css_class, fill) in expected.items():
        shape = shapes[units[key]]
        assert (shape["class"], shape["fill"]) == (css_class, fill), key
    assert shapes[units["R1"]]["fill"] != shapes[units["D1"]]["fill"]
    # The hall is a lobby, and a unit of the API (not drawn-only).
    assert (shapes[units["hall"]]["class"], shapes[units["hall"]]["fill"]) == (
        "imdf-lobby",
        "#e4edf6",
    )


def test_groups_keep_their_paint_walls_and_doors_are_visible() -> None:
    ground, first, _ = drawings()
    found = layers(ground)
    paint = {
        name: {key: value for key, value in layer.items() if key not in ("elements", "uid")}
        for name, layer in found.items()
    }
    assert paint["outline"] == {
        "type": "Layer",
        "name": "outline",
        "fill": "#fafaf9",
        "stroke": "#c9c6c1",
        "stroke-width": "4",
    }
    assert paint["UnitLayer"] == {"type": "UnitLayer", "fill": "#f7f1e6", "stroke": "none"}
    assert paint["walls"] == {
        "type": "Layer",
        "name": "walls",
        "fill": "none",
        "stroke": "#4b5563",
        "stroke-width": "3",
        "stroke-linejoin": "round",
    }
    assert paint["openings"]["stroke"] == "#fafaf9"
    assert paint["openings"]["stroke-width"] == "7"
    assert paint["doors"]["stroke"] == "#0f766e"
    assert paint["doors"]["stroke-width"] == "2"
    # One gap and one door line per opening: 5 south shops, 6 north rooms (N2 has none).
    gaps = [line["points"] for line in found["openings"]["elements"]]
    assert len(gaps) == 11
    assert [line["points"] for line in found["doors"]["elements"]] == gaps
    # Level 1's gallery is a drawn-only walkway: a space with its category's colour.
    spaces = layers(first)["spaces"]
    assert spaces["fill"] == "#eef0f3"
    assert [(s["class"], s["fill"]) for s in spaces["elements"]] == [("imdf-walkway", "#eef0f3")]
