"""Where the viewer writes a unit's name (issue 34 point 2), in headless Chromium.

`map/labels.js` puts a label at its unit's pole of inaccessibility, not at the centroid
(which an L-shaped room does not contain), inside its unit where it fits there, else
beside a small marker at the pole (issue 48, point 4), and never over another shown
label. The pole is held to shapely's `polylabel`, the placement to the unit shapes the
page drew."""

from __future__ import annotations

import json

import pytest
from shapely import Point, Polygon
from shapely.ops import polylabel

from tests.chromium import CHROMIUM, MISSING
from tests.e2e.viewer.viewer_site import js, module_page, open_viewer, shared_demo_site

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(CHROMIUM is None, reason=MISSING)]

site, _close_its_tabs = shared_demo_site()

RINGS = {
    # arms 10 wide: the centroid (11, 11) lies outside the room
    "L": [(0, 0), (30, 0), (30, 10), (10, 10), (10, 30), (0, 30)],
    # a U open at the top: the centroid falls in the gap between the arms
    "U": [(0, 0), (40, 0), (40, 30), (30, 30), (30, 8), (10, 8), (10, 30), (0, 30)],
    "square": [(0, 0), (20, 0), (20, 20), (0, 20)],
    "sliver": [(0, 0), (50, 0), (50, 2), (0, 2)],
}

# A cloister: a square room round a courtyard (a hole), whose centre is no place for its name.
CLOISTER = ([(0, 0), (90, 0), (90, 90), (0, 90)], [[(30, 30), (60, 30), (60, 60), (30, 60)]])

POLES = """(async () => {
  const main = document.querySelector('script[type="module"]').src;
  const { poleOf } = await import(main.replace(/main\\.js$/, 'map/labels.js'));
  const rings = %s;
  const found = Object.fromEntries(Object.entries(rings).map(([name, ring]) => {
    const pole = poleOf(ring, 0.01);
    return [name, [pole.x, pole.y, pole.radius]];
  }));
  const [outline, holes] = %s;
  const pole = poleOf(outline, 0.01, holes);
  found.cloister = [pole.x, pole.y, pole.radius];
  return found;
})()"""

# Every shown label of the shown level: its anchor (its place's), how it is placed
# (`inside` its unit, or beside a marker), its box and its unit's outline.
SHOWN = """Array.from(document.querySelectorAll(
    '.level:not(.off) .unit-labels text[data-unit-label]'))
  .filter(t => !t.closest('.off'))
  .map(t => {
    const place = t.closest('.place');
    const anchor = place.getAttribute('transform').match(/-?[0-9.]+/g).map(Number);
    const unit = document.querySelector(
      `.level:not(.off) .unit[data-unit-id="${CSS.escape(t.dataset.unitLabel)}"]`);
    const box = t.getBoundingClientRect();
    const matrix = unit.getScreenCTM();
    const corners = Array.from(unit.points, p => new DOMPoint(p.x, p.y).matrixTransform(matrix));
    return {unit: t.dataset.unitLabel, text: t.textContent,
      anchor, mode: place.dataset.mode,
      points: Array.from(unit.points, p => [p.x, p.y]),
      box: [box.left, box.top, box.right, box.bottom],
      screen: corners.map(p => [p.x, p.y])};
  })"""


def test_the_pole_is_shapelys_polylabel_and_not_the_centroid(site):
    session = module_page(site)  # its labels.js alone: no map drawn
    poles = js(site, session, POLES % (json.dumps(RINGS), json.dumps(CLOISTER)))
    for name, ring in RINGS.items():
        polygon = Polygon(ring)
        x, y, radius = poles[name]
        expected = polylabel(polygon, 0.01)
        inside = polygon.exterior.distance(Point(x, y))
        assert polygon.contains(Point(x, y)), (name, x, y)
        # As far from the walls as polylabel's point, to within the tolerance asked.
        assert inside == pytest.approx(polygon.exterior.distance(expected), abs=0.02), name
        assert radius == pytest.approx(inside, abs=1e-6), name
    assert not Polygon(RINGS["L"]).contains(Polygon(RINGS["L"]).centroid)
    cloister = Polygon(*CLOISTER)
    x, y, radius = poles["cloister"]
    assert cloister.contains(Point(x, y)), (x, y)  # not in the courtyard (45, 45)
    wall = cloister.boundary.distance(Point(x, y))
    assert wall == pytest.approx(cloister.boundary.distance(polylabel(cloister, 0.01)), abs=0.02)
    assert radius == pytest.approx(wall, abs=1e-6)


def test_every_shown_label_sits_inside_its_unit_or_beside_its_marker_and_meets_no_other(site):
    session = open_viewer(site, map_id="map-b1")
    site.browser.drain(0.3)  # placed in the next frame
    shown = js(site, session, SHOWN)
    assert len(shown) >= 10, shown
    assert {label["mode"] for label in shown} <= {"inside", "dot", "icon"}, shown
    boxes = []
    for label in shown:
        unit = Polygon(label["points"])
        # The label's anchor (its marker, when beside one) is inside its unit.
        assert unit.contains(Point(label["anchor"])), label["unit"]
        left, top, right, bottom = label["box"]
        text_box = Polygon([(left, top), (right, top), (right, bottom), (left, bottom)])
        if label["mode"] == "inside":
            # The text's screen box inside the unit's outline on screen (0.5 px for rounding).
            assert Polygon(label["screen"]).buffer(0.5).contains(text_box), label["unit"]
        boxes.append(text_box)
    for n, box in enumerate(boxes):
        for other in boxes[n + 1 :]:
            assert box.intersection(other).area == 0
