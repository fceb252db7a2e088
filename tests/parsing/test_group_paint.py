"""Group paint (docs/svg-parsing.md, "Group paint"): Levels and layers keep the paint
written on their `<g>`, so a renderer of the document alone can let SVG inheritance
paint their children (issue 34: IMDF drawings paint on groups and rendered black).
Groups without paint give the same bytes as before."""

from __future__ import annotations

import orjson

from parsing.parsed_map import document_bytes
from parsing.svg import parse_unit_map
from tests.parsing.test_document import CONVENTIONS_EXAMPLE, EXAMPLE_SVG, svg

INKSCAPE = "http://www.inkscape.org/namespaces/inkscape"


def test_the_conventions_example_has_no_group_paint_and_is_unchanged() -> None:
    assert document_bytes(parse_unit_map(EXAMPLE_SVG)) == orjson.dumps(
        orjson.loads(CONVENTIONS_EXAMPLE)
    )


def test_every_group_kind_keeps_its_paint_before_its_elements() -> None:
    parsed = parse_unit_map(
        svg(
            '<g id="L1" data-level="One" data-tag-floor="f-1" fill="#eee" class="floor">'
            '<g data-layer="units" fill="#fff" stroke="none">'
            '<rect data-unit-id="u-1" width="2" height="2"/></g>'
            '<g data-layer="hit-areas" opacity="0"><rect data-target-id="u-1" width="2" '
            'height="2"/></g>'
            '<g id="walls" fill="none" stroke="#333" stroke-width="3">'
            '<line x1="0" y1="0" x2="5" y2="0"/></g></g>'
        )
    )
    level = parsed.document["elements"][0]
    assert list(level) == ["type", "uid", "name", "tags", "fill", "class", "elements"]
    assert (level["fill"], level["class"], level["tags"]) == ("#eee", "floor", {"floor": "f-1"})
    units, hits, walls = level["elements"]
    assert {key: value for key, value in units.items() if key != "elements"} == {
        "type": "UnitLayer",
        "uid": "e3",
        "fill": "#fff",
        "stroke": "none",
    }
    # The unit's own shape is unchanged: it has no fill of its own.
    assert units["elements"][0]["shape"] == {"type": "Rect", "points": "0,0 2,0 2,2 0,2"}
    assert {key: value for key, value in hits.items() if key != "elements"} == {
        "type": "HitAreaLayer",
        "uid": "e5",
        "opacity": "0",
    }
    assert {key: value for key, value in walls.items() if key != "elements"} == {
        "type": "Layer",
        "uid": "walls",
        "name": "walls",
        "fill": "none",
        "stroke": "#333",
        "stroke-width": "3",
    }


def test_what_a_group_does_not_keep() -> None:
    """Its id (the uid), transform (already in units' points), data-* (roles and tags),
    href, namespaced attributes, and attributes named like the group's own keys."""
    parsed = parse_unit_map(
        svg(
            '<g id="L" data-level="L" data-level-index="2" transform="translate(1 1)" '
            'name="not a name" tags="x" elements="y" type="t" uid="u" inkscape:label="level-x" '
            'style="fill:#abc;stroke-width:2" stroke="#000" fill="#fff">'
            '<g id="plain" data-layer="plain" data-foo="1" transform="scale(2)"/></g>',
            f'width="9" height="9" xmlns:inkscape="{INKSCAPE}"',
        )
    )
    level = parsed.document["elements"][0]
    assert level == {
        "type": "Level",
        "uid": "L",
        "name": "L",
        "tags": {},
        "fill": "#abc",
        "stroke-width": "2",
        "stroke": "#000",
        "elements": [{"type": "Layer", "uid": "plain", "name": "plain", "elements": []}],
    }


def test_a_use_passes_its_paint_to_the_group_it_draws() -> None:
    """As SVG's shadow tree inherits: the use's paint, the group's own winning."""
    parsed = parse_unit_map(
        svg(
            '<defs><g id="tpl" stroke="#111"><rect width="1" height="1"/></g>'
            '<symbol id="sym" viewBox="0 0 2 2" preserveAspectRatio="none" fill="#0a0">'
            '<rect width="1" height="1"/></symbol></defs>'
            '<use id="a" href="#tpl" fill="#f00" stroke="#00f" x="5"/>'
            '<use id="b" href="#sym" width="4" height="4"/>'
        )
    )
    drawn_group, drawn_symbol = parsed.document["elements"][0]["elements"]
    assert {key: value for key, value in drawn_group.items() if key != "elements"} == {
        "type": "Layer",
        "uid": "a",
        "name": "a",
        "fill": "#f00",
        "stroke": "#111",
    }
    assert {key: value for key, value in drawn_symbol.items() if key != "elements"} == {
        "type": "Layer",
        "uid": "b",
        "name": "b",
        "fill": "#0a0",
    }


def test_groups_inside_a_units_layer_still_add_nothing() -> None:
    parsed = parse_unit_map(
        svg(
            '<g data-layer="units"><g fill="#f00"><rect data-unit-id="u-1" width="2" '
            'height="2"/></g></g>'
        )
    )
    layer = parsed.document["elements"][0]["elements"][0]
    assert layer == {
        "type": "UnitLayer",
        "uid": "e2",
        "elements": [
            {
                "type": "Unit",
                "uid": "e4",
                "id": "u-1",
                "shape": {"type": "Rect", "points": "0,0 2,0 2,2 0,2"},
            }
        ],
    }
