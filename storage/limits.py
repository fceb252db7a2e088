"""Limits of the data itself, shared by the importer and the API (which imports them)."""

from __future__ import annotations

import re

MAX_ID_LENGTH = 255
# The spec's `^[a-z]{1}[a-z0-9-]{1,254}$`; use with `fullmatch` (`$` would accept a "\n").
REFERENCE_KEY = re.compile(r"[a-z][a-z0-9-]{1,254}")
