"""The OSM place as the conversion works on it, in metres on a local plane: its units
(spaces) by level, doors, points of interest and connectors between levels (docs/osm.md).
Data (c) OpenStreetMap contributors, ODbL."""

from __future__ import annotations

from dataclasses import dataclass, field

from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from parsing.osm.levels import level_text


@dataclass
class Space:
    """A unit to be: one OSM area on one level."""

    id: str
    level: float
    shape: BaseGeometry  # Polygon or MultiPolygon, metres
    category: str
    tags: dict[str, str]
    source: str  # the OSM element, `way/123`
    connector_end: bool = False  # the foot of a connector made from a node or a line
    walkway: bool = False  # made by parsing/osm/walkways.py: a cut keeps its walkway rule


@dataclass
class Connector:
    """A way between levels: its kind (stairs, elevator, escalator, ramp) and the units it
    stands in, one per level, lowest level first."""

    id: str
    kind: str
    units: list[str]
    source: str


@dataclass
class Place:
    """What the conversion makes of an OSM file before it is written as IMDF features."""

    asset: str
    spaces: list[Space] = field(default_factory=list)
    connectors: list[Connector] = field(default_factory=list)
    levels: set[float] = field(default_factory=set)
    walkable_feet: set[str] = field(default_factory=set)  # connector feet people walk to

    def on_level(self, level: float) -> list[Space]:
        return [space for space in self.spaces if space.level == level]


def element_id(asset: str, source: str, level: float | None = None) -> str:
    """An id made of the asset's and the element's (`caserne-way-398056920`), with the level
    for an element on several (`...-level--1`): unique across assets and imports, and
    free of `/` so that it fits a URL path."""
    base = f"{asset}-{source.replace('/', '-')}"
    return base if level is None else f"{base}-level-{level_text(level)}"


def polygons(shape: BaseGeometry) -> list[Polygon]:
    """The non-empty polygons of a Polygon, a MultiPolygon or a collection."""
    found = getattr(shape, "geoms", [shape])
    return [g for g in found if isinstance(g, Polygon) and not g.is_empty]
