"""How a table of settings works: the kinds of value a FLOORGATE_* variable takes (how
its text is read, what the docs call it), the checks a value must pass, the row, and
`setting`, which declares a field of the settings' dataclass together with its row.

The settings themselves, `Settings`, and their table `SETTINGS` are in
`storage/settings.py`; kept apart from this so that it reads as a list of settings.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from ipaddress import ip_address, ip_network
from pathlib import Path
from typing import Any, Generic, TypeVar, overload

from parsing.language_tags import canonical_tag

T = TypeVar("T")


class SettingsError(ValueError):
    """A setting's value that cannot be used; `floorgate` says so in one line."""


@dataclass(frozen=True)
class Kind(Generic[T]):
    """How the text of a variable becomes a value. `parse(variable, text)` gets a
    non-empty text and returns the value, or None for "no value: the default", or raises
    SettingsError naming the variable. `name` and `explained` are what docs/configuration.md
    says of it; `show` writes a default as an operator would type it."""

    name: str
    type: Any  # the type of the Settings attribute, for the test that compares them
    explained: str
    parse: Callable[[str, str], T | None]
    show: Callable[[T], str] = str
    spell: Callable[[T], str] | None = None  # as `parse` reads it back; `show` if None

    def written(self, value: T) -> str:
        """`value` as the text `parse` reads back to it (`show` may round a number)."""
        return (self.spell or self.show)(value)


@dataclass(frozen=True)
class Check:
    """A rule a value must meet, checked whenever Settings are made (from the environment
    or in code). `run(variable, value)` raises SettingsError; `says` is the rule in words."""

    says: str
    run: Callable[[str, Any], None]


@dataclass(frozen=True)
class Setting:
    """One row of the settings table: everything about one FLOORGATE_* variable.

    `name` is the attribute of `Settings`, or `group.part` for a part of an attribute made
    of several variables (`svg_limits.max_bytes`). `help` is one line, shown by `--help`
    and docs/configuration.md; `detail` only by the doc. `option` is the command-line
    option of `floorgate serve` (or `floorgate`) that wins over the variable. A value
    below `at_least` is raised to it without a word (for settings whose old values were
    accepted so)."""

    name: str
    variable: str
    kind: Kind[Any]
    default: Any
    help: str
    detail: str = ""
    check: Check | None = None
    at_least: float | None = None
    option: str = ""

    def read(self, environ: Mapping[str, str]) -> Any:
        """This setting's value in `environ`: unset and empty mean the default."""
        raw = environ.get(self.variable)
        if raw is None or raw == "":
            return self.default
        value = self.kind.parse(self.variable, raw)
        if value is None:
            return self.default
        if self.at_least is not None:
            value = max(self.at_least, value)
        return value

    @property
    def attribute_type(self) -> Any:
        """The attribute's type: the kind's, optional when there is no default."""
        return self.kind.type | None if self.default is None else self.kind.type

    def shown_default(self) -> str:
        """The default as text; empty when there is none."""
        return "" if self.default in (None, ()) else self.kind.show(self.default)

    def rule(self) -> str:
        """What a value must be, in words: its kind and any check or floor."""
        words = [self.kind.name]
        if self.check is not None:
            words.append(self.check.says)
        if self.at_least is not None:
            words.append(f"less counts as {self.kind.show(self.at_least)}")
        return ", ".join(words)


def _number_text(value: float) -> str:
    return f"{value:g}"


def _whole(variable: str, text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise SettingsError(f"{variable}: {text!r} is not a whole number") from None


def _number(variable: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise SettingsError(f"{variable}: {text!r} is not a number") from None
    if not math.isfinite(value):
        raise SettingsError(f"{variable}: {text!r} is not a finite number")
    return value


SWITCH_ON = ("1", "true", "yes", "on")
SWITCH_OFF = ("0", "false", "no", "off")


def _switch(variable: str, text: str) -> bool | None:
    lowered = text.lower()
    if lowered in SWITCH_ON:
        return True
    if lowered in SWITCH_OFF:
        return False
    return None


def _items(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


def _origins(variable: str, text: str) -> tuple[str, ...] | None:
    return tuple(origin.rstrip("/") for origin in _items(text) if origin != "*") or None


def _log_format(variable: str, text: str) -> str | None:
    return "json" if text.lower() == "json" else None


TEXT = Kind("text", str, "used as written.", lambda variable, text: text)
WORD = Kind("word", str, "any case; read in lower case.", lambda variable, text: text.lower())
URL = Kind("URL", str, "a trailing `/` is dropped.", lambda variable, text: text.rstrip("/"))
PATH = Kind(
    "path", Path, "a file or folder, relative to the working directory.", lambda v, t: Path(t)
)
WHOLE = Kind("whole number", int, "digits, such as `8443` or `-1`.", _whole)
NUMBER = Kind(
    "number",
    float,
    "a decimal number such as `2.5`; `nan` and `inf` are refused.",
    _number,
    _number_text,
    repr,
)
SWITCH = Kind(
    "switch",
    bool,
    f"on: {', '.join(SWITCH_ON)}; off: {', '.join(SWITCH_OFF)} (any case); "
    "anything else is the default.",
    _switch,
    lambda value: "on" if value else "off",
)
LIST = Kind(
    "list",
    tuple[str, ...],
    "items separated by commas; spaces around them are dropped.",
    lambda variable, text: _items(text) or None,
    ",".join,
)
ORIGINS = Kind(
    "list of origins",
    tuple[str, ...],
    "a list whose trailing `/` are dropped; `*` (any origin) is the same as none.",
    _origins,
    ",".join,
)
LOG_FORMAT = Kind(
    "`text` or `json`", str, "`json` in any case; anything else is `text`.", _log_format
)

PERSISTED_QUERY_MODES = ("auto", "safelist", "off")


def _persisted_mode(variable: str, text: str) -> str:
    mode = text.strip().lower()
    if mode not in PERSISTED_QUERY_MODES:
        raise SettingsError(
            f"{variable}: {text!r} is not one of {', '.join(PERSISTED_QUERY_MODES)}"
        )
    return mode


def _language(variable: str, text: str) -> str:
    tag = canonical_tag(text.strip())
    if tag is None:
        raise SettingsError(f"{variable}: {text!r} is not a BCP 47 language tag")
    return tag


LANGUAGE = Kind(
    "language tag",
    str,
    "a BCP 47 tag in any case, such as `zh-hant`; read in its canonical case (`zh-Hant`).",
    _language,
)
PERSISTED_MODE = Kind(
    "`auto`, `safelist` or `off`", str, "any case; anything else is refused.", _persisted_mode
)

# -- checks ---------------------------------------------------------------------------

MAX_PORT = 65_535


def _more_than_zero(variable: str, value: float) -> None:
    if not value > 0:  # a timeout of 0 would end every connection at once
        raise SettingsError(f"{variable}: must be more than 0, not {value}")


def _tcp_port(variable: str, value: int) -> None:
    if not 0 <= value <= MAX_PORT:
        raise SettingsError(f"{variable}: {value} is not a TCP port (0 to {MAX_PORT})")


def _listen_port(variable: str, value: int | None) -> None:
    if value is not None and not 1 <= value <= MAX_PORT:  # 0 (any free port) finds no scraper
        raise SettingsError(f"{variable}: {value} is not a TCP port to listen on (1 to {MAX_PORT})")


def _proxies(variable: str, value: tuple[str, ...]) -> None:
    """Each item an IP address or network, or `*` alone: uvicorn takes anything else as
    a name that no client address ever equals, so a typo would trust nobody, silently."""
    if "*" in value and len(value) > 1:
        raise SettingsError(f"{variable}: `*` trusts every address; give it alone")
    for item in value:
        if item == "*":
            continue
        try:
            if "/" in item:
                ip_network(item)
            else:
                ip_address(item)
        except ValueError as error:
            raise SettingsError(
                f"{variable}: {item!r} is not an IP address or network such as 10.0.0.5, "
                f"10.0.0.0/8 or fd00::/8 ({error})"
            ) from None


MORE_THAN_ZERO = Check("more than 0", _more_than_zero)
TCP_PORT = Check(f"0 to {MAX_PORT}", _tcp_port)
LISTEN_PORT = Check(f"1 to {MAX_PORT}", _listen_port)
PROXIES = Check("IP addresses and networks (`10.0.0.0/8`, `fd00::/8`), or `*` alone", _proxies)


# -- Content-Security-Policy frame-ancestors sources ---------------------------------------

FRAME_KEYWORDS = ("'none'", "'self'")
# A CSP host-source or scheme-source: `https:`, `https://example.com`, `*.example.org:8443`,
# `https://example.com/path/`. No quotes, separators or whitespace inside one.
_FRAME_SOURCE = re.compile(
    r"[a-z][a-z0-9+.-]*:"  # scheme-source
    r"|(?:[a-z][a-z0-9+.-]*://)?(?:\*\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*(?::(?:[0-9]+|\*))?"
    r"(?:/[a-z0-9._~%!$&()*+=:@/-]*)?",
    re.IGNORECASE,
)


def frame_ancestors(raw: str | None) -> tuple[str, ...]:
    """`FLOORGATE_VIEWER_FRAME_ANCESTORS`, checked: it is pasted into a
    Content-Security-Policy header, so a `;`, a newline or a stray quote would add
    directives of its own. Sources are separated by spaces; `'none'` stands alone."""
    if raw is None or not raw.strip():
        return ("'none'",)
    if any(char in raw for char in ';,\r\n"\\'):
        raise SettingsError(
            "FLOORGATE_VIEWER_FRAME_ANCESTORS: no ';', ',', quote or line break; "
            "separate sources with spaces"
        )
    sources = tuple(raw.split())
    for source in sources:
        if source.lower() in FRAME_KEYWORDS:
            continue
        if "'" in source or not _FRAME_SOURCE.fullmatch(source):
            raise SettingsError(
                f"FLOORGATE_VIEWER_FRAME_ANCESTORS: {source!r} is not a source "
                "('none', 'self', a scheme like https:, or a host such as "
                "https://example.com or https://*.example.org)"
            )
    lowered = tuple(
        source.lower() if source.lower() in FRAME_KEYWORDS else source for source in sources
    )
    if "'none'" in lowered and len(lowered) > 1:
        raise SettingsError(
            "FLOORGATE_VIEWER_FRAME_ANCESTORS: 'none' cannot be combined with other sources"
        )
    return lowered


FRAME_SOURCES = Kind(
    "CSP sources",
    tuple[str, ...],
    "separated by spaces: `'none'`, `'self'`, a scheme such as `https:`, or a host such as "
    "`https://example.com` or `https://*.example.org`; `'none'` stands alone.",
    lambda variable, text: frame_ancestors(text),
    " ".join,
)


def _frame_sources(variable: str, value: tuple[str, ...]) -> None:
    frame_ancestors(" ".join(value))  # raises on what would break the header


FRAME_CHECK = Check("no `;`, `,`, other quotes or line breaks", _frame_sources)


# -- the settings' dataclass: its fields carry their rows ------------------------------

# The keys of a field's metadata: its row, or a composite's class and part rows.
ROW = "floorgate.setting"
PARTS = "floorgate.parts"
COMPOSITE = "floorgate.composite"


@overload
def setting(
    variable: str,
    kind: Kind[T],
    default: None,
    help: str,
    detail: str = "",
    *,
    check: Check | None = None,
    at_least: float | None = None,
    option: str = "",
) -> T | None: ...
@overload
def setting(
    variable: str,
    kind: Kind[T],
    default: T,
    help: str,
    detail: str = "",
    *,
    check: Check | None = None,
    at_least: float | None = None,
    option: str = "",
) -> T: ...
def setting(
    variable: str,
    kind: Kind[T],
    default: T | None,
    help: str,
    detail: str = "",
    *,
    check: Check | None = None,
    at_least: float | None = None,
    option: str = "",
) -> T | None:
    """A field of the settings' dataclass with its row (named after the field by
    `rows_of`). Typed as its value, so that `port: int = setting(..., WHOLE, 8443, ...)`
    is checked: the kind, the default and the attribute's type must agree."""
    row = Setting("", variable, kind, default, help, detail, check, at_least, option)
    return field(default=default, metadata={ROW: row})


def composite(kind: type[T], *parts: Setting) -> T:
    """A field made of several variables (`svg_limits`): `kind` built from its `parts`,
    each row named after `kind`'s argument it fills."""
    return field(default_factory=kind, metadata={PARTS: parts, COMPOSITE: kind})


def rows_of(table: type) -> tuple[Setting, ...]:
    """The settings table: a row per field of the dataclass `table`, in order, a composite's
    parts named `field.part`."""
    rows: list[Setting] = []
    for each in fields(table):
        if ROW in each.metadata:
            rows.append(replace(each.metadata[ROW], name=each.name))
        rows.extend(
            replace(part, name=f"{each.name}.{part.name}") for part in each.metadata.get(PARTS, ())
        )
    return tuple(rows)


def read_environment(table: type, environ: Mapping[str, str]) -> dict[str, Any]:
    """The keyword arguments of `table` that `environ` gives: every row's value (its
    default when unset), a composite's built from its parts."""
    values: dict[str, Any] = {}
    for each in fields(table):
        if ROW in each.metadata:
            values[each.name] = each.metadata[ROW].read(environ)
        elif PARTS in each.metadata:
            parts = {part.name: part.read(environ) for part in each.metadata[PARTS]}
            values[each.name] = each.metadata[COMPOSITE](**parts)
    return values


def written_environment(settings: object, rows: Sequence[Setting]) -> dict[str, str]:
    """Made settings as the environment that `read_environment` reads back to them: a row
    without a value is empty (its default)."""
    written: dict[str, str] = {}
    for row in rows:
        value = value_at(settings, row.name)
        written[row.variable] = "" if value is None else row.kind.written(value)
    return written


def value_at(settings: object, name: str) -> Any:
    """The value of a row in made settings: `port`, or `svg_limits.max_bytes`."""
    value = settings
    for part in name.split("."):
        value = getattr(value, part)
    return value


def check_values(settings: object, rows: Sequence[Setting]) -> None:
    """Every row's check on made settings: those built in code (tests, tools) are checked
    like the environment's."""
    for row in rows:
        if row.check is not None:
            row.check.run(row.variable, value_at(settings, row.name))
