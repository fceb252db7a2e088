"""Shaping a route in the viewer (issue 50, point 4), in headless Chromium against
`floorgate serve` on the demo and on Harbour Station (tests/venues/imdf_shared_ordinals.py,
an IMDF venue of our own with stairs, lifts and an escalator): each toggle changes the
request the page sends and the route it draws, as the API answers it; stops are added,
listed, numbered on the map and in the steps, ordered by the API on request, and kept in
the URL; at most the API's number of stops."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import pytest

from resolvers.limits import MAX_OPTIMIZED_VIA, MAX_VIA
from tests.chromium import CHROMIUM, MISSING
from tests.e2e.viewer.viewer_site import (
    MAP,
    Site,
    click,
    js,
    open_viewer,
    page_events,
    problems,
    shared_demo_site,
    shown_level,
    wait_for,
)
from tests.venues.imdf_shared_ordinals import SharedOrdinals

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(CHROMIUM is None, reason=MISSING)]

START, END = f"{MAP}:b1-104", f"{MAP}:b1-307"  # Floor 1 to Floor 3: the stairs on foot
TRIP = f"?from=loc%3A{quote(START)}&to=loc%3A{quote(END)}"
READY = "document.getElementById('directions').dataset.state === 'ready'"


def route_query(costing: bool, via: bool) -> str:
    """The API's `route` with only the arguments used (each landed on its own)."""
    variables = ", $costing: CostingOptionsInput" if costing else ""
    arguments = ", costingOptions: $costing" if costing else ""
    if via:
        variables += ", $via: [WaypointInput!], $optimize: Boolean"
        arguments += ", via: $via, optimize: $optimize"
    return f"""query($map: ID!, $from: WaypointInput!, $to: WaypointInput!, $mode: String
        {variables}) {{
      route(unitMapId: $map, from: $from, to: $to, mode: $mode{arguments}) {{
        mode reason {"via { id x y floorId } visitOrder optimized" if via else ""}
        route {{ distance time steps
          legs {{ levelUid points {{ x y }} connector {{ id kind fromLevelUid toLevelUid }} }}
          maneuvers {{ type legIndex instruction {"viaIndex" if via else ""} }} }} }} }}"""


DRAWN = """({
  legs: Array.from(document.querySelectorAll('polyline.route-leg'), p =>
    [Number(p.dataset.leg), p.dataset.levelUid,
     p.getAttribute('points').split(' ').map(xy => xy.split(',').map(Number))]),
  connectors: Array.from(document.querySelectorAll('.route-marker[data-connector-kind]'),
    m => [Number(m.dataset.leg), m.dataset.connectorId, m.dataset.connectorKind,
          m.dataset.levelUid]),
  stops: Array.from(document.querySelectorAll('.route-marker.stop-marker'), m =>
    [Number(m.dataset.viaIndex), m.dataset.levelUid, Number(m.dataset.x), Number(m.dataset.y),
     m.textContent]),
  steps: Array.from(document.querySelectorAll('#route-steps .step-text'), t => t.textContent),
  distance: Number(document.getElementById('route-summary').dataset.distance),
})"""
# The worker's shared demo site (tests/e2e/viewer/conftest.py), Harbour Station imported
# beside the demo: this module only reads.
site, _close_its_tabs = shared_demo_site()


@pytest.fixture(scope="module")
def station(shared_station: SharedOrdinals) -> SharedOrdinals:
    return shared_station


# ---------------------------------------------------------------- helpers


def api_route(site: Site, map_id: str, start: str, end: str, **shape: Any) -> dict[str, Any]:
    """The API's answer for the trip shaped as the page should have asked."""
    variables = {"map": map_id, "from": {"id": start}, "to": {"id": end}, **shape}
    query = route_query("costing" in shape, "via" in shape)
    answer: dict[str, Any] = site.graphql(query, **variables)["route"]
    for maneuver in answer["route"]["maneuvers"] if answer["route"] else []:
        maneuver.setdefault("viaIndex", None)
    return answer


def routes_sent(site: Site, session: str) -> list[dict[str, Any]]:
    """The variables of every `route` request the page sent, in order."""
    sent = []
    for event in page_events(site, session):
        request = event.get("params", {}).get("request", {})
        if event.get("method") == "Network.requestWillBeSent" and "ViewerRoute" in (
            request.get("postData") or ""
        ):
            sent.append(json.loads(request["postData"])["variables"])
    return sent


def expected_drawing(answer: dict[str, Any], levels: dict[str, str]) -> dict[str, Any]:
    """What the page must draw of `answer`: legs point for point, connectors on both their
    levels, a numbered marker at each stop (on its arriving leg's level), the steps with
    each stop's arrival named, the distance. `levels`: floor id -> level uid."""
    route = answer["route"]
    legs = route["legs"]
    stops = []
    for maneuver in route["maneuvers"]:
        index = maneuver["viaIndex"]
        if index is not None:
            stop = answer["via"][index]
            level = legs[maneuver["legIndex"]]["levelUid"] or levels[stop["floorId"]]
            stops.append([index, level, stop["x"], stop["y"], str(index + 1)])

    def text(maneuver: dict[str, Any]) -> str:
        if maneuver["viaIndex"] is None:
            return str(maneuver["instruction"])
        said, note = str(maneuver["instruction"]), f"(stop {maneuver['viaIndex'] + 1})"
        return f"{said[:-1]} {note}." if said.endswith(".") else f"{said} {note}"

    return {
        "legs": [
            [i, leg["levelUid"], [[p["x"], p["y"]] for p in leg["points"]]]
            for i, leg in enumerate(legs)
        ],
        "connectors": [
            [i, leg["connector"]["id"], leg["connector"]["kind"], uid]
            for i, leg in enumerate(legs)
            if leg["connector"]
            for uid in (leg["connector"]["fromLevelUid"], leg["connector"]["toLevelUid"])
        ],
        "stops": stops,
        "steps": [text(m) for m in route["maneuvers"]],
        "distance": route["distance"],
    }


def kinds(answer: dict[str, Any]) -> list[str]:
    return [leg["connector"]["kind"] for leg in answer["route"]["legs"] if leg["connector"]]


def settled(site: Site, session: str, count: int) -> None:
    """The page has sent `count` route requests and drawn the last answer."""
    wait_for(site, session, READY)
    site.browser.drain(0.2)
    assert len(routes_sent(site, session)) == count
    wait_for(site, session, READY)


DEMO_LEVELS = {f"b1-f{n}": f"level-b1-f{n}" for n in range(1, 5)}


# ---------------------------------------------------------------- the toggles


def test_avoid_stairs_asks_without_stairs_and_draws_that_route(site):
    foot = api_route(site, MAP, START, END, mode="foot")
    avoiding = api_route(
        site, MAP, START, END, mode="foot", costing={"pedestrian": {"exclude": ["stairs"]}}
    )
    assert kinds(foot) == ["stairs"] and kinds(avoiding) == ["elevator"]
    session = open_viewer(site, TRIP)
    settled(site, session, 1)
    assert "costing" not in routes_sent(site, session)[0]  # a plain route asks as before
    labels = js(
        site,
        session,
        """Array.from(document.querySelectorAll('#directions label'), l => l.textContent.trim())""",
    )
    assert labels[:3] == ["Step-free", "Avoid stairs", "Avoid escalators"]
    assert js(site, session, DRAWN) == expected_drawing(foot, DEMO_LEVELS)

    click(site, session, "#avoid-stairs")
    settled(site, session, 2)
    sent = routes_sent(site, session)[-1]
    assert sent["costing"] == {"pedestrian": {"exclude": ["stairs"]}} and sent["mode"] == "foot"
    assert js(site, session, DRAWN) == expected_drawing(avoiding, DEMO_LEVELS)
    assert "&avoid=stairs" in js(site, session, "location.search")
    assert js(site, session, "document.getElementById('directions').dataset.avoid") == "stairs"

    # the link restores it
    linked = open_viewer(site, TRIP + "&avoid=stairs")
    settled(site, linked, 1)
    assert js(site, linked, "document.getElementById('avoid-stairs').checked") is True
    assert routes_sent(site, linked)[0]["costing"] == {"pedestrian": {"exclude": ["stairs"]}}
    assert js(site, linked, DRAWN) == expected_drawing(avoiding, DEMO_LEVELS)

    click(site, session, "#avoid-stairs")  # off again: the plain route
    settled(site, session, 3)
    assert "costing" not in routes_sent(site, session)[-1]
    assert js(site, session, DRAWN) == expected_drawing(foot, DEMO_LEVELS)
    assert "avoid=" not in js(site, session, "location.search")
    assert problems(site, session) == [] and problems(site, linked) == []


def test_step_free_asks_a_wheelchair_route_and_covers_the_avoid_toggles(site):
    wheelchair = api_route(site, MAP, START, END, mode="wheelchair")
    session = open_viewer(site, TRIP + "&avoid=escalator")
    settled(site, session, 1)
    click(site, session, "#wheelchair")
    settled(site, session, 2)
    sent = routes_sent(site, session)[-1]
    assert sent["mode"] == "wheelchair"
    assert sent["costing"] == {"pedestrian": {"exclude": ["escalator"]}}
    assert js(site, session, DRAWN) == expected_drawing(wheelchair, DEMO_LEVELS)
    toggles = """['avoid-stairs', 'avoid-escalators'].map(id =>
        [document.getElementById(id).checked, document.getElementById(id).disabled])"""
    assert js(site, session, toggles) == [[True, True], [True, True]]  # implied
    search = js(site, session, "location.search")
    assert "&mode=wheelchair&avoid=escalator" in search
    click(site, session, "#wheelchair")  # off: the avoid toggles as they were
    settled(site, session, 3)
    assert js(site, session, toggles) == [[False, False], [True, False]]
    assert problems(site, session) == []


def test_avoid_escalators_on_harbour_station(site, station):
    """From the Lower Level's unnamed room to Gate A above it: on foot the escalator right
    below the gate; avoiding escalators, another way."""
    stack = station.stack
    start = f"{stack}:{station.units['lower:unnamed']}"
    end = f"{stack}:{station.units['concourse:gate']}"
    foot = api_route(site, stack, start, end, mode="foot")
    avoiding = api_route(
        site, stack, start, end, mode="foot", costing={"pedestrian": {"exclude": ["escalator"]}}
    )
    assert kinds(foot) == ["escalator"] and kinds(avoiding) and "escalator" not in kinds(avoiding)
    query = f"?from=loc%3A{quote(start)}&to=loc%3A{quote(end)}"
    session = open_viewer(site, query, map_id=stack)
    settled(site, session, 1)
    assert js(site, session, DRAWN) == expected_drawing(foot, {})
    click(site, session, "#avoid-escalators")
    settled(site, session, 2)
    assert routes_sent(site, session)[-1]["costing"] == {"pedestrian": {"exclude": ["escalator"]}}
    assert js(site, session, DRAWN) == expected_drawing(avoiding, {})
    assert "&avoid=escalator" in js(site, session, "location.search")
    assert problems(site, session) == []


# ---------------------------------------------------------------- stops


STOPS = """Array.from(document.querySelectorAll('#route-stops li.stop'), li =>
  [Number(li.dataset.viaIndex), li.querySelector('output').textContent,
   li.querySelector('button').getAttribute('aria-label')])"""


def test_a_route_through_one_stop(site):
    """Unit 205 (Floor 2) added from its panel: the route goes 104 -> 205 -> 307, a marker
    "1" at the stop, the arrival there named in the steps; removing it goes straight."""
    stop = f"{MAP}:b1-205"
    through = api_route(site, MAP, START, END, mode="foot", via=[{"id": stop}], optimize=False)
    plain = api_route(site, MAP, START, END, mode="foot")
    assert through["visitOrder"] == [0] and through["optimized"] is None
    assert [m["viaIndex"] for m in through["route"]["maneuvers"]].count(0) == 1
    session = open_viewer(site, TRIP + "&unit=b1-205")
    settled(site, session, 1)
    wait_for(site, session, "document.getElementById('unit-panel').dataset.state === 'ready'")
    click(site, session, "#unit-stop")
    settled(site, session, 2)
    sent = routes_sent(site, session)[-1]
    assert sent["via"] == [{"id": stop}] and sent["optimize"] is False
    drawn = js(site, session, DRAWN)
    assert drawn == expected_drawing(through, DEMO_LEVELS)
    assert drawn["stops"] and drawn["stops"][0][1] == "level-b1-f2"
    assert (
        sum(
            "arrive at 205" in text.lower() and text.endswith(" (stop 1)")
            for text in drawn["steps"]
        )
        == 1
    )
    assert js(site, session, STOPS) == [[0, "205", "Remove stop 1, 205"]]
    assert f"&via=loc%3A{quote(stop)}&to=" in js(site, session, "location.search")
    # the optimise toggle only shows with two stops or more
    assert js(site, session, "document.getElementById('optimize-stops').closest('label').hidden")

    # the remove button: keyboard-reachable, and focus stays in the card
    js(site, session, "document.querySelector('#route-stops button').focus()")
    js(site, session, "document.activeElement.click()")
    settled(site, session, 3)
    assert "via" not in routes_sent(site, session)[-1]
    assert js(site, session, DRAWN) == expected_drawing(plain, DEMO_LEVELS)
    assert js(site, session, STOPS) == []
    assert js(site, session, "document.activeElement.id") == "clear-route"
    assert "via=" not in js(site, session, "location.search")
    assert problems(site, session) == []


def unordered(drawing: dict) -> dict:
    """A drawing with each of its lists sorted: a route through one stairway several
    times draws its markers level by level, not in walking order."""
    return {
        name: sorted(items) if isinstance(items, list) else items for name, items in drawing.items()
    }


def test_optimise_orders_the_stops(site):
    """From 104 (Floor 1) to 307 (Floor 3) through 305 (Floor 3) and 105 (Floor 1), listed
    in that order: the API visits 105 first when asked to optimise."""
    stops = [f"{MAP}:b1-305", f"{MAP}:b1-105"]
    via = [{"id": stop} for stop in stops]
    given = api_route(site, MAP, START, END, mode="foot", via=via, optimize=False)
    best = api_route(site, MAP, START, END, mode="foot", via=via, optimize=True)
    assert best["visitOrder"] == [1, 0] and best["optimized"] == "exact"
    assert best["route"]["time"] < given["route"]["time"]
    query = TRIP + "".join(f"&via=loc%3A{quote(stop)}" for stop in stops)
    session = open_viewer(site, query)
    settled(site, session, 1)
    assert unordered(js(site, session, DRAWN)) == unordered(expected_drawing(given, DEMO_LEVELS))
    assert js(site, session, "document.getElementById('stops-order').hidden")
    click(site, session, "#optimize-stops")
    settled(site, session, 2)
    sent = routes_sent(site, session)[-1]
    assert sent["via"] == via and sent["optimize"] is True
    assert unordered(js(site, session, DRAWN)) == unordered(expected_drawing(best, DEMO_LEVELS))
    order = js(site, session, "document.getElementById('stops-order').textContent")
    assert order == "Best order (exact): stops 2, 1"
    assert "&optimize=1" in js(site, session, "location.search")
    linked = open_viewer(site, js(site, session, "location.search"))
    settled(site, linked, 1)
    assert js(site, linked, "document.getElementById('optimize-stops').checked") is True
    assert unordered(js(site, linked, DRAWN)) == unordered(expected_drawing(best, DEMO_LEVELS))
    assert problems(site, session) == [] and problems(site, linked) == []


def test_optimise_is_offered_up_to_the_number_the_api_orders(site):
    """Issue 63: the API orders at most MAX_OPTIMIZED_VIA stops (more is 422 on `via`).
    A link of one stop more with `optimize=1` hides the toggle and asks the route in the
    order listed, which is drawn; one stop less offers it again and asks it ordered."""
    points = [f"pt%3A{100 + 10 * n}%2C300%2Cb1-f1" for n in range(MAX_OPTIMIZED_VIA + 1)]
    session = open_viewer(site, TRIP + "".join(f"&via={p}" for p in points) + "&optimize=1")
    settled(site, session, 1)
    label = "document.getElementById('optimize-stops').closest('label').hidden"
    assert js(site, session, label) is True
    sent = routes_sent(site, session)[-1]
    assert len(sent["via"]) == MAX_OPTIMIZED_VIA + 1 and sent["optimize"] is False
    assert js(site, session, "document.getElementById('stops-order').hidden")
    js(site, session, "document.querySelector('#route-stops button').click()")  # one less
    settled(site, session, 2)
    assert js(site, session, label) is False
    sent = routes_sent(site, session)[-1]
    assert len(sent["via"]) == MAX_OPTIMIZED_VIA and sent["optimize"] is True
    assert problems(site, session) == []


def test_at_most_the_apis_number_of_stops(site):
    """A link with one stop too many keeps the API's maximum; every "add" is disabled."""
    points = [f"pt%3A{100 + 10 * n}%2C300%2Cb1-f1" for n in range(MAX_VIA + 1)]
    session = open_viewer(
        site, "?level=level-b1-f1&unit=b1-104" + "".join(f"&via={p}" for p in points)
    )
    wait_for(site, session, "document.getElementById('unit-panel').dataset.state === 'ready'")
    wait_for(site, session, "document.getElementById('location-list').dataset.state === 'ready'")
    assert js(site, session, "document.querySelectorAll('#route-stops li.stop').length") == MAX_VIA
    assert js(site, session, "location.search").count("&via=") == MAX_VIA
    assert js(site, session, "document.getElementById('unit-stop').disabled") is True
    rows = """Array.from(document.querySelectorAll('#location-list [data-role="stop"]'),
        b => b.getAttribute('aria-disabled'))"""
    assert set(js(site, session, rows)) == {"true"}
    assert not js(site, session, "document.getElementById('stops-full').hidden")
    js(site, session, "document.querySelector('#location-list [data-role=\"stop\"]').click()")
    assert js(site, session, "document.querySelectorAll('#route-stops li.stop').length") == MAX_VIA
    js(site, session, "document.querySelector('#route-stops button').click()")  # one less
    assert js(site, session, "document.getElementById('unit-stop').disabled") is False
    assert set(js(site, session, rows)) == {"false"}
    assert shown_level(site, session) == ["level-b1-f1"]
    assert problems(site, session) == []
