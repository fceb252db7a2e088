"""Limits of the API that are not deployment settings: one place for each number."""

from __future__ import annotations

MAX_ID_LENGTH = 255
MAX_FILTER_LENGTH = 255
DEFAULT_PER_PAGE = 100
MAX_PER_PAGE = 10000
INT32_MAX = 2**31 - 1
REFERENCE_KEY_PATTERN = r"^[a-z]{1}[a-z0-9-]{1,254}$"
MAX_DISTANCE_PAIRS = 50
