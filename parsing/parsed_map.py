"""The parsed unit map: the document as served (application/vnd.map+json) and the canvas
geometry beside it (levels, unit outlines, walk lines, connectors) that the walk graph
and unit locations are built from. What `parsing.svg.parse_unit_map` returns."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

MEDIA_TYPE = "application/vnd.map+json"


@dataclass(frozen=True, slots=True)
class LevelInfo:
    """A level of the map: its uid, name, `data-tag-*` tags, `data-level-index` and
    `data-level-height` (its height in floors, docs/svg-parsing.md)."""

    uid: str
    name: str
    tags: dict[str, str]
    index: int | None  # data-level-index if an integer
    line: int | None  # source line of the level's <g> (None for the implicit level)
    height: int | None = None  # data-level-height if an integer


@dataclass(frozen=True, slots=True)
class UnitShape:
    """A Unit's outline in canvas coordinates (the document's numbers, as floats)."""

    id: str
    uid: str
    level_uid: str | None
    points: tuple[tuple[float, float], ...]  # the outline (the outer ring)
    line: int | None
    # Interior rings (docs/svg-parsing.md, "Holes"): courtyards, shafts; none for most.
    holes: tuple[tuple[tuple[float, float], ...], ...] = ()


@dataclass(frozen=True, slots=True)
class WalkLine:
    """A line, polyline or (sub)path inside a `paths` layer, flattened, canvas coordinates."""

    uid: str
    level_uid: str | None
    points: tuple[tuple[float, float], ...]
    access: str | None  # data-access


@dataclass(frozen=True, slots=True)
class Connector:
    """An element with data-connector and data-connector-id, where it stands."""

    uid: str
    level_uid: str | None
    kind: str
    connector_id: str
    centre: tuple[float, float]  # bbox centre, canvas coords


@dataclass(frozen=True, slots=True)
class ParsedMap:
    """What a unit-map SVG says: the document as served, and its canvas geometry."""

    document: dict[str, Any]  # the parsed document exactly as served (application/vnd.map+json)
    feet_per_unit: float  # data-feet-per-unit on <svg>, default 1
    levels: tuple[LevelInfo, ...]  # document order
    units: tuple[UnitShape, ...]  # every Unit of every UnitLayer, document order
    walk_lines: tuple[WalkLine, ...]
    connectors: tuple[Connector, ...]


def document_bytes(parsed: ParsedMap) -> bytes:
    """The served bytes of the parsed document; same input, same bytes."""
    return orjson.dumps(parsed.document)
