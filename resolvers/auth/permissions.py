"""Permission names and experimental flag names, exactly as the spec writes them.

`service.metrics` is ours, not the spec's: a key for a metrics scraper. Held alone, it
reads `/metrics` and nothing else (`reads_metrics_only`: every other route refuses it
with 403, whatever its asset scope); held with other permissions, it adds `/metrics` to
what the key may do, as `service.admin` does (docs/deploy.md, "Metrics in a cluster").
"""

from __future__ import annotations

ASSET_REFERENCES_READ = "service.asset-references.read"
UNIT_REFERENCES_READ = "service.unit-references.read"
UNIT_MAPS_PARSE = "service.unit-maps.parse"
DISTANCES_CALCULATE = "service.distances.calculate"
UNIT_ATTRIBUTES_READ = "service.unit-attributes.read"
UNIT_ATTRIBUTES_WRITE = "service.unit-attributes.write"
ADMIN = "service.admin"
METRICS = "service.metrics"

# The permissions that let a key read /metrics from any address (over HTTPS).
METRICS_READERS: frozenset[str] = frozenset({METRICS, ADMIN})
# The refusal of a metrics-only key anywhere but /metrics (FORBIDDEN's `{permission}`).
BEYOND_METRICS = "to read data (this key holds service.metrics only: it reads /metrics)"

ALL_PERMISSIONS: tuple[str, ...] = (
    ASSET_REFERENCES_READ,
    UNIT_REFERENCES_READ,
    UNIT_MAPS_PARSE,
    DISTANCES_CALCULATE,
    UNIT_ATTRIBUTES_READ,
    UNIT_ATTRIBUTES_WRITE,
    ADMIN,
    METRICS,
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


def reads_metrics_only(permissions: frozenset[str]) -> bool:
    """A key for a scraper: `service.metrics` and no other permission."""
    return permissions == {METRICS}


def parse_flags(header: str | None) -> frozenset[str]:
    """`Experimental-Flags`: comma-separated, spaces ignored, case-insensitive."""
    if not header:
        return frozenset()
    return frozenset(part.strip().lower() for part in header.split(",") if part.strip())
