"""A drawing's connectors as places (storage/imports/connector_places.py, issue 66 point
5): one per connector and level it stops at, named by its kind (numbered when the map has
several of a kind); none for a door between levels of one height, a connector a unit of
the drawing is, or one a given location stands for."""

from __future__ import annotations

from parsing.svg import parse_unit_map
from storage.imports.connector_places import ConnectorPlace, connector_places
from tests.routing.test_fixture_maps import connector, level, svg

UNIT = (
    '<g data-layer="units"><rect data-unit-id="lift-unit" x="90" y="90" width="4" height="4"/></g>'
)


def drawing() -> str:
    return svg(
        level(
            "L0",
            0,
            connector("elevator", "e1", 10, 10),
            connector("stairs", "s1", 50, 10),
            connector("stairs", "s2", 70, 10),
            connector("door", "d1", 5, 5),
            connector("elevator", "lift-unit", 92, 92),
            UNIT,
        ),
        level(
            "L1",
            1,
            connector("elevator", "e1", 11, 10),
            connector("stairs", "s1", 50, 12),
            connector("stairs", "s2", 70, 12),
        ),
        level("L2", 2, connector("elevator", "e1", 12, 10)),
    )


def test_one_place_per_connector_and_level() -> None:
    places = connector_places("m", parse_unit_map(drawing()))
    assert places == [
        ConnectorPlace("m:e1@L0", "e1", "elevator", "Elevator", "L0", 10.0, 10.0),
        ConnectorPlace("m:e1@L1", "e1", "elevator", "Elevator", "L1", 11.0, 10.0),
        ConnectorPlace("m:e1@L2", "e1", "elevator", "Elevator", "L2", 12.0, 10.0),
        ConnectorPlace("m:s1@L0", "s1", "stairs", "Stairs 1", "L0", 50.0, 10.0),
        ConnectorPlace("m:s1@L1", "s1", "stairs", "Stairs 1", "L1", 50.0, 12.0),
        ConnectorPlace("m:s2@L0", "s2", "stairs", "Stairs 2", "L0", 70.0, 10.0),
        ConnectorPlace("m:s2@L1", "s2", "stairs", "Stairs 2", "L1", 70.0, 12.0),
    ]


def test_a_given_place_stands_for_its_connector() -> None:
    places = connector_places("m", parse_unit_map(drawing()), given={"s2", "e1"})
    assert [(p.location_id, p.name) for p in places] == [
        ("m:s1@L0", "Stairs"),
        ("m:s1@L1", "Stairs"),
    ]


# ---------------------------------------------------------------- on the demo, through the app

B1 = "map-b1"
START = "map-b1:b1-301"  # a unit on the third floor of building 1


async def test_the_demos_elevator_and_stairs_are_places_to_search_for_and_route_to(demo):
    """Issue 66, point 5: "elevator" found nothing on the demo and `nearest {q: "elevator"}`
    was a 422. Now the building maps' elevator and stairs are places on each floor: found
    by their kind's words in every language, the nearest reached (by wheelchair, the
    elevator on the start's own floor), never a landmark of a turn."""
    found = await demo.client.get(
        "/v1/search",
        params={"q": "elevator", "map": B1, "near": START, "per-page": 50},
        headers=demo.headers("search"),
    )
    assert found.status_code == 200, found.text
    elevators = [item for item in found.json()["data"] if item["name"] == "Elevator"]
    assert [item["location_id"] for item in elevators][:1] == ["map-b1:b1-elevator@level-b1-f3"]
    assert {item["floor_id"] for item in elevators} == {"b1-f1", "b1-f2", "b1-f3", "b1-f4"}
    assert elevators[0]["distance"] is not None and elevators[0]["closed"] is False
    for word in ("lift", "升降機", "Aufzug", "ascenseur", "ascensor"):
        again = await demo.client.get(
            "/v1/search", params={"q": word, "map": B1}, headers=demo.headers("search")
        )
        assert "Elevator" in [item["name"] for item in again.json()["data"]], word
    trip = {"from": {"id": START}, "to": {"nearest": {"q": "elevator"}}, "mode": "wheelchair"}
    routed = await demo.client.post(
        f"/v1/maps/{B1}/route", json={"data": trip}, headers=demo.headers("directions")
    )
    assert routed.status_code == 200, routed.text
    answer = routed.json()
    assert (answer["to"]["id"], answer["to"]["name"], answer["reason"]) == (
        "map-b1:b1-elevator@level-b1-f3",
        "Elevator",
        None,
    )
    assert [leg["floor_id"] for leg in answer["route"]["legs"]] == ["b1-f3"]
    stairs = await demo.client.post(
        f"/v1/maps/{B1}/route",
        json={"data": {"from": {"id": START}, "to": {"nearest": {"q": "stairs"}}}},
        headers=demo.headers("directions"),
    )
    assert stairs.json()["to"]["name"] == "Stairs", stairs.text
    landmarks = [
        m["landmark"]["name"] for m in stairs.json()["route"]["maneuvers"] if m["landmark"]
    ]
    assert "Elevator" not in landmarks and "Stairs" not in landmarks


async def test_a_closed_elevator_closes_its_places(demo):
    """The elevator closed: its places are flagged closed, nearest by wheelchair answers
    the closure (said by its kind: a generated name names no closure) and lists it."""
    put = await demo.client.put(
        f"/v1/unitmaps/{B1}/closures",
        json={"data": {"connector_id": "b1-elevator"}},
        headers=demo.headers("directions"),
    )
    assert put.status_code == 200, put.text
    try:
        found = await demo.client.get(
            "/v1/search", params={"q": "elevator", "map": B1}, headers=demo.headers("search")
        )
        flags = {i["closed"] for i in found.json()["data"] if i["name"] == "Elevator"}
        assert flags == {True}
        trip = {"from": {"id": START}, "to": {"nearest": {"q": "elevator"}}, "mode": "wheelchair"}
        routed = await demo.client.post(
            f"/v1/maps/{B1}/route", json={"data": trip}, headers=demo.headers("directions")
        )
        answer = routed.json()
        assert (answer["route"], answer["reason"]) == (
            None,
            "no candidate is open: the elevator is closed",
        )
        assert [(c["connector_id"], c["name"]) for c in answer["closures"]] == [
            ("b1-elevator", None)
        ]
    finally:
        await demo.client.delete(
            f"/v1/unitmaps/{B1}/closures",
            params={"connector": "b1-elevator"},
            headers=demo.headers("directions"),
        )
