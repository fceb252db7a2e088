"""Real-scale buildings of our own for the viewer's browser tests (issue 34), generated
from a seed, so the same seed gives the same bytes (our own data, no licence needed).

- `office()`: Quayside House, an office building of 7 levels, 60 m x 25 m each, drawn in
  floorgate's unit-map SVG conventions at 0.1 m per canvas unit: offices along both
  facades, a ring of corridors, an interior of meeting rooms, closets and L-shaped rooms
  around a core (stairs, two lifts, toilets, risers). Its floors have E3 names ("Ground
  floor", "1st floor"...) that are neither the SVG's level names ("L00"...) nor its
  `floor` tags (floor ids). About one room in seven has no name.
- `install_exchange()`: the IMDF venue of tests/venues/imdf_venues.py `exchange()`, imported
  as `floorgate import-imdf` imports it, with an attribute group to colour it by.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from parsing.imdf.venue import ImdfOptions
from storage.database import Store
from storage.imdf.dataset import dataset_from_path, import_venue
from storage.imports.importer import import_data
from storage.settings import Settings
from tests.venues.imdf_venues import Exchange, exchange, room_widths, zip_bytes

ASSET = "quayside-house"
MAP = "quayside-house-map"
METRES = 10  # canvas units per metre
FEET_PER_UNIT = 0.328084  # 0.1 m
MARGIN = 20  # canvas units around the floor
LENGTH, DEPTH = 60.0, 25.0  # metres
FLOOR_NAMES = ("Ground floor", "1st floor", "2nd floor", "3rd floor", "4th floor")
FLOOR_NAMES += ("5th floor", "6th floor")
FILL = {
    "office": "#f3efe6",
    "meeting": "#dce8f5",
    "open": "#e6f2df",
    "wc": "#d8f0f2",
    "stairs": "#f4e2bd",
    "lift": "#e4dcf3",
    "closet": "#e2e2e2",
    "corridor": "#fafaf7",
    "reception": "#fbe9cf",
    "kitchen": "#f6dcdc",
}
GROUP = "ex-status"  # the attribute group the IMDF venue is coloured by
GROUP_ATTRIBUTES = (("let", "Let"), ("vacant", "Vacant"), ("works", "Under works"))
XY = tuple[float, float]


def floor_id(level: int) -> str:
    return f"quayside-floor-{'gf' if level == 0 else f'{level:02d}'}"


@dataclass
class Room:
    """A unit of the office in metres: its outline, where its door is and which way the
    corridor lies (the door's spur runs from the corridor's middle line to inside)."""

    id: str
    kind: str
    name: str | None  # None: drawn only (corridors, core, closets); "" unnamed
    outline: list[XY]
    door: XY | None = None
    corridor_y: float | None = None  # the middle line the door's spur starts on


@dataclass
class Level:
    index: int
    rooms: list[Room] = field(default_factory=list)


# North facade y 0-4.5, north corridor 4.5-6.3, interior 6.3-18.7 (door north up to
# 12.5, south below), south corridor 18.7-20.5, south facade 20.5-25; links at both ends.
NORTH, SOUTH = (4.5, 6.3), (18.7, 20.5)
CORE = (26.0, 34.0)


def _box(x0: float, y0: float, x1: float, y1: float) -> list[XY]:
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


class _Plan:
    """The rooms of one level as they are laid out, numbered as the building numbers
    them: `<level>.<nn>` ("G.07", "3.14")."""

    def __init__(self, index: int, rng: random.Random) -> None:
        self.level = Level(index)
        self.rng = rng
        self.number = 0
        self.prefix = "G" if index == 0 else str(index)

    def add(
        self,
        kind: str,
        outline: list[XY],
        door: XY | None,
        corridor_y: float | None,
        named: bool = True,
    ) -> Room:
        uid = f"qh-{self.level.index}-{len(self.level.rooms):03d}"
        name: str | None = None
        if named:
            self.number += 1
            roll = self.rng.random()
            name = "" if roll < 0.14 else f"{self.prefix}.{self.number:02d}"
            if kind == "meeting" and roll > 0.7:
                name = "Meeting room"  # several on a floor
        room = Room(uid, kind, name, outline, door, corridor_y)
        self.level.rooms.append(room)
        return room

    def facade(self, y0: float, y1: float, door_y: float, corridor_y: float) -> None:
        """Offices 3 m wide and meeting rooms; on even upper floors an open-plan area of
        22 m on the north side, on the ground floor a reception of 12 m on the south."""
        special: tuple[float, float, str] | None = None  # from x, width, kind
        if self.level.index in (2, 4, 6) and door_y == NORTH[0]:
            special = (34.0, 22.0, "open")
        if self.level.index == 0 and door_y == SOUTH[1]:
            special = (24.0, 12.0, "reception")
        x = 0.0
        while x < LENGTH - 1e-9:
            if special and x >= special[0]:
                _, width, kind = special
                special = None
            else:
                width = self.rng.choice((3.0, 3.0, 3.0, 3.0, 4.5, 6.0))
                kind = "meeting" if width >= 6.0 else "office"
            width = min(width, LENGTH - x)
            if LENGTH - x - width < 2.0:
                width = LENGTH - x
            door = (x + min(width / 2, 4.0), door_y)
            self.add(kind, _box(x, y0, x + width, y1), door, corridor_y)
            x += width

    def interior(self, x0: float, x1: float) -> None:
        """Two rows between the corridors: meeting rooms, kitchens, closets; one
        L-shaped room (its foot under a closet) per stretch."""
        mid = 12.5
        top, bottom = NORTH[1], SOUTH[0]
        north_y, south_y = sum(NORTH) / 2, sum(SOUTH) / 2
        widths = room_widths(self.rng, x1 - x0, (1.5, 4.0, 5.0, 6.0, 8.0), merge_under=1.5)
        x = x0
        for n, width in enumerate(widths):
            if n == 1 and width >= 4.0:  # an L: the north room's foot runs south
                foot = width / 2
                outline = [(x, top), (x + width, top), (x + width, mid), (x + foot, mid)]
                outline += [(x + foot, bottom), (x, bottom)]
                self.add("meeting", outline, (x + width / 2, top), north_y)
                closet = _box(x + foot, mid, x + width, bottom)
                self.add("closet", closet, (x + foot + (width - foot) / 2, bottom), south_y, False)
                x += width
                continue
            kind = "closet" if width < 2.0 else self.rng.choice(("meeting", "meeting", "kitchen"))
            named = kind != "closet"
            self.add(kind, _box(x, top, x + width, mid), (x + width / 2, top), north_y, named)
            self.add(kind, _box(x, mid, x + width, bottom), (x + width / 2, bottom), south_y, named)
            x += width

    def core(self) -> None:
        a, b = CORE
        top, bottom = NORTH[1], SOUTH[0]
        north_y, south_y = sum(NORTH) / 2, sum(SOUTH) / 2
        self.add("stairs", _box(a, top, a + 3, 11), (a + 1.5, top), north_y, False)
        self.add("lift", _box(a + 3, top, a + 5.5, 9), (a + 4.25, top), north_y, False)
        self.add("lift", _box(a + 5.5, top, b, 9), (a + 6.75, top), north_y, False)
        self.add("closet", _box(a + 3, 9, a + 4.2, 11), None, None, False)  # a riser
        self.add("closet", _box(a + 4.2, 9, b, 11), None, None, False)
        for x, label in ((a, "WC"), (a + 4, "WC")):
            room = self.add("wc", _box(x, 11, x + 4, bottom), (x + 2, bottom), south_y)
            room.name = label  # two of the same name, as buildings have

    def corridors(self) -> None:
        self.add("corridor", _box(0, NORTH[0], LENGTH, NORTH[1]), None, None, False)
        self.add("corridor", _box(0, SOUTH[0], LENGTH, SOUTH[1]), None, None, False)
        self.add("corridor", _box(0, NORTH[1], 1.8, SOUTH[0]), None, None, False)
        self.add("corridor", _box(LENGTH - 1.8, NORTH[1], LENGTH, SOUTH[0]), None, None, False)


def office_levels(seed: int = 34) -> list[Level]:
    """The seven levels of Quayside House, ground floor first."""
    rng = random.Random(seed)
    levels = []
    for index in range(7):
        plan = _Plan(index, rng)
        plan.corridors()
        plan.facade(0.0, NORTH[0], NORTH[0], sum(NORTH) / 2)
        plan.facade(SOUTH[1], DEPTH, SOUTH[1], sum(SOUTH) / 2)
        plan.interior(1.8, CORE[0])
        plan.core()
        plan.interior(CORE[1], LENGTH - 1.8)
        levels.append(plan.level)
    return levels


def _c(value: float) -> str:
    """A metre value as a canvas coordinate."""
    return f"{MARGIN + value * METRES:g}"


def _points(points: list[XY]) -> str:
    return " ".join(f"{_c(x)},{_c(y)}" for x, y in points)


def _level_svg(level: Level) -> str:
    units, spaces, paths = [], [], []
    for room in level.rooms:
        shape = f'points="{_points(room.outline)}" fill="{FILL[room.kind]}"'
        if room.name is None:  # no unit: corridors, the core, closets
            spaces.append(f'<polygon {shape} stroke="#8c8a84" stroke-width="1"/>')
        else:
            units.append(
                f'<polygon data-unit-id="{room.id}" {shape} stroke="#8c8a84" stroke-width="1"/>'
            )
        if room.door is not None and room.corridor_y is not None:
            x, y = room.door
            inside = y - 1.2 if room.corridor_y > y else y + 1.2
            paths.append(f'<polyline points="{_points([(x, room.corridor_y), (x, inside)])}"/>')
    north, south, west, east = sum(NORTH) / 2, sum(SOUTH) / 2, 0.9, LENGTH - 0.9
    ring = [(west, north), (east, north), (east, south), (west, south), (west, north)]
    paths.append(f'<polyline points="{_points(ring)}"/>')
    a, b = CORE
    walls = [
        f'<polygon points="{_points(_box(0, 0, LENGTH, DEPTH))}" fill="none" stroke-width="3"/>',
        f'<polygon points="{_points(_box(a, NORTH[1], b, SOUTH[0]))}" fill="none"/>',
    ]
    connectors = (
        f'<rect x="{_c(a + 0.5)}" y="{_c(7)}" width="20" height="30" data-connector="stairs" '
        'data-connector-id="qh-stairs" fill="none"/>'
        f'<rect x="{_c(a + 3.5)}" y="{_c(7)}" width="15" height="15" data-connector="elevator" '
        'data-connector-id="qh-lift-a" fill="none"/>'
        f'<rect x="{_c(a + 6)}" y="{_c(7)}" width="15" height="15" data-connector="elevator" '
        'data-connector-id="qh-lift-b" fill="none"/>'
    )
    return (
        f'<g id="qh-L{level.index:02d}" data-level="L{level.index:02d}" '
        f'data-tag-floor="{floor_id(level.index)}" data-level-index="{level.index}">'
        f'<g id="qh-spaces-{level.index}">{"".join(spaces)}</g>'
        f'<g data-layer="units">{"".join(units)}</g>'
        f'<g data-layer="walls" stroke="#3b3a36" stroke-width="2">{"".join(walls)}</g>'
        f'<g data-layer="paths" stroke="#f97316" fill="none">{"".join(paths)}</g>'
        f'<g id="qh-connectors-{level.index}">{connectors}</g></g>'
    )


def office_svg(levels: list[Level]) -> str:
    width = round(LENGTH * METRES + 2 * MARGIN)
    height = round(DEPTH * METRES + 2 * MARGIN)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'data-feet-per-unit="{FEET_PER_UNIT}">'
        + "".join(_level_svg(level) for level in levels)
        + "</svg>"
    )


def office(seed: int = 34) -> tuple[dict[str, Any], dict[str, str], list[Level]]:
    """The dataset (the asset, its 7 floors, the named rooms as units, the map) and the
    drawing, for `import_data`; the levels as laid out."""
    levels = office_levels(seed)
    data = {
        "version": 1,
        "assets": [{"id": ASSET, "market": "office", "name": "Quayside House"}],
        "floors": [
            {"id": floor_id(n), "asset_id": ASSET, "name": name, "sort": n + 1}
            for n, name in enumerate(FLOOR_NAMES)
        ],
        "units": [
            {"id": room.id, "asset_id": ASSET, "floor_id": floor_id(level.index), "name": room.name}
            for level in levels
            for room in level.rooms
            if room.name is not None
        ],
        "unit_maps": [{"id": MAP, "asset_id": ASSET, "name": "Quayside House"}],
    }
    return data, {MAP: office_svg(levels)}, levels


async def install_office(store: Store, folder: Path) -> list[Level]:
    data, svgs, levels = office()
    await import_data(store, data, folder, svg_sources=svgs)
    return levels


async def install_exchange(store: Store, settings: Settings, folder: Path) -> Exchange:
    """The venue as `floorgate import-imdf venue.zip` imports it (asset and stack map
    ids: the venue's), and the attribute group GROUP (through `floorgate import`)."""
    venue = exchange()
    archive = folder / "exchange.zip"
    archive.write_bytes(zip_bytes(venue.venue.files()))
    await import_venue(store, dataset_from_path(archive, ImdfOptions()), limits=settings.svg_limits)
    group = {
        "id": GROUP,
        "group_name": "Letting status",
        "one_attribute_per_unit": True,
        "attributes": [
            {"attribute_id": f"{GROUP}-{key}", "attribute_name": name, "attribute_key": key}
            for key, name in GROUP_ATTRIBUTES
        ],
    }
    await import_data(store, {"version": 1, "attribute_groups": [group]}, folder)
    return venue
