"""The IMDF archive an OSM place becomes, in memory and without a database (docs/osm.md,
"Decisions"): a connector's foot cuts the walkable space it stands in, and each piece
meets the foot by a door of its own. The file's bytes are read here and handed to the
pure readers; the import of the same places is tested in tests/storage/osm/."""

from __future__ import annotations

import orjson

from parsing.osm.archive import osm_archive
from parsing.osm.geojson import read_osm_geojson
from tests.venues.osm_places import MALL
from tests.venues.osm_station import area, node

CUT = "unit cut in pieces by a connector's foot, each piece joined to it"


def lift_in_a_corridor() -> bytes:
    """Level 1: shop W (x -6..0), a corridor 2 m wide (x 0..12, y 0..2), shop E
    (x 12..18); a lift (1;2) at the corridor's middle; level 2: a corridor and shop Z
    (tests/storage/osm/test_feet.py routes across it)."""
    corridor = {"indoor": "corridor"}
    features = [
        area({"id": "way/1", "indoor": "room", "level": "1", "name": "Shop W"}, -6, -2, 0, 4),
        area({"id": "way/2", **corridor, "level": "1"}, 0, 0, 12, 2),
        area({"id": "way/3", "indoor": "room", "level": "1", "name": "Shop E"}, 12, -2, 18, 4),
        area({"id": "way/4", **corridor, "level": "2"}, 0, 0, 12, 4),
        area({"id": "way/5", "indoor": "room", "level": "2", "name": "Shop Z"}, 0, 4, 12, 10),
        node({"id": "node/6", "highway": "elevator", "level": "1;2"}, 6, 1),
    ]
    return orjson.dumps({"type": "FeatureCollection", "features": features})


def test_each_piece_of_the_corridor_meets_the_foot_by_a_door() -> None:
    data = read_osm_geojson(lift_in_a_corridor(), "lift-in-a-corridor.geojson")
    archive = osm_archive(data, "p", "p")
    assert archive.report.examples[CUT] == ["p-way-2 by node/6 on level 1"]
    [corridor] = [u for u in archive.of("unit") if u.id == "p-way-2"]
    assert corridor.geometry is not None and corridor.geometry["type"] == "MultiPolygon"
    doors = sorted(o.id for o in archive.of("opening") if "node-6-level-1" in o.id)
    assert doors == ["p-way-2~p-node-6-level-1", "p-way-2~p-node-6-level-1~2"]


def test_the_landing_cut_in_two_by_a_foot_meets_it_by_a_door_on_each_piece() -> None:
    """The 6 m landing (way/493461473, 2 m wide) between the steps from the tram
    platforms: the foot of steps 493461474 (1;2) at its middle cuts it in two pieces,
    each of which meets that foot by a door; what the feet leave of two footways of
    level 0 is left out (under 1 m2)."""
    data = read_osm_geojson(MALL.read_bytes(), str(MALL))
    archive = osm_archive(data, "grand-place", "grand-place")
    report = archive.report
    landing = "grand-place-footways-level-1-4"
    assert report.examples[CUT] == [f"{landing} by way/493461474 on level 1"]
    assert report.examples["walkway under a connector's foot, left out"] == [
        "grand-place-footways-level-0-18",
        "grand-place-footways-level-0-21",
    ]
    [unit] = [u for u in archive.of("unit") if u.id == landing]
    assert unit.geometry is not None and unit.geometry["type"] == "MultiPolygon"
    assert len(unit.geometry["coordinates"]) == 2
    foot = "grand-place-way-493461474-level-1"
    doors = sorted(o.id for o in archive.of("opening") if o.id.startswith(landing))
    assert doors == [
        f"{landing}~grand-place-way-493461469-level-1",
        f"{landing}~grand-place-way-493461471-level-1",
        f"{landing}~{foot}",
        f"{landing}~{foot}~2",
    ]
