"""Directions (`route`, `POST /v1/unitmaps/{id}/route`): the route between two
waypoints, its legs per level, the connectors taken, its maneuvers (turns, landmarks,
arrival side: `routing.maneuvers`) and their sentences (`instructions`), which are also
the `steps`.

Access (flag `directions`, permission `service.distances.calculate`) was checked by
the field's permission class. Then the order of E18: input (422), the map (404), the
waypoints against the map (422), then the answer. A pair that no walk path joins is
an answer, not an error: `route` is null and `reason` says why (naming the connector
kinds `exclude` forbids when the route would exist without them). The route is the one
E18 measures (`routing.route`) in the same costing options (`costing`), so its distance
and time equal E18's. A `to` that names candidates (`nearest`) is first made the chosen
one's id (`nearest.choose`), chosen in the same options.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from resolvers.context import RequestContext
from resolvers.errors import FieldErrors
from resolvers.limits import PATH_SEARCH_COST
from resolvers.reads import visible_map
from resolvers.validation import check_id
from resolvers.wayfinding.answers import Directions, LegConnector, RouteLeg, RouteManeuver
from resolvers.wayfinding.answers import Route as RouteAnswer
from resolvers.wayfinding.closures import (
    ActiveClosure,
    Closed,
    as_api,
    closed_places,
    closure_words,
    closures_in_the_way,
    profile_closed,
)
from resolvers.wayfinding.costing import Costing, avoided_words, check_costing
from resolvers.wayfinding.distances import (
    ECHOED,
    Waypoint,
    check_choice,
    check_on_drawing,
    check_waypoint,
    georeferenced,
    map_graph,
    place_waypoints,
    rounded,
)
from resolvers.wayfinding.graph_cache import on_graph
from resolvers.wayfinding.instructions import UNITS, Words, instruction
from resolvers.wayfinding.landmarks import map_places
from resolvers.wayfinding.nearest import Choice, Wanted, check_nearest, choose
from resolvers.wayfinding.route_geojson import route_geojson
from resolvers.wayfinding.via import check_via, joined, visit_order
from resolvers.wayfinding.world import NOT_GEOREFERENCED
from routing.vocabulary import ENGLISH, Language, language_of

if TYPE_CHECKING:  # routing is imported by the functions that need it
    from routing.maneuvers import Maneuver
    from routing.matrix import LoadedGraph, Point
    from routing.profile import Profile
    from routing.route import Route

MODE_WORDS = {"foot": "on foot", "wheelchair": "by wheelchair"}
# Why there is no route (`routing.route.Unreachable`'s values), `how`: MODE_WORDS; a
# DISCONNECTED pair that the excluded kinds part ends with " without " and their words.
REASONS = {
    "start-off-graph": "no walk path usable {how} on the start's level",
    "end-off-graph": "no walk path usable {how} on the destination's level",
    "disconnected": "no walk path usable {how} joins the start and the destination",
    "no-candidate": "no candidate is reachable {how} from the start",
    "no-open-candidate": "no candidate is open",
}
WITHOUT = " without {kinds}"
GEOMETRIES = ("geojson",)  # what `geometry` may ask the route as, besides its canvas legs


def _checked(
    map_id: str,
    start: Waypoint,
    end: Waypoint,
    mode: str | None,
    units: str | None,
    geometry: str | None,
    costing_options: dict[str, Any] | None,
    via: list[Waypoint] | None = None,
    optimize: bool | None = None,
) -> tuple[Costing, str | None, Wanted | None]:
    """Everything that can be checked without the database; the costing options (the
    mode's among them: `mode`, else the options' own), the length unit's name, and the
    candidates `to` names, if it does."""
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
    pedestrian = (costing_options or {}).get("pedestrian")
    costing = check_costing(errors, "costingOptions.pedestrian", pedestrian, mode)
    check_via(errors, via, optimize)
    errors.raise_if_any()
    return costing, units, wanted


async def directions(
    context: RequestContext,
    map_id: str,
    start: Waypoint,
    end: Waypoint,
    mode: str | None,
    units: str | None = None,
    geometry: str | None = None,
    costing_options: dict[str, Any] | None = None,
    via: list[Waypoint] | None = None,
    optimize: bool | None = None,
) -> Directions:
    from routing.trip import Broken, plan_trip

    caller = await context.caller()
    start, end = dict(start), dict(end)
    stops = None if via is None else [dict(stop) for stop in via]
    costing, units, wanted = _checked(
        map_id, start, end, mode, units, geometry, costing_options, stops, optimize
    )
    # The request's language (issue 51): its sentences, and its length unit unless asked.
    language = context.language
    says = language_of(language.tag) if language is not None else ENGLISH
    units_name = units or ("metric" if language is not None and language.metric else "imperial")
    mode_name = costing.mode
    profile = costing.profile()
    unit_map = await visible_map(context, caller, map_id)
    problems = FieldErrors()
    frame = await georeferenced(context, unit_map) if geometry is not None else None
    if geometry is not None and frame is None:
        problems.add("geometry", NOT_GEOREFERENCED)
    choice = None
    if wanted is not None:
        choice = await choose(context, unit_map, start, wanted, profile)
        end = {"id": choice.location_id}  # as if the client had asked for it
    named = [
        ("from", start),
        *((f"via.{i}", stop) for i, stop in enumerate(stops or ())),
        ("to", end),
    ]
    points = await place_waypoints(context, unit_map, named, problems)
    problems.raise_if_any()
    answer: Directions = {
        "mode": mode_name,
        "from_": _echo(start),
        "to": _echo(end),
        "route": None,
        "reason": None,
        "via": None if stops is None else [_echo(stop) for stop in stops],
        "visit_order": None,
        "optimized": None,
        "closures": [],
    }
    if not unit_map.get("graph_file"):
        answer["reason"] = "this map has no walk paths (it is not processed for pathfinding)"
        return answer
    walked = None if choice is None else choice.walked  # the choice's graph and closures
    loaded = await map_graph(context, unit_map) if walked is None else walked.loaded
    check_on_drawing(loaded, named, points)
    if walked is None:
        profile, closed = await profile_closed(context, unit_map, loaded, profile)
    else:
        profile, closed = walked.profile, walked.closed
    at_waypoints = await _closed_waypoints(context, unit_map, closed, named)
    answer["closures"] = [as_api(each, unit_map["id"]) for each in at_waypoints]
    if choice is not None and not choice.reachable:
        why = await _unchosen(context, loaded, profile, closed, choice, mode_name, points[0])
        answer["reason"] = why.text
        answer["closures"] = _listed(closed, at_waypoints, why.closures, unit_map["id"])
        return answer
    places = await map_places(context, unit_map, loaded)
    waypoints = [waypoint for _, waypoint in named]
    skip = frozenset(str(w["id"]) for w in waypoints if w.get("id") is not None)
    found = await on_graph(
        loaded, plan_trip, loaded, profile, points, bool(optimize), places, skip, stoppable=True
    )
    if isinstance(found, Broken):
        a, b = found.order[found.part], found.order[found.part + 1]
        told = REASONS[str(found.why)].format(how=MODE_WORDS[mode_name])
        pair = [points[a], points[b]]
        why = await _why_not(context, loaded, profile, closed, found.why, pair, told)
        reason = why.text
        if stops is not None:
            reason += f" (between {_named_point(named, a)} and {_named_point(named, b)})"
        answer["reason"] = reason
        answer["closures"] = _listed(closed, at_waypoints, why.closures, unit_map["id"])
        return answer
    floors = await _floor_names(context, unit_map)
    graph = loaded.graph

    def level_name(level: int) -> str:
        floor_id = graph.level_floors[level]
        return floors.get(floor_id or "", floor_id or graph.level_uids[level])

    parts = []
    for number, (route, maneuvers) in enumerate(found.parts):
        a, b = found.order[number], found.order[number + 1]
        words = Words(waypoints[a].get("name"), waypoints[b].get("name"), level_name, units_name)
        parts.append(_route(loaded, route, maneuvers, words, says))
    if stops is None:
        made = parts[0]
    else:
        visited = visit_order(found)
        answer["visit_order"], answer["optimized"] = visited, found.optimized
        made = joined(parts, visited)
    if frame is not None:  # asked for: made when `geojson` is selected (schema Route)
        made["geojson_of"] = partial(route_geojson, made, frame, unit_map["id"])
    answer["route"] = made
    return answer


@dataclass(frozen=True)
class _Why:
    """Why there is no route, in words, and the closures those words name (an answer
    lists them as data: a client finds them by id, never in the text)."""

    text: str
    closures: tuple[ActiveClosure, ...] = ()


def _listed(
    closed: Closed,
    at_waypoints: list[ActiveClosure],
    in_the_way: tuple[ActiveClosure, ...],
    map_id: str,
) -> list[dict[str, Any]]:
    """An answer's `closures`: those at its waypoints and those in its way, once each, in
    the order of the closures in force."""
    listed = set(at_waypoints) | set(in_the_way)
    return [as_api(each, map_id) for each in closed.closures if each in listed]


def _named_point(named: list[tuple[str, Waypoint]], index: int) -> str:
    """A point of a trip as the request names it: `from`, `via.2`, `to`."""
    return named[index][0]


def _echo(waypoint: Waypoint) -> dict[str, Any]:
    return {key: waypoint.get(key) for key in ECHOED}


async def _why_not(
    context: RequestContext,
    loaded: LoadedGraph,
    profile: Profile,
    closed: Closed,
    why: Any,
    points: list[Point],
    told: str,
) -> _Why:
    """Why there is no route between `points` (`told`), with what alone stands in its way
    when a route in the same mode joins them without it: the excluded kinds of which the
    mode could use an edge ("... without stairs and elevators": not escalators in a
    building without any, nor stairs by wheelchair, which the mode's words tell), else
    the closures that a route found without closures needs ("...: the elevator Lift A is
    closed until 14:00 UTC"). Each such search is charged after it ran (`worked`)."""
    from routing.profile import usable_kinds
    from routing.route import Unreachable, find_route

    if why != Unreachable.DISCONNECTED:
        return _Why(told)
    if profile.excluded:
        free = profile.without(profile.excluded)
        context.worked(PATH_SEARCH_COST)
        found = await on_graph(loaded, find_route, loaded, free, *points, stoppable=True)
        if not isinstance(found, Unreachable):
            kinds = usable_kinds(loaded.graph, profile, profile.excluded)
            return _Why(told + WITHOUT.format(kinds=avoided_words(kinds or profile.excluded)))
    if closed.closures:
        free = profile.without(closed=True)
        context.worked(PATH_SEARCH_COST)
        found = await on_graph(loaded, find_route, loaded, free, *points, stoppable=True)
        if not isinstance(found, Unreachable):
            needed = closures_in_the_way(closed, found, loaded.graph)
            return _Why(f"{told}: " + "; ".join(closure_words(each) for each in needed), needed)
    return _Why(told)


async def _unchosen(
    context: RequestContext,
    loaded: LoadedGraph,
    profile: Profile,
    closed: Closed,
    choice: Choice,
    mode_name: str,
    start: Point,
) -> _Why:
    """Why no candidate has a route: the start joins no walk path, or none leads to one
    (naming what stands in the way of the one that would be quickest without it)."""
    from routing.route import Unreachable

    how = MODE_WORDS[mode_name]
    if choice.closed:
        told = REASONS["no-open-candidate"]
        words = "; ".join(closure_words(each) for each in choice.closed)
        return _Why(f"{told}: {words}", choice.closed)
    if not choice.start_joins:
        return _Why(REASONS[str(Unreachable.START_OFF_GRAPH)].format(how=how))
    told = REASONS["no-candidate"].format(how=how)
    if choice.freed is None:
        return _Why(told)
    pair = [start, choice.freed]
    return await _why_not(context, loaded, profile, closed, Unreachable.DISCONNECTED, pair, told)


async def _closed_waypoints(
    context: RequestContext,
    unit_map: dict[str, Any],
    closed: Closed,
    named: list[tuple[str, Waypoint]],
) -> list[ActiveClosure]:
    """The closures in force that close a place the route starts at, stops at or goes
    to, in their order (issue 66: a route to a closed shop reaches its door and says it
    is closed)."""
    shut = await closed_places(context, unit_map, closed)
    ids = {str(waypoint["id"]) for _, waypoint in named if waypoint.get("id") is not None}
    found = dict.fromkeys(each for id_ in sorted(ids & shut.keys()) for each in shut[id_])
    return [each for each in closed.closures if each in found]


async def _floor_names(context: RequestContext, unit_map: dict[str, Any]) -> dict[str, str]:
    """Floor id -> name, for the steps ("Take the elevator to Floor 3")."""
    asset_id = unit_map.get("asset_id")
    if asset_id is None:
        return {}
    floors = await context.loaders.floors_by_asset.load(asset_id)
    return {floor["id"]: floor.get("name") or floor["id"] for floor in floors}


def _route(
    loaded: LoadedGraph,
    route: Route,
    maneuvers: list[Maneuver],
    words: Words,
    says: Language = ENGLISH,
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
    told = [_maneuver(m, route, legs, words, says) for m in maneuvers]
    return {
        "distance": rounded(route.feet),
        "time": rounded(route.seconds),
        "legs": legs,
        "maneuvers": told,
        "steps": [m["instruction"] for m in told],
    }


def _maneuver(
    maneuver: Maneuver, route: Route, legs: list[RouteLeg], words: Words, says: Language
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
        "via_index": None,
        "instruction": instruction(maneuver, route, words, says),
        "then": [
            {
                "modifier": told.modifier.value,
                "bearing_before": told.bearing_before,
                "bearing_after": told.bearing_after,
                "location": {"x": told.location[0], "y": told.location[1]},
                "point_index": told.point_index,
            }
            for told in maneuver.then
        ],
    }
