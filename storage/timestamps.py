"""Timestamps are stored as the exact strings the API serves.

The spec's form `YYYY-MM-DDTHH:MM:SS+00:00` is fixed-width, so strings sort in
time order and the hot read path needs no conversion per field.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

TIMESTAMP_PATTERN = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$")


def format_timestamp(moment: datetime) -> str:
    """Render an aware (or UTC-naive) datetime in the stored form."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S+00:00")


def now() -> str:
    return format_timestamp(datetime.now(UTC))


def normalize_timestamp(text: str) -> str:
    """Accept any ISO 8601 timestamp with an offset and return the stored form."""
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        raise ValueError("timestamp needs an offset, for example +00:00")
    return format_timestamp(moment)
