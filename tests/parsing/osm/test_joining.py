"""How an OSM place's pieces are joined where the data leaves them apart (docs/osm.md,
"Joining what the mapper drew apart"), on small places drawn in metres and converted in
memory, without a database: a connector's end joins the open space within LINK_REACH,
or the footway of another level it is a node of; a room meets the corridor it nearly
touches, the hall it is drawn in and the footway a few metres off; what stays apart is
reported with what a mapper can draw."""

from __future__ import annotations

from typing import Any

import orjson

from parsing.imdf.read import Archive
from parsing.osm.archive import osm_archive
from parsing.osm.convert import ALONE, LINK_REACH, UNJOINED
from parsing.osm.geojson import read_osm_geojson
from parsing.osm.lone_rooms import DOORLESS, JOINED
from tests.venues.osm_station import area, line, node

DERIVED = "door derived where units meet"
LINKED = f"connector end joined to an open space within {LINK_REACH:g} m"
JOINS_NONE = "connector with fewer than two ends where people walk, joins no level"
MOVED = (
    "connector end on a node of a footway of another level, moved to the footway's level "
    "(check their level tags)"
)
CORRIDOR = {"indoor": "corridor"}
FOOTWAY = {"highway": "footway", "indoor": "yes"}  # taken whole, outside the rooms' hull too


def converted(*features: dict[str, Any]) -> Archive:
    data = read_osm_geojson(
        orjson.dumps({"type": "FeatureCollection", "features": list(features)}), "p.geojson"
    )
    return osm_archive(data, "p", "p")


def joined_units(archive: Archive) -> list[list[str]]:
    """The units each connector joins, origin to destination."""
    found = []
    for relationship in archive.of("relationship"):
        ends = [relationship.properties["origin"], *relationship.properties["intermediary"]]
        ends.append(relationship.properties["destination"])
        found.append([end["id"] for end in ends])
    return found


def opened(archive: Archive, unit: str) -> list[str]:
    """The openings whose id names `unit` (derived doors are `<unit>~<unit>`)."""
    return sorted(o.id for o in archive.of("opening") if unit in o.id.split("~"))


def test_a_stair_end_3_m_from_a_corridor_joins_it() -> None:
    archive = converted(
        area({"id": "way/1", **CORRIDOR, "level": "0"}, 0, 0, 20, 4),
        area({"id": "way/2", **CORRIDOR, "level": "1"}, 0, 0, 20, 4),
        # the top is on the corridor of level 1; the foot 3 m south of level 0's
        line({"id": "way/3", "highway": "steps", "level": "0;1"}, (10, -3), (10, 2)),
    )
    report = archive.report
    assert report.examples[LINKED] == ["way/3 on level 0 to p-way-1, 3.0 m"]
    assert joined_units(archive) == [["p-way-3-level-0", "p-way-3-level-1"]]
    assert opened(archive, "p-way-3-level-0") == ["p-way-1~p-way-3-level-0"]
    assert ALONE not in report.counts and JOINS_NONE not in report.counts


def test_a_lift_ending_20_m_from_anything_joins_no_level_and_is_reported() -> None:
    archive = converted(
        area({"id": "way/1", **CORRIDOR, "level": "0"}, 0, 0, 20, 4),
        area({"id": "way/2", **CORRIDOR, "level": "1"}, 0, 0, 20, 4),
        node({"id": "node/3", "highway": "elevator", "level": "0;1"}, 10, 24),
    )
    report = archive.report
    assert report.examples[ALONE] == [
        "node/3 on level 0: the nearest walkable space is 20 m away",
        "node/3 on level 1: the nearest walkable space is 20 m away",
    ]
    assert report.examples[JOINS_NONE] == ["node/3"]
    assert joined_units(archive) == []
    assert LINKED not in report.counts


def test_steps_whose_top_is_a_node_of_a_footway_of_another_level_lead_onto_it() -> None:
    """Steps tagged 0;2 climb to a node of a footway tagged level 1 (as Grand'Place's
    steps and lifts do): the top is on level 1, where the footway is."""
    archive = converted(
        area({"id": "way/1", **CORRIDOR, "level": "0"}, 0, 0, 20, 4),
        area({"id": "way/2", "indoor": "room", "level": "1", "name": "Shop"}, 30, -5, 40, 5),
        line({"id": "way/3", **FOOTWAY, "level": "1"}, (10, 10), (30, 0)),
        line({"id": "way/4", "highway": "steps", "level": "0;2"}, (10, 2), (10, 10)),
    )
    report = archive.report
    assert report.examples[MOVED] == ["way/4 on level 2: a node of way/3 (level 1)"]
    assert joined_units(archive) == [["p-way-4-level-0", "p-way-4-level-1"]]
    assert {f.id for f in archive.of("level")} == {"p-level-0", "p-level-1"}
    assert opened(archive, "p-way-2") == ["p-way-2~p-footways-level-1-1"]


def test_an_end_is_not_moved_onto_the_level_of_its_other_end() -> None:
    archive = converted(
        area({"id": "way/1", **CORRIDOR, "level": "1"}, 0, 0, 20, 4),
        line({"id": "way/2", "highway": "footway", "level": "1"}, (10, 2), (10, 30)),
        line({"id": "way/3", "highway": "steps", "level": "1;2"}, (10, 2), (10, 30)),
    )
    assert MOVED not in archive.report.counts
    assert archive.report.examples[JOINS_NONE] == ["way/3"]


def test_a_room_5_cm_from_a_corridor_gets_a_door() -> None:
    archive = converted(
        area({"id": "way/1", **CORRIDOR, "level": "0"}, 0, 0, 20, 4),
        area({"id": "way/2", "indoor": "room", "level": "0", "name": "Shop"}, 5, 4.05, 10, 10),
    )
    assert archive.report.examples[DERIVED] == ["way/1 and way/2"]
    assert opened(archive, "p-way-2") == ["p-way-1~p-way-2"]
    assert DOORLESS not in archive.report.counts


def test_a_shop_drawn_inside_a_hall_meets_it_on_its_outline() -> None:
    """The hall is cut by the shop drawn over it: the shop keeps its shape, the hall
    goes round it, and a door joins them on the shop's outline."""
    archive = converted(
        area({"id": "way/1", "indoor": "area", "level": "0", "name": "Hall"}, 0, 0, 40, 30),
        area({"id": "way/2", "indoor": "room", "level": "0", "shop": "kiosk"}, 15, 10, 20, 15),
    )
    [hall] = [u for u in archive.of("unit") if u.id == "p-way-1"]
    assert hall.geometry is not None and len(hall.geometry["coordinates"]) == 2  # a hole
    assert archive.report.examples["open space cut by the rooms drawn over it"] == ["way/1"]
    assert opened(archive, "p-way-2") == ["p-way-1~p-way-2"]


def test_a_shop_3_m_from_a_footway_joins_it_and_one_8_m_off_is_reported() -> None:
    archive = converted(
        area({"id": "way/1", "indoor": "room", "level": "0", "name": "Near"}, 0, 5, 10, 15),
        area({"id": "way/2", "indoor": "room", "level": "0", "name": "Far"}, 30, 10, 40, 20),
        line({"id": "way/3", **FOOTWAY, "level": "0"}, (0, 1), (40, 1)),
    )
    report = archive.report
    # the footway is 2 m wide: its edge is at y 2, 3 m from the near shop, 8 m from the far
    assert report.examples[JOINED] == ["Near (way/1 on level 0) to p-footways-level-0-1, 3.0 m"]
    assert opened(archive, "p-way-1") == ["p-way-1~p-footways-level-0-1"]
    assert report.examples[DOORLESS] == [
        "Far (way/2 on level 0): the nearest walkable space is 8 m away"
    ]
    assert opened(archive, "p-way-2") == []


def test_a_room_with_a_drawn_door_is_not_joined() -> None:
    archive = converted(
        area({"id": "way/1", "indoor": "room", "level": "0", "name": "Near"}, 0, 5, 10, 15),
        line({"id": "way/3", **FOOTWAY, "level": "0"}, (0, 1), (40, 1)),
        node({"id": "node/4", "door": "yes", "level": "0"}, 10, 10),
    )
    assert JOINED not in archive.report.counts
    assert opened(archive, "p-way-1") == []  # node/4 opens it, onto nothing: the mapper's


def test_levels_without_any_connector_are_reported() -> None:
    archive = converted(
        area({"id": "way/1", **CORRIDOR, "level": "-1"}, 0, 0, 20, 4),
        area({"id": "way/2", **CORRIDOR, "level": "0"}, 0, 0, 20, 4),
    )
    assert archive.report.examples[UNJOINED] == ["levels -1, 0"]
    one_level = converted(area({"id": "way/1", **CORRIDOR, "level": "0"}, 0, 0, 20, 4))
    assert UNJOINED not in one_level.report.counts
