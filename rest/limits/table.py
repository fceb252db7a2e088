"""The one table of limits: every row of docs/limits.md's tables, section by section in
the page's order. A new limit is a row in its section's module (`connections.py`,
`live.py`, `inputs.py`, `osm.py`, `prices.py`, `memory.py`), then `make generate`.
"""

from __future__ import annotations

from rest.limits.connections import CALLERS, CALLERS_ROWS, HTTP, HTTP_ROWS
from rest.limits.inputs import (
    GRAPHQL,
    GRAPHQL_ROWS,
    IMPORT_IMDF,
    IMPORT_IMDF_ROWS,
    REST_INPUTS,
    REST_INPUTS_ROWS,
)
from rest.limits.live import LIVE, LIVE_ROWS
from rest.limits.memory import CACHES, CACHES_ROWS, PARSE_WORKERS, PARSE_WORKERS_ROWS
from rest.limits.osm import IMPORT_OSM, IMPORT_OSM_ROWS
from rest.limits.prices import PRICES, PRICES_ROWS
from rest.limits.rows import Limit, Section

SECTIONS: tuple[Section, ...] = (
    HTTP,
    CALLERS,
    LIVE,
    GRAPHQL,
    PRICES,
    REST_INPUTS,
    IMPORT_IMDF,
    IMPORT_OSM,
    CACHES,
    PARSE_WORKERS,
)
LIMITS: tuple[Limit, ...] = (
    *HTTP_ROWS,
    *CALLERS_ROWS,
    *LIVE_ROWS,
    *GRAPHQL_ROWS,
    *PRICES_ROWS,
    *REST_INPUTS_ROWS,
    *IMPORT_IMDF_ROWS,
    *IMPORT_OSM_ROWS,
    *CACHES_ROWS,
    *PARSE_WORKERS_ROWS,
)
