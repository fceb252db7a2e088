"""Root query fields: each names its access rule and hands over to `resolvers.reads`."""

from typing import Annotated, Any

import strawberry
from strawberry.scalars import JSON
from strawberry.types import Info

from resolvers import attributes, locations, reads, references
from resolvers.auth.permissions import (
    ASSET_REFERENCES_READ,
    DISTANCES_CALCULATE,
    FLAG_DIRECTIONS,
    FLAG_DISTANCES,
    FLAG_LOCATIONS,
    FLAG_REFERENCES,
    FLAG_UNIT_ATTRIBUTES,
    UNIT_ATTRIBUTES_READ,
    UNIT_MAPS_PARSE,
    UNIT_REFERENCES_READ,
)
from resolvers.parse import parse_svg
from resolvers.wayfinding import directions, distances
from schema.directions_types import Directions
from schema.experimental_types import (
    DistanceMatrix,
    DistanceMatrixInput,
    LocationList,
    UnitAttributeGroup,
    WaypointInput,
)
from schema.permissions import KeyRequired, requires
from schema.records import as_record
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

MODE = strawberry.argument(description="`foot` (default) or `wheelchair`.")
# A vendor path's market (docs/api.md, "Vendor paths"): given, it must be the market of
# the asset named by `assetId`, else the field answers "Not found".
MARKET = strawberry.argument(
    description="The asset's market (`multifamily`): when given, "
    "`assetId`'s asset must be of this market, else Not found."
)
Market = Annotated[str | None, MARKET]
AssetId = Annotated[
    strawberry.ID | None,
    strawberry.argument(description="Only of this asset (else Not found, for one item)."),
]


def listed(page: Any, info: Info, **filters: object) -> Any:
    """The page, its paging told which list it is (the root field and its filters), so
    that `Paging.prevUrl`/`nextUrl` can name the same list's pages on REST."""
    page["paging"]["list"] = (info.field_name, filters)
    return page


@strawberry.type
class Query:
    @strawberry.field(permission_classes=[KeyRequired], description="Assets the key may see.")
    async def assets(
        self, info: Info, page: int | None = None, per_page: int | None = None
    ) -> AssetPage:
        return listed(await reads.list_assets(info.context, page, per_page), info)

    @strawberry.field(permission_classes=[KeyRequired])
    async def asset(self, info: Info, id: strawberry.ID) -> Asset | None:
        return await reads.get_asset(info.context, id)

    @strawberry.field(permission_classes=[KeyRequired], description="Floors of an asset.")
    async def floors(
        self,
        info: Info,
        asset_id: strawberry.ID,
        page: int | None = None,
        per_page: int | None = None,
        market: Market = None,
    ) -> FloorPage:
        found = await reads.list_floors(info.context, asset_id, page, per_page, market)
        return listed(found, info, assetId=asset_id, market=market)

    @strawberry.field(permission_classes=[KeyRequired])
    async def floor(
        self, info: Info, asset_id: strawberry.ID, id: strawberry.ID, market: Market = None
    ) -> Floor | None:
        return await reads.get_floor(info.context, asset_id, id, market)

    @strawberry.field(
        permission_classes=[KeyRequired],
        description="Units the key may see, by id; of one asset when `assetId` is given.",
    )
    async def units(
        self,
        info: Info,
        page: int | None = None,
        per_page: int | None = None,
        asset_id: AssetId = None,
        market: Market = None,
    ) -> UnitPage:
        found = await reads.list_units(info.context, page, per_page, asset_id, market)
        return listed(found, info, assetId=asset_id, market=market)

    @strawberry.field(permission_classes=[KeyRequired])
    async def unit(
        self, info: Info, id: strawberry.ID, asset_id: AssetId = None, market: Market = None
    ) -> Unit | None:
        return await reads.get_unit(info.context, id, asset_id, market)

    @strawberry.field(
        permission_classes=[KeyRequired],
        description="Unit maps the key may see; `tags` is comma-separated (all must be present).",
    )
    async def unit_maps(
        self,
        info: Info,
        page: int | None = None,
        per_page: int | None = None,
        tags: str | None = None,
        asset_id: strawberry.ID | None = None,
        market: Market = None,
    ) -> UnitMapPage:
        found = await reads.list_unit_maps(info.context, page, per_page, tags, asset_id, market)
        return listed(found, info, tags=tags, assetId=asset_id, market=market)

    @strawberry.field(permission_classes=[KeyRequired])
    async def unit_map(
        self, info: Info, id: strawberry.ID, asset_id: AssetId = None, market: Market = None
    ) -> UnitMap | None:
        return await reads.get_unit_map(info.context, id, asset_id, market)

    @strawberry.field(permission_classes=[KeyRequired])
    async def backgrounds(
        self,
        info: Info,
        unit_map_id: strawberry.ID,
        page: int | None = None,
        per_page: int | None = None,
        asset_id: AssetId = None,
        market: Market = None,
    ) -> BackgroundPage:
        found = await reads.list_backgrounds(
            info.context, unit_map_id, page, per_page, asset_id, market
        )
        return listed(found, info, unitMapId=unit_map_id, assetId=asset_id, market=market)

    @strawberry.field(permission_classes=[KeyRequired])
    async def background(
        self,
        info: Info,
        unit_map_id: strawberry.ID,
        id: strawberry.ID,
        asset_id: AssetId = None,
        market: Market = None,
    ) -> Background | None:
        return await reads.get_background(info.context, unit_map_id, id, asset_id, market)

    @strawberry.field(
        permission_classes=[KeyRequired],
        description="Level tags of a map: all, or one slice when paging arguments are given.",
    )
    async def level_tags(
        self,
        info: Info,
        unit_map_id: strawberry.ID,
        page: int | None = None,
        per_page: int | None = None,
        asset_id: AssetId = None,
        market: Market = None,
    ) -> list[LevelTag]:
        return await reads.list_level_tags(
            info.context, unit_map_id, page, per_page, asset_id, market
        )

    @strawberry.field(permission_classes=[KeyRequired], description="Units drawn on a map.")
    async def unit_map_units(
        self,
        info: Info,
        unit_map_id: strawberry.ID,
        page: int | None = None,
        per_page: int | None = None,
        asset_id: AssetId = None,
        market: Market = None,
    ) -> UnitPage:
        found = await reads.list_map_units(
            info.context, unit_map_id, page, per_page, asset_id, market
        )
        return listed(found, info, unitMapId=unit_map_id, assetId=asset_id, market=market)

    @strawberry.field(permission_classes=[KeyRequired])
    async def unit_map_unit(
        self,
        info: Info,
        unit_map_id: strawberry.ID,
        id: strawberry.ID,
        asset_id: AssetId = None,
        market: Market = None,
    ) -> Unit | None:
        return await reads.get_map_unit(info.context, unit_map_id, id, asset_id, market)

    @strawberry.field(
        permission_classes=[requires(UNIT_MAPS_PARSE)],
        description="Parse unit-map SVG into the parsed document (application/vnd.map+json), "
        "as E10 does. Needs the permission service.unit-maps.parse.",
    )
    async def parse_unit_map(self, info: Info, svg: str) -> JSON:
        return await parse_svg(info.context, svg)

    # Experimental resources: each behind its flag (and permission).

    @strawberry.field(
        permission_classes=[requires(ASSET_REFERENCES_READ, FLAG_REFERENCES)],
        description="Asset references the key may see, by id (E5). Flag `references`, "
        "permission service.asset-references.read.",
    )
    async def asset_references(
        self,
        info: Info,
        page: int | None = None,
        per_page: int | None = None,
        asset_id: strawberry.ID | None = None,
        key: str | None = None,
        market: Market = None,
    ) -> AssetReferencePage:
        found = await references.list_asset_references(
            info.context, page, per_page, asset_id, key, market
        )
        return listed(found, info, assetId=asset_id, key=key, market=market)

    @strawberry.field(
        permission_classes=[requires(UNIT_REFERENCES_READ, FLAG_REFERENCES)],
        description="Unit references the key may see, by unit id then key (E8). Flag "
        "`references`, permission service.unit-references.read.",
    )
    async def unit_references(
        self,
        info: Info,
        page: int | None = None,
        per_page: int | None = None,
        asset_id: strawberry.ID | None = None,
        key: str | None = None,
        market: Market = None,
        group_id: Annotated[
            strawberry.ID | None, strawberry.argument(description="Only of this group.")
        ] = None,
    ) -> UnitReferencePage:
        found = await references.list_unit_references(
            info.context, page, per_page, asset_id, key, market, group_id
        )
        return listed(found, info, assetId=asset_id, key=key, market=market, groupId=group_id)

    @strawberry.field(
        permission_classes=[requires(UNIT_REFERENCES_READ, FLAG_REFERENCES)],
        description="Groups of the unit references the key may see (a reference's `groupId`), "
        "by id. Flag `references`, permission service.unit-references.read.",
    )
    async def unit_reference_groups(
        self,
        info: Info,
        page: int | None = None,
        per_page: int | None = None,
        asset_id: strawberry.ID | None = None,
        market: Market = None,
    ) -> UnitReferenceGroupPage:
        found = await references.list_unit_reference_groups(
            info.context, page, per_page, asset_id, market
        )
        return listed(found, info, assetId=asset_id, market=market)

    @strawberry.field(
        permission_classes=[requires(UNIT_ATTRIBUTES_READ, FLAG_UNIT_ATTRIBUTES)],
        description="Attribute groups with their attributes, by id (E19): all, or one slice "
        "when paging arguments are given.",
    )
    async def unit_attribute_groups(
        self, info: Info, page: int | None = None, per_page: int | None = None
    ) -> list[UnitAttributeGroup]:
        return await attributes.list_groups(info.context, page, per_page)

    @strawberry.field(
        permission_classes=[requires(UNIT_ATTRIBUTES_READ, FLAG_UNIT_ATTRIBUTES)],
        description="Assignments of a group whose asset the key may see, by unit id then "
        "attribute id (E20).",
    )
    async def unit_attribute_assignments(
        self,
        info: Info,
        group_id: strawberry.ID,
        page: int | None = None,
        per_page: int | None = None,
        asset_id: strawberry.ID | None = None,
    ) -> UnitAttributeAssignmentPage:
        found = await attributes.list_assignments(info.context, group_id, page, per_page, asset_id)
        return listed(found, info, groupId=group_id, assetId=asset_id)

    @strawberry.field(
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
        return await locations.list_locations(
            info.context, unit_map_id, tags, page, per_page, asset_id, market
        )

    @strawberry.field(
        permission_classes=[requires(DISTANCES_CALCULATE, FLAG_DISTANCES)],
        description="Walking distances (feet) and times (seconds) from every source to every "
        "target (E18). Flag `distances`, permission service.distances.calculate.",
    )
    async def distance_matrix(
        self, info: Info, unit_map_id: strawberry.ID, input: DistanceMatrixInput
    ) -> DistanceMatrix:
        return await distances.distance_matrix(info.context, unit_map_id, as_record(input))

    @strawberry.field(
        permission_classes=[requires(DISTANCES_CALCULATE, FLAG_DIRECTIONS)],
        description="The route from one waypoint to another: legs per level with their "
        "polylines, the connectors taken, steps, distance (feet) and time (seconds), equal "
        "to E18 pathfinding's. Flag `directions`, permission service.distances.calculate.",
    )
    async def route(
        self,
        info: Info,
        unit_map_id: strawberry.ID,
        from_: Annotated[WaypointInput, strawberry.argument(name="from")],
        to: WaypointInput,
        mode: Annotated[str | None, MODE] = None,
    ) -> Directions:
        return await directions.directions(
            info.context, unit_map_id, as_record(from_), as_record(to), mode
        )
