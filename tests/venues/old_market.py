"""An irregular venue as real ones are (issue 35): a hall around a courtyard (a hole in
its polygon), unnamed shops named only by their occupants, amenities or anchors, unnamed
restrooms and non-public rooms, an open-plan room with no door, two rooms named alike,
and labels in two languages; and the same venue written in each input form.

Plan of the ground floor, metres (x east, y north):

    y 30..36   R1 R2 R3(female) N1 N2(no door) D1 "Shop" D2 "Shop"
    y  0..30   the hall (lobby), courtyard hole x 15..25, y 10..20
    y -8..0    S1 (Bakery) S2 (Zebra Books, Atlas Maps) S3 (amenity Cash Point)
               S4 (anchor "Info Desk") S5 (alt_name "Back Room")

Level 1: a gallery (walkway) over the hall, same hole, and one unnamed restroom.
"""

from __future__ import annotations

from typing import Any

import orjson

from tests.venues.imdf_venues import Venue, rect, stable_id

HALL = (0.0, 0.0, 40.0, 30.0)
COURTYARD = (15.0, 10.0, 25.0, 20.0)
SOUTH = {"S1": 0, "S2": 8, "S3": 16, "S4": 24, "S5": 32}  # x0, 8 m wide, y -8..0
NORTH = {  # x0, x1, category, name
    "R1": (0, 5, "restroom", None),
    "R2": (5, 10, "restroom", None),
    "R3": (10, 15, "restroom.female", None),
    "N1": (15, 25, "nonpublic", None),
    "N2": (25, 32, "nonpublic", None),
    "D1": (32, 36, "room", "Shop"),
    "D2": (36, 40, "room", "Shop"),
}


def holed(venue: Venue, outer: tuple[float, ...], hole: tuple[float, ...]) -> dict[str, Any]:
    """A Polygon with one interior ring (a courtyard or a shaft)."""
    return {
        "type": "Polygon",
        "coordinates": [venue.ring(rect(*outer)), venue.ring(rect(*hole))[::-1]],
    }


def old_market(venue_name: dict[str, str] | None = None) -> tuple[Venue, dict[str, str]]:
    """The venue and its unit ids by key ("hall", "S1", ..., "gallery", "R1@1")."""
    venue = Venue("Old Market")
    outline = [(-1, -9), (41, -9), (41, 37), (-1, 37)]
    venue.venue("Old Market", outline)
    venue.features["venue"][0]["properties"]["name"] = venue_name or {
        "fr": "Vieux Marché",
        "en": "Old Market",
    }
    ground = venue.level("G", 0, "Ground Floor", "G", outline)
    venue.features["level"][0]["properties"]["name"] = {
        "fr": "Rez-de-chaussée",
        "en": "Ground Floor",
    }
    first = venue.level("1", 1, "Level 1", "1", outline)
    venue.features["level"][1]["properties"]["name"] = {"en": "Level 1"}
    units: dict[str, str] = {}
    hall = venue.unit("hall", ground, "lobby", rect(*HALL), display=(5, 5))
    venue.features["unit"][-1]["geometry"] = holed(venue, HALL, COURTYARD)
    venue.features["unit"][-1]["properties"]["name"] = {"en": "Hall", "fr": "Halle"}
    units["hall"] = hall
    for key, x0 in SOUTH.items():
        category = "retail" if key in ("S1", "S2", "S3") else "room"
        units[key] = venue.unit(key, ground, category, rect(x0, -8, x0 + 8, 0))
        venue.opening(key, ground, (x0 + 3, 0), (x0 + 4, 0))
    venue.features["unit"][-1]["properties"]["alt_name"] = {"en": "Back Room"}
    for key, (x0, x1, category, name) in NORTH.items():
        units[key] = venue.unit(key, ground, category, rect(x0, 30, x1, 36), name=name)
        if key != "N2":  # the open plan: no opening at all
            venue.opening(key, ground, (x0 + 1, 30), (x0 + 2, 30))
    venue.occupant("bakery", "restaurant", "Bakery", (4, -4), units["S1"])
    venue.occupant("zebra", "bookstore", "Zebra Books", (10, -4), units["S2"])
    venue.occupant("atlas", "bookstore", "Atlas Maps", (14, -4), units["S2"])
    venue.amenity("cash", "atm", (20, -4), [units["S3"]], "Cash Point")
    venue.amenity("toilets", "restroom", (2, 33), [units["R1"]], "")
    venue.features["amenity"][-1]["properties"]["name"] = None  # unnamed: a label
    venue.add(
        "anchor",
        stable_id("anchor:info"),
        venue.point(28, -4),
        {"address_id": None, "unit_id": units["S4"], "name": {"en": "Info Desk"}},
    )
    units["gallery"] = venue.unit("gallery", first, "walkway", rect(*HALL))
    venue.features["unit"][-1]["geometry"] = holed(venue, HALL, COURTYARD)
    units["R1@1"] = venue.unit("R1@1", first, "restroom", rect(0, 30, 5, 36))
    venue.opening("R1@1", first, (1, 30), (2, 30))
    return venue, units


def manifest(language: str | None = "en") -> dict[str, Any]:
    found: dict[str, Any] = {"version": "1.0.0", "created": "2026-11-01T00:00:00Z"}
    return found | ({"language": language} if language else {})


def collections(venue: Venue, bare: bool = False) -> dict[str, Any]:
    """`{"venue": FeatureCollection, "level": ...}`; `bare`: arrays of features."""
    return {
        kind: features if bare else {"type": "FeatureCollection", "features": features}
        for kind, features in venue.features.items()
    }


def feature_collection(venue: Venue) -> dict[str, Any]:
    """Every feature in one FeatureCollection, each carrying its `feature_type`."""
    return {
        "type": "FeatureCollection",
        "features": [f for features in venue.features.values() for f in features],
    }


def dumps(document: Any) -> bytes:
    return orjson.dumps(document)
