"""Group paint in the viewer (issue 34): the paint a Level or layer carries in the parsed
document (docs/svg-parsing.md, "Group paint") is set on the `<g>` the viewer draws, so
its children inherit it as in SVG, as Chromium computes it. Checked on the demo map's
drawing, and with drawing.js on a document made here (a unit without paint of its own
takes its UnitLayer's fill; IMDF drawings rendered black without this).

A unit with holes (issue 35; docs/svg-parsing.md, "Holes"): drawing.js draws it as one
path of its rings filled even-odd, so its courtyard is not part of the unit as Chromium
fills and hit-tests it; a unit without holes stays a polygon."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.chromium import CHROMIUM, MISSING
from tests.e2e.viewer.viewer_site import js, module_page, open_viewer, shared_demo_site

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(CHROMIUM is None, reason=MISSING)]

DOCUMENT = {
    "version": "1.2",
    "type": "application/vnd.map+json",
    "width": 100,
    "height": 100,
    "elements": [
        {
            "type": "Level",
            "uid": "L",
            "name": "L",
            "tags": {},
            "stroke": "#123456",
            "transform": "translate(50 50)",
            "elements": [
                {
                    "type": "UnitLayer",
                    "uid": "units",
                    "fill": "#d6e8fb",
                    "stroke-width": "3",
                    "elements": [
                        {
                            "type": "Unit",
                            "uid": "a",
                            "id": "plain",
                            "shape": {"type": "Rect", "points": "0,0 10,0 10,10 0,10"},
                        },
                        {
                            "type": "Unit",
                            "uid": "b",
                            "id": "own",
                            "shape": {
                                "type": "Rect",
                                "fill": "#fbe4ee",
                                "points": "20,0 30,0 30,10 20,10",
                            },
                        },
                    ],
                },
                {
                    "type": "Layer",
                    "uid": "walls",
                    "name": "walls",
                    "fill": "url(https://example.org/x)",
                    "stroke": "#4b5563",
                    "x": "5",
                    "elements": [{"type": "Line", "uid": "w", "x1": "0", "y1": "0", "x2": "9"}],
                },
            ],
        }
    ],
}


HOLED_DOCUMENT = {
    "version": "1.2",
    "type": "application/vnd.map+json",
    "width": 100,
    "height": 100,
    "elements": [
        {
            "type": "Level",
            "uid": "L",
            "name": "L",
            "tags": {"floor": "f"},
            "elements": [
                {
                    "type": "UnitLayer",
                    "uid": "units",
                    "elements": [
                        {
                            "type": "Unit",
                            "uid": "a",
                            "id": "cloister",
                            "shape": {
                                "type": "Path",
                                "fill": "#d6e8fb",
                                "fill-rule": "nonzero",
                                "points": "0,0 90,0 90,90 0,90",
                                "holes": ["30,30 60,30 60,60 30,60", "70,70 80,70 bad"],
                            },
                        },
                        {
                            "type": "Unit",
                            "uid": "b",
                            "id": "plain",
                            "shape": {"type": "Rect", "points": "92,0 99,0 99,9 92,9"},
                        },
                    ],
                }
            ],
        }
    ],
}


# The worker's shared demo site (tests/e2e/viewer/conftest.py): this module only reads.
site, _close_its_tabs = shared_demo_site()


def test_the_demo_labels_layer_passes_its_paint_to_its_texts(site):
    session = open_viewer(site, map_id="map-b1-f1")
    found = js(
        site,
        session,
        """(() => { const g = document.querySelector('#map g.layer[data-layer="labels"]');
        const text = g.querySelector('text');
        return [g.getAttribute('font-family'), g.getAttribute('text-anchor'),
          getComputedStyle(text).textAnchor, text.getAttribute('text-anchor')]; })()""",
    )
    assert found == ["sans-serif", "middle", "middle", None]


def drawn(site, document: dict, expression: str) -> Any:
    """`expression` (JavaScript, with `svg` and `model` in scope) on `document` drawn by
    the viewer's own map/drawing.js into an `<svg>` of a demo page (its styles; opened
    without a key, its own map not drawn), then removed."""
    session = module_page(site, map_id="map-b1-f1")
    return js(
        site,
        session,
        f"""(async () => {{
        const main = document.querySelector('script[type="module"]').src;
        const {{ drawDocument }} = await import(main.replace(/main\\.js$/, 'map/drawing.js'));
        const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
        document.body.append(svg);
        const model = drawDocument(svg, {json.dumps(document)});
        const result = {expression};
        svg.remove();
        return result; }})()""",
    )


def test_a_layers_paint_reaches_its_children(site):
    found = drawn(
        site,
        DOCUMENT,
        """(() => {
        const fill = (sel) => getComputedStyle(svg.querySelector(sel)).fill;
        const stroke = (sel) => getComputedStyle(svg.querySelector(sel)).stroke;
        const content = svg.querySelector('.level-drawing');
        const walls = svg.querySelector('g[data-layer="walls"]');
        return {
          plain: fill('[data-unit-id="plain"]'), own: fill('[data-unit-id="own"]'),
          plainStroke: stroke('[data-unit-id="plain"]'),
          plainWidth: getComputedStyle(svg.querySelector('[data-unit-id="plain"]')).strokeWidth,
          wall: stroke('line'),
          level: [content.getAttribute('stroke'), content.getAttribute('transform')],
          walls: [walls.getAttribute('fill'), walls.getAttribute('x')],
        }; })()""",
    )
    assert found == {
        "plain": "rgb(214, 232, 251)",
        "own": "rgb(251, 228, 238)",
        "plainStroke": "rgb(18, 52, 86)",
        "plainWidth": "3px",
        "wall": "rgb(75, 85, 99)",
        "level": ["#123456", None],  # never a transform
        "walls": [None, None],  # a url() is no paint; x is no paint
    }


def test_a_unit_with_holes_is_a_path_filled_even_odd(site):
    found = drawn(
        site,
        HOLED_DOCUMENT,
        """(() => {
        const node = svg.querySelector('[data-unit-id="cloister"]');
        const plain = svg.querySelector('[data-unit-id="plain"]');
        const inFill = (x, y) => node.isPointInFill(new DOMPoint(x, y));
        const unit = model.units.get('cloister');
        return {
          tag: node.tagName, rule: node.getAttribute('fill-rule'), d: node.getAttribute('d'),
          fill: node.getAttribute('fill'), cls: node.getAttribute('class'),
          wing: inFill(15, 45), court: inFill(45, 45),
          plain: [plain.tagName, plain.getAttribute('points')],
          holes: unit.holes, centroid: unit.centroid, points: unit.points.length,
        }; })()""",
    )
    assert found == {
        "tag": "path",
        "rule": "evenodd",  # whatever the shape's own rule: its holes are holes
        "d": "M0,0L90,0L90,90L0,90ZM30,30L60,30L60,60L30,60Z",  # the unreadable ring left out
        "fill": "#d6e8fb",
        "cls": "unit",
        "wing": True,
        "court": False,
        "plain": ["polygon", "92,0 99,0 99,9 92,9"],
        "holes": [[[30, 30], [60, 30], [60, 60], [30, 60]]],
        # The area centroid (45, 45) is in the courtyard: the middle of the wider stretch
        # of the line y = 45 that the unit fills, the west wing (0-30) before the east.
        "centroid": [15, 45],
        "points": 4,
    }
