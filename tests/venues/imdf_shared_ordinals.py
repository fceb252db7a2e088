"""An IMDF venue with two levels per ordinal (issue 48, point 1), built with the helpers
of tests/venues/imdf_venues.py: Harbour Station.

Five levels, 40 m x 10 m of rooms north of a 4 m hall, connector units south of it:

- ordinal 0, **Lower Level**: the whole width; an entrance at its west end.
- ordinal 1, **Concourse** (west half, indoor) and **Sun Terrace** (east half, outdoor),
  touching along x = 20 through one door between their halls (on the Concourse's
  level), as in Apple's sample venue ("Concourse" and "Concourse Outdoor").
- ordinal 2, **Parkway** (west half) and **Parkway Deck** (east half), touching along
  x = 20 with no opening at all: their halls share a 4 m edge.

Stairs, an elevator and an escalator are stacked between the Lower Level and the
Concourse, stairs and an elevator between the Lower Level and the Sun Terrace, and the
same go on from each ordinal-1 level to the ordinal-2 level above it; no relationship
names them (they are found by overlap). Irregular bits: a room without a name, and
one-sided doors (the Terrace's gate and the kiosk's hatch, each with a unit on one
side only). `harbour_station(terrace_joined=False)` is the same venue with the door
between the two ordinal-1 levels removed, the Terrace's lawn set 1 m back from the
Concourse (a planted strip: no edge shared either) and its stairs and elevator units
gone: nothing joins the Sun Terrace to the other levels. `harbour_station(bike_store=True)`
adds a Parkway room at the far east end (the Bike Store, x 37..40, its door on the
Deck's side), so that the Parkway's box takes in the whole Parkway Deck, as the
Concourse's takes in the Concourse Outdoor on Apple's sample venue (issue 65, point 5):
a point on the Deck lies in both levels' boxes, in the Deck's footprint only.
"""

from __future__ import annotations

from dataclasses import dataclass

from tests.venues.imdf_venues import Venue, rect

Box = tuple[float, float, float, float]
OUTLINE = [(-1.0, -5.0), (41.0, -5.0), (41.0, 11.0), (-1.0, 11.0)]
WEST, EAST = (0.0, 20.0), (20.0, 40.0)

# level key -> (ordinal, name, short name, x span)
LEVELS = {
    "lower": (0, "Lower Level", "LL", (0.0, 40.0)),
    "concourse": (1, "Concourse", "C", WEST),
    "terrace": (1, "Sun Terrace", "T", EAST),
    "parkway": (2, "Parkway", "P", WEST),
    "deck": (2, "Parkway Deck", "PD", EAST),
}
HALL = {"terrace": ("unenclosedarea", "Terrace Lawn")}  # else a drawn-only walkway

# level key -> rooms north of the hall: (key, category, name or None, box)
ROOMS: dict[str, list[tuple[str, str, str | None, Box]]] = {
    "lower": [
        ("ticket", "room", "Ticket Office", (2, 4, 8, 10)),
        ("unnamed", "room", None, (12, 4, 18, 10)),
        ("shop", "retail", "Lower Shop", (30, 4, 36, 10)),
    ],
    "concourse": [
        ("cafe", "foodservice", "Café", (2, 4, 8, 10)),
        ("gate", "room", "Gate A", (12, 4, 18, 10)),
    ],
    "terrace": [("kiosk", "retail", "Ice Cream Kiosk", (22, 4, 26, 10))],
    "parkway": [("office", "office", "Parking Office", (2, 4, 8, 10))],
    "deck": [("lounge", "lounge", "Deck Lounge", (30, 4, 36, 10))],
}

# Connector units south of the hall, stacked where their boxes repeat on the next level.
STAIRS_WEST, LIFT_WEST, ESCALATOR = (4, -4, 8, 0), (10, -4, 13, 0), (14, -4, 18, 0)
STAIRS_EAST, LIFT_EAST = (24, -4, 28, 0), (30, -4, 33, 0)
CONNECTORS: dict[str, list[tuple[str, str, Box]]] = {
    "lower": [
        ("stairs-west", "stairs", STAIRS_WEST),
        ("lift-west", "elevator", LIFT_WEST),
        ("escalator", "escalator", ESCALATOR),
        ("stairs-east", "stairs", STAIRS_EAST),
        ("lift-east", "elevator", LIFT_EAST),
    ],
    "concourse": [
        ("stairs-west", "stairs", STAIRS_WEST),
        ("lift-west", "elevator", LIFT_WEST),
        ("escalator", "escalator", ESCALATOR),
    ],
    "terrace": [("stairs-east", "stairs", STAIRS_EAST), ("lift-east", "elevator", LIFT_EAST)],
    "parkway": [("stairs-west", "stairs", STAIRS_WEST), ("lift-west", "elevator", LIFT_WEST)],
    "deck": [("stairs-east", "stairs", STAIRS_EAST), ("lift-east", "elevator", LIFT_EAST)],
}


@dataclass(frozen=True)
class SharedOrdinals:
    """The venue and its ids: levels by key, units by "<level>:<key>" ("terrace:hall",
    "lower:lift-east"), openings by name ("between", "entrance", "gate", "hatch")."""

    venue: Venue
    levels: dict[str, str]
    units: dict[str, str]
    openings: dict[str, str]

    @property
    def stack(self) -> str:
        """The stack map's id: the venue's."""
        return str(self.venue.features["venue"][0]["id"])


BIKE_STORE: Box = (37, 4, 40, 10)  # on the Parkway, east of the Deck Lounge


def harbour_station(terrace_joined: bool = True, bike_store: bool = False) -> SharedOrdinals:
    """The venue; with `terrace_joined` False, nothing joins the Sun Terrace to the other
    levels (no door, no shared edge, no stairs or elevator units); with `bike_store`,
    the Parkway's Bike Store stands east of the Deck (the module's docstring)."""
    venue = Venue("Harbour Station")
    venue.venue("Harbour Station", OUTLINE)
    levels: dict[str, str] = {}
    units: dict[str, str] = {}
    openings: dict[str, str] = {}
    for key, (ordinal, name, short, (x0, x1)) in LEVELS.items():
        level = levels[key] = venue.level(key, ordinal, name, short, rect(x0, -5, x1, 11))
        category, hall_name = HALL.get(key, ("walkway", None))
        start = x0 + 1 if key == "terrace" and not terrace_joined else x0
        units[f"{key}:hall"] = venue.unit(
            f"{key}:hall", level, category, rect(start, 0, x1, 4), name=hall_name
        )
        for room, kind, room_name, (a, b, c, d) in ROOMS[key]:
            units[f"{key}:{room}"] = venue.unit(
                f"{key}:{room}", level, kind, rect(a, b, c, d), name=room_name
            )
            venue.opening(f"{key}:{room}", level, (a + 1, 4), (a + 2, 4))
        for unit, kind, (a, b, c, d) in CONNECTORS[key]:
            if key == "terrace" and not terrace_joined:
                continue
            units[f"{key}:{unit}"] = venue.unit(f"{key}:{unit}", level, kind, rect(a, b, c, d))
            venue.opening(f"{key}:{unit}", level, (a + 1, 0), (a + 2, 0))
    if bike_store:
        a, b, c, d = BIKE_STORE
        units["parkway:bikes"] = venue.unit(
            "parkway:bikes", levels["parkway"], "room", rect(a, b, c, d), name="Bike Store"
        )
        venue.opening("parkway:bikes", levels["parkway"], (a + 1, 4), (a + 2, 4))
    openings["entrance"] = venue.opening("entrance", levels["lower"], (0, 1), (0, 3))
    if terrace_joined:  # on the Concourse's level, on both halls' boundaries
        openings["between"] = venue.opening("between", levels["concourse"], (20, 1.2), (20, 2.8))
    openings["gate"] = venue.opening("gate", levels["terrace"], (40, 1), (40, 3))
    openings["hatch"] = venue.opening("hatch", levels["terrace"], (23, 10), (24, 10))
    return SharedOrdinals(venue, levels, units, openings)
