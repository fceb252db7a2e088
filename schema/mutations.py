"""Root mutations: operator writes, each behind its permission."""

from typing import Annotated

import strawberry
from strawberry.types import Info

from resolvers import admin
from resolvers.attributes import assignments
from resolvers.auth.permissions import (
    ADMIN,
    FLAG_DIRECTIONS,
    FLAG_UNIT_ATTRIBUTES,
    UNIT_ATTRIBUTES_WRITE,
)
from resolvers.limits import MAX_CLOSURE_DAYS, MAX_CLOSURE_REASON_CHARS
from resolvers.wayfinding import closure_fields
from schema.decorators import mutation
from schema.directions_types import Closure
from schema.experimental_types import (
    AssetReference,
    Location,
    UnitAttributeAssignment,
    UnitAttributeAssignmentInput,
    UnitReference,
)
from schema.permissions import requires
from schema.records import as_record
from schema.scalars import Timestamp
from schema.types import UnitMap


@strawberry.input(description="A value of a level tag and its display name.")
class LevelTagValueInput:
    value: strawberry.ID
    name: str


@strawberry.input(description="Display names of a level tag that the drawing's Levels carry.")
class LevelTagInput:
    key: str
    name: str
    values: list[LevelTagValueInput] = strawberry.field(default_factory=list)


@strawberry.input(description="A canvas point and where it is on the earth (WGS84).")
class ControlPointInput:
    x: float
    y: float
    lon: float
    lat: float


@strawberry.input(description="At least three control points, not on one line.")
class GeoreferenceInput:
    control_points: list[ControlPointInput]


@strawberry.input(description="A unit map's fields, as in a dataset file (docs/dataset.md).")
class UnitMapInput:
    id: strawberry.ID
    asset_id: strawberry.ID
    name: str
    background_id: strawberry.ID | None = None
    style: str | None = None
    style_type: str | None = None
    tags: list[str] | None = None
    routing_tier: str | None = None
    level_tags: list[LevelTagInput] | None = None
    georeference: GeoreferenceInput | None = None
    floor_height_ft: float | None = strawberry.field(
        default=None, description="Feet per floor step between levels (default 10)."
    )


@strawberry.input(description="An asset's id in a third-party system.")
class AssetReferenceInput:
    id: strawberry.ID
    asset_id: strawberry.ID
    key: str
    value: str
    created_at: Timestamp | None = None
    updated_at: Timestamp | None = None


@strawberry.input(description="A unit's id in a third-party system; one per unit and key.")
class UnitReferenceInput:
    asset_id: strawberry.ID
    unit_id: strawberry.ID
    key: str
    value: str
    group_id: strawberry.ID | None = strawberry.field(
        default=None, description="Defaults to the asset id."
    )
    created_at: Timestamp | None = None
    updated_at: Timestamp | None = None


@strawberry.input
class LocationFloorInput:
    id: strawberry.ID


@strawberry.input
class LocationTagInput:
    key: str
    value: str
    created_at: Timestamp | None = None
    updated_at: Timestamp | None = None


@strawberry.input(description="A location of a unit map, as in a dataset file.")
class LocationInput:
    id: strawberry.ID
    asset_id: strawberry.ID
    unit_map_id: strawberry.ID
    name: str
    x: float
    y: float
    floors: list[LocationFloorInput]
    tags: list[LocationTagInput] | None = None
    created_at: Timestamp | None = None
    updated_at: Timestamp | None = None


Until = Annotated[
    Timestamp | None,
    strawberry.argument(
        description="When the closure ends by itself: in the future, at most "
        f"{MAX_CLOSURE_DAYS} days ahead (whole seconds); null: until reopened."
    ),
]
Reason = Annotated[
    str | None,
    strawberry.argument(
        description=f"Why: at most {MAX_CLOSURE_REASON_CHARS} characters, one line."
    ),
]
CLOSE = (
    "Routes, E18 answers and `nearest` on every process avoid it within a second. "
    "Closing it again replaces its closure. Flag `directions`, needs service.admin."
)


@strawberry.type
class Mutation:
    @mutation(
        permission_classes=[requires(ADMIN)],
        description="Create or replace a unit map with its SVG drawing: stores the source "
        "and the parsed document, derives the map's units and level tags, and writes the "
        "GeoJSON when georeferenced. Needs service.admin.",
    )
    async def put_unit_map(self, info: Info, input: UnitMapInput, svg: str) -> UnitMap:
        return await admin.put_unit_map(info.context, as_record(input), svg)  # type: ignore[return-value]  # a dict: strawberry reads it by key

    @mutation(
        permission_classes=[requires(UNIT_ATTRIBUTES_WRITE, FLAG_UNIT_ATTRIBUTES)],
        description="Assign attributes to units (E21), all or none. In a group with "
        "oneAttributePerUnit, an assignment replaces the unit's earlier one. Echoes `data`.",
    )
    async def assign_unit_attributes(
        self, info: Info, group_id: strawberry.ID, data: list[UnitAttributeAssignmentInput]
    ) -> list[UnitAttributeAssignment]:
        return await assignments.assign(info.context, group_id, as_record(data))  # type: ignore[return-value]  # dicts: strawberry reads them by key

    @mutation(
        permission_classes=[requires(UNIT_ATTRIBUTES_WRITE, FLAG_UNIT_ATTRIBUTES)],
        description="Remove assignments (E22), all or none. Returns those that were "
        "assigned; removing what is not assigned is not an error.",
    )
    async def unassign_unit_attributes(
        self, info: Info, group_id: strawberry.ID, data: list[UnitAttributeAssignmentInput]
    ) -> list[UnitAttributeAssignment]:
        return await assignments.unassign(info.context, group_id, as_record(data))  # type: ignore[return-value]  # dicts: strawberry reads them by key

    @mutation(
        permission_classes=[requires(ADMIN)],
        description="Create or replace an asset reference by id. Needs service.admin.",
    )
    async def put_asset_reference(self, info: Info, input: AssetReferenceInput) -> AssetReference:
        return await admin.put_asset_reference(info.context, as_record(input))  # type: ignore[return-value]  # a dict: strawberry reads it by key

    @mutation(
        permission_classes=[requires(ADMIN)],
        description="Delete an asset reference; false when there was none. Needs service.admin.",
    )
    async def delete_asset_reference(self, info: Info, id: strawberry.ID) -> bool:
        return await admin.delete_asset_reference(info.context, id)

    @mutation(
        permission_classes=[requires(ADMIN)],
        description="Create or replace the unit's reference for `key`. Needs service.admin.",
    )
    async def put_unit_reference(self, info: Info, input: UnitReferenceInput) -> UnitReference:
        return await admin.put_unit_reference(info.context, as_record(input))  # type: ignore[return-value]  # a dict: strawberry reads it by key

    @mutation(
        permission_classes=[requires(ADMIN)],
        description="Delete the unit's reference for `key`; false when there was none. "
        "Needs service.admin.",
    )
    async def delete_unit_reference(self, info: Info, unit_id: strawberry.ID, key: str) -> bool:
        return await admin.delete_unit_reference(info.context, unit_id, key)

    @mutation(
        permission_classes=[requires(ADMIN)],
        description="Create or replace a location by id; its map's GeoJSON and the E17 "
        "ETag change with it. Needs service.admin.",
    )
    async def put_location(self, info: Info, input: LocationInput) -> Location:
        return await admin.put_location(info.context, as_record(input))  # type: ignore[return-value]  # a dict: strawberry reads it by key

    @mutation(
        permission_classes=[requires(ADMIN)],
        description="Delete a location; false when there was none. Needs service.admin.",
    )
    async def delete_location(self, info: Info, id: strawberry.ID) -> bool:
        return await admin.delete_location(info.context, id)

    # Closures (issue 50, docs/routing.md "Closures").
    @mutation(
        permission_classes=[requires(ADMIN, FLAG_DIRECTIONS)],
        description="Close a connector of a map (its stops' rides and links). " + CLOSE,
    )
    async def close_connector(
        self,
        info: Info,
        unit_map_id: strawberry.ID,
        connector_id: strawberry.ID,
        until: Until = None,
        reason: Reason = None,
    ) -> Closure:
        found = await closure_fields.close(
            info.context, unit_map_id, connector_id, None, until, reason
        )
        return Closure(**found)

    @mutation(
        permission_classes=[requires(ADMIN, FLAG_DIRECTIONS)],
        description="Close a unit of a map: no walk passes through it or into it. " + CLOSE,
    )
    async def close_unit(
        self,
        info: Info,
        unit_map_id: strawberry.ID,
        unit_id: strawberry.ID,
        until: Until = None,
        reason: Reason = None,
    ) -> Closure:
        found = await closure_fields.close(info.context, unit_map_id, None, unit_id, until, reason)
        return Closure(**found)

    @mutation(
        permission_classes=[requires(ADMIN, FLAG_DIRECTIONS)],
        description="Close a connector or a unit of a map, exactly one of `connectorId` "
        "and `unitId` (`PUT /v1/unitmaps/{unitMapId}/closures`). " + CLOSE,
    )
    async def close(
        self,
        info: Info,
        unit_map_id: strawberry.ID,
        connector_id: strawberry.ID | None = None,
        unit_id: strawberry.ID | None = None,
        until: Until = None,
        reason: Reason = None,
    ) -> Closure:
        found = await closure_fields.close(
            info.context, unit_map_id, connector_id, unit_id, until, reason
        )
        return Closure(**found)

    @mutation(
        permission_classes=[requires(ADMIN, FLAG_DIRECTIONS)],
        description="Reopen a closed connector or unit, exactly one of `connectorId` and "
        "`unitId`; false when it was not closed. Flag `directions`, needs service.admin.",
    )
    async def reopen(
        self,
        info: Info,
        unit_map_id: strawberry.ID,
        connector_id: strawberry.ID | None = None,
        unit_id: strawberry.ID | None = None,
    ) -> bool:
        return await closure_fields.reopen(info.context, unit_map_id, connector_id, unit_id)
