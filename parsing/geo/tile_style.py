"""The TileJSON 3.0.0 document of an asset's vector tiles and a MapLibre style (spec
version 8) drawing them level by level (docs/tiles.md). Pure: the addresses are given."""

from __future__ import annotations

from typing import Any

from parsing.geo.tile_features import LAYER_FIELDS
from parsing.geo.tiles import TileIndex

CENTER_ZOOM = 18
SOURCE = "floorgate"
# Paint of each style layer: (style layer id, type, source layer, paint).
STYLE_LAYERS: tuple[tuple[str, str, str, dict[str, Any]], ...] = (
    ("outline", "fill", "outline", {"fill-color": "#f4f1ea", "fill-outline-color": "#8c8c8c"}),
    ("spaces", "fill", "spaces", {"fill-color": "#e4e9ee", "fill-outline-color": "#b5bec8"}),
    ("units", "fill", "units", {"fill-color": "#dfe9d8", "fill-opacity": 0.9}),
    ("units-line", "line", "units", {"line-color": "#5b6770", "line-width": 1}),
    ("openings", "line", "openings", {"line-color": "#ffffff", "line-width": 3}),
    (
        "locations",
        "circle",
        "locations",
        {
            "circle-radius": 4,
            "circle-color": "#2f6db5",
            "circle-stroke-color": "#ffffff",
            "circle-stroke-width": 1,
        },
    ),
)


def default_level(levels: tuple[str, ...]) -> str | None:
    """The level a style shows first: "0" (the ground, by IMDF's ordinals) when drawn,
    else the lowest level; None without levels."""
    if "0" in levels:
        return "0"
    return levels[0] if levels else None


def level_filter(level: str) -> list[Any]:
    """Features on `level`, also those on several levels (`"0;1"` is on 0 and on 1)."""
    return [
        "any",
        ["==", ["get", "level"], level],
        ["in", f";{level};", ["concat", ";", ["get", "level"], ";"]],
    ]


def tile_json(
    index: TileIndex,
    name: str,
    tiles_url: str,
    min_zoom: int,
    max_zoom: int,
    attribution: str | None = None,
) -> dict[str, Any]:
    """TileJSON 3.0.0: the tiles' address template, bounds, center, zooms, each source
    layer with its fields, and the data's `attribution` when it has one (a map library
    shows it); `levels`, `level_names` (a level without a name is left out),
    `default_level` and, when the index had to repair or leave out features
    (`build_index`), `invalid_geometry` as members of our own."""
    document: dict[str, Any] = {
        "tilejson": "3.0.0",
        "name": name,
        "scheme": "xyz",
        "tiles": [tiles_url],
        "minzoom": min_zoom,
        "maxzoom": max_zoom,
        "vector_layers": [
            {
                "id": layer,
                "fields": dict(fields),
                "minzoom": min_zoom,
                "maxzoom": max_zoom,
            }
            for layer, fields in LAYER_FIELDS.items()
        ],
        "levels": list(index.levels),
        "level_names": dict(index.level_names),
        "default_level": default_level(index.levels),
    }
    if attribution:
        document["attribution"] = attribution
    if index.repaired or index.left_out:  # a file stored before imports made them valid
        document["invalid_geometry"] = {
            "repaired": list(index.repaired),
            "left_out": list(index.left_out),
        }
    if index.bounds is not None:
        west, south, east, north = index.bounds
        document["bounds"] = [west, south, east, north]
        document["center"] = [(west + east) / 2, (south + north) / 2, CENTER_ZOOM]
    return document


def map_style(index: TileIndex, name: str, tile_json_url: str, min_zoom: int) -> dict[str, Any]:
    """A MapLibre style of the tiles alone (no base map, no text: no glyphs are served),
    each layer filtered to the default level; a page switches levels by setting every
    layer's filter to `level_filter(level)` (`metadata` lists the levels)."""
    level = default_level(index.levels)
    style: dict[str, Any] = {
        "version": 8,
        "name": name,
        "metadata": {
            "floorgate:levels": list(index.levels),
            "floorgate:default_level": level,
        },
        "sources": {SOURCE: {"type": "vector", "url": tile_json_url}},
        "layers": [
            {
                "id": layer_id,
                "type": kind,
                "source": SOURCE,
                "source-layer": source_layer,
                "minzoom": min_zoom,
                **({"filter": level_filter(level)} if level is not None else {}),
                "paint": paint,
            }
            for layer_id, kind, source_layer, paint in STYLE_LAYERS
        ],
    }
    if index.bounds is not None:
        west, south, east, north = index.bounds
        style["center"] = [(west + east) / 2, (south + north) / 2]
        style["zoom"] = CENTER_ZOOM
    return style
