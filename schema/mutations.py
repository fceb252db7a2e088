"""Root mutations: operator writes, each behind its permission."""

from __future__ import annotations

import dataclasses
from typing import Any

import strawberry
from strawberry.types import Info

from resolvers.map_admin import put_unit_map
from resolvers.permissions import ADMIN
from schema.permissions import requires
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


def _record(value: Any) -> Any:
    """An input as a dataset record: plain dicts and lists, unset fields left out."""
    if dataclasses.is_dataclass(value):
        return {
            f.name: _record(getattr(value, f.name))
            for f in dataclasses.fields(value)
            if getattr(value, f.name) is not None
        }
    if isinstance(value, list):
        return [_record(item) for item in value]
    return value


@strawberry.type
class Mutation:
    @strawberry.mutation(
        permission_classes=[requires(ADMIN)],
        description="Create or replace a unit map with its SVG drawing: stores the source "
        "and the parsed document, derives the map's units and level tags, and writes the "
        "GeoJSON when georeferenced. Needs service.admin.",
    )
    async def put_unit_map(self, info: Info, input: UnitMapInput, svg: str) -> UnitMap:
        return await put_unit_map(info.context, _record(input), svg)
