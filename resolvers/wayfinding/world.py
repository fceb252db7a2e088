"""WGS84 waypoints (issue 49, point 1): `{lon, lat, floorId}` or `{lon, lat, level}` on
a georeferenced map, placed on the canvas by the exact inverse of the map's stored fit
(`parsing.geo.inverse`) and then snapped to the walk network as any `x`/`y` waypoint.

A map's frame (its fit, the inverse, and each level's indoor= `level` and outline) is
read from its parsed document once per process and version (`Services.frame_cache`,
keyed by the parsed file's content-addressed name and the control points). The point
must lie within WGS84_WAYPOINT_MARGIN_M of its level's outline (the box around the
level's units and hit areas, the GeoJSON's level feature, and its locations), measured
in metres on the earth.

A `level` two floors share (an IMDF venue's levels of one ordinal: "Concourse" and
"Concourse Outdoor") names the floor whose footprint (`parsing.geo.map_frame`) holds
the point (issue 65, point 5); when none does, the nearest within the margin, measured
to the footprints. When two or more hold it (a point on the line where they meet, or
floors drawn over each other), or are as near, the waypoint is refused with their names
and floor ids: a `floorId` says which.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from typing import Any

import orjson

from parsing.geo.map_frame import HELD_WITHIN_M, MapFrame, frame_of
from resolvers.context import RequestContext
from resolvers.errors import FieldErrors
from resolvers.limits import WGS84_WAYPOINT_MARGIN_M
from resolvers.validation import check_id
from storage.cpu import run_cpu
from storage.files import get_file

NOT_GEOREFERENCED = "this map is not georeferenced"
WGS84_KEYS = ("lon", "lat")
CANVAS_DECIMALS = 6  # of a point placed from lon/lat


def is_wgs84(waypoint: dict[str, Any]) -> bool:
    """Whether a waypoint gives its point as lon/lat (either of them)."""
    return any(waypoint.get(key) is not None for key in WGS84_KEYS)


def check_wgs84(errors: FieldErrors, place: str, waypoint: dict[str, Any]) -> None:
    """What can be checked of a lon/lat waypoint without the database: lon and lat both,
    in range; no id, x or y with them; a floor or a `level`, not both."""
    for key, other in (("lon", "lat"), ("lat", "lon")):
        if waypoint.get(key) is None and waypoint.get(other) is not None:
            errors.add(f"{place}.{key}", f"is required with {other}")
        elif waypoint.get(key) is None:
            errors.add(f"{place}.{key}", "is required with a level")
    for key, bound in (("lon", 180.0), ("lat", 90.0)):
        value = waypoint.get(key)
        if value is not None and not (math.isfinite(value) and abs(value) <= bound):
            errors.add(f"{place}.{key}", f"must be a number from {-bound:g} to {bound:g}")
    if waypoint.get("id") is not None:
        errors.add(
            f"{place}.id", "cannot be given with lon, lat or level: the location is the point"
        )
    if any(waypoint.get(key) is not None for key in ("x", "y")):
        errors.add(f"{place}.lon", "cannot be given with x and y: give the point one way")
    level = waypoint.get("level")
    if level is not None and waypoint.get("floor_id") is not None:
        errors.add(f"{place}.level", "cannot be given with a floor id: name the level one way")
    elif level is None and waypoint.get("floor_id") is None:
        errors.add(f"{place}.level", "a floor id or a level is required with lon and lat")
    elif level is not None and not level.strip():
        errors.add(f"{place}.level", "must not be empty")
    elif level is not None:
        check_id(errors, f"{place}.level", level)  # a level names like an id: 255 at most


async def map_frame(
    context: RequestContext,
    unit_map: dict[str, Any],
    load_locations: Callable[[], Awaitable[dict[str, dict[str, Any]]]],
) -> MapFrame | None:
    """The map's frame, None when it is not georeferenced (no georeference or no drawing).
    `load_locations`: the map's locations (`distances.map_waypoints`), read on a miss."""
    reference = unit_map.get("georeference")
    parsed_file = unit_map.get("parsed_file")
    if not reference or not parsed_file:
        return None
    points = tuple(
        (p["x"], p["y"], p["lon"], p["lat"]) for p in reference.get("control_points") or ()
    )
    levels = tuple(
        (lv.get("uid"), lv.get("floor_id"), lv.get("height")) for lv in unit_map.get("levels") or []
    )

    async def load() -> MapFrame:
        stored = await get_file(context.store, parsed_file)
        placed = [
            (floor.get("id"), float(found["x"]), float(found["y"]))
            for found in (await load_locations()).values()
            for floor in found.get("floors") or []
        ]
        data = stored.data if stored is not None else b"{}"
        # a parsed document runs to megabytes: read and walked on the CPU pool
        return await run_cpu(_frame, data, points, levels, placed)

    version = unit_map.get("locations_version")
    if version is None:  # a map stored before versions: read anew
        return await load()
    key = (parsed_file, points, levels, version)
    return await context.services.frame_cache.get(unit_map["id"], key, load)


def _frame(data: bytes, *args: Any) -> MapFrame:
    return frame_of(orjson.loads(data), *args)


def place_wgs84(
    problems: FieldErrors,
    place: str,
    waypoint: dict[str, Any],
    frame: MapFrame | None,
    level_of: Callable[[Any], int | None],
) -> int | None:
    """The level of a lon/lat waypoint, with its `x`, `y` and `floor_id` filled from the
    inverse fit; None (and a problem under `place`) when it cannot be placed."""
    if frame is None:
        problems.add(f"{place}.lon", NOT_GEOREFERENCED)
        return None
    lon, lat = float(waypoint["lon"]), float(waypoint["lat"])
    candidates = _candidates(problems, place, waypoint, frame, level_of)
    if not candidates:
        return None
    if len(candidates) == 1:
        off, position = frame.metres_off(candidates[0], lon, lat), candidates[0]
    else:  # floors sharing a level: the one whose footprint holds the point, or nearest
        offs = sorted((frame.metres_off_footprint(p, lon, lat), p) for p in candidates)
        off, position = offs[0]
        alike = [p for near, p in offs if near - off <= HELD_WITHIN_M]
        if len(alike) > 1 and off <= WGS84_WAYPOINT_MARGIN_M:
            problems.add(f"{place}.level", _several(frame, alike, off, lon, lat, waypoint))
            return None
    found = frame.levels[position]
    if off > WGS84_WAYPOINT_MARGIN_M:
        named = f"level {found.level!r}" if waypoint.get("level") else f"floor {found.floor_id!r}"
        problems.add(
            place,
            f"({lon:g}, {lat:g}) is {off:.1f} m outside the outline of {named}: "
            f"at most {WGS84_WAYPOINT_MARGIN_M:g} m",
        )
        return None
    # Rounded to a millionth of a unit: the inverse's floating-point noise (1e-8) gone,
    # the point of a location given as its lon/lat is the location's own.
    x, y = (round(value, CANVAS_DECIMALS) + 0.0 for value in frame.inverse.apply(lon, lat))
    waypoint.update(x=x, y=y, floor_id=found.floor_id)
    return position


def _several(
    frame: MapFrame, alike: list[int], off: float, lon: float, lat: float, waypoint: dict[str, Any]
) -> str:
    """The refusal of a point that two or more floors of its `level` hold, or are as near
    to: their names and floor ids, and the way to choose."""
    floors = " and ".join(
        f"{frame.levels[p].name or frame.levels[p].uid!r} (floor {frame.levels[p].floor_id!r})"
        for p in sorted(alike)  # in level order
    )
    where = "on" if off <= HELD_WITHIN_M else f"{off:.1f} m from"
    return (
        f"({lon:g}, {lat:g}) is {where} {len(alike)} floors of level {waypoint['level']!r}: "
        f"{floors}; give floorId instead of level to say which"
    )


def _candidates(
    problems: FieldErrors,
    place: str,
    waypoint: dict[str, Any],
    frame: MapFrame,
    level_of: Callable[[Any], int | None],
) -> list[int]:
    """The positions of the levels the waypoint names: every level of its `level` (two
    levels may share one; the point chooses), or its floor's level."""
    level = waypoint.get("level")
    if level is not None:
        found = [p for p, framed in enumerate(frame.levels) if framed.level == level]
        if not found:
            names = ", ".join(frame.level_names())
            problems.add(
                f"{place}.level",
                f"level {level!r} is not a level of this map (its levels: {names})",
            )
        return found
    floor = waypoint.get("floor_id")
    position = level_of(floor)
    if position is None:
        problems.add(f"{place}.floorId", f"floor {floor!r} is not a level of this map")
        return []
    return [position]
