"""Wayfinding on a unit map: its locations (E17), distance matrices (E18), routes between
two waypoints, and the closures that take a connector or a unit out of them (issue 50)."""

from __future__ import annotations

from resolvers.limits import MAX_QUERY_BODY_BYTES
from resolvers.validation import pair_count_problems, route_body_problems
from rest.v1.routes.params import FLOOR_MAP, PAGE
from rest.v1.routes.rows import Body, Example, Param, RestRoute, Shape, path

MATRIX = Body(
    "input",
    "DistanceMatrixInput!",
    ("application/json",),
    lambda settings: MAX_QUERY_BODY_BYTES,
    name="data",
    json=True,
    counts=pair_count_problems,
)
ROUTE = Body(
    "route",
    "",
    ("application/json",),
    lambda settings: MAX_QUERY_BODY_BYTES,
    name="data",
    json=True,
    members=(
        Param("from", "from", "WaypointInput!", "body"),
        Param("to", "to", "WaypointInput!", "body"),
        Param("mode", "mode", "String", "body"),
        Param("units", "units", "String", "body"),
        Param("geometry", "geometry", "String", "body"),
        Param("via", "via", "[WaypointInput!]", "body"),
        Param("optimize", "optimize", "Boolean", "body"),
        Param("costing_options", "costingOptions", "CostingOptionsInput", "body"),
    ),
    counts=route_body_problems,
    counted="via",
)
# A closure (issue 50): `{"data": {"connector_id" | "unit_id", "until", "reason"}}`.
CLOSURE = Body(
    "closure",
    "",
    ("application/json",),
    lambda settings: MAX_QUERY_BODY_BYTES,
    name="data",
    json=True,
    members=(
        Param("connector_id", "connectorId", "ID", "body"),
        Param("unit_id", "unitId", "ID", "body"),
        Param("until", "until", "Timestamp", "body"),
        Param("reason", "reason", "String", "body"),
    ),
)
CLOSURES_PATH = "/v1/unitmaps/{unitMapId}/closures"
MATRIX_REQUEST = {
    "data": {
        "sources": [{"id": "loc-b1-101"}],
        "targets": [{"id": "loc-b1-f1-gym"}, {"id": "loc-b1-f1-mail"}],
        "costing": "pedestrian",
        "costing_options": {"pedestrian": {"mode": "wheelchair"}},
    }
}
ROUTE_REQUEST = {
    "data": {
        "from": {"id": "map-b1:b1-201"},
        "to": {"id": "loc-b1-f1-gym@map-b1"},
        "mode": "wheelchair",
    }
}

WAYFINDING: tuple[RestRoute, ...] = (
    RestRoute(
        "GET",
        "/v1/unitmaps/{unitMapId}/locations",
        "listLocations",
        "List locations of a unit map (E17)",
        "locations",
        "LocationFields",
        Shape.VERSIONED,
        (path("unitMapId", "unitMapId"), *PAGE, Param("tags", "tags", "String")),
        example=Example({"unitMapId": "map-b1-f1"}, {"tags": "svc:amenity==yes,-amenity"}),
    ),
    RestRoute(
        "GET",
        "/v1/maps/{map}/locations",
        "listUnitMapLocations",
        "List locations of a unit map (E17, alias)",
        "locations",
        "LocationFields",
        Shape.VERSIONED,
        (path("map", "unitMapId"), *PAGE, Param("tags", "tags", "String")),
        example=Example(FLOOR_MAP, {"tags": "svc:id==b1-101"}),
    ),
    RestRoute(
        "POST",
        "/v1/unitmaps/{unitMapId}/distance-matrix",
        "distanceMatrix",
        "Distance matrix between waypoints of a unit map (E18)",
        "distanceMatrix",
        "MatrixFields",
        Shape.DATA,
        (path("unitMapId", "unitMapId"),),
        body=MATRIX,
        example=Example({"unitMapId": "map-b1-f1"}, body=MATRIX_REQUEST),
    ),
    RestRoute(
        "POST",
        "/v1/maps/{map}/distance-matrix",
        "unitMapDistanceMatrix",
        "Distance matrix between waypoints of a unit map (E18, alias)",
        "distanceMatrix",
        "MatrixFields",
        Shape.DATA,
        (path("map", "unitMapId"),),
        body=MATRIX,
        example=Example(FLOOR_MAP, body=MATRIX_REQUEST),
    ),
    RestRoute(
        "POST",
        "/v1/unitmaps/{unitMapId}/route",
        "route",
        "Route between two waypoints of a unit map (directions)",
        "route",
        "RouteFields",
        Shape.SINGLE,
        (path("unitMapId", "unitMapId"),),
        body=ROUTE,
        example=Example({"unitMapId": "map-b1"}, body=ROUTE_REQUEST),
    ),
    RestRoute(
        "POST",
        "/v1/maps/{map}/route",
        "unitMapRoute",
        "Route between two waypoints of a unit map (directions, alias)",
        "route",
        "RouteFields",
        Shape.SINGLE,
        (path("map", "unitMapId"),),
        body=ROUTE,
        example=Example({"map": "map-b1"}, body=ROUTE_REQUEST),
    ),
    # Closures (issue 50): the PUT's example closes the demo's elevator, the GET lists it,
    # the DELETE reopens it (the rows run in this order: the demo is as before).
    RestRoute(
        "PUT",
        CLOSURES_PATH,
        "closeOnUnitMap",
        "Close a connector or a unit of a unit map (closures)",
        "close",
        "ClosureFields",
        Shape.SINGLE,
        (path("unitMapId", "unitMapId"),),
        body=CLOSURE,
        mutation=True,
        example=Example(
            {"unitMapId": "map-b1"},
            body={"data": {"connector_id": "b1-elevator", "reason": "Maintenance"}},
        ),
    ),
    RestRoute(
        "GET",
        CLOSURES_PATH,
        "listClosures",
        "List the closures in force on a unit map (closures)",
        "closures",
        "ClosureFields",
        Shape.DATA,
        (path("unitMapId", "unitMapId"),),
        example=Example({"unitMapId": "map-b1"}),
    ),
    RestRoute(
        "DELETE",
        CLOSURES_PATH,
        "reopenOnUnitMap",
        "Reopen a closed connector or unit of a unit map (closures)",
        "reopen",
        None,
        Shape.NO_CONTENT,
        (
            path("unitMapId", "unitMapId"),
            Param("connector", "connectorId", "ID"),
            Param("unit", "unitId", "ID"),
        ),
        mutation=True,
        example=Example({"unitMapId": "map-b1"}, {"connector": "b1-elevator"}),
    ),
)
