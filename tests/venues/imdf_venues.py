"""IMDF venues of our own, built from the standard's rules (OGC 20-094, IMDF 1.0.0).

Layouts are drawn in metres (x east, y north) and written in WGS84 through a
transverse Mercator at the origin (pyproj), so the metres designed here are the metres
floorgate measures. `files()` writes an archive as the standard says; `wild=True`
writes the same venue the way real archives depart from it.
"""

from __future__ import annotations

import io
import random
import uuid
import zipfile
from dataclasses import dataclass, field
from typing import Any

import orjson
from pyproj import Transformer

ORIGIN = (2.2945, 48.8584)  # lon, lat
Rect = tuple[float, float, float, float]  # x0, y0, x1, y1 in metres
Label = dict[str, str]  # a name by language, as IMDF writes one


def zip_bytes(files: dict[str, bytes]) -> bytes:
    """A zip of the given files, as an archive is handed in."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def rect(x0: float, y0: float, x1: float, y1: float) -> list[tuple[float, float]]:
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


def stable_id(name: str) -> str:
    """A UUID, as IMDF ids are, the same for the same name."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"floorgate-test:{name}"))


def level_properties(ordinal: int, name: Label, short: Label) -> dict[str, Any]:
    """An indoor level's properties, named in the languages `name` and `short` give."""
    return {
        "category": "unspecified",
        "restriction": None,
        "outdoor": False,
        "ordinal": ordinal,
        "name": name,
        "short_name": short,
        "display_point": None,
        "address_id": None,
        "building_ids": None,
    }


def label(name: str | Label) -> Label:
    """A name as IMDF writes it: text alone is English."""
    return {"en": name} if isinstance(name, str) else name


@dataclass
class Venue:
    """A venue being written; `id_prefix` starts the name of each feature's stable id,
    so that two venues of the same keys have ids of their own."""

    name: str
    origin: tuple[float, float] = ORIGIN
    features: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    id_prefix: str = ""

    def __post_init__(self) -> None:
        lon, lat = self.origin
        crs = f"+proj=tmerc +lat_0={lat} +lon_0={lon} +k=1 +ellps=WGS84 +units=m"
        self._to_wgs84 = Transformer.from_crs(crs, "EPSG:4326", always_xy=True)

    def lon_lat(self, x: float, y: float) -> list[float]:
        lon, lat = self._to_wgs84.transform(x, y)
        return [round(lon, 10), round(lat, 10)]

    def ring(self, points: list[tuple[float, float]]) -> list[list[float]]:
        coords = [self.lon_lat(x, y) for x, y in points]
        return [*coords, coords[0]]

    def add(
        self, kind: str, id_: str, geometry: dict[str, Any] | None, properties: dict[str, Any]
    ) -> str:
        self.features.setdefault(kind, []).append(
            {
                "id": id_,
                "type": "Feature",
                "feature_type": kind,
                "geometry": geometry,
                "properties": properties,
            }
        )
        return id_

    def feature_id(self, kind: str, key: str) -> str:
        return stable_id(f"{self.id_prefix}{kind}:{key}")

    def point(self, x: float, y: float) -> dict[str, Any]:
        return {"type": "Point", "coordinates": self.lon_lat(x, y)}

    def polygon(self, points: list[tuple[float, float]]) -> dict[str, Any]:
        return {"type": "Polygon", "coordinates": [self.ring(points)]}

    def venue(self, name: str, outline: list[tuple[float, float]]) -> str:
        return self.add(
            "venue",
            self.feature_id("venue", name),
            self.polygon(outline),
            {
                "category": "businesscampus",
                "name": {"en": name},
                "restriction": None,
                "display_point": self.point(*outline[0]),
                "address_id": None,
            },
        )

    def level(
        self, key: str, ordinal: int, name: str, short: str, outline: list[tuple[float, float]]
    ) -> str:
        return self.add(
            "level",
            self.feature_id("level", key),
            self.polygon(outline),
            {
                "category": "unspecified",
                "restriction": None,
                "outdoor": False,
                "ordinal": ordinal,
                "name": {"en": name, "fr": f"Niveau {ordinal}"},
                "short_name": {"en": short},
                "display_point": None,
                "address_id": None,
                "building_ids": None,
            },
        )

    def unit(
        self,
        key: str,
        level: str,
        category: str,
        points: list[tuple[float, float]],
        name: str | Label | None = None,
        display: tuple[float, float] | None = None,
        **extra: Any,
    ) -> str:
        return self.add(
            "unit",
            self.feature_id("unit", key),
            self.polygon(points),
            {
                "category": category,
                "restriction": None,
                "accessibility": None,
                "name": label(name) if name else None,
                "alt_name": None,
                "level_id": level,
                "display_point": self.point(*display) if display else None,
                **extra,
            },
        )

    def opening(
        self, key: str, level: str, a: tuple[float, float], b: tuple[float, float], **extra: Any
    ) -> str:
        geometry = {"type": "LineString", "coordinates": [self.lon_lat(*a), self.lon_lat(*b)]}
        return self.add(
            "opening",
            self.feature_id("opening", key),
            geometry,
            {
                "category": "pedestrian",
                "accessibility": None,
                "access_control": None,
                "door": {"type": "hinged", "automatic": False, "material": "wood"},
                "name": None,
                "alt_name": None,
                "display_point": None,
                "level_id": level,
                **extra,
            },
        )

    def amenity(
        self,
        key: str,
        category: str,
        at: tuple[float, float],
        unit_ids: list[str],
        name: str | Label | None,
    ) -> str:
        return self.add(
            "amenity",
            self.feature_id("amenity", key),
            self.point(*at),
            {
                "category": category,
                "accessibility": None,
                "name": None if name is None else label(name),
                "alt_name": None,
                "hours": None,
                "phone": None,
                "website": None,
                "unit_ids": unit_ids,
                "address_id": None,
                "correlation_id": None,
            },
        )

    def occupant(
        self, key: str, category: str, name: str | Label, at: tuple[float, float], unit_id: str
    ) -> str:
        anchor = self.add(
            "anchor",
            self.feature_id("anchor", key),
            self.point(*at),
            {"address_id": None, "unit_id": unit_id},
        )
        return self.add(
            "occupant",
            self.feature_id("occupant", key),
            None,
            {
                "name": label(name),
                "category": category,
                "anchor_id": anchor,
                "hours": None,
                "phone": None,
                "website": None,
                "validity": None,
                "correlation_id": None,
            },
        )

    def relationship(self, key: str, category: str, unit_ids: list[str]) -> str:
        ends = [{"id": u, "feature_type": "unit"} for u in unit_ids]
        properties = {
            "category": category,
            "direction": "undirected",
            "origin": ends[0],
            "intermediary": ends[1:-1] or None,
            "destination": ends[-1],
            "hours": None,
        }
        return self.add("relationship", self.feature_id("relationship", key), None, properties)

    def files(self, wild: bool = False) -> dict[str, bytes]:
        """The archive's files. `wild`: in a sub-folder, plural capitalised names, arrays
        for collections, 3-D coordinates, camelCase properties, plain-string labels."""
        manifest = {
            "version": "1.0.0",
            "created": "2026-11-01T00:00:00Z",
            "language": "en",
            "generated_by": "floorgate tests",
        }
        out = {"manifest.json": orjson.dumps(manifest)}
        for kind, features in self.features.items():
            if not wild:
                document: Any = {"type": "FeatureCollection", "features": features}
                out[f"{kind}.geojson"] = orjson.dumps(document)
                continue
            out[f"IMDF/{kind.capitalize()}s.json"] = orjson.dumps([_wild(f) for f in features])
        return out


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


def _three_d(value: Any) -> Any:
    if isinstance(value, list) and value and all(isinstance(v, float | int) for v in value):
        return [*value, 12.5]
    if isinstance(value, list):
        return [_three_d(item) for item in value]
    return value


def _wild(feature: dict[str, Any]) -> dict[str, Any]:
    properties = {}
    for key, value in feature["properties"].items():
        if key == "name" and isinstance(value, dict):
            value = value.get("en")  # a plain string
        properties[_camel(key)] = value
    geometry = feature["geometry"]
    if geometry is not None:
        geometry = {**geometry, "coordinates": _three_d(geometry["coordinates"])}
    return {"id": feature["id"], "type": "Feature", "geometry": geometry, "properties": properties}


@dataclass(frozen=True)
class TwoLevels:
    """Two levels, each: an L-shaped corridor, room A at its west end, room B beyond
    its corner, room C behind a locked door, stairs and an elevator off the corridor.
    The elevator has a relationship; the stairs do not (they are found by overlap)."""

    venue: Venue
    units: dict[str, str]  # "A0" (room A, level 0) -> unit id
    levels: dict[int, str]
    amenity: str
    occupant: str


CORRIDOR = [(0, 0), (30, 0), (30, 20), (27, 20), (27, 3), (0, 3)]
ROOMS = {
    "A": (0, 3, 6, 9),
    "B": (30, 14, 36, 20),
    "C": (6, 3, 12, 9),
    "S": (12, -4, 16, 0),
    "E": (16, -4, 19, 0),
}
DOORS = {
    "A": ((2, 3), (3, 3)),
    "B": ((30, 16), (30, 17)),
    "C": ((8, 3), (9, 3)),
    "S": ((13, 0), (14, 0)),
    "E": ((17, 0), (18, 0)),
}
DISPLAY = {"A": (3, 6), "B": (33, 17), "C": (9, 6), "S": (14, -2), "E": (17.5, -2)}
CATEGORY = {"A": "room", "B": "room", "C": "room", "S": "stairs", "E": "elevator"}
OUTLINE = [(-1, -5), (37, -5), (37, 21), (-1, 21)]


def two_levels(door_gap: float = 0.0) -> TwoLevels:
    """`door_gap` puts a wall that thick between room A and the corridor (room A starts
    that far north of it) and room A's door in the middle of the wall, off both unit
    boundaries, as in real archives."""
    venue = Venue("Test Hall")
    venue.venue("Test Hall", OUTLINE)
    levels = {n: venue.level(f"L{n}", n, f"Level {n}", f"L{n}", OUTLINE) for n in (0, 1)}
    units: dict[str, str] = {}
    for n, level in levels.items():
        venue.unit(f"corridor{n}", level, "walkway", CORRIDOR, name=f"Corridor {n}")
        for key, (x0, y0, x1, y1) in ROOMS.items():
            y0 += door_gap if key == "A" else 0
            units[f"{key}{n}"] = venue.unit(
                f"{key}{n}",
                level,
                CATEGORY[key],
                rect(x0, y0, x1, y1),
                name=f"Room {key}{n}",
                display=DISPLAY[key],
            )
        for key, (a, b) in DOORS.items():
            extra: dict[str, Any] = {}
            if key == "C":
                extra["access_control"] = ["keyaccess"]
            if key == "A" and door_gap:
                a, b = (a[0], a[1] + door_gap / 2), (b[0], b[1] + door_gap / 2)
            venue.opening(f"{key}{n}", level, a, b, **extra)
    venue.relationship("elevator", "elevator", [units["E0"], units["E1"]])
    amenity = venue.amenity("restroom", "restroom", (33, 18), [units["B0"]], "Restroom")
    occupant = venue.occupant("cafe", "restaurant", "Café", (3, 7), units["A1"])
    return TwoLevels(venue, units, levels, amenity, occupant)


def office_tower(levels: int = 10, rows: int = 10, rooms_per_side: int = 25) -> Venue:
    """A large venue for the benchmark: per level, `rows` corridors of 2 x
    `rooms_per_side` rooms (4 m x 6 m, a door each), every corridor opening onto a spine
    corridor along the west side, an elevator (with a relationship) and stairs (found by
    overlap) at the spine's south end. 10 x 10 x 2 x 25 = 5,000 rooms."""
    venue = Venue("Office Tower")
    pitch, width = 15.0, 4.0 * rooms_per_side
    outline = [(-8.0, -12.0), (width + 1, -12.0), (width + 1, rows * pitch), (-8.0, rows * pitch)]
    venue.venue("Office Tower", outline)
    elevator, stairs = [], []
    for n in range(levels):
        level = venue.level(f"T{n}", n, f"Floor {n + 1}", f"{n + 1}", outline)
        venue.unit(
            f"spine{n}", level, "walkway", rect(-3, -6, 0, rows * pitch - 3), name=f"Spine {n}"
        )
        elevator.append(venue.unit(f"lift{n}", level, "elevator", rect(-3, -10, 0, -6)))
        stairs.append(venue.unit(f"stair{n}", level, "stairs", rect(-7, -10, -3, -6)))
        venue.opening(f"lift{n}", level, (-2, -6), (-1, -6))
        venue.unit(f"stairhall{n}", level, "walkway", rect(-7, -6, -3, -3))
        venue.opening(f"stairhall{n}", level, (-5.5, -6), (-4.5, -6))
        venue.opening(f"stairhall-spine{n}", level, (-3, -5), (-3, -4))
        for row in range(rows):
            y = row * pitch + 6  # the corridor's south side
            venue.unit(f"row{n}-{row}", level, "walkway", rect(0, y, width, y + 3))
            venue.opening(f"row{n}-{row}", level, (0, y + 1), (0, y + 2))
            for index in range(rooms_per_side):
                x = index * 4.0
                for side, (y0, y1, door_y) in (("n", (y + 3, y + 9, y + 3)), ("s", (y - 6, y, y))):
                    key = f"{n}-{row}-{side}{index}"
                    venue.unit(key, level, "office", rect(x, y0, x + 4, y1), name=f"Office {key}")
                    venue.opening(key, level, (x + 1.5, door_y), (x + 2.5, door_y))
    venue.relationship("tower-lift", "elevator", elevator)
    return venue


# ---------------------------------------------------------------- a real-looking venue

# Harbourside Exchange: 96 m x 42 m, two corridors (south y 14-17, north y 33-36) joined
# by a spine (x 44-47); rows of rooms of irregular widths face them. Fixed per level (so
# they stand over each other): the lifts, two stairs, the restrooms, a janitor's closet.
EXCHANGE_LEVELS = (  # key, ordinal, name, short name, east end of the floor
    ("B1", -1, "Basement B1", "B1", 96.0),
    ("G", 0, "Ground Floor", "G", 96.0),
    ("M", 1, "Mezzanine", "M", 60.0),
    ("L1", 2, "First Floor", "1", 96.0),
)
EXCHANGE_ROWS = (  # band, y0, y1, door side y
    ("A", 4.0, 14.0, 14.0),
    ("B1", 17.0, 25.0, 17.0),
    ("B2", 25.0, 33.0, 33.0),
    ("C", 36.0, 46.0, 36.0),
)
EXCHANGE_FIXED = {  # band -> (x0, x1, category, name) of what stands on every level
    "B1": [(28.0, 32.0, "elevator", "Lifts"), (52.0, 56.0, "stairs", None)],
    "B2": [
        (20.0, 24.0, "restroom.male", None),
        (24.0, 28.0, "restroom.female", None),
        (28.0, 32.0, "stairs", "West Stairs"),
        (32.0, 34.0, "nonpublic", None),
    ],
}
SHOPS = ("Harbour News", "Coffee Corner", "Pharmacy", "Coffee Corner", "Florist", "Optician")


@dataclass(frozen=True)
class Exchange:
    """The venue and, per level key, its level id and its units' (id, category, name)."""

    venue: Venue
    levels: dict[str, str]
    units: dict[str, list[tuple[str, str, str | None]]]


def room_widths(
    rng: random.Random, length: float, choices: tuple[float, ...], merge_under: float = 2.5
) -> list[float]:
    """Room widths filling `length` metres: random choices, a remainder under
    `merge_under` merged into the last room (also for tests/venues/viewer_buildings.py)."""
    widths: list[float] = []
    while length > 1e-9:
        width = min(rng.choice(choices), length)
        if length - width < merge_under:
            width = length
        widths.append(width)
        length -= width
    return widths


def _free(band: str, east: float) -> list[tuple[float, float]]:
    """The x intervals of a band left for rooms: the spine, the fixed units, the floor's
    east end and the ground floor's atrium taken out."""
    taken = [(44.0, 47.0)] if band in ("B1", "B2") else []
    taken += [(x0, x1) for x0, x1, *_ in EXCHANGE_FIXED.get(band, [])]
    if band == "C":
        taken.append((0.0, 30.0))  # atrium, parking, open to below, open plan: by level
    free, x = [], 0.0
    for a, b in sorted(taken):
        if a > x:
            free.append((x, a))
        x = max(x, b)
    free.append((x, east))
    return [(a, min(b, east)) for a, b in free if min(b, east) - a >= 2.0]


@dataclass
class _Floor:
    """One level of the exchange being built: adds its units and doors."""

    venue: Venue
    key: str
    level: str
    made: list[tuple[str, str, str | None]] = field(default_factory=list)

    def unit(self, suffix: str, category: str, box: Rect, name: str | None) -> str:
        key = f"ex-{self.key}-{suffix}"
        self.made.append((self.venue.feature_id("unit", key), category, name))
        return self.venue.unit(key, self.level, category, rect(*box), name=name)

    def door(self, suffix: str, a: tuple[float, float], b: tuple[float, float]) -> None:
        self.venue.opening(f"ex-{self.key}-{suffix}", self.level, a, b)


def exchange(seed: int = 34) -> Exchange:
    """Harbourside Exchange, four levels (a basement B1, the ground floor, a mezzanine
    over the west part, the first floor) of 60-150 units each: rooms, offices,
    storage, shops, restrooms, lifts and stairs, a janitor's closet, corridors, an
    atrium with kiosks, parking, an area open to below and an open-plan office. Many
    rooms are unnamed and some names repeat ("Meeting Room", "Storage", a shop).
    Shops and the atrium have street doors (an opening touching one unit only). The
    lifts and the west stairs have relationships; the east stairs are found by overlap."""
    rng = random.Random(seed)
    venue = Venue("Harbourside Exchange")
    venue.venue("Harbourside Exchange", rect(0, 4, 96, 46))
    levels: dict[str, str] = {}
    units: dict[str, list[tuple[str, str, str | None]]] = {}
    for key, ordinal, name, short, east in EXCHANGE_LEVELS:
        floor = _Floor(
            venue, key, venue.level(f"ex-{key}", ordinal, name, short, rect(0, 4, east, 46))
        )
        levels[key], units[key] = floor.level, floor.made
        floor.unit("corridor-s", "walkway", (0, 14, east, 17), None)
        floor.unit("corridor-n", "walkway", (0, 33, east, 36), None)
        floor.unit("spine", "walkway", (44, 17, 47, 33), "Spine")
        floor.door("spine-s", (45, 17), (46, 17))
        floor.door("spine-n", (45, 33), (46, 33))
        for band, y0, y1, door_y in EXCHANGE_ROWS:
            for x0, x1, category, label in EXCHANGE_FIXED.get(band, []):
                if x1 <= east:
                    floor.unit(f"{band}-{category}-{x0:g}", category, (x0, y0, x1, y1), label)
                    floor.door(f"{band}-{category}-{x0:g}", (x0 + 1, door_y), (x0 + 2, door_y))
            _row(floor, rng, short, band, (y0, y1, door_y), east)
        _west_end(floor)
    _connect(venue, units)
    anchor_unit = next(u for u, category, _ in units["G"] if category == "retail")
    venue.occupant("ex-cafe", "restaurant", "Harbour Café", (8, 9), anchor_unit)
    return Exchange(venue, levels, units)


def _row(
    floor: _Floor,
    rng: random.Random,
    short: str,
    band: str,
    ys: tuple[float, float, float],
    east: float,
) -> None:
    """The rooms of one band, of random widths, a door each onto their corridor."""
    y0, y1, door_y = ys
    choices = (3.0, 3.5) if floor.key == "M" else (3.0, 4.0, 4.5, 5.0, 6.0, 8.0)
    shops = floor.key == "G" and band == "A"
    if shops:
        choices = (6.0, 8.0, 10.0)
    for a, b in _free(band, east):
        x = a
        for n, width in enumerate(room_widths(rng, b - a, choices)):
            suffix = f"{band}-{a:g}-{n}"
            category, label = _room_kind(rng, floor.key, short, band, len(floor.made))
            floor.unit(suffix, category, (x, y0, x + width, y1), label)
            middle = x + width / 2
            floor.door(suffix, (middle - 0.5, door_y), (middle + 0.5, door_y))
            if shops:  # a street door: one unit on its side
                floor.door(f"{suffix}-street", (middle - 1, 4), (middle + 1, 4))
            x += width


def _room_kind(
    rng: random.Random, key: str, short: str, band: str, n: int
) -> tuple[str, str | None]:
    """A room's category and name (None: unnamed) by level and band."""
    roll = rng.random()
    if key == "G" and band == "A":
        return "retail", None if roll < 0.2 else SHOPS[n % len(SHOPS)]
    if key == "B1":
        if roll < 0.3:
            return "storage", "Storage"
        if roll < 0.45:
            return "nonpublic", "Plant Room"
        return "room", None if roll < 0.7 else f"{short}.{n:02d}"
    if roll < 0.2:
        return "room", None
    if roll < 0.35:
        return "room", "Meeting Room"
    return ("office" if key == "L1" else "room"), f"{short}.{n:02d}"


def _west_end(floor: _Floor) -> None:
    """The west end of the north band (x 0-30): each level its own open area."""
    if floor.key == "G":
        floor.unit("atrium", "lobby", (0, 36, 30, 46), "Atrium")
        floor.door("atrium", (14, 36), (16, 36))
        floor.door("atrium-street", (4, 46), (7, 46))  # the main entrance, one-sided
        for n, x in enumerate((6.0, 14.0, 22.0)):  # standing in the atrium
            floor.unit(f"kiosk{n}", "kiosk", (x, 40, x + 2.5, 42), "Kiosk" if n else "Tickets")
    elif floor.key == "B1":
        floor.unit("parking", "parking", (0, 36, 30, 46), "Car Park")
        floor.door("parking", (10, 36), (13, 36))
    elif floor.key == "M":
        floor.unit("void", "opentobelow", (0, 36, 30, 46), None)
    else:
        floor.unit("open-plan", "office", (0, 36, 30, 46), "Open Plan")
        for n, x in enumerate((5.0, 24.0)):
            floor.door(f"open-plan{n}", (x, 36), (x + 1.5, 36))


def _connect(venue: Venue, units: dict[str, list[tuple[str, str, str | None]]]) -> None:
    """Relationships for the lifts and the west stairs, bottom to top."""
    for category, label in (("elevator", "Lifts"), ("stairs", "West Stairs")):
        stops = [
            next(u for u, c, n in units[key] if c == category and n == label)
            for key, *_ in EXCHANGE_LEVELS
        ]
        venue.relationship(f"ex-{category}", category, stops)


# ---------------------------------------------------------------- a venue with holes

# Cloister House, 60 m x 40 m on two levels. On the ground floor the cloister (a room)
# runs round a courtyard and round a lift shaft, both holes of its polygon; the lift
# (drawn only) stands in the shaft; a gallery (a walkway) joins it to the library.
CLOISTER_OUTER = rect(0, 0, 40, 40)
CLOISTER_COURT = rect(10, 10, 30, 25)
CLOISTER_SHAFT = rect(33, 30, 36, 33)


@dataclass(frozen=True)
class Cloister:
    """The venue, its level ids by ordinal, and its units and openings by key."""

    venue: Venue
    levels: dict[int, str]
    units: dict[str, str]
    openings: dict[str, str]


def holed_polygon(
    venue: Venue, outline: list[tuple[float, float]], holes: list[list[tuple[float, float]]]
) -> dict[str, Any]:
    """A Polygon as RFC 7946 orients it: the exterior counterclockwise, holes clockwise."""
    return {
        "type": "Polygon",
        "coordinates": [venue.ring(outline), *(venue.ring(hole[::-1]) for hole in holes)],
    }


def cloister() -> Cloister:
    """Cloister House: a unit with a courtyard and a shaft through it, walkways, a lift
    in the shaft (found by overlap, not joined by a relationship) and openings."""
    venue = Venue("Cloister House")
    outline = rect(0, 0, 60, 40)
    venue.venue("Cloister House", outline)
    levels = {
        n: venue.level(f"cl{n}", n, name, short, outline)
        for n, name, short in (
            (0, "Ground Floor", "G"),
            (1, "Upper Floor", "1"),
        )
    }
    units: dict[str, str] = {}
    openings: dict[str, str] = {}
    units["cloister"] = venue.unit(
        "cl-cloister", levels[0], "room", CLOISTER_OUTER, name="Cloister", display=(5, 5)
    )
    venue.features["unit"][-1]["geometry"] = holed_polygon(
        venue, CLOISTER_OUTER, [CLOISTER_COURT, CLOISTER_SHAFT]
    )
    units["lift0"] = venue.unit("cl-lift0", levels[0], "elevator", CLOISTER_SHAFT)
    for n in (0, 1):
        units[f"gallery{n}"] = venue.unit(
            f"cl-gallery{n}", levels[n], "walkway", rect(40, 0, 43, 40), name=f"Gallery {n}"
        )
        units[f"library{n}"] = venue.unit(
            f"cl-library{n}", levels[n], "room", rect(43, 0, 60, 20), name=f"Library {n}"
        )
        openings[f"library{n}"] = venue.opening(f"cl-library{n}", levels[n], (43, 10), (43, 11.5))
    units["reading"] = venue.unit("cl-reading", levels[1], "office", rect(43, 20, 60, 40))
    openings["reading"] = venue.opening("cl-reading", levels[1], (43, 30), (43, 31.5))
    openings["cloister"] = venue.opening("cl-cloister", levels[0], (40, 5), (40, 6.5))
    openings["lift"] = venue.opening("cl-lift", levels[0], (34, 30), (35, 30))
    return Cloister(venue, levels, units, openings)
