"""Logging of `floorgate serve`: uvicorn's configuration plus our loggers, with every
line passed through `RedactKeys`, so that no line ever holds an API key.

Keys reach logs in request paths (`?api-key=...`, the access log) and could reach
them in any message or traceback that quotes a request; both forms are replaced.

The access log is ours (`AccessLine`, written by `rest.middleware.Boundary` to
`floorgate.access` on stdout; uvicorn's is off): one structured line per request,
formatted only when a handler writes it, redacted by itself without a regular
expression unless the line holds something that looks like a key.
"""

from __future__ import annotations

import contextlib
import copy
import logging
import re
import traceback
from datetime import UTC, datetime
from typing import Any
from urllib.parse import unquote

import orjson
from uvicorn.config import LOGGING_CONFIG

from resolvers.auth.keys import KEY_PREFIX

REDACTED = "[redacted]"
# A request's method and target are logged up to this many characters (the rest is
# counted, not kept): a 64 KB query string must not be held by, or written into, a line.
MAX_LOGGED_FIELD = 2048
# Bytes kept past it, so that a key cut at the edge is still seen whole and redacted.
KEY_MARGIN = 256
# Any other record's message, and its traceback, are cut to this many characters.
MAX_LOG_LINE = 16 * 1024
KEY_IN_QUERY = re.compile(r"(?i)(api-key=)[^&\s\"']*")
KEY_TEXT = re.compile(re.escape(KEY_PREFIX) + r"[A-Za-z0-9_-]{8,}")


def redact(text: str) -> str:
    return KEY_TEXT.sub(KEY_PREFIX + REDACTED, KEY_IN_QUERY.sub(r"\1" + REDACTED, text))


def may_hold_key(text: str) -> bool:
    """Cheap and never wrong the unsafe way: False only if `redact` would change nothing."""
    return KEY_PREFIX in text or "api-key" in text.lower()


def safe_target(raw_path: bytes, query: bytes) -> str:
    """The request target as sent, keys redacted, printable. A key percent-encoded
    (`api-key=%66g_...`) is still a key to the app, so a target with `%` is checked
    decoded, and written decoded if it holds one."""
    text = (raw_path + b"?" + query if query else raw_path).decode("latin-1")
    if "%" in text:
        decoded = unquote(text, encoding="latin-1")
        if may_hold_key(decoded):
            text = redact(decoded)
    elif may_hold_key(text):
        text = redact(text)
    return text if text.isprintable() else text.encode("unicode_escape").decode("ascii")


def clipped(data: bytes) -> bytes:
    """What an access line keeps of a request's field: enough to show MAX_LOGGED_FIELD
    characters after redaction, never the whole of a huge one."""
    return data[: MAX_LOGGED_FIELD + KEY_MARGIN]  # the same object when short


def shortened(text: str, size: int, limit: int = MAX_LOGGED_FIELD) -> str:
    """`text` up to `limit` characters, and the size of the whole when it was cut."""
    if len(text) <= limit and size <= limit:
        return text
    return f"{text[:limit]}...[{size} bytes]"


def cut_to_line(text: str) -> str:
    """A message or traceback within MAX_LOG_LINE characters: its start and its end
    (a traceback's last lines say what failed)."""
    if len(text) <= MAX_LOG_LINE:
        return text
    half = MAX_LOG_LINE // 2 - 32
    return f"{text[:half]}\n...[{len(text) - 2 * half} characters left out]...\n{text[-half:]}"


class AccessLine:
    """One request of the access log. Passed as the record's message: `logging` calls
    `str()` only when a handler writes the line, and `RedactKeys` leaves it alone (it
    redacts itself). `method=GET path=/v1/assets?per-page=2 status=200 ms=1.8
    client=127.0.0.1 id=3f2a...`"""

    __slots__ = (
        "client",
        "cut",
        "key_id",
        "method",
        "milliseconds",
        "query",
        "raw_path",
        "request_id",
        "route",
        "size",
        "status",
    )

    def __init__(
        self,
        method: str,
        raw_path: bytes,
        query: bytes,
        status: int | None,
        milliseconds: float,
        client: str,
        request_id: str,
        route: str = "",
        key_id: str | None = None,
        cut: bool = False,
    ) -> None:
        self.method = method[:MAX_LOGGED_FIELD]
        path = raw_path.split(b"?", 1)[0]  # httpx's test transport puts the query in it
        self.size = len(path) + len(query) + (1 if query else 0)  # of the target, as sent
        self.raw_path = clipped(path)
        self.query = clipped(query)
        self.status = status
        self.milliseconds = milliseconds
        self.client = client
        self.request_id = request_id
        self.route = route  # the route template (rest/ops/metrics.py route_label)
        self.key_id = key_id  # the key's id, never the key
        self.cut = cut  # the connection ended before the whole answer was handed to it

    def _method(self) -> str:
        if self.method.isalpha():
            return self.method
        return shortened(safe_target(self.method.encode(), b""), len(self.method))

    def _target(self) -> str:
        return shortened(safe_target(self.raw_path, self.query), self.size)

    def __str__(self) -> str:
        status = "-" if self.status is None else self.status  # no answer was started
        return (
            f"method={self._method()} path={self._target()} "
            f"status={status} ms={self.milliseconds:.1f} client={self.client} "
            f"id={self.request_id}{' cut=true' if self.cut else ''}"
        )

    def fields(self) -> dict[str, Any]:
        """The line's members for the JSON format (`FLOORGATE_LOG_FORMAT=json`)."""
        return {
            "request_id": self.request_id,
            "method": self._method(),
            "route": self.route,
            "path": self._target(),
            "status": self.status,
            "ms": round(self.milliseconds, 2),
            "client": self.client,
            "key_id": self.key_id,
            "cut": self.cut,
        }


ACCESS = logging.getLogger("floorgate.access")
# Key of a request's scope state: the connection ended (the client left, or the send
# timeout dropped it) while the answer was still being handed to it (rest/ops/server.py).
ANSWER_CUT = "answer_cut"


def write_access(line: AccessLine) -> None:
    """`ACCESS.info(line)` without the caller lookup (a walk up the stack the line does
    not print): about a quarter of the cost of a line. Call only when
    `ACCESS.isEnabledFor(logging.INFO)`."""
    ACCESS.handle(ACCESS.makeRecord(ACCESS.name, logging.INFO, __file__, 0, line, (), None))


class RedactKeys(logging.Filter):
    """Rewrites a record's message, arguments and traceback before any handler sees it."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        elif isinstance(record.args, dict):
            record.args = {
                k: redact(v) if isinstance(v, str) else v for k, v in record.args.items()
            }
        if isinstance(record.msg, str) and (len(record.msg) > MAX_LOG_LINE or record.args):
            with contextlib.suppress(TypeError, ValueError, KeyError):  # the handler's to say
                message = record.getMessage()
                if len(message) > MAX_LOG_LINE:
                    record.msg, record.args = cut_to_line(message), ()
        if record.exc_info and record.exc_info[0] is not None:
            text = "".join(traceback.format_exception(*record.exc_info))
            record.exc_text = cut_to_line(redact(text))
            record.exc_info = None
        return True


class JsonLines(logging.Formatter):
    """One JSON object per line (`FLOORGATE_LOG_FORMAT=json`): `time` (UTC, ISO 8601),
    `level`, `logger`, then the access line's members, or `message` (and `traceback`).
    Records were redacted by `RedactKeys` before they get here."""

    def format(self, record: logging.LogRecord) -> str:
        stamp = datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds")
        line: dict[str, Any] = {
            "time": stamp.replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
        }
        if isinstance(record.msg, AccessLine):
            line.update(record.msg.fields())
        else:
            line["message"] = record.getMessage()
            if record.exc_text:
                line["traceback"] = record.exc_text
        return orjson.dumps(line).decode()


def log_config(access_log: bool = True, json: bool = False) -> dict[str, Any]:
    """uvicorn's dictConfig with the filter on every handler, `floorgate.*` at INFO, and
    our access log on stdout (where uvicorn's went) unless turned off
    (`FLOORGATE_ACCESS_LOG=off`: the logger is then above INFO and costs one check).
    With `json`, every line of every logger is one JSON object (`JsonLines`)."""
    config = copy.deepcopy(LOGGING_CONFIG)
    config["filters"] = {"redact_keys": {"()": "rest.ops.logs.RedactKeys"}}
    # A plain format: uvicorn's coloured one copies every record it formats.
    config["formatters"]["access_line"] = {"format": "%(levelname)s:     %(message)s"}
    if json:
        for name in list(config["formatters"]):
            config["formatters"][name] = {"()": "rest.ops.logs.JsonLines"}
    config["handlers"]["access_lines"] = {
        "formatter": "access_line",
        "stream": "ext://sys.stdout",
        "class": "logging.StreamHandler",
    }
    for handler in config["handlers"].values():
        handler["filters"] = ["redact_keys"]
    config["loggers"]["floorgate"] = {"handlers": ["default"], "level": "INFO", "propagate": False}
    config["loggers"]["floorgate.access"] = {
        "handlers": ["access_lines"],
        "propagate": False,
        "level": "INFO" if access_log else "WARNING",
    }
    return config
