"""The venue health report of `venueHealth` (issue 65, point 6; docs/imdf.md, "The
health report"): the document `routing.imdf.health.health_document` writes, its
top-level fields typed and its lists as that document's JSON (one object type: each
type the schema gains costs GraphiQL's keyless introspection about 200 of its 20,000,
tests/schema/test_operation_limits.py). Every field resolves by default from it."""

import strawberry
from strawberry.scalars import JSON


@strawberry.type(description="A venue's health report (docs/imdf.md, The health report).")
class VenueHealth:
    asset_id: strawberry.ID
    format: int = strawberry.field(description="Of the report's fields: 1.")
    levels: int = strawberry.field(
        description="Levels of the venue at its import (0: none stored)."
    )
    parts: list[str] = strawberry.field(
        description="`import` (stored by import-imdf or import-osm), `live` (found now)."
    )
    worst: str | None = strawberry.field(
        description="The worst severity found (`error`, `warning`, `note`), or null."
    )
    lines: list[str] = strawberry.field(
        description="Every finding on one line, worst first, as `floorgate check` prints it."
    )
    findings: JSON = strawberry.field(
        description="Every finding, worst first: `[{severity, kind, subject, detail, level, "
        "modes, reason, line}]`."
    )
    counts: JSON = strawberry.field(description="Findings per kind: `[{kind, count}]`.")
    level_pairs: JSON = strawberry.field(
        description="Every pair of levels: `[{lower, lower_name, upper, upper_name, foot, "
        "wheelchair, connectors: [{kind, count}], via}]`."
    )
    tiles_checked: int = strawberry.field(description="Tiles z14-18 encoded for the report.")
    accuracy: JSON | None = strawberry.field(
        description="Route accuracy on a seeded sample: `{pairs, median, p90, max, seed, "
        "worst: [{source, target, map_id, route_m, exact_m, ratio}]}`; null until measured."
    )
    notes: list[str] = strawberry.field(description="What could not be found, and why.")
