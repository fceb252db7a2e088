"""SVG path data to segments, and segments to canvas polylines: curves and arcs flattened
to within `TOLERANCE` canvas units, after the transform (the transform of a Bezier's
control points is exact), so the tolerance holds in canvas units whatever the scale.

Path data is read by svgelements' lexer (`SVGLexicalParser`), which calls back into
`_PathBuilder` with absolute coordinates; the builder keeps plain tuples in the path's
own coordinates, so one parse serves every place the same shape is drawn. A path of
one moveto and relative commands takes a faster reader (compiled in parsing/_kernels.pyx).

Coordinates travel as flat lists `[x0, y0, x1, y1, ...]` of floats: no per-point objects.
"""

from __future__ import annotations

import math
import re
from typing import TypeAlias

from svgelements import SVGLexicalParser

from parsing.errors import SvgError
from parsing.geometry.transform import Matrix, max_scale

try:  # compiled twin of _parse_path_fast (parsing/_kernels.pyx)
    from parsing import _kernels
except ImportError:  # pragma: no cover - a build without the extension
    _kernels = None  # type: ignore[assignment]  # an optional module: mypy has no Module | None


TOLERANCE = 0.25  # canvas units between a curve and its flattened outline, at most
SEGMENT_NOISE = 1 - 1e-9  # a segment count this close above a whole number is that number

# `d` = its first moveto, then only relative commands (lower case; Z/z is both).
_FLOAT = r"[-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?"  # svgelements' number, exactly
_RELATIVE_AFTER_START = re.compile(
    rf"\s*([Mm])\s*({_FLOAT})(?:\s*,\s*|\s+|(?=[-+.]))({_FLOAT})(.*)", re.DOTALL
)
_ABSOLUTE_COMMAND = re.compile(r"[MLHVCSQTA]")
_COMMAND_LETTERS = frozenset("MmZzLlHhVvCcSsQqTtAa")
_SEPARATORS = " ,\t\n\r\x0c"  # what SVG allows between numbers and commands
TAU = 2 * math.pi

# A path segment in the path's own coordinates (the start is the previous end point):
#   (LINE, x, y)
#   (CUBIC, x1, y1, x2, y2, x, y)
#   (QUAD, x1, y1, x, y)
#   (ARC, cx, cy, rx, ry, cos_phi, sin_phi, theta1, dtheta, x, y)  centre parameterisation
LINE, CUBIC, QUAD, ARC = 0, 1, 2, 3
Segment: TypeAlias = tuple[float, ...]
# A subpath: start x, start y, its segments, closed by Z.
Subpath: TypeAlias = tuple[float, float, list[Segment], bool]
# A flattened polyline in canvas coordinates and whether it was closed.
Polyline: TypeAlias = tuple[list[float], bool]


class PointBudget:
    """How many more points the map may produce (SvgLimits.max_points, all shapes)."""

    __slots__ = ("left", "limit")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.left = limit

    def take(self, count: int) -> None:
        self.left -= count
        if self.left < 0:
            raise SvgError(f"the map has too many points: the limit is {self.limit}")

    def segments(self, wanted: float, already: int) -> int:
        """`wanted` segments as an int, refusing NaN/infinite counts and counts that would
        pass the limit before any point is generated."""
        if not wanted <= self.left - already:
            if wanted != wanted or wanted == math.inf:
                raise SvgError("coordinates out of range (not finite)")
            raise SvgError(f"the map has too many points: the limit is {self.limit}")
        # Rounded up, but not for float noise: a curve's bend measured where it is drawn
        # and measured from the origin (the path cache's shortcut) may differ by an ulp,
        # and 1.0 against 1.0000000000002 must not give 1 segment against 2.
        return max(1, math.ceil(wanted * SEGMENT_NOISE))


# ---------------------------------------------------------------- path data


class _PathBuilder:
    """Callbacks of svgelements' lexer; absolute coordinates in, segment tuples out."""

    __slots__ = (
        "control",
        "current_point",
        "segments",
        "start_x",
        "start_y",
        "subpaths",
        "x",
        "y",
    )

    def __init__(self) -> None:
        self.subpaths: list[list[object]] = []
        self.segments: list[Segment] | None = None
        self.current_point: _PathBuilder | None = None  # the lexer reads .x/.y from it
        self.x = self.y = self.start_x = self.start_y = 0.0
        self.control: tuple[str, float, float] | None = None  # last curve's control point

    # The lexer's protocol -------------------------------------------------------------

    def start(self) -> None:
        pass

    def end(self) -> None:
        pass

    def move(self, coord: tuple[float, float], relative: bool) -> None:
        x, y = coord
        self.segments = []
        self.subpaths.append([x, y, self.segments, False])
        self.x = self.start_x = x
        self.y = self.start_y = y
        self.current_point = self
        self.control = None

    def line(self, coord: tuple[float, float] | str, relative: bool) -> None:
        x, y = self._point(coord)
        self._segments().append((LINE, x, y))
        self.x, self.y, self.control = x, y, None

    def horizontal(self, value: float | None, relative: bool) -> None:
        if value is None:
            raise SvgError("H/h needs a number")
        self.line((self.x + value if relative else value, self.y), False)

    def vertical(self, value: float | None, relative: bool) -> None:
        if value is None:
            raise SvgError("V/v needs a number")
        self.line((self.x, self.y + value if relative else value), False)

    def cubic(
        self,
        control1: tuple[float, float] | str,
        control2: tuple[float, float] | str,
        coord: tuple[float, float] | str,
        relative: bool,
    ) -> None:
        x1, y1 = self._point(control1)
        x2, y2 = self._point(control2)
        x, y = self._point(coord)
        self._segments().append((CUBIC, x1, y1, x2, y2, x, y))
        self.x, self.y, self.control = x, y, ("C", x2, y2)

    def smooth_cubic(
        self, control2: tuple[float, float] | str, coord: tuple[float, float] | str, relative: bool
    ) -> None:
        self.cubic(self._reflected("C"), control2, coord, False)

    def quad(
        self, control: tuple[float, float] | str, coord: tuple[float, float] | str, relative: bool
    ) -> None:
        x1, y1 = self._point(control)
        x, y = self._point(coord)
        self._segments().append((QUAD, x1, y1, x, y))
        self.x, self.y, self.control = x, y, ("Q", x1, y1)

    def smooth_quad(self, coord: tuple[float, float] | str, relative: bool) -> None:
        self.quad(self._reflected("Q"), coord, False)

    def arc(
        self,
        rx: float | None,
        ry: float | None,
        rotation: float | None,
        large_arc: bool | None,
        sweep: bool | None,
        coord: tuple[float, float] | str,
        relative: bool,
    ) -> None:
        if rx is None or ry is None or rotation is None or large_arc is None or sweep is None:
            raise SvgError("A/a needs rx ry rotation large-arc-flag sweep-flag x y")
        x, y = self._point(coord)
        segments = self._segments()
        centre = arc_centre(self.x, self.y, rx, ry, rotation, large_arc, sweep, x, y)
        if centre is None:  # zero radius: a straight line, as SVG says
            segments.append((LINE, x, y))
        elif centre:  # () when start == end: SVG omits the arc
            segments.append((ARC, *centre, x, y))
        self.x, self.y, self.control = x, y, None

    def closed(self, relative: bool) -> None:
        if self.segments is not None:
            self.subpaths[-1][3] = True
        self.segments = None  # a command after Z starts a new subpath at the start point
        self.x, self.y, self.control = self.start_x, self.start_y, None

    # Helpers ----------------------------------------------------------------------------

    def _segments(self) -> list[Segment]:
        if self.segments is None:
            if self.current_point is None:
                raise SvgError("path data must start with a moveto (M or m)")
            self.segments = []
            self.subpaths.append([self.x, self.y, self.segments, False])
            self.start_x, self.start_y = self.x, self.y
        return self.segments

    def _point(self, coord: tuple[float, float] | str | None) -> tuple[float, float]:
        if coord is None:
            raise SvgError("a coordinate is missing")
        if isinstance(coord, str):  # svgelements passes "z" for a segment ending at the start
            return (self.start_x, self.start_y)
        return coord

    def _reflected(self, kind: str) -> tuple[float, float]:
        """S/T: the previous control point mirrored about the current point."""
        control = self.control
        if control is None or control[0] != kind:
            return (self.x, self.y)
        return (2 * self.x - control[1], 2 * self.y - control[2])


def parse_path(d: str) -> list[Subpath]:
    """`d` in the path's own coordinates; SvgError on anything svgelements cannot read.

    The fast reader below takes the path data drawing tools write; whatever it does not
    accept (errors, odd corners of the grammar) is read by svgelements, which decides."""
    if _kernels is not None:  # the compiled reader, when built; None when it is unsure
        subpaths = _kernels.parse_path(d, arc_centre)
        if subpaths is not None:
            return subpaths
    subpaths = _parse_path_fast(d)
    if subpaths is not None:
        return subpaths
    return parse_path_svgelements(d)


def parse_path_svgelements(d: str) -> list[Subpath]:
    """`parse_path` through svgelements' lexer: the reference the fast reader must match."""
    builder = _PathBuilder()
    lexer = SVGLexicalParser()
    try:
        lexer.parse(builder, d)
    except SvgError as error:
        raise SvgError(f"path data (d) is invalid: {error.message}") from None
    except Exception:  # svgelements raises bare ValueError (and worse) on bad input
        raise SvgError(f"path data (d) is invalid near character {lexer.pos + 1}") from None
    if lexer.pos < len(d) and d[lexer.pos :].strip(_SEPARATORS):
        raise SvgError(f"path data (d) is invalid near character {lexer.pos + 1}")
    return [(s[0], s[1], s[2], s[3]) for s in builder.subpaths]  # type: ignore[misc]  # Subpaths


# ---------------------------------------------------------------- fast path data

# A command and everything up to the next one (numbers, separators, anything else).
_COMMAND_GROUP = re.compile(r"([MmZzLlHhVvCcSsQqTtAa])([^MmZzLlHhVvCcSsQqTtAa]*)")
# svgelements' number, or any other single non-separator character: a number's text
# for float(), or one character float() refuses (the input is ASCII), so that nothing
# findall would skip goes unnoticed.
_ARGUMENT = re.compile(rf"{_FLOAT}|[^ ,\t\n\r\x0c]")
# One arc's arguments: rx ry rotation large-arc sweep x y, flags one character each
# (`a10 10 0 0110 10` is flags 0 and 1, then x=10), numbers read greedily as
# svgelements reads them (atomic groups: linear time on any input).
_S = r"[ ,\t\n\r\x0c]*+"
_ARC_ARGUMENTS = re.compile(
    rf"{_S}((?>{_FLOAT})){_S}((?>{_FLOAT})){_S}((?>{_FLOAT}))"
    rf"{_S}([01]){_S}([01]){_S}((?>{_FLOAT})){_S}((?>{_FLOAT})){_S}"
)
# How many numbers one repeat of each command takes (arcs apart).
_ARITY = {"L": 2, "T": 2, "H": 1, "V": 1, "C": 6, "S": 4, "Q": 4}


def _parse_path_fast(d: str) -> list[Subpath] | None:
    """`parse_path` for well-formed path data, with the same numbers svgelements and
    `_PathBuilder` give (tests/parsing/test_properties.py holds it to that); None for
    anything else: an error, an empty `d`, a coordinate replaced by an inline `z`, ..."""
    if not d.isascii():
        return None
    first = d.lstrip(_SEPARATORS)[:1]
    if first != "M" and first != "m":
        return None
    subpaths: list[Subpath] = []
    segments: list[Segment] | None = None
    x = y = start_x = start_y = 0.0
    # The last curve's control point, for S/T: kind ("C"/"Q"), x, y.
    control_kind = ""
    control_x = control_y = 0.0
    findall = _ARGUMENT.findall
    try:
        for command, text in _COMMAND_GROUP.findall(d):
            upper = command.upper()
            relative = command != upper
            if upper == "A":
                position = 0
                end = len(text)
                arc_match = _ARC_ARGUMENTS.match
                if segments is None:
                    segments = []
                    subpaths.append((x, y, segments, False))
                    start_x, start_y = x, y
                while position < end:
                    match = arc_match(text, position)
                    if match is None:
                        return None
                    position = match.end()
                    rx_, ry_, rotation, large, sweep, ex, ey = match.groups()
                    x2, y2 = float(ex), float(ey)
                    if relative:
                        x2 += x
                        y2 += y
                    centre = arc_centre(
                        x,
                        y,
                        float(rx_),
                        float(ry_),
                        float(rotation),
                        large == "1",
                        sweep == "1",
                        x2,
                        y2,
                    )
                    if centre is None:
                        segments.append((LINE, x2, y2))
                    elif centre:
                        segments.append((ARC, *centre, x2, y2))
                    x, y = x2, y2
                if not position:
                    return None  # svgelements reads an `A` with no arguments as nothing
                control_kind = ""
                continue
            values = list(map(float, findall(text)))
            count = len(values)
            if upper == "Z":
                if count:
                    return None
                if segments is not None:
                    subpaths[-1] = (start_x, start_y, segments, True)
                segments = None
                x, y, control_kind = start_x, start_y, ""
                continue
            if upper == "M":
                if count < 2 or count % 2:
                    return None
                if relative and subpaths:
                    x += values[0]
                    y += values[1]
                else:
                    x, y = values[0], values[1]
                segments = []
                subpaths.append((x, y, segments, False))
                start_x, start_y = x, y
                control_kind = ""
                for i in range(2, count, 2):
                    if relative:
                        x += values[i]
                        y += values[i + 1]
                    else:
                        x, y = values[i], values[i + 1]
                    segments.append((LINE, x, y))
                continue
            arity = _ARITY[upper]
            if not count or count % arity:
                return None
            if segments is None:  # after Z: a new subpath from the start point
                segments = []
                subpaths.append((x, y, segments, False))
                start_x, start_y = x, y
            append = segments.append
            if upper == "L":
                for i in range(0, count, 2):
                    if relative:
                        x += values[i]
                        y += values[i + 1]
                    else:
                        x, y = values[i], values[i + 1]
                    append((LINE, x, y))
                control_kind = ""
            elif upper == "H":
                for value in values:
                    x = x + value if relative else value
                    append((LINE, x, y))
                control_kind = ""
            elif upper == "V":
                for value in values:
                    y = y + value if relative else value
                    append((LINE, x, y))
                control_kind = ""
            else:  # C, S, Q, T
                cubic = upper == "C" or upper == "S"
                written = upper == "C" or upper == "Q"  # S/T mirror the last control point
                kind = "C" if cubic else "Q"
                for i in range(0, count, arity):
                    if written:
                        x1, y1 = values[i], values[i + 1]
                        if relative:
                            x1 += x
                            y1 += y
                        i += 2
                    elif control_kind == kind:
                        x1, y1 = 2 * x - control_x, 2 * y - control_y
                    else:
                        x1, y1 = x, y
                    x2, y2 = values[i], values[i + 1]
                    if relative:
                        x2 += x
                        y2 += y
                    control_kind = kind
                    if cubic:
                        x3, y3 = values[i + 2], values[i + 3]
                        if relative:
                            x3 += x
                            y3 += y
                        append((CUBIC, x1, y1, x2, y2, x3, y3))
                        x, y, control_x, control_y = x3, y3, x2, y2
                    else:
                        append((QUAD, x1, y1, x2, y2))
                        x, y, control_x, control_y = x2, y2, x1, y1
    except (ValueError, ArithmeticError):  # a character that is not part of a number, ...
        return None
    return subpaths


def arc_centre(
    x1: float,
    y1: float,
    rx: float,
    ry: float,
    rotation: float,
    large_arc: bool,
    sweep: bool,
    x2: float,
    y2: float,
) -> tuple[float, ...] | None:
    """SVG's endpoint arc to its centre form (SVG 1.1 F.6.5/F.6.6): (cx, cy, rx, ry,
    cos_phi, sin_phi, theta1, dtheta); `()` when the ends coincide, None for a zero radius.
    Out-of-range radii are scaled up as SVG requires."""
    if x1 == x2 and y1 == y2:
        return ()
    rx, ry = abs(rx), abs(ry)
    if rx == 0 or ry == 0:
        return None
    phi = math.radians(rotation % 360.0)
    cos_phi, sin_phi = math.cos(phi), math.sin(phi)
    hx, hy = (x1 - x2) / 2, (y1 - y2) / 2
    x1p = cos_phi * hx + sin_phi * hy
    y1p = -sin_phi * hx + cos_phi * hy
    scale = (x1p * x1p) / (rx * rx) + (y1p * y1p) / (ry * ry)
    if scale > 1:
        root = math.sqrt(scale)
        rx, ry = rx * root, ry * root
    rx2, ry2 = rx * rx, ry * ry
    denominator = rx2 * y1p * y1p + ry2 * x1p * x1p
    factor = math.sqrt(max(0.0, (rx2 * ry2 - denominator) / denominator)) if denominator else 0.0
    if large_arc == sweep:
        factor = -factor
    cxp = factor * rx * y1p / ry
    cyp = -factor * ry * x1p / rx
    cx = cos_phi * cxp - sin_phi * cyp + (x1 + x2) / 2
    cy = sin_phi * cxp + cos_phi * cyp + (y1 + y2) / 2
    ux, uy = (x1p - cxp) / rx, (y1p - cyp) / ry
    vx, vy = (-x1p - cxp) / rx, (-y1p - cyp) / ry
    theta1 = math.atan2(uy, ux)
    dtheta = math.atan2(ux * vy - uy * vx, ux * vx + uy * vy)
    if sweep and dtheta < 0:
        dtheta += TAU
    elif not sweep and dtheta > 0:
        dtheta -= TAU
    return (cx, cy, rx, ry, cos_phi, sin_phi, theta1, dtheta)


def flatten(subpaths: list[Subpath], m: Matrix, budget: PointBudget) -> list[Polyline]:
    """Each subpath as a canvas polyline: curves and arcs flattened, `m` applied.

    The budget refuses a curve before its points exist; charging it for the result is
    the caller's (a cached result is charged each time it is drawn). The compiled loop
    when built (same points: `flatten_py` is the reference).
    """
    if _kernels is not None:
        return _kernels.flatten(subpaths, m, budget, math.hypot)
    return flatten_py(subpaths, m, budget)


def flatten_py(subpaths: list[Subpath], m: Matrix, budget: PointBudget) -> list[Polyline]:
    """`flatten` in Python: the reference for the compiled twin."""
    a, b, c, d, e, f = m
    result: list[Polyline] = []
    made = 0
    for start_x, start_y, segments, closed in subpaths:
        px = a * start_x + c * start_y + e
        py = b * start_x + d * start_y + f
        out = [px, py]
        for seg in segments:
            kind = seg[0]
            if kind == LINE:
                x, y = seg[1], seg[2]
                px = a * x + c * y + e
                py = b * x + d * y + f
                out.append(px)
                out.append(py)
                continue
            if kind == CUBIC:
                _, x1, y1, x2, y2, x, y = seg
                q1x, q1y = a * x1 + c * y1 + e, b * x1 + d * y1 + f
                q2x, q2y = a * x2 + c * y2 + e, b * x2 + d * y2 + f
                q3x, q3y = a * x + c * y + e, b * x + d * y + f
                bend = max(
                    math.hypot(px - 2 * q1x + q2x, py - 2 * q1y + q2y),
                    math.hypot(q1x - 2 * q2x + q3x, q1y - 2 * q2y + q3y),
                )
                n = budget.segments(math.sqrt(0.75 * bend / TOLERANCE), made + len(out) // 2)
                for i in range(1, n):
                    t = i / n
                    s = 1 - t
                    w0, w1, w2, w3 = s * s * s, 3 * s * s * t, 3 * s * t * t, t * t * t
                    out.append(w0 * px + w1 * q1x + w2 * q2x + w3 * q3x)
                    out.append(w0 * py + w1 * q1y + w2 * q2y + w3 * q3y)
                px, py = q3x, q3y
            elif kind == QUAD:
                _, x1, y1, x, y = seg
                q1x, q1y = a * x1 + c * y1 + e, b * x1 + d * y1 + f
                q2x, q2y = a * x + c * y + e, b * x + d * y + f
                bend = math.hypot(px - 2 * q1x + q2x, py - 2 * q1y + q2y)
                n = budget.segments(math.sqrt(0.25 * bend / TOLERANCE), made + len(out) // 2)
                for i in range(1, n):
                    t = i / n
                    s = 1 - t
                    w0, w1, w2 = s * s, 2 * s * t, t * t
                    out.append(w0 * px + w1 * q1x + w2 * q2x)
                    out.append(w0 * py + w1 * q1y + w2 * q2y)
                px, py = q2x, q2y
            else:  # ARC
                _, cx, cy, rx, ry, cos_phi, sin_phi, theta1, dtheta, x, y = seg
                arc_points(out, m, cx, cy, rx, ry, cos_phi, sin_phi, theta1, dtheta, budget, made)
                px, py = a * x + c * y + e, b * x + d * y + f
            out.append(px)
            out.append(py)
        made += len(out) // 2
        result.append((out, closed))
    return result


def arc_points(
    out: list[float],
    m: Matrix,
    cx: float,
    cy: float,
    rx: float,
    ry: float,
    cos_phi: float,
    sin_phi: float,
    theta1: float,
    dtheta: float,
    budget: PointBudget,
    made: int,
    full: bool = False,
) -> None:
    """Append the inner points of an elliptical arc (not its ends), in canvas coordinates.

    The segment count keeps the chord within TOLERANCE of the transformed ellipse: its
    largest radius is the largest singular value of the (ellipse x matrix) map.
    With `full`, the whole ellipse from theta1, start point included, end excluded.
    """
    a, b, c, d, e, f = m
    ux, uy = rx * cos_phi, rx * sin_phi  # ellipse axis vectors in the element's space
    vx, vy = -ry * sin_phi, ry * cos_phi
    canvas_ux, canvas_uy = a * ux + c * uy, b * ux + d * uy
    canvas_vx, canvas_vy = a * vx + c * vy, b * vx + d * vy
    ox, oy = a * cx + c * cy + e, b * cx + d * cy + f
    radius = max_scale((canvas_ux, canvas_uy, canvas_vx, canvas_vy, 0.0, 0.0))
    ratio = TOLERANCE / radius if radius > 0 else 2.0
    step = 2 * math.acos(1 - ratio) if ratio < 2 else TAU
    n = budget.segments(abs(dtheta) / step if step > 0 else math.inf, made + len(out) // 2)
    if full:
        n = max(n, 4)
    first = 0 if full else 1
    for i in range(first, n):
        t = theta1 + dtheta * i / n
        cos_t, sin_t = math.cos(t), math.sin(t)
        out.append(ox + canvas_ux * cos_t + canvas_vx * sin_t)
        out.append(oy + canvas_uy * cos_t + canvas_vy * sin_t)


def moved_to_origin(d: str) -> tuple[str, float | None, float | None]:
    """`d` started at the origin and the start it had, when its only absolute command is
    its first moveto; else `d` itself and None, None."""
    start = _RELATIVE_AFTER_START.fullmatch(d)
    if start is not None:
        command, x, y, rest = start.groups()
        # After `M x y`, more numbers would be absolute line-tos; after `m`, relative.
        follows = rest.lstrip(_SEPARATORS)[:1]
        if _ABSOLUTE_COMMAND.search(rest) is None and (
            command == "m" or not follows or follows in _COMMAND_LETTERS
        ):
            tx, ty = float(x), float(y)
            if abs(tx) < math.inf and abs(ty) < math.inf:
                return f"{command}0,0{rest}", tx, ty
    return d, None, None
