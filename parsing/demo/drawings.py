"""Geometry and SVG drawings of the demo property, pure (docs: docs/unit-map-svg.md).

`floor_plan` computes a floor once (rooms, doors, walk paths); the drawing and the
dataset's location coordinates (storage/demo/install.py) both read it, so they agree.
Everything is in canvas units; `FEET_PER_UNIT` converts to feet.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from lxml import etree

SVG_NS = "http://www.w3.org/2000/svg"
FEET_PER_UNIT = 0.25  # 1 unit = 3 inches: a 1200-unit building is 300 ft long
BUILDINGS = (1, 2)
FLOORS = (1, 2, 3, 4)

# Floor plate: a double-loaded corridor along the building, units north and south.
CANVAS_W, CANVAS_H = 1400, 640
X0, X1 = 100, 1300  # building west and east walls
NORTH = (100, 240)  # y range of the north row
CORRIDOR = (240, 272)  # y range of the corridor (8 ft)
SOUTH = (272, 412)  # y range of the south row
CORRIDOR_Y = 256  # corridor centre line, the walk path
NORTH_BAYS = (200, 160, 160, 160, 160, 160, 200)
# South row from the west: three units, elevator, trash room, three units, stairs.
SOUTH_BAYS = (
    ("unit", 160),
    ("unit", 160),
    ("unit", 170),
    ("elevator", 70),
    ("trash", 70),
    ("unit", 170),
    ("unit", 160),
    ("unit", 160),
    ("stairs", 80),
)
# Ground-floor amenities that take north bays: {(building, floor): [(kind, first bay, bays)]}.
NORTH_AMENITIES: dict[tuple[int, int], list[tuple[str, int, int]]] = {
    (1, 1): [("gym", 0, 2), ("mail", 2, 1)],
    (2, 1): [("mail", 0, 1)],
}
STACK_COLUMNS = len(NORTH_BAYS) + sum(1 for kind, _ in SOUTH_BAYS if kind == "unit")

ROOM_NAMES = {
    "gym": "Fitness Center",
    "mail": "Mail Room",
    "trash": "Trash Room",
    "elevator": "Elevator",
    "stairs": "Stairs A",
    "pool": "Pool",
}
FILL = {
    "unit": "#ffffff",
    "gym": "#dbeafe",
    "mail": "#fef3c7",
    "trash": "#e5e7eb",
    "elevator": "#c7d2fe",
    "stairs": "#fde68a",
    "pool": "#7dd3fc",
}

Point = tuple[float, float]


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    width: float
    height: float

    @property
    def centre(self) -> Point:
        return (self.x + self.width / 2, self.y + self.height / 2)

    def corners(self) -> list[Point]:
        right, bottom = self.x + self.width, self.y + self.height
        return [(self.x, self.y), (right, self.y), (right, bottom), (self.x, bottom)]


@dataclass(frozen=True)
class Room:
    """A unit, amenity or core room; `door` is where its walk-path spur ends."""

    id: str  # unit id, or "<floor id>-<kind>"
    kind: str  # "unit", "gym", "mail", "trash", "elevator", "stairs", "pool"
    name: str  # unit number ("204") or display name
    rect: Rect
    door: Point
    row: str  # "north", "south" or "outside"
    column: int = -1  # position in the stacking plan, units only


@dataclass(frozen=True)
class WalkPath:
    points: tuple[Point, ...]
    access: str | None = None  # "no-wheelchair" for steps


@dataclass(frozen=True)
class FloorPlan:
    building: int
    floor: int
    rooms: list[Room]
    paths: list[WalkPath]
    terrace: Rect | None = None

    @property
    def floor_id(self) -> str:
        return floor_id(self.building, self.floor)

    @property
    def units(self) -> list[Room]:
        return [room for room in self.rooms if room.kind == "unit"]

    @property
    def amenities(self) -> list[Room]:
        return [room for room in self.rooms if room.kind in ("gym", "mail", "trash", "pool")]

    def room(self, kind: str) -> Room:
        return next(room for room in self.rooms if room.kind == kind)


def floor_id(building: int, floor: int) -> str:
    return f"b{building}-f{floor}"


def level_name(building: int, floor: int) -> str:
    return f"Building {building}, Floor {floor}"


# ---------------------------------------------------------------- geometry


def floor_plan(building: int, floor: int) -> FloorPlan:
    """Rooms, doors and walk paths of one floor; unit numbers run along the north row
    west to east, then back along the south row east to west."""
    fid = floor_id(building, floor)
    rooms: list[Room] = []
    north_units: list[tuple[Rect, int]] = []
    taken: dict[int, tuple[str, int]] = {
        first: (kind, bays) for kind, first, bays in NORTH_AMENITIES.get((building, floor), [])
    }
    x, bay = float(X0), 0
    while bay < len(NORTH_BAYS):
        kind, bays = taken.get(bay, ("unit", 1))
        width = sum(NORTH_BAYS[bay : bay + bays])
        rect = Rect(x, NORTH[0], width, NORTH[1] - NORTH[0])
        if kind == "unit":
            north_units.append((rect, bay))
        else:
            rooms.append(_room(f"{fid}-{kind}", kind, ROOM_NAMES[kind], rect, "north"))
        x, bay = x + width, bay + bays
    south_units: list[tuple[Rect, int]] = []
    x = float(X0)
    for kind, width in SOUTH_BAYS:
        rect = Rect(x, SOUTH[0], width, SOUTH[1] - SOUTH[0])
        if kind == "unit":
            south_units.append((rect, len(NORTH_BAYS) + len(south_units)))
        else:
            rooms.append(_room(f"{fid}-{kind}", kind, ROOM_NAMES[kind], rect, "south"))
        x += width
    ordered = [(r, c, "north") for r, c in north_units] + [
        (r, c, "south") for r, c in reversed(south_units)
    ]
    for number, (rect, column, row) in enumerate(ordered, start=1):
        name = f"{floor}{number:02d}"
        rooms.append(_room(f"b{building}-{name}", "unit", name, rect, row, column))
    rooms.sort(key=lambda room: (room.rect.y, room.rect.x))
    paths = [WalkPath(((X0 + 4, CORRIDOR_Y), (X1 - 4, CORRIDOR_Y)))]
    paths += [WalkPath(((room.door[0], CORRIDOR_Y), room.door)) for room in rooms]
    terrace = None
    if (building, floor) == (1, 1):
        terrace = _add_pool(fid, rooms, paths)
    return FloorPlan(building, floor, rooms, paths, terrace)


def _room(id_: str, kind: str, name: str, rect: Rect, row: str, column: int = -1) -> Room:
    """A room whose door is the middle of its corridor wall."""
    door_y = rect.y + rect.height if row == "north" else rect.y
    return Room(id_, kind, name, rect, (rect.centre[0], door_y), row, column)


def _add_pool(fid: str, rooms: list[Room], paths: list[WalkPath]) -> Rect:
    """The pool terrace south-west of building 1: out of the corridor's west end,
    down a walkway, then either three steps (no wheelchair) or a longer ramp."""
    terrace = Rect(40, 440, 520, 180)
    pool = Rect(200, 470, 300, 120)
    rooms.append(Room(f"{fid}-pool", "pool", ROOM_NAMES["pool"], pool, (196, 530), "outside"))
    paths += [
        WalkPath(((X0 + 4, CORRIDOR_Y), (60, CORRIDOR_Y), (60, 460))),  # west exit, walkway
        WalkPath(((60, 460), (60, 484)), access="no-wheelchair"),  # three steps down
        WalkPath(((60, 460), (24, 460), (24, 520), (60, 520))),  # ramp around the steps
        WalkPath(((60, 484), (60, 530), (196, 530))),  # deck to the pool's edge
    ]
    return terrace


# ---------------------------------------------------------------- SVG writing


def _num(value: float) -> str:
    """At most 3 decimals, no trailing zeros, so output is stable and short."""
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _text(value: str | float) -> str:
    """A string as it is, a number as `_num` writes it."""
    return value if isinstance(value, str) else _num(value)


def _points(points: Iterable[Point]) -> str:
    return " ".join(f"{_num(x)},{_num(y)}" for x, y in points)


class _Svg:
    """A tiny builder over lxml, so every drawing is well-formed by construction."""

    def __init__(self, width: int, height: int, title: str) -> None:
        self.root = etree.Element(
            f"{{{SVG_NS}}}svg",
            nsmap={None: SVG_NS},
            attrib={
                "width": str(width),
                "height": str(height),
                "viewBox": f"0 0 {width} {height}",
                "data-feet-per-unit": _num(FEET_PER_UNIT),
            },
        )
        self.add(self.root, "title", text=title)

    @staticmethod
    def add(
        parent: etree._Element, tag: str, text: str | float | None = None, **attrs: str | float
    ) -> etree._Element:
        """Add a child; attribute names use `_` for `-` (data_unit_id -> data-unit-id).
        `text` and attributes alike take a string or a number, so that attributes spread
        from a `dict[str, str | float]` type-check."""
        element = etree.SubElement(parent, f"{{{SVG_NS}}}{tag}")
        for name, value in attrs.items():
            element.set(name.rstrip("_").replace("_", "-"), _text(value))
        if text is not None:
            element.text = _text(text)
        return element

    def rect(self, parent: etree._Element, rect: Rect, **attrs: str | float) -> etree._Element:
        return self.add(
            parent, "rect", x=rect.x, y=rect.y, width=rect.width, height=rect.height, **attrs
        )

    def text(self) -> str:
        body: str = etree.tostring(self.root, encoding="unicode", pretty_print=True)
        return '<?xml version="1.0" encoding="UTF-8"?>\n' + body


def floor_plate_svg(plan: FloorPlan, asset_name: str) -> str:
    """One level: walls, units, hit areas, walk paths, core connectors, labels."""
    svg = _Svg(CANVAS_W, CANVAS_H, f"{asset_name}: {level_name(plan.building, plan.floor)}")
    _draw_level(svg, plan)
    return svg.text()


def building_svg(plans: list[FloorPlan], asset_name: str) -> str:
    """Every floor of one building as the levels of one drawing, on one canvas: the
    core's elevator and stairs (one connector id each) join them."""
    svg = _Svg(CANVAS_W, CANVAS_H, f"{asset_name}: Building {plans[0].building}")
    for plan in plans:
        _draw_level(svg, plan)
    return svg.text()


def _draw_level(svg: _Svg, plan: FloorPlan) -> None:
    level = svg.add(
        svg.root,
        "g",
        id=f"level-{plan.floor_id}",
        data_level=level_name(plan.building, plan.floor),
        data_tag_building=f"b{plan.building}",
        data_tag_floor=plan.floor_id,
        data_level_index=str(plan.floor),
    )
    if plan.terrace is not None:
        site = svg.add(level, "g", id="site")
        svg.rect(site, plan.terrace, fill="#ecfccb", stroke="#65a30d", stroke_width=2)
        pool = plan.room("pool")
        svg.rect(site, pool.rect, fill=FILL["pool"], stroke="#0369a1", stroke_width=2, rx=12)
        svg.add(
            site,
            "polyline",
            points=_points([(44, 460), (44, 484), (76, 484)]),
            fill="none",
            stroke="#65a30d",
            stroke_width=1,
            class_="steps",
        )

    walls = svg.add(level, "g", id="walls")
    svg.rect(
        walls,
        Rect(X0, NORTH[0], X1 - X0, SOUTH[1] - NORTH[0]),
        fill="none",
        stroke="#111827",
        stroke_width=6,
    )
    for y in CORRIDOR:
        svg.add(walls, "line", x1=X0, y1=y, x2=X1, y2=y, stroke="#111827", stroke_width=3)
    for room in plan.rooms:
        if room.row == "outside":
            continue
        right, top, bottom = (
            room.rect.x + room.rect.width,
            room.rect.y,
            room.rect.y + room.rect.height,
        )
        if right < X1:
            svg.add(
                walls,
                "line",
                x1=right,
                y1=top,
                x2=right,
                y2=bottom,
                stroke="#111827",
                stroke_width=3,
            )

    rooms = svg.add(level, "g", id="rooms")
    for room in plan.rooms:
        if room.kind in ("gym", "mail", "trash"):
            svg.rect(
                rooms,
                room.rect,
                fill=FILL[room.kind],
                stroke="#6b7280",
                stroke_width=1,
                data_room=room.kind,
            )

    units = svg.add(level, "g", id="units", data_layer="units")
    for room in plan.units:
        svg.rect(
            units,
            room.rect,
            fill=FILL["unit"],
            stroke="#374151",
            stroke_width=1,
            data_unit_id=room.id,
        )

    hit_areas = svg.add(level, "g", id="hit-areas", data_layer="hit-areas")
    for room in plan.units:
        svg.add(
            hit_areas,
            "polygon",
            points=_points(room.rect.corners()),
            fill="#000000",
            opacity="0",
            data_target_id=room.id,
            data_target_type="Unit",
        )

    paths = svg.add(level, "g", id="paths", data_layer="paths")
    for path in plan.paths:
        attrs: dict[str, str | float] = {"fill": "none", "stroke": "#f97316", "stroke_width": 2}
        if path.access is not None:
            attrs["data_access"] = path.access
        if len(path.points) == 2:
            (x1, y1), (x2, y2) = path.points
            svg.add(paths, "line", x1=x1, y1=y1, x2=x2, y2=y2, **attrs)
        else:
            svg.add(paths, "polyline", points=_points(path.points), **attrs)

    core = svg.add(level, "g", id="core")
    elevator, stairs = plan.room("elevator"), plan.room("stairs")
    svg.rect(
        core,
        elevator.rect,
        fill=FILL["elevator"],
        stroke="#4338ca",
        stroke_width=2,
        data_connector="elevator",
        data_connector_id=f"b{plan.building}-elevator",
    )
    svg.rect(
        core,
        stairs.rect,
        fill=FILL["stairs"],
        stroke="#b45309",
        stroke_width=2,
        data_connector="stairs",
        data_connector_id=f"b{plan.building}-stairs-a",
    )

    # Labels are drawn relative to the building's corner: a nested transformed group.
    labels = svg.add(
        level,
        "g",
        id="labels",
        transform=f"translate({X0} {NORTH[0]})",
        font_family="sans-serif",
        text_anchor="middle",
    )
    for room in plan.rooms:
        cx, cy = room.rect.centre
        size = 22 if room.kind == "unit" else (14 if room.rect.width >= 100 else 10)
        svg.add(
            labels,
            "text",
            text=room.name,
            x=cx - X0,
            y=cy - NORTH[0] + size / 3,
            font_size=size,
            fill="#111827",
        )
    svg.add(
        level,
        "text",
        text=level_name(plan.building, plan.floor),
        x=X0,
        y=60,
        font_family="sans-serif",
        font_size=28,
        fill="#111827",
    )


# ---------------------------------------------------------------- stacking plan

STACK_BOX_W, STACK_BOX_H, STACK_GAP = 56, 40, 4
STACK_LEFT, STACK_TOP, STACK_ROW = 60, 80, 60
STACK_BUILDING_GAP = 80


def stack_building_x(building: int) -> float:
    return STACK_LEFT + (building - 1) * (
        STACK_COLUMNS * (STACK_BOX_W + STACK_GAP) + STACK_BUILDING_GAP
    )


def stack_svg(plans: list[FloorPlan], asset_name: str) -> str:
    """A stacking plan: one level per storey with both buildings side by side, each
    unit a box in its stack's column. No walk paths: the map is not for routing."""
    width = int(
        stack_building_x(BUILDINGS[-1]) + STACK_COLUMNS * (STACK_BOX_W + STACK_GAP) + STACK_LEFT
    )
    height = STACK_TOP + len(FLOORS) * STACK_ROW + STACK_TOP // 2
    svg = _Svg(width, height, f"{asset_name}: stacking plan")
    for building in BUILDINGS:
        svg.add(
            svg.root,
            "text",
            text=f"Building {building}",
            x=stack_building_x(building),
            y=STACK_TOP - 24,
            font_family="sans-serif",
            font_size=20,
            fill="#111827",
        )
    for floor in FLOORS:
        top = STACK_TOP + (len(FLOORS) - floor) * STACK_ROW
        level = svg.add(
            svg.root,
            "g",
            id=f"storey-{floor}",
            data_level=f"Floor {floor}",
            data_tag_storey=str(floor),
            data_level_index=str(floor),
            transform=f"translate(0 {top})",
        )
        on_floor = [plan for plan in plans if plan.floor == floor]
        hit_areas = svg.add(level, "g", id=f"storey-{floor}-hit-areas", data_layer="hit-areas")
        units = svg.add(level, "g", id=f"storey-{floor}-units", data_layer="units")
        labels = svg.add(
            level,
            "g",
            id=f"storey-{floor}-labels",
            font_family="sans-serif",
            font_size=14,
            text_anchor="middle",
        )
        for plan in on_floor:
            for room in plan.units:
                box = Rect(
                    stack_building_x(plan.building) + room.column * (STACK_BOX_W + STACK_GAP),
                    0,
                    STACK_BOX_W,
                    STACK_BOX_H,
                )
                svg.rect(
                    units,
                    box,
                    fill=FILL["unit"],
                    stroke="#374151",
                    stroke_width=1,
                    data_unit_id=room.id,
                )
                svg.add(
                    hit_areas,
                    "polygon",
                    points=_points(box.corners()),
                    fill="#000000",
                    opacity="0",
                    data_target_id=room.id,
                    data_target_type="Unit",
                )
                svg.add(
                    labels,
                    "text",
                    text=room.name,
                    x=box.centre[0],
                    y=box.centre[1] + 5,
                    fill="#111827",
                )
    return svg.text()
