"""The persisted GraphQL documents of the REST routes.

Each selects the spec's snake_case fields through aliases, so the GraphQL
result under `result` is already the REST body.
"""

from __future__ import annotations

from typing import Any

PAGING = (
    "paging { per_page: perPage current_page: currentPage "
    "prev_page: prevPage next_page: nextPage total_count: totalCount }"
)
# A route's connector, as its leg and its connector maneuver both carry it.
ROUTE_CONNECTOR = (
    "connector { id kind x y from_level_uid: fromLevelUid to_level_uid: toLevelUid "
    "from_floor_id: fromFloorId to_floor_id: toFloorId distance time }"
)

FRAGMENTS = {
    "AssetFields": "fragment AssetFields on Asset { id market name display_name: displayName "
    "address_line1: addressLine1 address_line2: addressLine2 address_city: addressCity "
    "address_state: addressState address_postal_code: addressPostalCode "
    "address_country: addressCountry latitude longitude tags "
    "created_at: createdAt updated_at: updatedAt }",
    "FloorFields": "fragment FloorFields on Floor { id asset_id: assetId name label "
    "short_label: shortLabel sort created_at: createdAt updated_at: updatedAt }",
    "UnitFields": "fragment UnitFields on Unit { id asset_id: assetId floor_id: floorId name "
    "created_at: createdAt updated_at: updatedAt }",
    "ReducedUnitFields": "fragment ReducedUnitFields on Unit { id name "
    "created_at: createdAt updated_at: updatedAt }",
    "UnitMapFields": "fragment UnitMapFields on UnitMap { id asset_id: assetId "
    "background_id: backgroundId name style style_type: styleType tags "
    "routing_tier: routingTier geojson_url: geojsonUrl url "
    "created_at: createdAt updated_at: updatedAt }",
    "BackgroundFields": "fragment BackgroundFields on Background { id "
    "unit_map_id: unitMapId name created_at: createdAt updated_at: updatedAt }",
    "LevelTagFields": "fragment LevelTagFields on LevelTag { name key "
    "created_at: createdAt updated_at: updatedAt "
    "values { name value created_at: createdAt updated_at: updatedAt } }",
    "AssetReferenceFields": "fragment AssetReferenceFields on AssetReference { id "
    "asset_id: assetId key value created_at: createdAt updated_at: updatedAt }",
    "UnitReferenceFields": "fragment UnitReferenceFields on UnitReference { "
    "group_id: groupId asset_id: assetId unit_id: unitId key value "
    "created_at: createdAt updated_at: updatedAt }",
    "UnitReferenceGroupFields": "fragment UnitReferenceGroupFields on UnitReferenceGroup { "
    "id asset_id: assetId name created_at: createdAt updated_at: updatedAt }",
    "AttributeGroupFields": "fragment AttributeGroupFields on UnitAttributeGroup { "
    "group_id: groupId group_name: groupName one_attribute_per_unit: oneAttributePerUnit "
    "attributes { attribute_id: attributeId attribute_name: attributeName "
    "attribute_key: attributeKey } }",
    "AssignmentFields": "fragment AssignmentFields on UnitAttributeAssignment { "
    "group_id: groupId attribute_id: attributeId asset_id: assetId unit_id: unitId }",
    "AssignmentChangeFields": "fragment AssignmentChangeFields on "
    "UnitAttributeAssignmentChange { change cursor at assignment { group_id: groupId "
    "attribute_id: attributeId asset_id: assetId unit_id: unitId } }",
    "MatrixFields": "fragment MatrixFields on DistanceMatrix { "
    "distance_method: distanceMethod sources { id name x y floor_id: floorId index "
    "targets { id name x y floor_id: floorId index distance time } } }",
    "RouteFields": "fragment RouteFields on Directions { mode "
    "from { id name x y floor_id: floorId } to { id name x y floor_id: floorId } "
    "route { distance time steps geometry: geojson legs { level_uid: levelUid floor_id: floorId "
    f"points {{ x y }} distance time {ROUTE_CONNECTOR} }} "
    "maneuvers { type modifier bearing_before: bearingBefore bearing_after: bearingAfter "
    "location { x y } leg_index: legIndex point_index: pointIndex distance time "
    f"landmark {{ unit_id: unitId location_id: locationId name }} side {ROUTE_CONNECTOR} "
    "via_index: viaIndex instruction then { modifier bearing_before: bearingBefore "
    "bearing_after: bearingAfter location { x y } point_index: pointIndex } } } "
    "reason via { id name x y floor_id: floorId } "
    "visit_order: visitOrder optimized closures { unit_map_id: unitMapId kind "
    "connector_id: connectorId unit_id: unitId connector_kind: connectorKind name until "
    "reason } }",
    "ClosureFields": "fragment ClosureFields on Closure { unit_map_id: unitMapId kind "
    "connector_id: connectorId unit_id: unitId connector_kind: connectorKind name until "
    "reason }",
    "SearchResultFields": "fragment SearchResultFields on SearchResult { kind id name "
    "asset_id: assetId floor_id: floorId map_id: mapId location_id: locationId category "
    "score matched distance time closed }",
    "VectorTileFields": "fragment VectorTileFields on VectorTile { etag data features }",
    "LocationFields": "fragment LocationFields on Location { id asset_id: assetId "
    "unit_map_id: unitMapId name x y floors { id } "
    "tags { key value created_at: createdAt updated_at: updatedAt } "
    "created_at: createdAt updated_at: updatedAt }",
}

# Members the REST body leaves out when GraphQL answers null, by fragment: the spec's
# unit map `url` is a string "present in some responses", never null.
OMITTED_WHEN_NULL: dict[str, tuple[str, ...]] = {"UnitMapFields": ("url",)}


def without_nulls(fragment: str | None, items: list[dict[str, Any]]) -> None:
    """Drop the fragment's OMITTED_WHEN_NULL members that are null, in place."""
    for name in OMITTED_WHEN_NULL.get(fragment or "", ()):
        for item in items:
            if item is not None and item.get(name, "") is None:
                del item[name]


def query_document(
    variables: dict[str, str],
    field: str,
    fragment: str | None,
    *,
    wrapper: str | None = None,
    operation: str = "query",
) -> str:
    """`query ($v: T ...) { result: field(v: $v ...) { ...Fragment } }` plus the fragment.

    A field of scalar type (no fragment) is selected bare; `wrapper` selects the
    fields around `data` of an envelope (the paging object, an etag)."""
    names = sorted(variables)  # the same document whatever order a route lists them in
    declared = ", ".join(f"${name}: {variables[name]}" for name in names)
    arguments = ", ".join(f"{name}: ${name}" for name in names)
    head = f"{operation} ({declared})" if declared else operation
    call = f"{field}({arguments})" if arguments else field
    if fragment is None:
        return f"{head} {{ result: {call} }}"
    inner = f"{{ ...{fragment} }}"
    selection = f"{{ {wrapper} data {inner} }}" if wrapper else inner
    return f"{head} {{ result: {call} {selection} }}\n{FRAGMENTS[fragment]}"
