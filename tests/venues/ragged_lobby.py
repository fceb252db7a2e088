"""An IMDF venue of our own whose lobby is drawn as CAD exports draw walls (issue 65,
point 4): Ragged Lobby, one level, metres x east and y north. Built in code; no
licence applies (the layout and names are ours).

The lobby (14 m x 8 m) has its walls drawn in steps: a vertex every 0.2 m, each up to
5 cm in from the straight wall (seeded), a rounded north-east corner (12 segments) and
two round columns (16 segments each). Around it, behind walls 0.2 m thick with each
opening drawn in the wall's middle:

    y  8.2..13  Room 1 (0.9 m door)  Room 2 (1.8 m)  Room 3 (2.4 m)  Room 4 (3 m)
    y  0..8     Reception (west, x -4.2..-0.2, a 2.4 m opening)  LOBBY  Cafe (east,
                x 14.2..19, a 3 m opening)

The lobby's point stands 1.4 m from the Reception's wall, whose point stands 1.5 m
behind it: a walk of 3.1 m (10.2 ft) through the wide opening; twelve amenities stand
in the lobby (more terminals than the exact network takes: the lobby's is a spanner).
The steps of the wall left slits between the wide openings' mouths and the shrunk
lobby, and walks went round them: that one 11.7 ft (1.144x), Point 5 to Room 3 and
Reception to Point 2 1.15x (routing/imdf/paths.py, `MOUTH_OVERLAP`).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from tests.venues.imdf_venues import Venue, rect, stable_id

XY = tuple[float, float]
WIDTH, DEPTH, WALL = 14.0, 8.0, 0.2
STEP, JITTER = 0.2, 0.05  # metres: the lobby's wall vertices, and how far in they stray
SEED = 7  # the steps drawn with this seed made the bends (module docstring)
LOBBY_POINT = (1.4, 4.6)
RECEPTION_POINT = (-1.7, 4.9)
COLUMNS = ((5.0, 3.0), (9.0, 5.0))  # centres, 0.35 m radius
# key -> (x0, x1) along the north wall, door width
NORTH = {"Room 1": ((0.0, 3.5), 0.9), "Room 2": ((3.5, 7.0), 1.8)}
NORTH |= {"Room 3": ((7.0, 10.5), 2.4), "Room 4": ((10.5, 14.0), 3.0)}


@dataclass(frozen=True)
class RaggedLobby:
    """The venue, its level id and its units' ids by name."""

    venue: Venue
    level: str
    units: dict[str, str]


def _ragged(a: XY, b: XY, inward: XY, rng: random.Random) -> list[XY]:
    """The wall from a to b (b left out) as steps: a vertex every STEP, moved up to
    JITTER towards the inside."""
    length = math.dist(a, b)
    count = max(1, round(length / STEP))
    points = []
    for k in range(count):
        t = k / count
        off = rng.uniform(0.0, JITTER) if k else 0.0
        points.append(
            (a[0] + (b[0] - a[0]) * t + off * inward[0], a[1] + (b[1] - a[1]) * t + off * inward[1])
        )
    return points


def _lobby_outline(seed: int) -> list[XY]:
    rng = random.Random(seed)
    radius = 2.0
    ring = _ragged((0.0, 0.0), (WIDTH, 0.0), (0.0, 1.0), rng)
    ring += _ragged((WIDTH, 0.0), (WIDTH, DEPTH - radius), (-1.0, 0.0), rng)
    centre = (WIDTH - radius, DEPTH - radius)
    ring += [
        (centre[0] + radius * math.cos(a), centre[1] + radius * math.sin(a))
        for a in (math.pi / 2 * k / 12 for k in range(13))
    ]
    ring += _ragged((WIDTH - radius, DEPTH), (0.0, DEPTH), (0.0, -1.0), rng)[1:]
    ring += _ragged((0.0, DEPTH), (0.0, 0.0), (1.0, 0.0), rng)
    return ring


def _column(x: float, y: float) -> list[XY]:
    return [
        (x + 0.35 * math.cos(2 * math.pi * k / 16), y + 0.35 * math.sin(2 * math.pi * k / 16))
        for k in range(16)
    ]


def ragged_lobby(seed: int = SEED) -> RaggedLobby:
    """Ragged Lobby (the module's docstring); `seed` draws its steps."""
    venue = Venue("Ragged Lobby")
    outline = rect(-5, -1, 20, 14)
    venue.venue("Ragged Lobby", outline)
    level = venue.level("R0", 0, "Ground", "G", outline)
    units = {
        "Lobby": venue.unit("lobby", level, "lobby", _lobby_outline(seed), "Lobby", LOBBY_POINT)
    }
    venue.features["unit"][-1]["geometry"]["coordinates"] += [
        venue.ring(_column(x, y)) for x, y in COLUMNS
    ]
    west = rect(-4.2, 0, -WALL, DEPTH)
    units["Reception"] = venue.unit("reception", level, "room", west, "Reception", RECEPTION_POINT)
    venue.opening("reception", level, (-WALL / 2, 3.6), (-WALL / 2, 6.0))
    east = rect(WIDTH + WALL, 0, 19, DEPTH)
    units["Cafe"] = venue.unit("cafe", level, "room", east, "Cafe", (17.0, 2.0))
    venue.opening("cafe", level, (WIDTH + WALL / 2, 0.8), (WIDTH + WALL / 2, 3.8))
    for name, ((x0, x1), width) in NORTH.items():
        key = name.lower().replace(" ", "")
        shape = rect(x0 + WALL / 2, DEPTH + WALL, x1 - WALL / 2, 13)
        units[name] = venue.unit(key, level, "room", shape, name, ((x0 + x1) / 2, 11.5))
        middle = (x0 + x1) / 2 - 0.4
        a, b = (middle - width / 2, DEPTH + WALL / 2), (middle + width / 2, DEPTH + WALL / 2)
        venue.opening(key, level, a, b)
    spots = [(0.8, 1.0), (0.8, 7.0), (2.5, 7.3), (4.0, 6.8), (6.0, 7.3), (8.5, 7.2)]
    spots += [(11.0, 7.0), (13.2, 5.2), (13.3, 2.3), (11.0, 0.8), (7.0, 0.7), (3.0, 0.9)]
    lobby = stable_id("unit:lobby")
    for k, at in enumerate(spots):
        venue.amenity(f"ragged-{k}", "information", at, [lobby], f"Point {k + 1}")
    return RaggedLobby(venue, level, units)
