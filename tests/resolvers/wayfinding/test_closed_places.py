"""Nearest and near ask who is asking (issue 66, point 4): on a clinic with its only lift
closed, `to: {nearest: {q: "lift"}}` by wheelchair went to the ground-floor door of that
closed lift with no `reason`, the closure itself named by an id; a search `near` listed a
toilet nobody could reach before one they could, and a staff toilet before a public one;
a route to a closed unit said nothing of it.

Now closed places are never a `nearest` choice (when every candidate is closed, the route
is null and `reason` names the closures); a search `near` lists open, reachable, public
places first (by time, among what was asked for), then non-public ones, then closed ones
(`closed: true`), then those the mode cannot reach; `nearest` by `q` or `tags` prefers a
public place; a route whose waypoint is closed lists the closures (`closures`).

The venue is our own, Lift Court (IMDF, imported through `import_venue`, read through
the app): two levels, each a corridor with the lobby, a staff toilet (`nonpublic`) next
to it, an unnamed public restroom at the far end, a lift (a relationship) and stairs
(found by overlap: an inferred connector, whose id is no unit's).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import pytest_asyncio

from tests.venues.imdf_venues import Venue, rect
from tests.venues.served import Served, served_venue

pytestmark = pytest.mark.asyncio(loop_scope="session")

FLAGS = "directions, search"
OUTLINE = rect(-1, -5, 41, 11)
# key -> category, name, box (x0, y0, x1, y1), door (two points on the corridor's edge)
ROOMS: dict[str, tuple[str, str | None, tuple[float, float, float, float], Any]] = {
    "staff": ("nonpublic", "Staff Toilet", (2, 4, 7, 10), ((4, 4), (5, 4))),
    "lobby": ("lobby", "Lobby", (8, 4, 14, 10), ((10, 4), (11, 4))),
    "restroom": ("restroom", None, (30, 4, 36, 10), ((32, 4), (33, 4))),
    "lift": ("elevator", "Lift", (16, -4, 19, 0), ((17, 0), (18, 0))),
    "stairs": ("stairs", None, (22, -4, 26, 0), ((23, 0), (24, 0))),
}


@dataclass(frozen=True)
class Court:
    venue: Venue
    units: dict[str, str]  # "<level>:<key>" -> unit id


def lift_court() -> Court:
    venue = Venue("Lift Court", id_prefix="lift-court:")
    venue.venue("Lift Court", OUTLINE)
    units: dict[str, str] = {}
    for n in (0, 1):
        level = venue.level(f"L{n}", n, f"Level {n}", f"L{n}", OUTLINE)
        venue.unit(f"{n}:corridor", level, "walkway", rect(0, 0, 40, 4))
        for key, (category, name, box, door) in ROOMS.items():
            units[f"{n}:{key}"] = venue.unit(f"{n}:{key}", level, category, rect(*box), name)
            venue.opening(f"{n}:{key}", level, *door)
    venue.relationship("lift", "elevator", [units["0:lift"], units["1:lift"]])
    return Court(venue, units)


COURT = lift_court()


@dataclass
class Site:
    served: Served

    @property
    def map_id(self) -> str:
        return self.served.dataset.stack_map

    def place(self, key: str) -> str:
        """The stack map's location of a listed unit ("0:lobby")."""
        return f"{self.map_id}:{COURT.units[key]}"

    async def call(self, method: str, path: str, body: Any = None, **params: Any) -> Any:
        response = await self.served.client.request(
            method, path, json=body, params=params, headers=self.served.headers(FLAGS)
        )
        assert response.status_code in (200, 204), response.text
        return response.json() if response.status_code == 200 else None

    async def route(self, to: dict[str, Any], mode: str = "foot", start: str = "0:lobby") -> Any:
        body = {"data": {"from": {"id": self.place(start)}, "to": to, "mode": mode}}
        return await self.call("POST", f"/v1/unitmaps/{self.map_id}/route", body)

    async def near(self, q: str, mode: str = "foot") -> list[tuple[str, str, bool, bool]]:
        """(floor's level, name, reached, closed) of each result of `q` near the lobby."""
        level = {COURT.venue.features["level"][n]["id"]: f"L{n}" for n in (0, 1)}
        found = await self.call(
            "GET", "/v1/search", q=q, map=self.map_id, near=self.place("0:lobby"), mode=mode
        )
        return [
            (level[item["floor_id"]], item["name"], item["distance"] is not None, item["closed"])
            for item in found["data"]
        ]

    async def close(self, **target: str) -> dict[str, Any]:
        answer: dict[str, Any] = await self.call(
            "PUT", f"/v1/unitmaps/{self.map_id}/closures", {"data": target}
        )
        return answer

    async def reopen_all(self) -> None:
        for closure in (await self.call("GET", f"/v1/unitmaps/{self.map_id}/closures"))["data"]:
            kind = closure["kind"]
            target = closure["connector_id"] if kind == "connector" else closure["unit_id"]
            path = f"/v1/unitmaps/{self.map_id}/closures"
            await self.call("DELETE", path, **{kind: target})

    async def lift_id(self) -> str:
        """The lift's connector id, as a route riding it names it."""
        found = await self.route({"id": self.place("1:lobby")}, mode="wheelchair")
        (connector,) = [leg["connector"] for leg in found["route"]["legs"] if leg["connector"]]
        assert connector["kind"] == "elevator"
        return str(connector["id"])


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def site(db_server, settings) -> AsyncIterator[Site]:
    async with served_venue(db_server, settings, COURT.venue.files()) as served:
        yield Site(served)


@pytest_asyncio.fixture(loop_scope="session")
async def court(site: Site) -> AsyncIterator[Site]:
    """The site with no closure before and after the test."""
    await site.reopen_all()
    yield site
    await site.reopen_all()


async def test_a_closed_lift_is_named_by_its_place_and_closes_its_places(court: Site):
    lift = await court.lift_id()
    closure = await court.close(connector_id=lift)
    assert closure["name"] == "Lift"  # was null: the connector's id is no unit's
    found = await court.route({"nearest": {"q": "lift"}}, mode="wheelchair")
    assert found["route"] is None
    assert found["reason"] == "no candidate is open: the elevator Lift is closed"
    assert found["to"]["name"] == "Lift"
    assert found["closures"] == [closure]
    on_foot = await court.route({"nearest": {"q": "lift"}})  # closed for everyone
    assert (on_foot["route"], on_foot["reason"]) == (None, found["reason"])


async def test_near_lists_reachable_public_places_by_time_then_the_rest(court: Site):
    assert await court.near("toilet") == [
        ("L0", "Restroom 1", True, False),  # public, by time
        ("L1", "Restroom 1", True, False),
        ("L0", "Staff Toilet", True, False),  # nearer, and first by name, but non-public
        ("L1", "Staff Toilet", True, False),
    ]
    await court.close(connector_id=await court.lift_id())
    assert await court.near("toilet", mode="wheelchair") == [
        ("L0", "Restroom 1", True, False),
        ("L0", "Staff Toilet", True, False),
        # no way up by wheelchair: last, by how they matched (a name's word, a kind)
        ("L1", "Staff Toilet", False, False),
        ("L1", "Restroom 1", False, False),
    ]
    await court.close(unit_id=COURT.units["0:restroom"])
    assert await court.near("toilet", mode="wheelchair") == [
        ("L0", "Staff Toilet", True, False),
        ("L0", "Restroom 1", True, True),  # closed: after open ones, flagged
        ("L1", "Staff Toilet", False, False),
        ("L1", "Restroom 1", False, False),
    ]


async def test_nearest_skips_closed_places_and_prefers_public_ones(court: Site):
    found = await court.route({"nearest": {"q": "toilet"}})
    assert found["to"]["id"] == court.place("0:restroom")  # not the nearer staff toilet
    assert found["closures"] == []
    closure = await court.close(unit_id=COURT.units["0:restroom"], reason="cleaning")
    found = await court.route({"nearest": {"q": "toilet"}})
    assert found["to"]["id"] == court.place("1:restroom")  # the open one upstairs
    assert found["route"] is not None and found["closures"] == []
    # ids are the client's own choice: the nearest of them, public or not
    ids = [court.place("0:staff"), court.place("1:restroom")]
    found = await court.route({"nearest": {"ids": ids}})
    assert found["to"]["id"] == court.place("0:staff")
    assert closure["name"] == "Restroom 1" and closure["reason"] == "cleaning"


async def test_a_route_to_a_closed_place_reaches_its_door_and_says_so(court: Site):
    until = (datetime.now(UTC) + timedelta(days=30)).replace(microsecond=0).isoformat()
    closure = await court.close(unit_id=COURT.units["0:restroom"], until=until)
    found = await court.route({"id": court.place("0:restroom")})
    assert found["route"] is not None and found["reason"] is None
    assert found["closures"] == [closure]
    assert closure["until"] == until
    query = (
        "query ($m: ID!, $a: ID!, $b: ID!) { route(unitMapId: $m, from: {id: $a}, "
        "to: {id: $b}) { reason closures { kind unitId name until } } }"
    )
    variables = {"m": court.map_id, "a": court.place("0:lobby"), "b": court.place("0:restroom")}
    answer = await court.call("POST", "/graphql", {"query": query, "variables": variables})
    assert answer == {
        "data": {
            "route": {
                "reason": None,
                "closures": [
                    {
                        "kind": "unit",
                        "unitId": COURT.units["0:restroom"],
                        "name": "Restroom 1",
                        "until": until,
                    }
                ],
            }
        }
    }
    away = await court.route({"id": court.place("1:lobby")})
    assert away["closures"] == []  # a closure elsewhere is not this route's
