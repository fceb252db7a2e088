"""The shapes of a directions answer as they travel from the resolver to both faces
(`directions.directions`): a route, its legs and connectors, its maneuvers. Plain dicts
at run time (the executors read them as any resolver's), typed for the checker; the
schema's `directions_types` describes the same fields to clients."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NotRequired, TypedDict


class Point(TypedDict):
    x: float
    y: float


class LegConnector(TypedDict):
    """A connector a leg ends with: where it is taken and between which levels."""

    id: str | None  # None in graphs stored before connectors were named
    kind: str
    x: float
    y: float
    from_level_uid: str
    to_level_uid: str
    from_floor_id: str | None
    to_floor_id: str | None
    distance: float
    time: float


class RouteLeg(TypedDict):
    """The walk on one level, then the connector it ends with (None on the last)."""

    level_uid: str
    floor_id: str | None
    points: list[Point]
    distance: float
    time: float
    connector: LegConnector | None


class Landmark(TypedDict):
    unit_id: str | None
    location_id: str
    name: str


class RouteThen(TypedDict):
    """A turn told with the turn before it (`routing.maneuvers.Then`)."""

    modifier: str
    bearing_before: int
    bearing_after: int
    location: Point
    point_index: int


class RouteManeuver(TypedDict):
    """One maneuver, in the vocabulary of `routing.vocabulary`, with its sentence."""

    type: str
    modifier: str | None
    bearing_before: int
    bearing_after: int
    location: Point
    leg_index: int
    point_index: int
    distance: float
    time: float
    landmark: Landmark | None
    side: str | None
    connector: LegConnector | None
    via_index: int | None  # the stop an intermediate `arrive` reaches (`via`)
    instruction: str
    then: list[RouteThen]  # a turn's turns told with it, within 30 ft


class Route(TypedDict):
    distance: float
    time: float
    legs: list[RouteLeg]
    maneuvers: list[RouteManeuver]
    steps: list[str]
    # Asked for (`geometry: "geojson"`): makes the route's GeoJSON when selected.
    geojson_of: NotRequired[Callable[[], dict[str, Any]]]


class Directions(TypedDict):
    """The answer: the waypoints as asked, and the route or the reason there is none."""

    mode: str
    from_: dict[str, Any]  # the request's waypoint fields (`distances.ECHOED`)
    to: dict[str, Any]
    route: Route | None
    reason: str | None
    via: list[dict[str, Any]] | None  # the stops as asked
    visit_order: list[int] | None
    optimized: str | None
    closures: list[dict[str, Any]]  # those in force at its waypoints (`closures.as_api`)
