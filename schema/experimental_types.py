"""GraphQL types of the experimental resources: references, unit attributes, locations.

Plain fields resolve straight from the stored dicts, like every other type.
"""

from typing import Any

import strawberry

from resolvers.limits import MAX_NEAREST_IDS, MAX_SEARCH_CHARS, WGS84_WAYPOINT_MARGIN_M
from resolvers.wayfinding.costing import EXCLUDE_WORDS, PENALTY_SECONDS, WALKING_SPEED_KMH
from schema.language import NAMES_FIELD, Name
from schema.records import record_input
from schema.scalars import Timestamp
from storage.limits import REFERENCE_KEY_PATTERN


@strawberry.type(description="An asset's id in a third-party system (experimental).")
class AssetReference:
    id: strawberry.ID
    asset_id: strawberry.ID
    key: str = strawberry.field(description=f"The third-party system: {REFERENCE_KEY_PATTERN}.")
    value: str = strawberry.field(description="The asset's id in that system.")
    created_at: Timestamp
    updated_at: Timestamp


@strawberry.type(
    description="A unit's id in a third-party system (experimental). A provider with two "
    "keys uses `<provider>` for the unit space (a composite `a_b` for one provider) and "
    "`<provider>-unit-ids` for the unit."
)
class UnitReference:
    group_id: strawberry.ID
    asset_id: strawberry.ID
    unit_id: strawberry.ID
    key: str
    value: str
    created_at: Timestamp
    updated_at: Timestamp


@strawberry.type(
    description="A group of unit references of an asset (a unit reference's `groupId`), as "
    "the vendor's `units/reference-groups` lists them."
)
class UnitReferenceGroup:
    id: strawberry.ID
    asset_id: strawberry.ID
    name: str | None = strawberry.field(description="Its name; null when none was given.")
    created_at: Timestamp = strawberry.field(description="Of its earliest reference.")
    updated_at: Timestamp = strawberry.field(description="Of its latest reference.")


@strawberry.type(description="An attribute of an attribute group.")
class UnitAttribute:
    attribute_id: strawberry.ID
    attribute_name: str
    attribute_key: str


@strawberry.type(description="A group of unit attributes (experimental).")
class UnitAttributeGroup:
    group_id: strawberry.ID
    group_name: str
    one_attribute_per_unit: bool = strawberry.field(
        description="When true, a unit holds at most one attribute of the group."
    )
    attributes: list[UnitAttribute]


@strawberry.type(description="A unit-to-attribute assignment (experimental).")
class UnitAttributeAssignment:
    group_id: strawberry.ID
    attribute_id: strawberry.ID
    asset_id: strawberry.ID
    unit_id: strawberry.ID


@record_input  # E21/E22 send up to 10,000 of them
@strawberry.input(description="A unit-to-attribute assignment to add or remove.")
class UnitAttributeAssignmentInput:
    group_id: strawberry.ID
    attribute_id: strawberry.ID
    asset_id: strawberry.ID
    unit_id: strawberry.ID


@strawberry.type(description="A floor a location is on.")
class LocationFloor:
    id: strawberry.ID


@strawberry.type(description="A tag of a location, such as `svc:amenity` = `yes`.")
class LocationTag:
    key: str
    value: str
    created_at: Timestamp
    updated_at: Timestamp


@strawberry.type(description="A point of interest on a unit map (experimental).")
class Location:
    id: strawberry.ID
    asset_id: strawberry.ID
    unit_map_id: strawberry.ID
    name: str
    x: float = strawberry.field(description="Canvas x of the map.")
    y: float = strawberry.field(description="Canvas y of the map.")
    floors: list[LocationFloor]
    tags: list[LocationTag]
    created_at: Timestamp
    updated_at: Timestamp
    names: list[Name] = NAMES_FIELD


@strawberry.type(description="The locations of a map and a validator of exactly this answer.")
class LocationList:
    etag: str = strawberry.field(
        description="Changes whenever the map or any listed location changes; REST sends "
        "it as the ETag of E17."
    )
    data: list[Location]


@strawberry.input(
    description="The candidates of a route's destination: exactly one of `q`, `tags` or "
    "`ids`. The route goes to the candidate reached in the least time in the route's mode "
    "(ties: distance, then location id), measured by one search from `from`."
)
class NearestInput:
    q: str | None = strawberry.field(
        default=None,
        description=f"A search text ({MAX_SEARCH_CHARS} characters at most): every place of "
        "the map it finds.",
    )
    tags: str | None = strawberry.field(
        default=None,
        description="The locations of the map that pass this tag filter, as `locations(tags:)` "
        "reads it (`svc:amenity==yes`).",
    )
    ids: list[strawberry.ID] | None = strawberry.field(
        default=None, description=f"Location ids of the map, at most {MAX_NEAREST_IDS}."
    )


@strawberry.input(
    description="A point of a distance matrix or a route: a location of the map by `id` "
    "(other fields filled from it, and must agree with it when given), or `x`, `y` and "
    "`floorId`, or, on a georeferenced map, `lon`, `lat` and `floorId` or `level`; or, "
    "alone and only as a route's `to`, `nearest`."
)
class WaypointInput:
    id: strawberry.ID | None = None
    name: str | None = None
    x: float | None = None
    y: float | None = None
    floor_id: strawberry.ID | None = None
    lon: float | None = strawberry.field(
        default=None,
        description="WGS84 longitude, with `lat` (not with `x`, `y` or `id`): placed on the "
        "map by the inverse of its georeference, within "
        f"{WGS84_WAYPOINT_MARGIN_M:g} m of its level's outline.",
    )
    lat: float | None = strawberry.field(default=None, description="WGS84 latitude, with `lon`.")
    level: str | None = strawberry.field(
        default=None,
        description="With `lon` and `lat`, instead of `floorId`: the level as the map's "
        'GeoJSON and tiles name it (its ordinal as a string, "0", "1", "-1").',
    )
    nearest: NearestInput | None = strawberry.field(
        default=None,
        description="Only a route's `to`, with no other field: the route goes to the nearest "
        "of these candidates, which the answer's `to` names.",
    )


def _penalty(use: str) -> Any:
    """A penalty field: seconds added to a route's time per use (its distance unchanged)."""
    low, high = PENALTY_SECONDS
    return strawberry.field(
        default=None,
        description=f"Seconds added for {use}, from {low:g} to {high:g} (default 0): the "
        "route avoids it unless the detour costs more. Time only; distance is unchanged.",
    )


@strawberry.input(
    description="Valhalla's pedestrian costing options (docs/routing.md, Costing options)."
)
class PedestrianOptionsInput:
    mode: str | None = strawberry.field(
        default=None,
        description="`foot` (default) or `wheelchair` (never uses stairs or escalators).",
    )
    walking_speed: float | None = strawberry.field(
        default=None,
        description=f"Walking speed in km/h, from {WALKING_SPEED_KMH[0]:g} to "
        f"{WALKING_SPEED_KMH[1]:g}; default the server's setting for the mode. Scales the "
        "time of everything walked; stairs and elevators keep their times per floor.",
    )
    step_penalty: float | None = _penalty("each flight of stairs taken (between two floors)")
    elevator_penalty: float | None = _penalty("each elevator ride")
    escalator_penalty: float | None = _penalty("each escalator taken (between two floors)")
    ramp_penalty: float | None = _penalty("each ramp taken (between two floors)")
    exclude: list[str] | None = strawberry.field(
        default=None,
        description=f"Connector kinds never used: any of {', '.join(EXCLUDE_WORDS)} (a "
        "kind given twice counts once).",
    )


@strawberry.input
class CostingOptionsInput:
    pedestrian: PedestrianOptionsInput | None = None


@record_input  # up to 51 waypoints converted on every E18 request
@strawberry.input(description="At most 50 source-target pairs (sources x targets).")
class DistanceMatrixInput:
    sources: list[WaypointInput]
    targets: list[WaypointInput]
    costing: str | None = strawberry.field(default=None, description="`pedestrian` (default).")
    costing_options: CostingOptionsInput | None = None
    distance_method: str | None = strawberry.field(
        default=None,
        description="`default` (pathfinding when the map has walk paths, else euclidean), "
        "`pathfinding` or `euclidean`.",
    )


@strawberry.type(description="A waypoint as requested (filled from its location).")
class MatrixWaypoint:
    id: strawberry.ID | None
    name: str | None
    x: float
    y: float
    floor_id: strawberry.ID | None
    index: int = strawberry.field(description="Position in the request's list.")


@strawberry.type(description="A target of a source: feet and seconds, null when unreachable.")
class MatrixTarget(MatrixWaypoint):
    distance: float | None
    time: float | None


@strawberry.type(description="A source with every target, in request order.")
class MatrixSource(MatrixWaypoint):
    targets: list[MatrixTarget]


@strawberry.type(description="Distances and walking times between waypoints of a map.")
class DistanceMatrix:
    distance_method: str = strawberry.field(description="The method used.")
    sources: list[MatrixSource]
