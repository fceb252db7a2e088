"""The distance matrix (E18, `distanceMatrix`): waypoints in, feet and seconds out.

Access (flag `distances`, permission `service.distances.calculate`) was checked by the
field's permission class. Then input (422: shape, values, the pair limit), then the
map (404), then the waypoints against the map (422), then the answer. Semantics are
docs/contract.md (Distances) and docs/unit-map-svg.md (Walk graph).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from parsing.geo.map_frame import MapFrame
from resolvers.context import RequestContext
from resolvers.errors import FieldErrors, invalid
from resolvers.limits import (
    MAX_COORDINATE,
    MAX_QUOTED_CHARS,
    WAYPOINT_MARGIN_FT,
    WAYPOINT_MARGIN_SHARE,
)
from resolvers.paging import BY_ID
from resolvers.reads import visible_map
from resolvers.validation import SIDES, check_id, pair_count_problems
from resolvers.wayfinding.closures import closed_edges
from resolvers.wayfinding.costing import Costing, check_costing
from resolvers.wayfinding.graph_cache import LOCATION_FIELDS, load_graph, load_waypoints, on_graph
from resolvers.wayfinding.world import check_wgs84, is_wgs84, map_frame, place_wgs84
from storage import collections as c
from storage.cache import cached_reads
from storage.cache.names import names_key

if TYPE_CHECKING:  # routing is imported by the functions that need it
    from routing.matrix import Cell, LoadedGraph, Point

T = TypeVar("T")

COSTINGS = ("pedestrian",)
METHODS = ("default", "pathfinding", "euclidean")
ECHOED = ("id", "name", "x", "y", "floor_id")  # the request's waypoint fields
Waypoint = dict[str, Any]


@dataclass(frozen=True)
class Request:
    sources: list[Waypoint]
    targets: list[Waypoint]
    costing: Costing  # `costing_options.pedestrian`
    method: str


def check_choice(
    errors: FieldErrors, name: str, value: str | None, allowed: tuple[str, ...]
) -> None:
    """`value`, when given, is one of `allowed` (E18's options, the route's mode and units);
    the refusal quotes at most MAX_QUOTED_CHARS of it."""
    if value is not None and value not in allowed:
        quoted = value if len(value) <= MAX_QUOTED_CHARS else value[: MAX_QUOTED_CHARS - 3] + "..."
        errors.add(name, f"must be one of {', '.join(allowed)}, not {quoted!r}")


def _checked_input(map_id: str, data: dict[str, Any]) -> Request:
    """Everything that can be checked without the database."""
    errors = FieldErrors()
    check_id(errors, "unitMapId", map_id)
    for side in SIDES:
        waypoints = data.get(side) or []
        if not waypoints:
            errors.add(f"input.{side}", "must be a non-empty array")
        for index, waypoint in enumerate(waypoints):
            check_waypoint(errors, f"input.{side}.{index}", waypoint)
    for message in pair_count_problems(data):
        errors.add("input", message)
    check_choice(errors, "input.costing", data.get("costing"), COSTINGS)
    pedestrian = (data.get("costing_options") or {}).get("pedestrian")
    costing = check_costing(errors, "input.costingOptions.pedestrian", pedestrian)
    method = data.get("distance_method")
    check_choice(errors, "input.distanceMethod", method, METHODS)
    errors.raise_if_any()
    return Request(
        sources=[dict(w) for w in data["sources"]],
        targets=[dict(w) for w in data["targets"]],
        costing=costing,
        method=method or "default",
    )


def check_waypoint(errors: FieldErrors, place: str, waypoint: Waypoint) -> None:
    """One waypoint of E18 or a route's `from`: a location id, or x, y and a floor, or
    lon, lat and a floor or `level` (`check_wgs84`). Candidates (`nearest`) are only a
    route's `to` (`nearest.check_nearest`)."""
    if waypoint.get("nearest") is not None:
        errors.add(f"{place}.nearest", "is accepted only in a route's to")
        return
    check_id(errors, f"{place}.id", waypoint.get("id"))
    check_id(errors, f"{place}.floorId", waypoint.get("floor_id"))
    if is_wgs84(waypoint) or waypoint.get("level") is not None:
        check_wgs84(errors, place, waypoint)
    elif waypoint.get("id") is None:
        for name, key in (("x", "x"), ("y", "y"), ("floorId", "floor_id")):
            if waypoint.get(key) is None:
                errors.add(f"{place}.{name}", "is required for a waypoint without an id")
    for name in ("x", "y"):
        value = waypoint.get(name)
        if value is not None and not (math.isfinite(value) and abs(value) <= MAX_COORDINATE):
            errors.add(
                f"{place}.{name}",
                f"must be a number from {-MAX_COORDINATE:g} to {MAX_COORDINATE:g}",
            )


def _same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-6)


def _named(request: Request) -> list[tuple[str, Waypoint]]:
    """Every waypoint with its place in the input, sources first."""
    return [
        (f"input.{side}.{index}", waypoint)
        for side in SIDES
        for index, waypoint in enumerate(getattr(request, side))
    ]


async def _placed(
    context: RequestContext, unit_map: dict[str, Any], request: Request
) -> list[Point]:
    """The sources' points, then the targets'."""
    return await place_waypoints(context, unit_map, _named(request))


async def place_waypoints(
    context: RequestContext,
    unit_map: dict[str, Any],
    named: list[tuple[str, Waypoint]],
    errors: FieldErrors | None = None,
) -> list[Point]:
    """Each waypoint (with its place in the input, for errors) filled from its location
    and placed on a level; every waypoint that is not on the map, or disagrees with its
    location, is reported: raised, or added to `errors` when given (the caller raises
    them with its own)."""
    from routing.matrix import Point

    ids = {w["id"] for _, w in named if w.get("id") is not None}
    locations = await map_waypoints(context, unit_map, ids)
    level_of = level_finder(unit_map)
    problems = FieldErrors() if errors is None else errors
    wgs84 = any(is_wgs84(w) for _, w in named)
    frame = await georeferenced(context, unit_map) if wgs84 else None
    placed: list[Point] = []
    for place, waypoint in named:
        if is_wgs84(waypoint):
            found = place_wgs84(problems, place, waypoint, frame, level_of)
            if found is not None:
                placed.append(Point(float(waypoint["x"]), float(waypoint["y"]), found))
            continue
        location = None
        if waypoint.get("id") is not None:
            location = locations.get(waypoint["id"])
            if location is None:
                problems.add(f"{place}.id", f"no location {waypoint['id']!r} on this map")
                continue
            _fill(problems, place, waypoint, location)
        floor = waypoint.get("floor_id")
        level = level_of(floor)
        if level is None:
            problems.add(f"{place}.floorId", f"floor {floor!r} is not a level of this map")
            continue
        placed.append(Point(float(waypoint["x"]), float(waypoint["y"]), level))
    if errors is None:
        problems.raise_if_any()
    return placed


async def georeferenced(context: RequestContext, unit_map: dict[str, Any]) -> MapFrame | None:
    """The map's WGS84 frame (`world.map_frame`), None when it is not georeferenced."""
    return await map_frame(context, unit_map, lambda: map_waypoints(context, unit_map, None))


def level_finder(unit_map: dict[str, Any]) -> Callable[[Any], int | None]:
    """A floor id's level on the map (its position, lowest 0), None when it is none of
    them; on a map of one level without a floor tag, every floor is that level."""
    levels = [level.get("floor_id") for level in unit_map.get("levels") or []]
    position = {floor: index for index, floor in enumerate(levels) if floor is not None}
    if levels == [None]:
        return lambda floor: 0
    return lambda floor: position.get(floor) if floor is not None else None


def location_points(
    unit_map: dict[str, Any], locations: dict[str, dict[str, Any]]
) -> dict[str, Point]:
    """Each location (`map_waypoints`) at its point on its first floor's level, by id, in
    the given order; one whose floor is no level of the map is left out."""
    from routing.matrix import Point

    level_of = level_finder(unit_map)
    found: dict[str, Point] = {}
    for id_, location in locations.items():
        level = level_of((location.get("floors") or [{}])[0].get("id"))
        if level is not None:
            found[id_] = Point(float(location["x"]), float(location["y"]), level)
    return found


def check_on_drawing(
    loaded: LoadedGraph, named: list[tuple[str, Waypoint]], points: list[Point]
) -> None:
    """Each ad-hoc waypoint (no location id) lies on its level's drawing (`drawn_box`),
    else 422 on the waypoint: a route is walked from it to its foot on the nearest walk
    line, and a point a billion units away made that leg a billion units long (issue 45).
    A waypoint of a level without walk paths joins nothing: it needs no bound."""
    errors = FieldErrors()
    for (place, waypoint), point in zip(named, points, strict=True):
        box = drawn_box(loaded, point.level)
        if waypoint.get("id") is not None or box is None:
            continue
        x0, y0, x1, y1 = box
        if not (x0 <= point.x <= x1 and y0 <= point.y <= y1):
            floor = waypoint.get("floor_id")
            errors.add(
                place,
                f"({point.x:g}, {point.y:g}) is off the drawing of floor {floor!r}: x must be "
                f"from {x0} to {x1} and y from {y0} to {y1}",
            )
    errors.raise_if_any()


def drawn_box(loaded: LoadedGraph, level: int) -> tuple[int, int, int, int] | None:
    """Where a waypoint of `level` may be, in whole canvas units: the box around the
    level's walk paths and connectors, widened by WAYPOINT_MARGIN_FT or by
    WAYPOINT_MARGIN_SHARE of its larger side, whichever is more; None without them."""
    box = loaded.level_boxes.get(level)
    if box is None:
        return None
    x0, y0, x1, y1 = box
    margin = max(
        WAYPOINT_MARGIN_FT / loaded.graph.feet_per_unit,
        WAYPOINT_MARGIN_SHARE * max(x1 - x0, y1 - y0),
    )
    margin = min(margin, 2 * MAX_COORDINATE)  # no waypoint is farther: a finite box
    return (
        math.floor(x0 - margin),
        math.floor(y0 - margin),
        math.ceil(x1 + margin),
        math.ceil(y1 + margin),
    )


async def map_waypoints(
    context: RequestContext, unit_map: dict[str, Any], ids: set[str] | None
) -> dict[str, dict[str, Any]]:
    """The map's locations that the request names (every one for None), by id: from the
    per-process cache when the map has a `locations_version`, else from the database."""
    if ids is not None and not ids:
        return {}
    map_id = unit_map["id"]
    version = unit_map.get("locations_version")
    if version is not None:
        # One entry per map and language (issue 51): a new version drops the map's older
        # ones in that language, never the other languages' current ones.
        cached = await context.services.waypoint_cache.get(
            f"{map_id}\0{names_key()}", version, lambda: load_waypoints(context.store, map_id)
        )
        wanted = cached if ids is None else ids
        return {id_: cached[id_] | {"_id": id_} for id_ in wanted if id_ in cached}
    query: dict[str, Any] = {"unit_map_id": map_id}
    if ids is not None:
        query["_id"] = {"$in": sorted(ids)}
    found = await cached_reads.find_list(
        context.store, c.LOCATIONS, query, BY_ID, projection=LOCATION_FIELDS
    )
    return {doc["_id"]: doc for doc in found}


def _fill(errors: FieldErrors, place: str, waypoint: Waypoint, location: dict[str, Any]) -> None:
    """Omitted fields come from the location; given ones must agree with it."""
    for key in ("x", "y"):
        if waypoint.get(key) is None:
            waypoint[key] = location[key]
        elif not _same(float(waypoint[key]), float(location[key])):
            at = location[key]
            errors.add(
                f"{place}.{key}", f"is {waypoint[key]}, but location {location['_id']!r} is at {at}"
            )
    floors = [floor["id"] for floor in location.get("floors", [])]
    if waypoint.get("floor_id") is None:
        waypoint["floor_id"] = floors[0] if floors else None
    elif waypoint["floor_id"] not in floors:
        on = ", ".join(floors)
        errors.add(
            f"{place}.floorId",
            f"is {waypoint['floor_id']!r}, but location {location['_id']!r} is on {on}",
        )
    if waypoint.get("name") is None:
        waypoint["name"] = location.get("name")


async def distance_matrix(
    context: RequestContext, map_id: str, data: dict[str, Any]
) -> dict[str, Any]:
    from routing.costs import profile_speed
    from routing.levels import stored_heights
    from routing.matrix import euclidean_matrix

    caller = await context.caller()
    request = _checked_input(map_id, data)
    unit_map = await visible_map(context, caller, map_id)
    graph_file = unit_map.get("graph_file")
    if request.method == "pathfinding" and not graph_file:
        raise invalid(
            {
                "input.distanceMethod": [
                    "this map is not processed for pathfinding (it has no walk paths)"
                ]
            }
        )
    points = await _placed(context, unit_map, request)
    sources, targets = points[: len(request.sources)], points[len(request.sources) :]
    use_graph = graph_file is not None and request.method != "euclidean"
    profile = request.costing.profile()
    if use_graph:
        loaded = await map_graph(context, unit_map)
        check_on_drawing(loaded, _named(request), points)
        profile = request.costing.profile((await closed_edges(context, unit_map, loaded)).edges)
        cells = await on_graph(loaded, loaded.matrix, profile, sources, targets, stoppable=True)
    else:
        cells = euclidean_matrix(
            sources,
            targets,
            unit_map.get("feet_per_unit") or 1.0,
            floor_height_of(context, unit_map),
            profile_speed(context.settings.routing_costs, profile),
            stored_heights(unit_map.get("levels") or []),
        )
    return _answer("pathfinding" if use_graph else "euclidean", request, cells)


async def map_graph(context: RequestContext, unit_map: dict[str, Any]) -> LoadedGraph:
    """The map's walk graph, ready for queries (per-process cache by graph version)."""
    graph_file = unit_map["graph_file"]
    floor_height = floor_height_of(context, unit_map)
    return await context.services.graph_cache.get(
        unit_map["id"],
        (graph_file, floor_height),
        lambda: load_graph(context.store, context.settings, graph_file, floor_height),
    )


def floor_height_of(context: RequestContext, unit_map: dict[str, Any]) -> float:
    return unit_map.get("floor_height_ft") or context.settings.routing_costs.floor_height_ft


def rounded(value: float) -> float:
    return round(value, 2)


def _answer(method: str, request: Request, cells: list[list[Cell]]) -> dict[str, Any]:
    """Sources in request order, each with every target in request order."""

    def echo(waypoint: Waypoint, index: int) -> dict[str, Any]:
        return {**{key: waypoint.get(key) for key in ECHOED}, "index": index}

    sources = []
    for i, source in enumerate(request.sources):
        targets = []
        for j, target in enumerate(request.targets):
            cell = cells[i][j]
            targets.append(
                {
                    **echo(target, j),
                    "distance": None if cell is None else rounded(cell[0]),
                    "time": None if cell is None else rounded(cell[1]),
                }
            )
        sources.append({**echo(source, i), "targets": targets})
    return {"distance_method": method, "sources": sources}
