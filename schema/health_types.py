"""The venue health report of `venueHealth` (issue 65, point 6; docs/imdf.md, "The
health report"), typed field by field: the document `routing.imdf.health.health_document`
writes, whose snake_case keys each field reads by default (camelCase in GraphQL)."""

import strawberry


@strawberry.type(description="One thing a venue lacks, as `floorgate check --venue` lists it.")
class HealthFinding:
    severity: str = strawberry.field(description="`error`, `warning` or `note`.")
    kind: str = strawberry.field(
        description="What kind of finding (docs/imdf.md lists them), e.g. `levels-not-joined`."
    )
    subject: str = strawberry.field(description="What it is about: a place, a pair of levels.")
    detail: str = strawberry.field(description="One sentence a mapper can act on.")
    level: str = strawberry.field(description="The level name(s), empty when none applies.")
    modes: list[str] = strawberry.field(description="The modes it stops: `foot`, `wheelchair`.")
    reason: str = strawberry.field(
        description="A reachability reason code (docs/imdf.md), empty when none applies."
    )
    line: str = strawberry.field(description="The finding on one line, as the command prints.")


@strawberry.type(description="How many of something: findings of a kind, connectors of a kind.")
class KindCount:
    kind: str
    count: int


@strawberry.type(description="Two levels of a venue: joined or not, and by what.")
class LevelPair:
    lower: str = strawberry.field(description="The lower level's id (level order).")
    lower_name: str
    upper: str = strawberry.field(description="The upper level's id.")
    upper_name: str
    foot: bool = strawberry.field(description="Whether a walk joins them.")
    wheelchair: bool = strawberry.field(description="Whether a step-free walk joins them.")
    connectors: list[KindCount] = strawberry.field(
        description="The connectors joining them directly, by kind (stairs, elevator, "
        "escalator, ramp, a door between levels of one ordinal)."
    )
    via: list[str] = strawberry.field(
        description="With no direct connector: the levels a walk goes through, by name."
    )


@strawberry.type(description="One sampled pair: the route's length against the exact walk.")
class AccuracyPair:
    source: str
    target: str
    map_id: strawberry.ID
    route_m: float = strawberry.field(description="The route's length, metres.")
    exact_m: float = strawberry.field(description="The exact shortest walk, metres.")
    ratio: float = strawberry.field(description="`routeM / exactM`.")


@strawberry.type(description="Route accuracy on a seeded sample of pairs (docs/routing.md).")
class RouteAccuracy:
    pairs: int = strawberry.field(description="Pairs measured.")
    median: float
    p90: float
    max: float
    seed: int = strawberry.field(description="The sample's seed: the same pairs each import.")
    worst: list[AccuracyPair] = strawberry.field(description="The worst pairs, worst first.")


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
    findings: list[HealthFinding] = strawberry.field(description="Every finding, worst first.")
    counts: list[KindCount] = strawberry.field(description="Findings per kind.")
    level_pairs: list[LevelPair] = strawberry.field(description="Every pair of levels.")
    tiles_checked: int = strawberry.field(description="Tiles z14-18 encoded for the report.")
    accuracy: RouteAccuracy | None = strawberry.field(
        description="Route accuracy on a seeded sample; null when not measured."
    )
    notes: list[str] = strawberry.field(description="What could not be found, and why.")
