"""Logging of `floorgate serve`: uvicorn's configuration plus our logger, with every
line passed through `RedactKeys`, so that no line ever holds an API key.

Keys reach logs in request paths (`?api-key=...`, uvicorn's access log) and could reach
them in any message or traceback that quotes a request; both forms are replaced.
"""

from __future__ import annotations

import copy
import logging
import re
import traceback
from typing import Any

from uvicorn.config import LOGGING_CONFIG

from resolvers.keys import KEY_PREFIX

REDACTED = "[redacted]"
KEY_IN_QUERY = re.compile(r"(?i)(api-key=)[^&\s\"']*")
KEY_TEXT = re.compile(re.escape(KEY_PREFIX) + r"[A-Za-z0-9_-]{8,}")


def redact(text: str) -> str:
    return KEY_TEXT.sub(KEY_PREFIX + REDACTED, KEY_IN_QUERY.sub(r"\1" + REDACTED, text))


class RedactKeys(logging.Filter):
    """Rewrites a record's message, arguments and traceback before any handler sees it."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        elif isinstance(record.args, dict):
            record.args = {k: redact(v) if isinstance(v, str) else v
                           for k, v in record.args.items()}  # fmt: skip
        if record.exc_info and record.exc_info[0] is not None:
            record.exc_text = redact("".join(traceback.format_exception(*record.exc_info)))
            record.exc_info = None
        return True


def log_config() -> dict[str, Any]:
    """uvicorn's dictConfig with the filter on every handler, and `floorgate.*` at INFO."""
    config = copy.deepcopy(LOGGING_CONFIG)
    config["filters"] = {"redact_keys": {"()": "rest.logs.RedactKeys"}}
    for handler in config["handlers"].values():
        handler["filters"] = ["redact_keys"]
    config["loggers"]["floorgate"] = {"handlers": ["default"], "level": "INFO",
                                      "propagate": False}  # fmt: skip
    return config
