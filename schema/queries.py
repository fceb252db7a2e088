"""Root query fields: one table (`ROOT_FIELDS`), each row naming its access rule and its
resolver in `resolvers`; `schema.root_fields` makes the strawberry fields from it.
Fields of a shape of their own are written by hand below it; the table places them."""

from typing import Annotated

import strawberry
from strawberry.scalars import JSON
from strawberry.types import Info

from resolvers import locations, reads, references, venue_health
from resolvers.attributes import assignments
from resolvers.auth.permissions import (
    ADMIN,
    ASSET_REFERENCES_READ,
    DISTANCES_CALCULATE,
    FLAG_DIRECTIONS,
    FLAG_DISTANCES,
    FLAG_LOCATIONS,
    FLAG_REFERENCES,
    FLAG_SEARCH,
    FLAG_UNIT_ATTRIBUTES,
    UNIT_ATTRIBUTES_READ,
    UNIT_MAPS_PARSE,
    UNIT_REFERENCES_READ,
)
from resolvers.limits import MAX_VIA
from resolvers.parse import parse_svg
from resolvers.search import search
from resolvers.tiles import tiles
from resolvers.wayfinding import closure_fields, directions, distances
from schema.decorators import field
from schema.directions_types import Closure, Directions
from schema.experimental_types import (
    CostingOptionsInput,
    DistanceMatrix,
    DistanceMatrixInput,
    LocationList,
    UnitAttributeGroup,
    WaypointInput,
)
from schema.health_types import VenueHealth
from schema.permissions import KeyRequired, requires
from schema.records import as_record
from schema.root_fields import Arg, Kind, RootField, query_type
from schema.search_types import SearchPage
from schema.tile_types import VectorTile
from schema.types import (
    Asset,
    AssetPage,
    AssetReferencePage,
    Background,
    BackgroundPage,
    Floor,
    FloorPage,
    LevelTag,
    Unit,
    UnitAttributeAssignmentPage,
    UnitMap,
    UnitMapPage,
    UnitPage,
    UnitReferenceGroupPage,
    UnitReferencePage,
)

PAGE, ALL, ONE = Kind.PAGE, Kind.ALL, Kind.ONE

# A vendor path's market (docs/api.md, "Vendor paths"): given, it must be the market of
# the asset named by `assetId`, else the field answers "Not found".
Market = Annotated[
    str | None,
    strawberry.argument(
        description="The asset's market (`multifamily`): when given, "
        "`assetId`'s asset must be of this market, else Not found."
    ),
]
AssetId = Annotated[
    strawberry.ID | None,
    strawberry.argument(description="Only of this asset (else Not found, for one item)."),
]

# Parent ids: required, first.
ASSET_ID = Arg("asset_id", strawberry.ID)
UNIT_MAP_ID = Arg("unit_map_id", strawberry.ID)
GROUP_ID = Arg("group_id", strawberry.ID)

# Optional filters, last.
MARKET = Arg("market", Market)
OF_ASSET = Arg("asset_id", AssetId)
ASSET = Arg("asset_id", strawberry.ID | None)  # the same filter, published undescribed
TAGS = Arg("tags", str | None)
KEY = Arg("key", str | None)
OF_GROUP = Arg(
    "group_id",
    Annotated[strawberry.ID | None, strawberry.argument(description="Only of this group.")],
)


def described(name: str, annotation: object, description: str) -> Arg:
    return Arg(name, Annotated[annotation, strawberry.argument(description=description)])


# `search`'s text, then its filters.
SEARCH_TEXT = described(
    "q", str, "What to find: 1 to 100 characters, case and accents ignored, typos forgiven."
)
SEARCH_FILTERS = (
    described("asset", strawberry.ID | None, "Only of this asset."),
    described("unit_map_id", strawberry.ID | None, "Only places drawn on this map."),
    described("floor_id", strawberry.ID | None, "Only places on this floor."),
    described(
        "near",
        strawberry.ID | None,
        "A location of `unitMapId`: each tier's results ranked by walking time from it.",
    ),
    described("mode", str | None, "`foot` (default) or `wheelchair`, for `near`."),
)

# Every root field, in the schema's order: a row, or the name of a hand-written field
# (`HandWritten` below). A new list/get pair is two rows.
ROOT_FIELDS: tuple[RootField | str, ...] = (
    RootField("assets", reads.list_assets, AssetPage, PAGE, description="Assets the key may see."),
    RootField("asset", reads.get_asset, Asset | None, ONE),
    RootField(
        "floors",
        reads.list_floors,
        FloorPage,
        PAGE,
        parents=(ASSET_ID,),
        filters=(MARKET,),
        description="Floors of an asset.",
    ),
    RootField("floor", reads.get_floor, Floor | None, ONE, parents=(ASSET_ID,), filters=(MARKET,)),
    RootField(
        "units",
        reads.list_units,
        UnitPage,
        PAGE,
        filters=(OF_ASSET, MARKET),
        description="Units the key may see, by id; of one asset when `assetId` is given.",
    ),
    RootField("unit", reads.get_unit, Unit | None, ONE, filters=(OF_ASSET, MARKET)),
    RootField(
        "unit_maps",
        reads.list_unit_maps,
        UnitMapPage,
        PAGE,
        filters=(TAGS, ASSET, MARKET),
        description="Unit maps the key may see; `tags` is comma-separated (all must be present).",
    ),
    RootField("unit_map", reads.get_unit_map, UnitMap | None, ONE, filters=(OF_ASSET, MARKET)),
    RootField(
        "backgrounds",
        reads.list_backgrounds,
        BackgroundPage,
        PAGE,
        parents=(UNIT_MAP_ID,),
        filters=(OF_ASSET, MARKET),
    ),
    RootField(
        "background",
        reads.get_background,
        Background | None,
        ONE,
        parents=(UNIT_MAP_ID,),
        filters=(OF_ASSET, MARKET),
    ),
    RootField(
        "level_tags",
        reads.list_level_tags,
        list[LevelTag],
        ALL,
        parents=(UNIT_MAP_ID,),
        filters=(OF_ASSET, MARKET),
        description="Level tags of a map: all, or one slice when paging arguments are given.",
    ),
    RootField(
        "unit_map_units",
        reads.list_map_units,
        UnitPage,
        PAGE,
        parents=(UNIT_MAP_ID,),
        filters=(OF_ASSET, MARKET),
        description="Units drawn on a map.",
    ),
    RootField(
        "unit_map_unit",
        reads.get_map_unit,
        Unit | None,
        ONE,
        parents=(UNIT_MAP_ID,),
        filters=(OF_ASSET, MARKET),
    ),
    "parse_unit_map",
    # Experimental resources: each behind its flag (and permission).
    RootField(
        "asset_references",
        references.list_asset_references,
        AssetReferencePage,
        PAGE,
        filters=(ASSET, KEY, MARKET),
        description="Asset references the key may see, by id (E5). Flag `references`, "
        "permission service.asset-references.read.",
        permission=requires(ASSET_REFERENCES_READ, FLAG_REFERENCES),
    ),
    RootField(
        "unit_references",
        references.list_unit_references,
        UnitReferencePage,
        PAGE,
        filters=(ASSET, KEY, MARKET, OF_GROUP),
        description="Unit references the key may see, by unit id then key (E8). Flag "
        "`references`, permission service.unit-references.read.",
        permission=requires(UNIT_REFERENCES_READ, FLAG_REFERENCES),
    ),
    RootField(
        "unit_reference_groups",
        references.list_unit_reference_groups,
        UnitReferenceGroupPage,
        PAGE,
        filters=(ASSET, MARKET),
        description="Groups of the unit references the key may see (a reference's `groupId`), "
        "by id. Flag `references`, permission service.unit-references.read.",
        permission=requires(UNIT_REFERENCES_READ, FLAG_REFERENCES),
    ),
    RootField(
        "unit_attribute_groups",
        assignments.list_groups,
        list[UnitAttributeGroup],
        ALL,
        description="Attribute groups with their attributes, by id (E19): all, or one slice "
        "when paging arguments are given.",
        permission=requires(UNIT_ATTRIBUTES_READ, FLAG_UNIT_ATTRIBUTES),
    ),
    RootField(
        "unit_attribute_assignments",
        assignments.list_assignments,
        UnitAttributeAssignmentPage,
        PAGE,
        parents=(GROUP_ID,),
        filters=(ASSET,),
        description="Assignments of a group whose asset the key may see, by unit id then "
        "attribute id (E20).",
        permission=requires(UNIT_ATTRIBUTES_READ, FLAG_UNIT_ATTRIBUTES),
    ),
    "locations",
    "distance_matrix",
    "route",
    RootField(
        "closures",
        closure_fields.list_closures,
        list[Closure],
        ALL,
        parents=(UNIT_MAP_ID,),
        description="Closures in force on a map (issue 50), by kind then target id: all, "
        "or one slice when paging arguments are given. Flag `directions`, any key that "
        "may see the map.",
        permission=requires(flag=FLAG_DIRECTIONS),
    ),
    RootField(
        "search",
        search.search,
        SearchPage,
        PAGE,
        parents=(SEARCH_TEXT,),
        filters=SEARCH_FILTERS,
        description="Places of the assets the key may see that `q` finds (issue 47): by "
        "exact name, word prefixes, typos, category words and tags, in that order; then by "
        "walking time from `near`, then name. One result per place; 10 per page, at most "
        "50. Flag `search`, any key.",
        permission=requires(flag=FLAG_SEARCH),
    ),
    "vector_tile",
    "tile_json",
    "map_style",
    RootField(
        "venue_health",
        venue_health.venue_health,
        VenueHealth | None,
        ONE,
        description="The health report of the venue of asset `id` (issue 65, point 6; "
        "docs/imdf.md): level pairs and what joins them, places unreachable and why, "
        "places listed twice, repaired geometry, tiles that fail, route accuracy; findings "
        "worst first. Permission service.admin (operators).",
        permission=requires(ADMIN),
    ),
)


class HandWritten:
    """Root fields no row describes, each for the reason above it; the table places them."""

    # Not a read of a resource: SVG text in, the parsed document (JSON) out.
    @field(
        permission_classes=[requires(UNIT_MAPS_PARSE)],
        description="Parse unit-map SVG into the parsed document (application/vnd.map+json), "
        "as E10 does. Needs the permission service.unit-maps.parse.",
    )
    async def parse_unit_map(self, info: Info, svg: str) -> JSON:
        return JSON(await parse_svg(info.context, svg))

    # Its `tags` filter comes before the paging arguments in the published schema, where a
    # row puts every filter after them.
    @field(
        permission_classes=[requires(flag=FLAG_LOCATIONS)],
        description="Locations of a map, by id (E17), filtered by `tags`: comma-separated "
        "terms `key`, `-key`, `key==value`, `key!=value`, all must hold, case-insensitive. "
        "All, or one slice when paging arguments are given.",
    )
    async def locations(
        self,
        info: Info,
        unit_map_id: strawberry.ID,
        tags: str | None = None,
        page: int | None = None,
        per_page: int | None = None,
        asset_id: AssetId = None,
        market: Market = None,
    ) -> LocationList:
        return await locations.list_locations(  # type: ignore[return-value]  # a dict: strawberry reads it by key
            info.context, unit_map_id, tags, page, per_page, asset_id, market
        )

    # Input objects, handed over as records (`as_record`), and no paging nor `id`.
    @field(
        permission_classes=[requires(DISTANCES_CALCULATE, FLAG_DISTANCES)],
        description="Walking distances (feet) and times (seconds) from every source to every "
        "target (E18). Flag `distances`, permission service.distances.calculate.",
    )
    async def distance_matrix(
        self, info: Info, unit_map_id: strawberry.ID, input: DistanceMatrixInput
    ) -> DistanceMatrix:
        return await distances.distance_matrix(info.context, unit_map_id, as_record(input))  # type: ignore[return-value]  # a dict: strawberry reads it by key

    # Likewise, and `from` is a Python keyword (`from_`).
    @field(
        permission_classes=[requires(DISTANCES_CALCULATE, FLAG_DIRECTIONS)],
        description="The route from one waypoint to another: legs per level with their "
        "polylines, the connectors taken, maneuvers (turns, landmarks, instructions), steps, "
        "distance (feet) and time (seconds), equal to E18 pathfinding's. `to: {nearest: ...}` "
        "goes to the nearest of several candidates; `costingOptions` costs it as E18's do. "
        "Flag `directions`, permission service.distances.calculate.",
    )
    async def route(
        self,
        info: Info,
        unit_map_id: strawberry.ID,
        from_: Annotated[WaypointInput, strawberry.argument(name="from")],
        to: WaypointInput,
        mode: Annotated[
            str | None, strawberry.argument(description="`foot` (default) or `wheelchair`.")
        ] = None,
        units: Annotated[
            str | None,
            strawberry.argument(
                description="Lengths in the instructions: `imperial` (feet, default) or "
                "`metric` (metres). Numeric fields are feet either way."
            ),
        ] = None,
        geometry: Annotated[
            str | None,
            strawberry.argument(
                description="`geojson`: `route.geojson` holds the route in WGS84 (a GeoJSON "
                "FeatureCollection; the map must be georeferenced), made only when selected."
            ),
        ] = None,
        costing_options: Annotated[
            CostingOptionsInput | None,
            strawberry.argument(
                description="E18's costing options: walking speed, penalties per use of a "
                "connector kind, kinds excluded (`pedestrian.mode`, when given with `mode`, "
                "must equal it)."
            ),
        ] = None,
        via: Annotated[
            list[WaypointInput] | None,
            strawberry.argument(
                description=f"Stops between `from` and `to` (at most {MAX_VIA}), visited in "
                "this order, or in the order of least total time with `optimize`."
            ),
        ] = None,
        optimize: Annotated[
            bool | None,
            strawberry.argument(
                description="Visit the stops in the order of least total time (`from` and "
                "`to` stay first and last): exact up to 8 stops, a heuristic beyond."
            ),
        ] = None,
    ) -> Directions:
        return await directions.directions(  # type: ignore[return-value]  # a dict: strawberry reads it by key
            info.context,
            unit_map_id,
            as_record(from_),
            as_record(to),
            mode,
            units,
            geometry,
            as_record(costing_options),
            None if via is None else [as_record(stop) for stop in via],
            optimize,
        )

    # Vector tiles (docs/tiles.md): a tile's address is z/x/y, not an id or a page; the
    # TileJSON and the style are documents of their own formats (JSON).
    @field(
        permission_classes=[KeyRequired],
        description="One vector tile (Mapbox Vector Tile 2.1) of an asset's georeferenced "
        "maps: layers outline, spaces, units, openings and locations, each feature with its "
        "`level`. z from 14 to 22, x and y within the grid of z. Any key of the asset.",
    )
    async def vector_tile(
        self, info: Info, asset_id: strawberry.ID, z: int, x: int, y: int
    ) -> VectorTile:
        return VectorTile(**await tiles.vector_tile(info.context, asset_id, z, x, y))

    @field(
        permission_classes=[KeyRequired],
        description="TileJSON 3.0.0 of an asset's vector tiles: their address, bounds, "
        "zooms and layers with their fields; `levels` and `default_level` besides.",
    )
    async def tile_json(self, info: Info, asset_id: strawberry.ID) -> JSON:
        return JSON(await tiles.tile_json(info.context, asset_id))

    @field(
        permission_classes=[KeyRequired],
        description="A MapLibre style (version 8) of an asset's vector tiles, each layer "
        "filtered to the default level (`metadata` lists the levels).",
    )
    async def map_style(self, info: Info, asset_id: strawberry.ID) -> JSON:
        return JSON(await tiles.map_style(info.context, asset_id))


Query = query_type(ROOT_FIELDS, HandWritten)
