"""Limits of the API that are not deployment settings: one place for each number.

Limits of the data itself (id length, reference key pattern) are in `storage.limits`.
"""

from __future__ import annotations

MAX_FILTER_LENGTH = 255
DEFAULT_PER_PAGE = 100
MAX_PER_PAGE = 10000
INT32_MAX = 2**31 - 1
MAX_MATRIX_PAIRS = 50  # sources x targets of one distance matrix (E18)
MAX_INPUT_ITEMS = 10000  # items of any one list in a request body or GraphQL variables
# |x| and |y| of a waypoint, in drawing units: far beyond any drawing, small enough that
# squared distances stay finite.
MAX_COORDINATE = 1e9
# Rate-limit units of one operation: one per this much GraphQL cost, at least one
# (docs/api.md, Limits). Every REST route at the default page size costs one unit.
COST_PER_RATE_UNIT = 10_000
# A request without a key can only introspect the GraphQL schema: its body is refused
# unread (401) above this size.
MAX_UNAUTHENTICATED_BODY_BYTES = 64 * 1024
