"""GraphQL types of directions (`route`, experimental flag `directions`).

Plain fields resolve straight from the dicts `resolvers.wayfinding.directions` returns.
"""

import strawberry


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
    "escalator, from one level to another (several floors in one ride)."
)
class RouteConnector:
    id: str | None = strawberry.field(
        description="Its `data-connector-id`; null for a map "
        "processed before connectors were named."
    )
    kind: str = strawberry.field(description="`stairs`, `elevator`, `ramp` or `escalator`.")
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


@strawberry.type(description="A route: the quickest by time, as E18 measures it.")
class Route:
    distance: float = strawberry.field(description="Feet; equals E18 pathfinding's distance.")
    time: float = strawberry.field(description="Seconds; equals E18 pathfinding's time.")
    legs: list[RouteLeg]
    steps: list[str] = strawberry.field(
        description='Plain-language steps: "Walk 120 ft", "Take the elevator to Floor 3", '
        '"Arrive at Fitness Center".'
    )


@strawberry.type(description="Directions between two waypoints of a map (experimental).")
class Directions:
    mode: str = strawberry.field(description="`foot` or `wheelchair`.")
    from_: RouteWaypoint = strawberry.field(name="from")
    to: RouteWaypoint
    route: Route | None = strawberry.field(
        description="Null when no walk path usable in the mode joins the two waypoints."
    )
    reason: str | None = strawberry.field(description="Why `route` is null; null when it is not.")
