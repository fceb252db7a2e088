"""docs/routing-maneuvers.svg is drawn from a real route of the demo, as the service
answers it (docs/routing.md, Maneuvers): map-b1 by wheelchair from unit 301 on floor 3 to
the Fitness Center on floor 1. Each level the route walks is a panel with the floor's
rooms; each maneuver is numbered, with the chords of its two windows (the 10 ft before
and after it, cut at the neighbouring maneuvers) that its bearings are measured on; one
turn is drawn again four times larger.

Redraw after a change of the rules or of the demo with `make generate` (or with
`FLOORGATE_UPDATE_ROUTING_PICTURE=1` set, run this module with pytest).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from parsing.demo.drawings import FEET_PER_UNIT
from resolvers.auth.permissions import ALL_FLAGS
from tests.docs.pictures.route_drawing import CROP, Panel, document, num, text_line
from tests.routing.maneuver_rules import Polyline

PICTURE = Path(__file__).parents[3] / "docs" / "routing-maneuvers.svg"
REQUEST = {
    "from": {"id": "map-b1:b1-301"},
    "to": {"id": "loc-b1-f1-gym@map-b1"},
    "mode": "wheelchair",
}
SCALE = 0.6
PANEL_GAP = 34.0
ZOOM = 4.0 * SCALE
ZOOMED = 1  # the maneuver drawn again, larger
BEFORE, AFTER, ROUTE = "#2563eb", "#16a34a", "#f97316"


def windows(route: dict[str, Any], index: int) -> tuple[Any, Any, Any]:
    """The start of maneuver `index`'s window before, its point, the end of its window
    after (each cut at the neighbouring maneuvers on its leg)."""
    maneuvers = route["maneuvers"]
    m = maneuvers[index]
    line = Polyline(route["legs"][m["leg_index"]]["points"], FEET_PER_UNIT)
    here = line.at[m["point_index"]]
    on_leg = [
        line.at[other["point_index"]]
        for other in maneuvers
        if other["leg_index"] == m["leg_index"] and other is not m
    ]
    lo = max([at for at in on_leg if at < here] or [0.0])
    hi = min([at for at in on_leg if at > here] or [line.at[-1]])
    start = line.point(max(here - 10.0, lo)) if m["type"] != "depart" else None
    end = line.point(min(here + 10.0, hi)) if m["type"] not in ("arrive", "connector") else None
    return start, line.point(here), end


def arrow(a: Any, b: Any, colour: str, to_xy: Any, width: float = 3.0) -> str:
    (x1, y1), (x2, y2) = to_xy(a), to_xy(b)
    return (
        f'<line x1="{num(x1)}" y1="{num(y1)}" x2="{num(x2)}" y2="{num(y2)}" stroke="{colour}" '
        f'stroke-width="{num(width)}" marker-end="url(#head-{colour[1:]})"/>'
    )


def panel(route: dict[str, Any], floor: int, top: float) -> list[str]:
    """A floor of the route with its maneuvers, each with its two windows."""
    plate = Panel(1, floor, top, SCALE)
    out = [*plate.plate(f"Floor {floor}"), *plate.legs(route, ROUTE)]
    legs = route["legs"]
    for k, m in enumerate(route["maneuvers"]):
        if legs[m["leg_index"]]["floor_id"] != plate.floor_id():
            continue
        start, here, end = windows(route, k)
        if start is not None:
            out.append(arrow(start, here, BEFORE, plate.to_xy))
        if end is not None:
            out.append(arrow(here, end, AFTER, plate.to_xy))
        out.append(plate.mark(m["location"], str(k + 1)))
    return out


def zoom(route: dict[str, Any], top: float, left: float) -> list[str]:
    """Maneuver ZOOMED four times larger, with its bearings and the rule's sum."""
    m = route["maneuvers"][ZOOMED]
    start, here, end = windows(route, ZOOMED)
    centre = here

    def to_xy(point: Any) -> tuple[float, float]:
        x, y = (point["x"], point["y"]) if isinstance(point, dict) else point
        return ((x - centre[0]) * ZOOM + left + 110, (y - centre[1]) * ZOOM + top + 110)

    points = " ".join(
        f"{num(x)},{num(y)}" for x, y in map(to_xy, route["legs"][m["leg_index"]]["points"])
    )
    d = (m["bearing_after"] - m["bearing_before"] + 180) % 360 - 180
    return [
        f'<text x="{num(left)}" y="{num(top - 8)}" class="title">Maneuver {ZOOMED + 1}, '
        "four times larger</text>",
        f'<svg x="{num(left)}" y="{num(top)}" width="220" height="220">',
        '<rect width="220" height="220" fill="#f9fafb" stroke="#d1d5db"/>',
        f'<g transform="translate({num(-left)} {num(-top)})">',
        f'<polyline points="{points}" fill="none" stroke="{ROUTE}" stroke-width="8" '
        'stroke-opacity="0.4"/>',
        arrow(start, here, BEFORE, to_xy, 4),
        arrow(here, end, AFTER, to_xy, 4),
        "</g></svg>",
        f'<text x="{num(left)}" y="{num(top + 240)}" class="note">'
        f'<tspan fill="{BEFORE}">bearing_before {m["bearing_before"]}</tspan>, '
        f'<tspan fill="{AFTER}">bearing_after {m["bearing_after"]}</tspan></text>',
        f'<text x="{num(left)}" y="{num(top + 258)}" class="note">d = {m["bearing_after"]} - '
        f"{m['bearing_before']} = {d}: {m['modifier']}</text>",
        f'<text x="{num(left)}" y="{num(top + 276)}" class="note">(each arrow: 10 ft of route)'
        "</text>",
    ]


def picture(answer: dict[str, Any]) -> str:
    route = answer["route"]
    height = (CROP[3] - CROP[1]) * SCALE
    width = (CROP[2] - CROP[0]) * SCALE + 20
    first = 62.0
    second = first + height + PANEL_GAP
    legend = second + height + 30
    steps = route["steps"]
    body = [
        text_line(
            10,
            18,
            f"map-b1 by wheelchair: {answer['from']['name']} (floor 3) to "
            f"{answer['to']['name']} (floor 1)",
            "title",
        ),
        *panel(route, 3, first),
        *panel(route, 1, second),
        *zoom(route, legend + 8, width - 230),
        *(text_line(10, legend + 18 * (k + 1), f"{k + 1}. {step}") for k, step in enumerate(steps)),
    ]
    total = legend + max(18 * len(steps) + 20, 300)
    heads = "".join(
        f'<marker id="head-{colour[1:]}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="4" '
        f'markerHeight="4" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="{colour}"/></marker>'
        for colour in (BEFORE, AFTER)
    )
    return document(width, total, body, heads)


async def test_the_picture_is_drawn_from_a_real_route_and_is_current(demo):
    response = await demo.client.post(
        "/v1/maps/map-b1/route", json={"data": REQUEST}, headers=demo.headers(*ALL_FLAGS)
    )
    assert response.status_code == 200, response.text
    answer = response.json()
    maneuvers = answer["route"]["maneuvers"]
    assert [m["type"] for m in maneuvers] == [
        "depart",
        "turn",
        "turn",
        "connector",
        "turn",
        "arrive",
    ]
    assert maneuvers[ZOOMED]["type"] == "turn"
    drawn = picture(answer)
    if os.environ.get("FLOORGATE_UPDATE_ROUTING_PICTURE") == "1":
        PICTURE.write_text(drawn, encoding="utf-8")
    assert PICTURE.read_text(encoding="utf-8") == drawn, (
        "docs/routing-maneuvers.svg is not the route's picture: run `make generate`"
    )
