"""The REST routes of /v1 as one table per area (reads, wayfinding, writes, search,
tiles, the vendor paths of markets), joined in one place: each row is a persisted GraphQL
document.

The joined table, `ROUTES`, is the single description of the REST surface: the router
serves it, and the OpenAPI document and the planned routes are generated from it, with
each row's example request and the demo's recorded answer to it. The areas' tables are
joined here and only here, in this order (the order of the OpenAPI document's paths);
what a row is made of is `rest.v1.routes.rows`. A new row goes into its area's table and
needs nothing else but `make generate` (docs/architecture.md, "Where to add").
"""

from __future__ import annotations

from rest.v1.routes.market import EXAMPLE_MARKET, MARKET_ALIASES
from rest.v1.routes.reads import READS
from rest.v1.routes.rows import RestRoute, with_market_aliases
from rest.v1.routes.search import SEARCH
from rest.v1.routes.tiles import TILES
from rest.v1.routes.wayfinding import WAYFINDING
from rest.v1.routes.writes import WRITES

FLAT_ROUTES: tuple[RestRoute, ...] = (*READS, *WAYFINDING, *WRITES, *SEARCH, *TILES)
ROUTES: tuple[RestRoute, ...] = with_market_aliases(FLAT_ROUTES, MARKET_ALIASES, EXAMPLE_MARKET)
