"""Numbers in and out of the parser: strict SVG number parsing and stable, short output.

Output numbers have at most 3 decimals and no trailing zeros ("-0" is "0"), so the same
geometry always gives the same bytes and the document stays small.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

from parsing.errors import SvgError

try:  # the compiled loops (parsing/_kernels.pyx); the pure-Python ones below otherwise
    from parsing import _kernels
except ImportError:  # pragma: no cover - a build without the extension
    _kernels = None  # type: ignore[assignment]  # an optional module: mypy has no Module | None

# SVG's number grammar (no "inf", "nan", "1_000" or hex, which Python's float() accepts).
NUMBER = r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?"
NUMBER_RE = re.compile(NUMBER)
_NUMBER_FULL = re.compile(rf"\s*({NUMBER})\s*")
_LENGTH_FULL = re.compile(rf"\s*({NUMBER})\s*([a-zA-Z%]*)\s*")
_SEPARATORS = frozenset(" ,\t\n\r\x0c")
# How tools write almost every number: no exponent, no unit. Checked first, in C.
PLAIN = r"-?[0-9]+(?:\.[0-9]+)?"
_PLAIN = re.compile(PLAIN)
_PLAIN_LIST = re.compile(rf"[\s,]*(?:{PLAIN}(?:[\s,]+|$))*")

# Absolute units in user units (CSS pixels), as SVG defines them.
UNIT_SCALE = {
    "": 1.0,
    "px": 1.0,
    "in": 96.0,
    "cm": 96.0 / 2.54,
    "mm": 96.0 / 25.4,
    "q": 96.0 / 101.6,
    "pt": 4.0 / 3.0,
    "pc": 16.0,
}

# Canvas coordinates beyond this are refused: no map is that large, and it keeps every
# formatted number positional (no exponent) and finite.
COORDINATE_LIMIT = 1e12


def round3(value: float) -> float:
    """The float the document shows for `value` (3 decimals, -0.0 folded into 0.0).

    Rounds `value * 1000` to an int (half to even): cheaper than `round(value, 3)`, and
    an int never gives -0.0. Every output number goes through it, so they all agree.
    """
    return round(value * 1000.0) / 1000.0


def format_number(value: float) -> str:
    """At most 3 decimals, no trailing zeros, never "-0" (finite `value` only)."""
    rounded = round3(value)
    if -COORDINATE_LIMIT < rounded < COORDINATE_LIMIT:
        return format(rounded, ".15g")
    return f"{rounded:.3f}".rstrip("0").rstrip(".")


def round_all(flat: list[float]) -> list[float]:
    """`round3` of every value; SvgError for anything not finite or beyond the limit."""
    try:
        rounded = [round(value * 1000.0) / 1000.0 for value in flat]
    except (OverflowError, ValueError):  # round() of an infinity or a NaN
        raise _out_of_range() from None
    _check_range(rounded)
    return rounded


def translate_round(flat: list[float], dx: float, dy: float) -> list[float]:
    """`round_all` of a flat list shifted by (dx, dy): the compiled loop when built."""
    if _kernels is None:
        return translate_round_py(flat, dx, dy)
    try:
        return _kernels.translate_round(flat, dx, dy)
    except _kernels.OutOfRange:
        raise _out_of_range() from None


def transform_round(
    flat: list[float], m: tuple[float, float, float, float, float, float]
) -> list[float]:
    """`round_all` of a flat list mapped by the affine matrix `m` (x' = a x + c y + e,
    y' = b x + d y + f): the compiled loop when built."""
    if _kernels is None:
        return transform_round_py(flat, m)
    try:
        return _kernels.transform_round(flat, m)
    except _kernels.OutOfRange:
        raise _out_of_range() from None


def format_points(flat: list[float]) -> str:
    """`x,y x,y ...` of already rounded coordinates (see `round3`): the compiled writer
    when built (it declines values it cannot write exactly as "%.15g" does)."""
    if _kernels is not None:
        text = _kernels.format_points(flat)
        if text is not None:
            return text
    return format_points_py(flat)


def translate_round_py(flat: list[float], dx: float, dy: float) -> list[float]:
    """`round_all` of a flat list shifted by (dx, dy), in one pass. (Plain loops: on
    CPython 3.11 they beat comprehensions over zipped slices for these short lists.)"""
    rounded: list[float] = []
    append = rounded.append
    try:
        for i in range(0, len(flat), 2):
            append(round((flat[i] + dx) * 1000.0) / 1000.0)
            append(round((flat[i + 1] + dy) * 1000.0) / 1000.0)
    except (OverflowError, ValueError):
        raise _out_of_range() from None
    _check_range(rounded)
    return rounded


def transform_round_py(
    flat: list[float], m: tuple[float, float, float, float, float, float]
) -> list[float]:
    """`transform_round` in pure Python, in one pass."""
    a, b, c, d, e, f = m
    rounded: list[float] = []
    append = rounded.append
    try:
        for i in range(0, len(flat), 2):
            x, y = flat[i], flat[i + 1]
            append(round((a * x + c * y + e) * 1000.0) / 1000.0)
            append(round((b * x + d * y + f) * 1000.0) / 1000.0)
    except (OverflowError, ValueError):
        raise _out_of_range() from None
    _check_range(rounded)
    return rounded


def _check_range(rounded: list[float]) -> None:
    if rounded and (max(rounded) > COORDINATE_LIMIT or min(rounded) < -COORDINATE_LIMIT):
        raise _out_of_range()


def _out_of_range() -> SvgError:
    return SvgError("coordinates out of range (not finite, or beyond 1e12)")


@lru_cache(maxsize=256)
def _small_template(pairs: int) -> str:
    return " ".join(["%.15g,%.15g"] * pairs)


def _template(pairs: int) -> str:
    """The format string for `pairs` points; only short ones are kept (bounded memory)."""
    return _small_template(pairs) if pairs <= 256 else " ".join(["%.15g,%.15g"] * pairs)


def format_points_py(flat: list[float]) -> str:
    """`format_points` in pure Python, in one C-level format.

    "%.15g" prints a 3-decimal value below 1e12 exactly and drops trailing zeros, so it
    agrees with `format_number` for every value `round3` returns.
    """
    return _template(len(flat) // 2) % tuple(flat)


def parse_number(text: str, what: str) -> float:
    """One SVG number; `what` names the attribute in the error."""
    match = _NUMBER_FULL.fullmatch(text)
    if match is None:
        raise SvgError(f'{what} is not a number: "{_clip(text)}"')
    value = float(match.group(1))
    if not math.isfinite(value):
        raise SvgError(f'{what} is out of range: "{_clip(text)}"')
    return value


def parse_length(text: str | None, what: str, default: float = 0.0) -> float:
    """A length in user units: a number with an optional absolute unit (px, mm, in, ...).

    Relative units (%, em, ex) would need a viewport or a font and are refused.
    """
    if text is None:
        return default
    if _PLAIN.fullmatch(text) is not None:
        value = float(text)
        if value != math.inf and value != -math.inf:  # 400 digits make an infinity
            return value
    match = _LENGTH_FULL.fullmatch(text)
    if match is None:
        raise SvgError(f'{what} is not a length: "{_clip(text)}"')
    scale = UNIT_SCALE.get(match.group(2).lower())
    if scale is None:
        raise SvgError(f'{what} uses an unsupported unit: "{_clip(text)}"')
    value = float(match.group(1)) * scale
    if not math.isfinite(value):
        raise SvgError(f'{what} is out of range: "{_clip(text)}"')
    return value


def parse_number_list(text: str, what: str) -> list[float]:
    """Numbers separated by commas and/or whitespace ("10-20" is two numbers, as in SVG)."""
    if _PLAIN_LIST.fullmatch(text) is not None:
        numbers = list(map(float, text.replace(",", " ").split()))
    else:
        rest = NUMBER_RE.sub(" ", text)
        if rest and not _SEPARATORS.issuperset(rest):
            raise SvgError(f'{what} is not a list of numbers: "{_clip(text)}"')
        numbers = list(map(float, NUMBER_RE.findall(text)))
    # The grammar has no "nan": a number is finite unless it has too many digits.
    if numbers and (max(numbers) == math.inf or min(numbers) == -math.inf):
        raise SvgError(f'{what} has a number out of range: "{_clip(text)}"')
    return numbers


def _clip(text: str, size: int = 60) -> str:
    """Quote user input in messages without echoing megabytes of it."""
    return text if len(text) <= size else text[:size] + "..."
