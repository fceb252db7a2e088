"""The types of `search` (issue 47): one place found, and a page of them."""

import strawberry

from schema.types import Paging


@strawberry.type(
    description="A place a search found: a unit, or a location that stands for no unit."
)
class SearchResult:
    kind: str = strawberry.field(description="`unit` or `location`.")
    id: strawberry.ID = strawberry.field(description="The unit's id, or the location's.")
    name: str | None
    asset_id: strawberry.ID
    floor_id: strawberry.ID | None
    map_id: strawberry.ID | None = strawberry.field(
        description="The map of `locationId` (the one asked for, when one is)."
    )
    location_id: strawberry.ID | None = strawberry.field(
        description="The map location to route to; null when the place is on no map."
    )
    category: str | None = strawberry.field(
        description="The place's kind where known: IMDF category, amenity, or a tag's value."
    )
    score: float = strawberry.field(description="In (0, 1]: how well it matched.")
    matched: str = strawberry.field(
        description="What matched: `name`, `alt_name`, `id`, `category` or `tag`."
    )
    distance: float | None = strawberry.field(
        description="Feet walked from `near` in `mode`; null without `near` or unreachable."
    )
    time: float | None = strawberry.field(
        description="Seconds walked from `near` in `mode`; null without `near` or unreachable."
    )
    closed: bool | None = strawberry.field(
        description="Whether a closure of `unitMapId` closes it now (listed after open "
        "places); null without `unitMapId`."
    )


@strawberry.type
class SearchPage:
    paging: Paging
    data: list[SearchResult]
