"""The Old Mill: a two-level building drawn the way real ones are, for directions.

Nothing in it is a clean grid. Level 1: a long hall drawn by a shaky hand (a vertex every
4 ft, up to 0.4 ft off the line), a corridor that curves away (a cubic), one with a
chamfered corner, a wing at 45 degrees, a corridor with an 8 ft sidestep. Level 2: a
corridor drawn as a saw-tooth, a curve, a diagonal. Rooms stand on both sides with
doors reached by short spurs at whatever angle their corridor runs; stairs and an
elevator join the levels. 0.1 ft per canvas unit, so 10 ft is 100 units.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

ASSET = "om-asset"
MAP = "om-map"
FLOORS = ("om-f1", "om-f2")
FEET_PER_UNIT = 0.1
STAMP = "2026-01-01T00:00:00+00:00"
XY = tuple[float, float]

JITTER = (0, 3, -2, 4, -1, -4, 2, 0, -3, 1, 4, -2, 3, -4, 1, -1, 2, -3, 0, 4, -2, 1, -4, 3)
HALL = [(200.0 + 40 * i, 600.0 + JITTER[i % len(JITTER)]) for i in range(30)] + [(1400.0, 600.0)]
CURVE = "M 1400 600 C 1560 600 1700 740 1700 900"
CHAMFER = [(1700.0, 900.0), (1700.0, 1200.0), (1740.0, 1240.0), (2100.0, 1240.0)]
WING = [HALL[12], (1000.0, 280.0)]  # about 45 degrees
JOG = [(200.0, 600.0), (200.0, 400.0), (280.0, 400.0), (280.0, 150.0)]
SAW = [(1000.0 + 20 * i, 280.0 + (5.0 if i % 2 else 0.0)) for i in range(31)]  # to x 1600
ARC = "M 1600 280 C 1760 280 1900 420 1900 580"
UPPER = [(1900.0, 580.0), (1900.0, 1000.0), (2100.0, 1240.0)]
STAIRS, LIFT = (2100.0, 1240.0), WING[1]


def _foot(point: XY, line: list[XY]) -> XY:
    """The nearest point of a polyline to `point`."""
    best: tuple[float, XY] | None = None
    for (ax, ay), (bx, by) in itertools.pairwise(line):
        dx, dy = bx - ax, by - ay
        t = max(0.0, min(1.0, ((point[0] - ax) * dx + (point[1] - ay) * dy) / (dx * dx + dy * dy)))
        foot = (ax + t * dx, ay + t * dy)
        distance = math.dist(point, foot)
        if best is None or distance < best[0]:
            best = (distance, foot)
    assert best is not None
    return best[1]


def _room(centre: XY, line: list[XY], depth: float) -> tuple[list[XY], XY, XY]:
    """A square room around `centre` turned to face `line`, its door `depth` units from
    its centre towards the line; the spur from the line to the door."""
    foot = _foot(centre, line)
    ux, uy = (
        (foot[0] - centre[0]) / math.dist(foot, centre),
        (foot[1] - centre[1]) / math.dist(foot, centre),
    )
    door = (centre[0] + ux * depth, centre[1] + uy * depth)
    vx, vy = -uy, ux
    corners = [
        (centre[0] + a * ux * depth + b * vx * depth, centre[1] + a * uy * depth + b * vy * depth)
        for a, b in ((1, 1), (1, -1), (-1, -1), (-1, 1))
    ]
    return corners, door, foot


def _rooms() -> dict[str, list[tuple[str, str, XY, list[XY]]]]:
    """(unit id, name, centre, corridor) per floor."""
    level1 = [
        (f"om-1{n:02d}", f"Studio 1{n:02d}", (260.0 + 160 * n, 450.0), HALL) for n in range(7)
    ]
    level1 += [
        (f"om-1{n + 10:02d}", f"Studio 1{n + 10:02d}", (340.0 + 160 * n, 760.0), HALL)
        for n in range(7)
    ]
    level1 += [
        (f"om-1{n + 20:02d}", f"Loft 1{n + 20:02d}", (1800.0 + 100 * n, 1390.0), CHAMFER)
        for n in range(3)
    ]
    diagonal = [WING[0], WING[1]]
    for n, along in enumerate((0.3, 0.6, 0.85)):
        x = WING[0][0] + along * (WING[1][0] - WING[0][0])
        y = WING[0][1] + along * (WING[1][1] - WING[0][1])
        for side, sign in (("a", 1), ("b", -1)):
            centre = (x + sign * 106.0, y + sign * 106.0)
            level1.append((f"om-w{n}{side}", f"Wing {n}{side.upper()}", centre, diagonal))
    level1 += [("om-j1", "Workshop", (380.0, 250.0), JOG), ("om-j2", "Store", (120.0, 300.0), JOG)]
    level2 = [(f"om-2{n:02d}", f"Loft 2{n:02d}", (1060.0 + 150 * n, 150.0), SAW) for n in range(4)]
    level2 += [
        (f"om-2{n + 10:02d}", f"Loft 2{n + 10:02d}", (1100.0 + 150 * n, 420.0), SAW)
        for n in range(3)
    ]
    level2 += [
        ("om-230", "Loft 230", (1780.0, 800.0), UPPER),
        ("om-231", "Loft 231", (2050.0, 950.0), UPPER),
    ]
    return {FLOORS[0]: level1, FLOORS[1]: level2}


def _points(points: list[XY]) -> str:
    return " ".join(f"{x:g},{y:g}" for x, y in points)


def _level(floor: str, index: int, rooms: list[tuple[str, str, XY, list[XY]]]) -> str:
    units, spurs = [], []
    for unit_id, _, centre, line in rooms:
        corners, door, foot = _room(centre, line, 80.0 if line is not JOG else 60.0)
        units.append(f'<polygon data-unit-id="{unit_id}" points="{_points(corners)}"/>')
        spurs.append(f'<polyline points="{_points([foot, door])}"/>')
    if index == 1:
        paths = [
            f'<polyline points="{_points(HALL)}"/>',
            f'<path d="{CURVE}"/>',
            f'<polyline points="{_points(CHAMFER)}"/>',
            f'<polyline points="{_points(WING)}"/>',
            f'<polyline points="{_points(JOG)}"/>',
        ]
    else:
        paths = [
            f'<polyline points="{_points(SAW)}"/>',
            f'<path d="{ARC}"/>',
            f'<polyline points="{_points(UPPER)}"/>',
        ]
    connectors = "".join(
        f'<rect x="{x - 20:g}" y="{y - 20:g}" width="40" height="40" '
        f'data-connector="{kind}" data-connector-id="om-{kind}"/>'
        for kind, (x, y) in (("stairs", STAIRS), ("elevator", LIFT))
    )
    return (
        f'<g id="om-L{index}" data-level="Level {index}" data-tag-floor="{floor}" '
        f'data-level-index="{index}"><g data-layer="units">{"".join(units)}</g>'
        f'<g data-layer="paths">{"".join(paths + spurs)}</g>{connectors}</g>'
    )


def old_mill() -> tuple[dict[str, Any], dict[str, str]]:
    """The dataset (asset, floors, units, the map, a café that is no unit) and the
    drawing, for `import_data`."""
    rooms = _rooms()
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="2400" height="1600" '
        f'data-feet-per-unit="{FEET_PER_UNIT}">'
        + "".join(_level(floor, n + 1, rooms[floor]) for n, floor in enumerate(FLOORS))
        + "</svg>"
    )
    data = {
        "version": 1,
        "assets": [{"id": ASSET, "market": "office", "name": "Old Mill"}],
        "floors": [
            {"id": floor, "asset_id": ASSET, "name": f"Level {n + 1}", "sort": n + 1}
            for n, floor in enumerate(FLOORS)
        ],
        "units": [
            {"id": unit_id, "asset_id": ASSET, "floor_id": floor, "name": name}
            for floor, found in rooms.items()
            for unit_id, name, _, _ in found
        ],
        "unit_maps": [{"id": MAP, "asset_id": ASSET, "name": "Old Mill"}],
        "locations": [
            {
                "id": "om-cafe",
                "asset_id": ASSET,
                "unit_map_id": MAP,
                "name": "Café",
                "x": 1560.0,
                "y": 700.0,
                "floors": [{"id": FLOORS[0]}],
                "created_at": STAMP,
                "updated_at": STAMP,
            }
        ],
    }
    return data, {MAP: svg}
