"""The viewer's colours follow a group's assignments live (docs/viewer.md, "Live
colours"): headless Chromium on the viewer of the demo's map-b1, served by
`floorgate serve` over TLS, while the test writes assignments through REST (E21, E22).
What the page shows is checked to the colour and the count, without a reload: a marker
put on `window` before the writes is still there after them.

The viewer's WebSocket is watched through the DevTools Network events of its frames:
what it subscribed to, with which cursor, and what it was told."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from tests.chromium import CHROMIUM, MISSING, wait_until
from tests.e2e.viewer.viewer_site import (
    MAP,
    Site,
    demo_site,
    js,
    open_viewer,
    page_events,
    problems,
    wait_for,
)

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(CHROMIUM is None, reason=MISSING)]

ASSET = "harbor-view"
LEVEL = "level-b1-f1"  # the level the viewer opens on
# colours.js's PALETTE (an attribute's colour by its place in its group) and NONE.
PALETTE = ["#60a5fa", "#f59e0b", "#34d399", "#f472b6"]
NONE = "#e5e7eb"
SECONDS = 10  # a change shows well within this (it takes milliseconds)

GROUPS = """query { unitAttributeGroups { groupId attributes { attributeId } } }"""
ASSIGNMENTS = """query($group: ID!) {
  unitAttributeAssignments(groupId: $group, assetId: "harbor-view", perPage: 10000) {
    data { unitId attributeId } } }"""


# A demo database of this module's own: its writes change nothing that
# test_viewer_browser.py checks (its screenshots among them).
demo_key, site = demo_site("viewer-live")


# ---------------------------------------------------------------- helpers


def attributes_of(site: Site, group: str) -> list[str]:
    groups = site.graphql(GROUPS)["unitAttributeGroups"]
    return next(
        [a["attributeId"] for a in g["attributes"]] for g in groups if g["groupId"] == group
    )


def held(site: Site, group: str) -> dict[str, set[str]]:
    """unit id -> the group's attributes it holds (the asset's)."""
    found: dict[str, set[str]] = {}
    for item in site.graphql(ASSIGNMENTS, group=group)["unitAttributeAssignments"]["data"]:
        found.setdefault(item["unitId"], set()).add(item["attributeId"])
    return found


def write(site: Site, group: str, attribute: str, unit: str, remove: bool = False) -> None:
    """E21 (assign) or E22 (remove) of one item, through the server."""
    path = f"/v1/units/attribute-groups/{group}/units" + ("/remove" if remove else "")
    item = {"group_id": group, "attribute_id": attribute, "asset_id": ASSET, "unit_id": unit}
    answer = site.api.put(path, json={"data": [item]})
    assert answer.status_code == (204 if remove else 200), answer.text


def shown_units(site: Site, session: str) -> list[str]:
    return js(
        site,
        session,
        f"""Array.from(document.querySelectorAll(
        'polygon.unit[data-level-uid="{LEVEL}"]'), u => u.dataset.unitId)""",
    )


def unit_colour(site: Site, session: str, unit: str) -> list[str]:
    """[fill, data-attribute-id] of the unit's polygon."""
    return js(
        site,
        session,
        f"""(() => {{ const u = document.querySelector('polygon.unit[data-unit-id="{unit}"]');
        return [u.getAttribute('fill'), u.dataset.attributeId]; }})()""",
    )


def legend_counts(site: Site, session: str) -> dict[str, int]:
    rows = js(
        site,
        session,
        """Array.from(document.querySelectorAll('#legend-items li'), li =>
        [li.dataset.attributeId, li.querySelector('.muted').textContent])""",
    )
    return {attribute: int(text.strip("()")) for attribute, text in rows}


def wait_for_colour(site: Site, session: str, unit: str, expected: list[str]) -> None:
    expression = f"""(() => {{ const u = document.querySelector(
      'polygon.unit[data-unit-id="{unit}"]');
      return u.getAttribute('fill') === {json.dumps(expected[0])}
        && u.dataset.attributeId === {json.dumps(expected[1])}; }})()"""
    assert wait_until(site.browser, session, expression, SECONDS), (
        unit,
        expected,
        unit_colour(site, session, unit),
    )


def wait_for_panel(site: Site, session: str, attribute: str) -> None:
    """The unit panel's `view` row names `attribute` ("": none)."""
    wait_for(
        site,
        session,
        f"""document.getElementById('unit-panel').dataset.state === 'ready'
        && document.querySelector('#unit-attributes dd[data-group-id="view"]')
        .dataset.attributeIds === {json.dumps(attribute)}""",
        SECONDS,
    )


def colour_of(attributes: list[str], holds: set[str]) -> list[str]:
    """What the viewer paints a unit holding `holds`: its first attribute in group order."""
    first = next((a for a in attributes if a in holds), None)
    return [PALETTE[attributes.index(first)], first] if first else [NONE, ""]


def frames(site: Site, session: str, method: str) -> list[dict[str, Any]]:
    """The viewer's WebSocket messages sent (`Sent`) or received (`Received`), in order
    (the server's come in binary frames, which DevTools gives in base64)."""
    found = []
    for event in page_events(site, session):
        if event["method"] == f"Network.webSocketFrame{method}":
            frame = event["params"]["response"]
            data = frame["payloadData"]
            found.append(json.loads(base64.b64decode(data) if frame["opcode"] == 2 else data))
    return found


def subscriptions(site: Site, session: str) -> list[dict[str, Any]]:
    return [m for m in frames(site, session, "Sent") if m["type"] == "subscribe"]


def reads_of(site: Site, session: str, group: str) -> int:
    """How many times the page read the group's assignments (POST /graphql)."""
    return sum(
        1
        for event in page_events(site, session)
        if event["method"] == "Network.requestWillBeSent"
        and "ViewerAssignments" in event["params"]["request"].get("postData", "")
        and f'"group":"{group}"' in event["params"]["request"]["postData"]
    )


def open_live(site: Site, group: str) -> str:
    """The viewer coloured by `group`, its subscription sent, and the server proven to
    hold it: graphql-transport-ws acknowledges no subscription, so a change is written
    until one shows (on a unit of the top floor: the tests' units are on the shown one)."""
    session = open_viewer(site, f"?group={group}")
    wait_for(
        site,
        session,
        "document.getElementById('legend').dataset.state === 'ready'"
        " && document.getElementById('legend').dataset.live === 'on'",
    )
    attributes = attributes_of(site, group)
    units = site.graphql("query($id: ID!) { unitMap(id: $id) { units { id floorId } } }", id=MAP)
    probe = next(u["id"] for u in units["unitMap"]["units"] if u["floorId"] == "b1-f4")
    for _ in range(10):
        holds = held(site, group).get(probe, set())
        attribute = next(a for a in attributes if a not in holds)
        write(site, group, attribute, probe)
        expected = colour_of(attributes, held(site, group)[probe])
        if wait_until(
            site.browser,
            session,
            f"""document.querySelector('polygon.unit[data-unit-id="{probe}"]')
            .dataset.attributeId === {json.dumps(expected[1])}""",
            2,
        ):
            return session
        write(site, group, attribute, probe, remove=True)
    raise AssertionError("no change ever showed in the viewer")


# ---------------------------------------------------------------- tests


def test_an_assignment_recolours_the_unit_and_the_legend_without_a_reload(site):
    session = open_live(site, "view")
    js(site, session, "window.liveMarker = 'before the writes'")
    attributes = attributes_of(site, "view")  # one attribute per unit
    views = held(site, "view")
    unit = next(u for u in shown_units(site, session) if views.get(u))
    (old,) = views[unit]
    new = next(a for a in attributes if a != old)
    before = legend_counts(site, session)
    assert unit_colour(site, session, unit) == colour_of(attributes, {old})
    js(site, session, f"window.floorgateViewer.app.selectUnit({json.dumps(unit)})")
    wait_for_panel(site, session, old)

    write(site, "view", new, unit)  # a replacement: unassigned(old), then assigned(new)
    wait_for_colour(site, session, unit, [PALETTE[attributes.index(new)], new])
    assert legend_counts(site, session) == {**before, old: before[old] - 1, new: before[new] + 1}
    wait_for_panel(site, session, new)  # the open panel of the unit follows too

    write(site, "view", new, unit, remove=True)
    wait_for_colour(site, session, unit, [NONE, ""])
    assert legend_counts(site, session) == {**before, old: before[old] - 1, "": before[""] + 1}
    wait_for_panel(site, session, "")

    assert js(site, session, "window.liveMarker") == "before the writes"  # no reload
    assert problems(site, session) == []  # no CSP refusal of the wss:// socket among them
    sockets = [
        event["params"]["url"]
        for event in page_events(site, session)
        if event["method"] == "Network.webSocketCreated"
    ]
    assert sockets == [site.base.replace("https://", "wss://") + "/graphql"]
    init = frames(site, session, "Sent")[0]
    assert init == {
        "type": "connection_init",
        "payload": {
            "API-Key": site.key,
            "Experimental-Flags": init["payload"]["Experimental-Flags"],
        },
    }
    assert "unit-attributes-resource" in init["payload"]["Experimental-Flags"]
    assert [s["payload"]["variables"] for s in subscriptions(site, session)] == [
        {"group": "view", "asset": ASSET, "after": None}
    ]


def test_another_group_is_followed_instead_and_a_dropped_socket_resumes(site):
    session = open_live(site, "view")
    js(site, session, "window.liveMarker = 'before the writes'")
    js(
        site,
        session,
        "(() => { const s = document.getElementById('legend-group');"
        " s.value = 'features'; s.dispatchEvent(new Event('change')); })()",
    )
    wait_for(
        site,
        session,
        "document.getElementById('legend').dataset.groupId === 'features'"
        " && document.getElementById('legend').dataset.state === 'ready'"
        " && document.getElementById('legend').dataset.live === 'on'",
    )
    first, second = subscriptions(site, session)
    assert {"id": first["id"], "type": "complete"} in frames(site, session, "Sent")
    assert second["payload"]["variables"] == {"group": "features", "asset": ASSET, "after": None}

    attributes = attributes_of(site, "features")  # any number per unit
    features = held(site, "features")
    unit = next(u for u in shown_units(site, session) if not features.get(u))
    before = legend_counts(site, session)
    write(site, "features", attributes[-1], unit)
    wait_for_colour(site, session, unit, colour_of(attributes, {attributes[-1]}))
    told = frames(site, session, "Received")[-1]
    assert told["type"] == "next" and told["id"] == second["id"]
    cursor = told["payload"]["data"]["unitAttributeAssignmentChanges"]["cursor"]

    # The socket drops; a change is written meanwhile; the viewer reconnects (1 s later)
    # and resumes after the last cursor it saw, so the change still arrives.
    js(site, session, "window.floorgateViewer.app.live.socket.close()")
    write(site, "features", attributes[0], unit)
    holds = {attributes[0], attributes[-1]}
    wait_for_colour(site, session, unit, colour_of(attributes, holds))
    assert subscriptions(site, session)[-1]["payload"]["variables"] == {
        "group": "features",
        "asset": ASSET,
        "after": cursor,
    }
    shows = colour_of(attributes, holds)[1]
    assert legend_counts(site, session) == {**before, "": before[""] - 1, shows: before[shows] + 1}
    assert reads_of(site, session, "features") == 1  # a resume reads nothing again

    # A resume the server refuses (here a cursor it never gave) reads the group anew and
    # subscribes without a cursor: the change written meanwhile shows all the same.
    js(
        site,
        session,
        "(() => { const live = window.floorgateViewer.app.live;"
        " live.cursor = 'not-a-cursor'; live.socket.close(); })()",
    )
    write(site, "features", attributes[0], unit, remove=True)
    wait_for_colour(site, session, unit, colour_of(attributes, {attributes[-1]}))
    refused, fresh = subscriptions(site, session)[-2:]
    assert refused["payload"]["variables"]["after"] == "not-a-cursor"
    assert fresh["payload"]["variables"]["after"] is None
    assert any(
        m["type"] == "error" and m["id"] == refused["id"] for m in frames(site, session, "Received")
    )
    wait_for(site, session, "document.getElementById('legend').dataset.state === 'ready'")
    assert reads_of(site, session, "features") == 2
    last = attributes[-1]
    assert legend_counts(site, session) == {**before, "": before[""] - 1, last: before[last] + 1}
    assert js(site, session, "window.liveMarker") == "before the writes"
    assert problems(site, session) == []
