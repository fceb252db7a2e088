"""Limits of the OSM readers (docs/limits.md, `floorgate import-osm`), checked before
the data is parsed (the bytes), while it is (elements, nesting, counts of each kind,
tags, nodes of a way, members of a relation) or before a shape is built (units and
levels). Each is far above the real venues (docs/osm.md, "Limits": a large station has
fewer than 1,000 nodes, 30 tags on an element, 140 rooms on a level) and low enough
that a file within them is read in seconds and a small multiple of its size."""

from __future__ import annotations

MIB = 1024 * 1024

MAX_OSM_BYTES = 64 * MIB  # one file; a mall's extract is well under 1 MiB
MAX_OSM_ELEMENTS = 1_000_000  # XML elements (node, way, nd, tag, ...), counted as read
MAX_OSM_DEPTH = 16  # XML nesting: an OSM document needs 3 (osm, way, nd)
MAX_OSM_GEOJSON_BYTES = 16 * MIB  # a GeoJSON file: read whole, it takes ~12x its size
MAX_OSM_FEATURES = 500_000  # GeoJSON features
MAX_OSM_POSITIONS = 20_000  # positions of one GeoJSON feature (its rings or lines together)
MAX_OSM_NODES = 200_000  # <node> elements of one file
MAX_OSM_WAYS = 50_000  # <way> elements of one file
MAX_OSM_RELATIONS = 10_000  # <relation> elements of one file
MAX_OSM_WAY_NODES = 2_000  # <nd> of one way: OSM's own API refuses more
MAX_OSM_MEMBERS = 5_000  # <member> of one relation
MAX_OSM_TAGS = 200  # tags of one element or GeoJSON feature
MAX_OSM_TAG_CHARS = 255  # characters of a tag's key or value: OSM's own API refuses more
MAX_OSM_UNITS = 10_000  # indoor areas (rooms, areas, corridors) of one file, all levels
MAX_OSM_LEVEL_UNITS = 2_500  # of them on one level
MAX_OSM_LEVELS = 200  # distinct levels those areas stand on
MAX_OSM_UNIT_POSITIONS = 100_000  # their outlines' positions, all units together
