"""Limits of the OSM readers (docs/limits.md, `floorgate import-osm`), checked before
the data is parsed (the bytes) or while it is (elements, nesting, features)."""

from __future__ import annotations

MIB = 1024 * 1024

MAX_OSM_BYTES = 64 * MIB  # one file; a mall's extract is well under 1 MiB
MAX_OSM_ELEMENTS = 2_000_000  # XML elements (node, way, nd, tag, ...), counted as read
MAX_OSM_DEPTH = 16  # XML nesting: an OSM document needs 3 (osm, way, nd)
MAX_OSM_FEATURES = 500_000  # GeoJSON features
