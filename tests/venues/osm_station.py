"""An OpenStreetMap railway station of our own (issue 49: stations route between
floors), in Simple Indoor Tagging GeoJSON as mappers draw stations: Gare de
Saint-Laurent, fictional. Built in code; no licence applies (the layout and names are
ours). Also the helpers that draw OSM features in metres, for the small places the OSM
tests build.

Three levels, metres x east and y north (one plane; each feature says its `level`):

- -1, the platforms: quai A (`railway=platform` + `public_transport=platform`, y 2..8)
  and quai B (`public_transport=platform` only, y 22..28), joined by an underpass
  (`indoor=corridor`, x 36..44) with a `Relay` kiosk on its east side.
- 0, the concourse: the departures hall (`indoor=area`, x 10..70, y 0..30) with two
  entrances (south and west), a cash machine node, and north of it a row of rooms: two
  shops both named `Relay`, toilets (`amenity=toilets`, no name), an unnamed room, a
  bookshop drawn on `0;1`, a bakery and the ticket office; east of the hall a footway
  (a line, no area) leads to the pharmacy.
- 1, the mezzanine (`indoor=area`, x 30..60) with a cafe on its east side and the
  bookshop's upper floor on its north side.
- Between levels: steps (`highway=steps`, `-1;0`) from quai A, an escalator
  (`highway=steps` + `conveying=yes`, `-1;0`) from quai B, a lift (`highway=elevator`
  node on `-1;0;1`) in the underpass, the hall and the mezzanine, and a ramp (a
  `highway=footway` on `0;1`) from the hall up to the mezzanine.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

LON, LAT = 5.0, 45.0
METRE_LON, METRE_LAT = 1 / 78_847, 1 / 111_132  # degrees per metre at 45 degrees north
NAME = "Gare de Saint-Laurent"
# (level, name) of every named room, as floorgate names them (a name two rooms of one
# level share is numbered: docs/imdf.md, "Names"); the bookshop is on both its levels
NAMED_ROOMS = {
    ("-1", "Relay"),
    ("0", "Relay 1"),
    ("0", "Relay 2"),
    ("0", "Librairie du Rail"),
    ("1", "Librairie du Rail"),
    ("0", "Paul"),
    ("0", "Billetterie"),
    ("0", "Pharmacie de la Gare"),
    ("1", "Café du Quai"),
}


def at(x: float, y: float) -> list[float]:
    """A point `x` m east and `y` m north of the origin as GeoJSON (lon, lat)."""
    return [LON + x * METRE_LON, LAT + y * METRE_LAT]


def area(tags: dict[str, str], x0: float, y0: float, x1: float, y1: float) -> dict[str, Any]:
    """A rectangle from (x0, y0) to (x1, y1), in metres."""
    ring = [at(x0, y0), at(x1, y0), at(x1, y1), at(x0, y1), at(x0, y0)]
    return {
        "type": "Feature",
        "properties": tags,
        "geometry": {"type": "Polygon", "coordinates": [ring]},
    }


def line(tags: dict[str, str], *points: tuple[float, float]) -> dict[str, Any]:
    coordinates = [at(x, y) for x, y in points]
    return {
        "type": "Feature",
        "properties": tags,
        "geometry": {"type": "LineString", "coordinates": coordinates},
    }


def node(tags: dict[str, str], x: float, y: float) -> dict[str, Any]:
    return {
        "type": "Feature",
        "properties": tags,
        "geometry": {"type": "Point", "coordinates": at(x, y)},
    }


def write_place(path: Path, features: list[dict[str, Any]]) -> Path:
    """The features as a GeoJSON FeatureCollection at `path`."""
    path.write_bytes(orjson.dumps({"type": "FeatureCollection", "features": features}))
    return path


def station_features() -> list[dict[str, Any]]:
    """The station's features, in the order an OSM export gives them (ways, then nodes)."""
    room = {"indoor": "room", "level": "0"}
    return [
        # level -1: platforms, underpass, kiosk
        area(
            {
                "id": "way/101",
                "railway": "platform",
                "public_transport": "platform",
                "level": "-1",
                "name": "Quai A",
                "ref": "A",
            },
            0,
            2,
            80,
            8,
        ),
        area(
            {
                "id": "way/102",
                "public_transport": "platform",
                "level": "-1",
                "name": "Quai B",
                "ref": "B",
            },
            0,
            22,
            80,
            28,
        ),
        area({"id": "way/103", "indoor": "corridor", "level": "-1"}, 36, 8, 44, 22),
        area(
            {"id": "way/104", "indoor": "room", "level": "-1", "shop": "kiosk", "name": "Relay"},
            44,
            12,
            50,
            18,
        ),
        # level 0: the hall and its rooms
        area(
            {"id": "way/201", "indoor": "area", "level": "0", "name": "Hall des départs"},
            10,
            0,
            70,
            30,
        ),
        area({"id": "way/202", **room, "shop": "newsagent", "name": "Relay"}, 10, 30, 18, 38),
        area({"id": "way/203", **room, "amenity": "toilets"}, 18, 30, 26, 38),
        area({"id": "way/204", **room}, 26, 30, 34, 38),
        area({"id": "way/205", **room, "shop": "newsagent", "name": "Relay"}, 34, 30, 44, 38),
        area(
            {"id": "way/206", **room, "level": "0;1", "shop": "books", "name": "Librairie du Rail"},
            44,
            30,
            52,
            38,
        ),
        area({"id": "way/207", **room, "shop": "bakery", "name": "Paul"}, 52, 30, 62, 38),
        area({"id": "way/208", **room, "shop": "ticket", "name": "Billetterie"}, 62, 30, 70, 38),
        line({"id": "way/209", "highway": "footway", "level": "0"}, (70, 15), (76, 15)),
        area(
            {"id": "way/210", **room, "amenity": "pharmacy", "name": "Pharmacie de la Gare"},
            76,
            10,
            84,
            20,
        ),
        # level 1: the mezzanine and its cafe
        area(
            {"id": "way/401", "indoor": "area", "level": "1", "name": "Mezzanine"}, 30, 10, 60, 30
        ),
        area(
            {
                "id": "way/402",
                "indoor": "room",
                "level": "1",
                "amenity": "cafe",
                "name": "Café du Quai",
            },
            60,
            14,
            68,
            24,
        ),
        # between levels
        line(
            {"id": "way/301", "highway": "steps", "level": "-1;0", "incline": "up"},
            (20, 5),
            (20, 12),
        ),
        line(
            {
                "id": "way/302",
                "highway": "steps",
                "conveying": "yes",
                "level": "-1;0",
                "incline": "up",
            },
            (60, 25),
            (60, 12),
        ),
        line(
            {
                "id": "way/304",
                "highway": "footway",
                "ramp": "yes",
                "level": "0;1",
                "incline": "up",
                "wheelchair": "yes",
            },
            (14, 20),
            (34, 20),
        ),
        node(
            {"id": "node/303", "highway": "elevator", "level": "-1;0;1", "wheelchair": "yes"},
            40,
            15,
        ),
        # nodes of level 0: the entrances, a cash machine; the station itself
        node({"id": "node/211", "entrance": "main", "level": "0"}, 40, 0),
        node({"id": "node/212", "entrance": "yes", "door": "automatic", "level": "0"}, 10, 15),
        node({"id": "node/213", "amenity": "atm", "level": "0", "name": "Distributeur"}, 30, 5),
        node(
            {"id": "node/214", "railway": "station", "public_transport": "station", "name": NAME},
            40,
            15,
        ),
    ]


def write_station(folder: Path) -> Path:
    """The station as `gare-de-saint-laurent.geojson` in `folder`."""
    return write_place(folder / "gare-de-saint-laurent.geojson", station_features())
