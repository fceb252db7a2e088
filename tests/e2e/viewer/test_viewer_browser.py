"""The map viewer in headless Chromium (Debian's, driven over the DevTools pipe as the
other page tests do, every host but localhost unresolvable) against `floorgate serve`
over TLS on the demo: what it draws is checked against what the API answers.

FLOORGATE_UPDATE_SCREENSHOTS=1 writes the screenshots into docs/screenshots/."""

from __future__ import annotations

import base64
import os
import struct
from typing import Any
from urllib.parse import quote, urlsplit

import pytest

from tests.chromium import (
    CHROMIUM,
    MISSING,
)
from tests.e2e.viewer.viewer_site import (
    ASSIGNMENTS,
    DESKTOP,
    MAP,
    PHONE,
    SCREENSHOTS,
    VIEWBOX,
    Site,
    click,
    click_at,
    demo_site,
    js,
    open_viewer,
    page_events,
    problems,
    shown_level,
    view_box,
    wait_for,
)

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(CHROMIUM is None, reason=MISSING)]

demo_key, site = demo_site("viewer")


def test_the_map_draws_every_level_and_its_units(site):
    session = open_viewer(site)
    data = site.graphql(
        """query($id: ID!) { unitMap(id: $id) { id assetId units { id floorId }
        levelTags { key values { name value } } } }""",
        id=MAP,
    )["unitMap"]
    # The asset's floor names (E3) name the levels, not the map's level tag.
    floors = e3_floor_names(site, data["assetId"])
    assert floors != floor_names(data["levelTags"])
    levels = js(
        site,
        session,
        """Array.from(document.querySelectorAll('#map .level'), g => ({
        uid: g.dataset.levelUid, shown: getComputedStyle(g).display !== 'none',
        units: Array.from(g.querySelectorAll('polygon.unit'), u => u.dataset.unitId)}))""",
    )
    buttons = js(
        site,
        session,
        """Array.from(document.querySelectorAll('#levels button'),
        b => [b.dataset.levelUid, b.textContent, b.getAttribute('aria-pressed')])""",
    )
    assert [level["uid"] for level in levels] == [f"level-b1-f{n}" for n in (1, 2, 3, 4)]
    assert [level["shown"] for level in levels] == [True, False, False, False]
    assert buttons == [
        [f"level-b1-f{n}", floors[f"b1-f{n}"], str(n == 1).lower()] for n in (1, 2, 3, 4)
    ]
    for n, level in enumerate(levels, start=1):
        expected = sorted(u["id"] for u in data["units"] if u["floorId"] == f"b1-f{n}")
        assert sorted(level["units"]) == expected and expected
    assert problems(site, session) == []

    assert js(site, session, "location.href") == f"{site.base}/viewer/maps/{MAP}?level=level-b1-f1"
    assert js(site, session, "sessionStorage.getItem('floorgate-viewer-key')") == site.key
    assert js(site, session, "localStorage.length") == 0
    requests = [
        event["params"]["request"]
        for event in page_events(site, session)
        if event["method"] == "Network.requestWillBeSent"
    ]
    origin = urlsplit(site.base)[:2]
    assert requests and all(urlsplit(r["url"])[:2] == origin for r in requests), requests
    for request in requests:
        assert site.key not in request["url"] and site.key not in request.get("postData", "")
        assert request["headers"].get("Referer", "") == ""  # no-referrer
    posts = [r for r in requests if r["method"] == "POST"]
    assert posts and {r["url"] for r in posts} == {f"{site.base}/graphql?lang=en"}
    assert all(r["headers"]["API-Key"] == site.key for r in posts)


def test_the_viewer_opened_at_the_servers_address_draws_the_map(site):
    """At https://127.0.0.1:PORT, not the public URL's https://localhost:PORT: the page
    asks /graphql at its own origin and fetches the parsed document at the public URL,
    another origin there, which its CSP names and /files answers with CORS."""
    address = site.base.replace("://localhost:", "://127.0.0.1:")
    assert address != site.base
    session = open_viewer(site, base=address)
    units = js(site, session, "document.querySelectorAll('#map polygon.unit').length")
    assert units == len(
        site.graphql('query { unitMap(id: "map-b1") { units { id } } }')["unitMap"]["units"]
    )
    assert problems(site, session) == []
    fetched = {
        urlsplit(event["params"]["request"]["url"]).netloc
        for event in page_events(site, session)
        if event["method"] == "Network.requestWillBeSent"
    }
    assert fetched == {urlsplit(address).netloc, urlsplit(site.base).netloc}


# ---------------------------------------------------------------- helpers


UNIT_QUERY = """query($id: ID!, $map: ID!) {
  unit(id: $id) { id name floorId references { key value } }
  unitMap(id: $map) { assetId levelTags { key values { name value } } }
  unitAttributeGroups { groupId groupName attributes { attributeId attributeName } }
}"""
ROUTE = """query($from: WaypointInput!, $to: WaypointInput!, $mode: String) {
  route(unitMapId: "map-b1", from: $from, to: $to, mode: $mode) {
    mode reason route { distance time steps legs { levelUid floorId distance
      points { x y } connector { id kind x y fromLevelUid toLevelUid } } } } }"""
MATRIX = """query($from: WaypointInput!, $to: WaypointInput!, $mode: String) {
  distanceMatrix(unitMapId: "map-b1", input: {sources: [$from], targets: [$to],
      distanceMethod: "pathfinding", costingOptions: {pedestrian: {mode: $mode}}}) {
    distanceMethod sources { targets { distance time } } } }"""
DRAWN_ROUTE = """Array.from(document.querySelectorAll('polyline.route-leg'), p => ({
  leg: Number(p.dataset.leg), level: p.dataset.levelUid, points: p.getAttribute('points')}))"""
CONNECTORS = """Array.from(document.querySelectorAll('.route-marker[data-connector-kind]'), m => [
  Number(m.dataset.leg), m.dataset.connectorId, m.dataset.connectorKind, m.dataset.levelUid])"""


def as_points(text: str) -> list[tuple[float, float]]:
    return [(float(x), float(y)) for x, y in (pair.split(",") for pair in text.split())]


def e3_floor_names(site: Site, asset_id: str) -> dict[str, str]:
    """What the viewer names floors by: the asset's floors (E3)."""
    answer = site.api.get(f"/v1/assets/{asset_id}/floors", params={"per-page": 1000})
    return {floor["id"]: floor["name"] for floor in answer.json()["data"]}


def floor_names(level_tags: list[dict[str, Any]]) -> dict[str, str]:
    return {
        value["value"]: value["name"]
        for tag in level_tags
        if tag["key"] == "floor"
        for value in tag["values"]
    }


def expected_route(site: Site, start: str, end: str, mode: str) -> dict[str, Any]:
    answer = site.graphql(ROUTE, **{"from": {"id": start}, "to": {"id": end}, "mode": mode})
    return answer["route"]


def check_drawn_route(site: Site, session: str, answer: dict[str, Any]) -> None:
    """The DOM's polylines and connector markers are the answer's legs, point for point."""
    route = answer["route"]
    drawn = js(site, session, DRAWN_ROUTE)
    assert [(d["leg"], d["level"]) for d in drawn] == [
        (index, leg["levelUid"]) for index, leg in enumerate(route["legs"])
    ]
    for shown, leg in zip(drawn, route["legs"], strict=True):
        assert as_points(shown["points"]) == [(p["x"], p["y"]) for p in leg["points"]]
    connectors = js(site, session, CONNECTORS)
    expected = [
        [index, leg["connector"]["id"], leg["connector"]["kind"], uid]
        for index, leg in enumerate(route["legs"])
        if leg["connector"]
        for uid in (leg["connector"]["fromLevelUid"], leg["connector"]["toLevelUid"])
    ]
    assert connectors == expected
    summary = js(
        site,
        session,
        "[document.getElementById('route-summary').dataset.distance,"
        "document.getElementById('route-summary').dataset.time]",
    )
    assert [float(summary[0]), float(summary[1])] == [route["distance"], route["time"]]
    steps = js(
        site,
        session,
        "Array.from(document.querySelectorAll('#route-steps .step-text'), t => t.textContent)",
    )
    assert steps == route["steps"]


# ---------------------------------------------------------------- the tests


def test_a_level_switch_and_a_click_on_a_unit_show_what_the_api_says(site):
    session = open_viewer(site)
    click(site, session, '#levels button[data-level-uid="level-b1-f2"]')
    assert shown_level(site, session) == ["level-b1-f2"]
    click_at(site, session, 'polygon.unit[data-unit-id="b1-205"]')
    wait_for(site, session, "document.getElementById('unit-panel').dataset.state === 'ready'")
    data = site.graphql(UNIT_QUERY, id="b1-205", map=MAP)
    unit = data["unit"]
    panel = js(
        site,
        session,
        """(() => ({
        unit: document.getElementById('unit-panel').dataset.unitId,
        name: document.getElementById('unit-name').textContent,
        floor: document.getElementById('unit-floor').textContent,
        groups: Array.from(document.querySelectorAll('#unit-attributes dd'), dd =>
            [dd.dataset.groupId, dd.dataset.attributeIds, dd.textContent]),
        references: Array.from(document.querySelectorAll('#unit-references li'), li =>
            [li.dataset.key, li.dataset.value, li.textContent]),
        selected: Array.from(document.querySelectorAll('.unit.selected'), u => u.dataset.unitId),
    }))()""",
    )
    assert panel["unit"] == "b1-205" and panel["selected"] == ["b1-205"]
    assert panel["name"] == unit["name"] == "205"
    assert panel["floor"] == e3_floor_names(site, data["unitMap"]["assetId"])[unit["floorId"]]
    groups = []
    for group in data["unitAttributeGroups"]:
        assigned = site.graphql(
            ASSIGNMENTS, group=group["groupId"], asset=data["unitMap"]["assetId"]
        )
        ids = [
            a["attributeId"]
            for a in assigned["unitAttributeAssignments"]["data"]
            if a["unitId"] == "b1-205"
        ]
        names = [a["attributeName"] for a in group["attributes"] if a["attributeId"] in ids]
        groups.append([group["groupId"], " ".join(ids), ", ".join(names) or "none"])
    assert panel["groups"] == groups
    assert any(ids for _, ids, _ in groups)  # the demo gives 205 some attribute
    assert (
        panel["references"]
        == [[r["key"], r["value"], f"{r['key']}: {r['value']}"] for r in unit["references"]]
        and unit["references"]
    )
    assert js(site, session, "location.search") == "?level=level-b1-f2&unit=b1-205"
    assert problems(site, session) == []


def test_a_route_between_floors_is_drawn_as_the_api_answers_it(site):
    """From unit 104 (picked in the list) to unit 307 (clicked on the map, Floor 3): on
    foot the quickest way takes the stairs at the east end; by wheelchair it cannot."""
    session = open_viewer(site)
    start, end = f"{MAP}:b1-104", f"{MAP}:b1-307"
    wait_for(site, session, "document.getElementById('location-list').dataset.state === 'ready'")
    click(site, session, f'#location-list li[data-location-id="{start}"] [data-role="from"]')
    click(site, session, '#levels button[data-level-uid="level-b1-f3"]')
    click(site, session, "#pick-to")
    click_at(site, session, 'polygon.unit[data-unit-id="b1-307"]')
    wait_for(site, session, "document.getElementById('directions').dataset.state === 'ready'")

    foot = expected_route(site, start, end, "foot")
    assert foot["mode"] == "foot" and foot["reason"] is None
    check_drawn_route(site, session, foot)
    kinds = [leg["connector"]["kind"] for leg in foot["route"]["legs"] if leg["connector"]]
    assert kinds == ["stairs"]
    assert [leg["levelUid"] for leg in foot["route"]["legs"]] == ["level-b1-f1", "level-b1-f3"]
    matrix = site.graphql(MATRIX, **{"from": {"id": start}, "to": {"id": end}, "mode": "foot"})
    assert matrix["distanceMatrix"]["distanceMethod"] == "pathfinding"
    e18 = matrix["distanceMatrix"]["sources"][0]["targets"][0]
    drawn = js(site, session, "Number(document.getElementById('route-summary').dataset.distance)")
    assert abs(drawn - e18["distance"]) <= 0.01
    # a new trip opens on its origin's level, the first leg fitted (test_viewer_directions.py)
    assert shown_level(site, session) == ["level-b1-f1"]
    assert js(site, session, "location.search").startswith(
        f"?level=level-b1-f1&from=loc%3A{quote(start)}&to=loc%3A{quote(end)}&box="
    )
    assert js(site, session, "document.getElementById('from-name').textContent") == "104"
    assert js(site, session, "document.getElementById('to-name').textContent") == "307"

    click(site, session, "#wheelchair")
    wait_for(
        site,
        session,
        "document.getElementById('directions').dataset.mode === "
        "'wheelchair' && document.getElementById('directions').dataset.state === 'ready'",
    )
    wheelchair = expected_route(site, start, end, "wheelchair")
    check_drawn_route(site, session, wheelchair)
    drawn_kinds = [kind for _, _, kind, _ in js(site, session, CONNECTORS)]
    assert drawn_kinds and "stairs" not in drawn_kinds
    assert all(
        leg["connector"]["kind"] != "stairs"
        for leg in wheelchair["route"]["legs"]
        if leg["connector"]
    )
    matrix = site.graphql(
        MATRIX, **{"from": {"id": start}, "to": {"id": end}, "mode": "wheelchair"}
    )
    e18 = matrix["distanceMatrix"]["sources"][0]["targets"][0]
    assert abs(wheelchair["route"]["distance"] - e18["distance"]) <= 0.01
    assert "mode=wheelchair" in js(site, session, "location.search")
    assert problems(site, session) == []


def test_a_link_reproduces_the_view(site):
    start, end = f"{MAP}:b1-104", f"{MAP}:b1-307"
    query = (
        f"?level=level-b1-f3&unit=b1-305&from=loc%3A{quote(start)}&to=loc%3A{quote(end)}"
        "&mode=wheelchair&group=view&tags=svc%3Aamenity%3D%3Dyes&q=trash&paths=1"
    )
    session = open_viewer(site, query)
    wait_for(
        site,
        session,
        "document.getElementById('directions').dataset.state === 'ready'"
        " && document.getElementById('unit-panel').dataset.state === 'ready'"
        " && document.getElementById('legend').dataset.state === 'ready'",
    )
    check_drawn_route(site, session, expected_route(site, start, end, "wheelchair"))
    assert js(site, session, "document.getElementById('wheelchair').checked") is True
    assert js(site, session, "document.getElementById('unit-panel').dataset.unitId") == "b1-305"
    assert js(site, session, "document.getElementById('legend-group').value") == "view"
    assert js(site, session, "document.getElementById('map').classList.contains('show-paths')")
    amenities = site.graphql("""{ locations(unitMapId: "map-b1", tags: "svc:amenity==yes") {
        data { id name } } }""")["locations"]["data"]
    listed = js(
        site,
        session,
        "Array.from(document.querySelectorAll("
        "'#location-list li[data-location-id]'), li => li.dataset.locationId)",
    )
    expected = [a["id"] for a in amenities if "trash" in a["name"].lower()]
    assert sorted(listed) == sorted(expected) and len(expected) == 4
    assert listed == [f"loc-b1-f{n}-trash@map-b1" for n in (1, 2, 3, 4)]  # by level
    assert js(site, session, "location.search") == query
    assert problems(site, session) == []


def test_colour_by_an_attribute_group(site):
    session = open_viewer(site)
    wait_for(site, session, "document.querySelectorAll('#legend-group option').length > 1")
    js(
        site,
        session,
        "(() => { const s = document.getElementById('legend-group');"
        " s.value = 'view'; s.dispatchEvent(new Event('change')); })()",
    )
    wait_for(site, session, "document.getElementById('legend').dataset.state === 'ready'")
    group = next(
        g
        for g in site.graphql(UNIT_QUERY, id="b1-101", map=MAP)["unitAttributeGroups"]
        if g["groupId"] == "view"
    )
    assigned = site.graphql(ASSIGNMENTS, group="view", asset="harbor-view")
    by_unit = {a["unitId"]: a["attributeId"] for a in assigned["unitAttributeAssignments"]["data"]}
    shown = js(
        site,
        session,
        """Object.fromEntries(Array.from(document.querySelectorAll(
        'polygon.unit'), u => [u.dataset.unitId, u.dataset.attributeId]))""",
    )
    assert shown == {unit: by_unit.get(unit, "") for unit in shown}
    legend = js(
        site,
        session,
        "Array.from(document.querySelectorAll('#legend-items li'), "
        "li => [li.dataset.attributeId, li.textContent.trim()])",
    )
    counts = {
        a["attributeId"]: sum(1 for v in shown.values() if v == a["attributeId"])
        for a in group["attributes"]
    }
    expected = [
        [a["attributeId"], f"{a['attributeName']} ({counts[a['attributeId']]})"]
        for a in group["attributes"]
    ]
    assert legend == [*expected, ["", f"none ({sum(1 for v in shown.values() if not v)})"]]
    assert "group=view" in js(site, session, "location.search")


def test_keyboard_moves_between_units_and_enter_selects(site):
    session = open_viewer(site)
    first = js(
        site,
        session,
        "(() => { const u = document.querySelector("
        "'.level:not(.off) polygon.unit'); u.focus(); return u.dataset.unitId; })()",
    )
    labels = js(
        site,
        session,
        "Array.from(document.querySelectorAll('.level:not(.off) "
        "polygon.unit'), u => [u.dataset.unitId, u.getAttribute('aria-label'), "
        "u.getAttribute('tabindex'), u.getAttribute('role')])",
    )
    assert labels[0][0] == first
    # The shown level's units are one tab stop (roving tabindex): the focused one.
    assert [(label, tab, role) for _, label, tab, role in labels] == [
        (f"Unit {unit[3:]}, Floor 1", "0" if n == 0 else "-1", "button")
        for n, (unit, *_) in enumerate(labels)
    ]
    for key in ("ArrowRight", "Enter"):
        site.browser.call(
            "Input.dispatchKeyEvent",
            {
                "type": "keyDown",
                "key": key,
                "code": key,
                "windowsVirtualKeyCode": 39 if key == "ArrowRight" else 13,
            },
            session=session,
        )
        site.browser.call("Input.dispatchKeyEvent", {"type": "keyUp", "key": key}, session=session)
    wait_for(site, session, "document.getElementById('unit-panel').dataset.state === 'ready'")
    assert js(site, session, "document.activeElement.dataset.unitId") == labels[1][0]
    assert js(site, session, "document.getElementById('unit-panel').dataset.unitId") == labels[1][0]
    assert js(
        site,
        session,
        "Array.from(document.querySelectorAll('.level:not(.off) polygon.unit[tabindex=\"0\"]'),"
        " u => u.dataset.unitId)",
    ) == [labels[1][0]]
    # The focused and the selected unit are outlined again above everything of the level
    # (walls drawn over units would hide their own outline).
    rings = js(
        site,
        session,
        """(() => { const unit = document.activeElement;
        return Array.from(document.querySelectorAll('.level:not(.off) .markers .unit-ring'),
          r => [r.getAttribute('class'), r.getAttribute('points') === unit.getAttribute('points')]);
        })()""",
    )
    assert sorted(rings) == [["unit-ring focus", True], ["unit-ring selected", True]]


def test_without_a_key_the_page_asks_for_one(site):
    session = open_viewer(site, key=False)
    wait_for(site, session, "document.body && document.body.dataset.state === 'key'")
    assert js(site, session, "document.getElementById('key-dialog').hidden") is False
    assert js(site, session, "document.activeElement.id") == "key-input"
    site.browser.call("Input.insertText", {"text": site.key}, session=session)
    click(site, session, '#key-form button[type="submit"]')
    wait_for(site, session, "document.body.dataset.state === 'ready'")
    assert js(site, session, "sessionStorage.getItem('floorgate-viewer-key')") == site.key
    assert js(site, session, "localStorage.length") == 0
    assert site.key not in js(site, session, "location.href")


def test_wheel_drag_and_fit(site):
    session = open_viewer(site)
    fitted = js(site, session, "document.getElementById('map').getAttribute('viewBox')")
    box = js(
        site,
        session,
        "(() => { const r = document.getElementById('map')"
        ".getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()",
    )
    site.browser.call(
        "Input.dispatchMouseEvent",
        {"type": "mouseWheel", "x": box[0], "y": box[1], "deltaX": 0, "deltaY": -400},
        session=session,
    )
    zoomed = [
        float(v)
        for v in js(site, session, "document.getElementById('map').getAttribute('viewBox')").split()
    ]
    assert zoomed[2] < float(fitted.split()[2]) / 1.5
    moves = [("mousePressed", 0), ("mouseMoved", 40), ("mouseMoved", 120), ("mouseReleased", 120)]
    for kind, dx in moves:
        site.browser.call(
            "Input.dispatchMouseEvent",
            {
                "type": kind,
                "x": box[0] + dx,
                "y": box[1],
                "button": "left",
                "buttons": 1,
                "clickCount": 1,
            },
            session=session,
        )
    dragged = [
        float(v)
        for v in js(site, session, "document.getElementById('map').getAttribute('viewBox')").split()
    ]
    assert dragged[0] < zoomed[0] and dragged[1:] == zoomed[1:]  # moved right: the view left
    assert js(site, session, "document.querySelectorAll('.unit.selected').length") == 0
    click(site, session, "#fit")
    assert js(site, session, "document.getElementById('map').getAttribute('viewBox')") == fitted


def test_a_link_keeps_pan_and_zoom(site):
    """Pan and zoom settle into `box` (the viewBox); a link with it opens there, on any
    window size; Fit takes it out; a box that is not one, or shows none of the drawing,
    opens the level fitted."""
    session = open_viewer(site, "?level=level-b1-f2")
    fitted = js(site, session, VIEWBOX)
    middle = js(
        site,
        session,
        "(() => { const r = document.getElementById('map')"
        ".getBoundingClientRect(); return [r.left + r.width / 3, r.top + r.height / 3];"
        " })()",
    )
    site.browser.call(
        "Input.dispatchMouseEvent",
        {"type": "mouseWheel", "x": middle[0], "y": middle[1], "deltaX": 0, "deltaY": -300},
        session=session,
    )
    for kind, dx in (
        ("mousePressed", 0),
        ("mouseMoved", 30),
        ("mouseMoved", 90),
        ("mouseReleased", 90),
    ):
        site.browser.call(
            "Input.dispatchMouseEvent",
            {
                "type": kind,
                "x": middle[0] + dx,
                "y": middle[1],
                "button": "left",
                "buttons": 1,
                "clickCount": 1,
            },
            session=session,
        )
    shown = view_box(site, session)
    assert shown != [float(v) for v in fitted.split()]
    search = wait_for(site, session, "location.search.includes('box=') && location.search")
    box = dict(part.split("=", 1) for part in search[1:].split("&"))["box"]
    numbers = [float(v) for v in box.replace("%2C", ",").split(",")]
    assert numbers == pytest.approx(shown, abs=0.006)  # two decimals
    assert search.startswith("?level=level-b1-f2&box=")

    linked = open_viewer(site, search, size=PHONE)  # another window: the same area
    assert view_box(site, linked) == pytest.approx(numbers, abs=0.0006)
    assert shown_level(site, linked) == ["level-b1-f2"]
    assert js(site, linked, "location.search") == search
    click(site, linked, "#fit")
    assert js(site, linked, "location.search") == "?level=level-b1-f2"
    assert problems(site, session) == [] and problems(site, linked) == []

    for bad in ("1,2,x,4", "0,0,0,50", "1,2,3", "-1e6,-1e6,50,50", "Infinity,0,10,10"):
        tab = open_viewer(site, f"?level=level-b1-f2&box={quote(bad)}")
        assert js(site, tab, VIEWBOX) == fitted, bad
        assert js(site, tab, "location.search") == "?level=level-b1-f2", bad


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


ROUTE_VIEW = f"?from=loc%3A{quote(MAP)}%3Ab1-104&to=loc%3A{quote(MAP)}%3Ab1-307&group=view"
SHOTS = {
    # name: size, the view's query, what must be ready first
    "viewer-desktop": (DESKTOP, ROUTE_VIEW, "directions"),
    "viewer-phone": (PHONE, ROUTE_VIEW, "directions"),
    "viewer-unit": (DESKTOP, "?level=level-b1-f2&unit=b1-205&group=features", "unit-panel"),
}


@pytest.mark.parametrize("name", SHOTS)
def test_screenshots(site, name):
    size, query, ready = SHOTS[name]
    session = open_viewer(site, query, size)
    wait_for(
        site,
        session,
        f"document.getElementById('{ready}').dataset.state === 'ready'"
        " && document.getElementById('legend').dataset.state === 'ready'",
    )
    if ready == "directions":
        click(site, session, '#levels button[data-level-uid="level-b1-f1"]')  # the route's start
    site.browser.drain(0.3)
    data = screenshot(site, session)
    assert png_size(data) == size
    assert len(data) > 20_000  # a drawn map, not a blank page
    assert js(site, session, "document.documentElement.scrollWidth") <= size[0]  # no sideways
    if os.environ.get("FLOORGATE_UPDATE_SCREENSHOTS") == "1":
        SCREENSHOTS.mkdir(exist_ok=True)
        (SCREENSHOTS / f"{name}.png").write_bytes(data)
    assert problems(site, session) == []


def screenshot(site: Site, session: str) -> bytes:
    shot = site.browser.call("Page.captureScreenshot", {"format": "png"}, session=session)
    return base64.b64decode(shot["data"])


TWO_LEVELS = """<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100">
  <g id="ground" data-level="Ground" data-tag-floor="b1-f1">
    <g data-layer="units"><rect data-unit-id="b1-101" x="10" y="10" width="40" height="30"/></g>
    <g data-layer="paths"><line x1="10" y1="60" x2="190" y2="60"/></g>
  </g>
  <g id="upper" data-level="Upper" data-tag-floor="b1-f2">
    <g data-layer="paths"><line x1="10" y1="60" x2="190" y2="60"/></g>
  </g>
</svg>"""
PUT_MAP = """mutation($svg: String!) { putUnitMap(svg: $svg, input: {id: "viewer-islands",
  assetId: "harbor-view", name: "Two levels, no connector"}) { id } }"""


def test_an_unreachable_pair_shows_the_reason(site):
    """Two levels that no connector joins: `route` is null with its reason, shown as is."""
    site.graphql(PUT_MAP, svg=TWO_LEVELS)
    ends = {
        "from": {"x": 20, "y": 60, "floorId": "b1-f1"},
        "to": {"x": 150, "y": 60, "floorId": "b1-f2"},
    }
    answer = site.graphql(
        """query($from: WaypointInput!, $to: WaypointInput!) {
        route(unitMapId: "viewer-islands", from: $from, to: $to) { route { distance } reason } }""",
        **ends,
    )["route"]
    assert answer["route"] is None and answer["reason"]
    session = open_viewer(
        site, "?from=pt%3A20%2C60%2Cb1-f1&to=pt%3A150%2C60%2Cb1-f2", map_id="viewer-islands"
    )
    wait_for(
        site,
        session,
        "document.getElementById('directions').dataset.state !== 'loading'"
        " && document.getElementById('directions').dataset.state !== 'idle'",
    )
    assert js(site, session, "document.getElementById('directions').dataset.state") == (
        "unreachable"
    )
    assert js(site, session, "document.getElementById('route-reason').textContent") == (
        f"No route: {answer['reason']}"
    )
    assert js(site, session, "document.querySelectorAll('polyline.route-leg').length") == 0
    islands = site.graphql('{ unitMap(id: "viewer-islands") { assetId } }')["unitMap"]
    floor = e3_floor_names(site, islands["assetId"])["b1-f1"]
    assert js(site, session, "document.getElementById('from-name').textContent") == (
        f"Point 20, 60 on {floor}"
    )
    assert problems(site, session) == []
