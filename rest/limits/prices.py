"""Rows of docs/limits.md's table of what work costs (issue 63): the price of each kind of
work an operation can ask for, counted into its cost before it runs, the one ceiling
every operation is held to on either face, and what a unit of a key's rate limit buys.
The OpenAPI document states the same ceiling and prices (`rest/v1/openapi/vocabulary.py`),
in words written here from the same values (`ceiling_words`, `PRICED_FIELDS`)."""

from __future__ import annotations

import resolvers.limits
from resolvers.errors import ErrorCode
from rest.limits.rows import Limit, Section, constant, count, said, whole
from rest.limits.values import COST_PER_UNIT, MAX_COST, PAIR_COST, PATH_SEARCH, VIA

PRICES = Section("prices", ("Work", "Price", "Constant or setting", "Counted"))

OPTIMIZED_VIA = constant(resolvers.limits, "MAX_OPTIMIZED_VIA")
CANDIDATE = constant(resolvers.limits, "NEAREST_CANDIDATE_COST")
UNLISTED = constant(resolvers.limits, "NEAREST_UNLISTED_CANDIDATES")
NEAREST_IDS = constant(resolvers.limits, "MAX_NEAREST_IDS")
SEARCH = constant(resolvers.limits, "SEARCH_COST")
VALIDATION_TOKENS = constant(resolvers.limits, "VALIDATION_TOKENS_PER_RATE_UNIT")
VALIDATION_FREE = constant(resolvers.limits, "VALIDATION_FREE_TOKENS")
PARSE_TOKENS = constant(resolvers.limits, "PARSE_TOKENS_PER_RATE_UNIT")


def validation_units(tokens: int) -> int:
    """Rate-limit units of validating a new document of `tokens` (as the guard charges)."""
    return -(-max(0, tokens - int(VALIDATION_FREE.value)) // int(VALIDATION_TOKENS.value))


def searches_within(ceiling: float) -> int:
    """How many path searches one operation may ask for under `ceiling`."""
    return int(ceiling // PATH_SEARCH.value)


def heaviest_route_searches() -> int:
    """The path searches of the heaviest route one operation may ask for: its stops'
    time matrix (a search per point: stops + 2), then a part per stop and the last."""
    stops = int(OPTIMIZED_VIA.value)
    return (stops + 2) + (stops + 1)


def nearest_price(ids: int) -> int:
    """What `to: {nearest: {ids}}` adds to a route: the candidates' search and each id."""
    return int(PATH_SEARCH.value + CANDIDATE.value * ids)


PRICES_ROWS: tuple[Limit, ...] = (
    Limit(
        PRICES,
        "One operation, on `/graphql` or REST (a route's document is priced as the same "
        "fields would be)",
        f"at most {count(MAX_COST.value)}: {searches_within(MAX_COST.value)} path searches",
        MAX_COST.code,
        f"422 `COST_LIMIT` on both faces, before anything runs: "
        f"{said(ErrorCode.COST_LIMIT, cost='N', limit=whole(MAX_COST.value))} (`/graphql` adds "
        "`cost` and `limit` to its extensions); the OpenAPI document states the ceiling",
        (MAX_COST, PATH_SEARCH),
    ),
    Limit(
        PRICES,
        "A unit of a key's rate limit",
        f"{count(COST_PER_UNIT.value)} of cost, at least one unit an operation",
        COST_PER_UNIT.code,
        "before it runs; a path search is about one unit, the ceiling "
        f"{count(MAX_COST.value / COST_PER_UNIT.value)}",
        (COST_PER_UNIT, MAX_COST),
    ),
    Limit(
        PRICES,
        "A path search of the walk graph: `route`, E18 per source (or target when fewer; "
        "none for straight lines), `search` with `near`",
        f"{count(PATH_SEARCH.value)}; E18 also {count(PAIR_COST.value)} per pair",
        f"{PATH_SEARCH.code}, {PAIR_COST.code}",
        "from the input's lists before anything runs; a route is one unit, a 7 x 7 E18 "
        "seven, 30 aliased routes are `COST_LIMIT` "
        f"({said(ErrorCode.COST_LIMIT, cost=270120, limit=whole(MAX_COST.value))})",
        (PATH_SEARCH, PAIR_COST, MAX_COST),
    ),
    Limit(
        PRICES,
        "A route's stops (`via`), and `optimize`",
        f"a search per stop; with `optimize` and two stops or more, the stops' time matrix: "
        f"stops + 2 searches more. At most {count(VIA.value)} stops, "
        f"{count(OPTIMIZED_VIA.value)} with `optimize` ({heaviest_route_searches()} "
        "searches: the heaviest route, the most walk-graph work one operation may do)",
        f"{VIA.code}, {OPTIMIZED_VIA.code}",
        f"from the list's length before anything runs; more stops are 422 on `via` (`must "
        f"hold at most {whole(OPTIMIZED_VIA.value)} waypoints with optimize, not 25`) before "
        "any work, priced as none",
        (VIA, OPTIMIZED_VIA, PATH_SEARCH),
    ),
    Limit(
        PRICES,
        "A route's `to: {nearest}`: the candidates' search, then each candidate looked up "
        "and joined to the walk graph",
        f"{count(PATH_SEARCH.value)} plus {count(CANDIDATE.value)} per candidate: "
        f"{count(nearest_price(int(NEAREST_IDS.value)))} for {count(NEAREST_IDS.value)} ids",
        f"{CANDIDATE.code}, {UNLISTED.code}",
        f"`ids` counted from the input; a `tags` or `q` as {count(UNLISTED.value)} "
        "candidates before it runs, those it finds beyond them charged after it ran (never "
        "refused: the work is done)",
        (PATH_SEARCH, CANDIDATE, UNLISTED, NEAREST_IDS),
    ),
    Limit(
        PRICES,
        "A `search` (`GET /v1/search`): its terms looked up in each asset's index",
        f"{count(SEARCH.value)} (`near`: a path search more, and the permission "
        "`service.distances.calculate`)",
        SEARCH.code,
        "`near` without the permission is 403 `Access denied: missing permission "
        "service.distances.calculate` before anything else is checked",
        (SEARCH, PATH_SEARCH),
    ),
    Limit(
        PRICES,
        "Validating a `/graphql` document (POST, GET or a WebSocket `subscribe`) the process "
        "has not validated yet",
        f"rate units, not cost: one per {count(VALIDATION_TOKENS.value)} tokens beyond "
        f"{count(VALIDATION_FREE.value)} (comments left out): {validation_units(442)} for "
        f"442 tokens, {validation_units(5000)} for 5,000, at most a full bucket less the "
        "request's unit",
        f"{VALIDATION_TOKENS.code}, {VALIDATION_FREE.code}, {PARSE_TOKENS.code}",
        "before validation, from the key's bucket (without a key, its address's); a document "
        "kept validated is not charged again, and requests of it at once wait for the one "
        "that pays. Past the bucket "
        f"{said(ErrorCode.RATE_LIMITED)} (`RATE_LIMITED`, Retry-After) before validation, its "
        f"parse owed: one unit per {count(PARSE_TOKENS.value)} tokens",
        (VALIDATION_TOKENS, VALIDATION_FREE, PARSE_TOKENS),
    ),
)


def ceiling_words(max_cost: int) -> str:
    """The ceiling as the OpenAPI document states it (with the deployment's setting)."""
    return (
        "Every operation is priced before it runs, a REST route as the same fields on "
        f"`/graphql`: one costing more than {max_cost:,} is refused with 422 `COST_LIMIT` on "
        f"either face, and each {count(COST_PER_UNIT.value)} of its cost spends a unit of "
        'the key\'s rate limit (at least one). Prices: docs/limits.md, "What work costs".'
    )


# What the routes whose price grows with their input cost, by their GraphQL field.
PRICED_FIELDS: dict[str, str] = {
    "route": f"Priced by its work: {count(PATH_SEARCH.value)} a path search; one more per "
    "`via` stop, and with `optimize` (two stops or more) stops + 2 more; `to.nearest` one "
    f"more and {count(CANDIDATE.value)} per candidate (`ids` counted, `tags` or `q` as "
    f"{count(UNLISTED.value)}, more charged after it ran). At most {count(VIA.value)} stops, "
    f"{count(OPTIMIZED_VIA.value)} with `optimize` (422 on `via`).",
    "distanceMatrix": f"Priced by its work: {count(PATH_SEARCH.value)} per source, or per "
    f"target when fewer (none for `euclidean`), and {count(PAIR_COST.value)} per pair.",
    "search": f"Priced {count(SEARCH.value)}; `near` adds a path search "
    f"({count(PATH_SEARCH.value)}) and needs the permission `service.distances.calculate`.",
}
