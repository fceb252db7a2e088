"""The viewer on real buildings (issue 34, "Done when"), in headless Chromium against
`floorgate serve` over TLS: the IMDF venue Harbourside Exchange (tests/venues/imdf_venues.py
`exchange`, imported as `floorgate import-imdf` imports it) and the real-scale office
Quayside House (tests/venues/viewer_buildings.py `office`, 7 levels of 60 m x 25 m).

Each check prints what it measured when it fails. FLOORGATE_UPDATE_SCREENSHOTS=1 writes
docs/screenshots/viewer-imdf-venue.png, viewer-office.png and imdf-generated-level.png."""

from __future__ import annotations

import base64
import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import pytest

from tests.chromium import CHROMIUM, MISSING, wait_until
from tests.e2e.viewer.viewer_site import (
    DESKTOP,
    SCREENSHOTS,
    Site,
    js,
    module_on,
    open_viewer,
    page_events,
    shown_level,
    wait_for,
)
from tests.png_image import colour_clusters, dark_share, png_size, read_png
from tests.venues.imdf_venues import stable_id
from tests.venues.viewer_buildings import GROUP, MAP

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(CHROMIUM is None, reason=MISSING)]

VENUE = stable_id("venue:Harbourside Exchange")  # asset and stack map id
LABEL_PX = (9.0, 28.0)  # label box heights, CSS px
MAX_OVERLAP = 0.05
MAX_TAB_STOPS = 40
MIN_LEG_SPAN = 0.2
MAX_DARK = 0.10  # share of the map's pixels under luminance 40
MIN_COLOURS = 4
MIN_HUES, MIN_SPREAD = 2, 10  # of which not greys: channels at least this far apart


@dataclass(frozen=True)
class Building:
    map_id: str
    asset_id: str
    level: str  # the level the label and pixel checks look at
    floor: str  # its floor id
    # Floor ids of a route's origin and destination: the origin's is not the level the
    # viewer opens on by default (the lowest), so opening there is the route's doing.
    route: tuple[str, str]
    screenshot: str


BUILDINGS = {
    "imdf-venue": Building(
        VENUE,
        VENUE,
        f"level-{stable_id('level:ex-G')}",
        stable_id("level:ex-G"),
        (stable_id("level:ex-L1"), stable_id("level:ex-G")),
        "viewer-imdf-venue",
    ),
    "office": Building(
        MAP,
        "quayside-house",
        "qh-L03",
        "quayside-floor-03",
        ("quayside-floor-04", "quayside-floor-gf"),
        "viewer-office",
    ),
}


@pytest.fixture(scope="module")
def site(venues_site: Site, venues_office: Any) -> Iterator[Site]:
    """The worker's venues site (tests/e2e/viewer/conftest.py): both buildings, in a
    database that the venue's search check shares."""
    with module_on(venues_site):
        _OPEN.clear()
        _KEPT.clear()
        yield venues_site


# ---------------------------------------------------------------- helpers


_OPEN: list[str] = []  # the tab last opened, closed when the next one opens
# Tabs of the pages several tests read (never click, key or zoom in): (map, query) -> tab.
_KEPT: dict[tuple[str, str], str] = {}


def open_building(site: Site, building: Building, query: str = "") -> str:
    """The viewer of the building's map at DESKTOP size in a new tab (the one opened
    before is closed: the checks look at one tab at a time), its labels given a moment
    to settle (they may be placed after the first paint). The pages several tests only
    read, the map's first view, its level's and a route's link, are opened once and
    kept for the module: a page load is most of what such a check costs."""
    kept = _KEPT
    keep = query in ("", f"?level={building.level}") or query.startswith("?from=")
    if keep and (building.map_id, query) in kept:
        session = kept[building.map_id, query]
        # In front again: a tab behind others gets no frames (a screenshot would wait).
        site.browser.call("Page.bringToFront", session=session)
        return session
    while _OPEN:
        target = site.browser.call("Target.getTargetInfo", session=_OPEN.pop())["targetInfo"]
        site.browser.call("Target.closeTarget", {"targetId": target["targetId"]})
    session = open_viewer(site, query, DESKTOP, map_id=building.map_id)
    if keep:
        kept[building.map_id, query] = session
    else:
        _OPEN.append(session)
    site.browser.drain(0.5)
    return session


def map_box(site: Site, session: str) -> dict[str, float]:
    return js(
        site,
        session,
        """(() => { const r = document.getElementById('map').getBoundingClientRect();
        return {left: r.left, top: r.top, right: r.right, bottom: r.bottom,
                width: r.width, height: r.height}; })()""",
    )


# Visible labels within the map's box: displayed, not hidden by class or visibility,
# of some size, on screen.
LABELS = """(() => {
  const map = document.getElementById('map').getBoundingClientRect();
  const shown = (el) => {
    for (let e = el; e && e !== document; e = e.parentNode) {
      if (e.nodeType !== 1) continue;
      const style = getComputedStyle(e);
      if (style.display === 'none' || e.classList.contains('hidden')
          || e.classList.contains('off') || e.hasAttribute('hidden')) return false;
    }
    const style = getComputedStyle(el);
    return style.visibility !== 'hidden' && Number(style.opacity) > 0;
  };
  return Array.from(document.querySelectorAll('#map .unit-labels [data-unit-label]'))
    .filter(shown)
    .map((el) => { const r = el.getBoundingClientRect();
      return {id: el.dataset.unitLabel, text: el.textContent,
              left: r.left, top: r.top, right: r.right, bottom: r.bottom, height: r.height}; })
    .filter((b) => b.height > 0 && b.right > map.left && b.left < map.right
                   && b.bottom > map.top && b.top < map.bottom);
})()"""


def visible_labels(site: Site, session: str) -> list[dict[str, Any]]:
    return js(site, session, LABELS)


def overlapping(labels: list[dict[str, Any]]) -> list[str]:
    """The labels whose box meets another's (by more than a hair: 0.5 px each way)."""
    found = []
    for a in labels:
        for b in labels:
            if a is b:
                continue
            wide = min(a["right"], b["right"]) - max(a["left"], b["left"])
            tall = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
            if wide > 0.5 and tall > 0.5:
                found.append(a["text"])
                break
    return found


def check_label_heights(labels: list[dict[str, Any]], where: str, at_least: int = 5) -> None:
    heights = sorted(label["height"] for label in labels)
    print(f"{where}: {len(labels)} visible labels, heights {heights[:1]}..{heights[-1:]}")
    outside = [h for h in heights if not LABEL_PX[0] <= h <= LABEL_PX[1]]
    assert len(labels) >= at_least, f"{where}: only {len(labels)} visible labels"
    assert not outside, (
        f"{where}: {len(outside)} of {len(labels)} visible labels outside "
        f"{LABEL_PX[0]:g}-{LABEL_PX[1]:g} px tall; heights min {heights[0]:.1f}, "
        f"median {heights[len(heights) // 2]:.1f}, max {heights[-1]:.1f} px"
    )


def view_box(site: Site, session: str) -> list[float]:
    return [
        float(v)
        for v in js(site, session, "document.getElementById('map').getAttribute('viewBox')").split()
    ]


def zoomed_in(site: Site, building: Building, factor: float) -> str:
    """The building's level opened through a link whose `box` is `factor` times smaller
    each way than the fitted view, around its point at 30% across and down (rooms, not
    the core) (docs/viewer.md, "The URL")."""
    fitted = view_box(site, open_building(site, building, f"?level={building.level}"))
    x, y, w, h = fitted
    box = (x + 0.3 * w - w / factor / 2, y + 0.3 * h - h / factor / 2, w / factor, h / factor)
    text = ",".join(f"{v:.2f}" for v in box)
    session = open_building(site, building, f"?level={building.level}&box={quote(text)}")
    shown = view_box(site, session)
    assert shown[2] == pytest.approx(w / factor, rel=0.05), (fitted, shown)
    return session


def screenshot(site: Site, session: str, clip: dict[str, float] | None = None) -> bytes:
    params: dict[str, Any] = {"format": "png"}
    if clip:
        params["clip"] = clip
    shot = site.browser.call("Page.captureScreenshot", params, session=session)
    return base64.b64decode(shot["data"])


# ---------------------------------------------------------------- the checks


@pytest.mark.parametrize("name", BUILDINGS)
def test_the_map_is_drawn_in_colour_not_black(site, name):
    """Under 10% of the map's pixels darker than luminance 40; at least 4 colours that
    each cover 0.5% of it, 2 of them no grey (read at half scale: the shares are the
    same)."""
    building = BUILDINGS[name]
    session = open_building(site, building, f"?level={building.level}")
    box = map_box(site, session)
    clip = {"x": box["left"], "y": box["top"], "width": box["width"], "height": box["height"]}
    image = read_png(screenshot(site, session, {**clip, "scale": 0.5}))
    dark = dark_share(image)
    clusters = colour_clusters(image)
    described = ", ".join(f"#{r:02x}{g:02x}{b:02x} {share:.1%}" for (r, g, b), share in clusters)
    print(f"{name}: {dark:.1%} dark, {len(clusters)} colours: {described}")
    assert dark < MAX_DARK, f"{dark:.1%} of the map is darker than luminance 40 ({described})"
    assert len(clusters) >= MIN_COLOURS, f"{len(clusters)} colours: {described}"
    hues = [c for c, _ in clusters if max(c) - min(c) >= MIN_SPREAD]
    assert len(hues) >= MIN_HUES, f"{len(hues)} colours that are not greys: {described}"


_FITTED: dict[str, dict[str, list[dict[str, Any]]]] = {}


def fitted_labels(site: Site, name: str) -> dict[str, list[dict[str, Any]]]:
    """Level uid -> its visible labels at the fitted view, for every level of the
    building (each opened by a link to it; measured once for both label tests)."""
    if name not in _FITTED:
        building = BUILDINGS[name]
        first = open_building(site, building)
        uids = js(
            site,
            first,
            "Array.from(document.querySelectorAll('#levels button'), b => b.dataset.levelUid)",
        )
        assert uids, "no level buttons"
        _FITTED[name] = {
            uid: visible_labels(site, open_building(site, building, f"?level={quote(uid)}"))
            for uid in uids
        }
    return _FITTED[name]


@pytest.mark.parametrize("name", BUILDINGS)
def test_label_heights_at_the_fitted_view(site, name):
    """On every level."""
    failures = []
    for uid, labels in fitted_labels(site, name).items():
        try:
            check_label_heights(labels, f"{name} {uid}, fitted")
        except AssertionError as failure:
            failures.append(str(failure).splitlines()[0])
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("name", BUILDINGS)
def test_label_heights_zoomed_in_4x(site, name):
    session = zoomed_in(site, BUILDINGS[name], 4)
    # A sixteenth of the floor: a few rooms (unnamed ones have no label).
    check_label_heights(visible_labels(site, session), f"{name}, zoomed in 4x", at_least=3)


@pytest.mark.parametrize("name", BUILDINGS)
def test_labels_overlap_at_most_5_percent_at_the_fitted_view(site, name):
    """On every level."""
    failures = []
    for uid, labels in fitted_labels(site, name).items():
        over = overlapping(labels)
        print(f"{name} {uid}: {len(over)} of {len(labels)} visible labels overlap")
        if len(labels) < 5:
            failures.append(f"{uid}: only {len(labels)} visible labels")
        elif len(over) > MAX_OVERLAP * len(labels):
            failures.append(
                f"{uid}: {len(over)} of {len(labels)} visible labels "
                f"({len(over) / len(labels):.0%}) overlap another, e.g. {over[:6]}"
            )
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("name", BUILDINGS)
def test_level_buttons_are_the_e3_floor_names(site, name):
    building = BUILDINGS[name]
    floors = site.api.get(f"/v1/assets/{building.asset_id}/floors").json()["data"]
    expected = [f["name"] for f in sorted(floors, key=lambda f: (f["sort"], f["id"]))]
    session = open_building(site, building)
    buttons = js(
        site, session, "Array.from(document.querySelectorAll('#levels button'), b => b.textContent)"
    )
    print(f"{name}: buttons {buttons}, E3 {expected}")
    assert [b.strip() for b in buttons] == expected


UNITS = "query($id: ID!) { unitMap(id: $id) { units { id floorId } } }"
PANEL_READY = "document.getElementById('unit-panel').dataset.state === 'ready'"
DIRECTIONS_READY = "document.getElementById('directions').dataset.state === 'ready'"
UNIT_LOCATIONS = """query($map: ID!) { locations(unitMapId: $map, tags: "svc:type==unit",
  perPage: 1000) { data { id name floors { id } } } }"""


def route_query(site: Site, building: Building) -> str:
    """A link's query for a route between named units of the route's two floors (a
    link with `from` and `to` and no `level`: docs/viewer.md, "The URL")."""
    found = site.graphql(UNIT_LOCATIONS, map=building.map_id)["locations"]["data"]
    origin_floor, destination_floor = building.route
    start = next(loc for loc in found if loc["floors"][0]["id"] == origin_floor and loc["name"])
    end = next(loc for loc in reversed(found) if loc["floors"][0]["id"] == destination_floor)
    return f"?from=loc%3A{quote(start['id'])}&to=loc%3A{quote(end['id'])}"


@pytest.mark.parametrize("name", BUILDINGS)
def test_a_two_level_route_opens_on_the_origins_level_with_its_first_leg_in_view(site, name):
    building = BUILDINGS[name]
    origin_floor = building.route[0]
    session = open_building(site, building, route_query(site, building))
    wait_for(site, session, DIRECTIONS_READY)
    site.browser.drain(0.5)  # the view may glide to the leg
    origin_level = js(
        site,
        session,
        f"""(() => {{ const b = Array.from(document.querySelectorAll('#map .level'));
        const l = b.find(g => window.floorgateViewer.app.levelByUid(g.dataset.levelUid)
          .floorId === {json.dumps(origin_floor)}); return l && l.dataset.levelUid; }})()""",
    )
    assert shown_level(site, session) == [origin_level], "the route opened on another level"
    leg = js(
        site,
        session,
        """(() => { const p = document.querySelector('polyline.route-leg[data-leg="0"]');
        if (!p) return null; const r = p.getBoundingClientRect();
        return {level: p.dataset.levelUid, left: r.left, top: r.top, right: r.right,
                bottom: r.bottom}; })()""",
    )
    assert leg is not None and leg["level"] == origin_level, leg
    box = map_box(site, session)
    inside = (
        leg["left"] >= box["left"] - 1
        and leg["top"] >= box["top"] - 1
        and leg["right"] <= box["right"] + 1
        and leg["bottom"] <= box["bottom"] + 1
    )
    assert inside, f"the first leg's box {leg} is not inside the map's {box}"
    # Fitted to the leg, not merely the whole floor: it spans a fifth of the view or more.
    span = max(
        (leg["right"] - leg["left"]) / box["width"], (leg["bottom"] - leg["top"]) / box["height"]
    )
    print(f"{name}: first leg {leg}, map {box}, span {span:.0%}")
    assert span >= MIN_LEG_SPAN, f"the first leg spans {span:.0%} of the view: not fitted to it"


TAB_STOPS = """(() => {
  const focusable = 'a[href], area[href], button, input, select, textarea, summary, iframe,'
    + ' [tabindex], [contenteditable="true"]';
  return Array.from(document.querySelectorAll(focusable)).filter((el) =>
    el.tabIndex >= 0 && !el.disabled && !el.closest('[inert]')
    && el.checkVisibility({visibilityProperty: true})
    && el.getClientRects().length > 0).length;
})()"""


@pytest.mark.parametrize("name", BUILDINGS)
def test_at_most_40_tab_stops(site, name):
    """On a level, with a unit's card open, and with a route and its steps shown."""
    building = BUILDINGS[name]
    units = site.graphql(UNITS, id=building.map_id)["unitMap"]["units"]
    unit = next(u["id"] for u in units if u["floorId"] == building.floor)
    views = {
        "level": (f"?level={building.level}", "true"),
        "unit card": (f"?level={building.level}&unit={quote(unit)}", PANEL_READY),
        "route": (route_query(site, building), DIRECTIONS_READY),
    }
    counted = {}
    for view, (query, ready) in views.items():
        session = open_building(site, building, query)
        wait_for(site, session, ready)
        counted[view] = js(site, session, TAB_STOPS)
    print(f"{name}: tab stops {counted}")
    assert max(counted.values()) <= MAX_TAB_STOPS, f"tab stops: {counted}"


DOCUMENT_URL = "query($id: ID!) { unitMap(id: $id) { url } }"


@pytest.mark.parametrize("name", BUILDINGS)
def test_the_map_json_arrives_compressed(site, name):
    building = BUILDINGS[name]
    url = site.graphql(DOCUMENT_URL, id=building.map_id)["unitMap"]["url"]
    session = open_building(site, building)
    events = page_events(site, session)
    answers = [
        event["params"]
        for event in events
        if event["method"] == "Network.responseReceived"
        and event["params"]["response"]["url"] == url
    ]
    assert answers, f"the page never fetched {url}"
    headers = {k.lower(): v for k, v in answers[-1]["response"]["headers"].items()}
    wire = [
        event["params"]["encodedDataLength"]
        for event in events
        if event["method"] == "Network.loadingFinished"
        and event["params"]["requestId"] == answers[-1]["requestId"]
    ]
    encoding = headers.get("content-encoding")
    print(f"{name}: {url} content-encoding {encoding!r}, {wire} bytes on the wire")
    assert encoding in ("gzip", "br"), f"{url}: content-encoding {encoding!r}, {wire} bytes"


def test_a_colour_changes_live_after_an_e21_assignment(site):
    """On the IMDF venue coloured by GROUP: an assignment through REST E21 repaints the
    unit without a reload (written again if the subscription was not yet held)."""
    building = BUILDINGS["imdf-venue"]
    session = open_building(site, building, f"?level={building.level}&group={GROUP}")
    wait_for(site, session, "document.getElementById('legend').dataset.state === 'ready'")
    units = site.graphql(UNITS, id=building.map_id)["unitMap"]["units"]
    unit = next(u["id"] for u in units if u["floorId"] == building.floor)
    fill = f"""(() => {{ const u = document.querySelector(
      '#map [data-unit-id="{unit}"]:not([data-unit-label])');
      return u && getComputedStyle(u).fill; }})()"""
    before = js(site, session, fill)
    assert before, f"unit {unit} is not drawn"
    js(site, session, "window.liveMarker = 'before'")
    changed = None
    for attribute in ("let", "vacant", "works", "let"):
        item = {
            "group_id": GROUP,
            "attribute_id": f"{GROUP}-{attribute}",
            "asset_id": building.asset_id,
            "unit_id": unit,
        }
        answer = site.api.put(f"/v1/units/attribute-groups/{GROUP}/units", json={"data": [item]})
        assert answer.status_code == 200, answer.text
        until = time.monotonic() + 3
        while time.monotonic() < until:
            now = js(site, session, fill)
            if now != before:
                changed = now
                break
            site.browser.drain(0.2)
        if changed:
            break
    assert changed, f"unit {unit} stayed {before} after E21 assignments"
    assert js(site, session, "window.liveMarker") == "before"  # no reload


@pytest.mark.parametrize("name", BUILDINGS)
def test_screenshots(site, name):
    building = BUILDINGS[name]
    session = open_building(site, building, f"?level={building.level}")
    wait_until(site.browser, session, "document.fonts.status === 'loaded'", 5)
    data = screenshot(site, session)
    assert png_size(data) == DESKTOP
    if os.environ.get("FLOORGATE_UPDATE_SCREENSHOTS") == "1":
        SCREENSHOTS.mkdir(exist_ok=True)
        (SCREENSHOTS / f"{building.screenshot}.png").write_bytes(data)


def test_screenshot_of_the_imdf_walk_paths(site):
    """The README's picture of a generated level: the IMDF venue with its walk paths."""
    building = BUILDINGS["imdf-venue"]
    session = open_building(site, building, f"?level={building.level}&paths=1")
    wait_until(site.browser, session, "document.fonts.status === 'loaded'", 5)
    lines = js(site, session, "document.querySelectorAll('.level:not(.off) .paths-layer *').length")
    assert lines > 0  # drawn once shown
    data = screenshot(site, session)
    assert png_size(data) == DESKTOP
    if os.environ.get("FLOORGATE_UPDATE_SCREENSHOTS") == "1":
        (SCREENSHOTS / "imdf-generated-level.png").write_bytes(data)
