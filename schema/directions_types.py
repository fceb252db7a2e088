"""GraphQL types of directions (`route`, experimental flag `directions`).

Plain fields resolve straight from the dicts `resolvers.wayfinding.directions` returns.
The descriptions of a maneuver's words are written from their table, `routing.vocabulary`.
"""

from typing import Any

import strawberry
from strawberry.scalars import JSON

from routing.vocabulary import TURNS, TYPES, ManeuverType, Side
from schema.decorators import field
from schema.scalars import Timestamp


def listed(items: list[str]) -> str:
    """Words as a description names them: "a, b or c"."""
    return f"{', '.join(items[:-1])} or {items[-1]}" if len(items) > 1 else items[0]


def quoted(words: list[str]) -> list[str]:
    """Each word as code."""
    return [f"`{word}`" for word in words]


def types_description() -> str:
    """Each type, with what its row notes of it."""
    noted = [f"`{kind}` ({row.note})" if row.note else f"`{kind}`" for kind, row in TYPES.items()]
    return listed(noted) + "."


def modifier_description() -> str:
    """The modifiers, and the turn rule's bands by size, from the rows turning right or
    about: "20-60 slight, ..., beyond U-turn"."""
    bands = sorted(
        ((found, row.band) for row in TURNS.values() for found in row.changes if found.low >= 0),
        key=lambda band: band[0].low,
    )
    sized = [
        f"beyond {band}" if found.high == 180 else f"{found.low:g}-{found.high:g} {band}"
        for found, band in bands
    ]
    return (
        f"For a turn: {listed(quoted(list(TURNS)))}, from d = bearingAfter - bearingBefore in "
        f"(-180, 180], positive right: {', '.join(sized)}. Null for the other types."
    )


@strawberry.type(description="A waypoint of a route as requested (filled from its location).")
class RouteWaypoint:
    id: strawberry.ID | None
    name: str | None
    x: float
    y: float
    floor_id: strawberry.ID | None


@strawberry.type(description="A point in the map's canvas coordinates.")
class RoutePoint:
    x: float
    y: float


@strawberry.type(
    description="A connector taken between two legs: stairs, elevator, ramp or "
    "escalator, from one level to another (several floors in one ride), or a door "
    "between two levels of one height (an IMDF venue's levels sharing an ordinal)."
)
class RouteConnector:
    id: str | None = strawberry.field(
        description="Its `data-connector-id`; null for a map "
        "processed before connectors were named."
    )
    kind: str = strawberry.field(description="`stairs`, `elevator`, `ramp`, `escalator` or `door`.")
    x: float = strawberry.field(description="Where it is entered, canvas x.")
    y: float = strawberry.field(description="Where it is entered, canvas y.")
    from_level_uid: str
    to_level_uid: str
    from_floor_id: strawberry.ID | None
    to_floor_id: strawberry.ID | None
    distance: float = strawberry.field(description="Feet, as E18 counts a ride.")
    time: float = strawberry.field(description="Seconds (an elevator's includes its wait).")


@strawberry.type(description="One stretch of a route on one level.")
class RouteLeg:
    level_uid: str = strawberry.field(description="The `uid` of the parsed document's Level.")
    floor_id: strawberry.ID | None = strawberry.field(description="That level's `floor` tag.")
    points: list[RoutePoint] = strawberry.field(
        description="The polyline walked, canvas coordinates: from the leg's start (a "
        "waypoint or a connector) through the drawn walk lines to its end."
    )
    distance: float = strawberry.field(description="Feet: the polyline's length.")
    time: float = strawberry.field(description="Seconds.")
    connector: RouteConnector | None = strawberry.field(
        description="The connector taken at the end of this leg; null on the last leg."
    )


@strawberry.type(description="A named place near a maneuver (docs/routing.md, Maneuvers).")
class RouteLandmark:
    unit_id: strawberry.ID | None = strawberry.field(
        description="The unit the place stands for (its location's `svc:id` tag); null for "
        "a place that is no unit, such as an amenity."
    )
    location_id: strawberry.ID = strawberry.field(description="The place's location.")
    name: str = strawberry.field(description="The location's name.")


@strawberry.type(
    description='A turn told with the turn before it, within 30 ft ("turn left, then turn '
    'right"): no two turns are steps of their own closer than that (docs/routing.md, '
    "Maneuvers)."
)
class RouteThen:
    modifier: str = strawberry.field(description="As a turn's `modifier`.")
    bearing_before: int = strawberry.field(
        description="As a turn's, windows cut at the maneuvers and turns around it."
    )
    bearing_after: int = strawberry.field(description="Likewise, after it.")
    location: RoutePoint = strawberry.field(
        description="Where it is: legs[legIndex].points[pointIndex] of its maneuver's leg."
    )
    point_index: int = strawberry.field(description="Its point in that leg's `points`.")


@strawberry.type(
    description="One maneuver of a route, in walking order (OSRM's vocabulary; "
    "docs/routing.md, Maneuvers)."
)
class RouteManeuver:
    type: str = strawberry.field(description=types_description())
    modifier: str | None = strawberry.field(description=modifier_description())
    bearing_before: int = strawberry.field(
        description="Degrees 0-359 clockwise from canvas up (-y) of the walk just before: "
        "the chord of the 10 ft of route (map scale) before the maneuver, or back to the "
        "previous maneuver when closer. 0 for `depart` and where nothing was walked."
    )
    bearing_after: int = strawberry.field(
        description="Likewise of the walk just after (for a connector, from where it is "
        "left). 0 for `arrive`."
    )
    location: RoutePoint = strawberry.field(
        description="Where it is, canvas coordinates: legs[legIndex].points[pointIndex]."
    )
    leg_index: int = strawberry.field(description="The leg the maneuver is on.")
    point_index: int = strawberry.field(description="Its point in that leg's `points`.")
    distance: float = strawberry.field(
        description="Feet from this maneuver to the next; for `arrive`, what is left to the "
        "destination (0, or the few feet into it when it is arrived at beside the last "
        "turn: `side`). Two decimals that add up to the route's distance exactly."
    )
    time: float = strawberry.field(
        description="Seconds, likewise; they add up to the route's time."
    )
    landmark: RouteLandmark | None = strawberry.field(
        description="For a turn: the named place within 30 ft a person would name, the one "
        "ahead at the turn, else the nearest one the route passes; else null."
    )
    side: str | None = strawberry.field(
        description=f"For `{ManeuverType.ARRIVE}`: {listed(quoted(list(Side)))} when the "
        "destination lies beside the walk; else null."
    )
    connector: RouteConnector | None = strawberry.field(
        description="For `connector`: the connector taken (its leg's `connector`)."
    )
    then: list[RouteThen] = strawberry.field(
        description="For a turn: the turns within 30 ft after it, told in its instruction "
        '("turn left at Atrium, then turn right") rather than as steps of their own, in '
        "walking order; empty otherwise."
    )
    via_index: int | None = strawberry.field(
        description="For the `arrive` at a stop of a route with `via`: the stop's index in "
        "`via` (a `depart` follows); null elsewhere."
    )
    instruction: str = strawberry.field(
        description='The sentence: "Walk 40 ft, then turn slightly right", "Turn left at '
        'Fitness Center", "Take the elevator up to Floor 3", "Arrive at Unit 307 on your '
        "right\"; lengths in the request's `units`."
    )


@strawberry.type(description="A route: the quickest by time, as E18 measures it.")
class Route:
    distance: float = strawberry.field(description="Feet; equals E18 pathfinding's distance.")
    time: float = strawberry.field(description="Seconds; equals E18 pathfinding's time.")
    legs: list[RouteLeg]
    maneuvers: list[RouteManeuver] = strawberry.field(
        description="Depart, turns, connectors and arrive, in walking order."
    )
    steps: list[str] = strawberry.field(description="The maneuvers' instructions, in order.")

    @field(
        description='With `geometry: "geojson"` on a georeferenced map: the route as an '
        "RFC 7946 FeatureCollection in WGS84, one LineString per leg (`leg_index`, `floor_id`, "
        "`level`, `distance`, `time`), one Point per connector and per maneuver (`type`, "
        "`modifier`, `instruction`), 7 decimals; the fit's residuals in `floorgate` "
        "(docs/geojson.md). Made only when selected; null without `geometry`."
    )
    def geojson(self, root: strawberry.Parent[dict[str, Any]]) -> JSON | None:
        make = root.get("geojson_of")
        return None if make is None else JSON(make())


@strawberry.type(description="Directions between two waypoints of a map (experimental).")
class Directions:
    mode: str = strawberry.field(description="`foot` or `wheelchair`.")
    from_: RouteWaypoint = strawberry.field(name="from")
    to: RouteWaypoint
    route: Route | None = strawberry.field(
        description="Null when no walk path usable in the mode joins the two waypoints."
    )
    reason: str | None = strawberry.field(description="Why `route` is null; null when it is not.")
    via: list[RouteWaypoint] | None = strawberry.field(
        description="The stops as asked (`via`), in the request's order; null without stops."
    )
    visit_order: list[int] | None = strawberry.field(
        description="The stops' indexes in `via`, in the order the route visits them (the "
        "given order unless `optimize`); null without stops."
    )
    optimized: str | None = strawberry.field(
        description="With `optimize`: `exact` (the least total time of every order, up to 8 "
        "stops) or `heuristic` (beyond); null otherwise."
    )
    closures: list["Closure"] = strawberry.field(
        description="The closures in force that close a place the route starts at, stops "
        "at or goes to (a closed shop is walked to its door), and every closure `reason` "
        "names (those in the way of a route not found, those closing every `nearest` "
        "candidate): find them here by id, never in the reason's words; empty when none."
    )


# Closures (issue 50, docs/routing.md "Closures"): a connector or unit of a map that no
# route, E18 answer or `nearest` uses while it is in force; fields resolve straight from
# the dicts `resolvers.wayfinding.closure_fields` returns.
@strawberry.type(
    description="A closed connector or unit of a map: no route passes it until `until` "
    "(or until reopened). Only closures in force are listed."
)
class Closure:
    unit_map_id: strawberry.ID
    kind: str = strawberry.field(description="`connector` or `unit`.")
    connector_id: strawberry.ID | None = strawberry.field(
        description="The connector's `data-connector-id` (kind `connector`), else null."
    )
    unit_id: strawberry.ID | None = strawberry.field(
        description="The unit's id (kind `unit`), else null."
    )
    connector_kind: str | None = strawberry.field(
        description="`elevator`, `stairs`, `escalator`, `ramp` or `door` (kind `connector`)."
    )
    name: str | None = strawberry.field(
        description="The unit's name, or the name of the place a connector stands for, when known."
    )
    until: Timestamp | None = strawberry.field(
        description="When it ends by itself (UTC, whole seconds); null: until reopened."
    )
    reason: str | None = strawberry.field(description="Why, as the operator wrote it.")
