"""A dense college floor for the viewer's label and icon tests (issue 48, points 3, 4, 6):
about 150 small rooms along three corridors, generated from a seed (the same seed gives
the same bytes; our own data, no licence needed).

One level of 110 m x 42 m, drawn at 0.1 m per canvas unit in the unit-map conventions:
six rows of rooms 3-6 m wide (seminar rooms, labs, offices, a few "Room N" numbers, about
one in ten unnamed) between a north, a middle and a south corridor joined at both ends;
a core in the middle (stairs, two lifts, an escalator, drawn with `data-connector`),
restrooms as units whose shape class names their IMDF category (`imdf-restroom.female`,
as docs/geojson.md reads it), and two locations of their own: an information desk
(`amenity=information`) and the main entrance (`entrance=main`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from storage.database import Store
from storage.imports.importer import import_data

ASSET = "dense-college"
MAP = "dense-college-map"
FLOOR = "dense-college-floor-2"
LEVEL = "dc-L02"
METRES = 10  # canvas units per metre
MARGIN = 20  # canvas units around the floor
LENGTH, DEPTH = 110.0, 42.0  # metres
# Rows of rooms (y from, y to) and the corridors between them; cross corridors at both ends.
ROWS = ((0.0, 6.0), (8.0, 14.0), (14.0, 20.0), (22.0, 28.0), (28.0, 34.0), (36.0, 42.0))
CORRIDORS = ((6.0, 8.0), (20.0, 22.0), (34.0, 36.0))
END = 2.0  # width of the cross corridors
CORE = (50.0, 62.0)  # x of the core, in the second and third rows
WIDTHS = (3.0, 3.0, 3.5, 4.0, 4.0, 4.5, 5.0, 6.0)
KINDS = ("Seminar Room", "Lab", "Office", "Tutorial Room", "Computer Lab", "Study Room")
UNNAMED_SHARE = 0.1
NUMBERED_SHARE = 0.08  # "Room 12": a name a machine could have given
XY = tuple[float, float]


@dataclass(frozen=True)
class Space:
    """A room (a unit when `name` is not None: "" for an unnamed one) or a drawn space."""

    id: str
    outline: list[XY]
    name: str | None
    category: str = "room"  # the IMDF category its shape's class names
    connector: str | None = None  # stairs, elevator, escalator: drawn with data-connector


@dataclass(frozen=True)
class DenseFloor:
    spaces: list[Space]
    locations: list[dict[str, Any]]

    @property
    def units(self) -> list[Space]:
        return [space for space in self.spaces if space.name is not None]

    @property
    def named(self) -> list[Space]:
        return [space for space in self.units if space.name]

    def icons(self) -> dict[str, int]:
        """How many places of each kind the data holds (the icons the viewer owes)."""
        found: dict[str, int] = {}
        for space in self.spaces:
            kind = space.connector or (
                "restroom" if space.category.startswith("restroom") else None
            )
            if kind:
                found[kind] = found.get(kind, 0) + 1
        for location in self.locations:
            tags = {tag["key"]: tag["value"] for tag in location["tags"]}
            kind = "information" if tags.get("amenity") == "information" else "entrance"
            found[kind] = found.get(kind, 0) + 1
        return found


def _box(x0: float, y0: float, x1: float, y1: float) -> list[XY]:
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


def _core(spaces: list[Space]) -> None:
    a, b = CORE
    (n0, n1), (s0, s1) = ROWS[1], ROWS[2]
    spaces.append(Space("dc-stairs", _box(a, n0, a + 4, n1), None, "stairs", "stairs"))
    spaces.append(Space("dc-lift-a", _box(a + 4, n0, a + 6.5, n1), None, "elevator", "elevator"))
    spaces.append(Space("dc-lift-b", _box(a + 6.5, n0, a + 9, n1), None, "elevator", "elevator"))
    spaces.append(Space("dc-escalator", _box(a + 9, n0, b, n1), None, "escalator", "escalator"))
    spaces.append(Space("dc-wc-f", _box(a, s0, a + 4, s1), "Women's toilets", "restroom.female"))
    spaces.append(Space("dc-wc-m", _box(a + 4, s0, a + 8, s1), "Men's toilets", "restroom.male"))
    spaces.append(Space("dc-wc-a", _box(a + 8, s0, b, s1), "Accessible WC", "restroom.unisex"))


def dense_floor(seed: int = 48) -> DenseFloor:
    """The floor's rooms and spaces, laid out row by row from `seed`."""
    rng = random.Random(seed)
    spaces: list[Space] = []
    _core(spaces)
    number = 0
    for row, (y0, y1) in enumerate(ROWS):
        x = END
        while x < LENGTH - END - 1e-9:
            if row in (1, 2) and CORE[0] <= x < CORE[1]:
                x = CORE[1]
                continue
            limit = CORE[0] if row in (1, 2) and x < CORE[0] else LENGTH - END
            width = min(rng.choice(WIDTHS), limit - x)
            if limit - x - width < 3.0:
                width = limit - x
            number += 1
            roll = rng.random()
            code = f"2.{number:03d}"
            if roll < UNNAMED_SHARE:
                name = ""
            elif roll < UNNAMED_SHARE + NUMBERED_SHARE:
                name = f"Room {number}"
            else:
                name = f"{rng.choice(KINDS)} {code}"
            spaces.append(Space(f"dc-{number:03d}", _box(x, y0, x + width, y1), name))
            x += width
    rest = [
        Space(f"dc-corridor-{n}", _box(0, y0, LENGTH, y1), None, "walkway")
        for n, (y0, y1) in enumerate(CORRIDORS)
    ]
    rest += [
        Space("dc-corridor-west", _box(0, 0, END, DEPTH), None, "walkway"),
        Space("dc-corridor-east", _box(LENGTH - END, 0, LENGTH, DEPTH), None, "walkway"),
    ]
    info = _location("dc-info", "Information desk", (30.0, 21.0), "amenity", "information")
    entrance = _location("dc-entrance", "Main entrance", (1.0, 21.0), "entrance", "main")
    return DenseFloor(rest + spaces, [info, entrance])


def _c(value: float) -> str:
    return f"{MARGIN + value * METRES:g}"


def _points(points: list[XY]) -> str:
    return " ".join(f"{_c(x)},{_c(y)}" for x, y in points)


def _location(id_: str, name: str, at: XY, key: str, value: str) -> dict[str, Any]:
    return {
        "id": id_,
        "asset_id": ASSET,
        "unit_map_id": MAP,
        "name": name,
        "x": float(_c(at[0])),
        "y": float(_c(at[1])),
        "floors": [{"id": FLOOR}],
        "tags": [{"key": "svc:amenity", "value": "yes"}, {"key": key, "value": value}],
    }


FILL = {"room": "#f3efe6", "walkway": "#fafaf7", "stairs": "#f4e2bd", "elevator": "#e4dcf3"}
FILL |= {"escalator": "#e4dcf3", "restroom": "#d8f0f2"}


def walk_lines(floor: DenseFloor) -> list[list[XY]]:
    """The corridors' middle lines (joined at both ends) and a spur from the nearest
    one into each room and space of the rows, 1.2 m past its door."""
    middles = [(y0 + y1) / 2 for y0, y1 in CORRIDORS]
    west, east = END / 2, LENGTH - END / 2
    lines = [[(west, y), (east, y)] for y in middles]
    lines += [[(west, middles[0]), (west, middles[-1])], [(east, middles[0]), (east, middles[-1])]]
    for space in floor.spaces:
        if space.category == "walkway":
            continue
        xs = [x for x, _ in space.outline]
        ys = [y for _, y in space.outline]
        top, bottom = min(ys), max(ys)
        middle = min(middles, key=lambda y: min(abs(y - top), abs(y - bottom)))
        door_y = top if abs(middle - top) < abs(middle - bottom) else bottom
        inside = door_y + 1.2 if door_y == top else door_y - 1.2
        x = (min(xs) + max(xs)) / 2
        lines.append([(x, middle), (x, inside)])
    return lines


def dense_svg(floor: DenseFloor) -> str:
    """The drawing: spaces, units (class `imdf-<category>`), walls and connectors."""
    spaces, units, connectors = [], [], []
    for space in floor.spaces:
        fill = FILL[space.category.partition(".")[0]]
        shape = f'points="{_points(space.outline)}" fill="{fill}" stroke="#8c8a84"'
        if space.name is None:
            spaces.append(f'<polygon {shape} class="imdf-{space.category}"/>')
        else:
            units.append(
                f'<polygon data-unit-id="{space.id}" class="imdf-{space.category}" {shape}/>'
            )
        if space.connector:
            xs = [x for x, _ in space.outline]
            ys = [y for _, y in space.outline]
            box = (min(xs) + 0.5, min(ys) + 0.5, max(xs) - 0.5, max(ys) - 0.5)
            connectors.append(
                f'<rect x="{_c(box[0])}" y="{_c(box[1])}" '
                f'width="{(box[2] - box[0]) * METRES:g}" height="{(box[3] - box[1]) * METRES:g}" '
                f'fill="none" data-connector="{space.connector}" '
                f'data-connector-id="{space.id}"/>'
            )
    outline = f'<polygon points="{_points(_box(0, 0, LENGTH, DEPTH))}" fill="none"/>'
    paths = "".join(f'<polyline points="{_points(line)}"/>' for line in walk_lines(floor))
    width = round(LENGTH * METRES + 2 * MARGIN)
    height = round(DEPTH * METRES + 2 * MARGIN)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}">'
        f'<g id="{LEVEL}" data-level="L02" data-tag-floor="{FLOOR}" data-level-index="0">'
        f'<g id="dc-spaces">{"".join(spaces)}</g>'
        f'<g data-layer="units">{"".join(units)}</g>'
        f'<g data-layer="walls" stroke="#3b3a36" stroke-width="3">{outline}</g>'
        f'<g data-layer="paths" stroke="#f97316" fill="none">{paths}</g>'
        f'<g id="dc-connectors">{"".join(connectors)}</g></g></svg>'
    )


def dense_dataset(floor: DenseFloor) -> tuple[dict[str, Any], dict[str, str]]:
    """The dataset (asset, floor, units, map, locations) and the drawing, for import_data."""
    data = {
        "version": 1,
        "assets": [{"id": ASSET, "market": "office", "name": "Dense College"}],
        "floors": [{"id": FLOOR, "asset_id": ASSET, "name": "Floor 2", "sort": 1}],
        "units": [
            {"id": unit.id, "asset_id": ASSET, "floor_id": FLOOR, "name": unit.name}
            for unit in floor.units
        ],
        "unit_maps": [{"id": MAP, "asset_id": ASSET, "name": "Dense College, floor 2"}],
        "locations": floor.locations,
    }
    return data, {MAP: dense_svg(floor)}


async def install_dense_floor(store: Store, folder: Path, seed: int = 48) -> DenseFloor:
    floor = dense_floor(seed)
    data, svgs = dense_dataset(floor)
    await import_data(store, data, folder, svg_sources=svgs)
    return floor
