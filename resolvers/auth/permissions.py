"""Permission names and experimental flag names, exactly as the spec writes them."""

from __future__ import annotations

ASSET_REFERENCES_READ = "service.asset-references.read"
UNIT_REFERENCES_READ = "service.unit-references.read"
UNIT_MAPS_PARSE = "service.unit-maps.parse"
DISTANCES_CALCULATE = "service.distances.calculate"
UNIT_ATTRIBUTES_READ = "service.unit-attributes.read"
UNIT_ATTRIBUTES_WRITE = "service.unit-attributes.write"
ADMIN = "service.admin"

ALL_PERMISSIONS: tuple[str, ...] = (
    ASSET_REFERENCES_READ,
    UNIT_REFERENCES_READ,
    UNIT_MAPS_PARSE,
    DISTANCES_CALCULATE,
    UNIT_ATTRIBUTES_READ,
    UNIT_ATTRIBUTES_WRITE,
    ADMIN,
)

FLAG_REFERENCES = "references"
FLAG_UNIT_ATTRIBUTES = "unit-attributes-resource"
FLAG_DISTANCES = "distances"
FLAG_LOCATIONS = "locations-resource"
FLAG_DIRECTIONS = "directions"
FLAG_SEARCH = "search"

ALL_FLAGS: tuple[str, ...] = (
    FLAG_REFERENCES,
    FLAG_UNIT_ATTRIBUTES,
    FLAG_DISTANCES,
    FLAG_LOCATIONS,
    FLAG_DIRECTIONS,
    FLAG_SEARCH,
)


def parse_flags(header: str | None) -> frozenset[str]:
    """`Experimental-Flags`: comma-separated, spaces ignored, case-insensitive."""
    if not header:
        return frozenset()
    return frozenset(part.strip().lower() for part in header.split(",") if part.strip())
