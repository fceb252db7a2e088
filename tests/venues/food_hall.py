"""A venue where places stand inside places, as in real malls (issue 48, point 2): shops
with one occupant, a food court with three, amenities of their unit's kind and of
another, an anchor without occupant, an occupant on the concourse, unnamed units.

Plan of the ground floor, metres (x east, y north), the concourse at y 0..6:

    y  6..14  U1 Bakery (occupant)  U2 "Unit 2" + Books & Co  U3 "Food Court" (Noodle
              Bar, Taco Stand, Juice Cart)  U4 restroom + restroom amenity  U5 restroom
              U6 room + anchor  U7 nonpublic
    y -8..0   U8 "Entrance Hall" + amenity "Info Point" (information)  U9 retail +
              amenity "Cash Machine" (atm)  U10 elevator + elevator amenity  U11 stairs
    concourse: occupant "Flower Kiosk" at its anchor

The upper floor: a walkway, an unnamed restroom, the elevator and the stairs.
"""

from __future__ import annotations

from dataclasses import dataclass

from tests.venues.imdf_venues import Venue, rect, stable_id

NORTH = {  # key -> x0, x1, category, name
    "U1": (0, 6, "retail", None),
    "U2": (6, 12, "retail", "Unit 2"),
    "U3": (12, 24, "foodservice", "Food Court"),
    "U4": (24, 28, "restroom", None),
    "U5": (28, 32, "restroom", None),
    "U6": (32, 36, "room", None),
    "U7": (36, 40, "nonpublic", None),
}
SOUTH = {
    "U8": (0, 12, "lobby", "Entrance Hall"),
    "U9": (12, 20, "retail", None),
    "U10": (20, 24, "elevator", None),
    "U11": (24, 30, "stairs", None),
}
FOOD_COURT = ("Noodle Bar", "Taco Stand", "Juice Cart")


@dataclass(frozen=True)
class FoodHall:
    """The venue, its level ids ("G", "1") and unit ids by key ("U1", "U12", ...), and
    the ids of its occupants, amenities and anchor by name."""

    venue: Venue
    levels: dict[str, str]
    units: dict[str, str]
    features: dict[str, str]


def food_hall() -> FoodHall:
    venue = Venue("Food Hall")
    outline = rect(-1, -9, 41, 15)
    venue.venue("Food Hall", outline)
    levels = {
        "G": venue.level("fh-G", 0, "Ground Floor", "G", outline),
        "1": venue.level("fh-1", 1, "Upper Floor", "1", outline),
    }
    units: dict[str, str] = {}
    features: dict[str, str] = {}
    for key, level in levels.items():
        venue.unit(f"fh-concourse-{key}", level, "walkway", rect(0, 0, 40, 6), name="Concourse")
    for key, (x0, x1, category, name) in NORTH.items():
        units[key] = venue.unit(f"fh-{key}", levels["G"], category, rect(x0, 6, x1, 14), name)
        venue.opening(f"fh-{key}", levels["G"], (x0 + 1, 6), (x0 + 2, 6))
    for key, (x0, x1, category, name) in SOUTH.items():
        units[key] = venue.unit(f"fh-{key}", levels["G"], category, rect(x0, -8, x1, 0), name)
        venue.opening(f"fh-{key}", levels["G"], (x0 + 1, 0), (x0 + 2, 0))
    units["U12"] = venue.unit("fh-U12", levels["1"], "restroom", rect(0, 6, 4, 14))
    venue.opening("fh-U12", levels["1"], (1, 6), (2, 6))
    units["U13"] = venue.unit("fh-U13", levels["1"], "elevator", rect(20, -8, 24, 0))
    units["U14"] = venue.unit("fh-U14", levels["1"], "stairs", rect(24, -8, 30, 0))
    venue.opening("fh-U13", levels["1"], (21, 0), (22, 0))
    venue.opening("fh-U14", levels["1"], (25, 0), (26, 0))
    venue.relationship("fh-lift", "elevator", [units["U10"], units["U13"]])
    venue.relationship("fh-stairs", "stairs", [units["U11"], units["U14"]])
    features["Bakery"] = venue.occupant("fh-bakery", "restaurant", "Bakery", (3, 10), units["U1"])
    features["Books & Co"] = venue.occupant(
        "fh-books", "bookstore", "Books & Co", (9, 10), units["U2"]
    )
    for n, name in enumerate(FOOD_COURT):
        features[name] = venue.occupant(
            f"fh-{name}", "restaurant", name, (14 + 4 * n, 10), units["U3"]
        )
    features["Flower Kiosk"] = venue.occupant(
        "fh-kiosk", "florist", "Flower Kiosk", (38, 3), stable_id("unit:fh-concourse-G")
    )
    features["restroom"] = venue.amenity("fh-toilets", "restroom", (26, 10), [units["U4"]], "")
    features["Info Point"] = venue.amenity(
        "fh-info", "information", (6, -4), [units["U8"]], "Info Point"
    )
    features["Cash Machine"] = venue.amenity(
        "fh-atm", "atm", (16, -4), [units["U9"]], "Cash Machine"
    )
    features["elevator"] = venue.amenity("fh-lift", "elevator", (22, -4), [units["U10"]], "")
    features["anchor"] = venue.add(
        "anchor",
        stable_id("anchor:fh-room"),
        venue.point(34, 10),
        {"address_id": None, "unit_id": units["U6"]},
    )
    return FoodHall(venue, levels, units, features)
