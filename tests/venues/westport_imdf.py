"""Westport House (Dundee), a real 7-level office, as an IMDF archive (issue 48): the
walkable space a person uses, for the import, routing and viewer tests.

Westport House indoor map data (c) WRLD / eeGeo, CC BY 4.0 (tests/data/README.md).

WRLD's files (`examples/westport-house/`) are a FeatureCollection of polygons per level
(`main.json` lists them). They become, in local metres (a transverse Mercator at the
building's point, as tests/venues/imdf_venues.py writes venues):

- rooms, bathrooms, stairs, elevators and `no_geometry` areas (WRLD's named spaces drawn
  flat): units (`room`, `restroom`, `stairs`, `elevator`, `room`), named by `name`, else
  `roomnumber`; inaccessible spaces `nonpublic` and floor openings `opentobelow` units
  (drawn, not walked). A unit drawn on top of a larger one (the meeting rooms inside
  the second floor's tenant area) is cut out of it;
- the floor's free space, the building outline less walls, windows, doors and every
  typed polygon (gaps under 2 x `SEAL` between them closed): one `walkway` unit per
  piece of at least `MIN_PIECE` (smaller pieces are gaps between walls nobody stands
  in), but a piece running along the outline for `OUTSIDE_SHARE` of its perimeter: WRLD's
  outlines take in setbacks outside the outer walls (`Westport.outside`, not written).
  Doors are taken out so that the spaces on either side of a door are separate units
  joined by it, as IMDF draws them;
- doors (thin polygons filling a gap in a wall): openings, a line along the door
  polygon's long axis through its middle, its length the door's width. A door is kept
  when it joins two walkable units, or when it lies in the outer wall with a walkable
  unit on one side (a street door; the main one, on Bash Street, is
  `Westport.entrance`, named as WRLD's entrance line is). A door
  beside inaccessible space, or whose other side is a gap between walls, leads nowhere
  a person may go, and one inside a single space (a partition with a gap elsewhere)
  joins nothing: each is left out (`Westport.dropped`, with the reason), never written
  as a one-sided opening the importer would take for a street door;
- sides two walkable units share with no wall between: openings (`_open_sides`);
- stairs and elevators stacked on consecutive levels: found by the importer (units
  that overlap, routing.imdf.connectors); no relationships are written.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any

import orjson
import shapely
from pyproj import Transformer
from shapely.geometry import shape

from tests.venues.data import WESTPORT_HOUSE
from tests.venues.imdf_venues import Venue, stable_id, zip_bytes

FOLDER = WESTPORT_HOUSE
ATTRIBUTION = "Westport House indoor map data (c) WRLD / eeGeo, CC BY 4.0"
CATEGORY = {  # WRLD type -> IMDF unit category
    "room": "room",
    "bathroom": "restroom",
    "stairs": "stairs",
    "elevator": "elevator",
    "no_geometry": "room",
    "inaccessible_space": "nonpublic",
    "floor_opening": "opentobelow",
}
WALKED = frozenset({"room", "restroom", "stairs", "elevator", "walkway"})
SOLID = ("wall", "window", "door")  # taken out of the free space with every typed polygon
SEAL = 0.1  # metres: gaps up to twice this between walls, windows and doors are closed
# (drawing slack where a partition meets a window: no one walks through 20 cm)
OUTSIDE_SHARE = 0.25  # a piece of free space that runs this share of its perimeter along
# the outline lies outside the walls (WRLD's outlines take in setbacks and pavements)
TOUCH_OUTLINE = 0.02  # metres: a piece's boundary this close to the outline runs along it
NESTED = 0.95  # a unit lying this share inside a larger one is cut out of it (WRLD draws
# rooms on top of the tenant area around them; IMDF units do not overlap)
MIN_OPEN = 0.8  # metres: a shared side with no wall this long is an opening (a door's width)
STAND = 0.1  # metres: an open side runs where both units are at least twice this wide
# (the Bash St lobby reaches along its stairs' south side in a 3 cm wedge: no way there)
MIN_PIECE = 1.0  # m2: smaller pieces of free space are gaps between walls
REACH = 0.45  # metres: a unit this far from a door line's middle is on its side (the
# importer's snap tolerance is 0.5 m)
OUTER_WALL = 0.35  # metres: a door this close to the outline's ring is in the outer wall
ENTRANCE_NAME = "Bash St entrance"  # WRLD's name of the entrance (floor GF paths)
ENTRANCE_REACH = 1.0  # metres: the street door this close to WRLD's entrance line is it
XY = tuple[float, float]


@dataclass(frozen=True)
class Unit:
    """A unit written to the archive, in local metres."""

    id: str
    level: str  # WRLD level id (westport-house-floor-gf, ...)
    category: str
    name: str | None
    shape: shapely.Polygon


@dataclass(frozen=True)
class Opening:
    """A door written to the archive: its line, and the ids of the units it joins."""

    id: str
    level: str
    line: tuple[XY, XY]
    units: tuple[str, ...]


@dataclass
class Westport:
    """The venue and what it was made of: level ids (IMDF, by WRLD level id), units,
    openings, the entrance opening's id and the doors left out with their reason."""

    venue: Venue
    levels: dict[str, str] = field(default_factory=dict)
    level_names: dict[str, str] = field(default_factory=dict)
    units: list[Unit] = field(default_factory=list)
    openings: list[Opening] = field(default_factory=list)
    entrance: str = ""
    dropped: list[tuple[str, str, str]] = field(default_factory=list)  # level, WRLD id, why
    outside: list[Unit] = field(default_factory=list)  # free space outside the walls, left out


def westport_zip() -> bytes:
    """The IMDF archive of Westport House, as `floorgate import-imdf` takes it."""
    return zip_bytes(westport().venue.files())


def westport() -> Westport:
    """Westport House as an IMDF venue, read from WRLD's files (tests/data/)."""
    main = orjson.loads((FOLDER / "main.json").read_bytes())
    lon0, lat0 = main["location"]["coordinates"]
    venue = Venue(main["name"], origin=(lon0, lat0))
    crs = f"+proj=tmerc +lat_0={lat0} +lon_0={lon0} +k=1 +ellps=WGS84 +units=m"
    to_metres = Transformer.from_crs("EPSG:4326", crs, always_xy=True)
    built = Westport(venue)
    floors = []
    for level in sorted(main["levels"], key=lambda lv: lv["z_order"]):
        collection = orjson.loads((FOLDER / level["filename"]).read_bytes())
        floors.append((level, _features(collection, to_metres)))
    outline = shapely.union_all([g for _, f in floors for g, _ in f.get("building_outline", [])])
    venue.venue(main["name"], _ring(outline))
    entrance = _entrance(to_metres)
    for level, features in floors:
        _level(built, level, features, entrance)
    return built


def _features(
    collection: dict[str, Any], to_metres: Transformer
) -> dict[str, list[tuple[shapely.Polygon, dict[str, Any]]]]:
    """The level's polygons in local metres by WRLD type, each with its properties."""
    found: dict[str, list[Any]] = {}
    for feature in collection["features"]:
        if not feature.get("geometry"):
            continue
        polygon = shapely.transform(
            shape(feature["geometry"]),
            lambda xy: list(zip(*to_metres.transform(xy[:, 0], xy[:, 1]), strict=True)),
        )
        found.setdefault(feature["properties"]["type"], []).append((polygon, feature["properties"]))
    return found


def _level(
    built: Westport,
    level: dict[str, Any],
    features: dict[str, list[Any]],
    entrance: shapely.LineString | None,
) -> None:
    """One level: its typed units, its free space as walkways, its doors."""
    venue, key = built.venue, level["id"]
    outline = shapely.union_all([g for g, _ in features["building_outline"]])
    level_id = venue.level(
        key, level["z_order"], level["readable_name"], level["name"], _ring(outline)
    )
    built.levels[key], built.level_names[key] = level_id, level["readable_name"]
    typed_parts = [
        (category, props, part)
        for kind, category in CATEGORY.items()
        for polygon, props in features.get(kind, [])
        for part in _polygons(polygon)
    ]
    mine: list[Unit] = []
    for n, (category, props, part) in enumerate(typed_parts):
        inner = [
            other
            for _, _, other in typed_parts
            if other is not part
            and other.area < part.area
            and other.intersection(part).area >= NESTED * other.area
        ]
        shaped = _polygons(shapely.difference(part, shapely.union_all(inner))) if inner else [part]
        name = str(props.get("name") or props.get("roomnumber") or "").strip() or None
        for k, piece in enumerate(p for p in shaped if p.area >= MIN_PIECE):
            mine.append(
                _unit(venue, f"{key}:{props['id']}:{n}.{k}", key, level_id, category, piece, name)
            )
    typed = shapely.union_all([part for _, _, part in typed_parts])
    solid = shapely.union_all([g for kind in SOLID for g, _ in features.get(kind, [])])
    solid = shapely.buffer(
        shapely.buffer(solid, SEAL, join_style="mitre"), -SEAL, join_style="mitre"
    )
    free = shapely.difference(shapely.difference(outline, solid), typed)
    pieces = sorted(
        (p for p in _polygons(free) if p.area >= MIN_PIECE),
        key=lambda p: (round(p.centroid.x, 3), round(p.centroid.y, 3)),
    )
    ring = shapely.buffer(outline.boundary, TOUCH_OUTLINE)
    outside: list[Unit] = []
    for n, piece in enumerate(pieces):
        if piece.boundary.intersection(ring).length >= OUTSIDE_SHARE * piece.length:
            outside.append(Unit(f"outside:{key}:{n}", key, "outside", None, piece))
            continue
        mine.append(_unit(venue, f"{key}:free:{n}", key, level_id, "walkway", piece, None))
    built.units.extend(mine)
    built.outside.extend(outside)
    walked = [u for u in mine if u.category in WALKED]
    blocked = [u for u in mine if u.category not in WALKED] + outside
    for polygon, props in features.get("door", []):
        _door(built, key, level_id, outline, polygon, props, walked, blocked, entrance)
    for n, (one, other, line) in enumerate(_open_sides(walked)):
        ident = venue.opening(f"westport:{key}:open:{n}", level_id, *line)
        built.openings.append(Opening(ident, key, line, (one, other)))


def _door(
    built: Westport,
    key: str,
    level_id: str,
    outline: shapely.Geometry,
    polygon: shapely.Polygon,
    props: dict[str, Any],
    walked: list[Unit],
    blocked: list[Unit],
    entrance: shapely.LineString | None,
) -> None:
    """A door as an opening along its long axis, or left out with the reason."""
    a, b = _long_axis(polygon)
    sides = [_across(a, b, side, walked, blocked) for side in (1, -1)]
    joins = tuple(u.id for u in sides if u is not None and u.category in WALKED)
    street = any(u is not None and u.category == "outside" for u in sides)
    outer = street or polygon.distance(outline.boundary) <= OUTER_WALL
    why = ""
    if any(u is not None and u.category not in WALKED | {"outside"} for u in sides):
        why = "opens onto inaccessible space"
    elif len(joins) == 2 and joins[0] == joins[1]:
        why = "both sides are one space (its partition has a gap elsewhere)"
    elif not joins:
        why = "joins no walkable space"
    elif len(joins) == 1 and not outer:
        why = "one side is a gap between walls, not a space"
    if why:
        built.dropped.append((key, str(props["id"]), why))
        return
    name = None
    if entrance is not None and len(joins) == 1 and polygon.distance(entrance) < ENTRANCE_REACH:
        name = ENTRANCE_NAME
    extra: dict[str, Any] = {"name": {"en": name}} if name else {}
    ident = built.venue.opening(f"westport:{key}:door:{props['id']}", level_id, a, b, **extra)
    if name:
        built.entrance = ident
    built.openings.append(Opening(ident, key, (a, b), joins))


def _across(a: XY, b: XY, side: int, walked: list[Unit], blocked: list[Unit]) -> Unit | None:
    """The unit nearest the door line's middle on one side of it (within `REACH`), as the
    importer matches openings: a door drawn beside a thin partition, not in a gap of it,
    joins the space beyond the partition."""
    length = math.dist(a, b)
    nx, ny = -(b[1] - a[1]) / length * side, (b[0] - a[0]) / length * side
    inset = min(0.2, length / 4)  # the strip keeps off the jambs (a wall's end beside)
    tx, ty = (b[0] - a[0]) / length * inset, (b[1] - a[1]) / length * inset
    a1, b1 = (a[0] + tx, a[1] + ty), (b[0] - tx, b[1] - ty)
    strip = shapely.Polygon(
        [a1, b1, (b1[0] + REACH * nx, b1[1] + REACH * ny), (a1[0] + REACH * nx, a1[1] + REACH * ny)]
    )
    mid = shapely.Point((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
    found = [
        (unit.shape.distance(mid), unit.id, unit)
        for unit in [*walked, *blocked]
        if unit.shape.intersects(strip) and unit.shape.distance(mid) <= REACH
    ]
    return min(found, key=lambda f: (f[0], f[1]))[2] if found else None


def _open_sides(walked: list[Unit]) -> list[tuple[str, str, tuple[XY, XY]]]:
    """Sides two walkable units share with no wall between (stairs open onto a hall, a
    meeting room drawn in a tenant area without walls): the longest straight stretch of
    each where both are wide enough to stand in (`_roomy`), at least `MIN_OPEN` long, as
    an opening (IMDF joins units only by openings)."""
    found = []
    tree = shapely.STRtree([u.shape for u in walked])
    for i, j in zip(*tree.query([u.shape for u in walked], predicate="intersects"), strict=True):
        if i >= j:
            continue
        one, other = (_roomy(walked[int(k)].shape) for k in (i, j))
        shared = shapely.intersection(one.boundary, shapely.buffer(other, TOUCH_OUTLINE))
        merged = shapely.line_merge(shapely.union_all(shapely.get_parts(shared)))
        best: tuple[float, tuple[XY, XY]] | None = None
        for piece in shapely.get_parts(merged):
            coords = list(shapely.simplify(piece, TOUCH_OUTLINE).coords) if piece.length else []
            for a, b in itertools.pairwise(coords):
                length = math.dist(a, b)
                if length >= MIN_OPEN and (best is None or length > best[0]):
                    best = (length, ((a[0], a[1]), (b[0], b[1])))
        if best is not None:
            found.append((walked[int(i)].id, walked[int(j)].id, best[1]))
    return sorted(found)


def _roomy(polygon: shapely.Polygon) -> shapely.Geometry:
    """The unit without its slivers narrower than 2 x `STAND` (an opening), where a
    person can stand: a side the units share only along a sliver is no way through."""
    return shapely.buffer(
        shapely.buffer(polygon, -STAND, join_style="mitre"), STAND, join_style="mitre"
    )


def _unit(
    venue: Venue,
    ident: str,
    key: str,
    level_id: str,
    category: str,
    polygon: shapely.Polygon,
    name: str | None,
) -> Unit:
    """A unit, holes kept (a column inside a corridor), written to the venue."""
    unit_id = venue.unit(f"westport:{ident}", level_id, category, _ring(polygon), name=name)
    if polygon.interiors:
        venue.features["unit"][-1]["geometry"]["coordinates"] += [
            venue.ring(list(ring.coords)[:-1]) for ring in polygon.interiors
        ]
    assert unit_id == stable_id(f"unit:westport:{ident}")
    return Unit(unit_id, key, category, name, polygon)


def _long_axis(polygon: shapely.Polygon) -> tuple[XY, XY]:
    """The line through the middle of a thin polygon along its long side."""
    corners = list(shapely.minimum_rotated_rectangle(polygon).exterior.coords)[:4]
    (ax, ay), (bx, by), (cx, cy), (dx, dy) = corners
    if math.dist((ax, ay), (bx, by)) >= math.dist((bx, by), (cx, cy)):
        return ((ax + dx) / 2, (ay + dy) / 2), ((bx + cx) / 2, (by + cy) / 2)
    return ((ax + bx) / 2, (ay + by) / 2), ((dx + cx) / 2, (dy + cy) / 2)


def _entrance(to_metres: Transformer) -> shapely.LineString | None:
    """WRLD's entrance line on the ground floor (through the main door)."""
    paths = FOLDER / "westport-house-floor-gf-paths.geojson"
    if not paths.is_file():
        return None
    for feature in orjson.loads(paths.read_bytes())["features"]:
        if feature["properties"].get("type") == "entrance":
            lon, lat = zip(*(c[:2] for c in feature["geometry"]["coordinates"]), strict=True)
            x, y = to_metres.transform(list(lon), list(lat))
            return shapely.LineString(list(zip(x, y, strict=True)))
    return None


def _polygons(geometry: shapely.Geometry) -> list[shapely.Polygon]:
    if isinstance(geometry, shapely.Polygon):
        return [geometry] if not geometry.is_empty else []
    return [g for g in getattr(geometry, "geoms", []) if isinstance(g, shapely.Polygon)]


def _ring(polygon: shapely.Geometry) -> list[XY]:
    """The exterior of a polygon (the largest part of several) without its closing point."""
    largest = max(_polygons(polygon), key=lambda p: p.area)
    return [(float(x), float(y)) for x, y in list(largest.exterior.coords)[:-1]]
