"""The findings of the venue health report that can change after the import, found when
asked from the asset's tile index (its maps' stored GeoJSON: `parsing/geo/tiles.py`):
tiles that fail to encode, and places listed twice (docs/imdf.md, "The health report").
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

import shapely

from parsing.geo.tile_features import EARTH_RADIUS, TileFeature
from parsing.geo.tiles import TileIndex, encode_tile, tile_bounds
from routing.imdf.health import Finding, severity_of

SWEPT_ZOOMS = range(14, 19)  # every tile z14-18 over the asset's bounds
OVERLAP_METRES = 0.5  # two places of one name this near each other are one place listed twice
ERROR_CHARS = 200  # of a failing tile's error, in its finding
EXAMPLES = 3  # features a geometry finding names


@dataclass(frozen=True)
class LiveChecks:
    findings: tuple[Finding, ...]
    tiles_checked: int
    notes: tuple[str, ...] = ()  # what was not checked, and why


def tiles_over(bounds: tuple[float, float, float, float], z: int) -> list[tuple[int, int]]:
    """The (x, y) of every tile of zoom `z` that meets `bounds` (west, south, east,
    north, degrees)."""
    columns, rows = _tile_ranges(bounds, z)
    return [(x, y) for x in columns for y in rows]


def _tile_ranges(bounds: tuple[float, float, float, float], z: int) -> tuple[range, range]:
    """The columns and rows of zoom `z` that `bounds` meets."""
    west, south, east, north = bounds
    count = 1 << z

    def column(lon: float) -> int:
        return min(count - 1, max(0, int((lon + 180.0) / 360.0 * count)))

    def row(lat: float) -> int:
        rad = math.radians(lat)
        y = (1.0 - math.log(math.tan(rad) + 1.0 / math.cos(rad)) / math.pi) / 2.0 * count
        return min(count - 1, max(0, int(y)))

    return range(column(west), column(east) + 1), range(row(north), row(south) + 1)


def failing_tiles(
    index: TileIndex, max_features: int, max_bytes: int, max_tiles: int
) -> tuple[list[Finding], int, list[str]]:
    """Every tile z14-18 that meets a feature, encoded as a request would encode it (a
    tile meeting none cannot fail: it is not encoded); a tile that raises is a finding.
    At most `max_tiles` are encoded, lowest zoom first: a venue's extent is the data's
    (a feature drawn kilometres off makes millions of z18 tiles), and the sweep is work
    one request asks for. Returns the findings, the tiles checked, and a note when the
    limit stopped the sweep."""
    if index.bounds is None:
        return [], 0, []
    found: list[Finding] = []
    checked = 0
    for z in SWEPT_ZOOMS:
        for x, y in _tiles_meeting(index, z):
            if checked == max_tiles:
                return found, checked, [f"tiles: only the first {max_tiles} checked (z14 first)"]
            checked += 1
            try:
                encode_tile(index, z, x, y, max_features, max_bytes)
            except Exception as error:  # what a request would have answered 500 for
                text = f"{type(error).__name__}: {error}"
                found.append(
                    Finding(
                        severity_of("tile-fails", ()),
                        "tile-fails",
                        f"tile {z}/{x}/{y}",
                        text if len(text) <= ERROR_CHARS else text[: ERROR_CHARS - 3] + "...",
                    )
                )
    return found, checked, []


def _tiles_meeting(index: TileIndex, z: int) -> Iterator[tuple[int, int]]:
    """The tiles of zoom `z` over the index's bounds (in `tiles_over`'s order) that meet
    a feature: generated, not listed (the bounds may hold millions), each asked of the
    index's tree."""
    assert index.bounds is not None
    columns, rows = _tile_ranges(index.bounds, z)
    for x in columns:
        for y in rows:
            if len(index.tree.query(shapely.box(*tile_bounds(z, x, y)))):
                yield x, y


def listed_twice(index: TileIndex) -> list[Finding]:
    """Places listed twice: two locations of one level with the same name (case and
    spacing aside) inside one unit, or within OVERLAP_METRES of each other."""
    units: dict[str, list[TileFeature]] = defaultdict(list)
    named: dict[tuple[str, str], list[TileFeature]] = defaultdict(list)
    for feature in index.features:
        level = feature.properties.get("level", "")
        if feature.layer == "units" and feature.geometry.geom_type in ("Polygon", "MultiPolygon"):
            units[level].append(feature)
        elif feature.layer == "locations" and feature.properties.get("name"):
            name = " ".join(feature.properties["name"].casefold().split())
            named[(level, name)].append(feature)
    trees = {level: shapely.STRtree([u.geometry for u in mine]) for level, mine in units.items()}
    found = []
    for (level, _), places in sorted(named.items(), key=lambda kv: kv[0]):
        if len(places) < 2:
            continue
        groups: dict[str, list[TileFeature]] = defaultdict(list)  # unit id -> its places
        names: dict[str, str] = {}  # unit id -> its name
        for place in places:
            lowest = level.split(";")[0]  # a place on several levels: its lowest
            tree = trees.get(lowest)
            hits = [] if tree is None else tree.query(place.geometry, "within")
            unit = units[lowest][int(min(hits))] if len(hits) else None
            if unit is not None:
                unit_id = unit.properties.get("id", "")
                names[unit_id] = unit.properties.get("name", "")
                groups[f"unit:{unit_id}"].append(place)
            else:
                groups[f"at:{place.properties.get('id')}"].append(place)
        outside = [p for key, group in groups.items() if key.startswith("at:") for p in group]
        for key, group in sorted(groups.items()):
            if key.startswith("unit:") and len(group) > 1:
                unit_id = key[len("unit:") :]
                shown = f"{names[unit_id]!r} ({unit_id})" if names[unit_id] else repr(unit_id)
                found.append(_twin(group, f"inside unit {shown}"))
        for i, alone in enumerate(outside):
            near = [p for p in outside[i + 1 :] if _metres(alone, p) <= OVERLAP_METRES]
            if near:
                found.append(_twin([alone, *near], f"within {OVERLAP_METRES:g} m of each other"))
    return found


def _twin(places: list[TileFeature], where: str) -> Finding:
    places = sorted(places, key=lambda p: str(p.properties.get("id")))
    ids = ", ".join(str(p.properties.get("id")) for p in places)
    name = places[0].properties["name"]
    return Finding(
        severity_of("listed-twice", ()),
        "listed-twice",
        f"{name!r} x{len(places)}",
        f"{len(places)} locations of one name {where} (level {places[0].properties['level']}): "
        f"{ids}; one place should be listed once",
    )


def _metres(a: TileFeature, b: TileFeature) -> float:
    """Ground distance of two Web Mercator points (the scale at their latitude)."""
    ax, ay = shapely.get_coordinates(a.geometry)[0]
    bx, by = shapely.get_coordinates(b.geometry)[0]
    latitude = 2 * math.atan(math.exp((ay + by) / 2 / EARTH_RADIUS)) - math.pi / 2
    return math.hypot(ax - bx, ay - by) * math.cos(latitude)


def index_geometry(index: TileIndex) -> list[Finding]:
    """The features of the stored maps that the tile index made valid, or left out with
    nothing valid left (a map's GeoJSON stored before imports made its polygons valid:
    `parsing.geo.tiles.build_index`)."""
    found = []
    for code, names, done in (
        ("geometry-repaired", index.repaired, "made valid by the tiles"),
        ("geometry-dropped", index.left_out, "left out of the tiles: nothing valid left"),
    ):
        if names:
            examples = "; ".join(names[:EXAMPLES])
            count = len(names)
            found.append(
                Finding(
                    severity_of(code, ()),
                    code,
                    f"{count} feature{'' if count == 1 else 's'} of the stored maps "
                    f"(e.g. {examples})",
                    f"invalid geometry in a map's stored GeoJSON, {done}; importing the "
                    "venue again stores it valid",
                )
            )
    return found


def live_checks(index: TileIndex, max_features: int, max_bytes: int, max_tiles: int) -> LiveChecks:
    """The live parts at once (run on the CPU pool by the API)."""
    tiles, checked, notes = failing_tiles(index, max_features, max_bytes, max_tiles)
    findings = (*tiles, *index_geometry(index), *listed_twice(index))
    return LiveChecks(findings, checked, tuple(notes))
