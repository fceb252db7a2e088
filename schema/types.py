"""GraphQL object types. Plain fields resolve straight from the stored dicts
(no resolver method); relations go through the request's DataLoaders."""

from collections.abc import Callable
from typing import Any

import strawberry
from strawberry.types import Info

from resolvers.auth.permissions import (
    ASSET_REFERENCES_READ,
    FLAG_LOCATIONS,
    FLAG_REFERENCES,
    UNIT_REFERENCES_READ,
)
from resolvers.loaders import units_of_map
from resolvers.locations import filtered, parse_tags
from schema.decorators import field
from schema.experimental_types import (
    AssetReference,
    Location,
    UnitAttributeAssignment,
    UnitReference,
    UnitReferenceGroup,
)
from schema.language import NAMES_FIELD, Name
from schema.permissions import requires
from schema.scalars import Timestamp
from storage.files import file_url

Document = dict[str, Any]


def _page_address(info: Info, paging: Document, page: int | None) -> str | None:
    """The REST address of `page` of the list `paging` belongs to (`resolvers.paging.tell_list`
    names it), as REST's paging links; None without a page or outside an HTTP request."""
    listing = paging.get("list")
    make: Callable[[str, dict[str, Any], int, int], str | None] | None = (
        getattr(info.context, "services", None) and info.context.services.page_url
    )  # `Services.page_url`
    if page is None or listing is None or make is None:
        return None
    return make(listing[0], listing[1], page, paging["per_page"])


@strawberry.type(description="Page information of a paged list.")
class Paging:
    per_page: int
    current_page: int
    prev_page: int | None = strawberry.field(description="Previous page number, null on page 1.")
    next_page: int | None = strawberry.field(description="Next page number, null on the last.")
    total_count: int | None = strawberry.field(
        description="How many items the whole list holds, when known without another scan "
        "of it: on the page that reaches the list's end; else null (docs/api.md, Paging)."
    )

    @field(
        description="REST address of the previous page of the same list (REST's "
        "`prev_url`), null on page 1."
    )
    def prev_url(self, info: Info, root: strawberry.Parent[Document]) -> str | None:
        return _page_address(info, root, root.get("prev_page"))

    @field(
        description="REST address of the next page of the same list (REST's "
        "`next_url`), null on the last."
    )
    def next_url(self, info: Info, root: strawberry.Parent[Document]) -> str | None:
        return _page_address(info, root, root.get("next_page"))


@strawberry.type(description="A unit of an asset (an apartment, a unit space).")
class Unit:
    id: strawberry.ID
    asset_id: strawberry.ID
    floor_id: strawberry.ID
    name: str
    created_at: Timestamp
    updated_at: Timestamp
    names: list[Name] = NAMES_FIELD

    @field(
        permission_classes=[requires(UNIT_REFERENCES_READ, FLAG_REFERENCES)],
        description="The unit's ids in third-party systems, by key (experimental: flag "
        "`references`, permission service.unit-references.read).",
    )
    async def references(
        self, info: Info, root: strawberry.Parent[Document]
    ) -> list[UnitReference]:
        return await info.context.loaders.unit_references_by_unit.load(root["id"])  # type: ignore[no-any-return]  # stored dicts: strawberry reads them by key


@strawberry.type(description="A floor of an asset.")
class Floor:
    id: strawberry.ID
    asset_id: strawberry.ID
    name: str
    label: str
    short_label: str
    sort: int
    created_at: Timestamp
    updated_at: Timestamp
    names: list[Name] = NAMES_FIELD

    @field(description="Units on this floor, by id.")
    async def units(self, info: Info, root: strawberry.Parent[Document]) -> list[Unit]:
        return await info.context.loaders.units_by_floor.load(root["id"])  # type: ignore[no-any-return]  # stored dicts: strawberry reads them by key


@strawberry.type(description="A background image of a unit map.")
class Background:
    id: strawberry.ID
    unit_map_id: strawberry.ID
    name: str
    created_at: Timestamp
    updated_at: Timestamp
    names: list[Name] = NAMES_FIELD


@strawberry.type(description="One value of a level tag.")
class LevelTagValue:
    name: str
    value: str
    created_at: Timestamp
    updated_at: Timestamp


@strawberry.type(description="A level tag of a unit map, such as `building` or `floor`.")
class LevelTag:
    name: str
    key: str
    values: list[LevelTagValue]
    created_at: Timestamp
    updated_at: Timestamp


def _file_address(info: Info, name: str | None) -> str | None:
    """A stored file's address under `{cdn_url}`, or None without a file."""
    return file_url(info.context.settings.files_url, name) if name else None


@strawberry.type(description="An interactive floor-plan map.")
class UnitMap:
    id: strawberry.ID
    asset_id: strawberry.ID
    background_id: strawberry.ID | None
    name: str
    style: str
    style_type: str
    tags: list[str]
    routing_tier: str
    created_at: Timestamp
    updated_at: Timestamp
    names: list[Name] = NAMES_FIELD

    @field(
        description="Address of the parsed map document (application/vnd.map+json) under "
        "the file store; null for a map without a drawing. Content-addressed: a changed "
        "drawing gets a new address."
    )
    def url(self, info: Info, root: strawberry.Parent[Document]) -> str | None:
        return _file_address(info, root.get("parsed_file"))

    @field(description="Address of the map's GeoJSON (RFC 7946, WGS84) when it is georeferenced.")
    def geojson_url(self, info: Info, root: strawberry.Parent[Document]) -> str | None:
        return _file_address(info, root.get("geojson_file"))

    @field(description="Units drawn on this map, by id.")
    async def units(self, info: Info, root: strawberry.Parent[Document]) -> list[Unit]:
        return await units_of_map(info.context.loaders, root)  # type: ignore[return-value]  # stored dicts: strawberry reads them by key

    @field(description="Backgrounds of this map, by id.")
    async def backgrounds(self, info: Info, root: strawberry.Parent[Document]) -> list[Background]:
        return await info.context.loaders.backgrounds_by_map.load(root["id"])  # type: ignore[no-any-return]  # stored dicts: strawberry reads them by key

    @field(description="Level tags of this map, by key.")
    async def level_tags(self, info: Info, root: strawberry.Parent[Document]) -> list[LevelTag]:
        return await info.context.loaders.level_tags_by_map.load(root["id"])  # type: ignore[no-any-return]  # stored dicts: strawberry reads them by key

    @field(
        permission_classes=[requires(flag=FLAG_LOCATIONS)],
        description="Locations on this map, by id, filtered by `tags` as E17 "
        "(experimental: flag `locations-resource`).",
    )
    async def locations(
        self, info: Info, root: strawberry.Parent[Document], tags: str | None = None
    ) -> list[Location]:
        terms = parse_tags(tags)
        return filtered(await info.context.loaders.locations_by_map.load(root["id"]), terms)  # type: ignore[return-value]  # stored dicts: strawberry reads them by key


@strawberry.type(description="A property (an asset) with its floors, units and maps.")
class Asset:
    id: strawberry.ID
    market: str
    name: str
    display_name: str | None = strawberry.field(description="A shorter name for display.")
    address_line1: str | None
    address_line2: str | None
    address_city: str | None
    address_state: str | None = strawberry.field(description="State, province or region.")
    address_postal_code: str | None
    address_country: str | None = strawberry.field(description="Country, as given (ISO code).")
    latitude: float | None = strawberry.field(description="WGS84 degrees.")
    longitude: float | None = strawberry.field(description="WGS84 degrees.")
    tags: list[str] | None = strawberry.field(description="Tags of the asset; null if none.")
    created_at: Timestamp
    updated_at: Timestamp
    names: list[Name] = NAMES_FIELD

    @field(description="Floors of this asset, by sort position then id.")
    async def floors(self, info: Info, root: strawberry.Parent[Document]) -> list[Floor]:
        return await info.context.loaders.floors_by_asset.load(root["id"])  # type: ignore[no-any-return]  # stored dicts: strawberry reads them by key

    @field(description="Units of this asset, by id.")
    async def units(self, info: Info, root: strawberry.Parent[Document]) -> list[Unit]:
        return await info.context.loaders.units_by_asset.load(root["id"])  # type: ignore[no-any-return]  # stored dicts: strawberry reads them by key

    @field(description="Unit maps of this asset, by id.")
    async def unit_maps(self, info: Info, root: strawberry.Parent[Document]) -> list[UnitMap]:
        return await info.context.loaders.maps_by_asset.load(root["id"])  # type: ignore[no-any-return]  # stored dicts: strawberry reads them by key

    @field(
        permission_classes=[requires(ASSET_REFERENCES_READ, FLAG_REFERENCES)],
        description="The asset's ids in third-party systems, by id (experimental: flag "
        "`references`, permission service.asset-references.read).",
    )
    async def references(
        self, info: Info, root: strawberry.Parent[Document]
    ) -> list[AssetReference]:
        return await info.context.loaders.asset_references_by_asset.load(root["id"])  # type: ignore[no-any-return]  # stored dicts: strawberry reads them by key


@strawberry.type
class AssetPage:
    paging: Paging
    data: list[Asset]


@strawberry.type
class FloorPage:
    paging: Paging
    data: list[Floor]


@strawberry.type
class UnitPage:
    paging: Paging
    data: list[Unit]


@strawberry.type
class UnitMapPage:
    paging: Paging
    data: list[UnitMap]


@strawberry.type
class BackgroundPage:
    paging: Paging
    data: list[Background]


@strawberry.type
class AssetReferencePage:
    paging: Paging
    data: list[AssetReference]


@strawberry.type
class UnitReferencePage:
    paging: Paging
    data: list[UnitReference]


@strawberry.type
class UnitReferenceGroupPage:
    paging: Paging
    data: list[UnitReferenceGroup]


@strawberry.type
class UnitAttributeAssignmentPage:
    paging: Paging
    data: list[UnitAttributeAssignment]
