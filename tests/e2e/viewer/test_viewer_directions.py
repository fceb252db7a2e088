"""The viewer's directions in headless Chromium against `floorgate serve` on the demo
(issue 34, points 2, 4, 5 and 10): a route opens on its origin's level with the first leg
in view, its steps are the API's maneuvers, a step shows its level and centres on it,
distances follow the locale and the units toggle, route markers keep their size on
screen, and the unit card shows each attribute value in the legend's colour."""

from __future__ import annotations

import itertools
import json
import math
from typing import Any
from urllib.parse import quote

import pytest

from tests.chromium import CHROMIUM, MISSING, open_tab, wait_until
from tests.e2e.viewer.viewer_site import (
    ASSIGNMENTS,
    DESKTOP,
    MAP,
    Site,
    click,
    js,
    open_viewer,
    problems,
    shared_demo_site,
    shown_level,
    view_box,
    wait_for,
)

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(CHROMIUM is None, reason=MISSING)]

START, END = f"{MAP}:b1-104", f"{MAP}:b1-307"  # Floor 1 to Floor 3 by the stairs
TRIP = f"?from=loc%3A{quote(START)}&to=loc%3A{quote(END)}"
BACK = f"?from=loc%3A{quote(END)}&to=loc%3A{quote(START)}"
METRES_PER_FOOT = 0.3048
ROUTE = """query($from: WaypointInput!, $to: WaypointInput!, $mode: String, $units: String) {
  route(unitMapId: "map-b1", from: $from, to: $to, mode: $mode, units: $units) {
    route { distance time steps legs { levelUid distance points { x y } }
      maneuvers { type modifier location { x y } legIndex distance instruction
        connector { kind } } } } }"""
READY = "document.getElementById('directions').dataset.state === 'ready'"
STEPS = """Array.from(document.querySelectorAll('#route-steps button.step'), b => ({
  index: Number(b.dataset.maneuver), type: b.dataset.type, modifier: b.dataset.modifier || null,
  icons: Array.from(b.querySelectorAll('svg.step-icon'), i => i.dataset.icon),
  text: b.querySelector('.step-text').textContent,
  distance: (b.querySelector('.step-distance') || {}).textContent || null,
  tabindex: b.getAttribute('tabindex')}))"""


site, _close_its_tabs = shared_demo_site()


# ---------------------------------------------------------------- helpers


def route_of(
    site: Site, start: str, end: str, units: str = "imperial", lang: str = "en"
) -> dict[str, Any]:
    """The route as the viewer asks it: in `units`, in the page's language `lang`."""
    variables = {"from": {"id": start}, "to": {"id": end}, "mode": "foot", "units": units}
    answer = site.api.post(f"/graphql?lang={lang}", json={"query": ROUTE, "variables": variables})
    body = answer.json()
    assert "errors" not in body, body
    return body["data"]["route"]["route"]


def whole(value: float) -> int:
    """Python's round (half to even), as the viewer documents and the API's texts round."""
    return round(value)


def feet(value: float) -> str:
    return f"{whole(value):,} ft"


def metres(value: float) -> str:
    return f"{whole(value * METRES_PER_FOOT):,} m"


def expected_icon(maneuver: dict[str, Any]) -> str:
    if maneuver["type"] == "turn":
        return "turn-" + maneuver["modifier"].replace(" ", "-")
    if maneuver["type"] == "connector":
        return f"connector-{maneuver['connector']['kind']}"
    return maneuver["type"]


def view_centre(site: Site, session: str) -> tuple[float, float]:
    x, y, w, h = view_box(site, session)
    return x + w / 2, y + h / 2


def press(site: Site, session: str, key: str, code: str | None = None) -> None:
    """A real key press (keyDown and keyUp) to the focused element."""
    codes = {"Enter": 13, "ArrowDown": 40, "ArrowUp": 38, "Tab": 9, "End": 35, "Home": 36}
    for kind in ("keyDown", "keyUp"):
        event = {
            "type": kind,
            "key": key,
            "code": code or key,
            "windowsVirtualKeyCode": codes[key],
        }
        if key == "Enter" and kind == "keyDown":
            event["text"] = "\r"
        site.browser.call("Input.dispatchKeyEvent", event, session=session)


def open_in_locale(site: Site, query: str, locale: str) -> str:
    """The viewer in a tab whose browser language is `locale` (navigator.language)."""
    session = open_tab(site.browser)
    width, height = DESKTOP
    site.browser.call(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        session=session,
    )
    site.browser.call("Emulation.setLocaleOverride", {"locale": locale}, session=session)
    site.browser.call(
        "Emulation.setUserAgentOverride",
        {"userAgent": js(site, session, "navigator.userAgent"), "acceptLanguage": locale},
        session=session,
    )
    url = f"{site.base}/viewer/maps/{MAP}{query}#key={quote(site.key)}"
    site.browser.call("Page.navigate", {"url": url}, session=session)
    state = wait_until(
        site.browser, session, "document.body && document.body.dataset.state === 'ready'", 20
    )
    assert state, js(site, session, "document.getElementById('status').textContent")
    return session


# ---------------------------------------------------------------- the tests


@pytest.mark.parametrize(("query", "start", "end"), [(TRIP, START, END), (BACK, END, START)])
def test_a_two_level_route_opens_on_the_origins_level_with_its_first_leg_in_view(
    site, query, start, end
):
    route = route_of(site, start, end)
    levels = [leg["levelUid"] for leg in route["legs"]]
    assert len(set(levels)) == 2 and levels[0] != levels[-1]
    session = open_viewer(site, query)
    wait_for(site, session, READY)
    assert shown_level(site, session) == [levels[0]]
    x, y, w, h = view_box(site, session)
    points = [(p["x"], p["y"]) for p in route["legs"][0]["points"]]
    assert all(x <= px <= x + w and y <= py <= y + h for px, py in points), (points, x, y, w, h)
    # fitted to the leg, not the whole level: the leg spans a good part of the view
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    assert max((max(xs) - min(xs)) / w, (max(ys) - min(ys)) / h) >= 0.5
    search = js(site, session, "location.search")
    assert search.startswith(f"?level={levels[0]}&from=") and "&box=" in search
    assert (
        js(
            site,
            session,
            "document.querySelector('.route-marker[data-end=\"from\"]')"
            ".closest('.level').dataset.levelUid",
        )
        == levels[0]
    )
    assert problems(site, session) == []


def test_a_link_with_a_level_keeps_it(site):
    """`level` in the link: the route opens there, nothing fitted (the link's view)."""
    session = open_viewer(site, f"?level=level-b1-f3&{TRIP[1:]}")
    wait_for(site, session, READY)
    assert shown_level(site, session) == ["level-b1-f3"]
    assert "box=" not in js(site, session, "location.search")


def test_the_steps_are_the_maneuvers_and_each_shows_its_place(site):
    route = route_of(site, START, END)
    maneuvers = route["maneuvers"]
    session = open_viewer(site, TRIP)
    wait_for(site, session, READY)
    steps = js(site, session, STEPS)
    assert [(s["index"], s["type"], s["modifier"]) for s in steps] == [
        (i, m["type"], m["modifier"]) for i, m in enumerate(maneuvers)
    ]
    assert [s["icons"] for s in steps] == [[expected_icon(m)] for m in maneuvers]
    assert [s["text"] for s in steps] == [m["instruction"] for m in maneuvers] == route["steps"]
    assert [s["distance"] for s in steps] == [
        feet(m["distance"]) if whole(m["distance"]) else None for m in maneuvers
    ]
    assert {m["type"] for m in maneuvers} >= {"depart", "turn", "connector", "arrive"}
    # one tab stop for the whole list
    assert [s["tabindex"] for s in steps] == ["0"] + ["-1"] * (len(steps) - 1)
    assert (
        js(site, session, "document.querySelectorAll('#route-steps [tabindex=\"0\"]').length") == 1
    )

    for index in (len(maneuvers) - 1, 0):  # the arrival (Floor 3), then the start (Floor 1)
        maneuver = maneuvers[index]
        click(site, session, f'#route-steps button.step[data-maneuver="{index}"]')
        level = route["legs"][maneuver["legIndex"]]["levelUid"]
        assert shown_level(site, session) == [level]
        cx, cy = view_centre(site, session)
        assert abs(cx - maneuver["location"]["x"]) <= 1 and abs(cy - maneuver["location"]["y"]) <= 1
        marker = js(
            site,
            session,
            """(() => { const m = document.querySelector('.route-marker.step-marker');
            return [m.dataset.maneuver, m.closest('.level').dataset.levelUid,
            Number(m.dataset.x), Number(m.dataset.y), m.textContent]; })()""",
        )
        location = maneuver["location"]
        assert marker == [str(index), level, location["x"], location["y"], str(index + 1)]
        current = "document.querySelector('#route-steps [aria-current=\"step\"]').dataset.maneuver"
        assert js(site, session, current) == str(index)

    # keyboard: the list is one stop; arrows move, Enter shows the step
    js(site, session, "document.querySelector('#route-steps [tabindex=\"0\"]').focus()")
    press(site, session, "ArrowDown")
    assert js(site, session, "document.activeElement.dataset.maneuver") == "1"
    press(site, session, "End")
    last = str(len(maneuvers) - 1)
    assert js(site, session, "document.activeElement.dataset.maneuver") == last
    press(site, session, "Enter")
    maneuver = maneuvers[-1]
    assert shown_level(site, session) == [route["legs"][maneuver["legIndex"]]["levelUid"]]
    cx, cy = view_centre(site, session)
    assert abs(cx - maneuver["location"]["x"]) <= 1 and abs(cy - maneuver["location"]["y"]) <= 1
    focusable = """Array.from(document.querySelectorAll('#route-steps button'))
        .filter(b => b.tabIndex >= 0).length"""
    assert js(site, session, focusable) == 1
    press(site, session, "Tab")
    assert js(site, session, "document.activeElement.closest('#route-steps') === null")
    assert problems(site, session) == []


def distances_shown(site: Site, session: str) -> dict[str, Any]:
    return js(
        site,
        session,
        """({summary: document.getElementById('route-summary').textContent.split(' · ')[0],
        legs: Array.from(document.querySelectorAll('#route-legs button'), b =>
            b.textContent.split(': ')[1].split(',')[0]),
        steps: Array.from(document.querySelectorAll('#route-steps button.step'), b =>
            (b.querySelector('.step-distance') || {}).textContent || null),
        texts: Array.from(document.querySelectorAll('#route-steps .step-text'),
            t => t.textContent),
        button: document.getElementById('route-units').textContent,
        units: document.getElementById('directions').dataset.units})""",
    )


def expected_distances(route: dict[str, Any], units: str, texts: list[str]) -> dict[str, Any]:
    write = metres if units == "m" else feet
    number = (lambda f: whole(f * METRES_PER_FOOT)) if units == "m" else whole
    return {
        "summary": write(route["distance"]),
        "legs": [write(leg["distance"]) for leg in route["legs"]],
        "steps": [
            write(m["distance"]) if number(m["distance"]) else None for m in route["maneuvers"]
        ],
        "texts": texts,
        "button": units,
        "units": units,
    }


def test_the_units_toggle_switches_feet_and_metres(site):
    imperial = route_of(site, START, END)
    metric = route_of(site, START, END, "metric")
    session = open_viewer(site, TRIP)
    wait_for(site, session, READY)
    assert js(site, session, "navigator.language") == "en-US"
    assert distances_shown(site, session) == expected_distances(imperial, "ft", imperial["steps"])
    fitted = view_box(site, session)
    click(site, session, "#route-units")
    wait_for(
        site, session, READY + " && document.getElementById('directions').dataset.units === 'm'"
    )
    shown = distances_shown(site, session)
    assert shown == expected_distances(imperial, "m", metric["steps"])
    assert any(" m" in text for text in shown["texts"])  # the API's sentences, in metres
    assert "&units=m" in js(site, session, "location.search")
    assert view_box(site, session) == fitted  # the same trip: the view stays
    click(site, session, "#route-units")
    wait_for(
        site, session, READY + " && document.getElementById('directions').dataset.units === 'ft'"
    )
    assert distances_shown(site, session) == expected_distances(imperial, "ft", imperial["steps"])
    assert "&units=ft" in js(site, session, "location.search")
    assert problems(site, session) == []


def test_a_metric_locale_opens_in_metres(site):
    imperial = route_of(site, START, END, lang="de")  # a German browser: a German page
    metric = route_of(site, START, END, "metric", lang="de")
    session = open_in_locale(site, TRIP, "de-DE")
    wait_for(site, session, READY)
    assert js(site, session, "navigator.language") == "de-DE"
    assert distances_shown(site, session) == expected_distances(imperial, "m", metric["steps"])
    assert "units=" not in js(site, session, "location.search")  # the locale's choice
    linked = open_in_locale(site, TRIP + "&units=ft", "de-DE")  # a link's choice wins
    wait_for(site, linked, READY)
    assert distances_shown(site, linked) == expected_distances(imperial, "ft", imperial["steps"])


MARKER_HEIGHTS = """Array.from(document.querySelectorAll('.level:not(.off) .route-marker circle'),
  c => c.getBoundingClientRect().height)"""


def test_route_markers_keep_their_size_on_screen(site):
    session = open_viewer(site, TRIP)
    wait_for(site, session, READY)
    site.browser.drain(0.2)
    fitted = js(site, session, MARKER_HEIGHTS)
    assert fitted and all(abs(height - 22) <= 1 for height in fitted), fitted
    before = view_box(site, session)
    js(site, session, "window.floorgateViewer.app.panzoom.zoomCentre(4)")
    site.browser.drain(0.2)
    assert view_box(site, session)[2] == pytest.approx(before[2] / 4)
    zoomed = js(site, session, MARKER_HEIGHTS)
    assert zoomed and all(abs(height - fitted[0]) <= 1 for height in zoomed), (fitted, zoomed)
    click(site, session, '#route-steps button.step[data-maneuver="1"]')
    site.browser.drain(0.2)
    step = js(
        site,
        session,
        "document.querySelector('.step-marker circle').getBoundingClientRect().height",
    )
    assert abs(step - fitted[0]) <= 1


UNIT_GROUPS = """query { unitAttributeGroups { groupId attributes { attributeId } } }"""


def test_the_unit_card_shows_each_value_in_the_legends_colour(site):
    """Unit 205's card beside the legend of each of its groups: one swatch per value, of
    the legend's colour for that attribute; its floor by name; directions from and to."""
    groups = site.graphql(UNIT_GROUPS)["unitAttributeGroups"]
    asset = site.graphql('{ unitMap(id: "map-b1") { assetId } }')["unitMap"]["assetId"]
    held = {}
    for group in groups:
        data = site.graphql(ASSIGNMENTS, group=group["groupId"], asset=asset)
        ids = [
            a["attributeId"]
            for a in data["unitAttributeAssignments"]["data"]
            if a["unitId"] == "b1-205"
        ]
        if ids:
            held[group["groupId"]] = ids
    assert held
    for group_id, ids in held.items():
        session = open_viewer(site, f"?level=level-b1-f2&unit=b1-205&group={quote(group_id)}")
        wait_for(
            site,
            session,
            "document.getElementById('unit-panel').dataset.state === 'ready'"
            " && document.getElementById('legend').dataset.state === 'ready'",
        )
        card = js(
            site,
            session,
            f"""Array.from(document.querySelectorAll(
            '#unit-attributes dd[data-group-id={json.dumps(group_id)}] .attribute-value'),
            v => [v.dataset.attributeId,
                  v.querySelector('svg.swatch rect').getAttribute('fill')])""",
        )
        legend = dict(
            js(
                site,
                session,
                """Array.from(document.querySelectorAll('#legend-items li[data-attribute-id]'),
                li => [li.dataset.attributeId, li.querySelector('svg.swatch rect')
                .getAttribute('fill')])""",
            )
        )
        order = next(g["attributes"] for g in groups if g["groupId"] == group_id)
        expected = [a["attributeId"] for a in order if a["attributeId"] in ids]
        assert [attribute for attribute, _ in card] == expected
        assert card == [[attribute, legend[attribute]] for attribute in expected]
        fill = js(
            site,
            session,
            "document.querySelector('polygon.unit[data-unit-id=\"b1-205\"]').getAttribute('fill')",
        )
        assert fill == card[0][1]  # the unit is painted in its first value's colour
    floor = js(site, session, "document.getElementById('unit-floor').textContent")
    floors = site.graphql("query($id: ID!) { asset(id: $id) { floors { id name } } }", id=asset)[
        "asset"
    ]["floors"]
    name = next(f["name"] for f in floors if f["id"] == "b1-f2")  # E3's name of the floor
    button = '#levels button[data-level-uid="level-b1-f2"]'
    assert floor == name == js(site, session, f"document.querySelector('{button}').textContent")
    assert name != "b1-f2"

    click(site, session, "#unit-from")
    js(site, session, "window.floorgateViewer.app.selectUnit('b1-307')")
    wait_for(site, session, "document.getElementById('unit-panel').dataset.unitId === 'b1-307'")
    click(site, session, "#unit-to")
    wait_for(site, session, READY)
    search = js(site, session, "location.search")
    assert f"from=loc%3A{quote(f'{MAP}:b1-205')}" in search
    assert f"to=loc%3A{quote(f'{MAP}:b1-307')}" in search
    route = route_of(site, f"{MAP}:b1-205", f"{MAP}:b1-307")
    assert shown_level(site, session) == [route["legs"][0]["levelUid"]] == ["level-b1-f2"]
    assert problems(site, session) == []


def test_a_tiny_first_leg_is_shown_with_30_feet_around_it(site):
    """Two points a few feet apart on Floor 1's walk line: the view is not zoomed in to
    the leg's few feet, but shows at least 30 ft each way around it."""
    walk = route_of(site, START, END)["legs"][0]["points"]
    corridor = next(p for p, q in itertools.pairwise(walk) if p["y"] == q["y"] != walk[0]["y"])
    a = {"x": corridor["x"] + 10, "y": corridor["y"], "floorId": "b1-f1"}  # on the walk line
    b = {"x": corridor["x"] + 14, "y": corridor["y"], "floorId": "b1-f1"}
    answer = site.graphql(ROUTE, **{"from": a, "to": b, "mode": "foot"})["route"]["route"]
    leg = answer["legs"][0]
    points = [(p["x"], p["y"]) for p in leg["points"]]
    length = sum(math.dist(p, q) for p, q in itertools.pairwise(points))
    assert len(answer["legs"]) == 1 and 0 < leg["distance"] < 30 and length > 0
    least = 30 / (leg["distance"] / length)  # 30 ft in canvas units
    query = f"?from=pt%3A{a['x']}%2C{a['y']}%2Cb1-f1&to=pt%3A{b['x']}%2C{b['y']}%2Cb1-f1"
    session = open_viewer(site, query)
    wait_for(site, session, READY)
    x, y, w, h = view_box(site, session)
    assert least <= min(w, h) <= least * 1.5, (least, w, h)
    assert all(x <= px <= x + w and y <= py <= y + h for px, py in points)
    assert shown_level(site, session) == ["level-b1-f1"]
