"""Rows of docs/limits.md's table of `floorgate import-osm`, the limits of the OSM
readers (parsing/osm/limits.py) and of the place made of a file (docs/osm.md)."""

from __future__ import annotations

from rest.limits.rows import Limit, Section, count, names, size, whole
from rest.limits.values import (
    NESTING,
    OSM_BYTES,
    OSM_DEPTH,
    OSM_ELEMENTS,
    OSM_FEATURES,
    OSM_GEOJSON_BYTES,
    OSM_LEVEL_UNITS,
    OSM_LEVELS,
    OSM_MEMBERS,
    OSM_NODES,
    OSM_POSITIONS,
    OSM_RELATIONS,
    OSM_TAG_CHARS,
    OSM_TAGS,
    OSM_UNIT_POSITIONS,
    OSM_UNITS,
    OSM_WAY_NODES,
    OSM_WAYS,
)

IMPORT_OSM = Section("import-osm")

# `floorgate import-osm` (docs/osm.md): every refusal is one line, `Nothing was imported:
# PATH: ...`, exit 1, the dry run too; nothing written. What it makes is an IMDF venue.
IMPORT_OSM_ROWS: tuple[Limit, ...] = (
    Limit(
        IMPORT_OSM,
        "Bytes of the file",
        size(OSM_BYTES.value),
        f"{OSM_BYTES.code} ({OSM_BYTES.path})",
        f"`PATH: N bytes, at most {whole(OSM_BYTES.value)}`, from the file's size, before a "
        "byte is read",
        (OSM_BYTES,),
    ),
    Limit(
        IMPORT_OSM,
        "XML elements (node, way, nd, tag, member, ...), counted while read 32 KiB at a time",
        count(OSM_ELEMENTS.value),
        OSM_ELEMENTS.code,
        f"`PATH: more than {whole(OSM_ELEMENTS.value)} XML elements (line L)`",
        (OSM_ELEMENTS,),
    ),
    Limit(
        IMPORT_OSM,
        "XML nesting; entities and DTDs (none is loaded or expanded, nothing fetched)",
        f"{count(OSM_DEPTH.value)}; none",
        OSM_DEPTH.code,
        f"`PATH: elements nested more than {whole(OSM_DEPTH.value)} levels deep (line L)`; "
        "`PATH: XML entities are not allowed (...)`",
        (OSM_DEPTH,),
    ),
    Limit(
        IMPORT_OSM,
        "Nodes, ways, relations of one file; nodes of a way, members of a relation; each "
        "counted as it is read",
        f"{', '.join(count(c.value) for c in (OSM_NODES, OSM_WAYS, OSM_RELATIONS))}; "
        f"{count(OSM_WAY_NODES.value)}, {count(OSM_MEMBERS.value)}",
        names(OSM_NODES, OSM_WAYS, OSM_RELATIONS, OSM_WAY_NODES, OSM_MEMBERS),
        f"`PATH: node N: more than {whole(OSM_NODES.value)} nodes in one file` (ways, "
        f"relations alike); `PATH: way N: more than {whole(OSM_WAY_NODES.value)} nodes "
        f"(<nd>)`; `PATH: relation N: more than {whole(OSM_MEMBERS.value)} members`",
        (OSM_NODES, OSM_WAYS, OSM_RELATIONS, OSM_WAY_NODES, OSM_MEMBERS),
    ),
    Limit(
        IMPORT_OSM,
        "Tags of an element or GeoJSON feature; characters of a tag's key or value",
        f"{count(OSM_TAGS.value)}; {count(OSM_TAG_CHARS.value)}",
        names(OSM_TAGS, OSM_TAG_CHARS),
        f"`PATH: way N: more than {whole(OSM_TAGS.value)} tags`; `PATH: way N: tag 'K' "
        f"longer than {whole(OSM_TAG_CHARS.value)} characters (key or value)` (GeoJSON: "
        "`feature ID`)",
        (OSM_TAGS, OSM_TAG_CHARS),
    ),
    Limit(
        IMPORT_OSM,
        "Indoor areas (units) of the file, on one level; levels; positions of their outlines;"
        " before any shape is built",
        f"{count(OSM_UNITS.value)}, {count(OSM_LEVEL_UNITS.value)}; {count(OSM_LEVELS.value)}; "
        f"{count(OSM_UNIT_POSITIONS.value)}",
        names(OSM_UNITS, OSM_LEVEL_UNITS, OSM_LEVELS, OSM_UNIT_POSITIONS),
        f"`PATH: way/N: more than {whole(OSM_UNITS.value)} indoor areas (units) in one file` "
        f"(`on level L` past {whole(OSM_LEVEL_UNITS.value)}); `PATH: way/N: more than "
        f"{whole(OSM_LEVELS.value)} levels in one file`; `PATH: way/N: units outlined by more "
        f"than {whole(OSM_UNIT_POSITIONS.value)} positions in one file`",
        (OSM_UNITS, OSM_LEVEL_UNITS, OSM_LEVELS, OSM_UNIT_POSITIONS),
    ),
    Limit(
        IMPORT_OSM,
        "GeoJSON bytes (read whole); features; positions of a feature; nesting",
        f"{size(OSM_GEOJSON_BYTES.value)}; {count(OSM_FEATURES.value)}; "
        f"{count(OSM_POSITIONS.value)}; {count(NESTING.value)}",
        names(OSM_GEOJSON_BYTES, OSM_FEATURES, OSM_POSITIONS, NESTING),
        f"`PATH: N bytes of GeoJSON, at most {whole(OSM_GEOJSON_BYTES.value)}`; `PATH: N "
        f"features, at most {whole(OSM_FEATURES.value)}`; `PATH: feature ID: more than "
        f"{whole(OSM_POSITIONS.value)} positions`; `PATH: arrays and objects nested deeper "
        f"than {whole(NESTING.value)} levels`",
        (OSM_GEOJSON_BYTES, OSM_FEATURES, OSM_POSITIONS, NESTING),
    ),
    Limit(
        IMPORT_OSM,
        "The venue made of it",
        "as `import-imdf` above",
        "-",
        "as above",
    ),
)
