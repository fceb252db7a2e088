"""A route that only closures block says which of them stand in its way (issue 50): the
closures a route found without them would need, not every closure in force; the same
for `to: {nearest}` when no candidate is reachable. Through the real app, on the
closures' map of our own (a corridor through the Lobby, a Lift A, stairs at the west
end) and the demo."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import httpx

from rest.app import create_app
from storage import collections as c
from tests.resolvers.wayfinding.closures.closure_env import MAP, Env, cleared, world

env = world()
no_closures = cleared()

WEST = {"x": 50, "y": 50, "floor_id": "cl-f1"}  # on the corridor, west of the Lobby
EAST = {"x": 200, "y": 50, "floor_id": "cl-f1"}  # on the corridor, east of the Lobby
UPSTAIRS = {"x": 200, "y": 50, "floor_id": "cl-f2"}
# East of the shop's spur: off the corridor's edge that enters the Lobby (a closed unit
# closes the whole edges that enter it, EAST's included).
BY_THE_LIFT = {"x": 250, "y": 50, "floor_id": "cl-f1"}
FOOT, WHEELS = "no walk path usable on foot", "no walk path usable by wheelchair"
JOINS = "joins the start and the destination"


async def close(env: Env, map_id: str, **target: str) -> None:
    response = await env.client.put(
        f"/v1/unitmaps/{map_id}/closures", json={"data": target}, headers=env.headers()
    )
    assert response.status_code == 200, response.text


async def route(env: Env, map_id: str, data: dict[str, Any]) -> dict[str, Any]:
    response = await env.client.post(
        f"/v1/maps/{map_id}/route", json={"data": data}, headers=env.headers(env.reader)
    )
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


async def test_only_the_closures_in_the_way_are_named(env: Env):
    open_way = await route(env, MAP, {"from": WEST, "to": EAST})
    assert (open_way["route"]["distance"], open_way["reason"]) == (150.0, None)
    # The Lobby closed alone: round by the stairs, the upper corridor and the lift.
    await close(env, MAP, unit_id="cl-lobby")
    detour = await route(env, MAP, {"from": WEST, "to": EAST})
    assert [m["connector"]["id"] for m in detour["route"]["maneuvers"] if m["connector"]] == [
        "cl-stairs",
        "cl-lift",
    ]
    # The lift and the shop closed too: no way; the way without closures walks through
    # the Lobby only, so the Lobby alone is named.
    await close(env, MAP, connector_id="cl-lift")
    await close(env, MAP, unit_id="cl-shop")
    blocked = await route(env, MAP, {"from": WEST, "to": EAST})
    assert (blocked["route"], blocked["reason"]) == (None, f"{FOOT} {JOINS}: Lobby is closed")
    # ... and listed as data, as every closure a reason names (issue 66: a client finds
    # them by id, never in the words)
    assert [(c["kind"], c["unit_id"], c["name"]) for c in blocked["closures"]] == [
        ("unit", "cl-lobby", "Lobby")
    ]
    # By wheelchair upstairs: the lift alone (its stairs were never usable).
    lifted = await route(env, MAP, {"from": BY_THE_LIFT, "to": UPSTAIRS, "mode": "wheelchair"})
    assert lifted["reason"] == f"{WHEELS} {JOINS}: the elevator Lift A is closed"
    assert [(c["kind"], c["connector_id"]) for c in lifted["closures"]] == [
        ("connector", "cl-lift")
    ]


async def test_nearest_names_what_stands_in_the_way_of_every_candidate(env: Env):
    gym, mail = "loc-b1-f1-gym@map-b1", "loc-b1-f1-mail@map-b1"
    trip = {"from": {"id": "map-b1:b1-301"}, "to": {"nearest": {"ids": [gym, mail]}}}
    reached = await route(env, "map-b1", trip | {"mode": "wheelchair"})
    assert (reached["to"]["id"], reached["reason"]) == (mail, None)
    await close(env, "map-b1", connector_id="b1-elevator")
    stuck = await route(env, "map-b1", trip | {"mode": "wheelchair"})
    assert (stuck["route"], stuck["reason"]) == (
        None,
        "no candidate is reachable by wheelchair from the start: the elevator is closed",
    )
    # no place stands for the demo's lift: the words say its kind, the list its id
    assert [(c["connector_id"], c["connector_kind"]) for c in stuck["closures"]] == [
        ("b1-elevator", "elevator")
    ]
    on_foot = await route(env, "map-b1", trip)  # the stairs are open
    assert (on_foot["to"]["id"], on_foot["reason"]) == (mail, None)
    excluded = {"costing_options": {"pedestrian": {"exclude": ["stairs", "escalator"]}}}
    none_left = await route(env, "map-b1", trip | excluded)
    assert none_left["reason"] == (
        "no candidate is reachable on foot from the start without stairs"
    )


async def test_the_search_that_names_a_closure_is_paid_after_it_ran(env: Env, settings):
    """A route only closures block searches once more, without them, to name the ones in
    its way: work its price could not know, charged once it ran (PATH_SEARCH_COST, 0.9
    of a rate unit). A route that exists pays its price alone."""
    limited = replace(settings, rate_limit_per_second=0.01, rate_limit_burst=400)
    transport = httpx.ASGITransport(app=create_app(limited, env.store))
    await env.store[c.RATE_BUDGETS].delete_many({})
    headers = env.headers(env.reader)
    body = {"data": {"from": WEST, "to": EAST}}
    async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as client:
        url = f"/v1/maps/{MAP}/route"
        first = await client.post(url, json=body, headers=headers)
        again = await client.post(url, json=body, headers=headers)  # a kept answer
        for target in ({"unit_id": "cl-lobby"}, {"connector_id": "cl-lift"}):
            await close(env, MAP, **target)
        await close(env, MAP, unit_id="cl-shop")
        blocked = await client.post(url, json=body, headers=headers)
    assert blocked.json()["reason"] == f"{FOOT} {JOINS}: Lobby is closed"
    remaining = [int(r.headers["ratelimit-remaining"]) for r in (first, again, blocked)]
    price = remaining[0] - remaining[1]  # what a route costs, in whole units
    assert (400 - remaining[0], price) == (price, price)
    assert remaining[2] == math.floor(400 - 3 * price - 0.9)
