"""The REST routes of /v1 as a table: each row is a persisted GraphQL document.

The table is the single description of the REST surface: the router serves it,
and the OpenAPI document is generated from it, with each row's example request and the
demo's recorded answer to it. What a row is made of is `rest.v1.route_rows`; a new row
needs nothing else but `make generate` (docs/architecture.md, "Where to add").
"""

from __future__ import annotations

from resolvers.limits import MAX_QUERY_BODY_BYTES, MAX_WRITE_BODY_BYTES
from resolvers.validation import item_count_problems, pair_count_problems
from rest.v1.route_rows import (
    TILE_TYPE,
    Body,
    Example,
    Param,
    RestRoute,
    Shape,
    path,
    with_market_aliases,
)

MAP_XML = "application/vnd.map+xml"
MAP_JSON = "application/vnd.map+json"


PAGE = (Param("page", "page", "Int"), Param("per-page", "perPage", "Int"))
ASSET = Param("asset", "assetId", "ID")
# An event stream's resume position; the `Last-Event-ID` header, when sent, wins.
AFTER = Param("after", "after", "String")
GROUP = path("group-id", "groupId")
TILE_XYZ = tuple(Param(name, name, "Int!", "path") for name in ("z", "x", "y"))
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
    ),
)
ASSIGNMENTS = Body(
    "data",
    "[UnitAttributeAssignmentInput!]!",
    ("application/json",),
    lambda settings: MAX_WRITE_BODY_BYTES,
    name="data",
    json=True,
    counts=item_count_problems(),
)

# Example requests on the demo property (`make run`'s data): each row's `example`.
HARBOR = {"asset": "harbor-view"}
FLOOR_MAP = {"map": "map-b1-f1"}
EXAMPLE_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="200" '
    'data-feet-per-unit="0.25">'
    '<g id="L1" data-level="Level 1" data-tag-floor="b1-f1">'
    '<g data-layer="units"><rect data-unit-id="b1-101" x="10" y="10" width="120" '
    'height="80"/></g>'
    '<g data-layer="paths"><line x1="10" y1="120" x2="390" y2="120"/></g>'
    "</g></svg>"
)
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
ASSIGNMENT = {
    "group_id": "view",
    "attribute_id": "view-pool",
    "asset_id": "harbor-view",
    "unit_id": "b1-101",
}

FLAT_ROUTES: tuple[RestRoute, ...] = (
    RestRoute(
        "GET",
        "/v1/assets",
        "listAssets",
        "List assets (E1)",
        "assets",
        "AssetFields",
        Shape.PAGED,
        PAGE,
        example=Example(query={"per-page": 2}),
    ),
    RestRoute(
        "GET",
        "/v1/assets/{asset}",
        "getAsset",
        "Get an asset (E2)",
        "asset",
        "AssetFields",
        Shape.SINGLE,
        (path("asset", "id"),),
        example=Example(HARBOR),
    ),
    RestRoute(
        "GET",
        "/v1/assets/{asset}/floors",
        "listFloors",
        "List floors of an asset (E3)",
        "floors",
        "FloorFields",
        Shape.PAGED,
        (path("asset", "assetId"), *PAGE),
        example=Example(HARBOR, {"per-page": 2}),
    ),
    RestRoute(
        "GET",
        "/v1/assets/{asset}/floors/{floor}",
        "getFloor",
        "Get a floor (E4)",
        "floor",
        "FloorFields",
        Shape.SINGLE,
        (path("asset", "assetId"), path("floor", "id")),
        example=Example({**HARBOR, "floor": "b1-f1"}),
    ),
    RestRoute(
        "GET",
        "/v1/units",
        "listUnits",
        "List units (E6)",
        "units",
        "UnitFields",
        Shape.PAGED,
        (*PAGE, ASSET),
        example=Example(query={"per-page": 2}),
    ),
    RestRoute(
        "GET",
        "/v1/units/{unit}",
        "getUnit",
        "Get a unit (E7)",
        "unit",
        "UnitFields",
        Shape.SINGLE,
        (path("unit", "id"),),
        example=Example({"unit": "b1-101"}),
    ),
    RestRoute(
        "GET",
        "/v1/maps",
        "listUnitMaps",
        "List unit maps (E9)",
        "unitMaps",
        "UnitMapFields",
        Shape.PAGED,
        (*PAGE, Param("tags", "tags", "String"), Param("asset", "assetId", "ID")),
        example=Example(query={"asset": "harbor-view", "tags": "pathfinding", "per-page": 2}),
    ),
    RestRoute(
        "POST",
        "/v1/maps/parse",
        "parseUnitMap",
        "Parse unit-map SVG (E10)",
        "parseUnitMap",
        None,
        Shape.SINGLE,
        body=Body(
            "svg",
            "String!",
            (MAP_XML, "image/svg+xml"),
            lambda settings: settings.svg_limits.max_bytes,
        ),
        media_type=MAP_JSON,
        example=Example(body=EXAMPLE_SVG),
    ),
    RestRoute(
        "GET",
        "/v1/maps/{map}",
        "getUnitMap",
        "Get a unit map (E11)",
        "unitMap",
        "UnitMapFields",
        Shape.SINGLE,
        (path("map", "id"),),
        example=Example(FLOOR_MAP),
    ),
    RestRoute(
        "GET",
        "/v1/maps/{map}/backgrounds",
        "listBackgrounds",
        "List backgrounds of a unit map (E12)",
        "backgrounds",
        "BackgroundFields",
        Shape.PAGED,
        (path("map", "unitMapId"), *PAGE),
        example=Example(FLOOR_MAP, {"per-page": 2}),
    ),
    RestRoute(
        "GET",
        "/v1/maps/{map}/backgrounds/{background}",
        "getBackground",
        "Get a background (E13)",
        "background",
        "BackgroundFields",
        Shape.SINGLE,
        (path("map", "unitMapId"), path("background", "id")),
        example=Example({**FLOOR_MAP, "background": "map-b1-f1-plan"}),
    ),
    RestRoute(
        "GET",
        "/v1/maps/{map}/levels/tags",
        "listLevelTags",
        "List level tags of a unit map (E14)",
        "levelTags",
        "LevelTagFields",
        Shape.DATA,
        (path("map", "unitMapId"), *PAGE),
        example=Example(FLOOR_MAP),
    ),
    RestRoute(
        "GET",
        "/v1/maps/{map}/units",
        "listUnitMapUnits",
        "List units of a unit map (E15)",
        "unitMapUnits",
        "ReducedUnitFields",
        Shape.PAGED,
        (path("map", "unitMapId"), *PAGE),
        example=Example(FLOOR_MAP, {"per-page": 2}),
    ),
    RestRoute(
        "GET",
        "/v1/maps/{map}/units/{unit}",
        "getUnitMapUnit",
        "Get a unit of a unit map (E16)",
        "unitMapUnit",
        "ReducedUnitFields",
        Shape.SINGLE,
        (path("map", "unitMapId"), path("unit", "id")),
        example=Example({**FLOOR_MAP, "unit": "b1-101"}),
    ),
    # Experimental resources (each needs its Experimental-Flags name).
    RestRoute(
        "GET",
        "/v1/assets/references",
        "listAssetReferences",
        "List asset references (E5)",
        "assetReferences",
        "AssetReferenceFields",
        Shape.PAGED,
        (*PAGE, ASSET, Param("key", "key", "String")),
        example=Example(query={"asset": "harbor-view", "per-page": 2}),
    ),
    RestRoute(
        "GET",
        "/v1/units/references",
        "listUnitReferences",
        "List unit references (E8)",
        "unitReferences",
        "UnitReferenceFields",
        Shape.PAGED,
        (*PAGE, ASSET, Param("key", "key", "String")),
        example=Example(query={"key": "realpage", "per-page": 2}),
    ),
    RestRoute(
        "GET",
        "/v1/units/reference-groups",
        "listUnitReferenceGroups",
        "List groups of unit references",
        "unitReferenceGroups",
        "UnitReferenceGroupFields",
        Shape.PAGED,
        (*PAGE, ASSET),
        example=Example(query={"asset": "harbor-view"}),
    ),
    RestRoute(
        "GET",
        "/v1/units/reference-groups/{group}/references",
        "listGroupUnitReferences",
        "List unit references of a group (E8 of one group)",
        "unitReferences",
        "UnitReferenceFields",
        Shape.PAGED,
        (path("group", "groupId"), *PAGE, ASSET, Param("key", "key", "String")),
        example=Example({"group": "harbor-view"}, {"key": "acme-pms", "per-page": 2}),
    ),
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
    RestRoute(
        "GET",
        "/v1/units/attribute-groups",
        "listAttributeGroups",
        "List attribute groups (E19)",
        "unitAttributeGroups",
        "AttributeGroupFields",
        Shape.DATA,
        PAGE,
        example=Example(),
    ),
    RestRoute(
        "GET",
        "/v1/units/attribute-groups/{group-id}/units",
        "listAttributeAssignments",
        "List unit-to-attribute assignments of a group (E20)",
        "unitAttributeAssignments",
        "AssignmentFields",
        Shape.PAGED,
        (GROUP, *PAGE, ASSET),
        example=Example({"group-id": "view"}, {"per-page": 2}),
    ),
    RestRoute(
        "PUT",
        "/v1/units/attribute-groups/{group-id}/units",
        "assignUnitAttributes",
        "Assign attributes to units (E21)",
        "assignUnitAttributes",
        "AssignmentFields",
        Shape.DATA,
        (GROUP,),
        body=ASSIGNMENTS,
        mutation=True,
        # b1-101's view from city to pool; the next row's takes it away (the test restores it).
        example=Example({"group-id": "view"}, body={"data": [ASSIGNMENT]}),
    ),
    RestRoute(
        "PUT",
        "/v1/units/attribute-groups/{group-id}/units/remove",
        "unassignUnitAttributes",
        "Unassign attributes from units (E22)",
        "unassignUnitAttributes",
        "AssignmentFields",
        Shape.NO_CONTENT,
        (GROUP,),
        body=ASSIGNMENTS,
        mutation=True,
        example=Example({"group-id": "view"}, body={"data": [ASSIGNMENT]}),
    ),
    RestRoute(
        "GET",
        "/v1/units/attribute-groups/{group-id}/units/changes",
        "streamAttributeAssignmentChanges",
        "Stream a group's assignment changes as Server-Sent Events (live changes)",
        "unitAttributeAssignmentChanges",
        "AssignmentChangeFields",
        Shape.EVENTS,
        (GROUP, ASSET, AFTER),
        media_type="text/event-stream",
        example=Example({"group-id": "view"}, {"asset": "harbor-view"}),
    ),
    RestRoute(
        "GET",
        "/v1/search",
        "search",
        "Search places: names, typos, categories; nearest first from a location",
        "search",
        "SearchResultFields",
        Shape.PAGED,
        (
            Param("q", "q", "String!"),
            *PAGE,
            Param("asset", "asset", "ID"),
            Param("map", "unitMapId", "ID"),
            Param("floor", "floorId", "ID"),
            Param("near", "near", "ID"),
            Param("mode", "mode", "String"),
        ),
        example=Example(query={"q": "mail", "map": "map-b1", "near": "map-b1:b1-201"}),
    ),
    # Vector tiles of an asset's georeferenced maps (docs/tiles.md).
    RestRoute(
        "GET",
        "/v1/assets/{asset}/tiles/{z}/{x}/{y}.mvt",
        "getVectorTile",
        "Get a vector tile of an asset (Mapbox Vector Tile 2.1)",
        "vectorTile",
        "VectorTileFields",
        Shape.TILE,
        (path("asset", "assetId"), *TILE_XYZ),
        media_type=TILE_TYPE,
        example=Example({**HARBOR, "z": "18", "x": "41985", "y": "91551"}),
    ),
    RestRoute(
        "GET",
        "/v1/assets/{asset}/tiles.json",
        "getTileJson",
        "Get the TileJSON 3.0.0 of an asset's vector tiles",
        "tileJson",
        None,
        Shape.SINGLE,
        (path("asset", "assetId"),),
        example=Example(HARBOR),
    ),
    RestRoute(
        "GET",
        "/v1/assets/{asset}/style.json",
        "getMapStyle",
        "Get a MapLibre style of an asset's vector tiles",
        "mapStyle",
        None,
        Shape.SINGLE,
        (path("asset", "assetId"),),
        example=Example(HARBOR),
    ),
)

# Flat operation id: (path under /v1/assets/{asset}/{market}/, the alias's operation id).
MARKET_ALIASES: dict[str, tuple[str, str]] = {
    "listFloors": ("floors", "listMarketFloors"),
    "getFloor": ("floors/{floor}", "getMarketFloor"),
    "listUnits": ("units", "listMarketUnits"),
    "getUnit": ("units/{unit}", "getMarketUnit"),
    "listUnitMaps": ("maps", "listMarketUnitMaps"),
    "getUnitMap": ("maps/{map}", "getMarketUnitMap"),
    "listBackgrounds": ("maps/{map}/backgrounds", "listMarketBackgrounds"),
    "getBackground": ("maps/{map}/backgrounds/{background}", "getMarketBackground"),
    "listLevelTags": ("maps/{map}/levels/tags", "listMarketLevelTags"),
    "listUnitMapUnits": ("maps/{map}/units", "listMarketUnitMapUnits"),
    "getUnitMapUnit": ("maps/{map}/units/{unit}", "getMarketUnitMapUnit"),
    "listUnitMapLocations": ("maps/{map}/locations", "listMarketLocations"),
    "listAssetReferences": ("references", "listMarketAssetReferences"),
    "listUnitReferences": ("units/references", "listMarketUnitReferences"),
    "listUnitReferenceGroups": ("units/reference-groups", "listMarketUnitReferenceGroups"),
    "listGroupUnitReferences": (
        "units/reference-groups/{group}/references",
        "listMarketGroupUnitReferences",
    ),
}
# A vendor path's example is its flat route's under the demo's asset and market.
EXAMPLE_MARKET = {**HARBOR, "market": "multifamily"}
ROUTES: tuple[RestRoute, ...] = with_market_aliases(FLAT_ROUTES, MARKET_ALIASES, EXAMPLE_MARKET)
