"""Directions (`route`, `POST /v1/unitmaps/{id}/route`): the route between two
waypoints, its legs per level, the connectors taken, its maneuvers (turns, landmarks,
arrival side: `routing.maneuvers`) and their sentences (`instructions`), which are also
the `steps`.

Access (flag `directions`, permission `service.distances.calculate`) was checked by
the field's permission class. Then the order of E18: input (422), the map (404), the
waypoints against the map (422), then the answer. A pair that no walk path joins is
an answer, not an error: `route` is null and `reason` says why. The route is the one
E18 measures (`routing.route`), so its distance and time equal E18's. A `to` that names
candidates (`nearest`) is first made the chosen one's id (`nearest.choose`).
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from resolvers.context import RequestContext
from resolvers.errors import FieldErrors
from resolvers.reads import visible_map
from resolvers.validation import check_id
from resolvers.wayfinding.answers import Directions, LegConnector, RouteLeg, RouteManeuver
from resolvers.wayfinding.answers import Route as RouteAnswer
from resolvers.wayfinding.distances import (
    ECHOED,
    Waypoint,
    check_choice,
    check_on_drawing,
    check_waypoint,
    georeferenced,
    map_graph,
    on_graph,
    place_waypoints,
    rounded,
)
from resolvers.wayfinding.instructions import UNITS, Words, instruction
from resolvers.wayfinding.landmarks import map_places
from resolvers.wayfinding.nearest import Choice, Wanted, check_nearest, choose
from resolvers.wayfinding.route_geojson import route_geojson
from resolvers.wayfinding.world import NOT_GEOREFERENCED

if TYPE_CHECKING:  # routing is imported by the functions that need it
    from routing.maneuvers import Maneuver
    from routing.matrix import LoadedGraph
    from routing.route import Route

MODE_WORDS = {"foot": "on foot", "wheelchair": "by wheelchair"}
GEOMETRIES = ("geojson",)  # what `geometry` may ask the route as, besides its canvas legs


def _checked(
    map_id: str,
    start: Waypoint,
    end: Waypoint,
    mode: str | None,
    units: str | None,
    geometry: str | None,
) -> tuple[str, str, Wanted | None]:
    """Everything that can be checked without the database; the mode's and the length
    unit's names, and the candidates `to` names, if it does."""
    from routing.model import MODES

    errors = FieldErrors()
    check_id(errors, "unitMapId", map_id)
    check_waypoint(errors, "from", start)
    wanted = None
    if end.get("nearest") is not None:
        wanted = check_nearest(errors, end)
    else:
        check_waypoint(errors, "to", end)
    check_choice(errors, "mode", mode, tuple(MODES))
    check_choice(errors, "units", units, UNITS)
    check_choice(errors, "geometry", geometry, GEOMETRIES)
    errors.raise_if_any()
    return mode or "foot", units or "imperial", wanted


async def directions(
    context: RequestContext,
    map_id: str,
    start: Waypoint,
    end: Waypoint,
    mode: str | None,
    units: str | None = None,
    geometry: str | None = None,
) -> Directions:
    from routing.maneuvers import route_with_maneuvers
    from routing.model import MODES
    from routing.route import Unreachable

    caller = await context.caller()
    start, end = dict(start), dict(end)
    mode_name, units_name, wanted = _checked(map_id, start, end, mode, units, geometry)
    unit_map = await visible_map(context, caller, map_id)
    problems = FieldErrors()
    frame = await georeferenced(context, unit_map) if geometry is not None else None
    if geometry is not None and frame is None:
        problems.add("geometry", NOT_GEOREFERENCED)
    choice = None
    if wanted is not None:
        choice = await choose(context, unit_map, start, wanted, mode_name)
        end = {"id": choice.location_id}  # as if the client had asked for it
    named = [("from", start), ("to", end)]
    points = await place_waypoints(context, unit_map, named, problems)
    problems.raise_if_any()
    answer: Directions = {
        "mode": mode_name,
        "from_": _echo(start),
        "to": _echo(end),
        "route": None,
        "reason": None,
    }
    if not unit_map.get("graph_file"):
        answer["reason"] = "this map has no walk paths (it is not processed for pathfinding)"
        return answer
    loaded = await map_graph(context, unit_map)
    check_on_drawing(loaded, named, points)
    if choice is not None and not choice.reachable:
        answer["reason"] = _unchosen(choice, mode_name)
        return answer
    places = await map_places(context, unit_map, loaded)
    skip = frozenset(str(w["id"]) for w in (start, end) if w.get("id") is not None)
    found = await on_graph(
        loaded,
        route_with_maneuvers,
        loaded,
        MODES[mode_name],
        *points,
        places,
        skip,
        stoppable=True,
    )
    if isinstance(found, Unreachable):
        answer["reason"] = _reason(found, mode_name)
        return answer
    route, maneuvers = found
    floors = await _floor_names(context, unit_map)
    graph = loaded.graph

    def level_name(level: int) -> str:
        floor_id = graph.level_floors[level]
        return floors.get(floor_id or "", floor_id or graph.level_uids[level])

    words = Words(start.get("name"), end.get("name"), level_name, units_name)
    made = _route(loaded, route, maneuvers, words)
    if frame is not None:  # asked for: made when `geojson` is selected (schema Route)
        made["geojson_of"] = partial(route_geojson, made, frame, unit_map["id"])
    answer["route"] = made
    return answer


def _echo(waypoint: Waypoint) -> dict[str, Any]:
    return {key: waypoint.get(key) for key in ECHOED}


def _reason(why: Any, mode_name: str) -> str:
    from routing.route import Unreachable

    how = MODE_WORDS[mode_name]
    return {
        Unreachable.START_OFF_GRAPH: f"no walk path usable {how} on the start's level",
        Unreachable.END_OFF_GRAPH: f"no walk path usable {how} on the destination's level",
        Unreachable.DISCONNECTED: f"no walk path usable {how} joins the start and the destination",
    }[why]


def _unchosen(choice: Choice, mode_name: str) -> str:
    """Why no candidate has a route: the start joins no walk path, or none leads to one."""
    from routing.route import Unreachable

    if not choice.start_joins:
        return _reason(Unreachable.START_OFF_GRAPH, mode_name)
    return f"no candidate is reachable {MODE_WORDS[mode_name]} from the start"


async def _floor_names(context: RequestContext, unit_map: dict[str, Any]) -> dict[str, str]:
    """Floor id -> name, for the steps ("Take the elevator to Floor 3")."""
    asset_id = unit_map.get("asset_id")
    if asset_id is None:
        return {}
    floors = await context.loaders.floors_by_asset.load(asset_id)
    return {floor["id"]: floor.get("name") or floor["id"] for floor in floors}


def _route(
    loaded: LoadedGraph, route: Route, maneuvers: list[Maneuver], words: Words
) -> RouteAnswer:
    from routing.model import CONNECTOR_NAMES

    graph = loaded.graph
    uids, floor_ids = graph.level_uids, graph.level_floors
    legs: list[RouteLeg] = []
    for index, leg in enumerate(route.legs):
        ride = route.rides[index] if index < len(route.rides) else None
        connector: LegConnector | None = None
        if ride is not None:
            connector = {
                "id": ride.connector_id,
                "kind": CONNECTOR_NAMES[ride.kind],
                "x": ride.at[0],
                "y": ride.at[1],
                "from_level_uid": uids[ride.from_level],
                "to_level_uid": uids[ride.to_level],
                "from_floor_id": floor_ids[ride.from_level],
                "to_floor_id": floor_ids[ride.to_level],
                "distance": rounded(ride.feet),
                "time": rounded(ride.seconds),
            }
        legs.append(
            {
                "level_uid": uids[leg.level],
                "floor_id": floor_ids[leg.level],
                "points": [{"x": x, "y": y} for x, y in leg.points],
                "distance": rounded(leg.feet),
                "time": rounded(leg.seconds),
                "connector": connector,
            }
        )
    told = [_maneuver(m, route, legs, words) for m in maneuvers]
    return {
        "distance": rounded(route.feet),
        "time": rounded(route.seconds),
        "legs": legs,
        "maneuvers": told,
        "steps": [m["instruction"] for m in told],
    }


def _maneuver(
    maneuver: Maneuver, route: Route, legs: list[RouteLeg], words: Words
) -> RouteManeuver:
    landmark = maneuver.landmark
    side = maneuver.side
    # The words as plain `str` (not their enums): what the executors pass on unchanged.
    return {
        "type": maneuver.type.value,
        "modifier": None if maneuver.modifier is None else maneuver.modifier.value,
        "bearing_before": maneuver.bearing_before,
        "bearing_after": maneuver.bearing_after,
        "location": {"x": maneuver.location[0], "y": maneuver.location[1]},
        "leg_index": maneuver.leg_index,
        "point_index": maneuver.point_index,
        "distance": maneuver.distance,
        "time": maneuver.time,
        "landmark": None
        if landmark is None
        else {
            "unit_id": landmark.unit_id,
            "location_id": landmark.location_id,
            "name": landmark.name,
        },
        "side": None if side is None else side.value,
        "connector": None if maneuver.ride is None else legs[maneuver.ride]["connector"],
        "instruction": instruction(maneuver, route, words),
    }
