"""docs/limits.md stays true: every setting it names is read, every constant it names
exists, every plain default its tables state is the code's value, and every refusal it
quotes is the service's message. The tables are written from `rest/limits/`
(tests/rest/limits checks the table; tests/docs/test_generated_files.py that the page is
current): these read the page itself, as a client does."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import parsing.imdf.read
import parsing.limits
import parsing.osm.limits
import resolvers.limits
import rest.graphql_http.sockets
import rest.middleware
import rest.ops.linger
import rest.ops.logs
import rest.ops.readiness
import rest.ops.tls_gate
import routing.matrix
import storage.attributes.hub
import storage.attributes.pacing
import storage.attributes.subscriptions
import storage.cache.change_journal
import storage.cache.change_watch
import storage.cache.page_bounds
import storage.cache.read_cache
import storage.cache.switch_gate
import storage.imdf.files
import storage.limits
from resolvers.errors import ERRORS, ErrorCode
from storage.settings import SETTINGS, Settings
from storage.settings_fields import value_at

PAGE = (Path(__file__).parents[2] / "docs" / "limits.md").read_text(encoding="utf-8")
MODULES = (
    resolvers.limits,
    storage.limits,
    parsing.limits,
    rest.ops.logs,
    rest.middleware,
    rest.ops.linger,
    rest.ops.tls_gate,
    storage.attributes.subscriptions,
    storage.attributes.hub,
    storage.attributes.pacing,
    rest.graphql_http.sockets,
    storage.imdf.files,
    parsing.imdf.read,
    parsing.osm.limits,
    rest.ops.readiness,
    storage.cache.change_journal,
    storage.cache.change_watch,
    storage.cache.page_bounds,
    storage.cache.read_cache,
    storage.cache.switch_gate,
    routing.matrix,
)
UNITS = {"": 1, "KiB": 1024, "MiB": 1024 * 1024, "s": 1, "characters": 1}
# A table row whose Setting cell is one name (and maybe its module), and whose Default is
# one quantity: `| 8 KiB | `MAX_TARGET_BYTES` |`.
PLAIN = re.compile(
    r"^\| [^|]+ \| (?P<number>[\d,.]+)(?: (?P<unit>KiB|MiB|s|characters))?(?: per \w+)? "
    r"\| `(?P<name>[A-Z][A-Z_]+)`(?: \(`(?P<module>[a-z/_]+)\.py`\))? \|",
    re.MULTILINE,
)
# Refusals of a limit, with the values of the defaults, as a client reads them.
QUOTED = {
    ErrorCode.URI_TOO_LONG: {"limit": resolvers.limits.MAX_TARGET_BYTES},
    ErrorCode.HEADERS_TOO_LARGE: {"limit": Settings().max_header_bytes},
    ErrorCode.DOCUMENT_TOO_LARGE: {"limit": Settings().graphql_max_document_bytes},
    ErrorCode.PAYLOAD_TOO_LARGE: {},
    ErrorCode.RATE_LIMITED: {},
    ErrorCode.REQUEST_TIMEOUT: {},
    ErrorCode.SERVICE_UNAVAILABLE: {},
    ErrorCode.METHOD_NOT_ALLOWED: {},
    ErrorCode.BAD_REQUEST: {},
    ErrorCode.UNAUTHENTICATED: {},
    ErrorCode.PERSISTED_QUERY_HASH_MISMATCH: {},
    ErrorCode.PERSISTED_QUERY_VERSION: {},
    ErrorCode.PERSISTED_QUERY_NOT_ALLOWED: {},
    ErrorCode.TOO_MANY_SOCKETS: {"limit": Settings().max_sockets_per_key},
    ErrorCode.WRITE_TOO_LARGE: {
        "documents": "N",
        "asset": '"a"',
        "limit": f"{Settings().import_max_documents:,}",
    },
}


def test_every_setting_named_is_read():
    named = set(re.findall(r"FLOORGATE_[A-Z_]*[A-Z]", PAGE))
    assert len(named) >= 20
    unread = named - {row.variable for row in SETTINGS}
    assert unread == set(), unread


def test_every_constant_named_exists():
    named = {
        name
        for name in re.findall(r"`([A-Z][A-Z_]{3,}[A-Z])`", PAGE)
        if not name.startswith("FLOORGATE_")
    }
    found = {name for name in named if any(hasattr(module, name) for module in MODULES)}
    codes = {name for name in named if name in ErrorCode.__members__}
    assert named - found - codes == set()


def test_every_refusal_quoted_is_the_services():
    for code, values in QUOTED.items():
        message = ERRORS[code].message.format(**values)
        assert f"{ERRORS[code].status} `{message}`" in PAGE, message


def code_value(name: str, module: str | None) -> float:
    """A setting's default (in bytes for a `_MB` one), or the constant of that name in its
    module (else in MODULES, which must agree on it)."""
    if name.startswith("FLOORGATE_"):
        row = next(row for row in SETTINGS if row.variable == name)
        value: float = value_at(Settings(), row.name)
        return value * 1024 * 1024 if name.endswith("_MB") else value
    if module is not None:
        return getattr(importlib.import_module(module.replace("/", ".")), name)
    values = {getattr(each, name) for each in MODULES if hasattr(each, name)}
    assert len(values) == 1, (name, values)
    return values.pop()


def test_plain_defaults_stated_are_the_codes():
    stated = [
        (
            match["name"],
            float(match["number"].replace(",", "")) * UNITS[match["unit"] or ""],
            code_value(match["name"], match["module"]),
        )
        for match in PLAIN.finditer(PAGE)
    ]
    assert len(stated) >= 35
    assert [each for each in stated if each[1] != each[2]] == []


def test_the_methods_stated_are_the_served_ones():
    assert f"| Methods | {', '.join(rest.middleware.SERVED_METHODS)} |" in PAGE
