"""The viewer's search box and "nearest" buttons in headless Chromium against `floorgate
serve` on the demo (issue 47, point 6): the box asks the API's `search` on the map shown
(typos, places of other levels with their floor), once per pause in typing, a stale
answer dropped; a result shows its level and sets From or To; the buttons are the kinds
of place the map has, each one route to the nearest of them, drawn with its steps."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest

from tests.chromium import CHROMIUM, MISSING
from tests.e2e.viewer.viewer_site import (
    FLAGS,
    MAP,
    Site,
    click,
    js,
    module_on,
    open_viewer,
    page_events,
    problems,
    shared_demo_site,
    shown_level,
    wait_for,
)
from tests.venues.imdf_venues import stable_id

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(CHROMIUM is None, reason=MISSING)]

site, _close_its_tabs = shared_demo_site()

START = f"{MAP}:b1-307"  # a unit on Floor 3
FROM_START = f"?level=level-b1-f3&from=loc%3A{quote(START)}"
GYM, MAIL = "loc-b1-f1-gym@map-b1", "loc-b1-f1-mail@map-b1"  # Floor 1 only
SEARCH = """query($q: String!, $map: ID!) { search(q: $q, unitMapId: $map, perPage: 20) {
  data { kind id name floorId locationId category } } }"""
ROUTE = """query($map: ID!, $from: WaypointInput!, $to: WaypointInput!, $mode: String) {
  route(unitMapId: $map, from: $from, to: $to, mode: $mode) {
    to { id name floorId } route { steps legs { levelUid } } } }"""
LIST_READY = (
    "document.getElementById('location-list').dataset.state === 'ready'"
    " && document.getElementById('location-list').dataset.source === {source!r}"
)
ROWS = """Array.from(document.querySelectorAll('#location-list li[data-location-id]'), li => ({
  location: li.dataset.locationId, place: li.dataset.placeId || null,
  name: li.querySelector('.location-name').firstChild.textContent,
  where: li.querySelector('.location-name small').textContent}))"""
ROUTE_READY = "document.getElementById('directions').dataset.state === 'ready'"
DRAWN = """({legs: Array.from(document.querySelectorAll('polyline.route-leg'))
    .sort((a, b) => a.dataset.leg - b.dataset.leg).map(l => l.dataset.levelUid),
  steps: Array.from(document.querySelectorAll('#route-steps .step-text'), s => s.textContent),
  from: document.getElementById('from-name').textContent,
  to: document.getElementById('to-name').textContent})"""
NEAREST = """Array.from(document.querySelectorAll('#nearest button[data-nearest]'), b => ({
  q: b.dataset.nearest, text: b.textContent, label: b.getAttribute('aria-label'),
  disabled: b.disabled, pressed: b.getAttribute('aria-pressed')}))"""


# ---------------------------------------------------------------- helpers


def api(site: Site, query: str, **variables: Any) -> dict[str, Any]:
    """The API as the viewer asks it: with the flag `search` too."""
    answer = site.api.post(
        "/graphql",
        json={"query": query, "variables": variables},
        headers={"Experimental-Flags": f"{FLAGS}, search"},
    )
    body = answer.json()
    assert "errors" not in body, body
    return body["data"]


def type_in_search(site: Site, session: str, text: str) -> None:
    """`text` typed into the search box, one input event per character, all in one task:
    no pause of the box's can end between them."""
    js(
        site,
        session,
        f"""(() => {{ const box = document.getElementById('location-search'); box.focus();
        box.value = ''; box.dispatchEvent(new Event('input', {{bubbles: true}}));
        for (const c of {json.dumps(text)}) {{ box.value += c;
          box.dispatchEvent(new Event('input', {{bubbles: true}})); }} }})()""",
    )


def searches_sent(site: Site, session: str) -> list[dict[str, Any]]:
    """The variables of every `search` request the page sent, in order."""
    sent = []
    for event in page_events(site, session):
        request = event.get("params", {}).get("request", {})
        if event.get("method") == "Network.requestWillBeSent" and "ViewerSearch" in (
            request.get("postData") or ""
        ):
            sent.append(json.loads(request["postData"])["variables"])
    return sent


def search_rows(site: Site, session: str) -> list[dict[str, Any]]:
    return js(site, session, ROWS)


FLOORS = "query($id: ID!) { asset(id: $id) { floors { id name } } }"


def floor_names(site: Site, asset: str = "harbor-view") -> dict[str, str]:
    return {f["id"]: f["name"] for f in site.graphql(FLOORS, id=asset)["asset"]["floors"]}


def expected_rows(
    site: Site, q: str, map_id: str = MAP, asset: str = "harbor-view"
) -> list[dict[str, Any]]:
    """The rows the API's answer makes: name, then "<floor's name> · <kind in words>"."""
    floors = floor_names(site, asset)
    found = api(site, SEARCH, q=q, map=map_id)["search"]["data"]
    return [
        {
            "location": one["locationId"],
            "place": one["id"],
            "name": one["name"],
            "where": f" {floors[one['floorId']]} · {re.sub('[._]+', ' ', one['category'])}",
        }
        for one in found
    ]


def route_answer(
    site: Site, to: dict[str, Any], mode: str = "foot", start: str = START, map_id: str = MAP
) -> dict[str, Any]:
    variables = {"map": map_id, "from": {"id": start}, "to": to, "mode": mode}
    return api(site, ROUTE, **variables)["route"]


def wait_until_loaded(site: Site, session: str) -> None:
    """The list and the nearest buttons in: the page asks nothing more by itself."""
    wait_for(site, session, LIST_READY.format(source="locations"))
    wait_for(site, session, "document.getElementById('nearest').dataset.state !== 'loading'")


# ---------------------------------------------------------------- the search box


def test_a_typo_finds_a_place_on_another_level_and_shows_its_floor(site):
    session = open_viewer(site, "?level=level-b1-f3")
    wait_until_loaded(site, session)
    before = len(searches_sent(site, session))
    type_in_search(site, session, "fitnes centr")
    wait_for(site, session, LIST_READY.format(source="search"))
    # one request for the whole burst of typing, on this map
    assert searches_sent(site, session)[before:] == [
        {"q": "fitnes centr", "map": MAP, "perPage": 20}
    ]
    rows = search_rows(site, session)
    assert rows == expected_rows(site, "fitnes centr")
    assert rows == [
        {
            "location": GYM,
            "place": "loc-b1-f1-gym",
            "name": "Fitness Center",
            "where": " Floor 1 · fitness centre",
        }
    ]
    assert js(site, session, "document.getElementById('search-status').textContent") == (
        "1 place found on this map"
    )
    assert shown_level(site, session) == ["level-b1-f3"]
    assert "&q=fitnes+centr" in js(site, session, "location.search")

    # a click shows its level, marks it and offers "From here" / "To here"
    row = f'#location-list li[data-location-id="{GYM}"]'
    click(site, session, f"{row} .location-name")
    wait_for(
        site, session, f"!!document.querySelector('.location-marker[data-location-id=\"{GYM}\"]')"
    )
    assert shown_level(site, session) == ["level-b1-f1"]
    marker_level = js(
        site,
        session,
        f"document.querySelector('.location-marker[data-location-id=\"{GYM}\"]')"
        ".closest('.level').dataset.levelUid",
    )
    assert marker_level == "level-b1-f1"
    actions = js(
        site,
        session,
        f"""Array.from(document.querySelectorAll('{row} .place-actions button'),
        b => [b.dataset.role, b.textContent, b.getAttribute('aria-label')])""",
    )
    assert actions == [
        ["from", "From here", "Directions from Fitness Center"],
        ["to", "To here", "Directions to Fitness Center"],
        ["stop", "Add stop", "Add Fitness Center as a stop"],  # issue 50: several stops
    ]
    assert js(site, session, f"document.querySelector('{row} .location-name').ariaExpanded") == (
        "true"
    )

    # the keyboard: the list is one tab stop; right arrow reaches "From here", Enter sets it
    js(site, session, f"document.querySelector('{row} .location-name').focus()")
    press(site, session, "ArrowRight")
    assert js(site, session, "document.activeElement.dataset.role") == "from"
    assert (
        js(site, session, "document.querySelectorAll('#location-list [tabindex=\"0\"]').length")
        == 1
    )
    press(site, session, "Enter")
    wait_for(
        site,
        session,
        "document.getElementById('from-name').textContent === 'Fitness Center'",
    )
    assert f"from=loc%3A{quote(GYM)}" in js(site, session, "location.search")

    # an empty box lists the map's locations again
    type_in_search(site, session, "")
    wait_for(site, session, LIST_READY.format(source="locations"))
    listed = js(
        site, session, "document.querySelectorAll('#location-list li[data-location-id]').length"
    )
    all_locations = site.graphql('{ locations(unitMapId: "map-b1") { data { id } } }')
    assert listed == len(all_locations["locations"]["data"]) > 50
    assert "q=" not in js(site, session, "location.search")
    assert problems(site, session) == []


def press(site: Site, session: str, key: str) -> None:
    """A real key press (keyDown and keyUp) to the focused element."""
    codes = {"Enter": 13, "ArrowRight": 39}
    for kind in ("keyDown", "keyUp"):
        event = {"type": kind, "key": key, "code": key, "windowsVirtualKeyCode": codes[key]}
        if key == "Enter" and kind == "keyDown":
            event["text"] = "\r"
        site.browser.call("Input.dispatchKeyEvent", event, session=session)


def test_a_result_sets_to_and_the_route_is_drawn(site):
    session = open_viewer(site, FROM_START)
    wait_until_loaded(site, session)
    type_in_search(site, session, "mial room")  # a typo of a place on Floor 1
    wait_for(site, session, LIST_READY.format(source="search"))
    assert [(r["location"], r["name"], r["where"]) for r in search_rows(site, session)] == [
        (MAIL, "Mail Room", " Floor 1 · mailroom")
    ]
    row = f'#location-list li[data-location-id="{MAIL}"]'
    click(site, session, f"{row} .location-name")
    wait_for(site, session, f"!!document.querySelector('{row} [data-role=\"to\"]')")
    click(site, session, f'{row} [data-role="to"]')
    wait_for(site, session, ROUTE_READY)
    expected = route_answer(site, {"id": MAIL})
    drawn = js(site, session, DRAWN)
    assert drawn == {
        "legs": [leg["levelUid"] for leg in expected["route"]["legs"]],
        "steps": expected["route"]["steps"],
        "from": "307",
        "to": "Mail Room",
    }
    assert drawn["legs"] == ["level-b1-f3", "level-b1-f1"]
    assert drawn["steps"][-1] == "Walk 180 ft, then arrive at Mail Room on your right"
    assert shown_level(site, session) == ["level-b1-f3"]  # a new trip opens at its start
    assert f"&to=loc%3A{quote(MAIL)}" in js(site, session, "location.search")
    assert problems(site, session) == []


def test_a_stale_answer_is_dropped(site):
    """The answer to "trash", held back until "mail" is answered, never replaces it:
    its request is aborted when "mail" is asked."""
    session = open_viewer(site)
    wait_until_loaded(site, session)
    site.browser.call(
        "Fetch.enable",
        {"patterns": [{"urlPattern": "*/graphql*", "requestStage": "Request"}]},
        session=session,
    )
    seen = len(site.browser.events)
    type_in_search(site, session, "trash")
    held = next_paused(site, session, seen)
    assert json.loads(held["request"]["postData"])["variables"]["q"] == "trash"
    seen = len(site.browser.events)
    type_in_search(site, session, "mail")
    paused = next_paused(site, session, seen)
    assert json.loads(paused["request"]["postData"])["variables"]["q"] == "mail"
    site.browser.call("Fetch.continueRequest", {"requestId": paused["requestId"]}, session=session)
    wait_for(site, session, LIST_READY.format(source="search"))
    assert [r["location"] for r in search_rows(site, session)] == [MAIL]
    failed = [
        event["params"]
        for event in page_events(site, session)
        if event.get("method") == "Network.loadingFailed"
        and event["params"]["requestId"] == held["networkId"]
    ]
    assert [(f["canceled"], f["errorText"]) for f in failed] == [(True, "net::ERR_ABORTED")]
    site.browser.call("Fetch.disable", session=session)
    site.browser.drain(0.5)  # anything late would land now
    assert [r["location"] for r in search_rows(site, session)] == [MAIL]
    assert problems(site, session) == []


def next_paused(site: Site, session: str, after: int) -> dict[str, Any]:
    """The first `Fetch.requestPaused` of the tab among events `after` on."""
    for _ in range(100):
        for event in site.browser.events[after:]:
            if event.get("method") == "Fetch.requestPaused" and event.get("sessionId") == session:
                return event["params"]
        site.browser.drain(0.1)
    raise AssertionError("no request was paused")


# ---------------------------------------------------------------- the nearest buttons


@pytest.mark.parametrize(
    ("map_id", "kinds"),
    [(MAP, ["elevator", "gym", "mail", "trash"]), ("map-b2", ["elevator", "mail", "trash"])],
)
def test_the_buttons_are_the_kinds_the_map_has(site, map_id, kinds):
    """Building 1 has a gym, a mail room and trash rooms; Building 2 no gym. Both have an
    elevator, a place on each floor since its drawn connector is (issue 66, point 5);
    neither a restroom nor an exit."""
    for word in ("restroom", "exit", "entrance", "food", "parking"):
        assert api(site, SEARCH, q=word, map=map_id)["search"]["data"] == []
    session = open_viewer(site, map_id=map_id)
    wait_until_loaded(site, session)
    labels = {"elevator": "Elevator", "gym": "Gym", "mail": "Mail room", "trash": "Trash room"}
    assert js(site, session, NEAREST) == [
        {
            "q": kind,
            "text": labels[kind],
            "label": f"Nearest {labels[kind].lower()}",
            "disabled": True,
            "pressed": "false",
        }
        for kind in kinds
    ]
    assert js(site, session, "document.getElementById('nearest').hidden") is False
    assert js(site, session, "document.getElementById('nearest-hint').hidden") is False
    assert js(site, session, "document.getElementById('nearest').dataset.kinds") == " ".join(kinds)
    assert problems(site, session) == []


def test_a_nearest_button_draws_the_route_to_the_nearest_place(site):
    session = open_viewer(site, FROM_START)
    wait_until_loaded(site, session)
    wait_for(site, session, "document.getElementById('directions').dataset.state === 'idle'")
    assert [b["disabled"] for b in js(site, session, NEAREST)] == [False, False, False, False]
    assert js(site, session, "document.getElementById('nearest-hint').hidden") is True

    # the trash room of the start's own floor
    click(site, session, '#nearest button[data-nearest="trash"]')
    wait_for(site, session, ROUTE_READY)
    expected = route_answer(site, {"nearest": {"q": "trash"}})
    assert expected["to"] == {
        "id": "loc-b1-f3-trash@map-b1",
        "name": "Trash Room",
        "floorId": "b1-f3",
    }
    assert js(site, session, DRAWN) == {
        "legs": ["level-b1-f3"],
        "steps": expected["route"]["steps"],
        "from": "307",
        "to": "Trash Room (nearest)",
    }
    assert [b["pressed"] for b in js(site, session, NEAREST)] == ["false", "false", "false", "true"]
    assert js(site, session, "location.search").startswith(
        f"?level=level-b1-f3&from=loc%3A{quote(START)}&to=near%3Atrash&box="
    )

    # the only mail room is two floors down: the stairs, and the steps to it
    click(site, session, '#nearest button[data-nearest="mail"]')
    wait_for(
        site,
        session,
        ROUTE_READY + " && document.getElementById('to-name').textContent"
        " === 'Mail Room (nearest)'",
    )
    expected = route_answer(site, {"nearest": {"q": "mail"}})
    assert expected["to"]["id"] == MAIL
    assert expected == route_answer(site, {"id": MAIL})  # the plain route to it
    drawn = js(site, session, DRAWN)
    assert drawn["legs"] == ["level-b1-f3", "level-b1-f1"]
    assert drawn["steps"] == expected["route"]["steps"]
    assert any("take the stairs down 2 floors to Floor 1" in step for step in drawn["steps"])

    # by wheelchair the nearest is asked again, in that mode
    click(site, session, "#wheelchair")
    wait_for(
        site,
        session,
        "document.getElementById('directions').dataset.mode === 'wheelchair' && " + ROUTE_READY,
    )
    wheelchair = route_answer(site, {"nearest": {"q": "mail"}}, "wheelchair")
    drawn = js(site, session, DRAWN)
    assert drawn["steps"] == wheelchair["route"]["steps"] != expected["route"]["steps"]
    assert drawn["to"] == "Mail Room (nearest)"

    # Swap: the chosen place becomes the start ("the nearest" is no start)
    click(site, session, "#swap-route")
    wait_for(
        site, session, ROUTE_READY + " && document.getElementById('to-name').textContent === '307'"
    )
    assert js(site, session, DRAWN)["from"] == "Mail Room"
    assert f"from=loc%3A{quote(MAIL)}&to=loc%3A{quote(START)}" in js(
        site, session, "location.search"
    )
    assert [b["pressed"] for b in js(site, session, NEAREST)] == ["false"] * 4
    assert problems(site, session) == []


def test_a_link_to_the_nearest_opens_its_route(site):
    session = open_viewer(site, f"?from=loc%3A{quote(START)}&to=near%3Agym")
    wait_for(site, session, ROUTE_READY)
    expected = route_answer(site, {"nearest": {"q": "gym"}})
    assert expected["to"]["id"] == GYM
    drawn = js(site, session, DRAWN)
    assert drawn["steps"] == expected["route"]["steps"]
    assert drawn["to"] == "Fitness Center (nearest)"
    assert problems(site, session) == []


# ---------------------------------------------------------------- an IMDF venue's restrooms

VENUE = stable_id("venue:Harbourside Exchange")  # asset and stack map id
FIRST_FLOOR = stable_id("level:ex-L1")  # its floor id; its level's uid is "level-" + it


@pytest.fixture(scope="module")
def venue(venues_site: Site) -> Iterator[Site]:
    """The worker's venues site (tests/e2e/viewer/conftest.py): Harbourside Exchange
    (tests/venues/imdf_venues.py), imported as `floorgate import-imdf` imports it."""
    with module_on(venues_site):
        yield venues_site


def test_on_an_imdf_venue_restrooms_of_every_level_and_the_nearest_one(venue):
    """Harbourside Exchange has restrooms on each of its four levels, lifts and a café:
    the buttons are those three kinds (its lifts are drawn, not units, yet places);
    "washroom" lists all eight restrooms with their floors;
    "Restroom" from the First Floor's open-plan office goes to one on that floor."""
    start = api(venue, SEARCH, q="open plan", map=VENUE)["search"]["data"]
    assert [(one["name"], one["floorId"]) for one in start] == [("Open Plan", FIRST_FLOOR)]
    start_id = start[0]["locationId"]
    session = open_viewer(venue, f"?from=loc%3A{quote(start_id)}", map_id=VENUE)
    wait_until_loaded(venue, session)
    assert [(b["text"], b["label"], b["disabled"]) for b in js(venue, session, NEAREST)] == [
        ("Restroom", "Nearest restroom", False),
        ("Elevator", "Nearest elevator", False),
        ("Food", "Nearest food", False),
    ]

    type_in_search(venue, session, "washroom")
    wait_for(venue, session, LIST_READY.format(source="search"))
    rows = search_rows(venue, session)
    assert rows == expected_rows(venue, "washroom", VENUE, VENUE)
    floors = floor_names(venue, VENUE)
    assert sorted(row["where"] for row in rows) == sorted(
        f" {name} · restroom {kind}" for name in floors.values() for kind in ("female", "male")
    )
    assert len(rows) == 8 and len(floors) == 4

    click(venue, session, '#nearest button[data-nearest="restroom"]')
    wait_for(venue, session, ROUTE_READY)
    expected = route_answer(venue, {"nearest": {"q": "restroom"}}, start=start_id, map_id=VENUE)
    assert expected["to"]["floorId"] == FIRST_FLOOR
    assert expected["to"]["name"] in ("Restroom (female) 1", "Restroom (male) 1")
    drawn = js(venue, session, DRAWN)
    assert drawn == {
        "legs": [f"level-{FIRST_FLOOR}"] * len(expected["route"]["legs"]),
        "steps": expected["route"]["steps"],
        "from": "Open Plan",
        "to": f"{expected['to']['name']} (nearest)",
    }
    assert problems(venue, session) == []
