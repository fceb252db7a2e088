"""Affine matrices as plain 6-tuples: parse SVG `transform` lists, compose them.

A matrix `(a, b, c, d, e, f)` maps (x, y) to (a*x + c*y + e, b*x + d*y + f), SVG's own
order. Tuples of floats instead of objects: every point of the map goes through one
(applied in bulk by parsing/geometry/numbers.py and parsing/geometry/outline.py).
"""

from __future__ import annotations

import math
import re
from typing import TypeAlias

from parsing.errors import SvgError
from parsing.geometry.numbers import PLAIN, parse_number_list

Matrix: TypeAlias = tuple[float, float, float, float, float, float]

IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)

# The forms drawing tools write for nearly every element, matched whole in one go.
_PLAIN = rf"({PLAIN})"
_SEP = r"(?:\s*,\s*|\s+)"
_FAST_TRANSLATE = re.compile(rf"\s*translate\s*\(\s*{_PLAIN}(?:{_SEP}{_PLAIN})?\s*\)\s*")
_FAST_MATRIX = re.compile(rf"\s*matrix\s*\(\s*{_PLAIN}" + rf"{_SEP}{_PLAIN}" * 5 + r"\s*\)\s*")
_TRANSFORM = re.compile(r"[\s,]*(matrix|translate|scale|rotate|skewX|skewY)\s*\(([^()]*)\)")
_TRAILING = re.compile(r"[\s,]*")
# How many arguments each transform takes.
_ARITY = {
    "matrix": (6,),
    "translate": (1, 2),
    "scale": (1, 2),
    "rotate": (1, 3),
    "skewX": (1,),
    "skewY": (1,),
}


def multiply(m: Matrix, n: Matrix) -> Matrix:
    """m x n: `n` applies first, then `m` (an ancestor's matrix goes on the left)."""
    a, b, c, d, e, f = m
    a2, b2, c2, d2, e2, f2 = n
    return (
        a * a2 + c * b2,
        b * a2 + d * b2,
        a * c2 + c * d2,
        b * c2 + d * d2,
        a * e2 + c * f2 + e,
        b * e2 + d * f2 + f,
    )


def translation(tx: float, ty: float) -> Matrix:
    return (1.0, 0.0, 0.0, 1.0, tx, ty)


def scaling(sx: float, sy: float) -> Matrix:
    return (sx, 0.0, 0.0, sy, 0.0, 0.0)


def rotation(degrees: float, cx: float = 0.0, cy: float = 0.0) -> Matrix:
    """Rotation about (cx, cy); exact for multiples of 90 degrees (no 6e-17 residues)."""
    quarter = degrees / 90.0
    if quarter == int(quarter):
        cos, sin = ((1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0))[int(quarter) % 4]
    else:
        angle = math.radians(degrees % 360.0)
        cos, sin = math.cos(angle), math.sin(angle)
    return (cos, sin, -sin, cos, cx - cos * cx + sin * cy, cy - sin * cx - cos * cy)


def max_scale(m: Matrix) -> float:
    """Largest factor by which `m` stretches a length (its largest singular value)."""
    a, b, c, d = m[0], m[1], m[2], m[3]
    total = a * a + b * b + c * c + d * d
    det = a * d - b * c
    return math.sqrt(max(0.0, (total + math.sqrt(max(0.0, total * total - 4 * det * det))) / 2))


def parse_transform(text: str) -> Matrix:
    """An SVG transform list, composed left to right (the first one applies last)."""
    fast = _fast(text)
    if fast is not None:
        return fast
    result: Matrix | None = None
    position = 0
    while True:
        match = _TRANSFORM.match(text, position)
        if match is None:
            break
        name, args = match.group(1), match.group(2)
        values = parse_number_list(args, f"transform {name}()")
        if len(values) not in _ARITY[name]:
            raise SvgError(f'transform {name}() takes {_arity_text(name)} numbers: "{text}"')
        one = _one(name, values)
        result = one if result is None else multiply(result, one)
        position = match.end()
    if _TRAILING.fullmatch(text, position) is None:
        raise SvgError(f'transform is not a transform list: "{text[:80]}"')
    return IDENTITY if result is None else result


def _fast(text: str) -> Matrix | None:
    """`translate(x y)` or `matrix(a b c d e f)` of plain numbers, without the general
    parser; None for anything else (or a number too long to be finite)."""
    match = _FAST_TRANSLATE.fullmatch(text)
    if match is not None:
        tx, ty = match.group(1), match.group(2)
        result: Matrix = (1.0, 0.0, 0.0, 1.0, float(tx), float(ty) if ty is not None else 0.0)
    else:
        match = _FAST_MATRIX.fullmatch(text)
        if match is None:
            return None
        a, b, c, d, e, f = map(float, match.groups())
        result = (a, b, c, d, e, f)
    if max(result) == math.inf or min(result) == -math.inf:
        return None  # let the general parser say what is wrong
    return result


def _one(name: str, values: list[float]) -> Matrix:
    if name == "matrix":
        a, b, c, d, e, f = values
        return (a, b, c, d, e, f)
    if name == "translate":
        return translation(values[0], values[1] if len(values) == 2 else 0.0)
    if name == "scale":
        return scaling(values[0], values[1] if len(values) == 2 else values[0])
    if name == "rotate":
        if len(values) == 3:
            return rotation(values[0], values[1], values[2])
        return rotation(values[0])
    angle = math.radians(values[0] % 360.0)
    if name == "skewX":
        return (1.0, 0.0, math.tan(angle), 1.0, 0.0, 0.0)
    return (1.0, math.tan(angle), 0.0, 1.0, 0.0, 0.0)  # skewY


def _arity_text(name: str) -> str:
    return " or ".join(str(count) for count in _ARITY[name])
