"""A synthetic IMDF level with what makes generated walks long on real venues (issue 48,
point 7), in metres, with its exact reference (tests/routing/imdf/free_space.py).

- a corridor of four walkway units joined by openings across its whole width (as IMDF
  venues split corridors), rooms along it behind walls 0.1, 0.2 and 0.3 m thick, each
  entered through a door in the middle of the wall: centred, off-centre, at a corner;
  neighbouring rooms joined through their side walls (many short pairs);
- an open hall south of the corridor, joined along a 20 m open side, with small rooms
  on its far wall: straight lines across it must not bend;
- a wing at 30 degrees, its rooms entered at an angle from its own corridor, which
  meets the main corridor's end through a door at an angle.

Every unit is listed (named by its key) and its display point stands in the free space;
every room, bay, shop and wing room holds two amenities (`AMENITIES`) near opposite
corners, 0.5 m from its walls: locations that are not the unit's point.
"""

from __future__ import annotations

import math

import shapely

from routing.reference.free_space import free_spaces, shortest_walks
from tests.venues.imdf_venues import Venue, rect, stable_id

XY = tuple[float, float]
WALLS = (0.1, 0.2, 0.3)  # wall thickness of the rooms, in turn
CORRIDOR = 2.4  # metres wide

UNITS: dict[str, tuple[list[XY], XY]] = {}  # key -> outline, display point
DOORS: dict[str, tuple[XY, XY, float]] = {}  # key -> line, units' distance from it


def _room_row() -> None:
    """The corridor's four units and the rooms north of it."""
    for k in range(4):
        UNITS[f"corridor{k}"] = (rect(10 * k, 0, 10 * k + 10, CORRIDOR), (10 * k + 5.0, 1.2))
        if k:
            DOORS[f"corridor{k - 1}-{k}"] = ((10 * k, 0), (10 * k, CORRIDOR), 0.0)
    x = 0.0
    for k in range(9):
        wall = WALLS[k % 3]
        y0 = CORRIDOR + wall
        x0, x1 = x + (wall / 2 if k else 0.0), x + 4.0 - WALLS[(k + 1) % 3] / 2
        UNITS[f"room{k}"] = (rect(x0, y0, x1, y0 + 4), ((x0 + x1) / 2, y0 + 2.5 + 0.3 * (k % 2)))
        y = CORRIDOR + wall / 2
        if k % 3 == 0:  # centred
            a, b = ((x0 + x1) / 2 - 0.45, y), ((x0 + x1) / 2 + 0.45, y)
        elif k % 3 == 1:  # off-centre, 0.4 m from the west wall
            a, b = (x0 + 0.4, y), (x0 + 1.3, y)
        else:  # at the corner: its end on the east wall
            a, b = (x1 - 0.9, y), (x1, y)
        DOORS[f"room{k}"] = (a, b, wall / 2)
        if k and k % 2 == 0:  # into the west neighbour through the side wall, at a corner
            side = WALLS[k % 3]
            DOORS[f"room{k - 1}-{k}"] = ((x, y0 + 4 - 1.0), (x, y0 + 4 - 0.1), side / 2)
        x += 4.0


def _hall() -> None:
    """The open hall south of the corridor and the rooms on its far wall."""
    UNITS["hall"] = (rect(0, -12, 20, 0), (3.0, -3.0))
    for k in range(2):  # an open side, whole, along two of the corridor's units
        DOORS[f"corridor{k}-hall"] = ((10.0 * k, 0.0), (10.0 * k + 10, 0.0), 0.0)
    for k in range(4):
        x0 = 1.0 + 5 * k
        UNITS[f"bay{k}"] = (rect(x0, -16.2, x0 + 3.5, -12.2), (x0 + 1.75, -14.2))
        DOORS[f"bay{k}"] = ((x0 + 1.3, -12.1), (x0 + 2.2, -12.1), 0.1)


def _wing() -> None:
    """A corridor at 30 degrees from the main corridor's east end (its west end square
    to the main corridor's wall, 0.2 m thick), rooms on its north side."""
    angle = math.radians(30)
    c, s = math.cos(angle), math.sin(angle)
    origin = (40.2, 0.0)

    def at(u: float, v: float) -> XY:
        return (origin[0] + u * c - v * s, origin[1] + u * s + v * c)

    top = (origin[0], 2 / c)  # the wing's north side meets its square west end
    UNITS["wing"] = ([origin, at(18, 0), at(18, 2), top], at(8, 1))
    DOORS["corridor-wing"] = ((40.1, 0.4), (40.1, 1.4), 0.1)
    for k in range(3):
        u0 = 2.0 + 5.2 * k
        outline = [at(u0, 2.2), at(u0 + 5, 2.2), at(u0 + 5, 6.2), at(u0, 6.2)]
        UNITS[f"wing{k}"] = (outline, at(u0 + 3.5, 4.7))
        DOORS[f"wing{k}"] = (at(u0 + 0.8 + k, 2.1), at(u0 + 1.7 + k, 2.1), 0.1)


def _atrium() -> None:
    """An atrium east of the hall, under the corridor's east half, with 40 pillars and
    more doors than the exact union takes; shops along its south side open onto it and
    onto a 70 m concourse beyond, whose 80 pillars give its network over 300 nodes."""
    UNITS["atrium"] = (rect(20.2, -24, 60, -0.2), (58.0, -2.0))
    DOORS["hall-atrium"] = ((20.1, -6.0), (20.1, -5.0), 0.1)
    DOORS["corridor2-atrium"] = ((24.0, -0.1), (25.0, -0.1), 0.1)
    DOORS["corridor3-atrium"] = ((35.0, -0.1), (36.0, -0.1), 0.1)
    for i in range(8):
        for j in range(5):
            x, y = 24.0 + 4.5 * i, -20.0 + 4.0 * j
            HOLES.setdefault("atrium", []).append(rect(x, y, x + 0.6, y + 0.6))
    for k in range(8):
        x0 = 20.3 + 5.0 * k
        UNITS[f"shop{k}"] = (rect(x0, -29.8, x0 + 4.8, -24.2), (x0 + 1.0 + 0.3 * k, -27.0))
        DOORS[f"shop{k}"] = ((x0 + 0.5 + 0.4 * k, -24.1), (x0 + 1.4 + 0.4 * k, -24.1), 0.1)
        DOORS[f"shop{k}-concourse"] = ((x0 + 3.6, -29.9), (x0 + 4.5, -29.9), 0.1)
    UNITS["concourse"] = (rect(0, -44, 70, -30), (2.0, -42.0))
    for i in range(20):
        for j in range(4):
            x, y = 3.0 + 3.4 * i, -41.0 + 3.0 * j
            HOLES.setdefault("concourse", []).append(rect(x, y, x + 0.5, y + 0.5))


HOLES: dict[str, list[list[XY]]] = {}  # key -> pillars
_room_row()
_hall()
_wing()
_atrium()


def _amenities() -> dict[str, tuple[str, XY]]:
    """Two per small room, near opposite corners (a fifth of the way from the corner
    0.5 m inside the walls to the room's centre): key -> (unit key, point)."""
    found = {}
    for key, (outline, _) in UNITS.items():
        if key.startswith(("room", "bay", "shop", "wing")) and key != "wing":
            inner = shapely.Polygon(outline).buffer(-0.5, join_style="mitre")
            centre = inner.centroid
            corners = list(inner.exterior.coords)
            for n in range(2):
                x, y = corners[2 * n]
                point = (x + 0.2 * (centre.x - x), y + 0.2 * (centre.y - y))
                found[f"{key}.a{n}"] = (key, point)
    return found


AMENITIES = _amenities()


def venue() -> Venue:
    built = Venue("Hard Rooms")
    outline = rect(-2, -46, 72, 18)
    built.venue("Hard Rooms", outline)
    level = built.level("H0", 0, "Level 0", "0", outline)
    for key, (points, display) in UNITS.items():
        built.unit(key, level, "room", points, name=key, display=display)  # all listed
        if key in HOLES:
            built.features["unit"][-1]["geometry"]["coordinates"] += [
                built.ring(h) for h in HOLES[key]
            ]
    for key, (a, b, _) in DOORS.items():
        built.opening(key, level, a, b)
    for key, (unit, point) in AMENITIES.items():
        built.amenity(key, "atm", point, [stable_id(f"unit:{unit}")], key)
    return built


def points() -> list[XY]:
    """Where the locations stand: the units' display points, then the amenities."""
    return [display for _, display in UNITS.values()] + [p for _, p in AMENITIES.values()]


def reference() -> list[list[float]]:
    """The exact shortest walks between every two locations (`points`, metres)."""
    units = [shapely.Polygon(p, HOLES.get(key, [])) for key, (p, _) in UNITS.items()]
    free = free_spaces(units, list(DOORS.values()))
    assert isinstance(free, shapely.Polygon), "one free space"
    for point in points():
        assert free.contains(shapely.Point(point))
    return shortest_walks(free, points())
