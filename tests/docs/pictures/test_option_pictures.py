"""The pictures of docs/routing.md's costing options, closures and stops, each drawn from
the routes the demo answers (map-b1) for one option: the same trip with and without it.

Each test asserts what its picture shows (which connector each route takes, the times),
so a change of the rules fails here before the picture is wrong, then that the
committed picture is what it draws. Redraw with `make generate` (or with
`FLOORGATE_UPDATE_ROUTING_PICTURE=1` set, run this module with pytest).
"""

from __future__ import annotations

import json
import os
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from resolvers.auth.permissions import ALL_FLAGS
from tests.docs.pictures.route_drawing import Panel, document, swatch, text_line

DOCS = Path(__file__).parents[3] / "docs"
SCALE = 0.5
GAP = 40.0
LEGEND_CHARS = 90  # a legend line wraps after so many characters
ORANGE, BLUE, GREY = "#f97316", "#2563eb", "#6b7280"
CONNECTOR_LETTER = {"elevator": "E", "stairs": "S"}
UNIT_308 = {"id": "map-b1:b1-308"}
UNIT_301 = {"id": "map-b1:b1-301"}
GYM = {"id": "loc-b1-f1-gym@map-b1"}


@dataclass(frozen=True)
class Drawn:
    """One route of a picture: its legend's words, its colour and the service's answer."""

    label: str
    colour: str
    answer: dict[str, Any]


def connector_of(answer: dict[str, Any]) -> dict[str, Any] | None:
    """The connector the route rides (the demo's trips ride at most one)."""
    route = answer["route"]
    rides = [m["connector"] for m in route["maneuvers"] if m["type"] == "connector"]
    return rides[0] if rides else None


def summary(answer: dict[str, Any]) -> str:
    """What a legend line says of a route: its connector, distance and time, or why none."""
    if answer["route"] is None:
        return f"no route: {answer['reason']}"
    route = answer["route"]
    ride = connector_of(answer)
    by = f"by {'the elevator' if ride['kind'] == 'elevator' else 'Stairs A'}, " if ride else ""
    return f"{by}{route['distance']:g} ft, {route['time']:g} s"


def legend(body: list[str], top: float, lines: list[tuple[str, str]]) -> float:
    """A line per route from `top` down, after a swatch of its colour, wrapped to the
    picture's width; the height of the picture under it."""
    y = top
    for colour, words in lines:
        body.append(swatch(10, y, colour))
        for part in textwrap.wrap(words, LEGEND_CHARS):
            body.append(text_line(40, y, part))
            y += 16
        y += 6
    return y


def picture(
    title: str, drawn: list[Drawn], floors: tuple[int, ...], closed: tuple[Any, ...] = ()
) -> str:
    """The floors the trip walks, top floor first, each route in its colour (shifted a
    little each, so routes along one corridor both show), A and B at the trip's ends,
    the connector ridden lettered in its route's colour, a cross on what is closed; a
    legend line per route."""
    body = [text_line(10, 20, title, "title")]
    top = 56.0
    ends = next(d.answer for d in drawn)
    for floor in floors:
        panel = Panel(1, floor, top, SCALE)
        body += panel.plate(f"Floor {floor}")
        for k, d in enumerate(drawn):
            if d.answer["route"] is not None:
                body += panel.legs(d.answer["route"], d.colour, shift=4.0 * k)
        for point in closed:
            body.append(panel.cross(point))
        for d in drawn:
            ride = connector_of(d.answer) if d.answer["route"] is not None else None
            if ride:
                body.append(panel.mark(ride, CONNECTOR_LETTER[ride["kind"]], d.colour))
        for letter, end in (("A", ends["from"]), ("B", ends["to"])):
            if end["floor_id"] == panel.floor_id():
                body.append(panel.mark(end, letter))
        top += panel.height + GAP
    lines = [(d.colour, f"{d.label}: {summary(d.answer)}") for d in drawn]
    return document(Panel(1, 1, 0, SCALE).width + 20, legend(body, top - GAP + 30, lines), body)


async def route(demo: Any, data: dict[str, Any]) -> dict[str, Any]:
    response = await demo.client.post(
        "/v1/maps/map-b1/route", json={"data": data}, headers=demo.headers(*ALL_FLAGS)
    )
    assert response.status_code == 200, response.text
    return response.json()


def options(**pedestrian: Any) -> dict[str, Any]:
    return {"costing_options": {"pedestrian": pedestrian}}


def words(**pedestrian: Any) -> str:
    """An option as the legend shows it: its JSON."""
    return json.dumps(pedestrian)[1:-1]


def current(name: str, drawn: str) -> None:
    """The committed picture is what was drawn (rewritten with the flag)."""
    path = DOCS / name
    if os.environ.get("FLOORGATE_UPDATE_ROUTING_PICTURE") == "1":
        path.write_text(drawn, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == drawn, (
        f"docs/{name} is not the routes' picture: run `make generate`"
    )


def kinds(*answers: dict[str, Any]) -> list[str | None]:
    return [(connector_of(a) or {}).get("kind") if a["route"] else None for a in answers]


async def test_exclude_takes_the_other_connector(demo):
    trip = {"from": UNIT_308, "to": GYM}
    plain = await route(demo, trip)
    without = await route(demo, trip | options(exclude=["stairs"]))
    assert kinds(plain, without) == ["stairs", "elevator"]
    assert (plain["route"]["time"], without["route"]["time"]) == (106.05, 108.41)
    drawn = [
        Drawn("no options", ORANGE, plain),
        Drawn(words(exclude=["stairs"]), BLUE, without),
    ]
    current(
        "routing-exclude.svg",
        picture("exclude: 308 (floor 3) to the Fitness Center (floor 1)", drawn, (3, 1)),
    )


async def test_a_penalty_avoids_until_the_detour_is_cheaper(demo):
    trip = {"from": UNIT_301, "to": GYM}
    plain, small, large = [
        await route(demo, trip | options(elevator_penalty=seconds)) for seconds in (0, 30, 60)
    ]
    assert kinds(plain, small, large) == ["elevator", "elevator", "stairs"]
    assert small["route"]["time"] == plain["route"]["time"] + 30  # kept, and paid for
    assert plain["route"]["time"] + 60 > large["route"]["time"] > small["route"]["time"]
    drawn = [
        Drawn(words(elevator_penalty=30), ORANGE, small),
        Drawn(words(elevator_penalty=60), BLUE, large),
    ]
    current(
        "routing-penalty.svg",
        picture("elevator_penalty: 301 (floor 3) to the Fitness Center (floor 1)", drawn, (3, 1)),
    )


async def test_a_slower_walk_changes_the_time_and_the_choice(demo):
    trip = {"from": UNIT_308, "to": GYM}
    plain = await route(demo, trip)
    slow = await route(demo, trip | options(walking_speed=2))
    assert kinds(plain, slow) == ["stairs", "elevator"]
    assert slow["route"]["time"] > plain["route"]["time"]
    drawn = [
        Drawn("4.83 km/h (the default 4.4 ft/s)", ORANGE, plain),
        Drawn(words(walking_speed=2), BLUE, slow),
    ]
    current(
        "routing-walking-speed.svg",
        picture("walking_speed: 308 (floor 3) to the Fitness Center (floor 1)", drawn, (3, 1)),
    )


async def test_a_closed_elevator_sends_feet_to_the_stairs_and_wheels_nowhere(demo):
    trip = {"from": UNIT_301, "to": GYM}
    before = await route(demo, trip)
    headers = demo.headers(*ALL_FLAGS)
    closed = await demo.client.put(
        "/v1/unitmaps/map-b1/closures",
        json={"data": {"connector_id": "b1-elevator", "reason": "maintenance"}},
        headers=headers,
    )
    assert closed.status_code == 200, closed.text
    try:
        foot = await route(demo, trip)
        wheels = await route(demo, trip | {"mode": "wheelchair"})
    finally:  # the demo's database is shared by the module's tests
        reopened = await demo.client.delete(
            "/v1/unitmaps/map-b1/closures?connector=b1-elevator", headers=headers
        )
        assert reopened.status_code == 204, reopened.text
    assert kinds(before, foot, wheels) == ["elevator", "stairs", None]
    assert wheels["reason"] == (
        "no walk path usable by wheelchair joins the start and the destination: "
        "the elevator is closed"
    )
    elevator = connector_of(before)
    drawn = [
        Drawn("on foot, before the closure", ORANGE, before),
        Drawn("on foot, the elevator closed", BLUE, foot),
        Drawn("by wheelchair, the elevator closed", GREY, wheels),
    ]
    current(
        "routing-closure.svg",
        picture(
            "A closure: the elevator closed, 301 (floor 3) to the Fitness Center (floor 1)",
            drawn,
            (3, 1),
            closed=(elevator,),
        ),
    )


def stops_picture(title: str, drawn: list[Drawn]) -> str:
    """One panel of floor 2 per route: its line, A and B, each stop numbered in the order
    the route visits it; a legend line per route with that order, distance and time."""
    body = [text_line(10, 20, title, "title")]
    top = 56.0
    for d in drawn:
        answer, panel = d.answer, Panel(1, 2, top, SCALE)
        order = [answer["via"][k] for k in answer["visit_order"]]
        body += panel.plate(d.label)
        body += panel.legs(answer["route"], d.colour)
        body += [panel.mark(stop, str(k + 1), d.colour) for k, stop in enumerate(order)]
        body += [panel.mark(answer["from"], "A"), panel.mark(answer["to"], "B")]
        top += panel.height + GAP
    lines = [
        (
            d.colour,
            f"{d.label}: A, "
            + ", ".join(d.answer["via"][i]["name"] for i in d.answer["visit_order"])
            + f", B: {summary(d.answer)}",
        )
        for d in drawn
    ]
    return document(Panel(1, 2, 0, SCALE).width + 20, legend(body, top - GAP + 30, lines), body)


async def test_optimize_visits_the_stops_in_the_order_of_least_time(demo):
    trip = {
        "from": {"id": "map-b1:b1-210"},
        "to": {"id": "map-b1:b1-204"},
        "via": [{"id": f"map-b1:b1-{unit}"} for unit in (203, 209, 206, 201)],
    }
    given = await route(demo, trip)
    best = await route(demo, trip | {"optimize": True})
    assert (given["visit_order"], given["optimized"]) == ([0, 1, 2, 3], None)
    assert (best["visit_order"], best["optimized"]) == ([2, 1, 3, 0], "exact")
    assert (given["route"]["time"], best["route"]["time"]) == (166.76, 135.51)
    drawn = [Drawn("via, as given", ORANGE, given), Drawn('"optimize": true', BLUE, best)]
    current(
        "routing-stops.svg",
        stops_picture("via: four stops on floor 2, from 210 (A) to 204 (B)", drawn),
    )
