"""What a map's SVG drawing gives the map when it is stored (docs/unit-map-svg.md).

A drawing is parsed once, while its import is validated; the writer then derives
from it the map's units (its UnitLayers), its level tags (the Levels' tags, with
names from the import), the parsed document and, with a georeference, the GeoJSON.
Every file of a map, the uploaded source too, gets a content-addressed name: its URL
can be cached for a year, and nobody can derive it from the map id alone.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson

from parsing.geo.geojson import geojson_bytes, map_geojson, repairs_summary
from parsing.geo.georeference import ControlPoint, fit_affine
from parsing.parsed_map import ParsedMap, document_bytes
from routing.build import build_walk_graph
from routing.model import WalkGraph, graph_bytes
from storage import collections as col
from storage.database import Store
from storage.files import (
    chunks,
    content_name,
    digest,
    get_file,
    is_stored,
    put_file,
)
from storage.limits import IN_CHUNK
from storage.transactions import Session

SVG_CONTENT_TYPE = "image/svg+xml"
SOURCE_SUFFIX = ".source.svg"  # content-addressed like the rest: no guessable address
MAP_JSON_CONTENT_TYPE = "application/vnd.map+json"
GEOJSON_CONTENT_TYPE = "application/geo+json"
GRAPH_CONTENT_TYPE = "application/vnd.floorgate.walk-graph+npz"
PATHFINDING = "pathfinding"


@dataclass
class Drawing:
    """A map's SVG bytes, their parse, and the walk graph they give (None: no paths)."""

    source: bytes
    parsed: ParsedMap
    graph: WalkGraph | None = field(init=False)

    def __post_init__(self) -> None:
        self.graph = build_walk_graph(self.parsed)


@dataclass(frozen=True)
class StoredDrawing:
    source_file: str
    parsed_file: str
    graph_file: str | None  # the walk graph, content-addressed; None without walk paths
    written: int  # files written
    unchanged: int  # files whose bytes were stored already


def map_tags(given: list[str], drawing: Drawing | None) -> list[str]:
    """A map with a drawing is tagged `pathfinding` exactly when it has a walk graph;
    without a drawing the tags are kept as given."""
    if drawing is None:
        return list(given)
    tags = [tag for tag in given if tag != PATHFINDING]
    return [*tags, PATHFINDING] if drawing.graph is not None else tags


def unit_ids(parsed: ParsedMap) -> list[str]:
    """The map's units: every unit id of its UnitLayers, once, in drawing order
    (a unit drawn on two levels, a duplex, is one unit of the map)."""
    return list(dict.fromkeys(unit.id for unit in parsed.units))


def level_tag_values(parsed: ParsedMap) -> dict[str, list[str]]:
    """Tag key -> its values, in the order the Levels carry them."""
    found: dict[str, dict[str, None]] = {}
    for level in parsed.levels:
        for key, value in level.tags.items():
            found.setdefault(key, {})[value] = None
    return {key: list(values) for key, values in found.items()}


def named_level_tags(
    parsed: ParsedMap, given: list[tuple[int, dict[str, Any]]]
) -> list[tuple[int, dict[str, Any]]]:
    """The map's level tags: keys and values from the drawing; names and timestamps
    from the import's `level_tags` where it gives them, else the key or value itself."""
    by_key = {tag["key"]: tag for _, tag in given if "key" in tag}
    tags: list[tuple[int, dict[str, Any]]] = []
    for index, (key, values) in enumerate(level_tag_values(parsed).items()):
        named = by_key.get(key, {})
        value_records = {v["value"]: v for _, v in named.get("values", []) if "value" in v}
        tag = {k: v for k, v in named.items() if k in ("created_at", "updated_at")}
        tag.update(key=key, name=named.get("name", key))
        tag["values"] = [
            (position, {"name": value, **value_records.get(value, {}), "value": value})
            for position, value in enumerate(values)
        ]
        tags.append((index, tag))
    return tags


def control_points(points: list[dict[str, Any]]) -> list[ControlPoint]:
    """Control points from their records (`{x, y, lon, lat}`), as given or as stored."""
    return [ControlPoint(x=p["x"], y=p["y"], lon=p["lon"], lat=p["lat"]) for p in points]


async def _put_unless_stored(
    store: Store, name: str, data: bytes, content_type: str, *, immutable: bool = False
) -> bool:
    """Store a file unless that name already holds these bytes, in one complete version
    (else it is stored again, replacing what a killed upload left); True when written."""
    if await is_stored(store, name, data):
        return False
    await put_file(store, name, data, content_type, immutable=immutable)
    return True


async def store_drawing(store: Store, map_id: str, drawing: Drawing) -> StoredDrawing:
    """The SVG source, the parsed document and the walk graph, each content-addressed:
    an uploaded drawing is nobody's to fetch by its map id alone, and a changed drawing
    gets a new name (`drop_replaced_files` drops the old one after the commit)."""
    source_name = content_name(map_id, drawing.source, SOURCE_SUFFIX)
    parsed = document_bytes(drawing.parsed)
    parsed_name = content_name(map_id, parsed, ".map.json")
    written = [
        await _put_unless_stored(
            store, source_name, drawing.source, SVG_CONTENT_TYPE, immutable=True
        ),
        await _put_unless_stored(store, parsed_name, parsed, MAP_JSON_CONTENT_TYPE, immutable=True),
    ]
    graph_name = None
    if drawing.graph is not None:
        graph = graph_bytes(drawing.graph)
        graph_name = content_name(map_id, graph, ".walk.npz")
        written.append(
            await _put_unless_stored(store, graph_name, graph, GRAPH_CONTENT_TYPE, immutable=True)
        )
    return StoredDrawing(source_name, parsed_name, graph_name, sum(written), written.count(False))


async def unit_names(store: Store, ids: Iterable[str], session: Session = None) -> dict[str, Any]:
    """The API name of each of these units (as `session` sees them): the GeoJSON's."""
    names: dict[str, Any] = {}
    for chunk in chunks(list(dict.fromkeys(ids)), IN_CHUNK):
        cursor = store[col.UNITS].find({"_id": {"$in": chunk}}, {"name": 1}, session=session)
        async for doc in cursor:
            names[doc["_id"]] = doc.get("name")
    return names


async def refresh_geojson(
    store: Store,
    map_id: str,
    document: dict[str, Any] | None = None,
    session: Session = None,
) -> str | None:
    """After the map or its locations changed: set its `locations_version` (a digest of
    its locations, which per-process caches key on) and (re)write its GeoJSON from what
    `session` sees: its parsed document (or `document`, when the caller has it in memory
    already), its georeference, its locations and its units' names.

    The GeoJSON file is stored outside the session (content-addressed, it is harmless
    until the map names it); the file it replaces is dropped after the commit
    (`drop_replaced_files`). Returns the georeference summary, or None without one.
    """
    unit_map = await store[col.UNIT_MAPS].find_one({"_id": map_id}, session=session)
    if unit_map is None:
        return None
    cursor = store[col.LOCATIONS].find({"unit_map_id": map_id}, session=session)
    locations = await cursor.sort("_id").to_list()

    async def names(ids: list[str]) -> dict[str, Any]:
        return await unit_names(store, ids, session)

    changes, summary = await geojson_changes(store, unit_map, locations, document, names)
    if changes:
        await store[col.UNIT_MAPS].update_one({"_id": map_id}, {"$set": changes}, session=session)
    return summary


async def geojson_changes(
    store: Store,
    unit_map: dict[str, Any],
    locations: list[dict[str, Any]],
    document: dict[str, Any] | None,
    names_of: Callable[[list[str]], Awaitable[dict[str, Any]]],
) -> tuple[dict[str, Any], str | None]:
    """What `refresh_geojson` sets on the map (nothing when it holds it already) and the
    georeference summary, from the map, its locations in id order (changed here: `_id`
    becomes `id`) and its units' names (`names_of`); a staged import gives what it
    would have written (`storage.imports.writer`)."""
    map_id = unit_map["_id"]
    for location in locations:
        location["id"] = location.pop("_id")
    version = digest(orjson.dumps(locations, option=orjson.OPT_SORT_KEYS))
    geojson_name: str | None = None
    summary: str | None = None
    reference = unit_map.get("georeference")
    parsed_file = unit_map.get("parsed_file")
    if reference and parsed_file and document is None:
        stored = await get_file(store, parsed_file)
        document = orjson.loads(stored.data) if stored else None
    if reference and document is not None:
        fit = fit_affine(control_points(reference["control_points"]))
        names = await names_of(unit_map.get("unit_ids") or [])
        heights = {
            str(level.get("uid")): level["height"]
            for level in unit_map.get("levels") or []
            if isinstance(level.get("height"), int)
        }
        collection = map_geojson(
            document, fit, locations, map_id=map_id, unit_names=names, level_heights=heights
        )
        data = geojson_bytes(collection)
        geojson_name = content_name(map_id, data, ".geojson")
        await _put_unless_stored(store, geojson_name, data, GEOJSON_CONTENT_TYPE, immutable=True)
        summary = fit.summary()
        if repaired := repairs_summary(collection):  # polygons invalid on the 1e-7 grid
            summary = f"{summary}; {repaired}"
    changes = {"geojson_file": geojson_name, "locations_version": version}
    if all(unit_map.get(name) == value for name, value in changes.items()):
        return {}, summary
    return changes, summary
