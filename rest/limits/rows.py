"""What a row of the table of limits is made of: the values it reads by name from where
they are enforced (a setting's row, a constant, a constructor's default), and the words
docs/limits.md writes them in (`8 KiB`, `15 s`, `1,000`, the service's own refusals).

A value is read by its name, so a renamed or removed one breaks the table at import
(`make generate` and the tests), never the page silently.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from types import ModuleType

from resolvers.errors import ERRORS, ErrorCode
from storage.settings import SETTINGS

KIB = 1024
MIB = 1024 * KIB
HOUR = 3600
DAY = 24 * HOUR


@dataclass(frozen=True)
class Named:
    """A number the table shows, by the name it has in the code: a setting's variable
    (`module` empty), a constant of `module`, or a constructor's default (`Class.argument`)."""

    name: str
    value: float
    module: str = ""
    item: int | None = None  # the value is this item of the constant (a tuple)
    at_least: float | None = None  # a setting's floor: less counts as this

    @property
    def code(self) -> str:
        return f"`{self.name}`"

    @property
    def path(self) -> str:
        """The constant's module as a path (`rest/ops/linger.py`)."""
        return path_of(self.module)


@dataclass(frozen=True)
class Section:
    """One table of docs/limits.md: the name its markers give it, and its columns."""

    name: str
    columns: tuple[str, str, str, str] = ("Limit", "Default", "Setting", "Past it")


@dataclass(frozen=True)
class Limit:
    """A row: what is bounded, its default (written from the values), the settings or
    constants that hold it, and what a client gets past it. In the table of caches the
    columns are the cache, its budget, the setting and its key."""

    section: Section
    what: str
    default: str
    setting: str
    past_it: str
    shows: tuple[Named, ...] = ()  # the values the row is written from


def _number(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} is {value!r}: the table shows numbers")
    return value


_SETTING_ROWS = {row.variable: row for row in SETTINGS}


def setting(variable: str) -> Named:
    """A setting's default, by its variable (KeyError when no row has it)."""
    row = _SETTING_ROWS[variable]
    return Named(variable, _number(row.default, variable), at_least=row.at_least)


def constant(module: ModuleType, name: str, item: int | None = None) -> Named:
    """A constant where it is enforced (`item`: one of a tuple's values)."""
    value = getattr(module, name)
    shown = _number(value if item is None else value[item], name)
    return Named(name, shown, module.__name__, item)


def default_of(kind: type, argument: str) -> Named:
    """The default of a constructor's argument (`KeyCache.max_entries`)."""
    value = inspect.signature(kind).parameters[argument].default
    name = f"{kind.__name__}.{argument}"
    return Named(name, _number(value, name), kind.__module__)


def path_of(module: str) -> str:
    """A module as the page names it: `rest/ops/linger.py`."""
    return f"`{module.replace('.', '/')}.py`"


def name_of(module: ModuleType, name: str) -> str:
    """A constant that is not a number, named (AttributeError when it is gone)."""
    getattr(module, name)
    return f"`{name}`"


def setting_named(variable: str) -> str:
    """A setting that is not a number, named (KeyError when no row has it)."""
    return f"`{_SETTING_ROWS[variable].variable}`"


# -- how the page writes quantities ----------------------------------------------------


def whole(value: float) -> str:
    """As a message prints it: `1048576`, `0.5`."""
    return str(int(value)) if value == int(value) else f"{value:g}"


def count(value: float) -> str:
    """As the page writes a count: `1,000`, `12`, `2.5`."""
    return f"{value:,.0f}" if value == int(value) else f"{value:g}"


def size(value: float) -> str:
    """Bytes in the largest binary unit that holds them whole: `8 KiB`, `16 MiB`."""
    for unit, factor in (("MiB", MIB), ("KiB", KIB)):
        if value >= factor and value % factor == 0:
            return f"{count(value / factor)} {unit}"
    return f"{count(value)} bytes"


def seconds(value: float) -> str:
    """`15 s`, `1.5 s`; under a second in milliseconds (`20 ms`)."""
    return f"{value:g} s" if value >= 1 else f"{round(value * 1000, 3):g} ms"


def _in_words(value: float) -> tuple[int, str] | None:
    """(number, unit) in whole days, hours or minutes, if it is one of them."""
    for unit, factor in (("day", DAY), ("hour", HOUR), ("minute", 60)):
        if value >= factor and value % factor == 0:
            return int(value // factor), unit
    return None


def duration(value: float) -> str:
    """In whole days, hours or minutes when it is one (`7 days`, `1 hour`), else `90 s`."""
    words = _in_words(value)
    if words is None:
        return seconds(value)
    number, unit = words
    return f"{number} {unit}{'s' if number > 1 else ''}"


def every(value: float) -> str:
    """`every minute`, `every 3 minutes`, `every 5 s`."""
    words = _in_words(value)
    return (
        f"every {words[1]}" if words is not None and words[0] == 1 else f"every {duration(value)}"
    )


def percent(share: float) -> str:
    """`30%` of 0.3."""
    return f"{round(share * 100, 6):g}%"


def part(divisor: float) -> str:
    """One part of `divisor`, in words: `half`, `a quarter`, `an eighth` (`1/5` else)."""
    if divisor != int(divisor) or divisor < 2:
        raise ValueError(f"{divisor} parts: the table says whole parts only")
    return {2: "half", 4: "a quarter", 8: "an eighth"}.get(int(divisor), f"1/{int(divisor)}")


def said(code: ErrorCode, **values: object) -> str:
    """The service's message for `code`, quoted."""
    return f"`{ERRORS[code].message.format(**values)}`"


def answer(code: ErrorCode, **values: object) -> str:
    """The status and message of a refusal: 413 `Request body too large`."""
    return f"{ERRORS[code].status} {said(code, **values)}"


def names(*shown: Named) -> str:
    return ", ".join(each.code for each in shown)


def shortened(first: Named, *more: Named) -> str:
    """`FLOORGATE_SVG_MAX_BYTES`, `_MAX_ELEMENTS`: the others without the first's prefix."""
    prefix = first.name[: first.name.index("_MAX")]
    return ", ".join([first.code, *(f"`{each.name.removeprefix(prefix)}`" for each in more)])
